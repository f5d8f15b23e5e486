// SPDX-License-Identifier: MIT
/*
 * memory.c - HPU_IOCTL_MEMORY: device memory allocations, device and host
 * mappings, shared-memory (pinned host) mappings, export, and the
 * per-context handle tables with HBM accounting (docs/command-submission.md,
 * "MEMORY").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "hpu_mem.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const uint32_t mem_op_flags[] = {
	[HPU_MEM_OP_ALLOC] = HPU_MEM_CONTIGUOUS | HPU_MEM_SRAM,
	[HPU_MEM_OP_FREE] = 0,
	[HPU_MEM_OP_MAP] = HPU_MEM_USERPTR | HPU_MEM_FIXED,
	[HPU_MEM_OP_UNMAP] = 0,
	[HPU_MEM_OP_EXPORT] = 0,
	[HPU_MEM_OP_MAP_SHM] = HPU_MEM_FIXED,
};

#define SHM_PAGE 4096ULL

/**
 * hfd_ctx_mem_init() - empty handle tables for a compute context
 * @ctx: context
 *
 * Return: 0 or -errno.
 */
int hfd_ctx_mem_init(struct hfd_ctx *ctx)
{
	struct hfd_mem_state *m;
	int ret;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	ret = -pthread_mutex_init(&m->lock, NULL);
	if (ret) {
		free(m);
		return ret;
	}
	m->next_handle = 1;
	ctx->mem = m;
	return 0;
}

/**
 * hfd_ctx_mem_fini() - free every allocation, mapping record and CB of a
 * context whose address space is already destroyed; drop their clients
 * (closing the pidfds)
 * @ctx: context
 */
void hfd_ctx_mem_fini(struct hfd_ctx *ctx)
{
	struct hfd_mem_state *m = ctx->mem;
	struct hfd_client *c;
	struct hfd_alloc *a;
	struct hfd_map *mp;
	struct hfd_cb *cb;
	int ret;

	if (!m)
		return;
	while ((mp = m->maps)) {
		m->maps = mp->next;
		hfd_client_put(ctx, mp->client);
		if (mp->shm)
			munmap(mp->shm, mp->shm_size);
		free(mp);
	}
	while (m->cbs) {
		cb = hfd_handle_entry(m->cbs, struct hfd_cb);
		m->cbs = cb->node.next;
		hfd_client_put(ctx, cb->owner);
		free(cb);
	}
	while (m->allocs) {
		a = hfd_handle_entry(m->allocs, struct hfd_alloc);
		m->allocs = a->node.next;
		ret = CTX_OPS(ctx)->mem_free(a->mem);
		if (ret)
			hfd_err("hpu%u: pid %d: allocation %llu not freed: %s",
				ctx->dev->index, (int)ctx->pid,
				(unsigned long long)a->node.handle,
				strerror(-ret));
		if (!a->sram)
			__atomic_sub_fetch(&ctx->dram_bytes, a->size,
					   __ATOMIC_RELAXED);
		free(a);
	}
	/* every user of a client is gone: nothing should be left */
	while ((c = m->clients)) {
		m->clients = c->next;
		close(c->pidfd);
		free(c);
	}
	pthread_mutex_destroy(&m->lock);
	free(m);
	ctx->mem = NULL;
}

static struct hfd_alloc *find_alloc(struct hfd_mem_state *m, uint64_t handle,
				    struct hfd_handle_node ***link)
{
	struct hfd_handle_node *n = hfd_handle_find(&m->allocs, handle, link);

	return n ? hfd_handle_entry(n, struct hfd_alloc) : NULL;
}

static bool page_size_ok(const struct hfd_device *dev, uint64_t page_size)
{
	if (!page_size)
		return true;
	if (page_size & (page_size - 1))
		return false;
	return (dev->ip.page_size_mask & page_size) != 0;
}

static int mem_alloc(struct hfd_ctx *ctx, const struct hpu_mem_in *in,
		     struct hpu_mem_out *out)
{
	struct hfd_mem_state *m = ctx->mem;
	bool sram = in->flags & HPU_MEM_SRAM;
	struct hfd_alloc *a;
	int ret;

	if (!in->size || !page_size_ok(ctx->dev, in->page_size))
		return -EINVAL;
	ret = hfd_ctx_charge(ctx, HPU_CTX_LIMIT_ALLOCS, 1);
	if (ret)
		return ret;
	a = calloc(1, sizeof(*a));
	ret = a ? CTX_OPS(ctx)->mem_alloc(ctx->dev->fw, in->size, in->page_size,
					  in->flags & HPU_MEM_CONTIGUOUS, sram,
					  &a->mem) :
		  -ENOMEM;
	if (ret) {
		free(a);
		hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_ALLOCS, 1);
		return ret;
	}
	a->size = CTX_OPS(ctx)->mem_size(a->mem);
	a->sram = sram;
	hfd_handle_add(m, &m->allocs, &a->node);
	if (!sram)
		__atomic_add_fetch(&ctx->dram_bytes, a->size, __ATOMIC_RELAXED);
	out->handle = a->node.handle;
	out->size = a->size;
	return 0;
}

static int mem_free(struct hfd_ctx *ctx, const struct hpu_mem_in *in)
{
	struct hfd_mem_state *m = ctx->mem;
	struct hfd_handle_node **link;
	struct hfd_alloc *a;
	int ret;

	pthread_mutex_lock(&m->lock);
	a = find_alloc(m, in->handle, &link);
	if (!a) {
		ret = -EINVAL;
	} else if (a->map_count) {
		ret = -EBUSY;
	} else {
		ret = CTX_OPS(ctx)->mem_free(a->mem);
		if (!ret)
			*link = a->node.next;
	}
	pthread_mutex_unlock(&m->lock);
	if (ret)
		return ret;
	if (!a->sram)
		__atomic_sub_fetch(&ctx->dram_bytes, a->size, __ATOMIC_RELAXED);
	hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_ALLOCS, 1);
	free(a);
	return 0;
}

/* A VA hint must lie in the range of its kind; FIXED needs one */
static int check_hint(const struct hpu_mem_in *in, uint64_t lo, uint64_t hi)
{
	uint64_t hint = in->device_virt_addr;

	if (!hint)
		return (in->flags & HPU_MEM_FIXED) ? -EINVAL : 0;
	return hint >= lo && hint < hi ? 0 : -EINVAL;
}

static int map_device(struct hfd_ctx *ctx, const struct hpu_mem_in *in,
		      struct hpu_mem_out *out)
{
	struct hfd_mem_state *m = ctx->mem;
	struct hfd_alloc *a;
	struct hfd_map *mp;
	uint64_t va = 0;
	int ret;

	ret = check_hint(in, HPU_FW_VA_DEVICE_BASE, HPU_FW_VA_DEVICE_END);
	if (ret || in->host_virt_addr)
		return -EINVAL;
	ret = hfd_ctx_charge(ctx, HPU_CTX_LIMIT_DEVICE_MAPS, 1);
	if (ret)
		return ret;
	mp = calloc(1, sizeof(*mp));
	if (!mp) {
		hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_DEVICE_MAPS, 1);
		return -ENOMEM;
	}
	pthread_mutex_lock(&m->lock);
	a = find_alloc(m, in->handle, NULL);
	if (!a) {
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = CTX_OPS(ctx)->map_mem(ctx->as, a->mem, in->device_virt_addr,
				    in->flags & HPU_MEM_FIXED, &va);
	if (ret)
		goto out_unlock;
	mp->va = va;
	mp->alloc = a;
	mp->next = m->maps;
	m->maps = mp;
	a->map_count++;
	mp = NULL;
	out->device_virt_addr = va;
out_unlock:
	pthread_mutex_unlock(&m->lock);
	free(mp);
	if (ret)
		hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_DEVICE_MAPS, 1);
	return ret;
}

int hfd_ctx_map_user(struct hfd_ctx *ctx, pid_t tid, uint64_t addr,
		     uint64_t size, uint64_t hint, bool fixed,
		     struct hfd_client **client, uint64_t *va)
{
	struct hpu_fw_host_range r;
	struct hfd_client *c;
	int ret;

	ret = hfd_client_get(ctx, tid, &c);
	if (ret)
		return ret;
	r.pid = c->tgid;
	r.pidfd = c->pidfd;
	r.addr = addr;
	r.size = size;
	ret = CTX_OPS(ctx)->map_host(ctx->as, &r, hint, fixed, va);
	if (ret) {
		hfd_client_put(ctx, c);
		return ret;
	}
	*client = c;
	return 0;
}

static int map_host(struct hfd_ctx *ctx, pid_t tid, const struct hpu_mem_in *in,
		    struct hpu_mem_out *out)
{
	struct hfd_mem_state *m = ctx->mem;
	struct hfd_client *c;
	struct hfd_map *mp;
	uint64_t va = 0;
	int ret;

	ret = check_hint(in, HPU_FW_VA_HOST_BASE, HPU_FW_VA_HOST_END);
	if (ret || !in->size || in->handle || in->page_size)
		return -EINVAL;
	ret = hfd_ctx_charge2(ctx, HPU_CTX_LIMIT_HOST_MAPS, 1,
			      HPU_CTX_LIMIT_PINNED_BYTES, in->size);
	if (ret)
		return ret;
	mp = calloc(1, sizeof(*mp));
	ret = mp ? hfd_ctx_map_user(ctx, tid, in->host_virt_addr, in->size,
				    in->device_virt_addr,
				    in->flags & HPU_MEM_FIXED, &c, &va) :
		   -ENOMEM;
	if (ret) {
		free(mp);
		hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_HOST_MAPS, 1);
		hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_PINNED_BYTES, in->size);
		return ret;
	}
	mp->va = va;
	mp->client = c;
	mp->host_size = in->size;
	mp->host_addr = in->host_virt_addr;
	pthread_mutex_lock(&m->lock);
	mp->next = m->maps;
	m->maps = mp;
	pthread_mutex_unlock(&m->lock);
	out->device_virt_addr = va;
	return 0;
}

/*
 * Take the client's descriptor @fd itself (pidfd_getfd: no open, so no
 * lease break or other open-time wait, and no window in which the caller
 * can swap the descriptor after the check) and map @size bytes at @off
 * shared into the daemon. What is checked is what is held: a regular
 * shared-memory file (tmpfs, memfd, hugetlbfs), opened read-write by the
 * client (a root daemon must not grant more than the caller has), not
 * sealed against writing, sealed against shrinking (a client truncating
 * it under a running DMA would kill the daemon with SIGBUS), at least
 * @off + @size bytes long. Also the handover of a context's rings
 * (ring.c).
 *
 * Return: 0 with the mapping in @ptr; -EBADF, -EACCES, -EINVAL (see
 * docs/command-submission.md, "MAP_SHM"), -EFAULT, -EMFILE, -errno of
 * mmap.
 */
int hfd_shm_take_client_fd(struct hfd_ctx *ctx, pid_t tid, int fd, uint64_t off,
			   uint64_t size, void **ptr)
{
	struct hfd_client *c;
	struct statfs sfs;
	struct stat st;
	int file, fl, seals, ret;
	void *p;

	ret = hfd_client_get(ctx, tid, &c);
	if (ret)
		return ret;
	file = (int)syscall(SYS_pidfd_getfd, c->pidfd, fd, 0);
	if (file < 0)
		ret = errno == EBADF ? -EBADF : -EFAULT;
	hfd_client_put(ctx, c);
	if (file < 0)
		return ret;
	ret = -EINVAL;
	if (fstat(file, &st) || !S_ISREG(st.st_mode) || fstatfs(file, &sfs) ||
	    (sfs.f_type != TMPFS_MAGIC && sfs.f_type != HUGETLBFS_MAGIC))
		goto out_close;
	fl = fcntl(file, F_GETFL);
	seals = fcntl(file, F_GET_SEALS);
	if (fl < 0 || (fl & O_ACCMODE) != O_RDWR ||
	    (seals > 0 && (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)))) {
		ret = -EACCES;
		goto out_close;
	}
	if (seals < 0 || !(seals & F_SEAL_SHRINK))
		goto out_close;
	if ((uint64_t)st.st_size < off || (uint64_t)st.st_size - off < size)
		goto out_close;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, file,
		 (off_t)off);
	if (p == MAP_FAILED) {
		ret = -errno;
		goto out_close;
	}
	*ptr = p;
	ret = 0;
out_close:
	close(file);
	return ret;
}

static int map_shm(struct hfd_ctx *ctx, pid_t tid, const struct hpu_mem_in *in,
		   struct hpu_mem_out *out)
{
	struct hfd_mem_state *m = ctx->mem;
	struct hfd_map *mp;
	uint64_t va = 0;
	void *p = NULL;
	int ret;

	if (!CTX_OPS(ctx)->map_shared)
		return -EOPNOTSUPP;
	ret = check_hint(in, HPU_FW_VA_HOST_BASE, HPU_FW_VA_HOST_END);
	if (ret || !in->size || in->host_virt_addr || in->handle > INT32_MAX ||
	    (in->size | in->page_size) & (SHM_PAGE - 1) ||
	    in->size > SIZE_MAX || in->page_size > (uint64_t)INT64_MAX)
		return -EINVAL;
	ret = hfd_ctx_charge2(ctx, HPU_CTX_LIMIT_SHM_MAPS, 1,
			      HPU_CTX_LIMIT_PINNED_BYTES, in->size);
	if (ret)
		return ret;
	mp = calloc(1, sizeof(*mp));
	if (!mp) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = hfd_shm_take_client_fd(ctx, tid, (int)in->handle, in->page_size,
				     in->size, &p);
	if (ret)
		goto err_free;
	pthread_mutex_lock(&m->lock);
	ret = CTX_OPS(ctx)->map_shared(ctx->as, p, in->size,
				       in->device_virt_addr,
				       in->flags & HPU_MEM_FIXED, &va);
	if (!ret) {
		mp->va = va;
		mp->shm = p;
		mp->shm_size = in->size;
		mp->next = m->maps;
		m->maps = mp;
		out->device_virt_addr = va;
	}
	pthread_mutex_unlock(&m->lock);
	if (!ret)
		return 0;
	munmap(p, in->size);
err_free:
	free(mp);
	hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_SHM_MAPS, 1);
	hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_PINNED_BYTES, in->size);
	return ret;
}

static int mem_unmap(struct hfd_ctx *ctx, const struct hpu_mem_in *in)
{
	struct hfd_mem_state *m = ctx->mem;
	struct hfd_map *mp, **pp;
	int pidfd = -1, ret = -EINVAL;

	pthread_mutex_lock(&m->lock);
	for (pp = &m->maps; (mp = *pp); pp = &mp->next)
		if (mp->va == in->device_virt_addr)
			break;
	if (mp) {
		ret = CTX_OPS(ctx)->unmap(ctx->as, mp->va, &pidfd);
		if (ret == -ENOENT)
			ret = -EINVAL;
		if (!ret) {
			*pp = mp->next;
			if (mp->alloc)
				mp->alloc->map_count--;
		}
	}
	pthread_mutex_unlock(&m->lock);
	if (ret)
		return ret;
	if (mp->alloc) {
		hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_DEVICE_MAPS, 1);
	} else if (mp->shm) {
		hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_SHM_MAPS, 1);
		hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_PINNED_BYTES, mp->shm_size);
	} else {
		hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_HOST_MAPS, 1);
		hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_PINNED_BYTES,
				 mp->host_size);
	}
	/* the pidfd handed to map_host was the client's */
	hfd_client_put(ctx, mp->client);
	/* the model no longer reaches it */
	if (mp->shm)
		munmap(mp->shm, mp->shm_size);
	free(mp);
	return 0;
}

static int mem_export(struct hfd_ctx *ctx, const struct hpu_mem_in *in,
		      struct hpu_mem_out *out)
{
	struct hfd_mem_state *m = ctx->mem;
	const char *base;
	struct hfd_alloc *a;
	char path[512], *end;
	uint64_t id = 0;
	int ret;

	if (in->size || in->device_virt_addr || in->host_virt_addr)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	a = find_alloc(m, in->handle, NULL);
	if (!a) {
		pthread_mutex_unlock(&m->lock);
		return -EINVAL;
	}
	ret = CTX_OPS(ctx)->mem_export(a->mem, path, sizeof(path));
	if (!ret) {
		out->size = a->size;
		path[sizeof(path) - 1] = '\0';
		base = strrchr(path, '/');
		base = base ? base + 1 : path;
		id = strtoull(base, &end, 10);
		if (!*base || *end)
			ret = -EIO; /* the model broke its naming contract */
	}
	pthread_mutex_unlock(&m->lock);
	if (ret)
		return ret;
	/* a root daemon hands the file to the exporting user */
	if (geteuid() == 0 && ctx->uid != 0 && chown(path, ctx->uid, ctx->gid))
		return -errno;
	out->export_id = id;
	return 0;
}

/**
 * hfd_ioctl_memory() - HPU_IOCTL_MEMORY handler
 * @call: context and requesting thread
 * @data: union hpu_mem_args, updated in place
 *
 * Return: 0 or -errno (docs/command-submission.md, "MEMORY").
 */
int hfd_ioctl_memory(const struct hfd_ioctl_call *call, void *data)
{
	union hpu_mem_args *args = data;
	struct hfd_ctx *ctx = call->ctx;
	struct hpu_mem_in in = args->in;
	struct hpu_mem_out out;
	int ret;

	if (in.op >= ARRAY_SIZE(mem_op_flags) ||
	    hfd_check_zero(&in.reserved, sizeof(in.reserved)) ||
	    hfd_check_flags(in.flags, mem_op_flags[in.op]))
		return -EINVAL;
	if (!ctx->mem || !hfd_device_has_cs(ctx->dev))
		return -EOPNOTSUPP;

	/* a user range is faulted in before any lock is held */
	if (in.op == HPU_MEM_OP_MAP && (in.flags & HPU_MEM_USERPTR) &&
	    in.size && !in.handle && !in.page_size &&
	    !check_hint(&in, HPU_FW_VA_HOST_BASE, HPU_FW_VA_HOST_END)) {
		ret = hfd_user_probe(call->pid, in.host_virt_addr, in.size);
		if (ret)
			return ret;
	}

	memset(&out, 0, sizeof(out));
	pthread_rwlock_rdlock(&ctx->dev->reset_lock);
	pthread_rwlock_rdlock(&ctx->as_lock);
	if (!ctx->as) {
		ret = -ENODEV;
		goto out_unlock;
	}
	switch (in.op) {
	case HPU_MEM_OP_ALLOC:
		ret = mem_alloc(ctx, &in, &out);
		break;
	case HPU_MEM_OP_FREE:
		ret = mem_free(ctx, &in);
		break;
	case HPU_MEM_OP_MAP:
		if (in.flags & HPU_MEM_USERPTR)
			ret = map_host(ctx, call->pid, &in, &out);
		else
			ret = map_device(ctx, &in, &out);
		break;
	case HPU_MEM_OP_UNMAP:
		ret = mem_unmap(ctx, &in);
		break;
	case HPU_MEM_OP_MAP_SHM:
		ret = map_shm(ctx, call->pid, &in, &out);
		break;
	default:
		ret = mem_export(ctx, &in, &out);
		break;
	}
out_unlock:
	pthread_rwlock_unlock(&ctx->as_lock);
	pthread_rwlock_unlock(&ctx->dev->reset_lock);
	if (!ret)
		args->out = out;
	return ret;
}

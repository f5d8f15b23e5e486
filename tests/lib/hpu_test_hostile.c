// SPDX-License-Identifier: MIT
/*
 * hpu_test_hostile.c - a hostile local client of hpu-fused (the attacks of
 * issue 14). Its random choices come from hpu_test_rng.c, the memory
 * traps it puts arguments in from hpu_test_trap.c.
 *
 * Every attack is bounded in count and time and checks the shared stop
 * flag: on a daemon that handles it, a hostile client stops within a
 * second of being asked. On one that does not, the client may block in
 * an ioctl the daemon never answers; only the daemon's death frees it.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hpu_ring.h"
#include "hpu_test_hostile.h"
#include "hpu_test_rng.h"
#include "hpu_test_trap.h"
#include "hpu_test_util.h"
#include "hpudrv.h"

#define PAGE 4096UL

/* ---------------------------------------------------------- the client */

/*
 * struct hostile - one hostile client
 * @o: its options
 * @rng: its choices
 * @dev: its context (reopened after attacks that leave work in flight)
 * @ip: HW_IP_INFO of the device
 * @buf: 1 MiB of ordinary memory for CBs and host maps (never freed:
 *	CBs and mappings of a context being torn down may still refer to it)
 */
struct hostile {
	const struct hpu_hostile_opts *o;
	struct hpu_test_rng rng;
	struct hpu_device *dev;
	struct hpu_info_hw_ip_info ip;
	uint8_t *buf;
};

/* What an attack asks of the loop after it */
#define KEEP   0
#define REOPEN 1

static const char *const names[HPU_HOSTILE_NUM] = {
	[HPU_HOSTILE_UFFD] = "uffd",
	[HPU_HOSTILE_RECURSION] = "self-recursion",
	[HPU_HOSTILE_CB_FLOOD] = "cb-flood",
	[HPU_HOSTILE_HOSTMAP_FLOOD] = "hostmap-flood",
	[HPU_HOSTILE_SHM_FLOOD] = "shm-flood",
	[HPU_HOSTILE_QUEUE_HOG] = "queue-hog",
	[HPU_HOSTILE_WAIT_CHUNKS] = "wait-chunks",
	[HPU_HOSTILE_READONLY] = "readonly-args",
	[HPU_HOSTILE_GARBAGE] = "garbage",
	[HPU_HOSTILE_DIE] = "die",
};

/* Relative frequencies */
static const unsigned int weights[HPU_HOSTILE_NUM] = {
	[HPU_HOSTILE_UFFD] = 2,	       [HPU_HOSTILE_RECURSION] = 2,
	[HPU_HOSTILE_CB_FLOOD] = 2,    [HPU_HOSTILE_HOSTMAP_FLOOD] = 2,
	[HPU_HOSTILE_SHM_FLOOD] = 2,   [HPU_HOSTILE_QUEUE_HOG] = 2,
	[HPU_HOSTILE_WAIT_CHUNKS] = 2, [HPU_HOSTILE_READONLY] = 2,
	[HPU_HOSTILE_GARBAGE] = 3,     [HPU_HOSTILE_DIE] = 1,
};

const char *hpu_hostile_name(int attack)
{
	return attack >= 0 && attack < HPU_HOSTILE_NUM ? names[attack] : "?";
}

int hpu_hostile_parse_mask(const char *list, uint32_t *mask)
{
	const char *p = list, *end;
	size_t len;
	int a;

	*mask = 0;
	for (;;) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		for (a = 0; a < HPU_HOSTILE_NUM; a++)
			if (strlen(names[a]) == len &&
			    !strncmp(names[a], p, len))
				break;
		if (a == HPU_HOSTILE_NUM)
			return -EINVAL;
		*mask |= 1U << a;
		if (!end)
			return 0;
		p = end + 1;
	}
}

static bool stopped(const struct hostile *h)
{
	return __atomic_load_n(h->o->stop, __ATOMIC_RELAXED) != 0;
}

static void count_run(struct hostile *h, int attack)
{
	if (h->o->stats)
		__atomic_fetch_add(&h->o->stats->runs[attack], 1,
				   __ATOMIC_RELAXED);
}

/* The driver refused an attack with @err (nothing counted for 0) */
static void count(struct hostile *h, int attack, int err)
{
	struct hpu_hostile_stats *st = h->o->stats;

	if (!st || !err)
		return;
	__atomic_fetch_add(&st->refused[attack], 1, __ATOMIC_RELAXED);
	__atomic_store_n(&st->last_err[attack], (int64_t)err, __ATOMIC_RELAXED);
}

static void count_stuck(struct hostile *h, int attack, unsigned int n)
{
	if (h->o->stats && n)
		__atomic_fetch_add(&h->o->stats->stuck[attack], n,
				   __ATOMIC_RELAXED);
}

/*
 * Sleep a random time between @min_ms and @max_ms, waking early when told
 * to stop
 */
static void hold_between(struct hostile *h, unsigned int min_ms,
			 unsigned int max_ms)
{
	long end = hpu_test_now_ms() + min_ms +
		   hpu_test_rng_below(&h->rng, max_ms - min_ms + 1);

	while (!stopped(h) && hpu_test_now_ms() < end)
		poll(NULL, 0, 20);
}

/* Sleep a random time up to @max_ms, waking early when told to stop */
static void hold(struct hostile *h, unsigned int max_ms)
{
	hold_between(h, 0, max_ms);
}

static int xioctl(struct hostile *h, unsigned long cmd, void *arg)
{
	return hpu_test_ioctl(hpu_device_fd(h->dev), cmd, arg);
}

static uint32_t dma_queue(struct hostile *h)
{
	return hpu_test_rng_below(&h->rng, h->ip.num_dma ? h->ip.num_dma : 1);
}

/* ------------------------------------------- threads blocked in the daemon */

/*
 * struct blocker - a thread making one kind of call that may never return
 * @fd: device file
 * @h: the client (read-only use: mount, device)
 * @ptr: output page (uffd)
 * @attr: attribute file (recursion)
 * @iters: calls to make
 * @done: set when the thread ends
 */
struct blocker {
	int fd;
	const struct hostile *h;
	void *ptr;
	const char *attr;
	unsigned int iters;
	int done;
};

static int info_into(int fd, void *ptr)
{
	struct hpu_info_args a;

	memset(&a, 0, sizeof(a));
	a.return_pointer = (uintptr_t)ptr;
	a.return_size = sizeof(struct hpu_info_hw_ip_info);
	a.op = HPU_INFO_HW_IP_INFO;
	return hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a);
}

static void *uffd_thread(void *arg)
{
	struct blocker *b = arg;

	info_into(b->fd, b->ptr);
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *recursion_thread(void *arg)
{
	struct blocker *b = arg;
	unsigned int i;
	void *p;

	for (i = 0; i < b->iters && !stopped(b->h); i++) {
		p = hpu_test_attr_map(b->h->o->mount, b->h->o->dev, b->attr);
		if (!p)
			break;
		info_into(b->fd, p);
		munmap(p, PAGE);
	}
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Start @n threads running @fn on @b[i], wait for them at most @max_ms
 * (or until told to stop); those still running are left blocked.
 * Return: how many are still running.
 */
static unsigned int run_blockers(struct hostile *h, struct blocker *b,
				 unsigned int n, void *(*fn)(void *),
				 unsigned int max_ms)
{
	pthread_t t[64];
	bool started[64] = { false };
	unsigned int i, left;
	long end = hpu_test_now_ms() + max_ms;

	for (i = 0; i < n && i < 64; i++)
		started[i] = !pthread_create(&t[i], NULL, fn, &b[i]);
	for (;;) {
		left = 0;
		for (i = 0; i < n && i < 64; i++)
			if (started[i] &&
			    !__atomic_load_n(&b[i].done, __ATOMIC_ACQUIRE))
				left++;
		if (!left || hpu_test_now_ms() >= end || stopped(h))
			break;
		poll(NULL, 0, 20);
	}
	for (i = 0; i < n && i < 64; i++) {
		if (!started[i])
			continue;
		if (__atomic_load_n(&b[i].done, __ATOMIC_ACQUIRE))
			pthread_join(t[i], NULL);
		else
			pthread_detach(t[i]);
	}
	return left;
}

#define BLOCKERS 8

static int attack_uffd(struct hostile *h)
{
	struct blocker *b;
	unsigned int i, left;
	uint8_t *p;
	int uffd;

	p = hpu_test_uffd_pages(BLOCKERS, &uffd);
	if (!p)
		return KEEP;
	b = calloc(BLOCKERS, sizeof(*b));
	if (!b)
		return KEEP;
	for (i = 0; i < BLOCKERS; i++) {
		b[i].fd = hpu_device_fd(h->dev);
		b[i].h = h;
		b[i].ptr = p + i * PAGE;
	}
	left = run_blockers(h, b, BLOCKERS, uffd_thread, 3000);
	count_stuck(h, HPU_HOSTILE_UFFD, left);
	if (left)
		/* nobody resolves the faults: the pages, the uffd and the
		 * threads stay as they are; the context keeps its file */
		return REOPEN;
	close(uffd);
	munmap(p, BLOCKERS * PAGE);
	free(b);
	return KEEP;
}

static const char *const attrs[] = { "temperature_mc", "power_mw",
				     "status",	       "utilization",
				     "clients",	       "serial_number",
				     "memory_used",    "fw_version" };

#define RECURSERS 16

static int attack_recursion(struct hostile *h)
{
	struct blocker *b = calloc(RECURSERS, sizeof(*b));
	unsigned int i, left;

	if (!b)
		return KEEP;
	for (i = 0; i < RECURSERS; i++) {
		b[i].fd = hpu_device_fd(h->dev);
		b[i].h = h;
		b[i].attr = attrs[hpu_test_rng_below(
			&h->rng, sizeof(attrs) / sizeof(attrs[0]))];
		b[i].iters = 8 + hpu_test_rng_below(&h->rng, 32);
	}
	left = run_blockers(h, b, RECURSERS, recursion_thread, 3000);
	count_stuck(h, HPU_HOSTILE_RECURSION, left);
	if (left)
		return REOPEN;
	free(b);
	return KEEP;
}

/* ---------------------------------------------------------------- floods */

/**
 * struct flood - what a flood attack makes until the driver refuses
 * @attack: the attack (its counters)
 * @base: it makes @base + a random count below @spread objects
 * @spread: see @base
 * @make: make the @i-th one; its handle or VA in *@id: 0 or -errno
 * @release: release the one @id
 */
struct flood {
	int attack;
	unsigned int base, spread;
	int (*make)(struct hostile *h, unsigned int i, uint64_t *id);
	void (*release)(struct hostile *h, uint64_t id);
};

/*
 * Make objects until @f's count, a refusal (counted) or a stop; hold
 * them a while, then release them one by one or (at random) leave them
 * to the context's release
 */
static int flood(struct hostile *h, const struct flood *f)
{
	unsigned int n = f->base + hpu_test_rng_below(&h->rng, f->spread), i,
		     made = 0;
	uint64_t *ids = calloc(n, sizeof(*ids));
	int ret = 0;

	if (!ids)
		return KEEP;
	for (i = 0; i < n && !stopped(h) && !ret; i++) {
		ret = f->make(h, i, &ids[i]);
		made += !ret;
	}
	count(h, f->attack, ret);
	hold(h, h->o->max_hold_ms / 4);
	if (hpu_test_rng_below(&h->rng, 2)) {
		free(ids);
		return REOPEN; /* the release destroys them */
	}
	for (i = 0; i < made; i++)
		f->release(h, ids[i]);
	free(ids);
	return KEEP;
}

static int make_cb(struct hostile *h, unsigned int i, uint64_t *handle)
{
	return hpu_cb_create(h->dev, h->buf + (i % 256) * PAGE, PAGE, handle,
			     NULL);
}

static void destroy_cb(struct hostile *h, uint64_t handle)
{
	hpu_cb_destroy(h->dev, handle);
}

static int attack_cb_flood(struct hostile *h)
{
	static const struct flood f = { .attack = HPU_HOSTILE_CB_FLOOD,
					.base = 256,
					.spread = 3000,
					.make = make_cb,
					.release = destroy_cb };

	return flood(h, &f);
}

static int map_host_page(struct hostile *h, unsigned int i, uint64_t *va)
{
	return hpu_mem_map_host(h->dev, h->buf + (i % 256) * PAGE, PAGE, 0, 0,
				va);
}

static void unmap(struct hostile *h, uint64_t va)
{
	hpu_mem_unmap(h->dev, va);
}

static int attack_hostmap_flood(struct hostile *h)
{
	static const struct flood f = { .attack = HPU_HOSTILE_HOSTMAP_FLOOD,
					.base = 256,
					.spread = 3000,
					.make = map_host_page,
					.release = unmap };

	return flood(h, &f);
}

/*
 * MAP_SHM of a fresh sealed memfd of one page (@i: a flood's count, not
 * used): its device VA in *@va; 0 or -errno
 */
static int map_small_shm(struct hostile *h, unsigned int i, uint64_t *va)
{
	union hpu_mem_args a;
	int fd, ret;

	(void)i;
	fd = memfd_create("hpu-hostile", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, PAGE) || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_MEM_OP_MAP_SHM;
	a.in.size = PAGE;
	a.in.handle = (uint64_t)fd;
	ret = xioctl(h, HPU_IOCTL_MEMORY, &a);
	close(fd);
	if (!ret)
		*va = a.out.device_virt_addr;
	return ret;
}

static int attack_shm_flood(struct hostile *h)
{
	static const struct flood f = { .attack = HPU_HOSTILE_SHM_FLOOD,
					.base = 2048,
					.spread = 14000,
					.make = map_small_shm,
					.release = unmap };

	return flood(h, &f);
}

/* ------------------------------------------------------ queues held */

/* Submit @b on @queue with the largest timeout the driver takes */
static int submit_long_timeout(struct hpu_cb_builder *b, uint32_t queue,
			       uint64_t *seq)
{
	static const uint32_t timeouts[] = { UINT32_MAX, 3600000, 0 };
	unsigned int i;
	int ret = -EINVAL;

	for (i = 0; i < 3 && ret == -EINVAL; i++)
		ret = hpu_cb_builder_submit(b, queue, 0, timeouts[i], seq,
					    NULL);
	return ret;
}

static int attack_queue_hog(struct hostile *h)
{
	unsigned int nq = 1 + hpu_test_rng_below(&h->rng, h->ip.num_dma),
		     first = dma_queue(h), i;
	struct hpu_cb_builder *b;
	uint64_t seq;
	int ret;

	if (hpu_cb_builder_create(h->dev, PAGE, &b))
		return KEEP;
	ret = hpu_cb_fence(b, hpu_test_rng_below(&h->rng, HPU_NUM_SOBS), 1, 1);
	for (i = 0; i < nq && !ret; i++)
		ret = submit_long_timeout(b, (first + i) % h->ip.num_dma, &seq);
	count(h, HPU_HOSTILE_QUEUE_HOG, ret);
	/* a hog holds long */
	hold_between(h, h->o->max_hold_ms / 2, h->o->max_hold_ms);
	/* the CB is in use until the release aborts the CSs */
	return REOPEN;
}

/*
 * A WAIT submission of 64, 65 or 512 chunks on a DMA queue. The chunks
 * wait for a CS that already ended, or for one that is still running (a
 * FENCE nobody signals, on another queue, that times out in 300 ms), or
 * all but the last for the running one and the last for the ended one.
 * Then work behind it on its queue.
 */
static int attack_wait_chunks(struct hostile *h)
{
	static const unsigned int sizes[] = { 64, 65, 512 };
	unsigned int n = sizes[hpu_test_rng_below(&h->rng, 3)], i;
	unsigned int mode = hpu_test_rng_below(&h->rng, 3);
	uint32_t queue = dma_queue(h), status;
	uint64_t ended[1], running[1], seq;
	struct hpu_cb_builder *b;
	struct hpu_cs_chunk *c;
	union hpu_cs_args a;
	int ret;

	if (hpu_cb_builder_create(h->dev, PAGE, &b))
		return KEEP;
	ret = hpu_cb_nop(b);
	if (!ret)
		ret = hpu_cb_builder_submit(b, queue, 0, 0, &ended[0], NULL);
	if (!ret)
		ret = hpu_cs_wait(h->dev, ended[0], 5000000, &status);
	hpu_cb_builder_reset(b);
	if (!ret)
		ret = hpu_cb_fence(b, hpu_test_rng_below(&h->rng, HPU_NUM_SOBS),
				   1, 1);
	if (!ret)
		ret = hpu_cb_builder_submit(b, (queue + 1) % h->ip.num_dma, 0,
					    300, &running[0], NULL);
	c = calloc(n, sizeof(*c));
	if (ret || !c) {
		free(c);
		return REOPEN;
	}
	for (i = 0; i < n; i++) {
		bool on_ended = mode == 0 || (mode == 2 && i == n - 1);

		c[i].cb_handle = (uintptr_t)(on_ended ? ended : running);
		c[i].queue_index = queue;
		c[i].cb_size = 1;
	}
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uintptr_t)c;
	a.in.num_chunks_execute = n;
	a.in.cs_flags = HPU_CS_FLAGS_WAIT;
	ret = xioctl(h, HPU_IOCTL_CS, &a);
	count(h, HPU_HOSTILE_WAIT_CHUNKS, ret);
	hpu_cb_builder_reset(b);
	if (!hpu_cb_nop(b))
		hpu_cb_builder_submit(b, queue, 0, 0, &seq, NULL);
	free(c);
	hold_between(h, h->o->max_hold_ms / 2, h->o->max_hold_ms);
	return REOPEN;
}

/* ------------------------------------------------ arguments read-only */

static int attack_readonly(struct hostile *h)
{
	unsigned int n = 8 + hpu_test_rng_below(&h->rng, 56), i;
	struct hpu_cb_builder *b;
	struct hpu_cs_chunk *chunk;
	union hpu_mem_args *ma;
	union hpu_cb_args *ca;
	union hpu_cs_args *sa;
	struct hpu_info_args *ia, *ib;
	uint8_t *ro;
	int ret = 0;

	if (hpu_cb_builder_create(h->dev, PAGE, &b))
		return KEEP;
	ro = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	chunk = calloc(1, sizeof(*chunk));
	if (ro == MAP_FAILED || !chunk || hpu_cb_nop(b)) {
		free(chunk);
		if (ro != MAP_FAILED)
			munmap(ro, 2 * PAGE);
		hpu_cb_builder_destroy(b);
		return KEEP;
	}
	chunk->cb_handle = hpu_cb_builder_handle(b);
	chunk->cb_size = (uint32_t)hpu_cb_builder_used(b);
	chunk->queue_index = dma_queue(h);

	ma = (union hpu_mem_args *)ro;
	ma->in.op = HPU_MEM_OP_ALLOC;
	ma->in.size = 1 << 20;
	ca = (union hpu_cb_args *)(ro + 256);
	ca->in.op = HPU_CB_OP_CREATE;
	ca->in.host_ptr = (uintptr_t)h->buf;
	ca->in.cb_size = PAGE;
	sa = (union hpu_cs_args *)(ro + 512);
	sa->in.chunks_execute = (uintptr_t)chunk;
	sa->in.num_chunks_execute = 1;
	ia = (struct hpu_info_args *)(ro + 768);
	ia->return_pointer = (uintptr_t)(ro + PAGE);
	ia->return_size = sizeof(struct hpu_info_events);
	ia->op = HPU_INFO_GET_EVENTS;
	ib = (struct hpu_info_args *)(ro + 1024);
	*ib = *ia;
	ib->return_size = sizeof(struct hpu_info_hw_ip_info);
	ib->op = HPU_INFO_HW_IP_INFO;
	mprotect(ro, 2 * PAGE, PROT_READ);

	for (i = 0; i < n && !stopped(h); i++) {
		switch (hpu_test_rng_below(&h->rng, 5)) {
		case 0:
			ret = xioctl(h, HPU_IOCTL_MEMORY, ma);
			break;
		case 1:
			ret = xioctl(h, HPU_IOCTL_CB, ca);
			break;
		case 2:
			ret = xioctl(h, HPU_IOCTL_CS, sa);
			break;
		case 3:
			ret = xioctl(h, HPU_IOCTL_INFO, ia);
			break;
		default:
			ret = xioctl(h, HPU_IOCTL_INFO, ib);
			break;
		}
	}
	count(h, HPU_HOSTILE_READONLY, ret);
	munmap(ro, 2 * PAGE);
	free(chunk);
	/* a CS may still use the CB: the release ends everything */
	return REOPEN;
}

/* ---------------------------------------------------------------- garbage */

/* every command of the driver, indexed by its number */
static const unsigned long hpu_cmds[] = {
	HPU_IOCTL_INFO,	   HPU_IOCTL_CB,     HPU_IOCTL_CS,
	HPU_IOCTL_WAIT_CS, HPU_IOCTL_MEMORY, HPU_IOCTL_DEBUG,
	HPU_IOCTL_NIC,	   HPU_IOCTL_RING,   HPU_IOCTL_TRACE,
};

#define NCMDS (sizeof(hpu_cmds) / sizeof(hpu_cmds[0]))

_Static_assert(NCMDS == HPU_COMMAND_END, "every command of the driver");

/*
 * Keep garbage from doing what only a privileged or distant user may, or
 * from holding the client itself: no fault injection or reset, no large
 * allocation, no connection beyond loopback, no long wait.
 */
static void sanitize(unsigned long cmd, void *arg)
{
	if (cmd == HPU_IOCTL_DEBUG) {
		struct hpu_debug_args *d = arg;

		if (d->op == HPU_DEBUG_OP_INJECT_FAULT ||
		    d->op == HPU_DEBUG_OP_RESET)
			d->op = 0xdead;
	} else if (cmd == HPU_IOCTL_MEMORY) {
		union hpu_mem_args *m = arg;

		if (m->in.op == HPU_MEM_OP_ALLOC)
			m->in.size &= (16 << 20) - 1;
	} else if (cmd == HPU_IOCTL_NIC) {
		union hpu_nic_args *n = arg;

		n->in.remote_ipv4 =
			n->in.remote_ipv4 & 1 ? htonl(INADDR_LOOPBACK) : 0;
	} else if (cmd == HPU_IOCTL_WAIT_CS) {
		union hpu_wait_cs_args *w = arg;

		w->in.timeout_us %= 100000;
	}
}

/* Command types the VFS itself acts on (freeze, flags, clone...): never */
static bool vfs_type(unsigned int type)
{
	return type == 0 || type == 'X' || type == 'f' || type == 'T' ||
	       type == 0x94 || type == 0x15;
}

/* A command of the driver's type with any number, direction and size */
static unsigned long drm_cmd(struct hostile *h)
{
	unsigned int nr = hpu_test_rng_below(&h->rng, NCMDS + 3), size;

	if (nr < NCMDS && hpu_test_rng_below(&h->rng, 2))
		size = _IOC_SIZE(hpu_cmds[nr]);
	else
		size = hpu_test_rng_below(&h->rng, 1024);
	return _IOC(hpu_test_rng_below(&h->rng, 4), DRM_IOCTL_BASE,
		    DRM_COMMAND_BASE + nr, size);
}

static int attack_garbage(struct hostile *h)
{
	unsigned int n = 100 + hpu_test_rng_below(&h->rng, 300), i, w;
	uint32_t *words = (uint32_t *)(h->buf + 512 * 1024);
	unsigned long cmd;
	void *arg;

	for (i = 0; i < n && !stopped(h); i++) {
		unsigned int kind = hpu_test_rng_below(&h->rng, 10);

		/* fields: random words, some left zero */
		for (w = 0; w < 256; w++)
			words[w] = hpu_test_rng_below(&h->rng, 3) ?
					   0 :
					   (uint32_t)hpu_test_rng_next(&h->rng);
		if (kind < 4) {
			cmd = (uint32_t)hpu_test_rng_next(&h->rng);
		} else if (kind < 7) {
			cmd = drm_cmd(h);
		} else {
			cmd = hpu_cmds[hpu_test_rng_below(&h->rng, NCMDS)];
			/* the first field often points into our memory */
			if (hpu_test_rng_below(&h->rng, 2)) {
				uint32_t k = hpu_test_rng_below(&h->rng, 256);
				uint64_t p = (uintptr_t)(h->buf + k * 1024);

				memcpy(words, &p, sizeof(p));
			}
		}
		if (vfs_type(_IOC_TYPE(cmd)))
			continue;
		switch (hpu_test_rng_below(&h->rng, 20)) {
		case 0:
			arg = NULL;
			break;
		case 1:
			arg = (void *)(uintptr_t)(hpu_test_rng_next(&h->rng) &
						  ~7ULL);
			break;
		default:
			arg = words;
			sanitize(cmd, words);
			break;
		}
		xioctl(h, cmd, arg);
	}
	return REOPEN;
}

/* ---------------------------------------------------------------- death */

static void *waiter_thread(void *arg)
{
	struct hostile *h = arg;
	uint32_t status;

	hpu_cs_wait(h->dev, 1, 60000000, &status);
	return NULL;
}

static int attack_die(struct hostile *h)
{
	struct hpu_cb_builder *b = NULL;
	uint64_t hva, hbm, va, seq, shm;
	unsigned int i;
	pthread_t t;

	if (!hpu_mem_map_host(h->dev, h->buf, 1 << 20, 0, 0, &hva) &&
	    !hpu_mem_alloc(h->dev, 8 << 20, 0, 0, &hbm) &&
	    !hpu_mem_map(h->dev, hbm, 0, 0, &va) &&
	    !hpu_cb_builder_create(h->dev, PAGE, &b)) {
		for (i = 0; i < 8; i++) {
			hpu_cb_builder_reset(b);
			if (hpu_cb_lin_dma(b, va + (i % 8) * (1 << 20), hva,
					   1 << 20) ||
			    hpu_cb_builder_submit(b, dma_queue(h), 0, 0, &seq,
						  NULL))
				break;
		}
		hpu_cb_builder_reset(b);
		if (!hpu_cb_fence(b, 7, 1, 1))
			submit_long_timeout(b, dma_queue(h), &seq);
	}
	for (i = 0; i < 8; i++)
		map_small_shm(h, i, &shm);
	if (!pthread_create(&t, NULL, waiter_thread, h))
		poll(NULL, 0, (int)hpu_test_rng_below(&h->rng, 50));
	kill(getpid(), SIGKILL);
	_exit(1);
	return KEEP;
}

/* ---------------------------------------------------------------- the loop */

static int (*const attacks[HPU_HOSTILE_NUM])(struct hostile *h) = {
	[HPU_HOSTILE_UFFD] = attack_uffd,
	[HPU_HOSTILE_RECURSION] = attack_recursion,
	[HPU_HOSTILE_CB_FLOOD] = attack_cb_flood,
	[HPU_HOSTILE_HOSTMAP_FLOOD] = attack_hostmap_flood,
	[HPU_HOSTILE_SHM_FLOOD] = attack_shm_flood,
	[HPU_HOSTILE_QUEUE_HOG] = attack_queue_hog,
	[HPU_HOSTILE_WAIT_CHUNKS] = attack_wait_chunks,
	[HPU_HOSTILE_READONLY] = attack_readonly,
	[HPU_HOSTILE_GARBAGE] = attack_garbage,
	[HPU_HOSTILE_DIE] = attack_die,
};

/* Whether attack @a may run */
static bool allowed(const struct hostile *h, unsigned int a)
{
	if (a == HPU_HOSTILE_UFFD && !h->o->uffd)
		return false;
	return !h->o->mask || (h->o->mask & (1U << a));
}

static void reopen(struct hostile *h)
{
	hpu_close(h->dev);
	h->dev = NULL;
	while (!stopped(h)) {
		if (!hpu_open(h->o->dev, &h->dev))
			return;
		/* the daemon is out of something: come back later */
		h->dev = NULL;
		poll(NULL, 0, 100);
	}
}

static int pick(struct hostile *h)
{
	unsigned int total = 0, r, a;

	for (a = 0; a < HPU_HOSTILE_NUM; a++)
		if (allowed(h, a))
			total += weights[a];
	r = hpu_test_rng_below(&h->rng, total);
	for (a = 0; a < HPU_HOSTILE_NUM; a++) {
		if (!allowed(h, a))
			continue;
		if (r < weights[a])
			return (int)a;
		r -= weights[a];
	}
	return HPU_HOSTILE_GARBAGE;
}

void hpu_hostile_main(const struct hpu_hostile_opts *o, uint64_t seed)
{
	struct hostile h = { .o = o };
	int a, next;

	signal(SIGPIPE, SIG_IGN);
	hpu_test_rng_seed(&h.rng, seed);
	h.buf = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h.buf == MAP_FAILED)
		_exit(1);
	memset(h.buf, 0, 1 << 20);
	reopen(&h);
	if (h.dev && hpu_info_hw_ip(h.dev, &h.ip))
		_exit(1);
	if (!h.ip.num_dma)
		h.ip.num_dma = 1;
	while (h.dev && !stopped(&h)) {
		a = pick(&h);
		count_run(&h, a);
		next = attacks[a](&h);
		if (next == REOPEN)
			reopen(&h);
	}
	_exit(0);
}

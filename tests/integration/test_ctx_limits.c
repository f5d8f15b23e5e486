// SPDX-License-Identifier: MIT
/*
 * test_ctx_limits.c - per-context limits against the real hpu-fused
 * (docs/abi.md, "Limits"): with small --limit values every limit is hit
 * and answers its documented errno while another context still works,
 * HPU_INFO_CTX_LIMITS reports each limit and its use; with the default
 * limits, 20000 CB creates and many small MAP_SHM mappings end in the
 * documented errno with the daemon alive (also under ASan); --limit is
 * validated.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_util.h"
#include "hpu_accel.h"
#include "hpu_packets.h"
#include "hpudrv.h"

#define WAIT_US 30000000ULL

static const char *const small_limits[] = {
	"--limit", "cbs=8",	     "--limit", "allocs=8",
	"--limit", "device_maps=4",  "--limit", "host_maps=4",
	"--limit", "shm_maps=3",     "--limit", "pinned_bytes=131072",
	"--limit", "cs_in_flight=2", "--limit", "events=4",
	"--limit", "nic_mrs=2",	     "--limit", "nic_conns=1",
	"--limit", "waiters=2",	     NULL,
};

static void limits(int fd, struct hpu_info_ctx_limits *l)
{
	struct hpu_info_args a = { .return_pointer = (uintptr_t)l,
				   .return_size = sizeof(*l),
				   .op = HPU_INFO_CTX_LIMITS };

	memset(l, 0, sizeof(*l));
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), 0);
	assert_int_equal(a.full_size, sizeof(*l));
	assert_int_equal(l->num_limits, HPU_CTX_LIMIT_NUM);
}

static uint64_t used(int fd, unsigned int id)
{
	struct hpu_info_ctx_limits l;

	limits(fd, &l);
	return l.limits[id].used;
}

/*
 * The use of @id once it settles at @want: a CS is counted in flight
 * until the daemon finished ending it, a little after its waits are
 * answered. Bounded (10 s); returns the last value seen.
 */
static uint64_t used_settles(int fd, unsigned int id, uint64_t want)
{
	uint64_t v = used(fd, id);
	int i;

	for (i = 0; i < 1000 && v != want; i++) {
		hpu_test_sleep_ms(10);
		v = used(fd, id);
	}
	return v;
}

static int alloc(int fd, uint64_t size, uint64_t *h)
{
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_ALLOC,
					 .size = size } };
	int ret = hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m);

	*h = ret ? 0 : m.out.handle;
	return ret;
}

static int mem_free(int fd, uint64_t h)
{
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_FREE, .handle = h } };

	return hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m);
}

static int map_dev(int fd, uint64_t h, uint64_t *va)
{
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_MAP, .handle = h } };
	int ret = hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m);

	*va = ret ? 0 : m.out.device_virt_addr;
	return ret;
}

static int map_host(int fd, void *p, uint64_t size, uint64_t *va)
{
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_MAP,
					 .flags = HPU_MEM_USERPTR,
					 .host_virt_addr = (uintptr_t)p,
					 .size = size } };
	int ret = hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m);

	*va = ret ? 0 : m.out.device_virt_addr;
	return ret;
}

static int map_shm(int fd, int mfd, uint64_t off, uint64_t size, uint64_t *va)
{
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_MAP_SHM,
					 .handle = (uint64_t)mfd,
					 .page_size = off,
					 .size = size } };
	int ret = hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m);

	*va = ret ? 0 : m.out.device_virt_addr;
	return ret;
}

static int unmap(int fd, uint64_t va)
{
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_UNMAP,
					 .device_virt_addr = va } };

	return hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m);
}

static int cb_create(int fd, void *p, uint32_t size, uint64_t *h)
{
	union hpu_cb_args a = { .in = { .op = HPU_CB_OP_CREATE,
					.host_ptr = (uintptr_t)p,
					.cb_size = size } };
	int ret = hpu_test_ioctl(fd, HPU_IOCTL_CB, &a);

	*h = ret ? 0 : a.out.cb_handle;
	return ret;
}

static int cb_destroy(int fd, uint64_t h)
{
	union hpu_cb_args a = { .in = { .op = HPU_CB_OP_DESTROY,
					.cb_handle = h } };

	return hpu_test_ioctl(fd, HPU_IOCTL_CB, &a);
}

static int sealed_memfd(size_t size)
{
	int fd = memfd_create("limits", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	return fd;
}

/* ------------------------------------------------------------- INFO */

static void test_info_reports_limits(void **state)
{
	struct hpu_info_driver_version v;
	struct hpu_info_ctx_limits l;
	struct hpu_info_args a = { .return_pointer = (uintptr_t)&v,
				   .return_size = sizeof(v),
				   .op = HPU_INFO_DRIVER_VERSION };
	char path[PATH_MAX + 32];
	unsigned int i;
	int fd = hpu_test_open_dev(0), cfd;

	(void)state;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), 0);
	assert_true(v.capabilities & HPU_CAP_CTX_LIMITS);
	limits(fd, &l);
	assert_int_equal(l.limits[HPU_CTX_LIMIT_CBS].limit, 8);
	assert_int_equal(l.limits[HPU_CTX_LIMIT_ALLOCS].limit, 8);
	assert_int_equal(l.limits[HPU_CTX_LIMIT_DEVICE_MAPS].limit, 4);
	assert_int_equal(l.limits[HPU_CTX_LIMIT_HOST_MAPS].limit, 4);
	assert_int_equal(l.limits[HPU_CTX_LIMIT_SHM_MAPS].limit, 3);
	assert_int_equal(l.limits[HPU_CTX_LIMIT_PINNED_BYTES].limit, 131072);
	assert_int_equal(l.limits[HPU_CTX_LIMIT_CS_IN_FLIGHT].limit, 2);
	assert_int_equal(l.limits[HPU_CTX_LIMIT_EVENTS].limit, 4);
	assert_int_equal(l.limits[HPU_CTX_LIMIT_NIC_MRS].limit, 2);
	assert_int_equal(l.limits[HPU_CTX_LIMIT_NIC_CONNS].limit, 1);
	assert_int_equal(l.limits[HPU_CTX_LIMIT_WAITERS].limit, 2);
	for (i = 0; i < HPU_CTX_LIMIT_SLOTS; i++)
		assert_int_equal(l.limits[i].used, 0);
	for (i = HPU_CTX_LIMIT_NUM; i < HPU_CTX_LIMIT_SLOTS; i++)
		assert_int_equal(l.limits[i].limit, 0);
	for (i = 0; i < HPU_CTX_LIMIT_NUM; i++)
		assert_non_null(hpu_ctx_limit_name(i));
	assert_null(hpu_ctx_limit_name(HPU_CTX_LIMIT_SLOTS));
	close(fd);

	/* a control node answers too (it holds nothing) */
	snprintf(path, sizeof(path), "%s/hpu_control0", hpu_test_shared.mount);
	cfd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(cfd >= 0);
	limits(cfd, &l);
	assert_int_equal(l.limits[HPU_CTX_LIMIT_CBS].limit, 8);
	assert_int_equal(l.limits[HPU_CTX_LIMIT_CBS].used, 0);
	close(cfd);
}

/* ------------------------------------------------------- each limit */

static void test_cbs_limit(void **state)
{
	static uint64_t buf[16];
	uint64_t h[9], other;
	int fd = hpu_test_open_dev(0), fd2 = hpu_test_open_dev(0), i;

	(void)state;
	for (i = 0; i < 8; i++)
		assert_int_equal(cb_create(fd, buf, 64, &h[i]), 0);
	assert_int_equal(cb_create(fd, buf, 64, &h[8]), -EMFILE);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_CBS), 8);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_PINNED_BYTES), 8 * 64);
	/* another context is not affected */
	assert_int_equal(cb_create(fd2, buf, 64, &other), 0);
	assert_int_equal(used(fd2, HPU_CTX_LIMIT_CBS), 1);
	/* a destroy gives the room back */
	assert_int_equal(cb_destroy(fd, h[0]), 0);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_CBS), 7);
	assert_int_equal(cb_create(fd, buf, 64, &h[0]), 0);
	close(fd);
	close(fd2);
}

static void test_allocs_and_maps_limit(void **state)
{
	uint64_t h[9], va[5], other;
	int fd = hpu_test_open_dev(0), fd2 = hpu_test_open_dev(0), i;

	(void)state;
	for (i = 0; i < 8; i++)
		assert_int_equal(alloc(fd, 4096, &h[i]), 0);
	assert_int_equal(alloc(fd, 4096, &h[8]), -EMFILE);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_ALLOCS), 8);
	assert_int_equal(alloc(fd2, 4096, &other), 0);
	assert_int_equal(mem_free(fd, h[7]), 0);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_ALLOCS), 7);
	assert_int_equal(alloc(fd, 4096, &h[7]), 0);

	for (i = 0; i < 4; i++)
		assert_int_equal(map_dev(fd, h[0], &va[i]), 0);
	assert_int_equal(map_dev(fd, h[0], &va[4]), -EMFILE);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_DEVICE_MAPS), 4);
	assert_int_equal(map_dev(fd2, other, &va[4]), 0);
	assert_int_equal(unmap(fd, va[3]), 0);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_DEVICE_MAPS), 3);
	assert_int_equal(map_dev(fd, h[0], &va[3]), 0);
	close(fd);
	close(fd2);
}

static void test_host_maps_and_pinned_limit(void **state)
{
	static uint8_t host[5][4096];
	size_t big_len = 128 * 1024;
	uint64_t va[5], big_va;
	void *big;
	int fd = hpu_test_open_dev(0), fd2 = hpu_test_open_dev(0), i;

	(void)state;
	for (i = 0; i < 4; i++)
		assert_int_equal(map_host(fd, host[i], 4096, &va[i]), 0);
	assert_int_equal(map_host(fd, host[4], 4096, &va[4]), -EMFILE);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_HOST_MAPS), 4);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_PINNED_BYTES), 4 * 4096);
	assert_int_equal(unmap(fd, va[0]), 0);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_PINNED_BYTES), 3 * 4096);

	/* pinned bytes: 3 pages held, 128 KiB more would pass 128 KiB */
	big = mmap(NULL, big_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(big != MAP_FAILED);
	assert_int_equal(map_host(fd, big, big_len, &big_va), -ENOMEM);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_HOST_MAPS), 3);
	assert_int_equal(map_host(fd2, big, big_len, &big_va), 0);
	assert_int_equal(used(fd2, HPU_CTX_LIMIT_PINNED_BYTES), big_len);
	close(fd);
	close(fd2);
	munmap(big, big_len);
}

static void test_shm_maps_limit(void **state)
{
	int fd = hpu_test_open_dev(0), fd2 = hpu_test_open_dev(0),
	    mfd = sealed_memfd(16384), i;
	uint64_t va[4];

	(void)state;
	for (i = 0; i < 3; i++)
		assert_int_equal(
			map_shm(fd, mfd, (uint64_t)i * 4096, 4096, &va[i]), 0);
	assert_int_equal(map_shm(fd, mfd, 12288, 4096, &va[3]), -EMFILE);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_SHM_MAPS), 3);
	assert_int_equal(map_shm(fd2, mfd, 12288, 4096, &va[3]), 0);
	assert_int_equal(unmap(fd, va[0]), 0);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_SHM_MAPS), 2);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_PINNED_BYTES), 2 * 4096);
	close(mfd);
	close(fd);
	close(fd2);
}

/* A CS that waits on a SOB nobody raises: in flight until its timeout */
static int submit_fence(int fd, uint64_t *cb, uint32_t timeout_ms,
			uint64_t *seq)
{
	struct hpu_pkt_fence f = { .hdr = { .opcode = HPU_PACKET_FENCE,
					    .size = sizeof(f) },
				   .sob_id = 7,
				   .target = 1,
				   .dec = 1 };
	struct hpu_cs_chunk c = { .cb_size = sizeof(f) };
	union hpu_cs_args a = { .in = { .chunks_execute = (uintptr_t)&c,
					.num_chunks_execute = 1,
					.timeout_ms = timeout_ms } };
	uint64_t h;
	int ret;

	memcpy(cb, &f, sizeof(f));
	assert_int_equal(cb_create(fd, cb, 64, &h), 0);
	c.cb_handle = h;
	ret = hpu_test_ioctl(fd, HPU_IOCTL_CS, &a);
	*seq = ret ? 0 : a.out.seq;
	return ret;
}

static int wait_cs(int fd, uint64_t seq, uint64_t timeout_us)
{
	union hpu_wait_cs_args w = { .in = { .seq = seq,
					     .timeout_us = timeout_us } };

	return hpu_test_ioctl(fd, HPU_IOCTL_WAIT_CS, &w);
}

struct waiter {
	int fd;
	uint64_t seq;
	int ret;
};

static void *waiter_main(void *p)
{
	struct waiter *w = p;

	w->ret = wait_cs(w->fd, w->seq, WAIT_US);
	return NULL;
}

static void test_cs_and_waiters_limit(void **state)
{
	static uint64_t cbs[3][8];
	struct waiter w[2];
	pthread_t t[2];
	uint64_t seq[3];
	int fd = hpu_test_open_dev(1), fd2 = hpu_test_open_dev(1), i, tries;

	(void)state;
	/* two CSs stay in flight until their (short) timeout */
	assert_int_equal(submit_fence(fd, cbs[0], 3000, &seq[0]), 0);
	assert_int_equal(submit_fence(fd, cbs[1], 3000, &seq[1]), 0);
	assert_int_equal(submit_fence(fd, cbs[2], 3000, &seq[2]), -EAGAIN);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_CS_IN_FLIGHT), 2);

	/* two blocked waits; a third is refused at once */
	for (i = 0; i < 2; i++) {
		w[i].fd = fd;
		w[i].seq = seq[i];
		w[i].ret = 1;
		assert_int_equal(
			pthread_create(&t[i], NULL, waiter_main, &w[i]), 0);
	}
	for (tries = 0; tries < 1000 && used(fd, HPU_CTX_LIMIT_WAITERS) < 2;
	     tries++)
		hpu_test_sleep_ms(10);
	if (used(fd, HPU_CTX_LIMIT_WAITERS) == 2)
		assert_int_equal(wait_cs(fd, seq[1], WAIT_US), -EAGAIN);
	else
		printf("# the CSs ended before both waits blocked: the "
		       "waiters limit was not reached\n");
	/* a poll (timeout 0) never blocks, so it is never refused */
	assert_true(wait_cs(fd, seq[0], 0) == 0);
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].ret, 0);
	}
	assert_int_equal(used(fd, HPU_CTX_LIMIT_WAITERS), 0);
	assert_int_equal(used_settles(fd, HPU_CTX_LIMIT_CS_IN_FLIGHT, 0), 0);
	/* room again, and another context never lacked it */
	assert_int_equal(submit_fence(fd2, cbs[2], 100, &seq[2]), 0);
	assert_int_equal(wait_cs(fd2, seq[2], WAIT_US), 0);
	close(fd);
	close(fd2);
}

/* A CS whose DMA reads an unmapped VA: one PAGE_FAULT event */
static void page_fault(int fd, uint64_t *cb, uint64_t dst_va)
{
	struct hpu_pkt_lin_dma d = {
		.hdr = { .opcode = HPU_PACKET_LIN_DMA, .size = sizeof(d) },
		.src_addr = 0x100000000000ULL + (1ULL << 40),
		.dst_addr = dst_va,
		.size = 64
	};
	struct hpu_cs_chunk c = { .cb_size = sizeof(d) };
	union hpu_cs_args a = { .in = { .chunks_execute = (uintptr_t)&c,
					.num_chunks_execute = 1 } };
	uint64_t h;

	memcpy(cb, &d, sizeof(d));
	assert_int_equal(cb_create(fd, cb, 64, &h), 0);
	c.cb_handle = h;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CS, &a), 0);
	assert_int_equal(wait_cs(fd, a.out.seq, WAIT_US), 0);
	assert_int_equal(cb_destroy(fd, h), 0);
}

static void test_events_limit(void **state)
{
	static uint64_t cb[8];
	static uint8_t dst[4096];
	struct hpu_event ev[8];
	uint64_t va;
	ssize_t n;
	int fd = hpu_test_open_dev(0), i;

	(void)state;
	assert_int_equal(map_host(fd, dst, sizeof(dst), &va), 0);
	for (i = 0; i < 6; i++)
		page_fault(fd, cb, va);
	/* the ring holds 4: the two oldest were dropped */
	assert_int_equal(used(fd, HPU_CTX_LIMIT_EVENTS), 4);
	n = read(fd, ev, sizeof(ev));
	assert_int_equal(n, 4 * (ssize_t)sizeof(ev[0]));
	assert_int_equal(ev[0].type, HPU_EVENT_PAGE_FAULT);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_EVENTS), 0);
	close(fd);
}

static void test_nic_limits(void **state)
{
	struct hpu_info_driver_version v;
	struct hpu_info_args a = { .return_pointer = (uintptr_t)&v,
				   .return_size = sizeof(v),
				   .op = HPU_INFO_DRIVER_VERSION };
	union hpu_nic_args n;
	struct hpu_info_nic ni;
	uint64_t h, va;
	unsigned int p, i;
	int fd = hpu_test_open_dev(0), ret;

	(void)state;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), 0);
	if (!(v.capabilities & HPU_CAP_NIC)) {
		close(fd);
		HPU_TEST_SKIP_IF("the model has no NICs");
	}
	assert_int_equal(alloc(fd, 1 << 16, &h), 0);
	assert_int_equal(map_dev(fd, h, &va), 0);
	for (i = 0; i < 3; i++) {
		memset(&n, 0, sizeof(n));
		n.in.op = HPU_NIC_OP_REG_MR;
		n.in.flags = HPU_NIC_MR_REMOTE_WRITE;
		n.in.addr = va + i * 4096;
		n.in.size = 4096;
		ret = hpu_test_ioctl(fd, HPU_IOCTL_NIC, &n);
		assert_int_equal(ret, i < 2 ? 0 : -ENOSPC);
	}
	assert_int_equal(used(fd, HPU_CTX_LIMIT_NIC_MRS), 2);

	a.return_pointer = (uintptr_t)&ni;
	a.return_size = sizeof(ni);
	a.op = HPU_INFO_NIC;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), 0);
	for (p = 0; p < ni.num_ports && ni.port_peer[p] != 1; p++)
		;
	assert_true(p < ni.num_ports);
	for (i = 0; i < 2; i++) {
		memset(&n, 0, sizeof(n));
		n.in.op = HPU_NIC_OP_CONNECT;
		n.in.port = p;
		n.in.remote_device = 1;
		ret = hpu_test_ioctl(fd, HPU_IOCTL_NIC, &n);
		assert_int_equal(ret, i < 1 ? 0 : -ENOSPC);
	}
	assert_int_equal(used(fd, HPU_CTX_LIMIT_NIC_CONNS), 1);
	close(fd);
}

/* ------------------------------------------------- default limits */

static void test_default_limits_keep_daemon(void **state)
{
	static uint64_t buf[8];
	struct hpu_test_daemon d;
	struct hpu_info_ctx_limits l;
	uint64_t h = 0, va, cbs_limit, shm_limit;
	int fd, fd2, mfd, i, ret = 0, n = 0;

	(void)state;
	assert_int_equal(hpu_test_daemon_start(&d, 1, "gaudi2", NULL), 0);
	fd = hpu_test_open_node(d.mount, "hpu", 0);
	assert_true(fd >= 0);
	limits(fd, &l);
	cbs_limit = l.limits[HPU_CTX_LIMIT_CBS].limit;
	shm_limit = l.limits[HPU_CTX_LIMIT_SHM_MAPS].limit;
	assert_true(cbs_limit > 0 && cbs_limit < 20000);

	/* 20000 CB creates: the documented -EMFILE, never -EFAULT */
	for (i = 0; i < 20000; i++) {
		ret = cb_create(fd, buf, 64, &h);
		if (ret)
			break;
		n++;
	}
	assert_int_equal(ret, -EMFILE);
	assert_int_equal(n, cbs_limit);
	assert_int_equal(used(fd, HPU_CTX_LIMIT_CBS), cbs_limit);

	/* many small MAP_SHM mappings: -EMFILE, the daemon keeps answering */
	mfd = sealed_memfd(4096);
	for (i = 0, n = 0; i < 20000; i++) {
		ret = map_shm(fd, mfd, 0, 4096, &va);
		if (ret)
			break;
		n++;
	}
	assert_int_equal(ret, -EMFILE);
	assert_int_equal(n, shm_limit);

	/* another context still gets its CB and its mapping */
	fd2 = hpu_test_open_node(d.mount, "hpu", 0);
	assert_true(fd2 >= 0);
	assert_int_equal(cb_create(fd2, buf, 64, &h), 0);
	assert_int_equal(map_shm(fd2, mfd, 0, 4096, &va), 0);
	close(fd2);
	close(mfd);
	close(fd);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	setenv("HPU_DEV_DIR", hpu_test_shared.mount, 1);
}

/* --limit NAME=N is checked: a bad one is a usage error (exit 2) */
static void test_limit_option_validated(void **state)
{
	static const char *const bad[] = {
		"cbs=0",     "cbs=",
		"cbs=abc",   "cbs=-1",
		"nosuch=1",  "=5",
		"cbs",	     "nic_mrs=100000",
		"events=1x", "cbs=99999999999999999999",
	};
	char *argv[7];
	char *out = NULL;
	size_t i;
	int status;

	(void)state;
	argv[0] = (char *)hpu_test_bin("hpu-fused");
	argv[1] = "--foreground";
	argv[2] = "--mount";
	argv[3] = "/nonexistent-hpu-limit-test";
	argv[4] = "--limit";
	argv[6] = NULL;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		argv[5] = (char *)bad[i];
		hpu_test_run_refused(argv, NULL);
	}
	/* the help lists every limit */
	{
		char *help[3] = { (char *)hpu_test_bin("hpu-fused"), "--help",
				  NULL };

		assert_int_equal(hpu_test_run(help, &out, &status), 0);
		assert_int_equal(status, 0);
		for (i = 0; i < HPU_CTX_LIMIT_NUM; i++)
			assert_non_null(strstr(
				out, hpu_ctx_limit_name((unsigned int)i)));
		free(out);
	}
}

static int group_setup(void **state)
{
	if (hpu_test_group_start_args(2, "gaudi2", small_limits))
		return -1;
	return hpu_test_require_cs();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_info_reports_limits,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_cbs_limit, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_allocs_and_maps_limit,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_host_maps_and_pinned_limit,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_shm_maps_limit,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_cs_and_waiters_limit,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_events_limit, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_nic_limits, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_default_limits_keep_daemon,
				       hpu_test_need_daemon),
		cmocka_unit_test(test_limit_option_validated),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}

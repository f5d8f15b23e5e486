// SPDX-License-Identifier: MIT
/*
 * test_fw_stall.c - host memory that never answers, and owners that are
 * gone (firmware-sim/hostmem.c, docs/firmware-sim.md "Host memory").
 *
 * The stuck memory is this process's own: pages registered with
 * userfaultfd (missing mode) whose faults nobody resolves, mapped as host
 * memory, so the model's process_vm_readv blocks in the kernel. Needs a
 * userfaultfd that catches kernel faults (root, or
 * vm.unprivileged_userfaultfd); every test says so and skips otherwise.
 * Every wait is bounded; closing the userfaultfd releases what is stuck,
 * so even a model without a bound fails these tests instead of hanging.
 *
 * Owners that are gone: a mapping whose pidfd names a child that exited
 * while its pid (here: ours) still names a live process, as a reused pid
 * would.
 */
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>

#include "../lib/hpu_test_fw.h"
#include "../lib/hpu_test_util.h"

/*
 * HPUSIM_HOST_TIMEOUT_MS of the address spaces that get stuck; every other
 * one gets LONG_MS, so that a loaded machine never fails its accesses
 */
#define BOUND_MS    "1000"
#define LONG_MS	    "60000"
#define LIMIT_MS    20000 /* any bounded wait of the tests */
#define UFFD_REGION (16 * 4096)

struct ctx {
	struct hpu_fw_as *as;
	struct hpu_fw_mem *mem;
	uint64_t dev_va;
};

struct stall {
	struct hpu_test_fw *f;
	int uffd;
	uint8_t *region; /* page 0 present, the others missing */
	pid_t child;
	int child_pipe;
};

/* Why a kernel-fault userfaultfd cannot be had, or NULL (fd in *@fd) */
static const char *uffd_open(int *fd)
{
	struct uffdio_api api = { .api = UFFD_API };
	int u;

	u = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (u < 0) {
		int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);

		if (dev < 0)
			return "userfaultfd for kernel faults needs root or vm.unprivileged_userfaultfd=1";
		u = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);
		close(dev);
		if (u < 0)
			return "/dev/userfaultfd gives no userfaultfd";
	}
	if (ioctl(u, UFFDIO_API, &api)) {
		close(u);
		return "UFFDIO_API failed";
	}
	*fd = u;
	return NULL;
}

/* @region: page 0 present, the rest registered missing with @uffd */
static const char *stall_region(struct stall *s)
{
	struct uffdio_register reg = { 0 };
	const char *why = uffd_open(&s->uffd);

	if (why)
		return why;
	s->region = mmap(NULL, UFFD_REGION, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->region == MAP_FAILED)
		return "mmap failed";
	memset(s->region, 0x5a, 4096);
	reg.range.start = (uintptr_t)s->region + 4096;
	reg.range.len = UFFD_REGION - 4096;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(s->uffd, UFFDIO_REGISTER, &reg))
		return "UFFDIO_REGISTER failed";
	return NULL;
}

/* Wait (bounded) for a fault on the region; its address, or 0 */
static uint64_t uffd_wait_fault(struct stall *s)
{
	struct pollfd pfd = { .fd = s->uffd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&pfd, 1, LIMIT_MS) != 1)
		return 0;
	if (read(s->uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		return 0;
	return msg.arg.pagefault.address;
}

/* Let every stuck access go (the faults resolve to zero pages) */
static void stall_release(struct stall *s)
{
	if (s->uffd >= 0)
		close(s->uffd);
	s->uffd = -1;
}

/* No abandoned access is left (bounded wait) */
static void wait_unstuck(void)
{
	struct hpusim_hostmem_stats st;
	long t0 = 0;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
	for (;;) {
		hpusim_hostmem_stats(&st);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (!st.stuck ||
		    ts.tv_sec * 1000L + ts.tv_nsec / 1000000L - t0 > LIMIT_MS)
			break;
		usleep(10000);
	}
	assert_int_equal(st.stuck, 0);
}

static int stall_setup(void **state)
{
	struct stall *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	s->uffd = -1;
	s->child = -1;
	s->child_pipe = -1;
	s->region = MAP_FAILED;
	setenv("HPUSIM_HOST_TIMEOUT_MS", LONG_MS, 1);
	if (hpu_test_fw_setup((void **)&s->f))
		return -1;
	*state = s;
	return 0;
}

static int stall_teardown(void **state)
{
	struct stall *s = *state;

	stall_release(s);
	if (s->child > 0) {
		close(s->child_pipe);
		waitpid(s->child, NULL, 0);
	}
	wait_unstuck();
	hpu_test_fw_teardown((void **)&s->f);
	if (s->region != MAP_FAILED)
		munmap(s->region, UFFD_REGION);
	free(s);
	return 0;
}

/* A context whose host accesses are bounded by @bound_ms */
static void ctx_open(struct hpu_test_fw *f, struct ctx *c, uint64_t size,
		     const char *bound_ms)
{
	setenv("HPUSIM_HOST_TIMEOUT_MS", bound_ms, 1);
	assert_int_equal(hpusim_model.ops->as_create(f->dev, &c->as), 0);
	setenv("HPUSIM_HOST_TIMEOUT_MS", LONG_MS, 1);
	assert_int_equal(hpusim_model.ops->mem_alloc(f->dev, size, 0, false,
						     false, &c->mem),
			 0);
	assert_int_equal(hpusim_model.ops->map_mem(c->as, c->mem, 0, false,
						   &c->dev_va),
			 0);
}

static uint64_t ctx_map_host(struct ctx *c, pid_t pid, int pidfd, void *p,
			     uint64_t size)
{
	struct hpu_fw_host_range r = {
		.pid = pid, .pidfd = pidfd, .addr = (uintptr_t)p, .size = size
	};
	uint64_t va = 0;

	assert_int_equal(hpusim_model.ops->map_host(c->as, &r, 0, false, &va),
			 0);
	return va;
}

static uint8_t *dev_ptr(struct ctx *c)
{
	uint64_t fwd, back;

	return hpusim_mem_ptr(c->mem, 0, &fwd, &back);
}

/* A submission from another thread (the fast path runs it in there) */
struct submit_arg {
	struct hpu_fw_as *as;
	uint32_t queue;
	struct hpu_test_cb cb;
	void *cookie;
	int ret;
};

static void *submit_thread(void *p)
{
	struct submit_arg *a = p;
	struct hpu_fw_job job = { .queue = a->queue,
				  .cb = a->cb.buf,
				  .cb_size = a->cb.len };

	a->ret = hpusim_model.ops->cs_submit(a->as, &job, 1, a->cookie);
	return NULL;
}

/* as_destroy in a thread, so that a destroy that hangs fails the test */
struct destroy_arg {
	struct hpu_fw_as *as;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
};

static void *destroy_thread(void *p)
{
	struct destroy_arg *a = p;

	hpusim_model.ops->as_destroy(a->as);
	pthread_mutex_lock(&a->lock);
	a->done = true;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* Destroy @as; true when it returned within LIMIT_MS (else after @s
 * released the stuck memory, so the test can go on) */
static bool destroy_bounded(struct stall *s, struct hpu_fw_as *as)
{
	struct destroy_arg a = { .as = as };
	struct timespec ts;
	pthread_t t;
	bool done;

	pthread_mutex_init(&a.lock, NULL);
	pthread_cond_init(&a.cond, NULL);
	assert_int_equal(pthread_create(&t, NULL, destroy_thread, &a), 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += LIMIT_MS / 1000;
	pthread_mutex_lock(&a.lock);
	while (!a.done &&
	       pthread_cond_timedwait(&a.cond, &a.lock, &ts) != ETIMEDOUT)
		;
	done = a.done;
	pthread_mutex_unlock(&a.lock);
	if (!done)
		stall_release(s);
	pthread_join(t, NULL);
	return done;
}

/* Wait for @cookie's completion (bounded); false when it never came */
static bool wait_cookie(struct hpu_test_fw *f, void *cookie)
{
	struct timespec ts;
	unsigned int i;
	bool seen = false;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += LIMIT_MS / 1000;
	pthread_mutex_lock(&f->rec.lock);
	for (;;) {
		for (i = 0; i < f->rec.ndone && i < HPU_TEST_FW_MAX_DONE; i++)
			seen |= f->rec.cookie[i] == cookie;
		if (seen || pthread_cond_timedwait(&f->rec.cond, &f->rec.lock,
						   &ts) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&f->rec.lock);
	return seen;
}

/*
 * A DMA from memory that never answers fails with a page fault at its
 * first byte once the bound passes, while another address space's DMA
 * queued behind it on the same engine completes; further accesses of the
 * stuck address space past its cap are refused at once; destroying it
 * returns while its accesses are still stuck, and they release what they
 * held once the memory answers.
 */
static void test_stall_bounded(void **state)
{
	struct stall *s = *state;
	struct hpu_test_fw *f = s->f;
	struct ctx a = { 0 }, b = { 0 };
	struct submit_arg sa = { .queue = f->dma0, .cookie = (void *)0xa1 };
	struct hpusim_hostmem_stats st0, st;
	struct hpu_fw_fault fault = { 0 };
	uint64_t a_host, b_host, fault_addr;
	uint8_t *b_buf = hpu_test_xmalloc(64 * KiB);
	int a_pidfd = hpu_test_pidfd_self(), b_pidfd = hpu_test_pidfd_self();
	struct hpu_test_cb cb = { 0 };
	pthread_t t;
	unsigned int i;

	HPU_TEST_SKIP_IF(stall_region(s));
	ctx_open(f, &a, 2 * MiB, BOUND_MS);
	ctx_open(f, &b, 2 * MiB, LONG_MS);
	a_host = ctx_map_host(&a, getpid(), a_pidfd, s->region, UFFD_REGION);
	hpu_test_fill_random(b_buf, 64 * KiB, 7);
	b_host = ctx_map_host(&b, getpid(), b_pidfd, b_buf, 64 * KiB);

	/* A: H2D from a missing page; it runs inline in the submitter */
	sa.as = a.as;
	hpu_test_cb_dma(&sa.cb, a.dev_va, a_host + 4096, 4096);
	assert_int_equal(pthread_create(&t, NULL, submit_thread, &sa), 0);
	fault_addr = uffd_wait_fault(s);
	assert_int_equal(fault_addr, (uintptr_t)s->region + 4096);

	/* B on the same engine, behind A */
	hpu_test_cb_dma(&cb, b.dev_va, b_host, 64 * KiB);
	{
		struct hpu_fw_job job = { .queue = f->dma0,
					  .cb = cb.buf,
					  .cb_size = cb.len };

		assert_int_equal(hpusim_model.ops->cs_submit(b.as, &job, 1,
							     (void *)0xb1),
				 0);
	}
	assert_true(wait_cookie(f, (void *)0xa1));
	pthread_join(t, NULL);
	assert_int_equal(sa.ret, 0);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)0xa1, &fault),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, a_host + 4096);
	assert_int_equal(fault.engine, f->dma0);
	assert_false(fault.is_write);
	assert_true(wait_cookie(f, (void *)0xb1));
	assert_int_equal(hpu_test_fw_result_of(f, (void *)0xb1, NULL),
			 HPU_FW_CS_OK);
	assert_memory_equal(dev_ptr(&b), b_buf, 64 * KiB);
	assert_int_equal(hpusim_hostmem_as_stuck(a.as), 1);

	/* a second stuck access reaches A's cap, a third is refused */
	memset(&sa.cb, 0, sizeof(sa.cb));
	hpu_test_cb_dma(&sa.cb, a.dev_va, a_host + 2 * 4096, 4096);
	sa.cookie = (void *)0xa2;
	submit_thread(&sa);
	assert_true(wait_cookie(f, (void *)0xa2));
	assert_int_equal(hpu_test_fw_result_of(f, (void *)0xa2, NULL),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(hpusim_hostmem_as_stuck(a.as), HPUSIM_HOST_STUCK_AS);
	hpusim_hostmem_stats(&st0);
	memset(&sa.cb, 0, sizeof(sa.cb));
	hpu_test_cb_dma(&sa.cb, a_host, a.dev_va, 4096); /* D2H into page 0 */
	sa.cookie = (void *)0xa3;
	submit_thread(&sa);
	assert_true(wait_cookie(f, (void *)0xa3));
	assert_int_equal(hpu_test_fw_result_of(f, (void *)0xa3, &fault),
			 HPU_FW_CS_PAGE_FAULT);
	assert_true(fault.is_write);
	hpusim_hostmem_stats(&st);
	assert_true(st.refused > st0.refused);
	for (i = 0; i < 4096; i++)
		if (s->region[i] != 0x5a)
			fail_msg("refused write changed byte %u", i);

	/* B still works */
	cb.len = 0;
	memset(dev_ptr(&b), 0, 64 * KiB);
	hpu_test_cb_dma(&cb, b.dev_va, b_host, 64 * KiB);
	{
		struct hpu_fw_job job = { .queue = f->dma0,
					  .cb = cb.buf,
					  .cb_size = cb.len };

		assert_int_equal(hpusim_model.ops->cs_submit(b.as, &job, 1,
							     (void *)0xb2),
				 0);
	}
	assert_true(wait_cookie(f, (void *)0xb2));
	assert_int_equal(hpu_test_fw_result_of(f, (void *)0xb2, NULL),
			 HPU_FW_CS_OK);
	assert_memory_equal(dev_ptr(&b), b_buf, 64 * KiB);

	/* A goes while its accesses are stuck; its memory outlives them */
	assert_true(destroy_bounded(s, a.as));
	assert_int_equal(hpusim_model.ops->mem_free(a.mem), 0);
	stall_release(s);
	wait_unstuck();

	assert_int_equal(hpusim_model.ops->unmap(b.as, b.dev_va, NULL), 0);
	assert_int_equal(hpusim_model.ops->mem_free(b.mem), 0);
	hpusim_model.ops->as_destroy(b.as);
	close(a_pidfd);
	close(b_pidfd);
	free(b_buf);
}

/*
 * Destroying an address space whose DMA waits on memory that never
 * answers returns at once, long before the access's bound (LONG_MS).
 */
static void test_stall_destroy(void **state)
{
	struct stall *s = *state;
	struct hpu_test_fw *f = s->f;
	struct ctx a = { 0 };
	struct submit_arg sa = { .queue = f->dma0, .cookie = (void *)0xc1 };
	int pidfd = hpu_test_pidfd_self();
	uint64_t a_host;
	pthread_t t;

	HPU_TEST_SKIP_IF(stall_region(s));
	ctx_open(f, &a, 2 * MiB, LONG_MS);
	a_host = ctx_map_host(&a, getpid(), pidfd, s->region, UFFD_REGION);
	sa.as = a.as;
	hpu_test_cb_dma(&sa.cb, a.dev_va, a_host + 4096, 64 * KiB - 4096);
	assert_int_equal(pthread_create(&t, NULL, submit_thread, &sa), 0);
	assert_int_not_equal(uffd_wait_fault(s), 0);

	assert_true(destroy_bounded(s, a.as));
	pthread_join(t, NULL);
	assert_true(wait_cookie(f, (void *)0xc1));
	assert_int_not_equal(hpu_test_fw_result_of(f, (void *)0xc1, NULL),
			     HPU_FW_CS_OK);
	assert_int_equal(hpusim_model.ops->mem_free(a.mem), 0);
	close(pidfd);
	stall_release(s);
	wait_unstuck();
}

/*
 * The device goes while an access into its memory is still stuck: destroy
 * returns (after at most the default bound), and the access, let go
 * later, touches nothing that was freed.
 */
static void test_stall_device_destroy(void **state)
{
	struct stall *s = *state;
	struct hpu_test_fw *f = s->f;
	struct submit_arg sa = { .queue = f->dma0, .cookie = (void *)0xf1 };
	int pidfd = hpu_test_pidfd_self();
	struct ctx a = { 0 };
	uint64_t a_host;

	HPU_TEST_SKIP_IF(stall_region(s));
	ctx_open(f, &a, 2 * MiB, BOUND_MS);
	a_host = ctx_map_host(&a, getpid(), pidfd, s->region, UFFD_REGION);
	sa.as = a.as;
	hpu_test_cb_dma(&sa.cb, a.dev_va, a_host + 4096, 4096);
	submit_thread(&sa);
	assert_true(wait_cookie(f, (void *)0xf1));
	assert_int_equal(hpu_test_fw_result_of(f, (void *)0xf1, NULL),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(hpusim_hostmem_as_stuck(a.as), 1);

	assert_true(destroy_bounded(s, a.as));
	assert_int_equal(hpusim_model.ops->mem_free(a.mem), 0);
	hpusim_model.ops->as_destroy(f->as);
	f->as = NULL;
	hpusim_model.ops->destroy(f->dev);
	f->dev = NULL;
	close(pidfd);
	stall_release(s);
	wait_unstuck();
}

/* A child that waits until @s->child_pipe closes; its pidfd */
static int child_start(struct stall *s)
{
	int fds[2], pidfd;
	char c;

	assert_int_equal(pipe(fds), 0);
	s->child = fork();
	assert_true(s->child >= 0);
	if (!s->child) {
		close(fds[1]);
		while (read(fds[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(fds[0]);
	s->child_pipe = fds[1];
	pidfd = (int)syscall(SYS_pidfd_open, s->child, 0);
	assert_true(pidfd >= 0);
	return pidfd;
}

/* The child exits and is reaped: its pidfd says so, our pid lives on */
static void child_end(struct stall *s)
{
	close(s->child_pipe);
	s->child_pipe = -1;
	assert_int_equal(waitpid(s->child, NULL, 0), s->child);
	s->child = -1;
}

/*
 * A mapping whose owner (per its pidfd) exited, while the pid it names
 * lives (ours, standing for a reused pid): DMA, MEMSET and a monitor
 * payload write nothing there, and DMA reads nothing from it.
 */
static void test_owner_gone(void **state)
{
	struct stall *s = *state;
	struct hpu_test_fw *f = s->f;
	uint8_t *buf = hpu_test_xmalloc(64 * KiB),
		*copy = hpu_test_xmalloc(64 * KiB);
	struct ctx a = { 0 };
	struct hpu_fw_fault fault = { 0 };
	struct hpu_test_cb cb = { 0 };
	uint64_t host;
	int pidfd;

	ctx_open(f, &a, 2 * MiB, LONG_MS);
	hpu_test_fill_random(buf, 64 * KiB, 3);
	memcpy(copy, buf, 64 * KiB);
	hpu_test_fill_random(dev_ptr(&a), 64 * KiB, 4);
	pidfd = child_start(s);
	host = ctx_map_host(&a, getpid(), pidfd, buf, 64 * KiB);
	child_end(s);

	hpu_test_cb_dma(&cb, host, a.dev_va, 64 * KiB); /* D2H */
	{
		struct hpu_fw_job job = { .queue = f->dma0,
					  .cb = cb.buf,
					  .cb_size = cb.len };

		assert_int_equal(hpusim_model.ops->cs_submit(a.as, &job, 1,
							     (void *)0xd1),
				 0);
	}
	assert_true(wait_cookie(f, (void *)0xd1));
	assert_int_equal(hpu_test_fw_result_of(f, (void *)0xd1, &fault),
			 HPU_FW_CS_PAGE_FAULT);
	assert_true(fault.is_write);
	assert_memory_equal(buf, copy, 64 * KiB);

	cb.len = 0;
	hpu_test_cb_memset(&cb, host, 4096, 0x77, 1);
	{
		struct hpu_fw_job job = { .queue = f->dma0,
					  .cb = cb.buf,
					  .cb_size = cb.len };

		assert_int_equal(hpusim_model.ops->cs_submit(a.as, &job, 1,
							     (void *)0xd2),
				 0);
	}
	assert_true(wait_cookie(f, (void *)0xd2));
	assert_int_equal(hpu_test_fw_result_of(f, (void *)0xd2, NULL),
			 HPU_FW_CS_PAGE_FAULT);
	assert_memory_equal(buf, copy, 64 * KiB);

	/* a monitor firing at once writes its payload to the mapping */
	cb.len = 0;
	hpu_test_cb_monitor(&cb, 0, 5, 0, 0xdeadbeef, host);
	{
		struct hpu_fw_job job = { .queue = f->dma0,
					  .cb = cb.buf,
					  .cb_size = cb.len };

		assert_int_equal(hpusim_model.ops->cs_submit(a.as, &job, 1,
							     (void *)0xd3),
				 0);
	}
	assert_true(wait_cookie(f, (void *)0xd3));
	assert_int_equal(hpu_test_fw_result_of(f, (void *)0xd3, NULL),
			 HPU_FW_CS_PAGE_FAULT);
	assert_memory_equal(buf, copy, 64 * KiB);

	/* H2D: device memory keeps what it had */
	memset(dev_ptr(&a), 0, 64 * KiB);
	cb.len = 0;
	hpu_test_cb_dma(&cb, a.dev_va, host, 64 * KiB);
	{
		struct hpu_fw_job job = { .queue = f->dma0,
					  .cb = cb.buf,
					  .cb_size = cb.len };

		assert_int_equal(hpusim_model.ops->cs_submit(a.as, &job, 1,
							     (void *)0xd4),
				 0);
	}
	assert_true(wait_cookie(f, (void *)0xd4));
	assert_int_equal(hpu_test_fw_result_of(f, (void *)0xd4, NULL),
			 HPU_FW_CS_PAGE_FAULT);
	assert_true(dev_ptr(&a)[0] == 0 &&
		    !memcmp(dev_ptr(&a), dev_ptr(&a) + 1, 64 * KiB - 1));

	hpusim_model.ops->as_destroy(a.as); /* leaves the pidfd to us */
	close(pidfd);
	assert_int_equal(hpusim_model.ops->mem_free(a.mem), 0);
	free(buf);
	free(copy);
}

/*
 * The owner exits while a read from it is in its call: what the read
 * brings is discarded, not left in device memory.
 */
static void test_owner_gone_mid_read(void **state)
{
	struct stall *s = *state;
	struct hpu_test_fw *f = s->f;
	struct submit_arg sa = { .queue = f->dma0, .cookie = (void *)0xe1 };
	struct uffdio_copy uc = { 0 };
	struct ctx a = { 0 };
	uint8_t *page, *d;
	uint64_t host, addr;
	pthread_t t;
	int pidfd;

	HPU_TEST_SKIP_IF(stall_region(s));
	ctx_open(f, &a, 2 * MiB, LONG_MS);
	pidfd = child_start(s);
	host = ctx_map_host(&a, getpid(), pidfd, s->region, UFFD_REGION);

	sa.as = a.as;
	hpu_test_cb_dma(&sa.cb, a.dev_va, host + 4096, 4096);
	assert_int_equal(pthread_create(&t, NULL, submit_thread, &sa), 0);
	addr = uffd_wait_fault(s);
	assert_int_equal(addr, (uintptr_t)s->region + 4096);
	child_end(s);

	/* now answer the fault: the bytes arrive after the owner is gone */
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(page != MAP_FAILED);
	memset(page, 0xab, 4096);
	uc.dst = addr;
	uc.src = (uintptr_t)page;
	uc.len = 4096;
	assert_int_equal(ioctl(s->uffd, UFFDIO_COPY, &uc), 0);
	munmap(page, 4096);

	pthread_join(t, NULL);
	assert_true(wait_cookie(f, (void *)0xe1));
	assert_int_equal(hpu_test_fw_result_of(f, (void *)0xe1, NULL),
			 HPU_FW_CS_PAGE_FAULT);
	d = dev_ptr(&a);
	assert_true(d[0] == 0 && !memcmp(d, d + 1, 4095));

	hpusim_model.ops->as_destroy(a.as);
	close(pidfd);
	assert_int_equal(hpusim_model.ops->mem_free(a.mem), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stall_bounded, stall_setup,
						stall_teardown),
		cmocka_unit_test_setup_teardown(test_stall_destroy, stall_setup,
						stall_teardown),
		cmocka_unit_test_setup_teardown(test_stall_device_destroy,
						stall_setup, stall_teardown),
		cmocka_unit_test_setup_teardown(test_owner_gone, stall_setup,
						stall_teardown),
		cmocka_unit_test_setup_teardown(test_owner_gone_mid_read,
						stall_setup, stall_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * hostmem_pool.c - the access pool behind every access of the model to a
 * client's pageable host memory (hostmem.c makes the accesses): the
 * threads that make the process_vm_readv/writev calls, each access
 * bounded in time and tied to the client's pidfd, and each address
 * space's share of the pool.
 *
 * Bound. The kernel can hold a process_vm_readv/writev call for as long
 * as the client likes (a page registered with userfaultfd whose fault
 * nobody resolves, a mapping of a FUSE file whose server does not answer)
 * and nothing but SIGKILL wakes the caller. So no engine makes that call
 * itself: a small pool of access threads does, and the engine waits for
 * the answer at most its address space's bound (HPUSIM_HOST_TIMEOUT_MS,
 * default 2 s; environment HPUSIM_HOST_TIMEOUT_MS, read when the address
 * space is created). When the bound passes, when the submission is
 * stopped, or when the address space is being destroyed, the engine gives
 * the access up: the access counts as not done (the packet faults at its
 * first byte), and the access thread is abandoned to its call. It keeps
 * what it still touches alive: its request (with its own bounce buffer),
 * a reference on the address space's hostmem state, and a pin on the
 * device allocation it copies into or out of (memory.c defers freeing a
 * pinned allocation; device destroy keeps a pinned pool's addresses
 * reserved). When its call ends it drops all that and rejoins the pool.
 * An address space has at most HPUSIM_HOST_AS_CALLS accesses in their
 * calls at once, abandoned ones included (more wait for their turn, within
 * their bound), so it never holds more threads than that; one with
 * HPUSIM_HOST_STUCK_AS abandoned accesses, or with
 * any while HPUSIM_HOST_STUCK_MAX are abandoned in all, gets every further
 * access refused at once until one ends; live access threads are capped
 * at HPUSIM_HOST_THREADS, so the model never holds more than
 * HPUSIM_HOST_THREADS + HPUSIM_HOST_STUCK_MAX of them.
 *
 * Identity. A host mapping carries the owner's pidfd; process_vm_* only
 * takes a pid. The pidfd is polled in the access thread right before the
 * call, under the pool lock while the caller still waits (so the pidfd is
 * still the driver's, open): a process that has exited fails the access
 * and nothing moves. A pid is reused only after its process exited and was
 * reaped, so if the pidfd says the owner is alive after the call, the call
 * reached the owner; the caller polls again after the call, and if the
 * owner is gone the access fails and what it read is discarded (zeroed in
 * device memory, never copied out of a bounce buffer). A write cannot be
 * taken back: what is left is the time between the poll and the kernel's
 * lookup of the pid at the start of the call (a few instructions, longer
 * only if this thread is preempted right there), during which the owner
 * would have to exit, be reaped by its parent and have its pid handed to
 * a new process. Writes are refused when that poll fails, and counted as
 * failed when the one after it does. (/proc/PID/mem would pin the process,
 * but writes through it ignore page protections, which DMA must not.)
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "hostmem.h"
#include "hpu_tsan.h"

#define HM_POLL_NS 20000000ULL	  /* re-check stop and destroy this often */
#define HM_IDLE_NS 10000000000ULL /* an idle access thread exits */
#define HM_STACK   (256U << 10)

/**
 * struct hpusim_hostmem_as - an address space's share of the access pool
 * @refs: the address space's, plus one per abandoned access (hm.lock)
 * @calls: its accesses in their calls now, abandoned ones too (hm.lock)
 * @stuck: its abandoned accesses still in their call (hm.lock)
 * @dying: as_destroy began: every wait gives up at once (hm.lock)
 * @timeout_ns: the bound of one access
 */
struct hpusim_hostmem_as {
	unsigned int refs;
	unsigned int calls;
	unsigned int stuck;
	bool dying;
	uint64_t timeout_ns;
};

/* The access pool, one per process */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t work;
	pthread_cond_t unpinned;
	struct hpusim_list queue;
	struct hpusim_list abandoned;
	unsigned int queued;
	unsigned int live;
	unsigned int idle;
	unsigned int stuck;
	uint64_t timeouts;
	uint64_t refused;
} hm = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.queue = { &hm.queue, &hm.queue },
	.abandoned = { &hm.abandoned, &hm.abandoned },
};

static pthread_once_t hm_once = PTHREAD_ONCE_INIT;
static pthread_key_t hm_key; /* the thread's request, reused */
static int hm_init_err;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct timespec ns_to_ts(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	return ts;
}

static int cond_init_mono(pthread_cond_t *c)
{
	pthread_condattr_t attr;
	int ret;

	ret = pthread_condattr_init(&attr);
	if (ret)
		return ret;
	ret = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (!ret)
		ret = pthread_cond_init(c, &attr);
	pthread_condattr_destroy(&attr);
	return ret;
}

static void req_free(struct hm_req *req)
{
	if (!req)
		return;
	pthread_cond_destroy(&req->done);
	free(req->bounce);
	free(req);
}

static void req_key_free(void *p)
{
	req_free(p);
}

/* A forked child has none of the parent's access threads */
static void hm_atfork_child(void)
{
	pthread_mutex_init(&hm.lock, NULL);
	cond_init_mono(&hm.work);
	cond_init_mono(&hm.unpinned);
	hpusim_list_init(&hm.queue);
	hpusim_list_init(&hm.abandoned);
	hm.queued = 0;
	hm.live = 0;
	hm.idle = 0;
	hm.stuck = 0;
}

static void hm_init(void)
{
	hm_init_err = cond_init_mono(&hm.work);
	if (!hm_init_err)
		hm_init_err = cond_init_mono(&hm.unpinned);
	if (!hm_init_err)
		hm_init_err = pthread_key_create(&hm_key, req_key_free);
	if (!hm_init_err)
		hm_init_err = pthread_atfork(NULL, NULL, hm_atfork_child);
}

struct hm_req *hpusim_hm_req_get(void)
{
	struct hm_req *req;

	if (pthread_once(&hm_once, hm_init) || hm_init_err)
		return NULL;
	req = pthread_getspecific(hm_key);
	if (req)
		return req;
	req = calloc(1, sizeof(*req));
	if (!req)
		return NULL;
	if (cond_init_mono(&req->done)) {
		free(req);
		return NULL;
	}
	hpusim_list_init(&req->node);
	if (pthread_setspecific(hm_key, req)) {
		req_free(req);
		return NULL;
	}
	return req;
}

bool hpusim_hm_pidfd_dead(int pidfd)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	if (pidfd < 0 || poll(&pfd, 1, 0) < 0)
		return true;
	return pfd.revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL);
}

/*
 * [addr, addr + size) is covered, without a hole, by readable mappings of
 * @pid: checked against /proc/PID/maps, at a cost that grows with the
 * process's mappings, never with @size. A one-byte read of the first byte
 * then proves the model may reach the process. The client can still unmap
 * later: such DMA faults at execution.
 */
static int64_t do_probe(pid_t pid, uint64_t addr, uint64_t size)
{
	uint64_t lo, hi, cur = addr, end = addr + size;
	char path[64], line[512], perms[8], byte;
	struct iovec local = { .iov_base = &byte, .iov_len = 1 };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr,
				.iov_len = 1 };
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -EFAULT;
	/* the lines are sorted by address */
	while (cur < end && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s", &lo, &hi,
			   perms) != 3)
			break;
		if (hi <= cur)
			continue;
		if (lo > cur || perms[0] != 'r')
			break; /* a hole, or unreadable memory */
		cur = hi;
	}
	fclose(f);
	if (cur < end)
		return -EFAULT;
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != 1)
		return -EFAULT;
	return 0;
}

/*
 * The call itself, in an access thread: bytes moved before a failure.
 *
 * Zero-copy into or out of device memory is the simulated hardware's
 * access, ordered with the engines' other accesses to that memory by the
 * client's program (queues, fences), not by host locks; an access
 * abandoned to its call (see "Bound") moves its bytes whenever the
 * kernel ends the call, after the packet has faulted, unordered with
 * what the engines do meanwhile, as a late DMA on a real device would
 * be. ThreadSanitizer is not told about those bytes (hpu_tsan.h); the
 * request, its state and the bounce buffer stay checked.
 */
static int64_t do_copy(struct hm_req *req)
{
	struct iovec *local = req->iov;
	unsigned int first = 0, niov = req->niov;
	uint64_t done = 0;
	ssize_t n;

	while (done < req->len) {
		struct iovec remote = { (void *)(uintptr_t)(req->host_addr +
							    done),
					req->len - done };

		if (req->device)
			HPU_TSAN_IGNORE_BEGIN();
		if (req->op == HM_WRITE)
			n = process_vm_writev(req->pid, local + first,
					      niov - first, &remote, 1, 0);
		else
			n = process_vm_readv(req->pid, local + first,
					     niov - first, &remote, 1, 0);
		if (req->device)
			HPU_TSAN_IGNORE_END();
		if (n <= 0)
			break;
		done += (uint64_t)n;
		/* a partial transfer: go on after the bytes that moved */
		while (n && first < niov) {
			size_t c = (size_t)n < local[first].iov_len ?
					   (size_t)n :
					   local[first].iov_len;

			local[first].iov_base =
				(uint8_t *)local[first].iov_base + c;
			local[first].iov_len -= c;
			n -= (ssize_t)c;
			if (!local[first].iov_len)
				first++;
		}
	}
	return (int64_t)done;
}

/*
 * An abandoned access ended: drop what it held, free it; hm.lock held.
 * The lock order is hm.lock, then a device's mem_lock.
 */
static void req_reclaim(struct hm_req *req)
{
	struct hpusim_hostmem_as *has = req->has;

	hpusim_list_del(&req->node);
	if (req->pin)
		hpusim_mem_unpin(req->pin);
	has->calls--;
	has->stuck--;
	hm.stuck--;
	if (!--has->refs)
		free(has);
	req_free(req);
	pthread_cond_broadcast(&hm.unpinned);
}

/*
 * The first queued access whose address space may start one more call
 * (HPUSIM_HOST_AS_CALLS: one address space never holds more threads, and
 * never gets more of them abandoned at once); hm.lock held
 */
static struct hm_req *hm_next(void)
{
	struct hpusim_list *pos;

	for (pos = hm.queue.next; pos != &hm.queue; pos = pos->next) {
		struct hm_req *req =
			hpusim_container_of(pos, struct hm_req, node);

		if (req->has->calls < HPUSIM_HOST_AS_CALLS)
			return req;
	}
	return NULL;
}

static void *hm_thread(void *arg)
{
	struct hm_req *req;
	struct timespec ts;
	int64_t n;
	int ret;

	pthread_mutex_lock(&hm.lock);
	for (;;) {
		while (!(req = hm_next())) {
			ts = ns_to_ts(mono_ns() + HM_IDLE_NS);
			hm.idle++;
			ret = pthread_cond_timedwait(&hm.work, &hm.lock, &ts);
			hm.idle--;
			if (ret == ETIMEDOUT && !hm_next())
				goto out_live;
		}
		hpusim_list_del(&req->node);
		hm.queued--;
		req->state = HM_RUNNING;
		/*
		 * The caller waits (it cannot give up while we hold the
		 * lock): its pidfd is open and still names the owner.
		 */
		if (hpusim_hm_pidfd_dead(req->pidfd)) {
			req->result = -ESRCH;
			req->state = HM_DONE;
			pthread_cond_signal(&req->done);
			continue;
		}
		req->has->calls++;
		pthread_mutex_unlock(&hm.lock);
		n = req->op == HM_PROBE ?
			    do_probe(req->pid, req->host_addr, req->len) :
			    do_copy(req);
		pthread_mutex_lock(&hm.lock);
		if (req->state == HM_ABANDONED) {
			/* this thread was counted stuck, not live */
			req_reclaim(req);
			if (hm.live >= HPUSIM_HOST_THREADS) {
				pthread_cond_signal(&hm.work);
				goto out;
			}
			hm.live++;
			continue;
		}
		req->has->calls--;
		req->result = n;
		req->state = HM_DONE;
		pthread_cond_signal(&req->done);
	}
out_live:
	hm.live--;
out:
	pthread_mutex_unlock(&hm.lock);
	return NULL;
}

/* Start one more access thread if the caps allow; hm.lock held */
static void hm_spawn(void)
{
	pthread_attr_t attr;
	pthread_t t;

	if (hm.live >= HPUSIM_HOST_THREADS ||
	    hm.live + hm.stuck >= HPUSIM_HOST_THREADS + HPUSIM_HOST_STUCK_MAX)
		return;
	if (pthread_attr_init(&attr))
		return;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, HM_STACK);
	if (!pthread_create(&t, &attr, hm_thread, NULL))
		hm.live++;
	pthread_attr_destroy(&attr);
}

/* See hostmem.h */
int64_t hpusim_hm_run(struct hpusim_hostmem_as *has, struct hm_req *req,
		      const bool *stop, struct hpu_fw_mem *pin)
{
	uint64_t now, deadline, wake;
	struct timespec ts;
	int64_t ret;

	pthread_mutex_lock(&hm.lock);
	if (has->dying || has->stuck >= HPUSIM_HOST_STUCK_AS ||
	    (has->stuck && hm.stuck >= HPUSIM_HOST_STUCK_MAX)) {
		hm.refused++;
		pthread_mutex_unlock(&hm.lock);
		return -EIO;
	}
	req->state = HM_QUEUED;
	req->result = 0;
	req->has = has;
	req->pin = NULL;
	req->device = pin != NULL;
	hpusim_list_add_tail(&req->node, &hm.queue);
	hm.queued++;
	if (hm.idle < hm.queued)
		hm_spawn();
	pthread_cond_signal(&hm.work);

	deadline = mono_ns() + has->timeout_ns;
	while (req->state != HM_DONE) {
		now = mono_ns();
		if (now >= deadline || has->dying ||
		    (stop && __atomic_load_n(stop, __ATOMIC_ACQUIRE)))
			goto give_up;
		wake = deadline - now < HM_POLL_NS ? deadline :
						     now + HM_POLL_NS;
		ts = ns_to_ts(wake);
		pthread_cond_timedwait(&req->done, &hm.lock, &ts);
	}
	ret = req->result;
	pthread_mutex_unlock(&hm.lock);
	return ret;

give_up:
	hm.timeouts++;
	if (req->state == HM_QUEUED) {
		/* no thread took it: nothing to abandon */
		hpusim_list_del(&req->node);
		hm.queued--;
		req->state = HM_DONE;
		pthread_mutex_unlock(&hm.lock);
		return -ETIMEDOUT;
	}
	/* the access thread owns it from now on */
	req->state = HM_ABANDONED;
	has->refs++;
	has->stuck++;
	hm.live--;
	hm.stuck++;
	if (pin) {
		hpusim_mem_pin(pin);
		req->pin = pin;
	}
	hpusim_list_add_tail(&req->node, &hm.abandoned);
	pthread_setspecific(hm_key, NULL);
	/* a thread may have gone meanwhile: the queue must not starve */
	if (!hpusim_list_empty(&hm.queue) && hm.idle < hm.queued)
		hm_spawn();
	pthread_mutex_unlock(&hm.lock);
	return -ETIMEDOUT;
}

int hpusim_hostmem_as_init(struct hpu_fw_as *as)
{
	struct hpusim_hostmem_as *has;

	if (pthread_once(&hm_once, hm_init) || hm_init_err)
		return -ENOMEM;
	has = calloc(1, sizeof(*has));
	if (!has)
		return -ENOMEM;
	has->refs = 1;
	has->timeout_ns = hpusim_env_u64("HPUSIM_HOST_TIMEOUT_MS", 1,
					 HPUSIM_HOST_TIMEOUT_MAX_MS,
					 HPUSIM_HOST_TIMEOUT_MS) *
			  1000000ULL;
	as->hostmem = has;
	return 0;
}

void hpusim_hostmem_as_dying(struct hpu_fw_as *as)
{
	if (!as->hostmem)
		return;
	pthread_mutex_lock(&hm.lock);
	as->hostmem->dying = true;
	pthread_mutex_unlock(&hm.lock);
}

void hpusim_hostmem_as_fini(struct hpu_fw_as *as)
{
	struct hpusim_hostmem_as *has = as->hostmem;

	if (!has)
		return;
	as->hostmem = NULL;
	pthread_mutex_lock(&hm.lock);
	has->dying = true;
	if (!--has->refs)
		free(has);
	pthread_mutex_unlock(&hm.lock);
}

/* Pins the abandoned accesses hold on @dev's allocations; hm.lock held */
static unsigned int dev_pins(struct hpu_fw_device *dev)
{
	struct hpusim_list *pos;
	unsigned int n = 0;

	for (pos = hm.abandoned.next; pos != &hm.abandoned; pos = pos->next) {
		struct hm_req *req =
			hpusim_container_of(pos, struct hm_req, node);

		n += req->pin && req->pin->dev == dev;
	}
	return n;
}

bool hpusim_hostmem_dev_fini(struct hpu_fw_device *dev)
{
	uint64_t deadline = mono_ns() + HPUSIM_HOST_TIMEOUT_MS * 1000000ULL;
	struct hpusim_list *pos;
	struct timespec ts;
	bool orphaned = false;

	if (pthread_once(&hm_once, hm_init) || hm_init_err)
		return false;
	pthread_mutex_lock(&hm.lock);
	ts = ns_to_ts(deadline);
	while (dev_pins(dev) && mono_ns() < deadline)
		pthread_cond_timedwait(&hm.unpinned, &hm.lock, &ts);
	/* still in their calls: they must not touch the device any more */
	for (pos = hm.abandoned.next; pos != &hm.abandoned; pos = pos->next) {
		struct hm_req *req =
			hpusim_container_of(pos, struct hm_req, node);

		if (req->pin && req->pin->dev == dev) {
			req->pin = NULL;
			orphaned = true;
		}
	}
	pthread_mutex_unlock(&hm.lock);
	return orphaned;
}

void hpusim_hostmem_stats(struct hpusim_hostmem_stats *st)
{
	pthread_mutex_lock(&hm.lock);
	st->live = hm.live;
	st->idle = hm.idle;
	st->stuck = hm.stuck;
	st->timeouts = hm.timeouts;
	st->refused = hm.refused;
	pthread_mutex_unlock(&hm.lock);
}

unsigned int hpusim_hostmem_as_stuck(struct hpu_fw_as *as)
{
	unsigned int n;

	pthread_mutex_lock(&hm.lock);
	n = as->hostmem ? as->hostmem->stuck : 0;
	pthread_mutex_unlock(&hm.lock);
	return n;
}

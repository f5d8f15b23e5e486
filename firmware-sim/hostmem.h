/* SPDX-License-Identifier: MIT */
/*
 * hostmem.h - what the host memory access files share: one access
 * (struct hm_req), which hostmem.c's copies and probe hand to the
 * bounded access pool of hostmem_pool.c. Private to those two files.
 */
#ifndef HPUSIM_HOSTMEM_H
#define HPUSIM_HOSTMEM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "hpusim.h"

#define HM_BOUNCE (64U << 10) /* request's own buffer */

enum hm_op {
	HM_READ,  /* client -> local */
	HM_WRITE, /* local -> client */
	HM_PROBE, /* map_host: the range is mapped readable, byte 0 reads */
};

enum hm_state {
	HM_QUEUED,
	HM_RUNNING,
	HM_DONE,
	HM_ABANDONED,
};

/**
 * struct hm_req - one access
 * @node: on hm.queue while QUEUED, on hm.abandoned while ABANDONED
 * @op: enum hm_op
 * @state: enum hm_state (hm.lock)
 * @pid: the client
 * @pidfd: its pidfd (the driver's; valid only while the caller waits)
 * @host_addr: client address
 * @len: bytes (HM_PROBE: of the range)
 * @iov: local memory
 * @niov: entries of @iov
 * @result: bytes moved, or -errno (HM_PROBE: 0 or -EFAULT)
 * @has: its address space's share (a reference once abandoned; before,
 *	the waiting caller keeps the address space alive)
 * @pin: abandoned: the allocation @iov lies in (pinned), or NULL
 * @device: @iov lies in device memory (zero-copy), not in @bounce
 * @bounce: HM_BOUNCE bytes, allocated on first use
 * @done: signalled when @state becomes HM_DONE
 */
struct hm_req {
	struct hpusim_list node;
	enum hm_op op;
	enum hm_state state;
	pid_t pid;
	int pidfd;
	uint64_t host_addr;
	uint64_t len;
	struct iovec iov[HPUSIM_DMA_IOV];
	unsigned int niov;
	int64_t result;
	struct hpusim_hostmem_as *has;
	struct hpu_fw_mem *pin;
	bool device;
	uint8_t *bounce;
	pthread_cond_t done;
};

/* The calling thread's request, NULL when out of memory */
struct hm_req *hpusim_hm_req_get(void);

/*
 * Run @req (filled but for its state) in an access thread; wait at most
 * @has's bound, less when *@stop gets set or @has starts dying. @pin: the
 * allocation @req->iov lies in, pinned if the access is abandoned (NULL:
 * @req->iov is the request's own bounce buffer). Return @req->result, or
 * -ETIMEDOUT (given up; @req now belongs to the access thread) or -EIO
 * (refused: too many of @has's accesses are stuck).
 */
int64_t hpusim_hm_run(struct hpusim_hostmem_as *has, struct hm_req *req,
		      const bool *stop, struct hpu_fw_mem *pin);

/* Whether the process of @pidfd exited (or the pidfd is unusable) */
bool hpusim_hm_pidfd_dead(int pidfd);

#endif /* HPUSIM_HOSTMEM_H */

/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_fw.h - fixture of the libhpusim tests (tests/unit/test_fw_*.c,
 * test_mme_engine.c and, through test_tpc_util.h, the TPC kernel tests):
 * a Gaudi2 device with recording callbacks, one address space,
 * command-buffer emitters and mapping helpers. This process is the
 * "client": its own buffers are mapped with its pid and a pidfd. Waits
 * for completions are bounded (a failed wait fails the test rather than
 * hanging it); nothing asserts a duration. The model's ops table is
 * hpusim_model.ops.
 */
#ifndef HPU_TEST_FW_H
#define HPU_TEST_FW_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "hpusim.h"
#include "hpu_test_util.h"

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)

/* a completion that takes longer is a failure */
#define HPU_TEST_FW_WAIT_S   30
#define HPU_TEST_FW_MAX_DONE 4096

/**
 * struct hpu_test_fw_record - what the callbacks saw (under @lock)
 * @lock: protects the rest
 * @cond: broadcast at every completion
 * @ndone: completions so far (the first HPU_TEST_FW_MAX_DONE are kept)
 * @cookie: their cookies
 * @result: their results
 * @fault: their faults
 * @nreset: engine resets so far (the first 64 are kept)
 * @reset: their engines
 */
struct hpu_test_fw_record {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int ndone;
	void *cookie[HPU_TEST_FW_MAX_DONE];
	enum hpu_fw_cs_result result[HPU_TEST_FW_MAX_DONE];
	struct hpu_fw_fault fault[HPU_TEST_FW_MAX_DONE];
	unsigned int nreset;
	uint32_t reset[64];
};

/**
 * struct hpu_test_fw - the fixture
 * @rec: the callbacks' record
 * @dev: the device
 * @as: its one address space
 * @dma0: first DMA queue
 * @dma1: second DMA queue
 * @mme0: first MME queue
 * @last_pidfd: the pidfd of the last hpu_test_fw_map_host()
 */
struct hpu_test_fw {
	struct hpu_test_fw_record rec;
	struct hpu_fw_device *dev;
	struct hpu_fw_as *as;
	uint32_t dma0, dma1, mme0;
	int last_pidfd;
};

/* the recording callbacks (@arg: a struct hpu_test_fw_record) */
void hpu_test_fw_on_done(void *arg, void *cookie, enum hpu_fw_cs_result result,
			 const struct hpu_fw_fault *fault, uint64_t done_ns);
void hpu_test_fw_on_reset(void *arg, uint32_t engine);

/* cmocka setup/teardown: *state is a struct hpu_test_fw */
int hpu_test_fw_setup(void **state);
int hpu_test_fw_teardown(void **state);

/* wait (bounded) until @n completions were reported in total */
void hpu_test_fw_wait_done(struct hpu_test_fw *f, unsigned int n);
/* completions reported so far */
unsigned int hpu_test_fw_ndone(struct hpu_test_fw *f);
/* the result reported for @cookie (fails the test when none was) */
enum hpu_fw_cs_result hpu_test_fw_result_of(struct hpu_test_fw *f, void *cookie,
					    struct hpu_fw_fault *fault);

/* ------------------------------------------------------ CB building */

struct hpu_test_cb {
	/* packets hold 64-bit members: aligned wherever a struct lies */
	uint8_t buf[4096] __attribute__((aligned(8)));
	uint32_t len;
};

/* append a zeroed packet of @size bytes; its header filled in */
void *hpu_test_cb_put(struct hpu_test_cb *cb, uint16_t opcode, uint16_t size,
		      uint16_t flags);
void hpu_test_cb_dma(struct hpu_test_cb *cb, uint64_t dst, uint64_t src,
		     uint64_t size);
void hpu_test_cb_memset(struct hpu_test_cb *cb, uint64_t dst, uint64_t size,
			uint64_t value, uint32_t width);
void hpu_test_cb_msg(struct hpu_test_cb *cb, uint32_t sob, uint32_t op,
		     uint32_t value);
void hpu_test_cb_fence(struct hpu_test_cb *cb, uint32_t sob, uint32_t target,
		       uint32_t dec);
void hpu_test_cb_monitor(struct hpu_test_cb *cb, uint32_t mon, uint32_t sob,
			 uint32_t target, uint32_t payload, uint64_t addr);

/* submit @cb as one job on @queue with @cookie */
void hpu_test_fw_submit1(struct hpu_test_fw *f, uint32_t queue,
			 const struct hpu_test_cb *cb, void *cookie);
/* submit one job and wait for its completion; its result */
enum hpu_fw_cs_result hpu_test_fw_run1(struct hpu_test_fw *f, uint32_t queue,
				       const struct hpu_test_cb *cb,
				       struct hpu_fw_fault *fault);

/* ------------------------------------------------------ memory helpers */

int hpu_test_pidfd_self(void);
/* map this process's [@p, @p + @size) into the address space: its VA */
uint64_t hpu_test_fw_map_host(struct hpu_test_fw *f, void *p, uint64_t size);
void hpu_test_fw_unmap_host(struct hpu_test_fw *f, uint64_t va);
/* allocate and map @size bytes of device memory: its VA, *@m the memory */
uint64_t hpu_test_fw_map_dev(struct hpu_test_fw *f, uint64_t size,
			     struct hpu_fw_mem **m);
void hpu_test_fw_unmap_dev(struct hpu_test_fw *f, uint64_t va,
			   struct hpu_fw_mem *m);

#endif /* HPU_TEST_FW_H */

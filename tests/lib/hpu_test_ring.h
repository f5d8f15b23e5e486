/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_ring.h - the client's side of a user-mode ring pair
 * (docs/rings.md) for the ring tests: REGISTER of a sealed memfd, SQ
 * entries, the doorbell, completed_seq waits and CQ records. Every wait
 * is bounded (HPU_TEST_RING_WAIT_NS): a daemon that stalls fails the test.
 */
#ifndef HPU_TEST_RING_H
#define HPU_TEST_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpu_accel.h"
#include "hpu_ring.h"

/* bound of every wait of these helpers */
#define HPU_TEST_RING_WAIT_NS (20ULL * 1000000000ULL)

/**
 * struct hpu_test_ring - the client's side of a registered ring pair
 * @map: the region
 * @size: its bytes
 * @hdr: the header
 * @sq: SQ slots
 * @cq: CQ records
 * @nsq: SQ slots
 * @ncq: CQ records
 * @next_seq: the number the next submission gets
 * @arena: the CB arena (hpu_test_ring_register_arena()), or NULL
 * @arena_size: its bytes
 */
struct hpu_test_ring {
	void *map;
	size_t size;
	struct hpu_ring_hdr *hdr;
	uint8_t *sq;
	struct hpu_ring_cqe *cq;
	uint32_t nsq;
	uint32_t ncq;
	uint64_t next_seq;
	uint8_t *arena;
	uint32_t arena_size;
};

uint64_t hpu_test_ring_now_ns(void);
int hpu_test_ring_ioctl(int fd, union hpu_ring_args *a);
int hpu_test_ring_memfd(size_t size, bool seal);
int hpu_test_ring_register(int fd, struct hpu_test_ring *r, uint32_t nsq,
			   uint32_t ncq);
int hpu_test_ring_register_arena(int fd, struct hpu_test_ring *r, uint32_t nsq,
				 uint32_t ncq, uint32_t arena);
int hpu_test_ring_unregister(int fd);
void hpu_test_ring_unmap(struct hpu_test_ring *r);
void hpu_test_ring_put_slot(struct hpu_test_ring *r, uint32_t idx,
			    const void *slot);
void hpu_test_ring_publish(struct hpu_test_ring *r, uint32_t tail);
uint64_t hpu_test_ring_append(struct hpu_test_ring *r, uint64_t ud,
			      uint32_t cs_flags, const struct hpu_cs_chunk *c,
			      uint32_t n);
uint64_t hpu_test_ring_append_timeout(struct hpu_test_ring *r, uint64_t ud,
				      uint32_t timeout_ms,
				      const struct hpu_cs_chunk *c, uint32_t n);
uint64_t hpu_test_ring_append_arena(struct hpu_test_ring *r, uint64_t ud,
				    uint32_t cs_flags, uint32_t sqe_flags,
				    uint32_t cb_offset,
				    const struct hpu_cs_chunk *c, uint32_t n);
void hpu_test_ring_wait_room(struct hpu_test_ring *r, uint32_t slots);
void hpu_test_ring_wait_seq(struct hpu_test_ring *r, uint64_t seq);
struct hpu_ring_cqe hpu_test_ring_pop(struct hpu_test_ring *r);
bool hpu_test_ring_cq_empty(struct hpu_test_ring *r);
uint64_t hpu_test_ring_nop_cb(int fd);
struct hpu_cs_chunk hpu_test_ring_chunk(uint64_t cb, uint32_t queue,
					uint32_t size);

#endif /* HPU_TEST_RING_H */

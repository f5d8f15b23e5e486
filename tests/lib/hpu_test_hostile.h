/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_hostile.h - what a hostile local client does to hpu-fused
 * (issue 14: client memory the daemon cannot touch without blocking,
 * resource floods, queue hogs, malformed and garbage ioctls, abrupt
 * deaths). The generic pieces are headers of their own:
 * hpu_test_rng.h (seeded random numbers), hpu_test_usage.h (what a
 * process holds), hpu_test_trap.h (client memory traps).
 */
#ifndef HPU_TEST_HOSTILE_H
#define HPU_TEST_HOSTILE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* ---------------------------------------------------------- the attacks */

/**
 * enum hpu_hostile_attack - what a hostile client does
 * @HPU_HOSTILE_UFFD: INFO whose output lies in unresolved userfaultfd pages
 *	(several threads at once)
 * @HPU_HOSTILE_RECURSION: INFO whose output lies in a MAP_PRIVATE mapping
 *	of an attribute file of the mount (many threads at once)
 * @HPU_HOSTILE_CB_FLOOD: create CBs until refused (or a few thousand)
 * @HPU_HOSTILE_HOSTMAP_FLOOD: MAP|USERPTR small host ranges likewise
 * @HPU_HOSTILE_SHM_FLOOD: MAP_SHM of small sealed memfds likewise
 * @HPU_HOSTILE_QUEUE_HOG: a FENCE nobody signals on DMA queues, with the
 *	largest CS timeout, held for a while
 * @HPU_HOSTILE_WAIT_CHUNKS: a WAIT submission of 64, 65 or 512 chunks on
 *	a DMA queue, on a CS that ended, on one still running, or both (the
 *	last chunk on the ended one), held for a while
 * @HPU_HOSTILE_READONLY: ioctl arguments and outputs in read-only memory
 *	(MEMORY ALLOC, CB CREATE, CS, INFO GET_EVENTS and HW_IP_INFO)
 * @HPU_HOSTILE_GARBAGE: random command numbers, sizes and fields (never a
 *	fault injection, a large allocation or a non-loopback connection)
 * @HPU_HOSTILE_DIE: work, mappings and a hog in flight, then SIGKILL of
 *	the process itself
 * @HPU_HOSTILE_NUM: number of attacks
 */
enum hpu_hostile_attack {
	HPU_HOSTILE_UFFD,
	HPU_HOSTILE_RECURSION,
	HPU_HOSTILE_CB_FLOOD,
	HPU_HOSTILE_HOSTMAP_FLOOD,
	HPU_HOSTILE_SHM_FLOOD,
	HPU_HOSTILE_QUEUE_HOG,
	HPU_HOSTILE_WAIT_CHUNKS,
	HPU_HOSTILE_READONLY,
	HPU_HOSTILE_GARBAGE,
	HPU_HOSTILE_DIE,
	HPU_HOSTILE_NUM
};

/**
 * struct hpu_hostile_stats - what the hostile clients did, in memory
 * shared by all of them (MAP_SHARED), updated atomically
 * @runs: attacks started, per attack
 * @refused: attacks the driver stopped with an error, per attack
 * @last_err: the last such error (negative errno), per attack
 * @stuck: attack threads still blocked when their attack gave up
 *	waiting for them, per attack
 */
struct hpu_hostile_stats {
	uint64_t runs[HPU_HOSTILE_NUM];
	uint64_t refused[HPU_HOSTILE_NUM];
	int64_t last_err[HPU_HOSTILE_NUM];
	uint64_t stuck[HPU_HOSTILE_NUM];
};

/**
 * struct hpu_hostile_opts - how a hostile client runs
 * @mount: the daemon's mount (for attribute files)
 * @dev: device index to attack
 * @uffd: run HPU_HOSTILE_UFFD (hpu_test_uffd_unavailable() was NULL)
 * @max_hold_ms: longest time a hog, a flood or a stuck thread is held
 * @mask: bit (1 << attack) per attack to choose from; 0 for all
 * @stop: shared flag: the client stops at the next check once non-zero
 * @stats: shared statistics, or NULL
 */
struct hpu_hostile_opts {
	const char *mount;
	int dev;
	bool uffd;
	unsigned int max_hold_ms;
	uint32_t mask;
	const int *stop;
	struct hpu_hostile_stats *stats;
};

/** hpu_hostile_name() - short name of an attack ("uffd", "cb-flood"...) */
const char *hpu_hostile_name(int attack);

/**
 * hpu_hostile_parse_mask() - attacks named in a comma-separated list
 * @list: names as hpu_hostile_name() gives them
 * @mask: receives the bits (1 << attack)
 *
 * Return: 0, or -EINVAL for an unknown or empty name.
 */
int hpu_hostile_parse_mask(const char *list, uint32_t *mask);

/**
 * hpu_hostile_main() - be a hostile client until *@o->stop: open the
 * device, run randomly chosen attacks (from @seed) one after another,
 * reopening the device after those that leave work in flight
 * @o: options
 * @seed: seed of this client's choices
 *
 * Never returns: _exit(0) when stopped (HPU_HOSTILE_DIE kills the
 * process instead). For a forked child only.
 */
void hpu_hostile_main(const struct hpu_hostile_opts *o, uint64_t seed)
	__attribute__((noreturn));

#endif /* HPU_TEST_HOSTILE_H */

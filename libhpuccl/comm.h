/* SPDX-License-Identifier: MIT */
/*
 * comm.h - what the files of a communicator's life share: comm.c (init,
 * destroy, abort) calls comm_env.c (the environment), device_share.c
 * (SOBs and TPC queues shared out among this process's communicators),
 * comm_peers.c (the ranks find and connect to each other) and
 * comm_errors.c (its errors)
 */
#ifndef HPU_CCL_COMM_H
#define HPU_CCL_COMM_H

#include <stdint.h>

#include "ccl_internal.h"

/* The config's timeout @cfg_ms, else HPUCCL_TIMEOUT_MS, else the default */
uint32_t ccl_env_timeout(uint32_t cfg_ms);
/* Open HPUCCL_DEVICE, else device LOCAL_RANK mod count of the list (0
 * when unset). Return: 0, -EINVAL for a bad variable, -errno. */
int ccl_env_open_device(struct hpu_device **dev);
/* HPUCCL_SLOT_BYTES when valid (4 KiB multiple, 4 KiB..64 MiB), else the
 * default */
uint64_t ccl_env_slot_bytes(void);
/* HPUCCL_ZCOPY_BYTES (0: never, UINT64_MAX), else the default */
uint64_t ccl_env_zcopy_bytes(void);

/* The next number of the TPC queues' round robin */
unsigned int ccl_tpc_next(void);

/*
 * Publish this rank's entry in the store and read every rank's into
 * c->peers (checked: same ranks, slot bytes, window, HPUCCL_ALGO, zero
 * copy size); *@waiting: the rank being read, -1 once done. Return: 0,
 * -EINVAL for a disagreeing entry, -errno of the store.
 */
int ccl_peers_exchange(struct hpuccl_comm *c, const struct hpu_info_nic *nic,
		       int *waiting);
/* The servers of the ranks: c->nservers, server_of, local_of, nlocal */
int ccl_peers_topology(struct hpuccl_comm *c);
/* Queues and NIC connections to every peer; @tokens: per peer, the token
 * of the connection, for it to accept */
int ccl_peers_connect(struct hpuccl_comm *c, const struct hpu_info_nic *nic,
		      const struct hpu_info_hw_ip_info *hw, uint64_t *tokens);
/* Publish @tokens, accept every peer's connection to this rank */
int ccl_peers_accept(struct hpuccl_comm *c, const uint64_t *tokens);

/*
 * The sticky error, or the first error of: the store (a rank left), a
 * link down, the recent CSs, a refused write naming one of @c's keys
 * (set as the sticky error). Return: 0 or -errno.
 */
int ccl_full_check(struct hpuccl_comm *c);

#endif /* HPU_CCL_COMM_H */

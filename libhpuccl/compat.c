// SPDX-License-Identifier: MIT
/*
 * compat.c - entry points of older ABIs, kept for programs linked against
 * them (their symbol versions are the older nodes of libhpuccl.map; the
 * current entry points are the default versions, common/hpu_abi.h)
 */
#include "ccl_internal.h"
#include "hpu_abi.h"

HPU_SYMVER_COMPAT(hpuccl_comm_init_rank_config_v1_0,
		  hpuccl_comm_init_rank_config, "HPUCCL_1.0");

int hpuccl_comm_init_rank_config_v1_0(struct hpuccl_comm **comm, int nranks,
				      const struct hpuccl_unique_id *id,
				      int rank,
				      const struct hpuccl_config_v1_0 *old)
{
	struct hpuccl_config cfg = { .sz = sizeof(cfg) };

	if (!old)
		return hpuccl_comm_init_rank_config_v1_1(comm, nranks, id, rank,
							 NULL);
	cfg.dev = old->dev;
	cfg.timeout_ms = old->timeout_ms;
	cfg.flags = old->flags;
	return hpuccl_comm_init_rank_config_v1_1(comm, nranks, id, rank, &cfg);
}

// SPDX-License-Identifier: MIT
/*
 * mme.c - the MME (matrix engine): MME_GEMM packets.
 */
#include <errno.h>

#include "hpusim.h"

/**
 * hpusim_mme_exec() - run an MME_GEMM packet
 * @as: address space of the submission
 * @engine: engine id of the queue running it
 * @pkt: the packet (validated by the driver)
 * @fault: filled on -EFAULT
 *
 * Return: 0, -EFAULT, or -EIO (the engine is not implemented yet).
 */
int hpusim_mme_exec(struct hpu_fw_as *as, uint32_t engine, const void *pkt,
		    struct hpu_fw_fault *fault)
{
	(void)as;
	(void)engine;
	(void)pkt;
	(void)fault;
	return -EIO;
}

// SPDX-License-Identifier: MIT
/*
 * tpc.c - the TPC engines: TPC_KERNEL packets dispatched to the kernel
 * library.
 */
#include <errno.h>

#include "hpusim.h"

/**
 * hpusim_tpc_exec() - run a TPC_KERNEL packet
 * @as: address space of the submission
 * @engine: engine id of the queue running it
 * @pkt: the packet (validated by the driver)
 * @fault: filled on -EFAULT
 *
 * Return: 0, -EFAULT, or -EIO (the library is not implemented yet).
 */
int hpusim_tpc_exec(struct hpu_fw_as *as, uint32_t engine, const void *pkt,
		    struct hpu_fw_fault *fault)
{
	(void)as;
	(void)engine;
	(void)pkt;
	(void)fault;
	return -EIO;
}

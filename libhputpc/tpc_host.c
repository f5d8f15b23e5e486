// SPDX-License-Identifier: MIT
/*
 * tpc_host.c - the TPC kernel library's host entry (hputpc_exec_host()):
 * the engine's operand check and kernel bodies on pointers of the calling
 * process, for the training library's cpu backend.
 */
#include <errno.h>
#include <string.h>

#include "tpc_lib.h"

/* An operand as the kernels see it; @d passed hputpc_check() */
static void bind_host(const struct hpu_tpc_tensor *d, struct hputpc_operand *t)
{
	hputpc_bind_shape(d, t);
	if (hputpc_extent(d))
		t->p = (uint8_t *)(uintptr_t)d->addr;
}

int hputpc_exec_host(uint32_t kernel_id, const struct hpu_tpc_tensor *tensors,
		     unsigned int n, const uint32_t *params,
		     unsigned int nparams)
{
	struct hpu_pkt_tpc_kernel k;
	struct hputpc_ctx c;
	unsigned int i;

	if (hputpc_pkt_build(&k, kernel_id, tensors, n, params, nparams))
		return -EINVAL;

	memset(&c, 0, sizeof(c));
	c.params = k.params;
	c.id = kernel_id;
	c.nt = n;
	for (i = 0; i < n; i++)
		bind_host(&k.tensors[i], &c.t[i]);
	return hputpc_dispatch(&c);
}

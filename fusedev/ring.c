// SPDX-License-Identifier: MIT
/*
 * ring.c - HPU_IOCTL_RING: registration of a context's user-mode rings
 * (docs/rings.md, "Registration").
 *
 * The arguments are checked as the ABI says; registration itself (the
 * mapping, the consumer thread, the completions) is not implemented
 * yet: a well-formed call answers -EOPNOTSUPP and DRIVER_VERSION does
 * not report HPU_CAP_RING.
 */
#include <errno.h>
#include <stdint.h>

#include "hpu_fused.h"

static bool ring_entries_ok(uint32_t n)
{
	return n >= HPU_RING_MIN_ENTRIES && n <= HPU_RING_MAX_ENTRIES &&
	       !(n & (n - 1));
}

/**
 * hfd_ring_check_register() - check the values of a REGISTER call
 * @in: the input (unused members already checked to be 0)
 *
 * Return: 0, or -EINVAL for unknown flags, a ring size that is not a
 * power of two within HPU_RING_MIN_ENTRIES..HPU_RING_MAX_ENTRIES, an
 * offset that is not a multiple of HPU_RING_ALIGN, a size other than
 * HPU_RING_SIZE(sq_slots, cq_entries), or a descriptor number above
 * INT32_MAX.
 */
int hfd_ring_check_register(const struct hpu_ring_in *in)
{
	if (hfd_check_flags(in->flags, HPU_RING_FLAGS_MASK) ||
	    !ring_entries_ok(in->sq_slots) || !ring_entries_ok(in->cq_entries))
		return -EINVAL;
	if (in->offset % HPU_RING_ALIGN || in->offset > (uint64_t)INT64_MAX ||
	    in->size != HPU_RING_SIZE(in->sq_slots, in->cq_entries) ||
	    in->fd > INT32_MAX)
		return -EINVAL;
	return 0;
}

/**
 * hfd_ioctl_ring() - HPU_IOCTL_RING handler
 * @call: context and requesting thread
 * @data: union hpu_ring_args, updated in place
 *
 * Return: -EINVAL for bad arguments, else -EOPNOTSUPP (not implemented
 * yet; docs/rings.md, "State").
 */
int hfd_ioctl_ring(const struct hfd_ioctl_call *call, void *data)
{
	union hpu_ring_args *args = data;
	struct hpu_ring_in in = args->in;
	int ret;

	switch (in.op) {
	case HPU_RING_OP_REGISTER:
		ret = hfd_ring_check_register(&in);
		if (ret)
			return ret;
		return -EOPNOTSUPP;
	case HPU_RING_OP_UNREGISTER:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
}

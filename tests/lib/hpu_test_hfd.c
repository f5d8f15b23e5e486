// SPDX-License-Identifier: MIT
/*
 * hpu_test_hfd.c - one simulated Gaudi2 in the driver core without FUSE
 * (hpu_test_hfd.h).
 */
#include <string.h>
#include <unistd.h>

#include "hpu_fw_if.h"
#include "hpu_test_hfd.h"

static int open_ctx(struct hfd_device *dev, bool control, bool exclusive,
		    struct hfd_ctx **ctx)
{
	if (exclusive)
		return hfd_ctx_open_exclusive(dev, control, true, getpid(),
					      getuid(), getgid(), ctx);
	return hfd_ctx_open(dev, control, getpid(), getuid(), getgid(), ctx);
}

int hpu_test_hfd_open(struct hfd_driver *drv, bool exclusive,
		      struct hfd_ctx **compute, struct hfd_ctx **control)
{
	memset(drv, 0, sizeof(*drv));
	*compute = NULL;
	if (control)
		*control = NULL;
	if (hfd_driver_init(drv, &hpusim_model, "gaudi2", 1, "/unit"))
		return -1;
	if (open_ctx(&drv->devs[0], false, exclusive, compute))
		return -1;
	if (control && open_ctx(&drv->devs[0], true, exclusive, control))
		return -1;
	return 0;
}

void hpu_test_hfd_close(struct hfd_driver *drv, struct hfd_ctx *compute,
			struct hfd_ctx *control)
{
	if (compute)
		hfd_ctx_release(compute);
	if (control)
		hfd_ctx_release(control);
	hfd_driver_fini(drv);
}

// SPDX-License-Identifier: MIT
/*
 * kernel.c - what a kernel (habanalabs) device's sysfs says, for the
 * functions libhpudrv cannot answer through INFO (it does not open
 * kernel devices): the attributes of the device's PCI directory that the
 * habanalabs driver and the PCI core provide.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlml_internal.h"

/**
 * hlml_kernel_str() - a sysfs attribute of a kernel device
 * @d: device (table held)
 * @name: attribute, e.g. "uboot_ver"
 * @buf: receives the value without its newline
 * @len: bytes at @buf
 *
 * Return: HLML_SUCCESS; NOT_SUPPORTED for a simulated device, a missing
 * or empty attribute; the translated -errno.
 */
hlml_return_t hlml_kernel_str(const struct hlml_dev *d, const char *name,
			      char *buf, size_t len)
{
	int ret;

	if (d->info.kind != HPU_DEVICE_KIND_KERNEL)
		return HLML_ERROR_NOT_SUPPORTED;
	ret = hpu_device_read_attr(d->info.index, name, buf, len);
	if (ret)
		return hlml_from_errno(ret);
	return buf[0] ? HLML_SUCCESS : HLML_ERROR_NOT_SUPPORTED;
}

/**
 * hlml_kernel_uint() - a numeric sysfs attribute of a kernel device
 * @d: device (table held)
 * @name: attribute; decimal, or hexadecimal with 0x
 * @v: receives the number (a leading number: "16.0 GT/s PCIe" is 16)
 *
 * Return: as hlml_kernel_str(); UNKNOWN when the value is no number.
 */
hlml_return_t hlml_kernel_uint(const struct hlml_dev *d, const char *name,
			       unsigned long long *v)
{
	char buf[64], *end;
	hlml_return_t r;

	r = hlml_kernel_str(d, name, buf, sizeof(buf));
	if (r)
		return r;
	*v = strtoull(buf, &end, 0);
	return end == buf ? HLML_ERROR_UNKNOWN : HLML_SUCCESS;
}

// SPDX-License-Identifier: MIT
/*
 * core.c - init, shutdown and device handles.
 *
 * The first hlml_init*() takes libhpudrv's list of visible devices and
 * opens each one's control node (a monitor never holds a device); the
 * last hlml_shutdown() closes them. A reference count pairs the two, a
 * mutex orders them, and a read-write lock keeps the device table still
 * while a query uses it: queries share it, setup and teardown own it.
 *
 * A handle is an address inside a static array that is never freed or
 * read: generation (init cycle) and position are encoded in its offset.
 * So a handle from an earlier init cycle is told apart from a current one
 * (HLML_ERROR_UNINITIALIZED) and an address that was never a handle is
 * refused (HLML_ERROR_INVALID_ARGUMENT); neither is ever dereferenced.
 * Addresses repeat after HLML_GENERATIONS cycles.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlml_internal.h"

/* Init cycles a handle's address tells apart */
#define HLML_GENERATIONS 4096

static char handle_space[HLML_GENERATIONS * HLML_MAX_DEVICES];

/* init_lock orders init and shutdown; refs counts inits in force */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int refs;

/* table_lock: held for writing by setup and teardown, reading by queries */
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static bool live;
static uint64_t generation;
static unsigned int ndev;
static struct hlml_dev devs[HLML_MAX_DEVICES];

/**
 * hlml_from_errno() - the HLML code of a libhpudrv -errno
 * @err: 0 or -errno
 *
 * Return: the code (docs/hlml.md, "Errors").
 */
hlml_return_t hlml_from_errno(int err)
{
	switch (err) {
	case 0:
		return HLML_SUCCESS;
	case -ENOMEM:
		return HLML_ERROR_MEMORY;
	case -EOPNOTSUPP:
	case -ENOTTY:
	case -ENOENT:
		return HLML_ERROR_NOT_SUPPORTED;
	case -ENODEV:
	case -ENXIO:
	case -ENOTCONN:
		return HLML_ERROR_AIP_IS_LOST;
	case -ETIMEDOUT:
		return HLML_ERROR_TIMEOUT;
	case -ERANGE:
		return HLML_ERROR_INSUFFICIENT_SIZE;
	case -EINVAL:
		return HLML_ERROR_INVALID_ARGUMENT;
	default:
		return HLML_ERROR_UNKNOWN;
	}
}

/**
 * hlml_put_str() - answer a string into a caller's buffer
 * @buf: buffer
 * @len: its size
 * @val: value
 *
 * Return: HLML_SUCCESS; INVALID_ARGUMENT for NULL @buf; INSUFFICIENT_SIZE
 * when @val and its NUL do not fit (then @buf gets an empty string when
 * @len > 0).
 */
hlml_return_t hlml_put_str(char *buf, unsigned int len, const char *val)
{
	size_t n = strlen(val);

	if (!buf)
		return HLML_ERROR_INVALID_ARGUMENT;
	if (n >= len) {
		if (len)
			buf[0] = '\0';
		return HLML_ERROR_INSUFFICIENT_SIZE;
	}
	memcpy(buf, val, n + 1);
	return HLML_SUCCESS;
}

/**
 * hlml_need_ctl() - whether a device can answer INFO queries
 * @dev: device
 *
 * Return: HLML_SUCCESS, or NOT_SUPPORTED for a kernel device.
 */
hlml_return_t hlml_need_ctl(const struct hlml_dev *dev)
{
	return dev->ctl ? HLML_SUCCESS : HLML_ERROR_NOT_SUPPORTED;
}

/* Under table_lock for writing: close every device */
static void teardown(void)
{
	unsigned int i;

	for (i = 0; i < ndev; i++) {
		hpu_close(devs[i].ctl);
		memset(&devs[i], 0, sizeof(devs[i]));
	}
	ndev = 0;
	live = false;
}

static void setup_dev(struct hlml_dev *d, const struct hpu_device_info *info,
		      unsigned int pos)
{
	memset(d, 0, sizeof(*d));
	d->pos = pos;
	d->info = *info;
	if (info->kind != HPU_DEVICE_KIND_SIMULATED)
		return;
	/* a device we may not open is still listed: its queries say so */
	if (hpu_open_control(info->index, &d->ctl)) {
		d->ctl = NULL;
		return;
	}
	if (hpu_info_hw_ip(d->ctl, &d->hw))
		memset(&d->hw, 0, sizeof(d->hw));
	if (hpu_device_read_attr(info->index, "uuid", d->uuid, sizeof(d->uuid)))
		d->uuid[0] = '\0';
}

/* Under table_lock for writing: take the visible devices */
static hlml_return_t setup(void)
{
	struct hpu_device_info *list = NULL;
	int count = 0, ret, i;

	ret = hpu_device_list(&list, &count);
	if (ret)
		return ret == -ENOMEM ? HLML_ERROR_MEMORY : HLML_ERROR_UNKNOWN;
	if (!count) {
		hpu_device_list_free(list);
		return HLML_ERROR_DRIVER_NOT_LOADED;
	}
	if (count > HLML_MAX_DEVICES)
		count = HLML_MAX_DEVICES;
	for (i = 0; i < count; i++)
		setup_dev(&devs[i], &list[i], (unsigned int)i);
	hpu_device_list_free(list);
	ndev = (unsigned int)count;
	generation++;
	live = true;
	return HLML_SUCCESS;
}

HLML_EXPORT hlml_return_t hlml_init_with_flags(unsigned int flags)
{
	hlml_return_t r = HLML_SUCCESS;

	pthread_mutex_lock(&init_lock);
	if (!refs) {
		pthread_rwlock_wrlock(&table_lock);
		r = setup();
		pthread_rwlock_unlock(&table_lock);
	}
	if (r == HLML_SUCCESS)
		refs++;
	pthread_mutex_unlock(&init_lock);
	return r;
}

HLML_EXPORT hlml_return_t hlml_init(void)
{
	return hlml_init_with_flags(0);
}

HLML_EXPORT hlml_return_t hlml_shutdown(void)
{
	pthread_mutex_lock(&init_lock);
	if (!refs) {
		pthread_mutex_unlock(&init_lock);
		return HLML_ERROR_UNINITIALIZED;
	}
	if (!--refs) {
		pthread_rwlock_wrlock(&table_lock);
		teardown();
		pthread_rwlock_unlock(&table_lock);
	}
	pthread_mutex_unlock(&init_lock);
	return HLML_SUCCESS;
}

/**
 * hlml_lock_inited() - hold the device table for a query
 *
 * Return: HLML_SUCCESS with the table held (release it with
 * hlml_unlock_inited()), or UNINITIALIZED with nothing held.
 */
hlml_return_t hlml_lock_inited(void)
{
	pthread_rwlock_rdlock(&table_lock);
	if (!live) {
		pthread_rwlock_unlock(&table_lock);
		return HLML_ERROR_UNINITIALIZED;
	}
	return HLML_SUCCESS;
}

/** hlml_unlock_inited() - release what hlml_lock_inited() took */
void hlml_unlock_inited(void)
{
	pthread_rwlock_unlock(&table_lock);
}

/** hlml_dev_count_locked() - devices of the current init (table held) */
unsigned int hlml_dev_count_locked(void)
{
	return ndev;
}

/** hlml_dev_at_locked() - device at HLML index @pos (table held), or NULL */
struct hlml_dev *hlml_dev_at_locked(unsigned int pos)
{
	return pos < ndev ? &devs[pos] : NULL;
}

/** hlml_generation_locked() - the current init cycle (table held) */
uint64_t hlml_generation_locked(void)
{
	return generation;
}

/** hlml_dev_handle_locked() - the handle of @dev in this cycle (table held) */
hlml_device_t hlml_dev_handle_locked(const struct hlml_dev *dev)
{
	size_t g = (size_t)(generation % HLML_GENERATIONS);

	return &handle_space[g * HLML_MAX_DEVICES + dev->pos];
}

/**
 * hlml_dev_get() - check a handle and hold the table for a query on it
 * @handle: from a hlml_device_get_handle_*() call
 * @devp: receives the device
 *
 * Return: HLML_SUCCESS with the table held (hlml_dev_put() releases it);
 * UNINITIALIZED without an init in force or for a handle of an earlier
 * cycle; INVALID_ARGUMENT for anything else that is no handle.
 */
hlml_return_t hlml_dev_get(hlml_device_t handle, struct hlml_dev **devp)
{
	const char *p = handle;
	size_t off, g, pos;
	hlml_return_t r;

	r = hlml_lock_inited();
	if (r)
		return r;
	if (!p || p < handle_space ||
	    p >= handle_space + sizeof(handle_space)) {
		hlml_unlock_inited();
		return HLML_ERROR_INVALID_ARGUMENT;
	}
	off = (size_t)(p - handle_space);
	g = off / HLML_MAX_DEVICES;
	pos = off % HLML_MAX_DEVICES;
	if (g != generation % HLML_GENERATIONS) {
		hlml_unlock_inited();
		return HLML_ERROR_UNINITIALIZED;
	}
	if (pos >= ndev) {
		hlml_unlock_inited();
		return HLML_ERROR_INVALID_ARGUMENT;
	}
	*devp = &devs[pos];
	return HLML_SUCCESS;
}

/** hlml_dev_put() - release the table hlml_dev_get() held */
void hlml_dev_put(struct hlml_dev *dev)
{
	(void)dev;
	hlml_unlock_inited();
}

HLML_EXPORT hlml_return_t hlml_device_get_count(unsigned int *device_count)
{
	hlml_return_t r = hlml_lock_inited();

	if (r)
		return r;
	if (device_count)
		*device_count = ndev;
	else
		r = HLML_ERROR_INVALID_ARGUMENT;
	hlml_unlock_inited();
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_handle_by_index(unsigned int index,
							  hlml_device_t *device)
{
	hlml_return_t r = hlml_lock_inited();

	if (r)
		return r;
	if (!device)
		r = HLML_ERROR_INVALID_ARGUMENT;
	else if (index >= ndev)
		r = HLML_ERROR_NOT_FOUND;
	else
		*device = hlml_dev_handle_locked(&devs[index]);
	hlml_unlock_inited();
	return r;
}

/* "BB:DD.F" or "DDDD:BB:DD.F", any case, into the canonical form */
static bool parse_bus_id(const char *s, char *out, size_t len)
{
	unsigned int dom = 0, bus, dev, fn;
	int n = 0;

	if (sscanf(s, "%x:%x:%x.%x%n", &dom, &bus, &dev, &fn, &n) == 4 && !s[n])
		goto ok;
	n = 0;
	dom = 0;
	if (sscanf(s, "%x:%x.%x%n", &bus, &dev, &fn, &n) == 3 && !s[n])
		goto ok;
	return false;
ok:
	if (dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return false;
	snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return true;
}

HLML_EXPORT hlml_return_t hlml_device_get_handle_by_pci_bus_id(
	const char *pci_addr, hlml_device_t *device)
{
	char want[32], have[32];
	hlml_return_t r;
	unsigned int i;

	r = hlml_lock_inited();
	if (r)
		return r;
	if (!pci_addr || !device) {
		r = HLML_ERROR_INVALID_ARGUMENT;
		goto out;
	}
	r = HLML_ERROR_NOT_FOUND;
	if (!parse_bus_id(pci_addr, want, sizeof(want)))
		goto out;
	for (i = 0; i < ndev; i++) {
		if (!parse_bus_id(devs[i].info.bus_id, have, sizeof(have)) ||
		    strcmp(want, have))
			continue;
		*device = hlml_dev_handle_locked(&devs[i]);
		r = HLML_SUCCESS;
		break;
	}
out:
	hlml_unlock_inited();
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_handle_by_UUID(const char *uuid,
							 hlml_device_t *device)
{
	hlml_return_t r;
	unsigned int i;

	r = hlml_lock_inited();
	if (r)
		return r;
	if (!uuid || !device) {
		r = HLML_ERROR_INVALID_ARGUMENT;
		goto out;
	}
	r = HLML_ERROR_NOT_FOUND;
	for (i = 0; i < ndev; i++) {
		if (!devs[i].uuid[0] || strcasecmp(devs[i].uuid, uuid))
			continue;
		*device = hlml_dev_handle_locked(&devs[i]);
		r = HLML_SUCCESS;
		break;
	}
out:
	hlml_unlock_inited();
	return r;
}

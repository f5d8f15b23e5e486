/* SPDX-License-Identifier: MIT */
/*
 * hpu_devdir.h - where the simulator's device directory is (one rule for
 * the daemon and every client; docs/device-directory.md).
 */
#ifndef HPU_DEVDIR_H
#define HPU_DEVDIR_H

#include <stddef.h>

/**
 * hpu_devdir_default() - the device directory clients and the daemon use
 * @buf: destination
 * @len: bytes at @buf
 *
 * Applies HPU_DEV_DIR, then /run/hpu for root, then $XDG_RUNTIME_DIR/hpu,
 * then /tmp/hpu-$UID.
 *
 * Return: 0, or -ENAMETOOLONG when the path does not fit in @buf.
 */
int hpu_devdir_default(char *buf, size_t len);

/**
 * hpu_devdir_is_default() - true when @dir is the directory that
 * hpu_devdir_default() would choose without HPU_DEV_DIR
 * @dir: directory to compare
 */
int hpu_devdir_is_default(const char *dir);

#endif /* HPU_DEVDIR_H */

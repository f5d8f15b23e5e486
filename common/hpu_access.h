/* SPDX-License-Identifier: MIT */
/*
 * hpu_access.h - explain a refused open of a device node to a user, for
 * the tools (docs/install.md, "Permissions").
 */
#ifndef HPU_ACCESS_H
#define HPU_ACCESS_H

#include <stddef.h>

/**
 * hpu_access_hint() - say why the caller may not open @path and how to fix it
 * @path: device node whose open failed with EACCES
 * @buf: destination
 * @len: bytes at @buf
 *
 * Names the node, its mode, owner and group, the caller, and the command
 * an administrator runs to let the caller in (membership of the node's
 * group). Never fails: without stat() data the text stays generic.
 *
 * Return: @buf.
 */
const char *hpu_access_hint(const char *path, char *buf, size_t len);

#endif /* HPU_ACCESS_H */

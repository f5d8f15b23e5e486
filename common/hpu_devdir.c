// SPDX-License-Identifier: MIT
/*
 * hpu_devdir.c - the device directory rule shared by daemon and clients.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpu_devdir.h"

static int devdir_builtin(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n;

	if (geteuid() == 0)
		n = snprintf(buf, len, "/run/hpu");
	else if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/hpu", xdg);
	else
		n = snprintf(buf, len, "/tmp/hpu-%u", (unsigned int)geteuid());
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int hpu_devdir_default(char *buf, size_t len)
{
	const char *env = getenv("HPU_DEV_DIR");
	int n;

	if (!env || !env[0])
		return devdir_builtin(buf, len);
	n = snprintf(buf, len, "%s", env);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int hpu_devdir_is_default(const char *dir)
{
	char builtin[4096];

	if (devdir_builtin(builtin, sizeof(builtin)))
		return 0;
	return strcmp(builtin, dir) == 0;
}

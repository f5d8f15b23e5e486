// SPDX-License-Identifier: MIT
/*
 * hpu_test_scratch.c - a test's scratch directory (hpu_test_scratch.h).
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpu_test_scratch.h"

const char *hpu_test_scratch_path(const char *dir, const char *name)
{
	static char path[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

static int remove_entry(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (type == FTW_DP ? rmdir(path) : unlink(path)) ? -1 : 0;
}

int hpu_test_remove_tree(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st) && errno == ENOENT)
		return 0;
	return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) ? -1 : 0;
}

// SPDX-License-Identifier: MIT
/*
 * hpu_test_umockdev.c - a test binary run again under umockdev's preload
 * library (hpu_test_umockdev.h).
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpu_test_umockdev.h"

#define PRELOAD "libumockdev-preload.so.0"

/* Whether libumockdev-preload is mapped into this process */
static bool preloaded(void)
{
	char line[512];
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "libumockdev-preload") != NULL;
	fclose(f);
	return found;
}

const char *hpu_test_umockdev_reexec(char **argv, const char *again_env)
{
	const char *asan;
	char opts[512];
	void *h;

	if (preloaded())
		return NULL;
	if (getenv(again_env))
		return "running under " PRELOAD " did not work";
	h = dlopen(PRELOAD, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		h = dlopen(PRELOAD, RTLD_LAZY);
	if (!h)
		return PRELOAD " not found (Debian package umockdev)";
	dlclose(h);
	setenv(again_env, "1", 1);
	setenv("LD_PRELOAD", PRELOAD, 1);
	/* AddressSanitizer wants to come first; the preload library does */
	asan = getenv("ASAN_OPTIONS");
	snprintf(opts, sizeof(opts), "%s%sverify_asan_link_order=0",
		 asan ? asan : "", asan && *asan ? ":" : "");
	setenv("ASAN_OPTIONS", opts, 1);
	execv("/proc/self/exe", argv);
	return "cannot run again under " PRELOAD;
}

// SPDX-License-Identifier: MIT
/*
 * hpu_test_preload.c - sanitizer runtimes for programs that are not ours
 * (hpu_test_preload.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_test_preload.h"

/* Append the path of the first mapping of this process naming @rt */
static void add_mapped(const char *rt, char *pre, size_t len)
{
	char line[PATH_MAX + 128], *p;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		p = strchr(line, '/');
		if (!p || !strstr(p, rt))
			continue;
		p[strcspn(p, "\n")] = '\0';
		if (strlen(pre) + strlen(p) + 2 < len) {
			if (pre[0])
				strcat(pre, ":");
			strcat(pre, p);
		}
		break;
	}
	fclose(f);
}

void hpu_test_sanitizer_preload(void)
{
	char pre[2 * PATH_MAX] = "";

	add_mapped("/libasan.so", pre, sizeof(pre)); /* must come first */
	add_mapped("/libubsan.so", pre, sizeof(pre));
	if (pre[0]) {
		setenv("LD_PRELOAD", pre, 1);
		setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
	}
}

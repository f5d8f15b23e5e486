// SPDX-License-Identifier: MIT
/*
 * hpu_test_usage.c - what a process holds, read from /proc (hpu_test_usage.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_test_usage.h"

int hpu_test_usage_of(pid_t pid, struct hpu_test_usage *u)
{
	char path[64], line[256];
	struct dirent *e;
	DIR *d;
	FILE *f;
	int c;

	memset(u, 0, sizeof(*u));
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			u->fds++;
	closedir(d);

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while ((c = getc(f)) != EOF)
		if (c == '\n')
			u->maps++;
	fclose(f);

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &u->rss_kib) != 1)
			sscanf(line, "Threads: %ld", &u->threads);
	fclose(f);
	return 0;
}

long hpu_test_maps_matching(pid_t pid, const char *needle)
{
	char path[64], line[512];
	long n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

long hpu_test_fds_of(pid_t pid)
{
	char path[64];
	struct dirent *e;
	long n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

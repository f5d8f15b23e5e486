/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_usage.h - what a process holds (/proc/PID: descriptors,
 * mappings, RSS, threads), for tests that check the daemon gives
 * everything back.
 */
#ifndef HPU_TEST_USAGE_H
#define HPU_TEST_USAGE_H

#include <sys/types.h>

/**
 * struct hpu_test_usage - resources a process holds
 * @fds: entries of /proc/PID/fd
 * @maps: lines of /proc/PID/maps
 * @rss_kib: VmRSS of /proc/PID/status, KiB
 * @threads: Threads of /proc/PID/status
 */
struct hpu_test_usage {
	long fds;
	long maps;
	long rss_kib;
	long threads;
};

/**
 * hpu_test_usage_of() - read what process @pid holds
 * @pid: the process (readable /proc/PID: ours, or we are root)
 * @u: receives the figures
 *
 * Only /proc is read: safe whatever state the process is in.
 *
 * Return: 0 or -errno.
 */
int hpu_test_usage_of(pid_t pid, struct hpu_test_usage *u);

/**
 * hpu_test_maps_matching() - lines of /proc/PID/maps containing @needle
 * @pid: the process
 * @needle: e.g. "memfd:hpu-host", a memfd's name
 *
 * Return: the count, or -errno when the maps cannot be read.
 */
long hpu_test_maps_matching(pid_t pid, const char *needle);

/**
 * hpu_test_fds_of() - descriptors process @pid holds
 * @pid: the process
 *
 * Return: the count, or -errno.
 */
long hpu_test_fds_of(pid_t pid);

#endif /* HPU_TEST_USAGE_H */

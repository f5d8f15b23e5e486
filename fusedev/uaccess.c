// SPDX-License-Identifier: MIT
/*
 * uaccess.c - copy_from_user/copy_to_user of the driver: the memory of
 * the process that made the request at hand, reached with
 * process_vm_readv/process_vm_writev.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hpu_fused.h"

static int check_range(pid_t pid, uint64_t uaddr, size_t len)
{
	if (pid <= 0)
		return -EFAULT;
	if (!uaddr || uaddr + len < uaddr || uaddr > (uint64_t)UINTPTR_MAX)
		return -EFAULT;
	return 0;
}

/**
 * hpu_copy_from_user() - read @len bytes at @uaddr of thread @pid
 * @pid: the requesting thread (fuse_req_ctx(req)->pid), not the opener
 * @dst: destination in the daemon
 * @uaddr: user address
 * @len: bytes; 0 succeeds without touching anything
 *
 * Return: 0, or -EFAULT when any byte could not be read.
 */
int hpu_copy_from_user(pid_t pid, void *dst, uint64_t uaddr, size_t len)
{
	struct iovec local = { .iov_base = dst, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)uaddr,
				.iov_len = len };
	ssize_t n;

	if (!len)
		return 0;
	if (check_range(pid, uaddr, len))
		return -EFAULT;
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n < 0 || (size_t)n != len)
		return -EFAULT;
	return 0;
}

/**
 * hpu_copy_to_user() - write @len bytes to @uaddr of thread @pid
 * @pid: the requesting thread (fuse_req_ctx(req)->pid), not the opener
 * @uaddr: user address
 * @src: source in the daemon
 * @len: bytes; 0 succeeds without touching anything
 *
 * A partial write is possible when the range crosses into an unmapped
 * page; it is still reported as a fault.
 *
 * Return: 0, or -EFAULT when any byte could not be written.
 */
int hpu_copy_to_user(pid_t pid, uint64_t uaddr, const void *src, size_t len)
{
	struct iovec local = { .iov_base = (void *)src, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)uaddr,
				.iov_len = len };
	ssize_t n;

	if (!len)
		return 0;
	if (check_range(pid, uaddr, len))
		return -EFAULT;
	n = process_vm_writev(pid, &local, 1, &remote, 1, 0);
	if (n < 0 || (size_t)n != len)
		return -EFAULT;
	return 0;
}

/**
 * hpu_pidfd_open() - a pidfd of a client process
 * @tgid: thread group id
 *
 * Return: the fd (close-on-exec), or -errno (-ESRCH: gone).
 */
int hpu_pidfd_open(pid_t tgid)
{
	long fd;

	if (tgid <= 0)
		return -ESRCH;
	fd = syscall(SYS_pidfd_open, tgid, 0);
	return fd < 0 ? -errno : (int)fd;
}

/**
 * hpu_pidfd_alive() - whether the process of a pidfd still runs
 * @pidfd: pidfd
 */
bool hpu_pidfd_alive(int pidfd)
{
	return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
}

/**
 * hpu_user_range_mapped() - whether every byte of a user range is in a
 * mapping of the process
 * @tgid: process
 * @uaddr: first byte
 * @len: bytes (> 0)
 *
 * Reads /proc/@tgid/maps: nothing of the range is touched or faulted in.
 *
 * Return: 0, or -EFAULT when some byte is not mapped (or the process is
 * gone).
 */
int hpu_user_range_mapped(pid_t tgid, uint64_t uaddr, uint64_t len)
{
	unsigned long long lo, hi;
	uint64_t pos = uaddr, end = uaddr + len;
	char path[64], line[4400];
	FILE *f;

	if (!len || end < uaddr || check_range(tgid, uaddr, len))
		return -EFAULT;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)tgid);
	f = fopen(path, "re");
	if (!f)
		return -EFAULT;
	/* the maps are sorted by address: walk them once */
	while (pos < end && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx", &lo, &hi) != 2)
			continue;
		if (hi <= pos)
			continue;
		if (lo > pos)
			break;
		pos = hi;
	}
	fclose(f);
	return pos >= end ? 0 : -EFAULT;
}

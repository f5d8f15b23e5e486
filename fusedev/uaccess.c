// SPDX-License-Identifier: MIT
/*
 * uaccess.c - copy_from_user/copy_to_user of the driver: the memory of
 * the process that made the request at hand, reached with
 * process_vm_readv/process_vm_writev.
 */
#include <errno.h>
#include <sys/uio.h>

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

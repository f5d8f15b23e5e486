// SPDX-License-Identifier: MIT
/*
 * uaccess.c - copy_from_user/copy_to_user of the driver: the memory of
 * the process that made the request at hand, reached with
 * process_vm_readv/process_vm_writev under the uaccess guard
 * (uaccess_guard.c), pidfds, and the checks of user ranges that touch
 * nothing.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
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

/* process_vm_readv/writev of one range, bounded by the uaccess guard */
static int vm_copy(pid_t pid, void *local_ptr, uint64_t uaddr, size_t len,
		   bool write)
{
	struct iovec local = { .iov_base = local_ptr, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)uaddr,
				.iov_len = len };
	int guarded, ret;
	ssize_t n;

	guarded = hfd_uaccess_enter();
	if (guarded < 0)
		return guarded;
	if (write)
		n = process_vm_writev(pid, &local, 1, &remote, 1, 0);
	else
		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	ret = n < 0 || (size_t)n != len ? -EFAULT : 0;
	if (guarded && hfd_uaccess_exit())
		ret = -EFAULT;
	return ret;
}

/**
 * hfd_copy_from_user() - read @len bytes at @uaddr of thread @pid
 * @pid: the requesting thread (fuse_req_ctx(req)->pid), not the opener
 * @dst: destination in the daemon
 * @uaddr: user address
 * @len: bytes; 0 succeeds without touching anything
 *
 * On a FUSE worker the access is guarded: when it takes longer than the
 * uaccess timeout the request is answered EFAULT by the watchdog and this
 * returns -EFAULT whenever the thread comes back.
 *
 * Return: 0, or -EFAULT when any byte could not be read (or the access
 * was refused or abandoned).
 */
int hfd_copy_from_user(pid_t pid, void *dst, uint64_t uaddr, size_t len)
{
	if (!len)
		return 0;
	if (check_range(pid, uaddr, len))
		return -EFAULT;
	return vm_copy(pid, dst, uaddr, len, false);
}

/**
 * hfd_copy_to_user() - write @len bytes to @uaddr of thread @pid
 * @pid: the requesting thread (fuse_req_ctx(req)->pid), not the opener
 * @uaddr: user address
 * @src: source in the daemon
 * @len: bytes; 0 succeeds without touching anything
 *
 * A partial write is possible when the range crosses into an unmapped
 * page; it is still reported as a fault. Guarded as hfd_copy_from_user().
 *
 * Return: 0, or -EFAULT when any byte could not be written (or the
 * access was refused or abandoned).
 */
int hfd_copy_to_user(pid_t pid, uint64_t uaddr, const void *src, size_t len)
{
	if (!len)
		return 0;
	if (check_range(pid, uaddr, len))
		return -EFAULT;
	return vm_copy(pid, (void *)src, uaddr, len, true);
}

/**
 * hfd_pidfd_open() - a pidfd of a client process
 * @tgid: thread group id
 *
 * Return: the fd (close-on-exec), or -errno (-ESRCH: gone).
 */
int hfd_pidfd_open(pid_t tgid)
{
	long fd;

	if (tgid <= 0)
		return -ESRCH;
	fd = syscall(SYS_pidfd_open, tgid, 0);
	return fd < 0 ? -errno : (int)fd;
}

/**
 * hfd_pidfd_alive() - whether the process of a pidfd still runs
 * @pidfd: pidfd
 */
bool hfd_pidfd_alive(int pidfd)
{
	return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
}

/* Device of the daemon's own mount (hfd_uaccess_set_mount_dev), or 0 */
static dev_t own_dev;

/**
 * hfd_uaccess_set_mount_dev() - tell the user range checks which device
 * numbers the daemon's own mount has
 * @dev: st_dev of the mount (0: unknown)
 *
 * Client memory mapped from a file of this mount would have the daemon
 * serve its own page faults (a FUSE READ per fault): it is refused.
 */
void hfd_uaccess_set_mount_dev(dev_t dev)
{
	own_dev = dev;
}

/**
 * hfd_user_range_mapped() - whether every byte of a user range is in a
 * mapping of the process that is not a file of the daemon's own mount
 * @tgid: process
 * @uaddr: first byte
 * @len: bytes (> 0)
 *
 * Reads /proc/@tgid/maps: nothing of the range is touched or faulted in.
 *
 * Return: 0, or -EFAULT when some byte is not mapped, or mapped from the
 * daemon's own mount (or the process is gone).
 */
int hfd_user_range_mapped(pid_t tgid, uint64_t uaddr, uint64_t len)
{
	unsigned long long lo, hi;
	unsigned int maj, min;
	uint64_t pos = uaddr, end = uaddr + len;
	char path[64], line[4400];
	bool own = false;
	FILE *f;

	if (!len || end < uaddr || check_range(tgid, uaddr, len))
		return -EFAULT;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)tgid);
	f = fopen(path, "re");
	if (!f)
		return -EFAULT;
	/* the maps are sorted by address: walk them once */
	while (pos < end && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %*s %*x %x:%x", &lo, &hi, &maj,
			   &min) != 4)
			continue;
		if (hi <= pos)
			continue;
		if (lo > pos)
			break;
		if (own_dev && makedev(maj, min) == own_dev) {
			own = true;
			break;
		}
		pos = hi;
	}
	fclose(f);
	return pos >= end && !own ? 0 : -EFAULT;
}

/**
 * hfd_user_probe() - check a user range before a lock is taken around
 * an access to it
 * @tid: requesting thread
 * @uaddr: first byte
 * @len: bytes (> 0)
 *
 * The range must be mapped, and not from the daemon's own mount
 * (hfd_user_range_mapped()); its first byte is then read under the
 * uaccess guard, which faults its page in: a fault that never ends
 * (userfaultfd) is abandoned here, where no lock is held, rather than
 * under the device's or context's locks by the access that follows.
 *
 * Return: 0 or -EFAULT.
 */
int hfd_user_probe(pid_t tid, uint64_t uaddr, uint64_t len)
{
	uint8_t byte;
	int ret;

	ret = hfd_user_range_mapped(hfd_tid_to_tgid(tid), uaddr, len);
	if (ret)
		return ret;
	return hfd_copy_from_user(tid, &byte, uaddr, 1);
}

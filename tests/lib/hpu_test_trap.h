/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_trap.h - client memory the daemon cannot touch without
 * blocking: pages registered with a userfaultfd nobody reads, and a
 * private mapping of an attribute file of the daemon's own mount
 * (issue 14; hostile clients put ioctl arguments there).
 */
#ifndef HPU_TEST_TRAP_H
#define HPU_TEST_TRAP_H

#include <stdint.h>

/**
 * hpu_test_uffd_unavailable() - whether hpu_test_uffd_pages() can work
 *
 * A trap for the daemon needs userfaultfd without UFFD_USER_MODE_ONLY
 * (faults from another process's process_vm_writev are kernel-mode
 * faults), which needs root (CAP_SYS_PTRACE) or
 * vm.unprivileged_userfaultfd=1.
 *
 * Return: NULL when it works, else a reason to print.
 */
const char *hpu_test_uffd_unavailable(void);

/**
 * hpu_test_uffd_pages() - @npages of anonymous memory registered with a
 * userfaultfd nobody reads: a fault there never resolves while @uffd is
 * open (closing it lets pending faults complete with zero pages)
 * @npages: pages
 * @uffd: receives the userfaultfd
 *
 * Return: the memory, or NULL with errno set.
 */
void *hpu_test_uffd_pages(unsigned int npages, int *uffd);

/**
 * hpu_test_attr_map() - a writable MAP_PRIVATE mapping of one page of an
 * attribute file of the daemon's own mount: the first write to it makes
 * the kernel read the page from the file, i.e. send a FUSE READ to the
 * very daemon that writes (self-recursion)
 * @mount: the daemon's mount (HPU_DEV_DIR)
 * @dev: device index N of class/hpuN
 * @attr: attribute file name, e.g. "temperature_mc"
 *
 * The file is closed again; munmap(2) the page when done.
 *
 * Return: the page, or NULL with errno set.
 */
void *hpu_test_attr_map(const char *mount, int dev, const char *attr);

/**
 * hpu_test_trapped_cb() - a CB of one NOP in a page registered with a
 * userfaultfd: filled with UFFDIO_COPY (CB CREATE probes it), then
 * dropped again, so that the daemon's next read of it waits for a
 * handler that never comes
 * @fd: an open compute node
 * @handle: receives the CB's handle
 *
 * Return: the userfaultfd (keep it open: the fault is never resolved
 * until it is closed), or -1.
 */
int hpu_test_trapped_cb(int fd, uint64_t *handle);

#endif /* HPU_TEST_TRAP_H */

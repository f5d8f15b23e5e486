// SPDX-License-Identifier: MIT
/*
 * hpu_test_trap.c - client memory traps (hpu_test_trap.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hpu_test_trap.h"

#define PAGE 4096UL

const char *hpu_test_uffd_unavailable(void)
{
	static char why[160];
	void *p;
	int uffd;

	p = hpu_test_uffd_pages(1, &uffd);
	if (p) {
		close(uffd);
		munmap(p, PAGE);
		return NULL;
	}
	snprintf(why, sizeof(why),
		 "userfaultfd for kernel-mode faults: %s (needs root or "
		 "vm.unprivileged_userfaultfd=1)",
		 strerror(errno));
	return why;
}

void *hpu_test_uffd_pages(unsigned int npages, int *uffdp)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	size_t len = npages * PAGE;
	int uffd, err;
	void *p;

	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED) {
		err = errno;
		close(uffd);
		errno = err;
		return NULL;
	}
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)p;
	reg.range.len = len;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_API, &api) ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		err = errno;
		munmap(p, len);
		close(uffd);
		errno = err;
		return NULL;
	}
	*uffdp = uffd;
	return p;
}

void *hpu_test_attr_map(const char *mount, int dev, const char *attr)
{
	char path[4096 + 64];
	int fd, err;
	void *p;

	snprintf(path, sizeof(path), "%s/class/hpu%d/%s", mount, dev, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	err = errno;
	close(fd);
	if (p == MAP_FAILED) {
		errno = err;
		return NULL;
	}
	return p;
}

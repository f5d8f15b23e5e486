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

#include "hpu_accel.h"
#include "hpu_packets.h"
#include "hpu_test_trap.h"
#include "hpu_test_util.h"

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

int hpu_test_trapped_cb(int fd, uint64_t *handle)
{
	static uint64_t src[4096 / 8] __attribute__((aligned(4096)));
	struct hpu_pkt_nop *nop = (struct hpu_pkt_nop *)src;
	union hpu_cb_args a = { .in = { .op = HPU_CB_OP_CREATE,
					.cb_size = sizeof(*nop) } };
	struct uffdio_copy cp;
	int uffd;
	void *p;

	p = hpu_test_uffd_pages(1, &uffd);
	if (!p)
		return -1;
	nop->hdr.opcode = HPU_PACKET_NOP;
	nop->hdr.size = sizeof(*nop);
	memset(&cp, 0, sizeof(cp));
	cp.dst = (uintptr_t)p;
	cp.src = (uintptr_t)src;
	cp.len = 4096;
	if (ioctl(uffd, UFFDIO_COPY, &cp))
		return -1;
	a.in.host_ptr = (uintptr_t)p;
	if (hpu_test_ioctl(fd, HPU_IOCTL_CB, &a) ||
	    madvise(p, 4096, MADV_DONTNEED))
		return -1;
	*handle = a.out.cb_handle;
	return uffd;
}

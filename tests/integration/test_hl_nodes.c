// SPDX-License-Identifier: MIT
/*
 * test_hl_nodes.c - the habanalabs personality through FUSE
 * (docs/habanalabs.md): hpu-fused --personality habanalabs serves
 * hlN/hl_controlDN/accelN/accel_controlDN beside the hpu nodes, as
 * regular files without st_rdev; their ioctls speak both request-code
 * sets; one compute open per device (-EBUSY for a second, whichever name
 * it comes through); without the option there are no such nodes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_util.h"
#include "hl_uapi.h"
#include "hpu_accel.h"

static const char *const hl_args[] = { "--personality", "habanalabs", NULL };

static int open_name(const char *name, int flags)
{
	char path[PATH_MAX + 32];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", hpu_test_shared.mount, name);
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void test_names(void **state)
{
	static const char *const names[] = { "hl0",    "hl_controlD0",
					     "accel0", "accel_controlD0",
					     "hl1",    "accel_controlD1",
					     "hpu0",   "hpu_control0" };
	char path[PATH_MAX + 32];
	struct dirent *e;
	struct stat st;
	unsigned int i, seen = 0;
	DIR *d;
	int fd;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", hpu_test_shared.mount,
			 names[i]);
		assert_int_equal(stat(path, &st), 0);
		assert_true(S_ISREG(st.st_mode));
	}
	/* no such device, no such name */
	snprintf(path, sizeof(path), "%s/hl2", hpu_test_shared.mount);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	snprintf(path, sizeof(path), "%s/hl_control0", hpu_test_shared.mount);
	assert_int_equal(stat(path, &st), -1);
	d = opendir(hpu_test_shared.mount);
	assert_non_null(d);
	while ((e = readdir(d)))
		for (i = 0; i < 4; i++)
			if (!strcmp(e->d_name, names[i]))
				seen |= 1U << i;
	closedir(d);
	assert_int_equal(seen, 0xf);
	/* a FUSE file has no device number: the library's sysfs lookup of
	 * a descriptor goes to /sys/dev/char/0:0 (docs/habanalabs.md) */
	fd = open_name("hl_controlD0", O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_rdev, 0);
	close(fd);
}

static void hw_ip(int fd, unsigned long cmd, struct hl_info_hw_ip_info *ip)
{
	struct hl_info_args a = { .return_pointer = (uintptr_t)ip,
				  .return_size = sizeof(*ip),
				  .op = HL_INFO_HW_IP_INFO };

	memset(ip, 0, sizeof(*ip));
	assert_int_equal(hpu_test_ioctl(fd, cmd, &a), 0);
}

static void test_both_code_sets(void **state)
{
	struct hl_info_hw_ip_info ip1, ip2;
	uint8_t arg[64] = { 0 };
	int fd;

	fd = open_name("accel_controlD1", O_RDWR);
	assert_true(fd >= 0);
	hw_ip(fd, HL_IOCTL_INFO, &ip1);
	hw_ip(fd, DRM_IOCTL_HL_INFO, &ip2);
	assert_int_equal(ip1.device_id, HL_PCI_IDS_GAUDI2);
	assert_int_equal(ip1.num_of_events, HL_GAUDI2_NUM_EVENTS);
	assert_memory_equal(&ip1, &ip2, sizeof(ip1));
	/* control nodes have INFO only; codes of neither set */
	assert_int_equal(hpu_test_ioctl(fd, HL_IOCTL_MEMORY, arg), -ENOTTY);
	assert_int_equal(hpu_test_ioctl(fd, DRM_IOCTL_HL_CS, arg), -ENOTTY);
	assert_int_equal(hpu_test_ioctl(fd, _IOWR('H', 7, uint8_t[24]), arg),
			 -ENOTTY);
	close(fd);
}

/* Open @name for compute, retrying while an earlier close of the device's
 * holder is still being torn down (FUSE releases in the background) */
static int open_compute_bounded(const char *name)
{
	int fd = -EBUSY, i;

	for (i = 0; i < 500 && fd == -EBUSY; i++) {
		fd = open_name(name, O_RDWR);
		if (fd == -EBUSY)
			hpu_test_sleep_ms(10);
	}
	return fd;
}

static void test_one_compute_open(void **state)
{
	int fd, fd2, ctl;

	fd = open_compute_bounded("hl0");
	assert_true(fd >= 0);
	/* a second compute open of the device, by either name */
	assert_int_equal(open_name("hl0", O_RDWR), -EBUSY);
	assert_int_equal(open_name("accel0", O_RDWR), -EBUSY);
	/* other devices and control nodes are not held */
	fd2 = open_compute_bounded("accel1");
	assert_true(fd2 >= 0);
	ctl = open_name("hl_controlD0", O_RDWR);
	assert_true(ctl >= 0);
	close(ctl);
	close(fd2);
	close(fd);
	/* the device is free again once its holder is gone */
	fd = open_compute_bounded("accel0");
	assert_true(fd >= 0);
	close(fd);
}

/* The hpu nodes keep their ABI beside the personality */
static void test_hpu_nodes_unchanged(void **state)
{
	struct hpu_info_device_status s = { 0 };
	struct hpu_info_args a = { .return_pointer = (uintptr_t)&s,
				   .return_size = sizeof(s),
				   .op = HPU_INFO_DEVICE_STATUS };
	int fd;

	fd = open_name("hpu_control0", O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), 0);
	assert_int_equal(a.full_size, sizeof(s));
	assert_int_equal(s.status, HPU_DEVICE_STATUS_OPERATIONAL);
	/* an hl request on an hpu node is not the hpu ABI's */
	assert_int_equal(hpu_test_ioctl(fd, HL_IOCTL_INFO, &a), -ENOTTY);
	close(fd);
}

/* Without --personality habanalabs there are no habanalabs nodes */
static void test_off_by_default(void **state)
{
	struct hpu_test_daemon d;
	char path[PATH_MAX + 32];
	struct stat st;

	assert_int_equal(hpu_test_daemon_start(&d, 1, "gaudi2", NULL), 0);
	snprintf(path, sizeof(path), "%s/hl0", d.mount);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	snprintf(path, sizeof(path), "%s/accel_controlD0", d.mount);
	assert_int_equal(stat(path, &st), -1);
	snprintf(path, sizeof(path), "%s/hpu0", d.mount);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
}

static void test_bad_personality(void **state)
{
	char *argv[] = { (char *)hpu_test_bin("hpu-fused"), "--personality",
			 "nvidia", NULL };
	int status;

	assert_int_equal(hpu_test_run(argv, NULL, &status), 0);
	assert_int_equal(status, 2);
}

static int group_setup(void **state)
{
	return hpu_test_group_start_args(2, "gaudi2", hl_args);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_names, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_both_code_sets,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_one_compute_open,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_hpu_nodes_unchanged,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_off_by_default,
				       hpu_test_need_daemon),
		cmocka_unit_test(test_bad_personality),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}

// SPDX-License-Identifier: MIT
/*
 * test_hl_devlinks.c - --dev-links with the habanalabs personality
 * (docs/habanalabs.md, "Nodes and how the library finds them"): beside
 * hpuN, LINK_DIR/accel/accelN, accel/accel_controlDN, hlN and
 * hl_controlDN lead to the personality's nodes, the device's sysfs
 * attributes are found from a node (its directory's class/hpuN/), and
 * stopping removes the links and the accel directory the daemon made;
 * without the personality no such link is made.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "hl_uapi.h"

#define NEED_FUSE()                                     \
	do {                                            \
		const char *why = hpu_test_have_fuse(); \
		if (why) {                              \
			printf("skipped: %s\n", why);   \
			skip();                         \
		}                                       \
	} while (0)

static const char *const names[] = {
	"hpu0",		"accel/accel0", "accel/accel_controlD0", "hl0",
	"hl_controlD0", "accel/accel1", "accel/accel_controlD1", "hl1",
	"hl_controlD1"
};
#define NUM_NAMES (sizeof(names) / sizeof(names[0]))

/* LINK_DIR/NAME -> MOUNT/<basename of NAME> */
static void check_link(const char *linkdir, const char *mount, const char *name)
{
	char link[PATH_MAX + 64], want[PATH_MAX + 64], got[PATH_MAX + 64];
	const char *base = strrchr(name, '/');
	ssize_t n;

	snprintf(link, sizeof(link), "%s/%s", linkdir, name);
	snprintf(want, sizeof(want), "%s/%s", mount, base ? base + 1 : name);
	n = readlink(link, got, sizeof(got) - 1);
	assert_true(n > 0);
	got[n] = '\0';
	assert_string_equal(got, want);
}

static void test_personality_links(void **state)
{
	char linkdir[] = "/tmp/hl-links-XXXXXX";
	const char *extra[] = { "--personality",  "habanalabs", "--dev-links",
				"--dev-link-dir", linkdir,	NULL };
	char path[PATH_MAX + 64], node[PATH_MAX + 64], bus[64];
	struct hl_info_hw_ip_info ip;
	struct hl_info_args a;
	struct hpu_test_daemon d;
	unsigned int i;
	ssize_t n;
	int fd;

	NEED_FUSE();
	assert_non_null(mkdtemp(linkdir));
	assert_int_equal(hpu_test_daemon_start(&d, 2, "gaudi2", extra), 0);
	for (i = 0; i < NUM_NAMES; i++)
		check_link(linkdir, d.mount, names[i]);

	/* the library's open: a control node by its /dev name answers */
	snprintf(path, sizeof(path), "%s/accel/accel_controlD0", linkdir);
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	memset(&a, 0, sizeof(a));
	memset(&ip, 0, sizeof(ip));
	a.op = HL_INFO_HW_IP_INFO;
	a.return_pointer = (uintptr_t)&ip;
	a.return_size = sizeof(ip);
	assert_int_equal(ioctl(fd, HL_IOCTL_INFO, &a), 0);
	assert_int_equal(ip.device_id, HL_PCI_IDS_GAUDI2);
	close(fd);

	/* the node's sysfs: DIR/class/hpuN/ beside the node it leads to */
	snprintf(path, sizeof(path), "%s/accel/accel1", linkdir);
	n = readlink(path, node, sizeof(node) - 1);
	assert_true(n > 0);
	node[n] = '\0';
	snprintf(path, sizeof(path), "%s/class/hpu1/pci_addr", dirname(node));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	n = read(fd, bus, sizeof(bus) - 1);
	assert_true(n >= 12);
	bus[n] = '\0';
	assert_int_equal(bus[4], ':');
	close(fd);

	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	for (i = 0; i < NUM_NAMES; i++) {
		snprintf(path, sizeof(path), "%s/%s", linkdir, names[i]);
		assert_int_equal(access(path, F_OK), -1);
	}
	snprintf(path, sizeof(path), "%s/accel", linkdir);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(rmdir(linkdir), 0);
}

static void test_no_personality_no_links(void **state)
{
	char linkdir[] = "/tmp/hl-links-XXXXXX";
	const char *extra[] = { "--dev-links", "--dev-link-dir", linkdir,
				NULL };
	char path[PATH_MAX + 64];
	struct hpu_test_daemon d;

	NEED_FUSE();
	assert_non_null(mkdtemp(linkdir));
	assert_int_equal(hpu_test_daemon_start(&d, 1, "gaudi2", extra), 0);
	check_link(linkdir, d.mount, "hpu0");
	snprintf(path, sizeof(path), "%s/accel", linkdir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/hl0", linkdir);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	assert_int_equal(rmdir(linkdir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_personality_links),
		cmocka_unit_test(test_no_personality_no_links),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

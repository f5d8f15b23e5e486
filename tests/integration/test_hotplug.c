// SPDX-License-Identifier: MIT
/*
 * test_hotplug.c - hot-plug against the real hpu-fused: hot-add and
 * hot-remove reach hpu_monitor, the device list and hpu-smi; an open
 * handle of a removed device gets -ENODEV (ioctl, read, poll) and keeps
 * its slot until closed; bad commands are refused with their message;
 * only the daemon's user may write driver/hotplug; a stopped daemon's
 * devices are reported removed; --dev-link-dir links follow hot-plug; a
 * hot-added device is reached by its index, a removed index is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_util.h"
#include "hpudrv.h"

#define NDEV 2

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start(NDEV, "gaudi2");
}

/* Runs hpu-smi with up to 3 arguments; returns its stdout (malloc'ed) */
static char *smi(int *status, const char *a, const char *b, const char *c)
{
	char *argv[] = { (char *)hpu_test_bin("hpu-smi"), (char *)a, (char *)b,
			 (char *)c, NULL };
	char *out = NULL;

	assert_int_equal(hpu_test_run(argv, &out, status), 0);
	assert_non_null(out);
	return out;
}

static bool node_exists(int n)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/hpu%d", hpu_test_shared.mount, n);
	return access(path, F_OK) == 0;
}

/*
 * Whether the directory entry of hpuN vanishes within 2 s: the daemon
 * invalidates the kernel's cached entry just after it answers the remove,
 * so a lookup right after may still be answered from that cache.
 */
static bool node_vanishes(int n)
{
	int i;

	for (i = 0; i < 200 && node_exists(n); i++)
		hpu_test_sleep_ms(10);
	return !node_exists(n);
}

/*
 * Hot-adds until the device lands in @slot (at most 200 tries 10 ms
 * apart): close() returns before the kernel sends the RELEASE that frees
 * a removed device's slot. Devices that land elsewhere are removed.
 */
static int add_in_slot(int slot)
{
	int i, index, ret;

	for (i = 0; i < 200; i++) {
		ret = hpu_hot_add(NULL, &index);
		if (ret)
			return ret;
		if (index == slot)
			return 0;
		ret = hpu_hot_remove(index);
		if (ret)
			return ret;
		hpu_test_sleep_ms(10);
	}
	return -EBUSY;
}

static void test_add_remove_monitor_smi(void **state)
{
	struct hpu_monitor_event ev;
	struct hpu_monitor *mon;
	char line[64], *out;
	int status, index;

	(void)state;
	assert_int_equal(hpu_monitor_create(&mon), 0);
	assert_int_equal(hpu_monitor_next(mon, &ev), -EAGAIN);

	assert_int_equal(hpu_hot_add("gaudi3", &index), 0);
	assert_int_equal(index, NDEV);
	assert_true(node_exists(index));
	assert_int_equal(hpu_test_monitor_wait(mon, &ev, 30), 0);
	assert_int_equal(ev.action, HPU_MONITOR_ADD);
	assert_int_equal(ev.kind, HPU_DEVICE_KIND_SIMULATED);
	assert_int_equal(ev.index, index);
	assert_string_equal(ev.info.device_type, "GAUDI3");
	assert_string_equal(ev.info.bus_id, "0000:1b:00.0");
	assert_int_equal(hpu_device_count(), NDEV + 1);

	out = smi(&status, "-L", NULL, NULL);
	assert_int_equal(status, 0);
	snprintf(line, sizeof(line), "HPU %d: HL-325L", index);
	assert_non_null(strstr(out, line));
	free(out);

	assert_int_equal(hpu_hot_remove(index), 0);
	assert_true(node_vanishes(index));
	assert_int_equal(hpu_test_monitor_wait(mon, &ev, 30), 0);
	assert_int_equal(ev.action, HPU_MONITOR_REMOVE);
	assert_int_equal(ev.index, index);
	assert_string_equal(ev.info.device_type, "GAUDI3");
	assert_int_equal(hpu_device_count(), NDEV);
	out = smi(&status, "-L", NULL, NULL);
	assert_int_equal(status, 0);
	snprintf(line, sizeof(line), "HPU %d:", index);
	assert_null(strstr(out, line));
	free(out);
	assert_int_equal(hpu_test_monitor_wait(mon, &ev, 3), -EAGAIN);
	hpu_monitor_destroy(mon);
}

static void test_smi_hot_options(void **state)
{
	struct hpu_monitor_event ev;
	struct hpu_monitor *mon;
	char arg[16], *out;
	int status, index;

	(void)state;
	assert_int_equal(hpu_monitor_create(&mon), 0);
	out = smi(&status, "--hot-add", NULL, NULL);
	assert_int_equal(status, 0);
	assert_int_equal(sscanf(out, "HPU %d added", &index), 1);
	free(out);
	assert_int_equal(hpu_test_monitor_wait(mon, &ev, 30), 0);
	assert_int_equal(ev.action, HPU_MONITOR_ADD);
	assert_int_equal(ev.index, index);
	/* without TYPE the daemon's --type */
	assert_string_equal(ev.info.device_type, "GAUDI2");

	snprintf(arg, sizeof(arg), "%d", index);
	out = smi(&status, "--hot-remove", arg, NULL);
	assert_int_equal(status, 0);
	free(out);
	assert_int_equal(hpu_test_monitor_wait(mon, &ev, 30), 0);
	assert_int_equal(ev.action, HPU_MONITOR_REMOVE);
	assert_int_equal(ev.index, index);

	/* refused requests: usage errors, nothing changes */
	out = smi(&status, "--hot-remove", arg, NULL);
	assert_int_equal(status, 2);
	free(out);
	out = smi(&status, "--hot-add", "gaudi9", NULL);
	assert_int_equal(status, 2);
	free(out);
	out = smi(&status, "--hot-remove", "-1", NULL);
	assert_int_equal(status, 2);
	free(out);
	out = smi(&status, "--hot-remove", "0", "-L");
	assert_int_equal(status, 2);
	free(out);
	assert_int_equal(hpu_test_monitor_wait(mon, &ev, 3), -EAGAIN);
	assert_int_equal(hpu_device_count(), NDEV);
	hpu_monitor_destroy(mon);
}

static void test_removed_handle_enodev(void **state)
{
	struct hpu_info_hw_ip_info hw;
	struct hpu_device *dev, *ctl;
	struct hpu_event evs[4];
	int index, again;

	(void)state;
	assert_int_equal(hpu_hot_add(NULL, &index), 0);
	assert_int_equal(hpu_open(index, &dev), 0);
	assert_int_equal(hpu_open_control(index, &ctl), 0);
	assert_int_equal(hpu_info_hw_ip(dev, &hw), 0);

	assert_int_equal(hpu_hot_remove(index), 0);
	assert_int_equal(hpu_info_hw_ip(dev, &hw), -ENODEV);
	assert_int_equal(hpu_info_hw_ip(ctl, &hw), -ENODEV);
	assert_int_equal(hpu_event_read(dev, evs, 4), -ENODEV);
	assert_int_equal(hpu_device_poll(dev, POLLIN | POLLPRI, 100), -ENODEV);
	assert_int_equal(hpu_open(index, &(struct hpu_device *){ NULL }),
			 -ENODEV);

	/* the open files keep the slot: a new device goes elsewhere */
	assert_int_equal(hpu_hot_add(NULL, &again), 0);
	assert_int_not_equal(again, index);
	assert_int_equal(hpu_hot_remove(again), 0);

	/* the last close frees the device and its slot */
	hpu_close(dev);
	hpu_close(ctl);
	assert_int_equal(add_in_slot(index), 0);
	again = index;
	assert_int_equal(hpu_open(again, &dev), 0);
	assert_int_equal(hpu_info_hw_ip(dev, &hw), 0);
	hpu_close(dev);
	assert_int_equal(hpu_hot_remove(again), 0);
	assert_int_equal(hpu_device_count(), NDEV);
}

/* Writes @cmd to driver/hotplug; returns -errno or 0 and the answer */
static int hotplug_write(const char *cmd, size_t len, char *ans, size_t n)
{
	char path[PATH_MAX + 32];
	ssize_t r;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/driver/hotplug",
		 hpu_test_shared.mount);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return -errno;
	if (write(fd, cmd, len) < 0)
		ret = -errno;
	r = read(fd, ans, n - 1);
	ans[r > 0 ? r : 0] = '\0';
	close(fd);
	return ret;
}

static void test_bad_commands(void **state)
{
	static const char *const bad[] = {
		"remove",     "remove -1",    "remove 07",	    "remove 64",
		"remove 1 2", "remove x",     "frobnicate",	    "add a b",
		"add\nadd",   "ADD",	      "add gaudi9",	    "remove  ",
		"\n",	      "add gaudi2 x", "remove 99999999999",
	};
	char ans[256], big[200];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(hotplug_write(bad[i], strlen(bad[i]), ans,
					       sizeof(ans)),
				 -EINVAL);
		assert_memory_equal(ans, "error: ", 7);
	}
	assert_int_equal(hotplug_write("add\0x", 5, ans, sizeof(ans)), -EINVAL);
	memset(big, 'a', sizeof(big));
	assert_int_equal(hotplug_write(big, sizeof(big), ans, sizeof(ans)),
			 -EINVAL);
	assert_non_null(strstr(ans, "longer"));
	assert_int_equal(hotplug_write("remove 63\n", 10, ans, sizeof(ans)),
			 -ENODEV);
	assert_non_null(strstr(ans, "no device hpu63"));
	assert_int_equal(hpu_hot_add("gaudi 2", &(int){ 0 }), -EINVAL);
	assert_int_equal(hpu_hot_add("", &(int){ 0 }), -EINVAL);
	assert_int_equal(hpu_hot_add(NULL, NULL), -EINVAL);
	assert_int_equal(hpu_hot_remove(-1), -EINVAL);
	assert_int_equal(hpu_hot_remove(40), -ENODEV);
	/* nothing changed */
	assert_int_equal(hpu_device_count(), NDEV);
}

/* Runs "hpu-smi ARGS 2>&1" (stderr too); returns the output (malloc'ed) */
static char *smi_all(int *status, const char *args)
{
	char cmd[PATH_MAX + 256];
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	char *out = NULL;

	snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", hpu_test_bin("hpu-smi"),
		 args);
	assert_int_equal(hpu_test_run(argv, &out, status), 0);
	assert_non_null(out);
	return out;
}

/*
 * A hot-added device is reached by its index (hpu_open, hpu-smi -i)
 * like the others; indices are never renumbered, so removing a device
 * leaves a hole that -i and hpu_open refuse with a clear message while
 * the devices after it keep their indices.
 */
static void test_hot_added_index(void **state)
{
	struct hpu_info_hw_ip_info hw;
	struct hpu_device_info info;
	struct hpu_device *dev;
	char args[64], want[256], *out;
	int status, a, b;

	(void)state;
	assert_int_equal(hpu_hot_add("gaudi3", &a), 0);
	assert_int_equal(hpu_hot_add("gaudi", &b), 0);
	assert_true(a >= NDEV && b > a);

	/* hpu_open(N) reaches the new device */
	assert_int_equal(hpu_open(a, &dev), 0);
	assert_int_equal(hpu_info_hw_ip(dev, &hw), 0);
	assert_string_equal((const char *)hw.card_name, "HL-325L");
	hpu_close(dev);
	assert_int_equal(hpu_device_get_info(b, &info), 0);
	assert_string_equal(info.device_type, "GAUDI");

	/* so does hpu-smi -i N */
	snprintf(args, sizeof(args),
		 "-i %d -Q index,name,bus_id -f csv,noheader", a);
	out = smi_all(&status, args);
	assert_int_equal(status, 0);
	snprintf(want, sizeof(want), "%d, HL-325L, 0000:%02x:00.0\n", a,
		 0x19 + a);
	assert_string_equal(out, want);
	free(out);

	/* a removed index is refused; the device after it keeps its index */
	assert_int_equal(hpu_hot_remove(a), 0);
	assert_int_equal(hpu_open(a, &dev), -ENODEV);
	assert_int_equal(hpu_device_get_info(a, &info), -ENODEV);
	assert_non_null(strstr(hpu_strerror(-ENODEV), "no such HPU device"));
	snprintf(args, sizeof(args), "-i %d -L", a);
	out = smi_all(&status, args);
	assert_int_equal(status, 2);
	snprintf(want, sizeof(want),
		 "hpu-smi: no device with index %d (removed, or never there); "
		 "present: 0, 1, %d\n",
		 a, b);
	assert_string_equal(out, want);
	free(out);

	snprintf(args, sizeof(args), "-i %d -Q index,name -f csv,noheader", b);
	out = smi_all(&status, args);
	assert_int_equal(status, 0);
	snprintf(want, sizeof(want), "%d, HL-205\n", b);
	assert_string_equal(out, want);
	free(out);
	assert_int_equal(hpu_open(b, &dev), 0);
	assert_int_equal(hpu_info_hw_ip(dev, &hw), 0);
	assert_string_equal((const char *)hw.card_name, "HL-205");
	hpu_close(dev);

	assert_int_equal(hpu_hot_remove(b), 0);
	out = smi_all(&status, "-i 0x -L");
	assert_int_equal(status, 2);
	assert_string_equal(out, "hpu-smi: no device with bus id '0x'\n");
	free(out);
	assert_int_equal(hpu_device_count(), NDEV);
}

static void test_permissions(void **state)
{
	char path[PATH_MAX + 32];
	struct stat st;
	pid_t pid;
	int status;

	(void)state;
	snprintf(path, sizeof(path), "%s/driver/hotplug",
		 hpu_test_shared.mount);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	if (geteuid() != 0) {
		print_message("skipped: another user's write needs root\n");
		skip();
	}
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		fd = open(path, O_WRONLY);
		_exit(fd < 0 && errno == EACCES ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_daemon_gone(void **state)
{
	struct hpu_test_daemon d;
	struct hpu_monitor_event ev;
	struct hpu_monitor *mon;
	char saved[PATH_MAX];
	int seen = 0, i;

	(void)state;
	snprintf(saved, sizeof(saved), "%s", getenv("HPU_DEV_DIR"));
	assert_int_equal(hpu_test_daemon_start(&d, 2, "gaudi2", NULL), 0);
	assert_int_equal(hpu_monitor_create(&mon), 0);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(hpu_test_monitor_wait(mon, &ev, 30), 0);
		assert_int_equal(ev.action, HPU_MONITOR_REMOVE);
		seen |= 1 << ev.index;
	}
	assert_int_equal(seen, 3);
	assert_int_equal(hpu_test_monitor_wait(mon, &ev, 3), -EAGAIN);
	hpu_monitor_destroy(mon);
	setenv("HPU_DEV_DIR", saved, 1);
}

/* Target of LINK_DIR/hpuN into @buf, or "" when there is no link */
static const char *link_target(const char *link_dir, int n, char *buf,
			       size_t len)
{
	char link[PATH_MAX + 32];
	ssize_t r;

	snprintf(link, sizeof(link), "%s/hpu%d", link_dir, n);
	r = readlink(link, buf, len - 1);
	buf[r > 0 ? r : 0] = '\0';
	return buf;
}

static void expect_link_into(const char *link_dir, const char *mount, int n)
{
	char want[PATH_MAX + 32], have[PATH_MAX];

	snprintf(want, sizeof(want), "%s/hpu%d", mount, n);
	assert_string_equal(link_target(link_dir, n, have, sizeof(have)), want);
}

static void replace_link(const char *link_dir, int n, const char *target)
{
	char link[PATH_MAX + 32];

	snprintf(link, sizeof(link), "%s/hpu%d", link_dir, n);
	unlink(link);
	assert_int_equal(symlink(target, link), 0);
}

/*
 * --dev-link-dir (never /dev here): a hot-added device gets its link, a
 * hot-removed one loses it unless the link no longer points into the
 * mount; the daemon's stop removes the links of hot-added slots too.
 */
static void test_dev_links_follow_hotplug(void **state)
{
	const char *extra[] = { "--dev-links", "--dev-link-dir", NULL, NULL };
	char link_dir[] = "/tmp/hpu-test-links-XXXXXX";
	char saved[PATH_MAX], buf[PATH_MAX], path[PATH_MAX + 32];
	struct hpu_test_daemon d;
	int index, fd;

	(void)state;
	snprintf(saved, sizeof(saved), "%s", getenv("HPU_DEV_DIR"));
	assert_non_null(mkdtemp(link_dir));
	extra[2] = link_dir;
	/* someone else's hpu3: never replaced, never removed */
	replace_link(link_dir, 3, "/dev/null");
	assert_int_equal(hpu_test_daemon_start(&d, 2, "gaudi2", extra), 0);
	expect_link_into(link_dir, d.mount, 0);
	expect_link_into(link_dir, d.mount, 1);
	assert_string_equal(link_target(link_dir, 2, buf, sizeof(buf)), "");

	assert_int_equal(hpu_hot_add(NULL, &index), 0);
	assert_int_equal(index, 2);
	expect_link_into(link_dir, d.mount, 2);
	/* the link reaches the new device */
	snprintf(path, sizeof(path), "%s/hpu2", link_dir);
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	close(fd);

	assert_int_equal(hpu_hot_add(NULL, &index), 0);
	assert_int_equal(index, 3);
	assert_string_equal(link_target(link_dir, 3, buf, sizeof(buf)),
			    "/dev/null");
	assert_int_equal(hpu_hot_remove(3), 0);
	assert_string_equal(link_target(link_dir, 3, buf, sizeof(buf)),
			    "/dev/null");

	/* a link pointed elsewhere since is not ours any more */
	replace_link(link_dir, 1, "/dev/zero");
	assert_int_equal(hpu_hot_remove(1), 0);
	assert_string_equal(link_target(link_dir, 1, buf, sizeof(buf)),
			    "/dev/zero");
	assert_int_equal(hpu_hot_remove(0), 0);
	assert_string_equal(link_target(link_dir, 0, buf, sizeof(buf)), "");
	expect_link_into(link_dir, d.mount, 2);

	/* the stop removes hpu2 (a hot-added slot), nothing else */
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	assert_string_equal(link_target(link_dir, 2, buf, sizeof(buf)), "");
	assert_string_equal(link_target(link_dir, 1, buf, sizeof(buf)),
			    "/dev/zero");
	assert_string_equal(link_target(link_dir, 3, buf, sizeof(buf)),
			    "/dev/null");
	snprintf(path, sizeof(path), "%s/hpu1", link_dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/hpu3", link_dir);
	unlink(path);
	assert_int_equal(rmdir(link_dir), 0);
	setenv("HPU_DEV_DIR", saved, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_add_remove_monitor_smi,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_smi_hot_options,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_removed_handle_enodev,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_bad_commands, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_hot_added_index,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_permissions, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_daemon_gone, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_dev_links_follow_hotplug,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}

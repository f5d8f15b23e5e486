// SPDX-License-Identifier: MIT
/*
 * test_permissions.c - who may open the device nodes: hpu-fused --group,
 * --mode and --control-mode with default_permissions, a user outside the
 * group (EACCES from libhpudrv, hpu-smi naming the node, the group and the
 * fix), a user in it, the defaults (compute 0660, control 0664) and the
 * modes the daemon refuses. Users are switched in forked children
 * (setgroups/setgid/setuid): the tests need root. The user runs a copy of
 * hpu-smi staged under /tmp (tests/lib/hpu_test_stage.h), so the tests
 * work wherever the checkout is, a private directory included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_proc.h"
#include "../lib/hpu_test_stage.h"
#include "../lib/hpu_test_util.h"
#include "hpudrv.h"

/* The unprivileged user of the children ("nobody" on Debian) */
#define USER_UID    65534
#define USER_GID    65534
/*
 * Exit status of a child that could not exec the tool as that user
 * (hpu_test_proc), or of a program the dynamic loader could not start
 */
#define EXIT_NO_RUN 127

static gid_t node_gid;
static char node_gid_str[16];
/* the daemon of the running group is up; else why its tests skip */
static bool daemon_up;
static const char *skip_reason;
/* hpu-smi where the user can run it; else why its tests skip */
static struct hpu_test_stage stage;
static const char *stage_skip;

/* Become USER_UID, in @group as a supplementary group when not -1 */
static int drop_to_user(long group)
{
	gid_t g = (gid_t)group;

	if (setgroups(group >= 0 ? 1 : 0, &g))
		return -1;
	if (setgid(USER_GID) || setuid(USER_UID))
		return -1;
	return 0;
}

/*
 * As the user (in @group, or in none with -1): open device 0's compute
 * (control: its control) node and ask INFO HW_IP. Exit status: 0 worked,
 * else the errno.
 */
static int open_as_user(long group, bool control)
{
	struct hpu_info_hw_ip_info hw;
	struct hpu_device *dev;
	int status, ret;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (drop_to_user(group))
			_exit(100);
		ret = control ? hpu_open_control(0, &dev) : hpu_open(0, &dev);
		if (!ret) {
			ret = hpu_info_hw_ip(dev, &hw);
			hpu_close(dev);
		}
		_exit(ret < 0 ? -ret : ret);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_not_equal(WEXITSTATUS(status), 100);
	return WEXITSTATUS(status);
}

static int drop_to_user_in_child(void *arg)
{
	return drop_to_user(*(const long *)arg) ? 100 : 0;
}

/*
 * Run @prog @arg as the user; stdout+stderr into @out; its exit status
 * (127 when it could not be executed)
 */
static int run_as_user(long group, const char *prog, const char *arg,
		       char **out)
{
	char *const argv[] = { (char *)prog, (char *)arg, NULL };
	const struct hpu_test_proc_opts o = {
		.stderr_mode = HPU_TEST_STDERR_MERGE,
		.child_setup = drop_to_user_in_child,
		.arg = &group,
	};
	struct hpu_test_proc p;

	assert_int_equal(hpu_test_proc_run(&p, argv, &o, 30000), 0);
	assert_false(p.killed);
	assert_int_not_equal(p.status, 100);
	*out = p.out;
	free(p.err);
	return p.status;
}

/* Run the staged hpu-smi @arg as the user; stdout+stderr into @out */
static int smi_as_user(long group, const char *arg, char **out)
{
	const char *prog = hpu_test_stage_bin(&stage, "hpu-smi");
	int status;

	HPU_TEST_SKIP_IF(stage_skip);
	status = run_as_user(group, prog, arg, out);
	/* the stage was probed: the user must be able to run it */
	if (status == EXIT_NO_RUN)
		fail_msg("uid %d could not run %s %s (exit %d): %s", USER_UID,
			 prog, arg, status, *out);
	return status;
}

static void node_path(char *buf, size_t len, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", hpu_test_shared.mount, name);

	assert_true(n > 0 && (size_t)n < len);
}

static void assert_node(const char *name, mode_t mode, gid_t gid)
{
	char path[PATH_MAX];
	struct stat st;

	node_path(path, sizeof(path), name);
	assert_int_equal(stat(path, &st), 0);
	if ((st.st_mode & 07777) != mode)
		fail_msg("%s: mode %04o, expected %04o", name,
			 (unsigned int)(st.st_mode & 07777),
			 (unsigned int)mode);
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(st.st_gid, gid);
}

/* ------------------------------------------------ --group, both 0660 */

/* Start hpu_test_shared with @extra, or note why the group skips */
static int start_daemon(int ndev, const char *const *extra)
{
	unsetenv("HPU_VISIBLE_DEVICES");
	skip_reason = geteuid() ? "not root: cannot switch users" :
				  hpu_test_have_fuse();
	if (skip_reason)
		return 0;
	if (hpu_test_stage_create(&stage,
				  (const char *const[]){ "hpu-smi", NULL }))
		return -1;
	stage_skip =
		hpu_test_stage_usable(&stage, "hpu-smi", USER_UID, USER_GID);
	if (hpu_test_daemon_start(&hpu_test_shared, ndev, "gaudi2", extra)) {
		hpu_test_stage_remove(&stage);
		return -1;
	}
	daemon_up = true;
	return 0;
}

static int stop_daemon(void **state)
{
	if (!daemon_up)
		return 0;
	daemon_up = false;
	hpu_test_stage_remove(&stage);
	return hpu_test_daemon_stop(&hpu_test_shared) ? -1 : 0;
}

static int group_setup_strict(void **state)
{
	const char *const extra[] = { "--group", node_gid_str,	   "--mode",
				      "0660",	 "--control-mode", "0660",
				      NULL };

	return start_daemon(2, extra);
}

static void test_strict_nodes_belong_to_group(void **state)
{
	char path[PATH_MAX];
	struct stat st;

	HPU_TEST_SKIP_IF(skip_reason);
	assert_node("hpu0", 0660, node_gid);
	assert_node("hpu_control1", 0660, node_gid);
	/* attributes stay readable by all, never writable */
	node_path(path, sizeof(path), "class/hpu0/pci_addr");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0444);
}

static void test_outsider_gets_eacces(void **state)
{
	HPU_TEST_SKIP_IF(skip_reason);
	assert_int_equal(open_as_user(-1, false), EACCES);
	assert_int_equal(open_as_user(-1, true), EACCES);
	/* the library's own text says what to do */
	assert_non_null(strstr(hpu_strerror(-EACCES), "group"));
}

static void test_outsider_hpu_smi_message(void **state)
{
	char want[PATH_MAX + 64], *out = NULL;
	struct group *gr = getgrgid(node_gid);
	const char *gname = gr ? gr->gr_name : node_gid_str;
	int status;

	HPU_TEST_SKIP_IF(skip_reason);
	status = smi_as_user(-1, "-L", &out);
	/* -L lists from the attribute tree: it works for everyone */
	assert_int_equal(status, 0);
	free(out);
	status = smi_as_user(-1, "-q", &out);
	printf("%s", out);
	assert_int_equal(status, 3);
	node_path(want, sizeof(want), "hpu_control0");
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "permission denied"));
	snprintf(want, sizeof(want), "not in group '%s'", gname);
	assert_non_null(strstr(out, want));
	snprintf(want, sizeof(want), "usermod -aG %s ", gname);
	assert_non_null(strstr(out, want));
	free(out);
}

static void test_member_gets_in(void **state)
{
	char *out = NULL;

	HPU_TEST_SKIP_IF(skip_reason);
	assert_int_equal(open_as_user((long)node_gid, false), 0);
	assert_int_equal(open_as_user((long)node_gid, true), 0);
	assert_int_equal(smi_as_user((long)node_gid, "-q", &out), 0);
	assert_null(strstr(out, "permission denied"));
	free(out);
}

/* ------------------------------------------------ defaults */

static int group_setup_default(void **state)
{
	return start_daemon(1, NULL);
}

static void test_default_modes(void **state)
{
	char *out = NULL;

	HPU_TEST_SKIP_IF(skip_reason);
	assert_node("hpu0", 0660, getegid());
	assert_node("hpu_control0", 0664, getegid());
	/* monitoring works for everyone, computing does not */
	assert_int_equal(open_as_user(-1, true), 0);
	assert_int_equal(open_as_user(-1, false), EACCES);
	assert_int_equal(smi_as_user(-1, "-q", &out), 0);
	free(out);
}

/* ------------------------------------------------ a private checkout */

/*
 * A build tree in a private directory (mode 0700, as `mktemp -d` or a home
 * directory gives): the user cannot run its programs (exec or the loader
 * fails, exit 126/127), but can run what hpu_test_stage_create() copied
 * from it. The private tree is itself a stage made private, with the
 * layout of $O (bin/, lib/).
 */
static void test_private_build_dir(void **state)
{
	const char *const progs[] = { "hpu-smi", NULL };
	struct hpu_test_stage priv = { "" }, reach = { "" };
	char saved_o[PATH_MAX], made[sizeof(reach.dir)], *out = NULL;
	const char *why, *o = getenv("O");
	struct stat st;
	int status;

	if (geteuid()) {
		print_message("skipped: not root: cannot switch users\n");
		skip();
	}
	snprintf(saved_o, sizeof(saved_o), "%s", o && *o ? o : "build");
	assert_int_equal(hpu_test_stage_create(&priv, progs), 0);
	assert_int_equal(chmod(priv.dir, 0700), 0);
	status = run_as_user(-1, hpu_test_stage_bin(&priv, "hpu-smi"),
			     "--version", &out);
	free(out);
	if (status != EXIT_NO_RUN) {
		hpu_test_stage_remove(&priv);
		fail_msg("uid %d ran a program of a private directory: exit %d",
			 USER_UID, status);
	}

	setenv("O", priv.dir, 1);
	status = hpu_test_stage_create(&reach, progs);
	setenv("O", saved_o, 1);
	hpu_test_stage_remove(&priv);
	assert_int_equal(status, 0);
	assert_int_equal(stat(reach.dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	snprintf(made, sizeof(made), "%s", reach.dir);
	why = hpu_test_stage_usable(&reach, "hpu-smi", USER_UID, USER_GID);
	if (why) {
		hpu_test_stage_remove(&reach);
		print_message("skipped: %s\n", why);
		skip();
	}
	status = run_as_user(-1, hpu_test_stage_bin(&reach, "hpu-smi"),
			     "--version", &out);
	hpu_test_stage_remove(&reach);
	/* and nothing is left behind */
	assert_int_equal(stat(made, &st), -1);
	assert_int_equal(errno, ENOENT);
	if (status != 0 || !strstr(out, "hpu-smi "))
		fail_msg("staged hpu-smi --version as uid %d: exit %d: %s",
			 USER_UID, status, out);
	free(out);
}

/* ------------------------------------------------ refused options */

static void test_refused_modes(void **state)
{
	static const char *const bad[][2] = {
		{ "--mode", "0666" },
		{ "--mode", "0664" },
		{ "--mode", "0661" },
		{ "--mode", "4660" },
		{ "--mode", "0668" },
		{ "--mode", "rw" },
		{ "--control-mode", "0666" },
		{ "--control-mode", "0665" },
		{ "--group", "no-such-group-hpu" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *const argv[] = { (char *)hpu_test_bin("hpu-fused"),
				       (char *)bad[i][0],
				       (char *)bad[i][1],
				       "--mount",
				       "/nonexistent/hpu",
				       NULL };

		hpu_test_run_refused(argv, NULL);
	}
}

int main(void)
{
	const struct CMUnitTest strict[] = {
		/* the tests skip themselves: cmocka counts a skip in a
		 * setup function as an error */
		cmocka_unit_test(test_strict_nodes_belong_to_group),
		cmocka_unit_test(test_outsider_gets_eacces),
		cmocka_unit_test(test_outsider_hpu_smi_message),
		cmocka_unit_test(test_member_gets_in),
	};
	const struct CMUnitTest defaults[] = {
		cmocka_unit_test(test_default_modes),
	};
	const struct CMUnitTest options[] = {
		cmocka_unit_test(test_refused_modes),
		cmocka_unit_test(test_private_build_dir),
	};
	struct group *gr = getgrnam("hpu");
	int fails;

	/* the real group when the machine has one, else an unused gid */
	node_gid = gr ? gr->gr_gid : 4243;
	snprintf(node_gid_str, sizeof(node_gid_str), "%u",
		 (unsigned int)node_gid);
	fails = cmocka_run_group_tests_name("strict", strict,
					    group_setup_strict, stop_daemon);
	fails += cmocka_run_group_tests_name("defaults", defaults,
					     group_setup_default, stop_daemon);
	fails += cmocka_run_group_tests_name("options", options, NULL, NULL);
	return fails;
}

// SPDX-License-Identifier: MIT
/*
 * test_train_cli_servers.c - hpu-train across two servers in network
 * namespaces (2 devices each, --num-nodes 2, NODE_RANK 0/1): the result
 * matches one device with the same global batch.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../lib/hpu_test_ccl.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_netns.h"
#include "../lib/hpu_test_proc.h"
#include "../lib/hpu_test_util.h"
#include "../lib/hpu_test_train_cli.h"

#define SERVERS	       2
#define DEV_PER_SERVER 2
#define NETNS_PORT     "29543" /* the namespaces are new: always free */

#define SKIP_IF(reason) HPU_TEST_SKIP_IF(reason)

static struct {
	struct hpu_test_servers srv;
	const char *skip_reason;
} S;

static int servers_setup(void **state)
{
	(void)state;
	S.skip_reason = hpu_test_servers_unavailable();
	if (S.skip_reason)
		return 0;
	if (hpu_test_servers_start(&S.srv, DEV_PER_SERVER, "gaudi2"))
		return -1;
	S.skip_reason = hpu_test_ccl_unavailable();
	return 0;
}

static int servers_teardown(void **state)
{
	(void)state;
	return hpu_test_servers_stop(&S.srv);
}

/* one node's launcher, in namespace @node, output in @log */
static pid_t start_node(int node, const char *log)
{
	const char *args[] = { "--accelerator",
			       "hpu",
			       "--devices",
			       "2",
			       "--num-nodes",
			       "2",
			       "--batch-size",
			       "16",
			       "--max-steps",
			       "40",
			       "--seed",
			       "7",
			       "--progress-bar",
			       "plain",
			       NULL };
	char rank[32], dev[PATH_MAX + 16], master[48];
	const char *env[] = { rank,	      dev,
			      master,	      "MASTER_PORT=" NETNS_PORT,
			      "WORLD_SIZE=4", NULL };
	char **argv, **envp;
	pid_t pid;
	int fd;

	snprintf(rank, sizeof(rank), "NODE_RANK=%d", node);
	snprintf(dev, sizeof(dev), "HPU_DEV_DIR=%s", S.srv.d[node].mount);
	snprintf(master, sizeof(master), "MASTER_ADDR=%s", S.srv.ns.addr[0]);
	argv = hpu_test_train_argv(args);
	envp = hpu_test_train_env(env);
	pid = hpu_test_netns_fork(&S.srv.ns, node);
	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			_exit(126);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	free(argv);
	free(envp);
	return pid;
}

static char *slurp(const char *path)
{
	char *buf = calloc(1, 1 << 20);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_non_null(buf);
	if (fd >= 0) {
		n = read(fd, buf, (1 << 20) - 1);
		if (n > 0)
			buf[n] = '\0';
		close(fd);
	}
	return buf;
}

static void test_two_servers_match_one_device(void **state)
{
	char logs[SERVERS][64], *out[SERVERS];
	const char *dev0[] = { NULL, NULL };
	char devenv[PATH_MAX + 16];
	double l1, a1, l4, a4;
	pid_t pids[SERVERS];
	int status[SERVERS], i;
	struct hpu_test_train_run r1;

	(void)state;
	SKIP_IF(S.skip_reason);
	for (i = 0; i < SERVERS; i++) {
		snprintf(logs[i], sizeof(logs[i]), "/tmp/test_train_cli.%d.%d",
			 (int)getpid(), i);
		pids[i] = start_node(i, logs[i]);
		assert_true(pids[i] > 0);
	}
	assert_int_equal(hpu_test_wait_ranks(pids, SERVERS,
					     HPU_TEST_TRAIN_RUN_MS, status,
					     NULL),
			 0);
	for (i = 0; i < SERVERS; i++) {
		out[i] = slurp(logs[i]);
		unlink(logs[i]);
		if (status[i])
			print_message("node %d: status %d\n%s\n", i, status[i],
				      out[i]);
	}
	for (i = 0; i < SERVERS; i++)
		assert_int_equal(status[i], 0);
	/* node 0 hosts rank 0, which prints the summary */
	l4 = hpu_test_train_number(out[0], "final loss ");
	a4 = hpu_test_train_number(out[0], "test accuracy ");
	assert_null(strstr(out[1], "final loss"));
	assert_non_null(strstr(out[1], "global ranks 2..3 of 4"));

	/* one device with the same global batch: 4 ranks x 16 */
	snprintf(devenv, sizeof(devenv), "HPU_DEV_DIR=%s", S.srv.d[0].mount);
	dev0[0] = devenv;
	hpu_test_train_short("1", "64", dev0, &l1, &a1, &r1);
	hpu_test_train_assert_close(
		l4, l1, "final loss, 2 servers x 2 ranks vs 1 device");
	assert_true(fabs(a4 - a1) <= 0.6);
	hpu_test_train_run_free(&r1);
	for (i = 0; i < SERVERS; i++)
		free(out[i]);
}

int main(void)
{
	const struct CMUnitTest two_servers[] = {
		cmocka_unit_test(test_two_servers_match_one_device),
	};

	unsetenv("HPU_VISIBLE_DEVICES");
	return cmocka_run_group_tests_name("train_cli_servers", two_servers,
					   servers_setup, servers_teardown);
}

// SPDX-License-Identifier: MIT
/*
 * test_nic_pd.c - isolation of the NICs and of fault injection against
 * the real hpu-fused (issue 14, docs/nic.md "Protection domains",
 * docs/abi.md "DEBUG ops"):
 *  - a process that knows (or guesses) another process's key but whose
 *    connection that process never accepted writes nothing: its CS is
 *    aborted and both sides get HPU_EVENT_NIC_ACCESS_ERR;
 *  - a write over a connection the owner accepted lands;
 *  - keys are 64-bit and never come back after a deregistration;
 *  - INJECT_FAULT and CLEAR_FAULTS: root and the owner may, a user with
 *    group access to the node who is neither gets -EPERM (children switch
 *    user with setgroups/setgid/setuid: the test needs root for that part).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_nic.h"
#include "../lib/hpu_test_util.h"
#include "hpudrv.h"

#define SPAN	 (64 * 1024)
/* sync object the writes signal */
#define RX_SOB	 7
/* the unprivileged user of the children ("nobody" on Debian) */
#define USER_UID 65534
#define USER_GID 65534
/* bound on a child's life */
#define CHILD_MS 30000

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(2, "gaudi2");
}

static int setup(void **state)
{
	return hpu_test_need_daemon(state);
}

/* Open device @index as @s: SPAN bytes of @fill in its host memory */
static void side_open(struct hpu_test_nic_side *s, int index, uint8_t fill)
{
	hpu_test_nic_side_open(s, index, SPAN, false);
	memset(s->host, fill, SPAN);
	hpu_test_nic_drain_events(s->dev);
}

/* Wait (bounded) for a NIC_ACCESS_ERR naming @key on @dev; 0 when it came */
static int wait_access_err(struct hpu_device *dev, uint64_t key)
{
	return hpu_test_nic_wait_event(dev, HPU_EVENT_NIC_ACCESS_ERR, &key,
				       NULL);
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	size_t i;

	for (i = 0; i < n && p[i] == v; i++)
		;
	return i == n;
}

/*
 * The attack of issue 14: B (on hpu1) registered memory; an unrelated
 * process E (on hpu0) connects to hpu1 on its own and writes with B's key,
 * then with guessed ones. B never accepted E's connection: nothing lands,
 * E's CSs are aborted, E and B get NIC_ACCESS_ERR.
 */
static void test_unaccepted_write_refused(void **state)
{
	struct hpu_test_nic_side b, e;
	uint64_t key, token, guess;
	uint32_t mr, conn, port;
	int i;

	(void)state;
	side_open(&b, 1, 0xee);
	side_open(&e, 0, 0x5a);
	assert_int_equal(hpu_nic_register(b.dev, b.host_va, SPAN, &mr, &key),
			 0);
	/* 64 bits: not a small counter value */
	assert_true(key >> 32 != 0 || key > 0xffffff);
	port = hpu_test_nic_connect(&e, 1, &conn, &token);

	/* the owner's very key, over a connection the owner did not accept */
	assert_int_equal(hpu_test_nic_write_key(&e, port, conn, key, 4096,
						RX_SOB),
			 HPU_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(wait_access_err(e.dev, key), 0);
	assert_int_equal(wait_access_err(b.dev, key), 0);

	/* guessed keys: the first ones ABI 1.0 gave out, then random ones */
	for (i = 0; i < 8; i++) {
		if (i < 4)
			guess = (uint64_t)i + 1;
		else
			assert_int_equal(getrandom(&guess, sizeof(guess), 0),
					 sizeof(guess));
		assert_int_equal(hpu_test_nic_write_key(&e, port, conn, guess,
							64, RX_SOB),
				 HPU_WAIT_CS_STATUS_ABORTED);
		assert_int_equal(wait_access_err(e.dev, guess), 0);
		/* nobody owns it, nobody accepted: the device's contexts */
		assert_int_equal(wait_access_err(b.dev, guess), 0);
	}
	assert_true(all_bytes(b.host, SPAN, 0xee));

	assert_int_equal(hpu_nic_dereg_mr(b.dev, mr), 0);
	assert_int_equal(hpu_nic_disconnect(e.dev, conn), 0);
	hpu_test_nic_side_close(&e);
	hpu_test_nic_side_close(&b);
}

/* The same writer, once the owner accepted its connection, writes */
static void test_accepted_write_lands(void **state)
{
	struct hpu_test_nic_side b, a;
	uint64_t key, token;
	uint32_t mr, conn, port, id;

	(void)state;
	side_open(&b, 1, 0);
	side_open(&a, 0, 0x3c);
	assert_int_equal(hpu_nic_register(b.dev, b.host_va, SPAN, &mr, &key),
			 0);
	port = hpu_test_nic_connect(&a, 1, &conn, &token);
	assert_int_equal(hpu_nic_accept(b.dev, token, &id), 0);
	assert_true(id != 0);
	/* twice from the same context, and from another one: refused */
	{
		struct hpu_device *other;
		uint32_t id2;

		assert_int_equal(hpu_nic_accept(b.dev, token, &id2), -EEXIST);
		assert_int_equal(hpu_open(1, &other), 0);
		assert_int_equal(hpu_nic_accept(other, token, &id2), -EBUSY);
		hpu_close(other);
	}
	assert_int_equal(hpu_test_nic_write_key(&a, port, conn, key, 8192,
						RX_SOB),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(b.host, a.host, 8192);
	assert_int_equal(b.host[8192], 0);

	/* the owner withdraws the acceptance: the next write is refused */
	assert_int_equal(hpu_nic_disconnect(b.dev, id), 0);
	memset(a.host, 0x77, 16);
	assert_int_equal(hpu_test_nic_write_key(&a, port, conn, key, 16,
						RX_SOB),
			 HPU_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(wait_access_err(a.dev, key), 0);
	assert_int_equal(wait_access_err(b.dev, key), 0);
	assert_int_equal(b.host[0], 0x3c);

	assert_int_equal(hpu_nic_dereg_mr(b.dev, mr), 0);
	hpu_test_nic_side_close(&a);
	hpu_test_nic_side_close(&b);
}

/* A key is never handed out again, even after its region was revoked */
static void test_keys_never_reused(void **state)
{
	enum {
		N = 512
	};
	uint64_t *keys = calloc(N, sizeof(*keys));
	struct hpu_test_nic_side b;
	uint32_t mr;
	int i, j;

	(void)state;
	assert_non_null(keys);
	side_open(&b, 1, 0);
	for (i = 0; i < N; i++) {
		assert_int_equal(hpu_nic_register(b.dev, b.host_va, 4096, &mr,
						  &keys[i]),
				 0);
		assert_true(keys[i] != 0);
		assert_int_equal(hpu_nic_dereg_mr(b.dev, mr), 0);
		assert_int_equal(hpu_nic_dereg_mr(b.dev, mr), -ENOENT);
	}
	for (i = 0; i < N; i++)
		for (j = i + 1; j < N; j++)
			assert_true(keys[i] != keys[j]);
	/* not a counter */
	for (i = 1; i < N; i++)
		assert_true(keys[i] != keys[i - 1] + 1);
	hpu_test_nic_side_close(&b);
	free(keys);
}

/* ----------------------------------------------------------- DEBUG */

/*
 * As USER_UID with the node's group as a supplementary group (so it may
 * open the 0660 compute node): INJECT_FAULT then CLEAR_FAULTS on device 0.
 * Exit status: 0 both worked, 1 both -EPERM, 2 other results, 100 could
 * not switch user, 101 could not open the node.
 */
static int debug_as_user(gid_t node_gid)
{
	int status, a, b;
	pid_t pid;

	pid = hpu_test_fork_child();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct hpu_device *dev;
		gid_t g = node_gid;

		if (setgroups(1, &g) || setgid(USER_GID) || setuid(USER_UID))
			_exit(100);
		if (hpu_open(0, &dev))
			_exit(101);
		a = hpu_debug_inject_fault(dev, HPU_FAULT_LINK_DOWN, 0, 0);
		b = hpu_debug_clear_faults(dev);
		hpu_close(dev);
		_exit(a == 0 && b == 0		 ? 0 :
		      a == -EPERM && b == -EPERM ? 1 :
						   2);
	}
	assert_int_equal(hpu_test_wait_child(pid, CHILD_MS, &status), 0);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_debug_needs_root_or_owner(void **state)
{
	struct hpu_info_nic info;
	struct hpu_device *dev;
	char node[PATH_MAX + 8];
	struct stat st;
	int ret;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: switching to uid %d needs root\n",
			      USER_UID);
		skip();
	}
	snprintf(node, sizeof(node), "%s/hpu0", hpu_test_shared.mount);
	assert_int_equal(stat(node, &st), 0);
	/* the daemon runs as root: root is also the owner here */
	assert_int_equal(st.st_uid, 0);

	ret = debug_as_user(st.st_gid);
	assert_int_not_equal(ret, 100);
	if (ret == 101) {
		print_message("skipped: uid %d cannot reach %s\n", USER_UID,
			      node);
		skip();
	}
	/* a group member who is neither root nor the owner */
	assert_int_equal(ret, 1);
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(hpu_info_nic(dev, &info), 0);
	assert_true(info.ports_up_mask & 1);

	/* root (the owner): allowed */
	assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_LINK_DOWN, 0, 0),
			 0);
	assert_int_equal(hpu_info_nic(dev, &info), 0);
	assert_false(info.ports_up_mask & 1);
	/* the user cannot bring it back either */
	assert_int_equal(debug_as_user(st.st_gid), 1);
	assert_int_equal(hpu_info_nic(dev, &info), 0);
	assert_false(info.ports_up_mask & 1);
	assert_int_equal(hpu_debug_clear_faults(dev), 0);
	assert_int_equal(hpu_info_nic(dev, &info), 0);
	assert_true(info.ports_up_mask & 1);
	hpu_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_unaccepted_write_refused, setup),
		cmocka_unit_test_setup(test_accepted_write_lands, setup),
		cmocka_unit_test_setup(test_keys_never_reused, setup),
		cmocka_unit_test_setup(test_debug_needs_root_or_owner, setup),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}

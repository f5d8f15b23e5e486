/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_netns.h - two network namespaces joined by a veth pair, so a
 * test can run two "servers" (hpu-fused daemons, ranks) that reach each
 * other only over a network link, as two hosts would.
 *
 * The namespaces are named after the test's pid (unique per run); the
 * pair's addresses are the two hosts of a private /30 in 10.231.0.0/16.
 * Only the network is separated: the mount namespace is shared, so a
 * daemon's FUSE mount made inside one namespace is visible everywhere.
 */
#ifndef HPU_TEST_NETNS_H
#define HPU_TEST_NETNS_H

#include <stdbool.h>
#include <sys/types.h>

#include "hpu_test_daemon.h"

/**
 * struct hpu_test_netns - the two namespaces
 * @name: namespace names (as `ip netns` knows them)
 * @ifname: veth end inside each namespace
 * @addr: IPv4 address of each veth end, dotted quad
 * @made: which namespaces exist (cleanup deletes exactly these)
 * @veth_made: the veth pair exists (in the initial namespace until moved)
 */
struct hpu_test_netns {
	char name[2][32];
	char ifname[2][16];
	char addr[2][16];
	bool made[2];
	bool veth_made;
};

/**
 * hpu_test_netns_unavailable() - whether namespaces can be made here
 *
 * Checks for root and a working `ip netns` (adds and deletes a probe
 * namespace).
 *
 * Return: NULL when they can, else a reason to print with skip().
 */
const char *hpu_test_netns_unavailable(void);

/**
 * hpu_test_netns_setup() - create both namespaces, the veth pair with
 * its addresses, and bring up lo and the veths
 * @n: receives the description
 *
 * Namespaces left by earlier runs whose process is gone are deleted
 * first. On failure everything made so far is removed again.
 *
 * Return: 0 or -errno (the failing `ip` command is printed).
 */
int hpu_test_netns_setup(struct hpu_test_netns *n);

/**
 * hpu_test_netns_cleanup() - delete what hpu_test_netns_setup() made;
 * safe to call more than once and after a failed setup
 * @n: namespaces
 */
void hpu_test_netns_cleanup(struct hpu_test_netns *n);

/**
 * hpu_test_netns_enter() - move the calling thread into namespace @which
 * @n: namespaces
 * @which: 0 or 1
 * @saved: receives a descriptor of the namespace left, for
 *	hpu_test_netns_restore(); may be NULL (a forked child that stays)
 *
 * Children forked (and programs run) afterwards live in that namespace.
 *
 * Return: 0 or -errno.
 */
int hpu_test_netns_enter(const struct hpu_test_netns *n, int which, int *saved);

/**
 * hpu_test_netns_restore() - go back to the namespace saved by
 * hpu_test_netns_enter() and close the descriptor
 * @saved: descriptor
 *
 * Return: 0 or -errno.
 */
int hpu_test_netns_restore(int saved);

/**
 * hpu_test_netns_fork() - fork a child that runs inside namespace @which
 * @n: namespaces
 * @which: 0 or 1
 *
 * The child gets SIGKILL when the test process dies; when it cannot
 * enter the namespace it exits with status 127.
 *
 * Return: 0 in the child, its pid in the parent, -errno.
 */
pid_t hpu_test_netns_fork(const struct hpu_test_netns *n, int which);

/**
 * hpu_test_netns_run() - hpu_test_run() inside namespace @which
 * @n: namespaces
 * @which: 0 or 1
 * @argv: NULL-terminated argument vector, argv[0] a path
 * @out: receives a malloc'ed copy of stdout (may be NULL)
 * @status: receives the exit status
 *
 * Return: 0 or -errno.
 */
int hpu_test_netns_run(const struct hpu_test_netns *n, int which,
		       char *const argv[], char **out, int *status);

/**
 * struct hpu_test_servers - two "servers": one hpu-fused in each namespace
 * @ns: the namespaces
 * @d: the daemons, @d[i] in namespace i
 * @up: which daemons run (hpu_test_servers_stop() stops exactly these)
 */
struct hpu_test_servers {
	struct hpu_test_netns ns;
	struct hpu_test_daemon d[2];
	bool up[2];
};

/**
 * hpu_test_servers_unavailable() - whether two servers can run here
 *
 * Return: NULL when they can (FUSE works, namespaces can be made), else
 * a reason to print with skip().
 */
const char *hpu_test_servers_unavailable(void);

/**
 * hpu_test_servers_start() - make the namespaces and start in each a
 * daemon of @ndev devices of @type with a scale-out endpoint on that
 * namespace's veth address (an ephemeral port)
 * @s: receives the servers (zeroed first)
 * @ndev: devices per server
 * @type: --type of both daemons
 *
 * HPU_DEV_DIR is left at server 0's mount. On failure (printed) what was
 * started is stopped and the namespaces are deleted again.
 *
 * Return: 0 or -errno.
 */
int hpu_test_servers_start(struct hpu_test_servers *s, int ndev,
			   const char *type);

/**
 * hpu_test_servers_stop() - stop the daemons that run and delete the
 * namespaces; safe to call more than once
 * @s: servers
 *
 * Return: 0, or -1 when a daemon did not stop cleanly.
 */
int hpu_test_servers_stop(struct hpu_test_servers *s);

#endif /* HPU_TEST_NETNS_H */

// SPDX-License-Identifier: MIT
/*
 * test_ccl_servers.c - libhpuccl across two servers: two hpu-fused
 * daemons, each in a network namespace of its own with 2 Gaudi2 devices
 * and a scale-out endpoint on its veth address; four ranks (two per
 * namespace, each on a device of its namespace's daemon) form one
 * communicator through a store in namespace 0, then run allreduce (sum,
 * fp32 and int32) and allgather, every element checked exactly. The
 * devices' NIC counters and the servers' scale-out endpoints show the
 * data really crossed between the servers; the library's HPUCCL_DEBUG
 * lines show the allreduce ran the hierarchical schedule and the
 * allgather the ring, both zero copy.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../lib/hpu_test_ccl.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_netns.h"
#include "../lib/hpu_test_util.h"
#include "hpuccl.h"
#include "hpudrv.h"

#define NSERVERS	 2
#define DEV_PER_SERVER	 2
#define NRANKS		 (NSERVERS * DEV_PER_SERVER)
#define STORE_PORT	 "29517" /* the namespaces are new: always free */
#define COMM_TIMEOUT_MS	 10000
#define RANKS_TIMEOUT_MS 30000
/* odd on purpose: no collective gets a count that splits evenly */
#define COUNT		 100003
#define COUNT_STR	 "100003"

struct servers {
	struct hpu_test_servers srv;
	const char *skip_reason;
	const char *lib_reason;
};

static struct servers S;
/* directory of the ranks' stderr (HPUCCL_DEBUG lines) */
static char logdir[64];

/* what one rank process does */
struct rank_job {
	int rank;
	int server;
	int device;
};

/* exit statuses of a rank: which step went wrong */
enum {
	RANK_OK = 0,
	RANK_SETUP = 10,
	RANK_FP32 = 11,
	RANK_INT32 = 12,
	RANK_ALLGATHER = 13,
	RANK_WRONG = 20, /* + step: a result differs */
};

static float fp32_in(int r, size_t i)
{
	return (float)((int)(i % 1009) - 504 + 1000 * r);
}

static uint32_t int32_in(int r, size_t i)
{
	return (uint32_t)i * 2654435761U + (uint32_t)r * 40503U + 0x7fff0000U;
}

static int check_fp32(const float *got)
{
	size_t i;
	int r;

	for (i = 0; i < COUNT; i++) {
		float want = 0;

		for (r = 0; r < NRANKS; r++)
			want += fp32_in(r, i);
		if (got[i] != want) {
			fprintf(stderr, "fp32 sum [%zu]: %g, want %g\n", i,
				got[i], want);
			return -1;
		}
	}
	return 0;
}

static int check_int32(const uint32_t *got)
{
	size_t i;
	int r;

	for (i = 0; i < COUNT; i++) {
		uint32_t want = 0;

		for (r = 0; r < NRANKS; r++)
			want += int32_in(r, i); /* wraps, as int32 sums do */
		if (got[i] != want) {
			fprintf(stderr, "int32 sum [%zu]: %u, want %u\n", i,
				got[i], want);
			return -1;
		}
	}
	return 0;
}

static int check_allgather(const uint32_t *got)
{
	size_t i;
	int r;

	for (r = 0; r < NRANKS; r++)
		for (i = 0; i < COUNT; i++)
			if (got[(size_t)r * COUNT + i] != int32_in(r, i)) {
				fprintf(stderr,
					"allgather [%d][%zu]: %u, want %u\n", r,
					i, got[(size_t)r * COUNT + i],
					int32_in(r, i));
				return -1;
			}
	return 0;
}

/* one collective on @send/@recv, checked by @check; RANK_* status */
static int step(struct hpu_test_rank *tr, int which, uint64_t send,
		uint64_t recv, void *host, int (*check)(const void *))
{
	size_t bytes = COUNT * 4;
	int ret;

	if (which == RANK_FP32)
		ret = hpuccl_allreduce(send, recv, COUNT, HPUCCL_FLOAT32,
				       HPUCCL_SUM, tr->comm, tr->stream);
	else if (which == RANK_INT32)
		ret = hpuccl_allreduce(send, recv, COUNT, HPUCCL_INT32,
				       HPUCCL_SUM, tr->comm, tr->stream);
	else
		ret = hpuccl_allgather(send, recv, COUNT, HPUCCL_INT32,
				       tr->comm, tr->stream);
	if (which == RANK_ALLGATHER)
		bytes *= NRANKS;
	if (!ret)
		ret = hpu_test_rank_get(tr, host, recv, bytes);
	if (ret) {
		fprintf(stderr, "step %d: %s\n", which, hpuccl_strerror(ret));
		return which;
	}
	return check(host) ? RANK_WRONG + which : RANK_OK;
}

static int check_fp32_v(const void *p)
{
	return check_fp32(p);
}

static int check_int32_v(const void *p)
{
	return check_int32(p);
}

static int check_allgather_v(const void *p)
{
	return check_allgather(p);
}

static int rank_main(void *arg)
{
	const struct rank_job *j = arg;
	struct hpuccl_unique_id id;
	char path[128];
	int fd;
	struct hpu_test_rank tr;
	uint64_t send, recv;
	uint32_t *host;
	float *hf;
	size_t i;
	int ret;

	snprintf(path, sizeof(path), "%s/rank%d.log", logdir, j->rank);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || dup2(fd, 2) < 0)
		return RANK_SETUP;
	close(fd);
	setenv("HPUCCL_DEBUG", "1", 1);
	/* above the size of every collective here: zero copy across */
	setenv("HPUCCL_ZCOPY_BYTES", "262144", 1);
	setenv("HPU_DEV_DIR", S.srv.d[j->server].mount, 1);
	setenv("MASTER_ADDR", S.srv.ns.addr[0], 1);
	setenv("MASTER_PORT", STORE_PORT, 1);
	host = calloc((size_t)COUNT * NRANKS, 4);
	if (!host)
		return RANK_SETUP;
	hf = (float *)host;
	ret = hpuccl_unique_id_from_env(&id, j->rank);
	if (ret) {
		fprintf(stderr, "rank %d: unique id: %s\n", j->rank,
			hpuccl_strerror(ret));
		return RANK_SETUP;
	}
	if (hpu_test_rank_open(&tr, j->device))
		return RANK_SETUP;
	if (hpu_test_rank_join(&tr, NRANKS, j->rank, &id, COMM_TIMEOUT_MS) ||
	    hpu_test_rank_buf(&tr, (uint64_t)COUNT * 4, &send) ||
	    hpu_test_rank_buf(&tr, (uint64_t)COUNT * 4 * NRANKS, &recv)) {
		hpu_test_rank_close(&tr, 1);
		return RANK_SETUP;
	}

	for (i = 0; i < COUNT; i++)
		hf[i] = fp32_in(j->rank, i);
	ret = hpu_test_rank_put(&tr, send, hf, COUNT * 4) ? RANK_SETUP : 0;
	if (!ret)
		ret = step(&tr, RANK_FP32, send, recv, host, check_fp32_v);
	for (i = 0; !ret && i < COUNT; i++)
		host[i] = int32_in(j->rank, i);
	if (!ret)
		ret = hpu_test_rank_put(&tr, send, host, COUNT * 4) ?
			      RANK_SETUP :
			      0;
	if (!ret)
		ret = step(&tr, RANK_INT32, send, recv, host, check_int32_v);
	for (i = 0; !ret && i < COUNT; i++)
		host[i] = int32_in(j->rank, i);
	if (!ret)
		ret = hpu_test_rank_put(&tr, send, host, COUNT * 4) ?
			      RANK_SETUP :
			      0;
	if (!ret)
		ret = step(&tr, RANK_ALLGATHER, send, recv, host,
			   check_allgather_v);
	if (ret)
		fprintf(stderr, "rank %d (server %d, hpu%d): failed at %d\n",
			j->rank, j->server, j->device, ret);
	hpu_test_rank_close(&tr, ret != 0);
	free(host);
	return ret;
}

static int group_setup(void **state)
{
	(void)state;
	unsetenv("HPU_VISIBLE_DEVICES");
	unsetenv("HCCL_COMM_ID");
	S.skip_reason = hpu_test_servers_unavailable();
	if (S.skip_reason)
		return 0;
	if (hpu_test_servers_start(&S.srv, DEV_PER_SERVER, "gaudi2"))
		return -1;
	S.lib_reason = hpu_test_ccl_unavailable();
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	return hpu_test_servers_stop(&S.srv);
}

/* NIC answer of device @dev of server @server */
static void nic_info(int server, int dev, struct hpu_info_nic *nic)
{
	struct hpu_device *ctl;

	setenv("HPU_DEV_DIR", S.srv.d[server].mount, 1);
	assert_int_equal(hpu_open_control(dev, &ctl), 0);
	assert_int_equal(hpu_info_nic(ctl, nic), 0);
	hpu_close(ctl);
}

/* each daemon listens on its own namespace's veth address */
static void test_scaleout_endpoints(void **state)
{
	struct hpu_info_nic a, b;
	struct in_addr ia;

	(void)state;
	HPU_TEST_SKIP_IF(S.skip_reason);
	nic_info(0, 0, &a);
	nic_info(1, 0, &b);
	assert_int_not_equal(a.server_id, b.server_id);
	ia.s_addr = a.scaleout_ipv4;
	assert_string_equal(inet_ntoa(ia), S.srv.ns.addr[0]);
	ia.s_addr = b.scaleout_ipv4;
	assert_string_equal(inet_ntoa(ia), S.srv.ns.addr[1]);
	assert_int_not_equal(a.scaleout_port, 0);
	assert_int_not_equal(b.scaleout_port, 0);
}

/* what rank @r wrote on stderr (NUL-terminated, truncated to @cap) */
static void read_log(int r, char *buf, size_t cap)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/rank%d.log", logdir, r);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, cap - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
}

static void test_four_ranks_two_servers(void **state)
{
	struct rank_job jobs[NRANKS];
	uint64_t rx_before[NSERVERS][DEV_PER_SERVER];
	struct hpu_info_nic nic;
	pid_t pids[NRANKS];
	int status[NRANKS], r, s, d;

	(void)state;
	HPU_TEST_SKIP_IF(S.skip_reason);
	HPU_TEST_SKIP_IF(S.lib_reason);
	snprintf(logdir, sizeof(logdir), "/tmp/hpu-ccl-servers.XXXXXX");
	assert_non_null(mkdtemp(logdir));
	for (s = 0; s < NSERVERS; s++)
		for (d = 0; d < DEV_PER_SERVER; d++) {
			nic_info(s, d, &nic);
			rx_before[s][d] = nic.rx_bytes;
		}
	for (r = 0; r < NRANKS; r++) {
		jobs[r].rank = r;
		jobs[r].server = r / DEV_PER_SERVER;
		jobs[r].device = r % DEV_PER_SERVER;
		pids[r] = hpu_test_netns_fork(&S.srv.ns, jobs[r].server);
		if (pids[r] == 0)
			exit(rank_main(&jobs[r]));
		assert_true(pids[r] > 0);
	}
	assert_int_equal(hpu_test_wait_ranks(pids, NRANKS, RANKS_TIMEOUT_MS,
					     status, NULL),
			 0);
	for (r = 0; r < NRANKS; r++) {
		char log[8192] = "";

		read_log(r, log, sizeof(log));
		if (status[r])
			print_message("rank %d exited with %d:\n%s", r,
				      status[r], log);
		assert_int_equal(status[r], RANK_OK);
		/* which schedules ran */
		if (!strstr(log,
			    "allreduce count " COUNT_STR " algo hier zcopy") ||
		    !strstr(log,
			    "allgather count " COUNT_STR " algo ring zcopy"))
			print_message("rank %d log:\n%s", r, log);
		assert_non_null(strstr(log, "allreduce count " COUNT_STR
					    " algo hier zcopy"));
		assert_non_null(strstr(log, "allgather count " COUNT_STR
					    " algo ring zcopy"));
	}
	rmdir(logdir);
	/*
	 * every device received at least the other server's share of the
	 * allgather: 2 ranks x COUNT int32 from across the link
	 */
	for (s = 0; s < NSERVERS; s++)
		for (d = 0; d < DEV_PER_SERVER; d++) {
			nic_info(s, d, &nic);
			assert_true(nic.rx_bytes - rx_before[s][d] >=
				    (uint64_t)COUNT * 4 * DEV_PER_SERVER);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scaleout_endpoints),
		cmocka_unit_test(test_four_ranks_two_servers),
	};

	return cmocka_run_group_tests_name("ccl_servers", tests, group_setup,
					   group_teardown);
}

// SPDX-License-Identifier: MIT
/*
 * test_failure_walk.c - the failure path as an operator meets it, end to
 * end on the real hpu-fused with two simulated Gaudi2 devices and only
 * public behaviour (issue 17, "The failure path reaches operators"):
 *
 *   1. hpu-train trains on hpu1;
 *   2. a monitor injects a fatal error into hpu1 with
 *      hlml_device_err_inject(HLML_ERR_INJECT_FATAL_EVENT);
 *   3. its HLML event set, registered for critical errors of both
 *      devices, gets HLML_EVENT_CRITICAL_ERR for hpu1 (and none for hpu0);
 *   4. `hl-smi -q` shows hpu1's uncorrectable error;
 *   5. the training run ends non-zero with a message naming hpu1 by node
 *      and bus id;
 *   6. `hl-smi -r -i 1` resets hpu1 and it is operational again (hl-smi's
 *      status, HLML's performance state);
 *   7. a new training run acquires hpu1 and finishes.
 *
 * Whether the fault alone ends the run depends on the daemon: one that
 * escalates an uncorrectable error to "needs reset" fails the run's
 * submissions (5 before 6); one that only counts the error leaves the
 * device operational and the run going, and then the reset (6) is what
 * ends it, with the same message. The test reads hpu1's status after the
 * fault and walks the matching order, saying which one it took.
 *
 * And: a hard reset ends every process that submits through its
 * user-mode ring (RING_ROUNDS times; the walk's run hung once in 6 to 20
 * before the driver broke the ring of a context torn down early).
 * Every wait is bounded; nothing is timed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_proc.h"
#include "../lib/hpu_test_util.h"
#include "hlml.h"
#include "hpudrv.h"

#define NDEV	       2
/* the device the walk breaks; the other one must see nothing */
#define DEV	       1
/* bound of the wait for the critical event */
#define EVENT_BOUND_MS 30000
/* bound of a tool run (hl-smi) */
#define TOOL_MS	       30000
/* bound of the wait for the run to start training, and to end */
#define TRAIN_MS       120000
/* hard resets of a device a process submits to through its ring */
#define RING_ROUNDS    40
/* bound of the wait for such a process to see the reset */
#define RING_END_MS    20000

/**
 * struct walk - what the teardown cleans up, whatever failed
 * @train: the long training run (pid 0 when none runs)
 * @dir: directory of the hl-smi link
 * @hlsmi: the link: hpu-smi invoked as hl-smi, as the compat install has it
 */
static struct walk {
	struct hpu_test_proc train;
	char dir[64];
	char hlsmi[128];
} w;

static int group_setup(void **state)
{
	char bin[PATH_MAX];

	(void)state;
	unsetenv("HPU_VISIBLE_DEVICES");
	unsetenv("HABANA_VISIBLE_DEVICES");
	unsetenv("HABANA_VISIBLE_MODULES");
	unsetenv("HPU_RING");
	if (hpu_test_group_start(NDEV, "gaudi2"))
		return -1;
	if (!realpath(hpu_test_bin("hpu-smi"), bin))
		return -1;
	strcpy(w.dir, "/tmp/test_failure_walk-XXXXXX");
	if (!mkdtemp(w.dir))
		return -1;
	snprintf(w.hlsmi, sizeof(w.hlsmi), "%s/hl-smi", w.dir);
	return symlink(bin, w.hlsmi) ? -1 : 0;
}

static int group_teardown(void **state)
{
	if (w.train.pid > 0) {
		kill(w.train.pid, SIGKILL);
		hpu_test_proc_finish(&w.train, 1000);
		hpu_test_proc_free(&w.train);
	}
	if (w.hlsmi[0])
		unlink(w.hlsmi);
	if (w.dir[0])
		rmdir(w.dir);
	return hpu_test_group_stop(state);
}

/* hl-smi with up to 8 arguments; stdout and stderr apart in @p */
static void hlsmi(struct hpu_test_proc *p, ...)
{
	struct hpu_test_proc_opts o = { .stderr_mode =
						HPU_TEST_STDERR_CAPTURE };
	char *argv[10];
	va_list ap;
	int argc = 0;

	argv[argc++] = w.hlsmi;
	va_start(ap, p);
	while (argc < 9 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	assert_int_equal(hpu_test_proc_run(p, argv, &o, TOOL_MS), 0);
}

/* hl-smi's status of device DEV ("operational", "needs reset", ...) */
static void dev_status(char *buf, size_t len)
{
	struct hpu_test_proc p;
	const char *v;

	hlsmi(&p, "-i", "1", "--query-aip=index,status",
	      "--format=csv,noheader", NULL);
	if (p.status)
		fail_msg("hl-smi -Q status exited %d: %s", p.status, p.err);
	/* "1, operational\n" */
	v = strstr(p.out, ", ");
	assert_non_null(v);
	v += 2;
	snprintf(buf, len, "%.*s", (int)strcspn(v, "\n"), v);
	hpu_test_proc_free(&p);
}

/*
 * The value of key @key in the device block of `hl-smi -q` output,
 * e.g. "Volatile Uncorrected" (hl-smi's "key : value" lines)
 */
static long q_value(const char *out, const char *key)
{
	const char *l = strstr(out, key);

	if (!l)
		fail_msg("hl-smi -q has no '%s':\n%s", key, out);
	l = strchr(l, ':');
	assert_non_null(l);
	return strtol(l + 1, NULL, 10);
}

/* hpu-train on device DEV: its environment with only hpu1 visible */
static void train_start(struct hpu_test_proc *p, const char *const *args)
{
	extern char **environ;
	struct hpu_test_proc_opts o = { .stderr_mode =
						HPU_TEST_STDERR_CAPTURE };
	char *argv[24], **envp;
	size_t n = 0, i, k = 0;

	while (environ[n])
		n++;
	envp = calloc(n + 2, sizeof(*envp));
	assert_non_null(envp);
	for (i = 0; i < n; i++) /* no cluster variables: one process */
		if (strncmp(environ[i], "RANK=", 5) &&
		    strncmp(environ[i], "WORLD_SIZE=", 11) &&
		    strncmp(environ[i], "LOCAL_RANK=", 11) &&
		    strncmp(environ[i], "SLURM_", 6) &&
		    strncmp(environ[i], "OMPI_", 5) &&
		    strncmp(environ[i], "HPU_TRAIN_", 10))
			envp[k++] = environ[i];
	envp[k++] = "HPU_VISIBLE_DEVICES=1";
	o.envp = envp;
	argv[0] = (char *)hpu_test_bin("hpu-train");
	for (i = 0; args[i] && i < 22; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	assert_int_equal(hpu_test_proc_start(p, argv, &o), 0);
	free(envp);
}

/* Print a training run that did not do what the walk expects */
static void train_dump(const char *what, const struct hpu_test_proc *p)
{
	fprintf(stderr,
		"--- %s: status %d%s after %ld ms\n--- stdout:\n%s\n"
		"--- stderr:\n%s\n---\n",
		what, p->status, p->killed ? " (killed)" : "", p->ms, p->out,
		p->err);
}

/* The walk's long run has trained an epoch on hpu1 and still runs */
static void train_until_running(void)
{
	static const char *const args[] = {
		"--devices",	  "1",		 "--max-epochs",
		"1000000",	  "--max-steps", "1000000000",
		"--progress-bar", "plain",	 "--log-every-n-steps",
		"100000",	  NULL,
	};
	long end = hpu_test_now_ms() + TRAIN_MS;

	train_start(&w.train, args);
	while (!strstr(w.train.out, "epoch 0:")) {
		if (!hpu_test_proc_read(&w.train, 200) ||
		    hpu_test_now_ms() > end) {
			hpu_test_proc_finish(&w.train, 1000);
			train_dump("the run did not start training", &w.train);
			fail();
		}
	}
}

/* The long run ends on its own: non-zero, with hpu1 named on stderr */
static void train_ends_naming(const char *name)
{
	int st = hpu_test_proc_finish(&w.train, TRAIN_MS);

	w.train.pid = 0;
	if (st == 0 || w.train.killed || !strstr(w.train.err, name) ||
	    !strstr(w.train.err, "hpu-train: "))
		train_dump("the run did not fail naming the device", &w.train);
	assert_false(w.train.killed);
	assert_int_equal(st, 1);
	assert_non_null(strstr(w.train.err, "hpu-train: "));
	assert_non_null(strstr(w.train.err, name));
	print_message("the run ended: %s", w.train.err);
	hpu_test_proc_free(&w.train);
}

/* `hl-smi -r -i 1`: a hard reset of hpu1, done */
static void reset_dev(void)
{
	struct hpu_test_proc p;

	hlsmi(&p, "-r", "-i", "1", NULL);
	if (p.status || !strstr(p.out, "hard reset done"))
		fail_msg("hl-smi -r -i 1 exited %d:\n%s%s", p.status, p.out,
			 p.err);
	hpu_test_proc_free(&p);
}

/* The next event of @set within the bound; fails when none comes */
static void next_event(hlml_event_set_t set, hlml_event_data_t *ev)
{
	long end = hpu_test_now_ms() + EVENT_BOUND_MS;
	hlml_return_t r;

	do {
		memset(ev, 0, sizeof(*ev));
		r = hlml_event_set_wait(set, ev, 500);
		if (r == HLML_SUCCESS)
			return;
		assert_int_equal(r, HLML_ERROR_TIMEOUT);
	} while (hpu_test_now_ms() < end);
	fail_msg("no HLML event within %d ms", EVENT_BOUND_MS);
}

static void test_failure_walk(void **state)
{
	static const char *const again[] = {
		"--devices", "1", "--max-steps", "40", "--seed", "7", NULL
	};
	hlml_device_t h[NDEV];
	hlml_pci_info_t pci;
	hlml_event_set_t set;
	hlml_event_data_t ev;
	hlml_p_states_t ps;
	struct hpu_test_proc p, rerun;
	char name[64], status[64];
	unsigned int i;

	(void)state;
	/* a monitor watches both devices for critical errors */
	assert_int_equal(hlml_init(), HLML_SUCCESS);
	for (i = 0; i < NDEV; i++)
		assert_int_equal(hlml_device_get_handle_by_index(i, &h[i]),
				 HLML_SUCCESS);
	assert_int_equal(hlml_device_get_pci_info(h[DEV], &pci), HLML_SUCCESS);
	snprintf(name, sizeof(name), "hpu%d (%s)", DEV, pci.bus_id);
	assert_int_equal(hlml_event_set_create(&set), HLML_SUCCESS);
	for (i = 0; i < NDEV; i++)
		assert_int_equal(hlml_device_register_events(
					 h[i], HLML_EVENT_CRITICAL_ERR, set),
				 HLML_SUCCESS);

	/* 1. training on hpu1, which is operational */
	train_until_running();
	assert_int_equal(hlml_device_get_performance_state(h[DEV], &ps),
			 HLML_SUCCESS);
	assert_int_equal(ps, HLML_PSTATE_0);

	/* 2. the fault, through the public API */
	assert_int_equal(hlml_device_err_inject(h[DEV],
						HLML_ERR_INJECT_FATAL_EVENT),
			 HLML_SUCCESS);

	/* 3. the monitor hears of it, for hpu1 */
	next_event(set, &ev);
	assert_ptr_equal(ev.device, h[DEV]);
	assert_int_equal(ev.event_type, HLML_EVENT_CRITICAL_ERR);

	/* 4. hl-smi -q shows the error on hpu1 */
	hlsmi(&p, "-q", "-i", "1", NULL);
	if (p.status)
		fail_msg("hl-smi -q exited %d: %s", p.status, p.err);
	assert_non_null(strstr(p.out, pci.bus_id));
	assert_true(q_value(p.out, "Volatile Uncorrected") >= 1);
	assert_true(q_value(p.out, "Aggregate Uncorrected") >= 1);
	hpu_test_proc_free(&p);

	/* 5. and 6., in the order the daemon's handling of the fault gives */
	dev_status(status, sizeof(status));
	if (strcmp(status, "operational")) {
		print_message("hpu1 is '%s' after the fault: the run fails, "
			      "then the reset\n",
			      status);
		train_ends_naming(name);
		dev_status(status, sizeof(status));
		assert_string_not_equal(status, "operational");
		reset_dev();
	} else {
		print_message("hpu-fused keeps hpu1 operational after an "
			      "uncorrectable ECC error (no escalation to "
			      "'needs reset'): the reset ends the run\n");
		reset_dev();
		train_ends_naming(name);
	}
	dev_status(status, sizeof(status));
	assert_string_equal(status, "operational");
	assert_int_equal(hlml_device_get_performance_state(h[DEV], &ps),
			 HLML_SUCCESS);
	assert_int_equal(ps, HLML_PSTATE_0);

	/* 7. a new run acquires hpu1 and finishes */
	train_start(&rerun, again);
	if (hpu_test_proc_finish(&rerun, TRAIN_MS) ||
	    !strstr(rerun.out, "final loss"))
		train_dump("the run after the reset", &rerun);
	assert_int_equal(rerun.status, 0);
	assert_non_null(strstr(rerun.out, "final loss"));
	hpu_test_proc_free(&rerun);

	/* hpu0 had nothing to report through the whole walk */
	while (hlml_event_set_wait(set, &ev, 0) == HLML_SUCCESS)
		assert_ptr_equal(ev.device, h[DEV]);
	assert_int_equal(hlml_event_set_free(set), HLML_SUCCESS);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
}

/*
 * The child of test_reset_ends_ring_submitter(): NOP CSs on hpu1 through
 * libhpudrv (its user-mode ring) until one fails, a byte on @ready after
 * the first; exit 0 when the failure is the reset's -EIO
 */
static void ring_submitter(int ready)
{
	struct hpu_cb_builder *b;
	struct hpu_device *dev;
	bool told = false;
	uint64_t seq;
	int ret;

	if (hpu_open(DEV, &dev) || hpu_cb_builder_create(dev, 4096, &b))
		_exit(10);
	for (;;) {
		if (hpu_cb_nop(b))
			_exit(11);
		ret = hpu_cb_builder_submit(b, 0, 0, 0, &seq, NULL);
		hpu_cb_builder_reset(b);
		if (ret == -EAGAIN)
			continue;
		if (ret)
			_exit(ret == -EIO ? 0 : 12);
		if (!told && write(ready, "r", 1) == 1)
			told = true;
	}
}

/*
 * A hard reset ends a process that submits through its user-mode ring
 * (it took 1 run in 6 to 20 of the walk: the consumer's last call on the
 * killed context tore the ring down before the reset broke it, and the
 * process waited for a take that never came). Every round: such a
 * process on hpu1, `hpu_device_reset()` on the control node, the process
 * ends with -EIO within a bound.
 */
static void test_reset_ends_ring_submitter(void **state)
{
	struct hpu_device *ctl;
	int round, fd[2], st;
	pid_t pid;
	char c;

	(void)state;
	assert_int_equal(hpu_open_control(DEV, &ctl), 0);
	for (round = 0; round < RING_ROUNDS; round++) {
		struct pollfd p;

		assert_int_equal(pipe(fd), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (!pid) {
			close(fd[0]);
			ring_submitter(fd[1]);
		}
		close(fd[1]);
		p = (struct pollfd){ .fd = fd[0], .events = POLLIN };
		if (poll(&p, 1, RING_END_MS) != 1 || read(fd[0], &c, 1) != 1) {
			hpu_test_kill_child(pid, &st);
			fail_msg("round %d: the submitter did not start (%d)",
				 round, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		}
		close(fd[0]);
		assert_int_equal(hpu_device_reset(ctl, HPU_RESET_HARD), 0);
		if (hpu_test_wait_child(pid, RING_END_MS, &st)) {
			hpu_test_kill_child(pid, &st);
			fail_msg("round %d: the submitter still runs %d ms "
				 "after the hard reset",
				 round, RING_END_MS);
		}
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	hpu_close(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_failure_walk, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_reset_ends_ring_submitter,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

// SPDX-License-Identifier: MIT
/*
 * test_failure_walk.c - the failure path as an operator meets it, end to
 * end on the real hpu-fused with two simulated Gaudi2 devices and only
 * public behaviour (issue 17, "The failure path reaches operators"): for
 * every fault kind, one case that injects it while hpu-train trains and
 * walks it through
 *
 *   the HLML event a monitor gets (its set registered for critical
 *   errors of both devices) -> what `hl-smi -q` / `-n link` shows -> the
 *   training run ends non-zero with a message naming the device -> the
 *   device is reset (or its link brought back) -> a new run acquires it
 *   and finishes.
 *
 * The cases (docs/hlml.md, "Fault injection", "Tests"):
 *   ECC error    HLML FATAL_EVENT: CRITICAL_ERR, -q "needs reset" and
 *                the uncorrected count, the run fails, hl-smi -r;
 *   lost device  HLML LOSS_OF_HEARTBEAT: CRITICAL_ERR, -q "malfunction",
 *                the run fails, hl-smi -r;
 *   CS timeout   HLML ENDLESS_COMMAND on a daemon with --reset-on-lockup:
 *                the run's CS never ends, its timeout (hpu-train's
 *                --cs-timeout, HPU_WALK_CS_TIMEOUT_S) and the hard reset
 *                after it are the CRITICAL_ERR
 *                and end the run; hpu-smi -q counts the timed-out CS;
 *   port down    DEBUG LINK_DOWN of hpu0's ports to hpu1 under a 2-device
 *                data-parallel run: -n link and -q show them DOWN (HLML
 *                has no event for a link), the run fails with the link,
 *                CLEAR_FAULTS brings them back, a new 2-device run.
 *   page fault   DEBUG PAGE_FAULT on a DMA engine of DEV (the daemon's
 *                faults are not fatal here): no HLML event (a page
 *                fault is none; checked), the run fails naming the
 *                device, the device stays operational, a new run
 *                finishes without a reset (--fatal-page-faults, where
 *                it needs one, is test_ctrl_events');
 *   thermal      HLML THERMAL_EVENT: the clock is throttled (HLML
 *                CLOCK_RATE, every SOC clock sample below the maximum,
 *                the THERMAL throttle reason, hl-smi -q "Thermal"
 *                "Active" and the AIP temperature over the slowdown
 *                one), the run goes on; CLEAR_FAULTS: the clock reaches
 *                its maximum again, the reason goes.
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
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_proc.h"
#include "../lib/hpu_test_util.h"
#include "../lib/hpu_test_walk.h"
#include "hlml.h"
#include "hpudrv.h"

#define NDEV	       2
/* the device the walk breaks (the port-down case: hpu0's links to it) */
#define DEV	       1
/* bound of the wait for an HLML event */
#define EVENT_BOUND_MS 30000
/*
 * bound of the wait for the CS-timeout case's event: the walk's run
 * submits with hpu-train --cs-timeout HPU_WALK_CS_TIMEOUT_S, and a hung CS
 * of it ends only then (the daemon's --cs-timeout-ms is for submitters
 * that give none)
 */
#define HANG_BOUND_MS  90000
/* hard resets of a device a process submits to through its ring */
#define RING_ROUNDS    40
/* bound of the wait for such a process to see the reset */
#define RING_END_MS    20000

static int group_setup(void **state)
{
	static const char *const args[] = { "--reset-on-lockup", NULL };

	(void)state;
	unsetenv("HPU_VISIBLE_DEVICES");
	unsetenv("HABANA_VISIBLE_DEVICES");
	unsetenv("HABANA_VISIBLE_MODULES");
	unsetenv("HPU_RING");
	if (hpu_test_group_start_args(NDEV, "gaudi2", args))
		return -1;
	return hpu_walk_setup();
}

static int group_teardown(void **state)
{
	hpu_walk_teardown();
	return hpu_test_group_stop(state);
}

/**
 * struct monitor - an HLML monitor of both devices' critical errors
 * @h: the devices' handles
 * @set: the event set
 * @name: "hpuN (BUS_ID)" of device DEV, as a run's error names it
 * @bus_id: DEV's bus id
 */
struct monitor {
	hlml_device_t h[NDEV];
	hlml_event_set_t set;
	char name[64];
	char bus_id[32];
};

static void monitor_start(struct monitor *m)
{
	hlml_pci_info_t pci;
	unsigned int i;

	assert_int_equal(hlml_init(), HLML_SUCCESS);
	for (i = 0; i < NDEV; i++)
		assert_int_equal(hlml_device_get_handle_by_index(i, &m->h[i]),
				 HLML_SUCCESS);
	assert_int_equal(hlml_device_get_pci_info(m->h[DEV], &pci),
			 HLML_SUCCESS);
	snprintf(m->bus_id, sizeof(m->bus_id), "%s", pci.bus_id);
	snprintf(m->name, sizeof(m->name), "hpu%d (%s)", DEV, pci.bus_id);
	assert_int_equal(hlml_event_set_create(&m->set), HLML_SUCCESS);
	for (i = 0; i < NDEV; i++)
		assert_int_equal(hlml_device_register_events(
					 m->h[i], HLML_EVENT_CRITICAL_ERR,
					 m->set),
				 HLML_SUCCESS);
}

/* Every event left is of device DEV (none when @none); then stop */
static void monitor_stop(struct monitor *m, bool none)
{
	hlml_event_data_t ev;

	while (hlml_event_set_wait(m->set, &ev, 0) == HLML_SUCCESS) {
		assert_false(none);
		assert_ptr_equal(ev.device, m->h[DEV]);
	}
	assert_int_equal(hlml_event_set_free(m->set), HLML_SUCCESS);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
}

/* The monitor gets CRITICAL_ERR of device DEV within @bound_ms */
static void monitor_critical(struct monitor *m, int bound_ms)
{
	long end = hpu_test_now_ms() + bound_ms;
	hlml_event_data_t ev;
	hlml_return_t r;

	do {
		memset(&ev, 0, sizeof(ev));
		r = hlml_event_set_wait(m->set, &ev, 500);
		if (r == HLML_SUCCESS) {
			assert_ptr_equal(ev.device, m->h[DEV]);
			assert_int_equal(ev.event_type,
					 HLML_EVENT_CRITICAL_ERR);
			return;
		}
		assert_int_equal(r, HLML_ERROR_TIMEOUT);
	} while (hpu_test_now_ms() < end);
	fail_msg("no HLML event within %d ms", bound_ms);
}

/* Device DEV is operational: hl-smi's status, HLML's performance state */
static void expect_operational(const struct monitor *m)
{
	hlml_p_states_t ps;
	char status[64];

	hpu_walk_status(DEV, status, sizeof(status));
	assert_string_equal(status, "operational");
	assert_int_equal(hlml_device_get_performance_state(m->h[DEV], &ps),
			 HLML_SUCCESS);
	assert_int_equal(ps, HLML_PSTATE_0);
}

/*
 * A fault that leaves device DEV in @status until a hard reset, injected
 * with HLML @fault while hpu-train trains on it: CRITICAL_ERR, `hl-smi
 * -q` shows @status (and @key >= 1 when not NULL), the run fails naming
 * the device, `hl-smi -r` brings it back, a new run finishes.
 */
static void walk_fatal(hlml_err_inject_t fault, const char *status,
		       const char *key)
{
	struct hpu_test_proc p;
	struct monitor m;
	char s[64];

	monitor_start(&m);
	hpu_walk_train_until_running("1", 1);
	expect_operational(&m);

	assert_int_equal(hlml_device_err_inject(m.h[DEV], fault), HLML_SUCCESS);
	monitor_critical(&m, EVENT_BOUND_MS);

	hpu_walk_q(&p, DEV, m.bus_id);
	hpu_walk_q_str(p.out, "Status", s, sizeof(s));
	assert_string_equal(s, status);
	if (key)
		assert_true(hpu_walk_q_value(p.out, key) >= 1);
	hpu_test_proc_free(&p);

	hpu_walk_train_ends_naming(m.name, "reset");
	hpu_walk_status(DEV, s, sizeof(s));
	assert_string_equal(s, status);

	hpu_walk_reset(DEV);
	expect_operational(&m);
	hpu_walk_train_finishes("1", 1);
	monitor_stop(&m, false);
}

/* ECC error: uncorrectable, the device needs a reset */
static void test_walk_ecc(void **state)
{
	(void)state;
	walk_fatal(HLML_ERR_INJECT_FATAL_EVENT, "needs reset",
		   "Volatile Uncorrected");
}

/* Lost device: its heartbeat is lost, it malfunctions until a reset */
static void test_walk_lost_device(void **state)
{
	(void)state;
	walk_fatal(HLML_ERR_INJECT_LOSS_OF_HEARTBEAT, "malfunction", NULL);
}

/* hpu-smi's own -q (hl-smi's has no CS counters) of device DEV */
static void smi_own_q(struct hpu_test_proc *p)
{
	struct hpu_test_proc_opts o = { .stderr_mode =
						HPU_TEST_STDERR_CAPTURE };
	char *argv[] = { (char *)hpu_test_bin("hpu-smi"), "-q", "-i", "1",
			 NULL };

	assert_int_equal(hpu_test_proc_run(p, argv, &o, HPU_WALK_TOOL_MS), 0);
	if (p->status)
		fail_msg("hpu-smi -q exited %d: %s", p->status, p->err);
}

/*
 * CS timeout: the run's next CS never ends; the daemon's timeout aborts
 * it and (--reset-on-lockup) hard-resets the device: that reset is the
 * CRITICAL_ERR and ends the run; the device is operational again
 */
static void test_walk_cs_timeout(void **state)
{
	struct hpu_test_proc p;
	struct monitor m;
	long timed_out, hard;

	(void)state;
	monitor_start(&m);
	smi_own_q(&p);
	timed_out = hpu_walk_q_value(p.out, "Timed Out");
	hard = hpu_walk_q_value(p.out, "Hard");
	hpu_test_proc_free(&p);
	hpu_walk_train_until_running("1", 1);

	assert_int_equal(hlml_device_err_inject(
				 m.h[DEV], HLML_ERR_INJECT_ENDLESS_COMMAND),
			 HLML_SUCCESS);
	monitor_critical(&m, HANG_BOUND_MS);
	hpu_walk_train_ends_naming(m.name, "timed out");

	smi_own_q(&p);
	assert_true(hpu_walk_q_value(p.out, "Timed Out") > timed_out);
	assert_true(hpu_walk_q_value(p.out, "Hard") > hard);
	hpu_test_proc_free(&p);
	expect_operational(&m);
	hpu_walk_train_finishes("1", 1);
	monitor_stop(&m, false);
}

/*
 * Page fault: the run's next CS touches an unmapped address on DMA
 * engine 0 of DEV. Not fatal on this daemon: no HLML event, the run
 * fails naming the device, the device stays operational and takes a
 * new run without a reset.
 */
static void test_walk_page_fault(void **state)
{
	struct hpu_device *dev;
	struct monitor m;

	(void)state;
	monitor_start(&m);
	hpu_walk_train_until_running("1", 1);
	assert_int_equal(hpu_open(DEV, &dev), 0);
	assert_int_equal(
		hpu_debug_inject_fault(dev, HPU_FAULT_PAGE_FAULT, 0, 0), 0);
	hpu_close(dev);
	hpu_walk_train_ends_naming(m.name, "aborted");
	expect_operational(&m);
	hpu_walk_train_finishes("1", 1);
	monitor_stop(&m, true);
}

/* hl-smi -q of DEV: its "Thermal" throttle reason, AIP temperatures */
static void smi_thermal(const struct monitor *m, char *reason, size_t len,
			long *temp, long *slowdown)
{
	struct hpu_test_proc p;

	hpu_walk_q(&p, DEV, m->bus_id);
	hpu_walk_q_str(p.out, "Thermal", reason, len);
	*temp = hpu_walk_q_value(p.out, "AIP Current Temp");
	*slowdown = hpu_walk_q_value(p.out, "AIP Slowdown Temp");
	hpu_test_proc_free(&p);
}

/* SOC clock samples of DEV */
#define CLOCK_SAMPLES 20

/*
 * Thermal event while hpu-train trains on DEV: HLML CLOCK_RATE, the
 * clock below its maximum in every sample (busy or idle), the THERMAL
 * throttle reason, hl-smi -q shows it; the run goes on. CLEAR_FAULTS:
 * the clock reaches its maximum again while the run works, the reason
 * goes. No CRITICAL_ERR throughout.
 */
static void test_walk_thermal(void **state)
{
	unsigned long long why;
	unsigned int mhz, max;
	long temp, slowdown, end;
	struct hpu_device *dev;
	hlml_event_data_t ev;
	hlml_event_set_t clk;
	struct monitor m;
	char reason[32];
	int i;

	(void)state;
	monitor_start(&m);
	assert_int_equal(hlml_event_set_create(&clk), HLML_SUCCESS);
	assert_int_equal(hlml_device_register_events(
				 m.h[DEV], HLML_EVENT_CLOCK_RATE, clk),
			 HLML_SUCCESS);
	assert_int_equal(hlml_device_get_max_clock_info(m.h[DEV],
							HLML_CLOCK_SOC, &max),
			 HLML_SUCCESS);
	hpu_walk_train_until_running("1", 1);
	smi_thermal(&m, reason, sizeof(reason), &temp, &slowdown);
	assert_string_equal(reason, "Not Active");
	assert_true(temp < slowdown);

	assert_int_equal(hlml_device_err_inject(m.h[DEV],
						HLML_ERR_INJECT_THERMAL_EVENT),
			 HLML_SUCCESS);
	/* the clock changes as the run works (bounded, not timed) */
	memset(&ev, 0, sizeof(ev));
	while (hlml_event_set_wait(clk, &ev, EVENT_BOUND_MS) == HLML_SUCCESS &&
	       ev.device != m.h[DEV])
		;
	assert_ptr_equal(ev.device, m.h[DEV]);
	assert_int_equal(ev.event_type, HLML_EVENT_CLOCK_RATE);
	for (i = 0; i < CLOCK_SAMPLES; i++) {
		assert_int_equal(hlml_device_get_clock_info(
					 m.h[DEV], HLML_CLOCK_SOC, &mhz),
				 HLML_SUCCESS);
		assert_true(mhz < max);
		usleep(10 * 1000);
	}
	assert_int_equal(
		hlml_device_get_current_clocks_throttle_reasons(m.h[DEV], &why),
		HLML_SUCCESS);
	assert_true(why & HLML_CLOCKS_THROTTLE_REASON_THERMAL);
	smi_thermal(&m, reason, sizeof(reason), &temp, &slowdown);
	assert_string_equal(reason, "Active");
	assert_true(temp > slowdown);
	expect_operational(&m);

	/* cleared: the busy clock is the maximum again */
	assert_int_equal(hpu_open(DEV, &dev), 0);
	assert_int_equal(hpu_debug_clear_faults(dev), 0);
	hpu_close(dev);
	end = hpu_test_now_ms() + EVENT_BOUND_MS;
	do {
		assert_int_equal(hlml_device_get_clock_info(
					 m.h[DEV], HLML_CLOCK_SOC, &mhz),
				 HLML_SUCCESS);
		if (mhz == max)
			break;
		usleep(2 * 1000);
	} while (hpu_test_now_ms() < end);
	assert_int_equal(mhz, max);
	smi_thermal(&m, reason, sizeof(reason), &temp, &slowdown);
	assert_string_equal(reason, "Not Active");
	assert_true(temp < slowdown);

	hpu_walk_train_stop();
	assert_int_equal(hlml_event_set_free(clk), HLML_SUCCESS);
	monitor_stop(&m, true);
}

/* `hl-smi -n link -i 0` says @state for hpu0's port @port */
static void expect_link(uint32_t port, const char *state)
{
	struct hpu_test_proc p;
	char line[64];

	hpu_walk_hlsmi(&p, "-n", "link", "-i", "0", NULL);
	if (p.status)
		fail_msg("hl-smi -n link exited %d: %s", p.status, p.err);
	snprintf(line, sizeof(line), "port %u:\t%s\n", port, state);
	if (!strstr(p.out, line))
		fail_msg("hl-smi -n link has no '%s':\n%s", line, p.out);
	hpu_test_proc_free(&p);
}

/*
 * Port down: a 2-device data-parallel run; every port of hpu0 wired to
 * hpu1 goes down. No HLML event (HLML has no bit for a link; the
 * device stays operational): hl-smi -n link, -q's NET section and
 * hlml_nic_get_link() show it; the run fails with the link; CLEAR_FAULTS
 * brings the ports back and a new 2-device run finishes.
 */
static void test_walk_port_down(void **state)
{
	struct hpu_info_nic nic;
	struct hpu_test_proc p;
	struct hpu_device *dev;
	struct monitor m;
	uint32_t port, first = UINT32_MAX;
	bool up = true;
	char key[32], s[16];

	(void)state;
	monitor_start(&m);
	hpu_walk_train_until_running("0,1", 2);

	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(hpu_info_nic(dev, &nic), 0);
	for (port = 0; port < nic.num_ports && port < 64; port++) {
		if (nic.port_peer[port] != DEV)
			continue;
		assert_int_equal(hpu_debug_inject_fault(
					 dev, HPU_FAULT_LINK_DOWN, port, 0),
				 0);
		if (first == UINT32_MAX)
			first = port;
	}
	assert_true(first != UINT32_MAX);

	expect_link(first, "DOWN");
	assert_int_equal(hlml_nic_get_link(m.h[0], first, &up), HLML_SUCCESS);
	assert_false(up);
	hpu_walk_q(&p, 0, "");
	snprintf(key, sizeof(key), "Port %u ", first);
	hpu_walk_q_str(p.out, key, s, sizeof(s));
	assert_string_equal(s, "DOWN");
	hpu_test_proc_free(&p);

	hpu_walk_train_ends_naming(" on hpu", "a NIC link went down");

	assert_int_equal(hpu_debug_clear_faults(dev), 0);
	hpu_close(dev);
	expect_link(first, "UP");
	hpu_walk_train_finishes("0,1", 2);
	monitor_stop(&m, true);
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
		cmocka_unit_test_setup(test_walk_ecc, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_walk_lost_device,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_walk_cs_timeout,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_walk_port_down,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_walk_page_fault,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_walk_thermal, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_reset_ends_ring_submitter,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

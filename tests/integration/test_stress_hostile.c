// SPDX-License-Identifier: MIT
/*
 * test_stress_hostile.c - issue 14's stress test: one hpu-fused, 16
 * hostile clients running the attacks of tests/lib/hpu_test_hostile.c in
 * a loop (killed and respawned now and then) and 16 honest clients
 * (tests/lib/hpu_test_honest.c) running INFO, DMA round trips and GEMMs,
 * all checked, for one round.
 *
 * Passes when every honest client ends with all results right and every
 * operation within a generous bound (measured by a warm-up, at least
 * 10 s), when the daemon's descriptors, mappings and RSS come back to
 * what they were before the round once every client is gone, and when
 * the daemon still answers and stops on SIGTERM within 5 s.
 *
 * The test never hangs its runner: every wait is bounded, and teardown
 * kills and reaps every child and kills and unmounts the daemon whatever
 * happened. The seed is printed; HPU_STRESS_SEED=N repeats a run's
 * choices, HPU_STRESS_ATTACKS=name,... restricts the attacks (names in
 * hpu_hostile_name()), HPU_STRESS_LIMITS=NAME=N,... sets the daemon's
 * --limit options (otherwise they are chosen from hpu-fused --help).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_honest.h"
#include "../lib/hpu_test_hostile.h"
#include "../lib/hpu_test_rng.h"
#include "../lib/hpu_test_trap.h"
#include "../lib/hpu_test_usage.h"
#include "../lib/hpu_test_util.h"
#include "hpudrv.h"

#define NHONEST		16
#define NHOSTILE	16
/* The round: how long the clients run */
#define ROUND_MS	15000
/* Honest latency bound: BOUND_FACTOR x the warm-up's slowest operation,
 * within [MIN_BOUND_MS, MAX_BOUND_MS] */
#define BOUND_FACTOR	40
#define MIN_BOUND_MS	10000
#define MAX_BOUND_MS	15000
/* One hostile client is SIGKILLed this often */
#define KILL_EVERY_MS	1500
/* After the round: hostiles' own exit, reaping after SIGKILL, the daemon
 * settling, its answer, its stop */
#define HOSTILE_EXIT_MS 3000
#define REAP_MS		5000
#define SETTLE_MS	10000
#define ANSWER_MS	5000
#define STOP_MS		5000
/*
 * Slack over the start values. Mappings: glibc keeps a malloc arena per
 * thread that ever allocated (at most 8 per core, never unmapped) and a
 * cache of freed thread stacks, and the FUSE workers the round spawned
 * come and go (ASan's own heap regions are not counted: asan_heap_lines();
 * ASan keeps more per-thread memory mapped, about 130 more lines were
 * seen after a round). RSS: heap the allocator keeps; ASan's quarantine
 * keeps freed memory (256 MiB by default).
 */
#define MAPS_SLACK	(HPU_TEST_UNDER_ASAN ? 192 : 64)
#define RSS_SLACK_KIB	((64L + (HPU_TEST_UNDER_ASAN ? 256 : 0)) * 1024)

/* Everything the children share with the test */
struct shared {
	int stop;
	struct hpu_test_honest_report honest[NHONEST + 1]; /* + the warm-up */
	struct hpu_hostile_stats stats;
};

static struct shared *sh;

/* ------------------------------------------------------------ the daemon */

/* Failures found, in order, for the end of the test */
static char failures[8192];
static size_t failures_len;
static int nfailures;

static void failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void failure(const char *fmt, ...)
{
	va_list ap;
	int n;

	nfailures++;
	/* at once too: the runner's summary shows the first lines */
	va_start(ap, fmt);
	fputs("failure: ", stdout);
	vfprintf(stdout, fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	va_end(ap);
	if (failures_len >= sizeof(failures) - 2)
		return;
	va_start(ap, fmt);
	n = vsnprintf(failures + failures_len,
		      sizeof(failures) - failures_len - 1, fmt, ap);
	va_end(ap);
	if (n > 0)
		failures_len +=
			(size_t)n < sizeof(failures) - failures_len - 1 ?
				(size_t)n :
				sizeof(failures) - failures_len - 2;
	failures[failures_len++] = '\n';
	failures[failures_len] = '\0';
}

/*
 * Per-context limits small enough for the floods to reach them; each is
 * used when hpu-fused --help lists it (a line "  NAME  what...")
 */
static const struct {
	const char *name;
	const char *value;
} limits[] = {
	{ "cbs", "256" },	   { "host_maps", "256" },
	{ "shm_maps", "256" },	   { "allocs", "1024" },
	{ "device_maps", "1024" }, { "pinned_bytes", "16777216" },
	{ "cs_in_flight", "256" }, { "events", "64" },
};

/* Whether --help lists limit @name at the start of a line */
static bool lists_limit(const char *help, const char *name)
{
	char key[64];

	snprintf(key, sizeof(key), "\n  %s ", name);
	return strstr(help, key) != NULL;
}

/*
 * The daemon's extra arguments: the client-memory watchdog and
 * per-context limits when this hpu-fused has them.
 */
static int daemon_args(const char **argv, int max, char *spec, size_t speclen)
{
	char *help = NULL, *tok, *save = NULL;
	char *const hargv[] = { (char *)hpu_test_bin("hpu-fused"), "--help",
				NULL };
	const char *env = getenv("HPU_STRESS_LIMITS");
	int argc = 0, status;
	size_t i;

	if (hpu_test_run(hargv, &help, &status) || !help)
		return 0;
	if (strstr(help, "--uaccess-timeout-ms")) {
		argv[argc++] = "--uaccess-timeout-ms";
		argv[argc++] = "1000";
	}
	if (strstr(help, "--limit")) {
		spec[0] = '\0';
		if (env && *env) {
			snprintf(spec, speclen, "%s", env);
			for (tok = strtok_r(spec, ",", &save);
			     tok && argc + 2 < max;
			     tok = strtok_r(NULL, ",", &save)) {
				argv[argc++] = "--limit";
				argv[argc++] = tok;
			}
		} else {
			size_t used = 0;

			for (i = 0; i < sizeof(limits) / sizeof(limits[0]) &&
				    argc + 2 < max;
			     i++) {
				int n;

				if (!lists_limit(help, limits[i].name))
					continue;
				n = snprintf(spec + used, speclen - used,
					     "%s=%s", limits[i].name,
					     limits[i].value);
				if (n < 0 || (size_t)n + 1 >= speclen - used)
					break;
				argv[argc++] = "--limit";
				argv[argc++] = spec + used;
				used += (size_t)n + 1;
			}
		}
	}
	free(help);
	argv[argc] = NULL;
	return argc;
}

/* Print the last @lines lines of the daemon's log */
static void print_log_tail(const struct hpu_test_daemon *d, int lines)
{
	static char buf[1 << 16];
	size_t n;
	int seen = 0;
	char *p;
	FILE *f = fopen(d->log, "r");

	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	if (ftell(f) > (long)sizeof(buf) - 1)
		fseek(f, -(long)sizeof(buf) + 1, SEEK_END);
	else
		fseek(f, 0, SEEK_SET);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (p = buf + n; p > buf; p--)
		if (p[-1] == '\n' && ++seen > lines)
			break;
	fprintf(stderr,
		"--- last lines of the hpu-fused log ---\n%s"
		"--- end of log ---\n",
		p);
}

/* A sanitizer's report in the daemon's log is a failure too */
static void check_log(const struct hpu_test_daemon *d)
{
	static const char *const marks[] = { "runtime error:",
					     "ERROR: AddressSanitizer",
					     "ERROR: LeakSanitizer" };
	char line[512];
	size_t i;
	FILE *f = fopen(d->log, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
			if (strstr(line, marks[i])) {
				line[strcspn(line, "\n")] = '\0';
				failure("daemon log: %s", line);
				fclose(f);
				return;
			}
	fclose(f);
}

/* ------------------------------------------------------------ children */

struct kid {
	pid_t pid;
	int gen;
	int status;
	bool exited;
};

static struct kid honest_kids[NHONEST], hostile_kids[NHOSTILE];
static struct hpu_hostile_opts hostile_opts;
static uint64_t base_seed;

static pid_t spawn_honest(int slot, long bound_ms, unsigned int max_ops)
{
	pid_t pid = hpu_test_fork_child();

	if (pid == 0)
		hpu_test_honest_main(
			&sh->honest[slot], &sh->stop, slot, bound_ms, max_ops,
			hpu_test_mix_seed(base_seed, 100000 + slot));
	return pid;
}

static pid_t spawn_hostile(int slot, int gen)
{
	pid_t pid = hpu_test_fork_child();
	int fd;

	if (pid == 0) {
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0 && fd != STDIN_FILENO) {
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
		hpu_hostile_main(
			&hostile_opts,
			hpu_test_mix_seed(base_seed,
					  (uint64_t)slot * 1000 + gen));
	}
	return pid;
}

/* Reap @k if it ended; true when it is gone (or never ran) */
static bool reap(struct kid *k)
{
	if (k->pid <= 0)
		return true;
	if (waitpid(k->pid, &k->status, WNOHANG) != k->pid)
		return false;
	k->pid = 0;
	k->exited = true;
	return true;
}

/* SIGKILL every child still there and reap them within REAP_MS */
static int kill_all(void)
{
	long end = hpu_test_now_ms() + REAP_MS;
	int i, left;

	for (i = 0; i < NHOSTILE; i++)
		if (hostile_kids[i].pid > 0)
			kill(hostile_kids[i].pid, SIGKILL);
	for (i = 0; i < NHONEST; i++)
		if (honest_kids[i].pid > 0)
			kill(honest_kids[i].pid, SIGKILL);
	for (;;) {
		left = 0;
		for (i = 0; i < NHOSTILE; i++)
			left += !reap(&hostile_kids[i]);
		for (i = 0; i < NHONEST; i++)
			left += !reap(&honest_kids[i]);
		if (!left || hpu_test_now_ms() >= end)
			return left;
		hpu_test_sleep_ms(20);
	}
}

static void describe_left(void)
{
	int i, shown = 0;

	for (i = 0; i < NHOSTILE && shown < 4; i++)
		if (hostile_kids[i].pid > 0) {
			fprintf(stderr, "hostile %d (pid %d) cannot die:\n", i,
				(int)hostile_kids[i].pid);
			hpu_test_print_proc(hostile_kids[i].pid);
			shown++;
		}
	for (i = 0; i < NHONEST && shown < 8; i++)
		if (honest_kids[i].pid > 0) {
			fprintf(stderr, "honest %d (pid %d) cannot die:\n", i,
				(int)honest_kids[i].pid);
			hpu_test_print_proc(honest_kids[i].pid);
			shown++;
		}
}

/* A child opens the device and asks INFO: does the daemon answer? */
static bool daemon_answers(void)
{
	struct hpu_info_hw_ip_info ip;
	struct hpu_device *dev;
	pid_t pid;
	int status;

	pid = hpu_test_fork_child();
	if (pid < 0)
		return false;
	if (pid == 0)
		_exit(hpu_open_control(0, &dev) || hpu_info_hw_ip(dev, &ip) ?
			      1 :
			      0);
	if (hpu_test_wait_child(pid, ANSWER_MS, &status)) {
		hpu_test_kill_child(pid, &status);
		return false;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* ------------------------------------------------------------ the test */

static long warm_up(void)
{
	struct hpu_test_honest_report *r = &sh->honest[NHONEST];
	long worst = 0;
	pid_t pid;
	int status, i;

	pid = spawn_honest(NHONEST, MAX_BOUND_MS, 3 * HPU_TEST_HONEST_NOPS);
	if (pid < 0)
		return -1;
	if (hpu_test_wait_child(pid, 3 * MAX_BOUND_MS, &status)) {
		hpu_test_kill_child(pid, &status);
		failure("warm-up client did not finish in %d ms",
			3 * MAX_BOUND_MS);
		return -1;
	}
	if (r->failed || !WIFEXITED(status) || WEXITSTATUS(status)) {
		failure("warm-up client failed: %s",
			r->failed ? r->err : "exit status");
		return -1;
	}
	for (i = 0; i < HPU_TEST_HONEST_NOPS; i++)
		if (r->max_ms[i] > worst)
			worst = r->max_ms[i];
	print_message("warm-up: slowest INFO %ld ms, DMA %ld ms, GEMM %ld ms\n",
		      r->max_ms[HPU_TEST_HONEST_INFO],
		      r->max_ms[HPU_TEST_HONEST_DMA],
		      r->max_ms[HPU_TEST_HONEST_GEMM]);
	return worst;
}

/*
 * ASan's allocator keeps its heap in regions of its own, one pair of
 * mappings per size class in use (x86-64: 0x600000000000 + 4 TiB), that
 * grow and are never given back: not counted under ASan.
 */
#define ASAN_HEAP_START 0x600000000000ULL
#define ASAN_HEAP_END	0x640000000000ULL

static long asan_heap_lines(const char *maps)
{
	unsigned long long start;
	const char *line;
	long n = 0;

	for (line = maps; line && *line;) {
		if (sscanf(line, "%llx-", &start) == 1 &&
		    start >= ASAN_HEAP_START && start < ASAN_HEAP_END)
			n++;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return n;
}

/* /proc/@pid/maps as one malloc'ed string (NULL when unreadable) */
static char *read_maps(pid_t pid)
{
	char path[64], *text = NULL;
	size_t len = 0, n;
	char buf[4096];
	FILE *f, *mem;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	mem = open_memstream(&text, &len);
	if (mem) {
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, mem);
		fclose(mem);
	}
	fclose(f);
	return text;
}

/* Print (at most 24 of) the mappings of @after that @before lacks */
static void print_new_maps(const char *before, const char *after)
{
	const char *line = after, *end;
	int shown = 0, more = 0;
	char key[128];

	if (!before || !after)
		return;
	for (; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		snprintf(key, sizeof(key), "%.*s", (int)(end - line), line);
		if (strstr(before, key) ||
		    (HPU_TEST_UNDER_ASAN && asan_heap_lines(key)))
			continue;
		if (shown++ < 24)
			fprintf(stderr, "  new mapping: %s\n", key);
		else
			more++;
	}
	if (more)
		fprintf(stderr, "  ... and %d more\n", more);
}

/* What the daemon holds, its sanitizer's heap regions left out */
static int daemon_usage(pid_t pid, struct hpu_test_usage *u)
{
	int ret = hpu_test_usage_of(pid, u);
	char *maps;

	if (ret || !HPU_TEST_UNDER_ASAN)
		return ret;
	maps = read_maps(pid);
	if (!maps)
		return -EIO;
	u->maps -= asan_heap_lines(maps);
	free(maps);
	return 0;
}

/*
 * Mappings allowed over @base: MAPS_SLACK, plus a stack and its guard
 * page for each thread more than before (pools keep idle threads)
 */
static long maps_slack(const struct hpu_test_usage *base,
		       const struct hpu_test_usage *now)
{
	long more = now->threads - base->threads;

	return MAPS_SLACK + (more > 0 ? 2 * more : 0);
}

/* Wait until the daemon holds no more than @base (+ slack), at most @ms */
static bool settle(pid_t daemon, const struct hpu_test_usage *base,
		   struct hpu_test_usage *now, long ms)
{
	long end = hpu_test_now_ms() + ms;

	for (;;) {
		if (daemon_usage(daemon, now))
			return false;
		if (now->fds <= base->fds &&
		    now->maps <= base->maps + maps_slack(base, now) &&
		    now->rss_kib <= base->rss_kib + RSS_SLACK_KIB)
			return true;
		if (hpu_test_now_ms() >= end)
			return false;
		hpu_test_sleep_ms(100);
	}
}

/* The round: clients run, hostiles are killed and respawned */
static void round_run(long bound_ms, int *kills, int *respawns)
{
	long start = hpu_test_now_ms(), next_kill = start + KILL_EVERY_MS;
	struct hpu_test_rng rng;
	int i;

	hpu_test_rng_seed(&rng, hpu_test_mix_seed(base_seed, 7));
	for (i = 0; i < NHONEST; i++) {
		honest_kids[i].pid = spawn_honest(i, bound_ms, ~0U);
		if (honest_kids[i].pid < 0)
			failure("fork of honest %d: %s", i,
				strerror(-honest_kids[i].pid));
	}
	for (i = 0; i < NHOSTILE; i++)
		hostile_kids[i].pid = spawn_hostile(i, 0);

	while (hpu_test_now_ms() - start < ROUND_MS) {
		for (i = 0; i < NHOSTILE; i++) {
			struct kid *k = &hostile_kids[i];

			if (k->pid > 0 && !reap(k))
				continue;
			k->pid = spawn_hostile(i, ++k->gen);
			(*respawns)++;
		}
		for (i = 0; i < NHONEST; i++)
			reap(&honest_kids[i]);
		if (hpu_test_now_ms() >= next_kill) {
			struct kid *k = &hostile_kids[hpu_test_rng_below(
				&rng, NHOSTILE)];

			if (k->pid > 0 && !kill(k->pid, SIGKILL))
				(*kills)++;
			next_kill += KILL_EVERY_MS;
		}
		hpu_test_sleep_ms(50);
	}
}

/* After the round: everyone told to stop; honest ones given the bound */
static void round_end(long bound_ms)
{
	long end = hpu_test_now_ms() + bound_ms + 3000;
	long hend = hpu_test_now_ms() + HOSTILE_EXIT_MS;
	int i, left;

	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	do {
		left = 0;
		for (i = 0; i < NHONEST; i++)
			left += !reap(&honest_kids[i]);
		for (i = 0; i < NHOSTILE; i++)
			if (!reap(&hostile_kids[i]) && hpu_test_now_ms() < hend)
				left++;
		if (left)
			hpu_test_sleep_ms(20);
	} while (left && hpu_test_now_ms() < end);

	for (i = 0; i < NHONEST; i++) {
		struct hpu_test_honest_report *r = &sh->honest[i];
		struct kid *k = &honest_kids[i];

		if (r->failed)
			failure("%s", r->err);
		else if (k->pid > 0)
			failure("honest %d did not finish within %ld ms of the "
				"round's end (blocked in the daemon?)",
				i, bound_ms + 3000);
		else if (!WIFEXITED(k->status) || WEXITSTATUS(k->status))
			failure("honest %d ended with status %#x", i,
				k->status);
		else if (!r->ops[HPU_TEST_HONEST_INFO] ||
			 !r->ops[HPU_TEST_HONEST_DMA] ||
			 !r->ops[HPU_TEST_HONEST_GEMM])
			failure("honest %d did not complete one operation of "
				"each kind",
				i);
	}
}

static void print_summary(long bound_ms, int kills, int respawns)
{
	uint64_t total[HPU_TEST_HONEST_NOPS] = { 0 };
	long worst[HPU_TEST_HONEST_NOPS] = { 0 };
	int i, j;

	for (i = 0; i < NHONEST; i++)
		for (j = 0; j < HPU_TEST_HONEST_NOPS; j++) {
			total[j] += sh->honest[i].ops[j];
			if (sh->honest[i].max_ms[j] > worst[j])
				worst[j] = sh->honest[i].max_ms[j];
		}
	print_message("honest: %llu INFO, %llu DMA, %llu GEMM checked; "
		      "slowest %ld/%ld/%ld ms (bound %ld ms)\n",
		      (unsigned long long)total[HPU_TEST_HONEST_INFO],
		      (unsigned long long)total[HPU_TEST_HONEST_DMA],
		      (unsigned long long)total[HPU_TEST_HONEST_GEMM],
		      worst[HPU_TEST_HONEST_INFO], worst[HPU_TEST_HONEST_DMA],
		      worst[HPU_TEST_HONEST_GEMM], bound_ms);
	print_message("hostile: %d killed by the test, %d respawned\n", kills,
		      respawns);
	for (i = 0; i < HPU_HOSTILE_NUM; i++)
		print_message("  %-14s %5llu runs, %5llu refused (last %s), "
			      "%llu threads left blocked\n",
			      hpu_hostile_name(i),
			      (unsigned long long)sh->stats.runs[i],
			      (unsigned long long)sh->stats.refused[i],
			      sh->stats.last_err[i] ?
				      strerror((int)-sh->stats.last_err[i]) :
				      "-",
			      (unsigned long long)sh->stats.stuck[i]);
}

static void test_stress(void **state)
{
	const char *why = hpu_test_have_fuse(), *uffd_why, *attacks;
	const char *extra[24];
	char spec[512], *end, *base_maps = NULL, *after_maps;
	struct hpu_test_usage base, now;
	struct hpu_test_daemon d;
	int kills = 0, respawns = 0, left, status, ret, nextra;
	long t0 = hpu_test_now_ms(), worst, bound_ms = MAX_BOUND_MS;

	(void)state;
	HPU_TEST_SKIP_IF(why);
	signal(SIGPIPE, SIG_IGN);
	unsetenv("HPU_VISIBLE_DEVICES");

	base_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (getenv("HPU_STRESS_SEED"))
		base_seed = strtoull(getenv("HPU_STRESS_SEED"), &end, 0);
	print_message("seed %llu (HPU_STRESS_SEED=%llu repeats it)%s\n",
		      (unsigned long long)base_seed,
		      (unsigned long long)base_seed,
		      HPU_TEST_UNDER_ASAN ? ", AddressSanitizer build" : "");

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(sh != MAP_FAILED);
	memset(sh, 0, sizeof(*sh));

	memset(&hostile_opts, 0, sizeof(hostile_opts));
	attacks = getenv("HPU_STRESS_ATTACKS");
	if (attacks && *attacks &&
	    hpu_hostile_parse_mask(attacks, &hostile_opts.mask))
		fail_msg("HPU_STRESS_ATTACKS: unknown attack in \"%s\"",
			 attacks);
	uffd_why = hpu_test_uffd_unavailable();
	if (uffd_why)
		print_message("note: the userfaultfd attack is skipped: %s\n",
			      uffd_why);

	nextra = daemon_args(extra, 22, spec, sizeof(spec));
	print_message("hpu-fused extra arguments:%s", nextra ? "" : " none");
	for (ret = 0; ret < nextra; ret++)
		print_message(" %s", extra[ret]);
	print_message("\n");
	ret = hpu_test_daemon_start(&d, 1, "gaudi2", extra);
	if (ret && nextra) {
		print_message("note: hpu-fused refused them (%s); running "
			      "without\n",
			      strerror(-ret));
		ret = hpu_test_daemon_start(&d, 1, "gaudi2", NULL);
	}
	if (ret)
		fail_msg("cannot start hpu-fused: %s", strerror(-ret));
	hostile_opts.mount = d.mount;
	hostile_opts.dev = 0;
	hostile_opts.uffd = !uffd_why;
	hostile_opts.max_hold_ms = ROUND_MS;
	hostile_opts.stop = &sh->stop;
	hostile_opts.stats = &sh->stats;

	/* the warm-up sets the bound and brings the daemon to its steady
	 * state (threads, heap) before the start values are taken */
	worst = warm_up();
	if (worst >= 0) {
		bound_ms = BOUND_FACTOR * worst;
		if (bound_ms < MIN_BOUND_MS)
			bound_ms = MIN_BOUND_MS;
		if (bound_ms > MAX_BOUND_MS)
			bound_ms = MAX_BOUND_MS;
		memset(&base, 0, sizeof(base));
		/* the warm-up's context goes asynchronously: let it */
		hpu_test_sleep_ms(300);
		if (daemon_usage(d.pid, &base))
			failure("cannot read /proc/%d", (int)d.pid);
		base_maps = read_maps(d.pid);
		print_message("daemon before: %ld fds, %ld mappings, %ld KiB "
			      "RSS, %ld threads; honest bound %ld ms; round "
			      "%d ms\n",
			      base.fds, base.maps, base.rss_kib, base.threads,
			      bound_ms, ROUND_MS);

		round_run(bound_ms, &kills, &respawns);
		round_end(bound_ms);
	}

	left = kill_all();
	if (waitpid(d.pid, &status, WNOHANG) == d.pid) {
		failure("the daemon died during the test (status %#x)", status);
		d.pid = 0;
	} else if (left) {
		failure("%d clients could not be killed within %d ms "
			"(blocked in the daemon)",
			left, REAP_MS);
		describe_left();
	} else if (worst >= 0) {
		if (!settle(d.pid, &base, &now, SETTLE_MS)) {
			failure("the daemon did not give everything back "
				"within %d ms: %ld fds (before %ld), %ld "
				"mappings (before %ld, slack %ld), %ld KiB RSS "
				"(before %ld, slack %ld), %ld threads (before "
				"%ld)",
				SETTLE_MS, now.fds, base.fds, now.maps,
				base.maps, maps_slack(&base, &now), now.rss_kib,
				base.rss_kib, RSS_SLACK_KIB, now.threads,
				base.threads);
			after_maps = read_maps(d.pid);
			print_new_maps(base_maps, after_maps);
			free(after_maps);
		} else {
			print_message("daemon after: %ld fds, %ld mappings, "
				      "%ld KiB RSS, %ld threads\n",
				      now.fds, now.maps, now.rss_kib,
				      now.threads);
		}
		if (!daemon_answers())
			failure("the daemon no longer answers INFO (within "
				"%d ms)",
				ANSWER_MS);
	}

	/* SIGTERM must stop it within STOP_MS, whatever happened */
	if (!d.pid) {
		/* it died: reported above */
	} else if (waitpid(d.pid, &status, WNOHANG) == d.pid) {
		failure("the daemon died during the test (status %#x)", status);
		d.pid = 0;
	} else {
		kill(d.pid, SIGTERM);
		if (hpu_test_wait_child(d.pid, STOP_MS, &status)) {
			failure("the daemon did not stop within %d ms of "
				"SIGTERM",
				STOP_MS);
			hpu_test_print_proc(d.pid);
			hpu_test_kill_child(d.pid, &status);
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			failure("the daemon ended with status %#x after "
				"SIGTERM",
				status);
		}
		d.pid = 0;
	}
	check_log(&d);
	/* (a mount left behind makes hpu_test_daemon_stop() print it all) */
	if (nfailures && !hpu_test_is_mounted(d.mount))
		print_log_tail(&d, 30);
	/* unmounts if the daemon could not, removes the directory */
	if (hpu_test_daemon_stop(&d) && !nfailures)
		failure("the mount was left behind");
	/* children blocked in the daemon are free now */
	left = kill_all();
	if (left)
		failure("%d clients still alive after the daemon's death",
			left);

	print_summary(bound_ms, kills, respawns);
	print_message("%d ms in all\n", (int)(hpu_test_now_ms() - t0));
	free(base_maps);
	munmap(sh, sizeof(*sh));
	if (nfailures) {
		/* line by line: print_message() cuts long messages */
		print_message("%d failure(s) (seed %llu):\n", nfailures,
			      (unsigned long long)base_seed);
		fputs(failures, stdout);
		fflush(stdout);
		fail_msg("%d failure(s), the first: %.*s", nfailures,
			 (int)strcspn(failures, "\n"), failures);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

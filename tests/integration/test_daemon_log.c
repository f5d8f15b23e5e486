// SPDX-License-Identifier: MIT
/*
 * test_daemon_log.c - hpu-fused's log under bad input: 100000 rejected
 * ioctls at --log-level debug leave a bounded log (at most 10 lines per
 * 5 s window of the call site) and a "N similar messages suppressed"
 * summary that accounts for every message not printed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_util.h"
#include "hpudrv.h"

#define BAD_CALLS	100000
/* the hammer stops early past this (slow sanitizer builds) */
#define HAMMER_MAX_MS	12000
/* log.c: RL_BURST messages per RL_WINDOW_S seconds and call site */
#define RL_BURST	10
#define RL_WINDOW_S	5
/* a DRM command number the driver's table does not have */
#define BAD_IOCTL	_IOWR('d', 0x7e, uint64_t)
#define REJECT_TEXT	"rejected: Inappropriate ioctl for device"
#define SUPPRESSED_TEXT " similar messages suppressed"

static int group_setup(void **state)
{
	const char *const extra[] = { "--log-level", "debug", NULL };

	(void)state;
	return hpu_test_group_start_args(1, "gaudi2", extra);
}

/**
 * struct log_count - what the daemon's log says about the call site
 * @lines: every line of the log
 * @rejected: lines of the flooded call site
 * @summaries: "N similar messages suppressed" lines
 * @suppressed: sum of their N
 * @unprefixed: lines not in the "hpu-fused: LEVEL: " form
 */
struct log_count {
	long lines;
	long rejected;
	long summaries;
	long suppressed;
	long unprefixed;
};

static void count_log(struct log_count *c)
{
	char line[1024];
	const char *s;
	FILE *f;

	memset(c, 0, sizeof(*c));
	f = fopen(hpu_test_shared.log, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		c->lines++;
		if (strncmp(line, "hpu-fused: ", 11))
			c->unprefixed++;
		if (strstr(line, REJECT_TEXT))
			c->rejected++;
		s = strstr(line, SUPPRESSED_TEXT);
		if (s) {
			while (s > line && s[-1] >= '0' && s[-1] <= '9')
				s--;
			c->summaries++;
			c->suppressed += atol(s);
		}
	}
	fclose(f);
}

static void test_bad_ioctl_flood_is_bounded(void **state)
{
	struct log_count c;
	uint64_t arg = 0;
	long start, elapsed, n, windows;
	int fd = hpu_test_open_dev(0);

	start = hpu_test_now_ms();
	/* n counts the calls made, also when the time bound ends the loop */
	for (n = 0; n < BAD_CALLS;) {
		assert_int_equal(ioctl(fd, BAD_IOCTL, &arg), -1);
		assert_int_equal(errno, ENOTTY);
		n++;
		if (!(n & 1023) && hpu_test_now_ms() - start > HAMMER_MAX_MS)
			break;
	}
	elapsed = hpu_test_now_ms() - start;
	printf("%ld rejected ioctls in %ld ms\n", n, elapsed);
	/* a flood even on a loaded machine: far more than RL_BURST per
	 * window (it was 16384 in 12 s beside a sanitizer soak) */
	assert_true(n >= 2048);

	/* one more once the window is over: it brings the summary */
	hpu_test_sleep_ms(RL_WINDOW_S * 1000 + 1200);
	assert_int_equal(ioctl(fd, BAD_IOCTL, &arg), -1);
	close(fd);
	/* stderr is written before the answer: the log is complete */
	count_log(&c);
	printf("log: %ld lines, %ld of the call site, %ld summaries of %ld "
	       "suppressed\n",
	       c.lines, c.rejected, c.summaries, c.suppressed);

	windows = (elapsed + RL_WINDOW_S * 1000 + 1200) / (RL_WINDOW_S * 1000) +
		  2;
	assert_true(c.rejected >= 1);
	assert_true(c.rejected <= RL_BURST * windows);
	assert_true(c.summaries >= 1);
	assert_true(c.summaries <= windows);
	/* every message is printed or counted in a summary */
	assert_int_equal(c.rejected + c.suppressed, n + 1);
	/* the whole log stays small: the flood is not in it */
	assert_true(c.lines < 200);
	assert_int_equal(c.unprefixed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_bad_ioctl_flood_is_bounded,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}

// SPDX-License-Identifier: MIT
/*
 * log.c - levelled logging to stderr (foreground) or syslog (daemon),
 * with per-call-site rate limiting for messages caused by client input.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "hpu_fused.h"

/* A rate-limited call site prints at most RL_BURST messages per RL_WINDOW */
#define RL_WINDOW_S 5
#define RL_BURST    10

static int log_level = HFD_LOG_WARN;
static bool log_syslog;
/* serialises rate-limit state updates of every call site */
static pthread_mutex_t rl_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const level_names[] = {
	[HFD_LOG_ERR] = "err",
	[HFD_LOG_WARN] = "warn",
	[HFD_LOG_INFO] = "info",
	[HFD_LOG_DEBUG] = "debug",
};

static const int level_prio[] = {
	[HFD_LOG_ERR] = LOG_ERR,
	[HFD_LOG_WARN] = LOG_WARNING,
	[HFD_LOG_INFO] = LOG_INFO,
	[HFD_LOG_DEBUG] = LOG_DEBUG,
};

/**
 * hfd_log_parse_level() - level number of a level name
 * @name: "err", "warn", "info" or "debug"
 *
 * Return: the HFD_LOG_* level, or -EINVAL.
 */
int hfd_log_parse_level(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (!strcmp(name, level_names[i]))
			return (int)i;
	return -EINVAL;
}

/* HPU_WARN_ON() reports (common/hpu_warn.h) go to the log as errors */
static void warn_to_log(const char *msg)
{
	hfd_log(HFD_LOG_ERR, "%s", msg);
}

/**
 * hfd_log_setup() - choose the level and the sink of the log
 * @level: most verbose HFD_LOG_* level printed
 * @use_syslog: log to syslog (daemon mode) instead of stderr
 */
void hfd_log_setup(int level, bool use_syslog)
{
	log_level = level;
	log_syslog = use_syslog;
	if (use_syslog)
		openlog("hpu-fused", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	hpu_warn_set_sink(warn_to_log);
}

/**
 * hfd_log_enabled() - whether messages of @level are printed
 * @level: HFD_LOG_* level
 */
bool hfd_log_enabled(int level)
{
	return level <= log_level;
}

static void log_va(int level, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_syslog)
		syslog(level_prio[level], "%s", msg);
	else
		fprintf(stderr, "hpu-fused: %s: %s\n", level_names[level], msg);
}

/**
 * hfd_log() - print one message if @level is enabled
 * @level: HFD_LOG_* level
 * @fmt: printf format, no trailing newline
 */
void hfd_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (!hfd_log_enabled(level))
		return;
	va_start(ap, fmt);
	log_va(level, fmt, ap);
	va_end(ap);
}

/**
 * hfd_log_rl() - print one message unless its call site is over its
 * budget; use through hfd_log_ratelimited()
 * @rl: state of the call site
 * @level: HFD_LOG_* level
 * @fmt: printf format
 */
void hfd_log_rl(struct hfd_ratelimit *rl, int level, const char *fmt, ...)
{
	struct timespec ts;
	unsigned int suppressed = 0;
	bool print;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	pthread_mutex_lock(&rl_lock);
	if (ts.tv_sec - rl->window_start >= RL_WINDOW_S) {
		suppressed = rl->suppressed;
		rl->window_start = ts.tv_sec;
		rl->printed = 0;
		rl->suppressed = 0;
	}
	print = rl->printed < RL_BURST;
	if (print)
		rl->printed++;
	else
		rl->suppressed++;
	pthread_mutex_unlock(&rl_lock);

	if (suppressed)
		hfd_log(level, "%u similar messages suppressed", suppressed);
	if (!print)
		return;
	va_start(ap, fmt);
	log_va(level, fmt, ap);
	va_end(ap);
}

/* SPDX-License-Identifier: MIT */
/*
 * hpu_fused_log.h - levelled, rate-limited logging of the daemon
 * (log.c).
 *
 * Part of hpu_fused.h (the driver core's internal interface), which
 * includes every part; a file may include just the parts it uses.
 */
#ifndef HPU_FUSED_LOG_H
#define HPU_FUSED_LOG_H

#include <stdbool.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* Logging (log.c)                                                     */
/* ------------------------------------------------------------------ */

enum hfd_log_level {
	HFD_LOG_ERR = 0,
	HFD_LOG_WARN = 1,
	HFD_LOG_INFO = 2,
	HFD_LOG_DEBUG = 3,
};

/**
 * struct hfd_ratelimit - state of one rate-limited log call site
 * @window_start: start of the current window, CLOCK_MONOTONIC seconds
 * @printed: messages printed in the window
 * @suppressed: messages dropped in the window
 */
struct hfd_ratelimit {
	int64_t window_start;
	unsigned int printed;
	unsigned int suppressed;
};

int hfd_log_parse_level(const char *name);
void hfd_log_setup(int level, bool use_syslog);
bool hfd_log_enabled(int level);
void hfd_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void hfd_log_rl(struct hfd_ratelimit *rl, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define hfd_err(...)  hfd_log(HFD_LOG_ERR, __VA_ARGS__)
#define hfd_warn(...) hfd_log(HFD_LOG_WARN, __VA_ARGS__)
#define hfd_info(...) hfd_log(HFD_LOG_INFO, __VA_ARGS__)
#define hfd_dbg(...)  hfd_log(HFD_LOG_DEBUG, __VA_ARGS__)

/*
 * Messages caused by client input go through here: at most a burst per
 * call site and window, then a count of what was suppressed.
 */
#define hfd_log_ratelimited(level, ...)                         \
	do {                                                    \
		static struct hfd_ratelimit _rl;                \
		if (hfd_log_enabled(level))                     \
			hfd_log_rl(&_rl, (level), __VA_ARGS__); \
	} while (0)

#endif /* HPU_FUSED_LOG_H */

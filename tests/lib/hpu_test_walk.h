/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_walk.h - the operator's tools for the failure-path walk
 * (test_failure_walk.c): hl-smi (hpu-smi invoked by that name, as the
 * compat install has it), hpu-train runs on chosen devices, and reading
 * their output. cmocka assertions inside: call from a test.
 */
#ifndef HPU_TEST_WALK_H
#define HPU_TEST_WALK_H

#include <stddef.h>

#include "hpu_test_proc.h"

/* bound of a tool run (hl-smi) */
#define HPU_WALK_TOOL_MS      30000
/* bound of the wait for a run to start training, and to end */
#define HPU_WALK_TRAIN_MS     120000
/*
 * hpu-train --cs-timeout of the walk's long run: a hung CS ends after it
 * (the default, 120 s, would make the CS-timeout case wait that long);
 * an ordinary CS of the run ends far sooner, also on a loaded machine
 */
#define HPU_WALK_CS_TIMEOUT_S "15"

/**
 * struct hpu_walk - what the teardown cleans up, whatever failed
 * @train: the long training run (pid 0 when none runs)
 * @dir: directory of the hl-smi link
 * @hlsmi: the link: hpu-smi invoked as hl-smi
 */
struct hpu_walk {
	struct hpu_test_proc train;
	char dir[64];
	char hlsmi[128];
};

extern struct hpu_walk hpu_walk;

/** hpu_walk_setup() - make the hl-smi link; 0 or -1 */
int hpu_walk_setup(void);

/** hpu_walk_teardown() - kill a run left over, remove the link */
void hpu_walk_teardown(void);

/**
 * hpu_walk_hlsmi() - run hl-smi with up to 8 arguments (NULL-terminated),
 * stdout and stderr apart in @p; fails the test when it does not end
 */
void hpu_walk_hlsmi(struct hpu_test_proc *p, ...);

/**
 * hpu_walk_status() - hl-smi's status of device @dev ("operational",
 * "needs reset", "malfunction", ...) into @buf
 */
void hpu_walk_status(int dev, char *buf, size_t len);

/**
 * hpu_walk_q() - `hl-smi -q -i DEV` (all sections) of device @dev, its
 * exit status checked and its bus id @bus_id in it; free @p after
 */
void hpu_walk_q(struct hpu_test_proc *p, int dev, const char *bus_id);

/**
 * hpu_walk_q_value() - the number of key @key in `hl-smi -q` output
 * (the first "key : value" line with it); fails when there is none
 */
long hpu_walk_q_value(const char *out, const char *key);

/**
 * hpu_walk_q_str() - the value of key @key in `hl-smi -q` output, into
 * @buf; fails when there is none
 */
void hpu_walk_q_str(const char *out, const char *key, char *buf, size_t len);

/**
 * hpu_walk_train_start() - hpu-train with @args, only the devices of
 * @visible (HPU_VISIBLE_DEVICES) seen, no cluster variables
 */
void hpu_walk_train_start(struct hpu_test_proc *p, const char *visible,
			  const char *const *args);

/** hpu_walk_train_dump() - print a run that did not do what was expected */
void hpu_walk_train_dump(const char *what, const struct hpu_test_proc *p);

/**
 * hpu_walk_train_until_running() - the walk's long run (hpu_walk.train)
 * on @ndev devices of @visible has trained an epoch and still runs
 */
void hpu_walk_train_until_running(const char *visible, int ndev);

/**
 * hpu_walk_train_ends_naming() - the long run ends on its own with exit
 * status 1 and @name (and "hpu-train: ", and @why unless NULL) on stderr
 */
void hpu_walk_train_ends_naming(const char *name, const char *why);

/**
 * hpu_walk_train_stop() - the long run still trains (it did not end on
 * its own); it is stopped (SIGKILL)
 */
void hpu_walk_train_stop(void);

/**
 * hpu_walk_train_finishes() - a short run on @ndev devices of @visible
 * acquires them and finishes
 */
void hpu_walk_train_finishes(const char *visible, int ndev);

/** hpu_walk_reset() - `hl-smi -r -i DEV`: a hard reset of @dev, done */
void hpu_walk_reset(int dev);

#endif /* HPU_TEST_WALK_H */

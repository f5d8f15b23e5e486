/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_stage.h - copies of built programs that another user can run,
 * wherever the checkout is.
 *
 * A test that runs a program as an unprivileged user (uid 65534) cannot
 * run it from the build tree when the checkout lies in a private directory
 * (a mode 0700 `mktemp -d` or home directory): the user cannot search the
 * path, so execve() or the dynamic loader (rpath $ORIGIN/../lib) fails
 * with exit 126/127. A stage is a fresh /tmp/hpu-stage-XXXXXX of mode 0755
 * holding DIR/bin/NAME and the shared libraries of $O/lib the programs
 * load in DIR/lib, found there through the same rpath; the test removes it
 * when done.
 */
#ifndef HPU_TEST_STAGE_H
#define HPU_TEST_STAGE_H

#include <limits.h>
#include <sys/types.h>

/**
 * struct hpu_test_stage - one staged directory
 * @dir: the directory (/tmp/hpu-stage-XXXXXX), "" when there is none
 */
struct hpu_test_stage {
	char dir[64];
};

/**
 * hpu_test_stage_create() - copy programs and the build's shared libraries
 * where every user can run them
 * @s: receives the directory
 * @names: NULL-terminated program names in $O/bin, e.g. "hpu-smi"
 *
 * Copies $O/bin/NAME to DIR/bin/NAME (mode 0755) and every shared library
 * of $O/lib (libNAME.so*, symbolic links as links) to DIR/lib.
 *
 * Return: 0, or -errno with nothing left behind.
 */
int hpu_test_stage_create(struct hpu_test_stage *s, const char *const *names);

/**
 * hpu_test_stage_bin() - path of the staged program @name
 * @s: stage
 * @name: program name given to hpu_test_stage_create()
 *
 * Return: a static buffer, overwritten by the next call.
 */
const char *hpu_test_stage_bin(const struct hpu_test_stage *s,
			       const char *name);

/**
 * hpu_test_stage_usable() - whether @uid:@gid can run the staged @name
 * @s: stage
 * @name: program name
 * @uid: user
 * @gid: its group
 *
 * Asks as that user, in a forked child (the caller must be root), whether
 * the program is executable and its file system allows executing
 * (no noexec mount).
 *
 * Return: NULL when it can, else the reason (a static buffer) for a skip.
 */
const char *hpu_test_stage_usable(const struct hpu_test_stage *s,
				  const char *name, uid_t uid, gid_t gid);

/**
 * hpu_test_stage_remove() - delete the stage's files and directory
 * @s: stage; nothing happens when it has none
 */
void hpu_test_stage_remove(struct hpu_test_stage *s);

#endif /* HPU_TEST_STAGE_H */

/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_scratch.h - a test's scratch directory: files by name inside
 * it, and the whole tree removed at the end.
 */
#ifndef HPU_TEST_SCRATCH_H
#define HPU_TEST_SCRATCH_H

/**
 * hpu_test_scratch_path() - @dir/@name
 * @dir: the scratch directory
 * @name: a file name inside it
 *
 * Return: a static string, one of four used in turn (so a call can take
 * up to four paths as arguments).
 */
const char *hpu_test_scratch_path(const char *dir, const char *name);

/**
 * hpu_test_remove_tree() - remove @dir and everything in it (symbolic
 * links are removed, not followed)
 * @dir: the directory
 *
 * Return: 0, or -1 when something could not be removed (a missing @dir
 * is not an error).
 */
int hpu_test_remove_tree(const char *dir);

#endif /* HPU_TEST_SCRATCH_H */

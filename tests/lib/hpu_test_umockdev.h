/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_umockdev.h - running a test binary under umockdev, whose
 * mock sysfs and udev work by LD_PRELOAD of libumockdev-preload.so.0:
 * the binary runs itself again with it, once.
 */
#ifndef HPU_TEST_UMOCKDEV_H
#define HPU_TEST_UMOCKDEV_H

/**
 * hpu_test_umockdev_reexec() - run this binary again (same @argv) with
 * libumockdev-preload.so.0 in LD_PRELOAD, unless it is already mapped
 * @argv: main()'s argument vector
 * @again_env: the environment variable that marks the second run (set
 *	before the exec; found set, the preload did not work)
 *
 * Under AddressSanitizer the preload comes before its runtime, so
 * verify_asan_link_order=0 is added to ASAN_OPTIONS. Returns only when
 * there is nothing to do or the exec failed.
 *
 * Return: NULL when the preload library is in this process, else why
 * the umockdev tests must be skipped.
 */
const char *hpu_test_umockdev_reexec(char **argv, const char *again_env);

#endif /* HPU_TEST_UMOCKDEV_H */

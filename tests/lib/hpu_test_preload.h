/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_preload.h - sanitizer runtimes for programs that are not ours
 * (python3 loading an instrumented libhlml through ctypes).
 */
#ifndef HPU_TEST_PRELOAD_H
#define HPU_TEST_PRELOAD_H

/**
 * hpu_test_sanitizer_preload() - let an uninstrumented program load our
 * instrumented libraries
 *
 * When this test runs under ASan/UBSan, sets LD_PRELOAD to the runtimes
 * the test itself has mapped (ASan's first, as it must be) and turns off
 * leak detection (the program's own allocations at exit are not ours).
 * Does nothing in a plain build. Children started afterwards inherit it.
 */
void hpu_test_sanitizer_preload(void);

#endif /* HPU_TEST_PRELOAD_H */

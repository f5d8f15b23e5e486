/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_blas.h - one OpenBLAS core for a test and the programs it
 * starts (docs/building.md, "OpenBLAS's core").
 */
#ifndef HPU_TEST_BLAS_H
#define HPU_TEST_BLAS_H

/**
 * hpu_test_blas_pin() - make the programs this test starts compute on
 *	the OpenBLAS core this test process computes on
 *
 * A test that compares the daemon's GEMMs with its own cblas_sgemm()
 * needs both on one core. tests/run-tests exports the core hpu's
 * programs choose (OPENBLAS_CORETYPE); a test binary run by hand has
 * OpenBLAS's own choice, while the daemon it starts would choose
 * another. So, once per process: when OpenBLAS is loaded in this
 * process and OPENBLAS_CORETYPE is unset, it is set to this process's
 * core, which hpu-fused, hpu-train, hpu-generate and hpu-bench then
 * keep. A test without OpenBLAS changes nothing: its programs agree
 * among themselves. Called by the helpers that start programs
 * (hpu_test_daemon_spawn(), hpu_test_proc_start(),
 * hpu_test_train_env()).
 */
void hpu_test_blas_pin(void);

#endif /* HPU_TEST_BLAS_H */

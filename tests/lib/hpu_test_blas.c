// SPDX-License-Identifier: MIT
/*
 * hpu_test_blas.c - the OpenBLAS core of a test's children
 * (hpu_test_blas.h).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "hpu_test_blas.h"

static pthread_once_t pin_once = PTHREAD_ONCE_INIT;

static void pin(void)
{
	const char *(*corename)(void);
	const char *core;

	if (getenv("OPENBLAS_CORETYPE"))
		return;
	/* looked up, not linked: a test without BLAS stays without it */
	*(void **)&corename = dlsym(RTLD_DEFAULT, "openblas_get_corename");
	if (!corename)
		return;
	core = corename();
	if (core && *core)
		setenv("OPENBLAS_CORETYPE", core, 0);
}

void hpu_test_blas_pin(void)
{
	pthread_once(&pin_once, pin);
}

/* SPDX-License-Identifier: MIT */
/*
 * hpu_blas_core.h - which OpenBLAS core (kernel set) every process of hpu
 * runs its GEMMs on (docs/building.md "OpenBLAS's core").
 *
 * A DYNAMIC_ARCH OpenBLAS (Debian's) picks its kernels in its library
 * constructor, from the CPU's family and model, or from
 * OPENBLAS_CORETYPE when that is set. A model newer than the library
 * (Debian 12's 0.3.21 on a VM reporting family 6 model 207) falls back to
 * Prescott's SSE3 kernels: about 6 x slower than the AVX-512 ones the CPU
 * could run. The programs of hpu that compute with OpenBLAS (hpu-fused,
 * hpu-train, hpu-generate, hpu-bench) call hpu_blas_core_apply() first
 * thing in main(): when OpenBLAS under-detected the CPU, it sets
 * OPENBLAS_CORETYPE and runs the program again (same pid, same argv), so
 * the library starts with the right kernels and every child the program
 * starts inherits the same choice.
 *
 * The choice must be the same in every process of a run: the kernels
 * add a product's terms in their own order, and the tests compare the
 * device's GEMMs (in the daemon) with the cpu path's (in the test or
 * training process) bit for bit.
 */
#ifndef HPU_BLAS_CORE_H
#define HPU_BLAS_CORE_H

#include <stdbool.h>
#include <stddef.h>

/* Opt-out switch: HPU_BLAS_CORETYPE=keep leaves OpenBLAS's own choice */
#define HPU_BLAS_CORE_ENV	   "HPU_BLAS_CORETYPE"
/* OpenBLAS's own override, read by its library constructor */
#define HPU_BLAS_CORE_OPENBLAS_ENV "OPENBLAS_CORETYPE"
/*
 * Set together with OPENBLAS_CORETYPE before the re-exec: the core
 * OpenBLAS had chosen by itself. It marks OPENBLAS_CORETYPE as hpu's
 * (not the user's) and guards against a second re-exec.
 */
#define HPU_BLAS_CORE_FROM_ENV	   "HPU_BLAS_CORE_FROM"

/* CPU features the choice looks at (hpu_blas_cpu_flags()) */
#define HPU_CPU_AVX2	 (1u << 0)
#define HPU_CPU_FMA	 (1u << 1)
#define HPU_CPU_AVX512F	 (1u << 2)
#define HPU_CPU_AVX512BW (1u << 3)
#define HPU_CPU_AVX512VL (1u << 4)
#define HPU_CPU_AVX512DQ (1u << 5)
#define HPU_CPU_AVX512                                           \
	(HPU_CPU_AVX512F | HPU_CPU_AVX512BW | HPU_CPU_AVX512VL | \
	 HPU_CPU_AVX512DQ)

/**
 * enum hpu_blas_core_why - how this process's OpenBLAS core came about
 * @HPU_BLAS_CORE_DETECTED: OpenBLAS's own choice fits the CPU, kept
 * @HPU_BLAS_CORE_CHOSEN: hpu set OPENBLAS_CORETYPE (in this process
 *	before its re-exec, or in the parent it inherited the setting from)
 * @HPU_BLAS_CORE_USER: OPENBLAS_CORETYPE came from the user, kept
 * @HPU_BLAS_CORE_KEEP: HPU_BLAS_CORETYPE=keep, OpenBLAS's choice kept
 * @HPU_BLAS_CORE_STATIC: the library is built for one core (no
 *	DYNAMIC_ARCH): OPENBLAS_CORETYPE would change nothing
 * @HPU_BLAS_CORE_EXEC_FAILED: a better core exists but the re-exec
 *	failed, or was not tried because the program was started through
 *	the dynamic loader (ld.so PROGRAM): OpenBLAS's choice kept (a
 *	warning)
 * @HPU_BLAS_CORE_IGNORED: hpu set OPENBLAS_CORETYPE but the library runs
 *	another core (a warning)
 */
enum hpu_blas_core_why {
	HPU_BLAS_CORE_DETECTED,
	HPU_BLAS_CORE_CHOSEN,
	HPU_BLAS_CORE_USER,
	HPU_BLAS_CORE_KEEP,
	HPU_BLAS_CORE_STATIC,
	HPU_BLAS_CORE_EXEC_FAILED,
	HPU_BLAS_CORE_IGNORED,
};

/**
 * struct hpu_blas_core - what hpu_blas_core_apply() decided
 * @why: how the running core came about
 * @running: the core OpenBLAS runs in this process
 *	(openblas_get_corename())
 * @detected: the core OpenBLAS chose by itself (for
 *	%HPU_BLAS_CORE_CHOSEN, from HPU_BLAS_CORE_FROM)
 * @wanted: for %HPU_BLAS_CORE_EXEC_FAILED and %HPU_BLAS_CORE_IGNORED,
 *	the core hpu wanted; else empty
 * @bad_switch: HPU_BLAS_CORETYPE held something other than "keep" or
 *	"auto" (treated as "auto")
 * @err: for %HPU_BLAS_CORE_EXEC_FAILED, the errno of execv(), 0 when
 *	the program was started through the dynamic loader
 */
struct hpu_blas_core {
	enum hpu_blas_core_why why;
	char running[32];
	char detected[32];
	char wanted[32];
	bool bad_switch;
	int err;
};

/**
 * hpu_blas_cpu_flags() - the HPU_CPU_* features this CPU has and the
 *	operating system enables (AVX state saved on context switches)
 *
 * Return: a mask of HPU_CPU_* bits.
 */
unsigned int hpu_blas_cpu_flags(void);

/**
 * hpu_blas_core_pick() - the OPENBLAS_CORETYPE that fixes an
 *	under-detection, if any
 * @corename: the core OpenBLAS chose by itself (openblas_get_corename())
 * @cpu_flags: HPU_CPU_* features of the CPU (hpu_blas_cpu_flags())
 *
 * Only a generic or older core than the CPU supports is replaced:
 * SSE-era and AVX-only cores (Prescott, Core2, Nehalem, Sandybridge,
 * Barcelona, ...; the case-insensitive list in hpu_blas_core.c) become
 * "Haswell" on a CPU with AVX2 and FMA, "SkylakeX" when it also has
 * AVX-512 F, BW, VL and DQ. Any other name (Haswell, SkylakeX, Cooperlake, SapphireRapids,
 * Zen, a name of a newer library) is a detection hpu does not second-
 * guess. Pure: no environment, no library call.
 *
 * Return: "SkylakeX", "Haswell" or NULL (keep @corename).
 */
const char *hpu_blas_core_pick(const char *corename, unsigned int cpu_flags);

/**
 * hpu_blas_core_apply() - give this process the OpenBLAS core hpu wants;
 *	may run the program again
 * @argv: main()'s argv, for the re-exec
 * @st: filled with the decision (hpu_blas_core_describe() words it)
 *
 * Called first thing in main(), before any thread or file is made.
 * Runs the library as it started when OPENBLAS_CORETYPE or
 * HPU_BLAS_CORE_FROM is already set (the user's choice, or this is the
 * re-exec or its child: there is never a second one), when
 * HPU_BLAS_CORETYPE is "keep", when the library is built for one core,
 * or when hpu_blas_core_pick() keeps OpenBLAS's choice.
 * Otherwise sets OPENBLAS_CORETYPE and HPU_BLAS_CORE_FROM and execv()s
 * the program's file (the target of /proc/self/exe, so that the process
 * keeps its name) with @argv; it returns only when that fails (both
 * variables are removed again, %HPU_BLAS_CORE_EXEC_FAILED).
 */
void hpu_blas_core_apply(char **argv, struct hpu_blas_core *st);

/**
 * hpu_blas_core_start() - hpu_blas_core_apply() for a command-line
 *	program: a warning of hpu_blas_core_describe() goes to stderr
 * @argv: main()'s argv, for the re-exec
 * @prog: the program's name, the warning's prefix
 * @st: filled with the decision, for the program's own report of it
 *
 * Called first thing in main(), as hpu_blas_core_apply().
 */
void hpu_blas_core_start(char **argv, const char *prog,
			 struct hpu_blas_core *st);

/**
 * hpu_blas_core_coretype() - the OPENBLAS_CORETYPE every process of a
 *	run should have, for scripts and test runners to export
 *
 * Reads the environment as hpu_blas_core_apply() does, without
 * changing anything: OPENBLAS_CORETYPE when set (NULL when empty),
 * nothing with HPU_BLAS_CORETYPE=keep, HPU_BLAS_CORE_FROM alone or a
 * one-core library, else
 * hpu_blas_core_pick() of this process's OpenBLAS core.
 *
 * Return: a core name, or NULL when OpenBLAS's own choice is right.
 */
const char *hpu_blas_core_coretype(void);

/**
 * hpu_blas_core_describe() - one line saying which core runs and why
 * @st: hpu_blas_core_apply()'s decision
 * @buf: where the line goes (no newline)
 * @len: size of @buf
 *
 * Return: true when the line is a warning (the wanted core is not
 * running, or HPU_BLAS_CORETYPE held a bad value), false for
 * information.
 */
bool hpu_blas_core_describe(const struct hpu_blas_core *st, char *buf,
			    size_t len);

#endif /* HPU_BLAS_CORE_H */

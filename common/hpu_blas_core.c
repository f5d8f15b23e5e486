// SPDX-License-Identifier: MIT
/*
 * hpu_blas_core.c - the OpenBLAS core of hpu's processes: the choice, the
 * re-exec that applies it, its log line (hpu_blas_core.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <cblas.h>

#include "hpu_blas_core.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The cores a DYNAMIC_ARCH OpenBLAS falls back to, or that predate AVX2:
 * Prescott is x86-64's fallback for a model the library does not know;
 * the others are SSE-era or AVX-only kernel sets. On a CPU with AVX2 and
 * FMA (and the OS saving their state) each is an under-detection. Names
 * as openblas_get_corename() spells them (0.3.x), compared ignoring case.
 */
static const char *const weak_cores[] = {
	"Unknown",   "Katmai", "Coppermine", "Northwood",    "Prescott",
	"Banias",    "Atom",   "Core2",	     "Penryn",	     "Dunnington",
	"Nehalem",   "Athlon", "Opteron",    "Opteron_SSE3", "Opteron(SSE3)",
	"Barcelona", "Nano",   "Bobcat",     "Sandybridge",
};

unsigned int hpu_blas_cpu_flags(void)
{
	unsigned int f = 0;

#if defined(__x86_64__) || defined(__i386__)
	/* libgcc's and compiler-rt's checks include the OS's XSAVE state */
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2"))
		f |= HPU_CPU_AVX2;
	if (__builtin_cpu_supports("fma"))
		f |= HPU_CPU_FMA;
	if (__builtin_cpu_supports("avx512f"))
		f |= HPU_CPU_AVX512F;
	if (__builtin_cpu_supports("avx512bw"))
		f |= HPU_CPU_AVX512BW;
	if (__builtin_cpu_supports("avx512vl"))
		f |= HPU_CPU_AVX512VL;
	if (__builtin_cpu_supports("avx512dq"))
		f |= HPU_CPU_AVX512DQ;
#endif
	return f;
}

static bool is_weak(const char *corename)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(weak_cores); i++)
		if (!strcasecmp(corename, weak_cores[i]))
			return true;
	return false;
}

const char *hpu_blas_core_pick(const char *corename, unsigned int cpu_flags)
{
	const unsigned int avx2 = HPU_CPU_AVX2 | HPU_CPU_FMA;

	/* SkylakeX's kernels use AVX2 and FMA too */
	if (!corename || !is_weak(corename) || (cpu_flags & avx2) != avx2)
		return NULL;
	if ((cpu_flags & HPU_CPU_AVX512) == HPU_CPU_AVX512)
		return "SkylakeX";
	return "Haswell";
}

/* OPENBLAS_CORETYPE has an effect only on a DYNAMIC_ARCH library */
static bool library_is_dynamic(void)
{
	const char *cfg = openblas_get_config();

	return cfg && strstr(cfg, "DYNAMIC_ARCH");
}

static void copy_name(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "?");
}

/* HPU_BLAS_CORETYPE: true for "keep"; anything but keep/auto/empty is bad */
static bool switch_says_keep(bool *bad)
{
	const char *sw = getenv(HPU_BLAS_CORE_ENV);

	*bad = false;
	if (!sw || !*sw || !strcmp(sw, "auto"))
		return false;
	if (!strcmp(sw, "keep"))
		return true;
	*bad = true;
	return false;
}

/*
 * execv() this program's file with @argv; returns only on failure. By its
 * path, not by /proc/self/exe: the process's name (comm: ps, pgrep,
 * systemd, the clients attribute) is the base name of the path executed.
 */
static void run_again(char **argv)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n > 0) {
		path[n] = '\0';
		execv(path, argv);
	}
	execv("/proc/self/exe", argv);
}

void hpu_blas_core_apply(char **argv, struct hpu_blas_core *st)
{
	const char *user = getenv(HPU_BLAS_CORE_OPENBLAS_ENV);
	const char *from = getenv(HPU_BLAS_CORE_FROM_ENV);
	const char *pick;

	memset(st, 0, sizeof(*st));
	copy_name(st->running, sizeof(st->running), openblas_get_corename());
	copy_name(st->detected, sizeof(st->detected), st->running);
	if (switch_says_keep(&st->bad_switch) && !user) {
		st->why = HPU_BLAS_CORE_KEEP;
		return;
	}
	if (user && from) {
		/* the re-exec, or a child of a process that made it */
		st->why = HPU_BLAS_CORE_CHOSEN;
		copy_name(st->detected, sizeof(st->detected), from);
		if (strcasecmp(st->running, user)) {
			st->why = HPU_BLAS_CORE_IGNORED;
			copy_name(st->wanted, sizeof(st->wanted), user);
		}
		return;
	}
	if (user) {
		st->why = HPU_BLAS_CORE_USER;
		return;
	}
	st->why = HPU_BLAS_CORE_DETECTED;
	/* HPU_BLAS_CORE_FROM alone: someone removed our choice; never loop */
	if (from)
		return;
	if (!library_is_dynamic()) {
		st->why = HPU_BLAS_CORE_STATIC;
		return;
	}
	pick = hpu_blas_core_pick(st->running, hpu_blas_cpu_flags());
	if (!pick || !argv || !argv[0])
		return;
	/*
	 * No interpreter: started as "ld.so PROGRAM", where /proc/self/exe
	 * is the loader, which would take argv[1] for the program
	 */
	if (!getauxval(AT_BASE)) {
		st->why = HPU_BLAS_CORE_EXEC_FAILED;
		copy_name(st->wanted, sizeof(st->wanted), pick);
		return;
	}
	if (setenv(HPU_BLAS_CORE_FROM_ENV, st->running, 1) ||
	    setenv(HPU_BLAS_CORE_OPENBLAS_ENV, pick, 1)) {
		st->err = errno;
	} else {
		run_again(argv);
		st->err = errno;
	}
	unsetenv(HPU_BLAS_CORE_OPENBLAS_ENV);
	unsetenv(HPU_BLAS_CORE_FROM_ENV);
	st->why = HPU_BLAS_CORE_EXEC_FAILED;
	copy_name(st->wanted, sizeof(st->wanted), pick);
}

void hpu_blas_core_start(char **argv, const char *prog,
			 struct hpu_blas_core *st)
{
	char line[256];

	hpu_blas_core_apply(argv, st);
	if (hpu_blas_core_describe(st, line, sizeof(line)))
		fprintf(stderr, "%s: warning: %s\n", prog, line);
}

const char *hpu_blas_core_coretype(void)
{
	const char *user = getenv(HPU_BLAS_CORE_OPENBLAS_ENV);
	bool bad;

	if (user)
		return *user ? user : NULL;
	if (switch_says_keep(&bad) || getenv(HPU_BLAS_CORE_FROM_ENV) ||
	    !library_is_dynamic())
		return NULL;
	return hpu_blas_core_pick(openblas_get_corename(),
				  hpu_blas_cpu_flags());
}

bool hpu_blas_core_describe(const struct hpu_blas_core *st, char *buf,
			    size_t len)
{
	const char *tail = st->bad_switch ?
				   "; " HPU_BLAS_CORE_ENV
				   " must be keep or auto, taken as auto" :
				   "";
	bool warn = st->bad_switch;

	switch (st->why) {
	case HPU_BLAS_CORE_CHOSEN:
		snprintf(
			buf, len,
			"OpenBLAS core %s, chosen by hpu for this CPU (OpenBLAS "
			"took %s; " HPU_BLAS_CORE_ENV "=keep leaves it)%s",
			st->running, st->detected, tail);
		break;
	case HPU_BLAS_CORE_USER:
		snprintf(buf, len,
			 "OpenBLAS core %s, from " HPU_BLAS_CORE_OPENBLAS_ENV
			 "=%s%s",
			 st->running, getenv(HPU_BLAS_CORE_OPENBLAS_ENV) ?: "",
			 tail);
		break;
	case HPU_BLAS_CORE_KEEP:
		snprintf(buf, len,
			 "OpenBLAS core %s, OpenBLAS's own choice "
			 "(" HPU_BLAS_CORE_ENV "=keep)",
			 st->running);
		break;
	case HPU_BLAS_CORE_STATIC:
		snprintf(buf, len,
			 "OpenBLAS core %s, the library's only one (built "
			 "without DYNAMIC_ARCH)%s",
			 st->running, tail);
		break;
	case HPU_BLAS_CORE_EXEC_FAILED:
		if (!st->err) {
			snprintf(
				buf, len,
				"OpenBLAS core %s, not %s: started through "
				"the dynamic loader, not run again (set " HPU_BLAS_CORE_OPENBLAS_ENV
				"=%s)%s",
				st->running, st->wanted, st->wanted, tail);
			warn = true;
			break;
		}
		snprintf(buf, len,
			 "OpenBLAS core %s, not %s: cannot run this program "
			 "again with " HPU_BLAS_CORE_OPENBLAS_ENV "=%s: %s%s",
			 st->running, st->wanted, st->wanted, strerror(st->err),
			 tail);
		warn = true;
		break;
	case HPU_BLAS_CORE_IGNORED:
		snprintf(
			buf, len,
			"OpenBLAS core %s, not the %s that hpu set in " HPU_BLAS_CORE_OPENBLAS_ENV
			" (OpenBLAS took %s)%s",
			st->running, st->wanted, st->detected, tail);
		warn = true;
		break;
	case HPU_BLAS_CORE_DETECTED:
	default:
		snprintf(buf, len,
			 "OpenBLAS core %s, OpenBLAS's own choice for this "
			 "CPU%s",
			 st->running, tail);
		break;
	}
	return warn;
}

// SPDX-License-Identifier: MIT
/*
 * test_blas_core.c - the choice of OpenBLAS's core (common/hpu_blas_core.h):
 * which detections are upgraded on which CPU features and which are never
 * touched; that OPENBLAS_CORETYPE from the user, HPU_BLAS_CORETYPE=keep
 * and the re-exec's own marker all keep the running core (none of these
 * cases may exec: main() fails when this binary was run again); what
 * --blas-coretype prints; and the log line of each outcome.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cblas.h>

#include "hpu_blas_core.h"

/* set in main(): present at start only when hpu_blas_core_apply() exec'd */
#define STARTED_ENV "HPU_TEST_BLAS_CORE_STARTED"

#define AVX2_FMA (HPU_CPU_AVX2 | HPU_CPU_FMA)
#define ALL	 (AVX2_FMA | HPU_CPU_AVX512)

struct pick_case {
	const char *corename;
	unsigned int flags;
	const char *want; /* NULL: keep the detection */
};

static void test_pick_table(void **state)
{
	static const struct pick_case cases[] = {
		/* the fallbacks and older cores, on each kind of CPU */
		{ "Prescott", ALL, "SkylakeX" },
		{ "prescott", ALL, "SkylakeX" },
		{ "PRESCOTT", AVX2_FMA, "Haswell" },
		{ "Core2", ALL, "SkylakeX" },
		{ "Nehalem", AVX2_FMA, "Haswell" },
		{ "Penryn", ALL, "SkylakeX" },
		{ "Dunnington", ALL, "SkylakeX" },
		{ "Atom", AVX2_FMA, "Haswell" },
		{ "Barcelona", ALL, "SkylakeX" },
		{ "Opteron_SSE3", AVX2_FMA, "Haswell" },
		{ "Opteron(SSE3)", AVX2_FMA, "Haswell" },
		{ "Sandybridge", ALL, "SkylakeX" },
		{ "Sandybridge", AVX2_FMA, "Haswell" },
		{ "Unknown", ALL, "SkylakeX" },
		/* AVX-512 needs all four of F, BW, VL, DQ */
		{ "Prescott", AVX2_FMA | HPU_CPU_AVX512F, "Haswell" },
		{ "Prescott", ALL & ~HPU_CPU_AVX512BW, "Haswell" },
		{ "Prescott", ALL & ~HPU_CPU_AVX512VL, "Haswell" },
		{ "Prescott", ALL & ~HPU_CPU_AVX512DQ, "Haswell" },
		/* Haswell's kernels need both AVX2 and FMA */
		{ "Prescott", HPU_CPU_AVX2, NULL },
		{ "Prescott", HPU_CPU_FMA, NULL },
		{ "Nehalem", 0, NULL },
		{ "Sandybridge", HPU_CPU_AVX512, NULL },
		/* real detections are never second-guessed, nor downgraded */
		{ "Haswell", ALL, NULL },
		{ "SkylakeX", ALL, NULL },
		{ "SkylakeX", AVX2_FMA, NULL },
		{ "Cooperlake", ALL, NULL },
		{ "Cooperlake", 0, NULL },
		{ "SapphireRapids", ALL, NULL },
		{ "Zen", ALL, NULL },
		{ "Zen", AVX2_FMA, NULL },
		{ "Excavator", ALL, NULL },
		{ "Piledriver", AVX2_FMA, NULL },
		{ "Bulldozer", AVX2_FMA, NULL },
		/* names of a newer library, and no name */
		{ "Zen4", ALL, NULL },
		{ "NeoverseN1", ALL, NULL },
		{ "Prescott2", ALL, NULL },
		{ "", ALL, NULL },
		{ NULL, ALL, NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got =
			hpu_blas_core_pick(cases[i].corename, cases[i].flags);

		if (!cases[i].want != !got ||
		    (got && strcmp(got, cases[i].want)))
			fail_msg("pick(%s, %#x): %s, want %s",
				 cases[i].corename ?: "NULL", cases[i].flags,
				 got ?: "NULL", cases[i].want ?: "NULL");
	}
}

/* Every bit the CPU reports is in /proc/cpuinfo's flags */
static void test_cpu_flags_are_real(void **state)
{
	static const struct {
		unsigned int bit;
		const char *flag;
	} names[] = {
		{ HPU_CPU_AVX2, " avx2" },
		{ HPU_CPU_FMA, " fma" },
		{ HPU_CPU_AVX512F, " avx512f" },
		{ HPU_CPU_AVX512BW, " avx512bw" },
		{ HPU_CPU_AVX512VL, " avx512vl" },
		{ HPU_CPU_AVX512DQ, " avx512dq" },
	};
	unsigned int f = hpu_blas_cpu_flags();
	char line[8192], flags[8200] = "";
	FILE *cpu = fopen("/proc/cpuinfo", "r");
	size_t i;

	if (!cpu) {
		print_message("skipped: no /proc/cpuinfo\n");
		skip();
	}
	/* the line with a blank for its newline: each flag is " name " */
	while (fgets(line, sizeof(line), cpu))
		if (!strncmp(line, "flags", 5)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(flags, sizeof(flags), "%s ", line);
			break;
		}
	fclose(cpu);
	if (!flags[0]) {
		print_message("skipped: /proc/cpuinfo has no flags line\n");
		skip();
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char want[32];

		if (!(f & names[i].bit))
			continue;
		snprintf(want, sizeof(want), "%s ", names[i].flag);
		if (!strstr(flags, want))
			fail_msg("bit %#x set without%s in /proc/cpuinfo",
				 names[i].bit, names[i].flag);
	}
}

static char saved_user[64], saved_from[64], saved_switch[64];
static bool had_user, had_from, had_switch;

static void save(const char *name, char *buf, size_t len, bool *had)
{
	const char *v = getenv(name);

	*had = v != NULL;
	snprintf(buf, len, "%s", v ?: "");
}

static void restore(const char *name, const char *buf, bool had)
{
	if (had)
		setenv(name, buf, 1);
	else
		unsetenv(name);
}

/* each test starts from an environment without the three variables */
static int env_setup(void **state)
{
	save(HPU_BLAS_CORE_OPENBLAS_ENV, saved_user, sizeof(saved_user),
	     &had_user);
	save(HPU_BLAS_CORE_FROM_ENV, saved_from, sizeof(saved_from), &had_from);
	save(HPU_BLAS_CORE_ENV, saved_switch, sizeof(saved_switch),
	     &had_switch);
	unsetenv(HPU_BLAS_CORE_OPENBLAS_ENV);
	unsetenv(HPU_BLAS_CORE_FROM_ENV);
	unsetenv(HPU_BLAS_CORE_ENV);
	return 0;
}

static int env_teardown(void **state)
{
	restore(HPU_BLAS_CORE_OPENBLAS_ENV, saved_user, had_user);
	restore(HPU_BLAS_CORE_FROM_ENV, saved_from, had_from);
	restore(HPU_BLAS_CORE_ENV, saved_switch, had_switch);
	return 0;
}

/* A core name that is not the one running */
static const char *other_core(void)
{
	return strcasecmp(openblas_get_corename(), "Nehalem") ? "Nehalem" :
								"Haswell";
}

static void test_user_choice_kept(void **state)
{
	struct hpu_blas_core st;
	char line[256];

	setenv(HPU_BLAS_CORE_OPENBLAS_ENV, other_core(), 1);
	hpu_blas_core_apply((char *[]){ "test", NULL }, &st);
	assert_int_equal(st.why, HPU_BLAS_CORE_USER);
	assert_string_equal(st.running, openblas_get_corename());
	assert_string_equal(getenv(HPU_BLAS_CORE_OPENBLAS_ENV), other_core());
	assert_null(getenv(HPU_BLAS_CORE_FROM_ENV));
	assert_false(hpu_blas_core_describe(&st, line, sizeof(line)));
	assert_non_null(strstr(line, "from OPENBLAS_CORETYPE="));
	assert_non_null(strstr(line, other_core()));

	/* keep does not undo the user's own choice either */
	setenv(HPU_BLAS_CORE_ENV, "keep", 1);
	hpu_blas_core_apply((char *[]){ "test", NULL }, &st);
	assert_int_equal(st.why, HPU_BLAS_CORE_USER);
	assert_string_equal(hpu_blas_core_coretype(), other_core());
}

static void test_keep(void **state)
{
	struct hpu_blas_core st;
	char line[256];

	setenv(HPU_BLAS_CORE_ENV, "keep", 1);
	hpu_blas_core_apply((char *[]){ "test", NULL }, &st);
	assert_int_equal(st.why, HPU_BLAS_CORE_KEEP);
	assert_false(st.bad_switch);
	assert_null(getenv(HPU_BLAS_CORE_OPENBLAS_ENV));
	assert_null(hpu_blas_core_coretype());
	assert_false(hpu_blas_core_describe(&st, line, sizeof(line)));
	assert_non_null(strstr(line, "HPU_BLAS_CORETYPE=keep"));
}

/* The re-exec (or its child): reported, never done again */
static void test_after_reexec(void **state)
{
	struct hpu_blas_core st;
	char line[256];

	setenv(HPU_BLAS_CORE_FROM_ENV, "Prescott", 1);
	setenv(HPU_BLAS_CORE_OPENBLAS_ENV, openblas_get_corename(), 1);
	hpu_blas_core_apply((char *[]){ "test", NULL }, &st);
	assert_int_equal(st.why, HPU_BLAS_CORE_CHOSEN);
	assert_string_equal(st.detected, "Prescott");
	assert_false(hpu_blas_core_describe(&st, line, sizeof(line)));
	assert_non_null(strstr(line, "chosen by hpu"));
	assert_non_null(strstr(line, "OpenBLAS took Prescott"));

	/* the library ran another core than the one set: a warning */
	setenv(HPU_BLAS_CORE_OPENBLAS_ENV, other_core(), 1);
	hpu_blas_core_apply((char *[]){ "test", NULL }, &st);
	assert_int_equal(st.why, HPU_BLAS_CORE_IGNORED);
	assert_string_equal(st.wanted, other_core());
	assert_true(hpu_blas_core_describe(&st, line, sizeof(line)));
	assert_non_null(strstr(line, other_core()));
}

/* The marker without OPENBLAS_CORETYPE: no (second) re-exec */
static void test_marker_alone_no_loop(void **state)
{
	struct hpu_blas_core st;

	setenv(HPU_BLAS_CORE_FROM_ENV, "Prescott", 1);
	hpu_blas_core_apply((char *[]){ "test", NULL }, &st);
	assert_int_equal(st.why, HPU_BLAS_CORE_DETECTED);
	assert_null(getenv(HPU_BLAS_CORE_OPENBLAS_ENV));
	assert_null(hpu_blas_core_coretype());
}

static void test_bad_switch_warns(void **state)
{
	struct hpu_blas_core st;
	char line[256];

	setenv(HPU_BLAS_CORE_ENV, "Keep please", 1);
	setenv(HPU_BLAS_CORE_OPENBLAS_ENV, openblas_get_corename(), 1);
	hpu_blas_core_apply((char *[]){ "test", NULL }, &st);
	assert_true(st.bad_switch);
	assert_int_equal(st.why, HPU_BLAS_CORE_USER);
	assert_true(hpu_blas_core_describe(&st, line, sizeof(line)));
	assert_non_null(strstr(line, "must be keep or auto"));

	/* "auto" is the default, not an error */
	setenv(HPU_BLAS_CORE_ENV, "auto", 1);
	hpu_blas_core_apply((char *[]){ "test", NULL }, &st);
	assert_false(st.bad_switch);
	assert_false(hpu_blas_core_describe(&st, line, sizeof(line)));
}

/* --blas-coretype: what a runner exports */
static void test_coretype(void **state)
{
	const char *want;

	setenv(HPU_BLAS_CORE_OPENBLAS_ENV, "Haswell", 1);
	assert_string_equal(hpu_blas_core_coretype(), "Haswell");
	/* an empty one is never exported again */
	setenv(HPU_BLAS_CORE_OPENBLAS_ENV, "", 1);
	assert_null(hpu_blas_core_coretype());
	unsetenv(HPU_BLAS_CORE_OPENBLAS_ENV);
	/* as the programs decide for this process's own core */
	want = strstr(openblas_get_config(), "DYNAMIC_ARCH") ?
		       hpu_blas_core_pick(openblas_get_corename(),
					  hpu_blas_cpu_flags()) :
		       NULL;
	if (want)
		assert_string_equal(hpu_blas_core_coretype(), want);
	else
		assert_null(hpu_blas_core_coretype());
	print_message("this process: OpenBLAS core %s, --blas-coretype '%s'\n",
		      openblas_get_corename(), want ?: "");
}

static void test_describe_exec_failed(void **state)
{
	struct hpu_blas_core st = {
		.why = HPU_BLAS_CORE_EXEC_FAILED,
		.running = "Prescott",
		.detected = "Prescott",
		.wanted = "SkylakeX",
		.err = 2,
	};
	char line[256];

	assert_true(hpu_blas_core_describe(&st, line, sizeof(line)));
	assert_non_null(strstr(line, "Prescott, not SkylakeX"));
	assert_non_null(strstr(line, "No such file or directory"));
	/* not tried: started as "ld.so PROGRAM" */
	st.err = 0;
	assert_true(hpu_blas_core_describe(&st, line, sizeof(line)));
	assert_non_null(strstr(line, "dynamic loader"));
	assert_non_null(strstr(line, "OPENBLAS_CORETYPE=SkylakeX"));
	/* a short buffer is cut, still a string */
	assert_true(hpu_blas_core_describe(&st, line, 8));
	assert_int_equal(strlen(line), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pick_table),
		cmocka_unit_test(test_cpu_flags_are_real),
		cmocka_unit_test_setup_teardown(test_user_choice_kept,
						env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_keep, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_after_reexec, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_marker_alone_no_loop,
						env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_bad_switch_warns,
						env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_coretype, env_setup,
						env_teardown),
		cmocka_unit_test(test_describe_exec_failed),
	};

	if (getenv(STARTED_ENV)) {
		fprintf(stderr, "test_blas_core: hpu_blas_core_apply() ran "
				"this binary again\n");
		return 1;
	}
	setenv(STARTED_ENV, "1", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

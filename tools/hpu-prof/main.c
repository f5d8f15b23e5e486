// SPDX-License-Identifier: MIT
/*
 * main.c - hpu-prof: summarize a Chrome trace event file of libhpudrv
 * (HPU_PROFILE, hpu-train --profiler hpu) as tables, or merge several
 * into one (docs/tracing.md, "hpu-prof"; hpu-prof(1)).
 *
 *   hpu-prof [summary] [--top N] [--gap-us US] [--model] TRACE.json
 *   hpu-prof merge -o OUT.json TRACE.json...
 *
 * Exit status: 0 done, 1 a file could not be written, 2 bad flags or a
 * file that is not a trace.
 */
#include <errno.h>
#include <getopt.h>
#include <json.h>
#include <stdlib.h>
#include <string.h>

#include "prof.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROF_PROG " [summary] [--top N] [--gap-us US] "
		   "[--model] TRACE.json\n"
		   "       " PROF_PROG " merge -o OUT.json TRACE.json...\n"
		   "Summarize a Chrome trace of the hpu stack (HPU_PROFILE, "
		   "hpu-train --profiler hpu):\n"
		   "per engine queue busy %%, top jobs, NIC/compute overlap, "
		   "idle gaps, host spans.\n\n"
		   "  --top N       rows of the top tables (10)\n"
		   "  --gap-us US   shortest idle gap counted (100)\n"
		   "  --model       the modeled device time layout instead of "
		   "the host time one\n"
		   "  -o OUT.json   merge: the merged trace\n"
		   "  --help, --version\n\n"
		   "Exit status: 0 done, 1 cannot write, 2 bad flags or not a "
		   "trace.\n");
}

static int usage_err(const char *fmt, const char *arg)
{
	fprintf(stderr, PROF_PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(" PROF_PROG " --help for the usage)\n");
	return PROF_EXIT_USAGE;
}

static int parse_uint(const char *s, unsigned long lo, unsigned long hi,
		      unsigned long *v)
{
	char *end;

	errno = 0;
	if (!*s || *s == '-')
		return -EINVAL;
	*v = strtoul(s, &end, 10);
	if (errno || *end || *v < lo || *v > hi)
		return -EINVAL;
	return 0;
}

static int summary(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "top", required_argument, NULL, 't' },
		{ "gap-us", required_argument, NULL, 'g' },
		{ "model", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct prof_opts o = { .top = 10, .gap_us = 100 };
	struct prof_trace t;
	unsigned long v;
	char err[512];
	int c, ret;

	while ((c = getopt_long(argc, argv, "+", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			if (parse_uint(optarg, 1, 100000, &v))
				return usage_err("--top '%s': expected an "
						 "integer 1..100000",
						 optarg);
			o.top = (unsigned int)v;
			break;
		case 'g':
			if (parse_uint(optarg, 0, 3600000000UL, &v))
				return usage_err("--gap-us '%s': expected an "
						 "integer >= 0",
						 optarg);
			o.gap_us = (double)v;
			break;
		case 'm':
			o.model = true;
			break;
		case 'h':
			usage(stdout);
			return PROF_EXIT_OK;
		case 'V':
			printf(PROF_PROG " " HPU_VERSION "\n");
			return PROF_EXIT_OK;
		default:
			return usage_err("%s", "unknown option");
		}
	}
	if (optind != argc - 1)
		return usage_err("%s", "expected one trace file");
	ret = prof_load(argv[optind], NULL, &t, err, sizeof(err));
	if (ret == -ENOMEM) {
		fprintf(stderr, PROF_PROG ": out of memory\n");
		return PROF_EXIT_FAIL;
	}
	if (ret) {
		fprintf(stderr, PROF_PROG ": %s: not a trace: %s\n",
			argv[optind], err);
		return PROF_EXIT_USAGE;
	}
	printf("%s: ", argv[optind]);
	ret = prof_report(&t, &o, stdout);
	prof_free(&t);
	return ret ? PROF_EXIT_FAIL : PROF_EXIT_OK;
}

/* every event of every file into one traceEvents array */
static int merge(int argc, char **argv)
{
	json_object *out, *events, *root, *ev;
	const char *path = NULL;
	char err[512];
	size_t i, n;
	int c, k, ret = PROF_EXIT_OK;

	while ((c = getopt(argc, argv, "+o:")) != -1) {
		if (c != 'o')
			return usage_err("%s", "merge: unknown option");
		path = optarg;
	}
	if (!path || !*path)
		return usage_err("%s", "merge: -o OUT.json is required");
	if (optind >= argc)
		return usage_err("%s", "merge: expected trace files");
	out = json_object_new_object();
	events = json_object_new_array();
	if (!out || !events)
		return PROF_EXIT_FAIL;
	json_object_object_add(out, "traceEvents", events);
	json_object_object_add(out, "displayTimeUnit",
			       json_object_new_string("ns"));
	for (k = optind; k < argc && !ret; k++) {
		struct prof_trace t;
		json_object *arr;

		/* checked as hpu-prof summary checks it first */
		if (prof_load(argv[k], NULL, &t, err, sizeof(err))) {
			fprintf(stderr, PROF_PROG ": %s: not a trace: %s\n",
				argv[k], err);
			ret = PROF_EXIT_USAGE;
			break;
		}
		root = t.root;
		arr = root;
		if (json_object_is_type(root, json_type_object))
			json_object_object_get_ex(root, "traceEvents", &arr);
		n = json_object_array_length(arr);
		for (i = 0; i < n; i++) {
			ev = json_object_array_get_idx(arr, i);
			json_object_array_add(events, json_object_get(ev));
		}
		prof_free(&t);
	}
	if (!ret &&
	    json_object_to_file_ext(path, out, JSON_C_TO_STRING_PLAIN)) {
		fprintf(stderr, PROF_PROG ": cannot write %s: %s\n", path,
			json_util_get_last_err() ?: "error");
		ret = PROF_EXIT_FAIL;
	}
	json_object_put(out);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "merge"))
		return merge(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "summary"))
		return summary(argc - 1, argv + 1);
	return summary(argc, argv);
}

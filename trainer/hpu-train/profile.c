// SPDX-License-Identifier: MIT
/*
 * profile.c - --profiler hpu (docs/tracing.md, "hpu-train --profiler
 * hpu"): each rank profiles itself through libhpudrv (its devices'
 * engines and the trainer's host spans); with several ranks on a node,
 * each writes trace.rankN.json and the launcher merges them into
 * trace.json.
 *
 * The merge is by lines: libhpudrv writes the opening line
 * {"traceEvents":[, then one event per line, then a line "],"; the
 * events of every rank go into one array. The pids do not collide
 * (devices are their index, hosts 2000 + the process id) and every time
 * is CLOCK_MONOTONIC, so the ranks share one time axis.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpu_train.h"
#include "hpudrv.h"

#define TRACE_HEAD "{\"traceEvents\":["

static const char *profile_dir(const struct htc_opts *o)
{
	return o->t.log_dir ? o->t.log_dir : ".";
}

static void rank_path(const struct htc_opts *o, uint32_t rank, char *buf,
		      size_t len)
{
	snprintf(buf, len, "%s/trace.rank%u.json", profile_dir(o), rank);
}

int htc_profile_start(const struct htc_opts *o, const struct ht_cluster *cl)
{
	char path[PATH_MAX];
	int ret;

	if (!o->profiler)
		return HTC_EXIT_OK;
	if (cl->world_size > 1)
		rank_path(o, cl->rank, path, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s/trace.json", profile_dir(o));
	/* '%' is libhpudrv's escape: a directory that has one cannot be told */
	if (strchr(path, '%')) {
		fprintf(stderr,
			HTC_PROG ": --profiler hpu: the log directory '%s' "
				 "has a '%%'\n",
			profile_dir(o));
		return HTC_EXIT_USAGE;
	}
	ret = hpu_profile_start(path);
	if (ret == -EBUSY) /* HPU_PROFILE of the environment: it wins */
		return HTC_EXIT_OK;
	if (ret) {
		fprintf(stderr, HTC_PROG ": --profiler hpu: %s: %s\n", path,
			strerror(-ret));
		return HTC_EXIT_FAIL;
	}
	return HTC_EXIT_OK;
}

static uint64_t other_count(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/*
 * Copy the event lines of @path to @out (a ",\n" before each but the
 * first of the whole file) and add its dropped counts; -EINVAL when it
 * is not a file libhpudrv wrote.
 */
static int merge_one(const char *path, FILE *out, bool *first,
		     uint64_t *spans_dropped, uint64_t *ev_dropped)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	bool head = false, tail = false;
	FILE *f;
	int ret = 0;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while ((n = getline(&line, &cap, f)) > 0) {
		while (n && (line[n - 1] == '\n' || line[n - 1] == ','))
			line[--n] = '\0';
		if (!head) {
			head = !strcmp(line, TRACE_HEAD);
			if (!head) {
				ret = -EINVAL;
				break;
			}
			continue;
		}
		if (tail) {
			*spans_dropped +=
				other_count(line, "\"host_spans_dropped\":");
			*ev_dropped +=
				other_count(line, "\"device_events_dropped\":");
			continue;
		}
		if (!strcmp(line, "]")) {
			tail = true;
			continue;
		}
		if (line[0] != '{') {
			ret = -EINVAL;
			break;
		}
		fputs(*first ? "" : ",\n", out);
		fputs(line, out);
		*first = false;
	}
	if (!ret && !tail)
		ret = -EINVAL;
	free(line);
	fclose(f);
	return ret;
}

int htc_profile_merge(const struct htc_opts *o, const struct ht_cluster *cl)
{
	uint64_t spans_dropped = 0, ev_dropped = 0;
	char path[PATH_MAX], out[PATH_MAX], tmp[PATH_MAX + 8];
	uint32_t i, n = cl->local_world_size;
	bool first = true;
	FILE *f;
	int ret = 0;

	/* the workers profiled into HPU_PROFILE's files: nothing to merge */
	if (getenv("HPU_PROFILE") && *getenv("HPU_PROFILE"))
		return HTC_EXIT_OK;
	snprintf(out, sizeof(out), "%s/trace.json", profile_dir(o));
	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	f = fopen(tmp, "we");
	if (!f) {
		fprintf(stderr, HTC_PROG ": --profiler hpu: %s: %s\n", tmp,
			strerror(errno));
		return HTC_EXIT_FAIL;
	}
	fputs(TRACE_HEAD "\n", f);
	for (i = 0; i < n && !ret; i++) {
		rank_path(o, cl->rank + i, path, sizeof(path));
		ret = merge_one(path, f, &first, &spans_dropped, &ev_dropped);
		if (ret)
			fprintf(stderr,
				HTC_PROG ": --profiler hpu: cannot merge %s: "
					 "%s\n",
				path,
				ret == -EINVAL ? "not a trace of libhpudrv" :
						 strerror(-ret));
	}
	fprintf(f,
		"\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{"
		"\"producer\":\"hpu-train\",\"ranks\":%u,"
		"\"host_spans_dropped\":%" PRIu64
		",\"device_events_dropped\":%" PRIu64 "}}\n",
		n, spans_dropped, ev_dropped);
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, out))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return HTC_EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		rank_path(o, cl->rank + i, path, sizeof(path));
		unlink(path);
	}
	return HTC_EXIT_OK;
}

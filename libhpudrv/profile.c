// SPDX-License-Identifier: MIT
/*
 * profile.c - the process's profile (docs/tracing.md, "HPU_PROFILE"):
 * HPU_PROFILE=path or hpu_profile_start() turn it on; every compute
 * device opened after that has its engines traced (HPU_IOCTL_TRACE
 * START), its events are drained when it is closed, and the trace (the
 * devices' events and the host spans) is written to the file at the
 * last close of a traced device, at exit and by hpu_profile_write().
 *
 * The file is written to "path.tmp" and renamed, so a reader never sees
 * half of it. A child of fork() keeps profiling into its own file (the
 * path's %p is its pid) and starts empty.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpudrv_internal.h"
#include "profile_internal.h"

#define PROFILE_MAX_DEVS   64
/* engine events kept per device on the host side at most */
#define PROFILE_MAX_EVENTS (1U << 22)
#define PROFILE_READ_CHUNK 1024U

struct pdev {
	struct hpu_device *dev; /* NULL once closed */
	struct hpudrv_trace_dev d;
	struct hpu_trace_event *ev;
	size_t cap;
	bool traced; /* START succeeded */
};

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t profile_lock = PTHREAD_MUTEX_INITIALIZER;
static bool profiling;
static char *profile_pattern;
static char profile_file[PATH_MAX];
static struct pdev pdevs[PROFILE_MAX_DEVS];
static unsigned int npdevs;
static unsigned int nopen;
static bool exit_hooked;

int hpudrv_profile_path(const char *pattern, int pid, const char *rank,
			char *buf, size_t len)
{
	size_t o = 0;
	const char *p;
	int n;

	if (!pattern || !*pattern || !len)
		return -EINVAL;
	for (p = pattern; *p; p++) {
		if (*p != '%') {
			if (o + 1 >= len)
				return -ENAMETOOLONG;
			buf[o++] = *p;
			continue;
		}
		p++;
		if (*p == '%')
			n = snprintf(buf + o, len - o, "%%");
		else if (*p == 'p')
			n = snprintf(buf + o, len - o, "%d", pid);
		else if (*p == 'r')
			n = snprintf(buf + o, len - o, "%s", rank);
		else
			return -EINVAL;
		if (n < 0 || (size_t)n >= len - o)
			return -ENAMETOOLONG;
		o += (size_t)n;
	}
	buf[o] = '\0';
	return 0;
}

static const char *env_rank(void)
{
	const char *r = getenv("RANK");

	return r && *r ? r : "0";
}

static int resolve_file(void)
{
	return hpudrv_profile_path(profile_pattern, (int)getpid(), env_rank(),
				   profile_file, sizeof(profile_file));
}

static size_t span_capacity(void)
{
	const char *s = getenv("HPU_PROFILE_SPANS");
	unsigned long v;
	char *end;

	if (!s || !*s)
		return HPU_PROFILE_DEFAULT_SPANS;
	v = strtoul(s, &end, 10);
	if (*end || v < 1024 || v > 4194304)
		return HPU_PROFILE_DEFAULT_SPANS;
	return v;
}

static void write_at_exit(void)
{
	hpu_profile_write();
}

static void child_after_fork(void)
{
	unsigned int i;

	pthread_mutex_init(&profile_lock, NULL);
	if (!profiling)
		return;
	hpudrv_spans_after_fork();
	/* the parent's devices and spans are the parent's to write */
	for (i = 0; i < npdevs; i++)
		free(pdevs[i].ev);
	memset(pdevs, 0, sizeof(pdevs));
	npdevs = 0;
	nopen = 0;
	if (resolve_file() || hpudrv_spans_init(span_capacity())) {
		profiling = false;
		hpudrv_spans_enable(false);
	}
}

static int start_locked(const char *path)
{
	char *pat;
	int ret;

	if (profiling)
		return -EBUSY;
	pat = strdup(path);
	if (!pat)
		return -ENOMEM;
	free(profile_pattern);
	profile_pattern = pat;
	ret = resolve_file();
	if (!ret)
		ret = hpudrv_spans_init(span_capacity());
	if (ret)
		return ret;
	if (!exit_hooked) {
		atexit(write_at_exit);
		pthread_atfork(NULL, NULL, child_after_fork);
		exit_hooked = true;
	}
	profiling = true;
	hpudrv_spans_enable(true);
	return 0;
}

static void env_init(void)
{
	const char *path = getenv("HPU_PROFILE");

	pthread_mutex_lock(&profile_lock);
	if (path && *path && !profiling && start_locked(path))
		fprintf(stderr,
			"libhpudrv: HPU_PROFILE='%s' is not a usable path "
			"(%%p, %%r and %%%% are the only %% sequences): not "
			"profiling\n",
			path);
	if (!profiling)
		hpudrv_spans_enable(false);
	pthread_mutex_unlock(&profile_lock);
}

bool hpudrv_profile_want(void)
{
	pthread_once(&env_once, env_init);
	return profiling;
}

int hpu_profile_start(const char *path)
{
	int ret;

	if (!path || !*path)
		return -EINVAL;
	pthread_once(&env_once, env_init);
	pthread_mutex_lock(&profile_lock);
	ret = start_locked(path);
	pthread_mutex_unlock(&profile_lock);
	return ret;
}

int hpu_profile_enabled(void)
{
	return hpudrv_profile_want() ? 1 : 0;
}

static uint32_t ring_capacity(void)
{
	const char *s = getenv("HPU_PROFILE_CAPACITY");
	unsigned long v;
	char *end;

	if (!s || !*s)
		return 0;
	v = strtoul(s, &end, 10);
	if (*end || v < HPU_TRACE_MIN_CAPACITY || v > HPU_TRACE_MAX_CAPACITY ||
	    (v & (v - 1)))
		return 0;
	return (uint32_t)v;
}

static void describe(struct pdev *p, struct hpu_device *dev)
{
	struct hpu_info_hw_ip_info hw = { 0 };
	size_t i;

	p->d.index = dev->info.index;
	snprintf(p->d.bus_id, sizeof(p->d.bus_id), "%s", dev->info.bus_id);
	snprintf(p->d.type, sizeof(p->d.type), "%s",
		 dev->info.device_type[0] ? dev->info.device_type : "hpu");
	for (i = 0; p->d.type[i]; i++)
		p->d.type[i] = (char)tolower((unsigned char)p->d.type[i]);
	if (!hpu_info_hw_ip(dev, &hw)) {
		p->d.num_dma = hw.num_dma;
		p->d.num_mme = hw.num_mme;
		p->d.num_tpc = hw.num_tpc;
		p->d.num_nic = hw.num_nic_ports;
	}
}

void hpudrv_profile_device_open(struct hpu_device *dev)
{
	struct pdev *p;
	int ret;

	if (dev->control || !hpudrv_profile_want())
		return;
	pthread_mutex_lock(&profile_lock);
	if (!profiling || npdevs == PROFILE_MAX_DEVS)
		goto out;
	p = &pdevs[npdevs++];
	memset(p, 0, sizeof(*p));
	p->dev = dev;
	describe(p, dev);
	ret = hpu_trace_start(dev, ring_capacity());
	p->traced = !ret;
	if (ret)
		fprintf(stderr,
			"libhpudrv: HPU_PROFILE: %s has no engine trace (%s); "
			"host spans only\n",
			dev->info.node_name, strerror(-ret));
	nopen++;
out:
	pthread_mutex_unlock(&profile_lock);
}

/* move the device's events into the host's copy (profile_lock held) */
static void drain(struct pdev *p)
{
	struct hpu_trace_out out;
	uint64_t guard;
	int n_read;

	if (!p->dev || !p->traced)
		return;
	for (guard = 0; guard < PROFILE_MAX_EVENTS / PROFILE_READ_CHUNK;
	     guard++) {
		struct hpu_trace_event *n;

		if (p->d.nev + PROFILE_READ_CHUNK > p->cap) {
			size_t cap = p->cap ? p->cap * 2 : 4096;

			if (cap > PROFILE_MAX_EVENTS)
				break;
			n = realloc(p->ev, cap * sizeof(*n));
			if (!n)
				break;
			p->ev = n;
			p->cap = cap;
		}
		n_read = hpu_trace_read(p->dev, p->ev + p->d.nev,
					PROFILE_READ_CHUNK, &out);
		if (n_read < 0)
			break;
		p->d.nev += (size_t)n_read;
		p->d.dropped = out.dropped;
		if (!n_read || !out.pending)
			break;
	}
	p->d.ev = p->ev;
}

static int write_file(void)
{
	struct hpudrv_trace_dev devs[PROFILE_MAX_DEVS];
	struct hpudrv_trace_doc doc = { 0 };
	struct hpudrv_trace_thread *threads = NULL;
	struct hpudrv_span *spans = NULL;
	char tmp[PATH_MAX + 8];
	unsigned int i;
	FILE *f;
	int ret;

	for (i = 0; i < npdevs; i++) {
		drain(&pdevs[i]);
		devs[i] = pdevs[i].d;
	}
	doc.os_pid = (int)getpid();
	doc.rank = getenv("RANK") ? atoi(getenv("RANK")) : -1;
	doc.devs = devs;
	doc.ndevs = npdevs;
	doc.nspans = hpudrv_spans_snapshot(&spans, &doc.spans_dropped);
	doc.spans = spans;
	doc.nthreads = hpudrv_spans_threads(&threads);
	doc.threads = threads;
	snprintf(tmp, sizeof(tmp), "%s.tmp", profile_file);
	f = fopen(tmp, "we");
	if (!f) {
		ret = -errno;
		goto out;
	}
	ret = hpudrv_trace_json_write(f, &doc);
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, profile_file))
		ret = -errno;
	if (ret)
		unlink(tmp);
out:
	if (ret)
		fprintf(stderr, "libhpudrv: HPU_PROFILE: cannot write %s: %s\n",
			profile_file, strerror(-ret));
	free(spans);
	free(threads);
	return ret;
}

void hpudrv_profile_device_close(struct hpu_device *dev)
{
	unsigned int i;

	if (dev->control)
		return;
	pthread_mutex_lock(&profile_lock);
	for (i = 0; profiling && i < npdevs; i++) {
		struct pdev *p = &pdevs[i];

		if (p->dev != dev)
			continue;
		drain(p);
		if (p->traced)
			hpu_trace_free(dev);
		p->dev = NULL;
		if (--nopen == 0)
			write_file();
		break;
	}
	pthread_mutex_unlock(&profile_lock);
}

int hpu_profile_write(void)
{
	int ret = -ENOENT;

	pthread_mutex_lock(&profile_lock);
	if (profiling)
		ret = write_file();
	pthread_mutex_unlock(&profile_lock);
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * main.c - hpu-fused: the simulated accelerator's "kernel driver", a FUSE
 * file system of device nodes and attributes (docs/fusedev.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "hpu_blas_core.h"
#include "hpu_devdir.h"
#include "hpu_fused.h"

#define EXIT_USAGE 2

/**
 * struct options - the command line
 * @ndev: --devices
 * @type: --type
 * @mount: --mount (absolute once resolved)
 * @foreground: --foreground
 * @dev_links: 1 --dev-links, 0 --no-dev-links, -1 default
 * @link_dir: --dev-link-dir: where the hpuN links go (default /dev)
 * @log_level: --log-level
 * @cs_timeout_ms: --cs-timeout-ms
 * @reset_on_lockup: --reset-on-lockup
 * @reset_on_fatal: --reset-on-fatal
 * @fatal_page_faults: --fatal-page-faults
 * @uaccess_timeout_ms: --uaccess-timeout-ms
 * @scaleout_addr: --scaleout-addr (HOST:PORT), or NULL
 * @group: --group resolved to a gid, or -1 for the daemon's own group
 * @node_mode: --mode
 * @control_mode: --control-mode
 * @module_map: --module-map (valid when @have_module_map)
 * @have_module_map: --module-map was given
 * @exclusive: --exclusive
 * @timing_model: --timing-model
 * @habanalabs: --personality habanalabs
 * @blas_coretype: --blas-coretype: print the OPENBLAS_CORETYPE of hpu's
 *	processes and exit
 */
struct options {
	unsigned int ndev;
	const char *type;
	char mount[PATH_MAX];
	bool foreground;
	int dev_links;
	const char *link_dir;
	int log_level;
	uint32_t cs_timeout_ms;
	bool reset_on_lockup;
	bool reset_on_fatal;
	bool fatal_page_faults;
	uint32_t uaccess_timeout_ms;
	const char *scaleout_addr;
	long group;
	unsigned int node_mode;
	unsigned int control_mode;
	uint8_t module_map[HFD_MODULES_PER_SERVER];
	bool have_module_map;
	bool exclusive;
	bool timing_model;
	bool habanalabs;
	bool blas_coretype;
};

enum {
	OPT_DEV_LINKS = 0x100,
	OPT_NO_DEV_LINKS,
	OPT_DEV_LINK_DIR,
	OPT_LOG_LEVEL,
	OPT_VERSION,
	OPT_CS_TIMEOUT,
	OPT_SCALEOUT_ADDR,
	OPT_GROUP,
	OPT_MODE,
	OPT_CONTROL_MODE,
	OPT_LIMIT,
	OPT_UACCESS_TIMEOUT,
	OPT_MODULE_MAP,
	OPT_EXCLUSIVE,
	OPT_TIMING_MODEL,
	OPT_RESET_ON_LOCKUP,
	OPT_RESET_ON_FATAL,
	OPT_FATAL_PAGE_FAULTS,
	OPT_PERSONALITY,
	OPT_BLAS_CORETYPE,
};

static const struct option long_opts[] = {
	{ "devices", required_argument, NULL, 'n' },
	{ "type", required_argument, NULL, 't' },
	{ "mount", required_argument, NULL, 'm' },
	{ "foreground", no_argument, NULL, 'f' },
	{ "dev-links", no_argument, NULL, OPT_DEV_LINKS },
	{ "no-dev-links", no_argument, NULL, OPT_NO_DEV_LINKS },
	{ "dev-link-dir", required_argument, NULL, OPT_DEV_LINK_DIR },
	{ "log-level", required_argument, NULL, OPT_LOG_LEVEL },
	{ "cs-timeout-ms", required_argument, NULL, OPT_CS_TIMEOUT },
	{ "uaccess-timeout-ms", required_argument, NULL, OPT_UACCESS_TIMEOUT },
	{ "reset-on-lockup", no_argument, NULL, OPT_RESET_ON_LOCKUP },
	{ "reset-on-fatal", no_argument, NULL, OPT_RESET_ON_FATAL },
	{ "fatal-page-faults", no_argument, NULL, OPT_FATAL_PAGE_FAULTS },
	{ "scaleout-addr", required_argument, NULL, OPT_SCALEOUT_ADDR },
	{ "group", required_argument, NULL, OPT_GROUP },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "control-mode", required_argument, NULL, OPT_CONTROL_MODE },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "module-map", required_argument, NULL, OPT_MODULE_MAP },
	{ "exclusive", no_argument, NULL, OPT_EXCLUSIVE },
	{ "timing-model", no_argument, NULL, OPT_TIMING_MODEL },
	{ "personality", required_argument, NULL, OPT_PERSONALITY },
	{ "blas-coretype", no_argument, NULL, OPT_BLAS_CORETYPE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* The --limit names, their defaults and ranges */
static void usage_limits(FILE *f)
{
	const struct hfd_limit_desc *d;
	unsigned int i;

	fprintf(f, "\nPer-context limits (--limit NAME=N):\n");
	for (i = 0; i < HPU_CTX_LIMIT_NUM; i++) {
		d = &hfd_limit_descs[i];
		fprintf(f, "  %-13s %-33s default %llu (%llu..%llu)\n", d->name,
			d->what, (unsigned long long)d->def,
			(unsigned long long)d->min, (unsigned long long)d->max);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: hpu-fused [OPTIONS]\n"
		"Serve simulated HPU device nodes in a FUSE device directory.\n\n"
		"  -n, --devices N         devices to simulate, 1..%d (default %d)\n"
		"  -t, --type TYPE         gaudi, gaudi2 or gaudi3 (default gaudi2)\n"
		"  -m, --mount DIR         device directory (default: $HPU_DEV_DIR,\n"
		"                          /run/hpu as root, $XDG_RUNTIME_DIR/hpu,\n"
		"                          /tmp/hpu-$UID)\n"
		"  -f, --foreground        stay in the foreground, log to stderr\n"
		"      --dev-links         make /dev/hpuN links (where permitted); with\n"
		"                          the habanalabs personality also /dev/accel/accelN,\n"
		"                          /dev/accel/accel_controlDN, /dev/hlN, /dev/hl_controlDN\n"
		"      --no-dev-links      never touch /dev\n"
		"      --dev-link-dir DIR  make the hpuN links in DIR, not /dev\n"
		"      --log-level LEVEL   err, warn, info or debug (default warn)\n"
		"      --cs-timeout-ms MS  default CS timeout, 1..3600000 (default %d)\n"
		"      --reset-on-lockup   a CS timeout hard-resets its device\n"
		"      --reset-on-fatal    a fatal error (uncorrectable ECC, lost\n"
		"                          heartbeat) hard-resets its device at once\n"
		"      --fatal-page-faults an MMU page fault is a fatal error too\n"
		"      --uaccess-timeout-ms MS\n"
		"                          answer EFAULT when client memory does not\n"
		"                          answer in MS, %d..%d (default %d)\n"
		"      --scaleout-addr HOST:PORT\n"
		"                          accept scale-out NIC connections from other\n"
		"                          servers there (port 0: any free port)\n"
		"      --group NAME        group of the device nodes (name or gid;\n"
		"                          default: the daemon's group)\n"
		"      --mode OCTAL        mode of the compute nodes hpuN, no bits\n"
		"                          for others (default %04o)\n"
		"      --control-mode OCTAL\n"
		"                          mode of the control nodes hpu_controlN,\n"
		"                          others may only read (default %04o)\n"
		"      --limit NAME=N      per-context limit (repeatable; see below)\n"
		"      --module-map MAP    OAM module id of device i at i %% 8: 'oam'\n"
		"                          (0,4,1,5,2,6,3,7), 'identity' (0..7) or 8\n"
		"                          distinct ids 0..7 (default: oam with 8\n"
		"                          devices, identity otherwise)\n"
		"      --exclusive         one compute open per device at a time;\n"
		"                          another gets EBUSY (the real driver's rule)\n"
		"      --timing-model      count each job's modeled busy time (the\n"
		"                          model_busy attribute: hpu-smi's modeled\n"
		"                          utilization and power)\n"
		"      --personality P     hpu (default): the hpu nodes; habanalabs:\n"
		"                          Gaudi2 devices also get hlN, hl_controlDN,\n"
		"                          accelN and accel_controlDN speaking the\n"
		"                          real driver's ABI (docs/habanalabs.md)\n"
		"      --blas-coretype     print the OPENBLAS_CORETYPE that hpu's\n"
		"                          programs run with on this machine (empty\n"
		"                          when OpenBLAS's own choice is kept) and\n"
		"                          exit (docs/building.md)\n"
		"  -h, --help              this text\n"
		"      --version           print the version\n",
		HFD_MAX_DEVICES, HFD_DEF_DEVICES, HFD_DEF_CS_TIMEOUT_MS,
		HFD_UACCESS_MIN_TIMEOUT_MS, HFD_UACCESS_MAX_TIMEOUT_MS,
		HFD_UACCESS_DEF_TIMEOUT_MS, HFD_DEF_NODE_MODE,
		HFD_DEF_CONTROL_MODE);
	usage_limits(f);
}

static int parse_ndev(const char *s, unsigned int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > HFD_MAX_DEVICES)
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

static int parse_timeout(const char *s, long min, long max, uint32_t *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/*
 * An octal mode of at most @allowed bits: nothing for others beyond what
 * @allowed grants, never setuid/setgid/sticky.
 */
static int parse_mode(const char *s, unsigned int allowed, unsigned int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 8);
	if (errno || end == s || *end || s[0] < '0' || s[0] > '7' || v < 0 ||
	    (v & ~(long)allowed))
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

/*
 * --module-map: "oam", "identity", or a permutation of 0..7 written as 8
 * comma-separated ids.
 */
static int parse_module_map(const char *s, uint8_t map[HFD_MODULES_PER_SERVER])
{
	unsigned int seen = 0, i;
	const char *p = s;
	char *end;
	long v;

	if (!strcmp(s, "oam") || !strcmp(s, "identity")) {
		hfd_default_module_map(s[0] == 'o' ? HFD_MODULES_PER_SERVER : 1,
				       map);
		return 0;
	}
	for (i = 0; i < HFD_MODULES_PER_SERVER; i++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || v < 0 || v >= HFD_MODULES_PER_SERVER ||
		    (seen & (1u << v)))
			return -EINVAL;
		seen |= 1u << v;
		map[i] = (uint8_t)v;
		if (i + 1 < HFD_MODULES_PER_SERVER && *end != ',')
			return -EINVAL;
		p = end + 1;
	}
	return *end ? -EINVAL : 0;
}

/* A group name, or a decimal gid */
static int parse_group(const char *s, long *out)
{
	struct group *gr;
	char *end;
	long v;

	gr = getgrnam(s);
	if (gr) {
		*out = (long)gr->gr_gid;
		return 0;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || s[0] < '0' || s[0] > '9' ||
	    v > (long)INT_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

/* HOST:PORT with a non-empty HOST and a decimal PORT 0..65535 */
static int check_hostport(const char *s)
{
	const char *colon = strrchr(s, ':');
	char *end;
	long v;

	if (!colon || colon == s || !colon[1] || colon - s > 255)
		return -EINVAL;
	errno = 0;
	v = strtol(colon + 1, &end, 10);
	if (errno || *end || colon[1] < '0' || colon[1] > '9' || v < 0 ||
	    v > 65535)
		return -EINVAL;
	return 0;
}

/* --limit NAME=N; says what is wrong */
static int parse_limit(const char *s)
{
	const struct hfd_limit_desc *d;
	const char *eq = strchr(s, '=');
	int ret, id;

	ret = hfd_limit_parse(s);
	if (!ret)
		return 0;
	id = eq ? hfd_limit_find(s, (size_t)(eq - s)) : -ENOENT;
	if (id < 0) {
		fprintf(stderr,
			"hpu-fused: --limit must be NAME=N with a NAME of --help, not '%s'\n",
			s);
		return -1;
	}
	d = &hfd_limit_descs[id];
	fprintf(stderr,
		"hpu-fused: --limit %s must be a number %llu..%llu, not '%s'\n",
		d->name, (unsigned long long)d->min, (unsigned long long)d->max,
		eq + 1);
	return -1;
}

/*
 * Descriptors: the per-context limits bound what one context makes the
 * daemon hold; the soft limit goes up to the hard one so that many
 * contexts fit as well.
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		hfd_warn("cannot raise the descriptor limit: %s",
			 strerror(errno));
}

/* Return: 0 to run, 1 when done (help/version), -1 on a usage error */
static int parse_args(int argc, char **argv, struct options *o)
{
	const char *mount = NULL;
	int c, lvl;

	o->ndev = HFD_DEF_DEVICES;
	o->type = "gaudi2";
	o->dev_links = -1;
	o->link_dir = "/dev";
	o->log_level = HFD_LOG_WARN;
	o->cs_timeout_ms = HFD_DEF_CS_TIMEOUT_MS;
	o->uaccess_timeout_ms = HFD_UACCESS_DEF_TIMEOUT_MS;
	o->group = -1;
	o->node_mode = HFD_DEF_NODE_MODE;
	o->control_mode = HFD_DEF_CONTROL_MODE;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:t:m:fh", long_opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'n':
			if (parse_ndev(optarg, &o->ndev)) {
				fprintf(stderr,
					"hpu-fused: --devices must be 1..%d, not '%s'\n",
					HFD_MAX_DEVICES, optarg);
				return -1;
			}
			break;
		case 't':
			o->type = optarg;
			break;
		case 'm':
			mount = optarg;
			break;
		case 'f':
			o->foreground = true;
			break;
		case OPT_DEV_LINKS:
			o->dev_links = 1;
			break;
		case OPT_NO_DEV_LINKS:
			o->dev_links = 0;
			break;
		case OPT_DEV_LINK_DIR:
			if (optarg[0] != '/') {
				fprintf(stderr,
					"hpu-fused: --dev-link-dir needs an absolute path, not '%s'\n",
					optarg);
				return -1;
			}
			o->link_dir = optarg;
			break;
		case OPT_LOG_LEVEL:
			lvl = hfd_log_parse_level(optarg);
			if (lvl < 0) {
				fprintf(stderr,
					"hpu-fused: --log-level must be err, warn, info or debug, not '%s'\n",
					optarg);
				return -1;
			}
			o->log_level = lvl;
			break;
		case OPT_RESET_ON_LOCKUP:
			o->reset_on_lockup = true;
			break;
		case OPT_RESET_ON_FATAL:
			o->reset_on_fatal = true;
			break;
		case OPT_FATAL_PAGE_FAULTS:
			o->fatal_page_faults = true;
			break;
		case OPT_CS_TIMEOUT:
			if (parse_timeout(optarg, 1, HPU_CS_TIMEOUT_MAX_MS,
					  &o->cs_timeout_ms)) {
				fprintf(stderr,
					"hpu-fused: --cs-timeout-ms must be 1..3600000, not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case OPT_UACCESS_TIMEOUT:
			if (parse_timeout(optarg, HFD_UACCESS_MIN_TIMEOUT_MS,
					  HFD_UACCESS_MAX_TIMEOUT_MS,
					  &o->uaccess_timeout_ms)) {
				fprintf(stderr,
					"hpu-fused: --uaccess-timeout-ms must be %d..%d, not '%s'\n",
					HFD_UACCESS_MIN_TIMEOUT_MS,
					HFD_UACCESS_MAX_TIMEOUT_MS, optarg);
				return -1;
			}
			break;
		case OPT_SCALEOUT_ADDR:
			if (check_hostport(optarg)) {
				fprintf(stderr,
					"hpu-fused: --scaleout-addr must be HOST:PORT (PORT 0..65535), not '%s'\n",
					optarg);
				return -1;
			}
			o->scaleout_addr = optarg;
			break;
		case OPT_GROUP:
			if (parse_group(optarg, &o->group)) {
				fprintf(stderr,
					"hpu-fused: --group: no group '%s' (create it, e.g. 'groupadd --system %s')\n",
					optarg, optarg);
				return -1;
			}
			break;
		case OPT_MODE:
			if (parse_mode(optarg, 0770, &o->node_mode)) {
				fprintf(stderr,
					"hpu-fused: --mode must be octal within 0770 (a compute node is never open to others), not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case OPT_CONTROL_MODE:
			if (parse_mode(optarg, 0774, &o->control_mode)) {
				fprintf(stderr,
					"hpu-fused: --control-mode must be octal within 0774 (others may only read), not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case OPT_LIMIT:
			if (parse_limit(optarg))
				return -1;
			break;
		case OPT_MODULE_MAP:
			if (parse_module_map(optarg, o->module_map)) {
				fprintf(stderr,
					"hpu-fused: --module-map must be oam, identity or 8 distinct module ids 0..7 separated by commas, not '%s'\n",
					optarg);
				return -1;
			}
			o->have_module_map = true;
			break;
		case OPT_TIMING_MODEL:
			o->timing_model = true;
			break;
		case OPT_EXCLUSIVE:
			o->exclusive = true;
			break;
		case OPT_PERSONALITY:
			if (!strcmp(optarg, "habanalabs")) {
				o->habanalabs = true;
			} else if (strcmp(optarg, "hpu")) {
				fprintf(stderr,
					"hpu-fused: --personality must be hpu or habanalabs, not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case OPT_BLAS_CORETYPE:
			o->blas_coretype = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case OPT_VERSION:
			printf("hpu-fused %s (firmware interface %d.%d)\n",
			       HPU_VERSION, HPU_FW_IF_MAJOR, HPU_FW_IF_MINOR);
			return 1;
		case ':':
			fprintf(stderr,
				"hpu-fused: option '%s' needs a value\n",
				argv[optind - 1]);
			return -1;
		default:
			fprintf(stderr, "hpu-fused: unknown option '%s'\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hpu-fused: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	if (mount) {
		if (strlen(mount) >= sizeof(o->mount) - 1) {
			fprintf(stderr, "hpu-fused: --mount path too long\n");
			return -1;
		}
		snprintf(o->mount, sizeof(o->mount), "%s", mount);
	} else if (hpu_devdir_default(o->mount, sizeof(o->mount))) {
		fprintf(stderr,
			"hpu-fused: default device directory path too long\n");
		return -1;
	}
	return 0;
}

/* Make the mount point absolute (the daemon changes to /) and canonical */
static int absolute_mount(struct options *o)
{
	char real[PATH_MAX];

	if (!realpath(o->mount, real))
		return -errno;
	snprintf(o->mount, sizeof(o->mount), "%s", real);
	return 0;
}

static struct fuse_session *new_session(struct hfd_driver *drv)
{
	char opts[256];
	char *argv[] = { "hpu-fused", "-o", opts, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct fuse_session *se;

	snprintf(opts, sizeof(opts),
		 "fsname=hpu-fused,subtype=hpu,default_permissions%s",
		 geteuid() == 0 ? ",allow_other" : "");
	se = fuse_session_new(&args, &hfd_fs_ops, sizeof(hfd_fs_ops), drv);
	fuse_opt_free_args(&args);
	return se;
}

static int serve(struct fuse_session *se)
{
	struct fuse_loop_config *cfg;
	int ret;

	cfg = fuse_loop_cfg_create();
	if (!cfg)
		return -ENOMEM;
	/* room for every worker the uaccess caps let get stuck */
	fuse_loop_cfg_set_max_threads(cfg, HFD_MAX_THREADS_ALL);
	fuse_loop_cfg_set_idle_threads(cfg, 4);
	ret = fuse_session_loop_mt(se, cfg);
	fuse_loop_cfg_destroy(cfg);
	/* a positive value is the signal that ended the loop */
	return ret < 0 ? ret : 0;
}

/**
 * struct stop_guard - the bound on a stop (SIGINT/SIGTERM)
 * @se: the session
 * @o: the command line
 * @links: /dev links were made
 * @lock: protects @done and the forced exit
 * @cond: signalled when @done is set
 * @done: the loop returned: every worker was joined
 * @thread: the guard's thread
 *
 * The loop's end joins every worker, and a worker stuck in client memory
 * (a fault nobody resolves) never returns: after HFD_STOP_BOUND_MS
 * the guard removes the links, unmounts (which aborts the connection) and
 * exits the process.
 */
struct stop_guard {
	struct fuse_session *se;
	const struct options *o;
	bool links;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	pthread_t thread;
};

static void deadline_in(struct timespec *ts, unsigned int ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void *stop_guard_main(void *arg)
{
	struct stop_guard *g = arg;
	struct timespec ts;
	uint64_t now, ever, refused;

	pthread_mutex_lock(&g->lock);
	/* the signal handler only sets the session's exit flag: poll it */
	while (!g->done && !fuse_session_exited(g->se)) {
		deadline_in(&ts, 100);
		pthread_cond_timedwait(&g->cond, &g->lock, &ts);
	}
	deadline_in(&ts, HFD_STOP_BOUND_MS);
	while (!g->done)
		if (pthread_cond_timedwait(&g->cond, &g->lock, &ts) ==
		    ETIMEDOUT)
			break;
	if (g->done) {
		pthread_mutex_unlock(&g->lock);
		return NULL;
	}
	/* the lock stays held: the main thread does nothing more */
	hfd_uaccess_guard_stats(&now, &ever, &refused);
	hfd_err("stop: workers still busy after %d ms (%llu stuck in client memory): exiting without them",
		HFD_STOP_BOUND_MS, (unsigned long long)now);
	if (g->links)
		hfd_devlinks_remove(g->o->link_dir, g->o->mount,
				    HFD_MAX_DEVICES);
	fuse_session_unmount(g->se);
	hfd_info("stopped");
	_exit(EXIT_SUCCESS);
}

static int stop_guard_start(struct stop_guard *g, struct fuse_session *se,
			    const struct options *o, bool links)
{
	pthread_condattr_t ca;
	int ret;

	g->se = se;
	g->o = o;
	g->links = links;
	g->done = false;
	pthread_mutex_init(&g->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cond, &ca);
	pthread_condattr_destroy(&ca);
	ret = -pthread_create(&g->thread, NULL, stop_guard_main, g);
	if (ret) {
		pthread_cond_destroy(&g->cond);
		pthread_mutex_destroy(&g->lock);
	}
	return ret;
}

/* The loop returned: the stop needs no bound any more */
static void stop_guard_end(struct stop_guard *g)
{
	pthread_mutex_lock(&g->lock);
	g->done = true;
	pthread_cond_signal(&g->cond);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->thread, NULL);
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
}

/*
 * Daemon mode. The fork comes before the driver starts any thread (a
 * child keeps only the forking thread: no timer, no engine workers), and
 * the parent exits only when the child reports, through @notify, that the
 * device directory is mounted (status 0) or that it failed (its exit
 * status): "hpu-fused && use the devices" works, and a failure shows in
 * the exit status and on the terminal.
 */
static int daemon_fork(int *notify)
{
	unsigned char st = EXIT_FAILURE;
	int pfd[2];
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid > 0) {
		close(pfd[1]);
		do
			n = read(pfd[0], &st, 1);
		while (n < 0 && errno == EINTR);
		/* no byte: the child died before it could tell */
		_exit(n == 1 ? st : EXIT_FAILURE);
	}
	close(pfd[0]);
	if (setsid() < 0)
		hfd_warn("setsid: %s", strerror(errno));
	*notify = pfd[1];
	return 0;
}

/* Tell the waiting parent @status; when ready, leave the terminal. */
static void daemon_notify(int *notify, int status)
{
	unsigned char st = (unsigned char)status;
	int fd;

	if (*notify < 0)
		return;
	if (!status) {
		if (chdir("/"))
			hfd_warn("chdir /: %s", strerror(errno));
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			if (fd > STDERR_FILENO)
				close(fd);
		}
	}
	if (write(*notify, &st, 1) != 1)
		hfd_warn("cannot notify the starting process: %s",
			 strerror(errno));
	close(*notify);
	*notify = -1;
}

/* --blas-coretype: one line, empty when OpenBLAS's own choice is right */
static int print_blas_coretype(void)
{
	const char *core = hpu_blas_core_coretype();

	printf("%s\n", core ? core : "");
	return fflush(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	const struct hpu_fw_profile *prof;
	struct hpu_blas_core blas;
	char blas_line[256];
	struct fuse_session *se;
	struct stop_guard guard;
	struct hfd_driver drv;
	struct options o;
	int ret, notify = -1, status = EXIT_FAILURE;
	bool links;
	dev_t mdev;

	memset(&o, 0, sizeof(o));
	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret > 0 ? EXIT_SUCCESS : EXIT_USAGE;
	if (o.blas_coretype)
		return print_blas_coretype();
	/* may run the daemon again with OPENBLAS_CORETYPE set: nothing made yet */
	hpu_blas_core_apply(argv, &blas);
	hfd_log_setup(o.log_level, false);
	raise_nofile();

	if (hfd_driver_check_model(&hpusim_model))
		return EXIT_FAILURE;
	prof = hpu_fw_find_profile(&hpusim_model, o.type);
	if (!prof) {
		fprintf(stderr,
			"hpu-fused: unknown --type '%s' (gaudi, gaudi2 or gaudi3)\n",
			o.type);
		return EXIT_USAGE;
	}
	if (o.ndev > hfd_profile_max_server_devices(prof)) {
		fprintf(stderr,
			"hpu-fused: --devices %u: a %s server wires at most %u devices all-to-all (docs/nic.md)\n",
			o.ndev, o.type, hfd_profile_max_server_devices(prof));
		return EXIT_USAGE;
	}
	links = o.dev_links == 1 || (o.dev_links < 0 && geteuid() == 0 &&
				     hpu_devdir_is_default(o.mount));

	ret = hfd_mount_prepare(o.mount);
	if (!ret)
		ret = absolute_mount(&o);
	if (ret) {
		if (ret != -EBUSY)
			hfd_err("%s: %s", o.mount, strerror(-ret));
		return EXIT_FAILURE;
	}
	if (!o.foreground) {
		ret = daemon_fork(&notify);
		if (ret) {
			hfd_err("cannot daemonize: %s", strerror(-ret));
			return EXIT_FAILURE;
		}
	}

	ret = hfd_driver_init_server(&drv, &hpusim_model, o.type, o.ndev,
				     o.mount, o.scaleout_addr,
				     o.have_module_map ? o.module_map : NULL);
	if (ret) {
		hfd_err("cannot create the devices: %s", strerror(-ret));
		/* a scale-out address the model refused is a bad option */
		status = drv.fabric_err && o.scaleout_addr ? EXIT_USAGE :
							     EXIT_FAILURE;
		goto out_notify;
	}
	if (drv.scaleout_addr[0])
		hfd_info("scale-out endpoint %s", drv.scaleout_addr);
	snprintf(drv.blas_core, sizeof(drv.blas_core), "%s", blas.running);
	hfd_driver_set_cs_timeout(&drv, o.cs_timeout_ms);
	hfd_driver_set_reset_on_lockup(&drv, o.reset_on_lockup);
	hfd_driver_set_fatal_policy(&drv, o.reset_on_fatal,
				    o.fatal_page_faults);
	drv.node_mode = o.node_mode;
	drv.control_mode = o.control_mode;
	hfd_driver_set_exclusive(&drv, o.exclusive);
	if (o.timing_model && hfd_driver_set_timing_model(&drv, true))
		hfd_warn("--timing-model: not every device counts modeled "
			 "busy time");
	drv.habanalabs = o.habanalabs;
	if (o.group >= 0)
		drv.gid = (gid_t)o.group;
	se = new_session(&drv);
	if (!se) {
		hfd_err("cannot create the FUSE session");
		goto err_fini_driver;
	}
	drv.se = se;
	if (fuse_set_signal_handlers(se)) {
		hfd_err("cannot install signal handlers");
		goto err_destroy_session;
	}
	if (fuse_session_mount(se, o.mount)) {
		hfd_err("%s: cannot mount", o.mount);
		goto err_remove_handlers;
	}
	if (!hfd_mount_dev(o.mount, &mdev))
		hfd_uaccess_set_mount_dev(mdev);
	ret = hfd_fs_guard_start(o.uaccess_timeout_ms);
	if (ret) {
		hfd_err("cannot start the uaccess watchdog: %s",
			strerror(-ret));
		goto err_unmount;
	}
	/* from here on the log of a daemon goes to syslog */
	if (!o.foreground) {
		hfd_log_setup(o.log_level, true);
		daemon_notify(&notify, 0);
	}
	if (links && drv.habanalabs)
		hfd_devlinks_habanalabs(&drv);
	if (links)
		hfd_devlinks_create(o.link_dir, o.mount, o.ndev,
				    o.dev_links == 1);
	hfd_info("%s: %u %s device(s), up to %d worker threads", o.mount,
		 o.ndev, o.type, HFD_MAX_THREADS_ALL);
	hfd_info("nodes: owner %u, group %u, hpuN %04o, hpu_controlN %04o",
		 (unsigned int)drv.uid, (unsigned int)drv.gid, drv.node_mode,
		 drv.control_mode);
	if (hpu_blas_core_describe(&blas, blas_line, sizeof(blas_line)))
		hfd_warn("MME: %s", blas_line);
	else
		hfd_info("MME: %s", blas_line);

	ret = stop_guard_start(&guard, se, &o, links);
	if (ret) {
		hfd_err("cannot start the stop guard: %s", strerror(-ret));
	} else {
		ret = serve(se);
		stop_guard_end(&guard);
	}
	if (ret)
		hfd_err("session loop failed: %s", strerror(-ret));
	else
		status = EXIT_SUCCESS;
	hfd_uaccess_guard_stop();

	/* hot-added devices may have links in any slot */
	if (links)
		hfd_devlinks_remove(o.link_dir, o.mount, HFD_MAX_DEVICES);
err_unmount:
	fuse_session_unmount(se);
err_remove_handlers:
	fuse_remove_signal_handlers(se);
err_destroy_session:
	fuse_session_destroy(se);
	hfd_fs_release_all();
err_fini_driver:
	hfd_driver_fini(&drv);
	hfd_info("stopped");
out_notify:
	daemon_notify(&notify, status);
	return status;
}

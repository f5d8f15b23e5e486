// SPDX-License-Identifier: MIT
/*
 * options.c - hpu-fused's command line: the options, their help text,
 * and the parsing of each value (docs/fusedev.md, docs/man/hpu-fused.8).
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpu_devdir.h"
#include "hpu_fused_opts.h"

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
	OPT_DRAM_SIZE,
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
	{ "dram-size", required_argument, NULL, OPT_DRAM_SIZE },
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
		"      --dram-size SIZE    HBM of each device: a multiple of 2M with a\n"
		"                          K, M or G suffix, at most the chip's (default:\n"
		"                          the chip's, e.g. 96G for gaudi2)\n"
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

/* A size with a K, M or G suffix: a non-zero multiple of 2 MiB */
static int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift;
	char *end;

	errno = 0;
	if (s[0] < '0' || s[0] > '9')
		return -EINVAL;
	v = strtoull(s, &end, 10);
	switch (*end) {
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	default:
		return -EINVAL;
	}
	if (errno || end[1] || !v || v > (~0ULL >> shift))
		return -EINVAL;
	v <<= shift;
	if (v % (2ULL << 20))
		return -EINVAL;
	*out = v;
	return 0;
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
/* hfd_parse_args(): see hpu_fused_opts.h */
int hfd_parse_args(int argc, char **argv, struct options *o)
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
		case OPT_DRAM_SIZE:
			if (parse_size(optarg, &o->dram_size)) {
				fprintf(stderr,
					"hpu-fused: --dram-size must be a multiple of 2M, e.g. 4G, not '%s'\n",
					optarg);
				return -1;
			}
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

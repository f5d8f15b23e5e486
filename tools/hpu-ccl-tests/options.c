// SPDX-License-Identifier: MIT
/*
 * options.c - hpu-ccl-tests command line: nccl-tests' flags (-b -e -f -n
 * -w -c -d -r -g), -o for the collective and --redop for the reduction.
 * Every bad flag or value is reported by name and ends in exit status 2.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ccltests.h"

#define MAX_BYTES   (16ULL << 30)
#define MAX_ITERS   1000000L
#define MAX_RANKS   1024L
#define MAX_TIMEOUT 3600000L

enum {
	OPT_REDOP = 256,
	OPT_TIMEOUT,
	OPT_PLOT,
	OPT_MODEL,
};

static const struct option long_opts[] = {
	{ "op", required_argument, NULL, 'o' },
	{ "datatype", required_argument, NULL, 'd' },
	{ "root", required_argument, NULL, 'r' },
	{ "redop", required_argument, NULL, OPT_REDOP },
	{ "minbytes", required_argument, NULL, 'b' },
	{ "maxbytes", required_argument, NULL, 'e' },
	{ "stepfactor", required_argument, NULL, 'f' },
	{ "iters", required_argument, NULL, 'n' },
	{ "warmup_iters", required_argument, NULL, 'w' },
	{ "check", required_argument, NULL, 'c' },
	{ "ngpus", required_argument, NULL, 'g' },
	{ "ranks", required_argument, NULL, 'g' },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct name_value {
	const char *name;
	int value;
};

static const struct name_value dtypes[] = {
	{ "float", HPUCCL_FLOAT32 },   { "fp32", HPUCCL_FLOAT32 },
	{ "float32", HPUCCL_FLOAT32 }, { "bfloat16", HPUCCL_BFLOAT16 },
	{ "bf16", HPUCCL_BFLOAT16 },   { "int32", HPUCCL_INT32 },
	{ "int", HPUCCL_INT32 },
};

static const struct name_value redops[] = {
	{ "sum", HPUCCL_SUM },
	{ "min", HPUCCL_MIN },
	{ "max", HPUCCL_MAX },
	{ "avg", HPUCCL_AVG },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int lookup(const struct name_value *t, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(t[i].name, name))
			return t[i].value;
	return -EINVAL;
}

const char *cclt_dtype_name(enum hpuccl_dtype dtype)
{
	switch (dtype) {
	case HPUCCL_FLOAT32:
		return "float";
	case HPUCCL_BFLOAT16:
		return "bfloat16";
	case HPUCCL_INT32:
		return "int32";
	default:
		return "?";
	}
}

const char *cclt_redop_name(enum hpuccl_redop redop)
{
	return redop < HPUCCL_NUM_REDOPS ? redops[redop].name : "?";
}

void cclt_usage(FILE *f)
{
	fprintf(f,
		"Usage: " CCLT_PROG " [OPTIONS]\n"
		"Measure and check libhpuccl collectives (docs/hpu-ccl-tests.md)."
		"\n\n"
		"  -o, --op OP            allreduce (default), broadcast, reduce,\n"
		"                         allgather, reduce_scatter, alltoall,\n"
		"                         sendrecv or all\n"
		"  -d, --datatype TYPE    float (fp32, default), bfloat16 (bf16)"
		", int32\n"
		"      --redop OP         sum (default), min, max, avg\n"
		"  -r, --root N           root of broadcast and reduce (default 0)"
		"\n"
		"  -b, --minbytes SIZE    first size (default 32M)\n"
		"  -e, --maxbytes SIZE    last size (default 32M)\n"
		"  -f, --stepfactor N     size multiplier, >= 2 (default 2)\n"
		"  -n, --iters N          timed iterations per size (default 20)\n"
		"  -w, --warmup_iters N   warm-up iterations (default 5)\n"
		"  -c, --check 0|1        check the results (default 1)\n"
		"  -g, --ngpus N          fork N ranks, one per device (default: "
		"every\n"
		"                         visible device); not with a launcher\n"
		"      --timeout MS       communicator timeout (default: "
		"HPUCCL_TIMEOUT_MS\n"
		"                         or the library's)\n"
		"      --plot FILE.svg    draw busbw vs size there at the end "
		"(rank 0)\n"
		"      --model CHIP       the modeled columns' chip: gaudi, "
		"gaudi2\n"
		"                         (default), gaudi3, or none\n"
		"  -h, --help             this text\n"
		"\n"
		"SIZE: bytes, with an optional K, M or G suffix (powers of 1024)."
		"\n"
		"Under mpirun (OMPI_COMM_WORLD_*) or torchrun-style variables\n"
		"(WORLD_SIZE, RANK, LOCAL_RANK, MASTER_ADDR, MASTER_PORT) each\n"
		"process is one rank. Exit status: 0 ok, 1 wrong results or a\n"
		"failed collective, 2 usage error.\n");
}

int cclt_parse_size(const char *arg, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!arg || *arg < '0' || *arg > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	case '\0':
		break;
	default:
		return -EINVAL;
	}
	if (shift && *++end)
		return -EINVAL;
	if (v > (MAX_BYTES >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

static int parse_long(const char *arg, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *out < min || *out > max)
		return -EINVAL;
	return 0;
}

static int bad(int c, const char *name, const char *arg, const char *want)
{
	if (c < 256)
		fprintf(stderr, CCLT_PROG ": bad -%c/--%s '%s': %s\n", c, name,
			arg, want);
	else
		fprintf(stderr, CCLT_PROG ": bad --%s '%s': %s\n", name, arg,
			want);
	return CCLT_EXIT_USAGE;
}

static const char *long_name(int c)
{
	const struct option *lo;

	for (lo = long_opts; lo->name; lo++)
		if (lo->val == c)
			return lo->name;
	return "?";
}

/* whether the directory --plot writes into (beside the file) is there */
static int plot_dir_writable(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];

	if (!strcmp(path, "-")) /* stdout has the table */
		return -EINVAL;
	if (path[strlen(path) - 1] == '/')
		return -EISDIR;
	if (!slash)
		return access(".", W_OK | X_OK) ? -errno : 0;
	if ((size_t)(slash - path) >= sizeof(dir))
		return -ENAMETOOLONG;
	snprintf(dir, sizeof(dir), "%.*s",
		 (int)(slash == path ? 1 : slash - path), path);
	return access(dir, W_OK | X_OK) ? -errno : 0;
}

static void set_defaults(struct cclt_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ops = 1U << CCLT_ALLREDUCE;
	o->dtype = HPUCCL_FLOAT32;
	o->redop = HPUCCL_SUM;
	o->minbytes = 32ULL << 20;
	o->maxbytes = 32ULL << 20;
	o->factor = 2;
	o->iters = 20;
	o->warmup = 5;
	o->check = true;
	o->model = hpusim_tm_profile_find("gaudi2");
}

/* One option with its argument; 0 or CCLT_EXIT_USAGE */
static int parse_one(struct cclt_opts *o, int c, const char *arg)
{
	const char *name = long_name(c);
	long v;
	int id;

	switch (c) {
	case 'o':
		id = cclt_op_lookup(arg);
		if (id < 0)
			return bad(c, name, arg,
				   "expected allreduce, broadcast, reduce, "
				   "allgather, reduce_scatter, alltoall, "
				   "sendrecv or all");
		o->ops = id == CCLT_NUM_OPS ? (1U << CCLT_NUM_OPS) - 1 :
					      1U << id;
		return 0;
	case 'd':
		id = lookup(dtypes, ARRAY_SIZE(dtypes), arg);
		if (id < 0)
			return bad(c, name, arg,
				   "expected float (fp32), bfloat16 (bf16) or "
				   "int32");
		o->dtype = id;
		return 0;
	case OPT_REDOP:
		id = lookup(redops, ARRAY_SIZE(redops), arg);
		if (id < 0)
			return bad(c, name, arg,
				   "expected sum, min, max or avg");
		o->redop = id;
		return 0;
	case 'r':
		if (parse_long(arg, 0, MAX_RANKS - 1, &v))
			return bad(c, name, arg, "expected a rank >= 0");
		o->root = (int)v;
		return 0;
	case 'b':
	case 'e':
		if (cclt_parse_size(arg,
				    c == 'b' ? &o->minbytes : &o->maxbytes))
			return bad(c, name, arg,
				   "expected a size like 4096, 64K, 1M or 1G, "
				   "at most 16G");
		return 0;
	case 'f':
		if (parse_long(arg, 2, 1024, &v))
			return bad(c, name, arg, "expected an integer 2..1024");
		o->factor = (uint64_t)v;
		return 0;
	case 'n':
	case 'w':
		if (parse_long(arg, c == 'n' ? 1 : 0, MAX_ITERS, &v))
			return bad(c, name, arg,
				   c == 'n' ? "expected an integer 1..1000000" :
					      "expected an integer 0..1000000");
		*(c == 'n' ? &o->iters : &o->warmup) = v;
		return 0;
	case 'c':
		if (parse_long(arg, 0, 1, &v))
			return bad(c, name, arg, "expected 0 or 1");
		o->check = v;
		return 0;
	case 'g':
		if (parse_long(arg, 1, MAX_RANKS, &v))
			return bad(c, name, arg, "expected an integer 1..1024");
		o->nranks = (int)v;
		return 0;
	case OPT_TIMEOUT:
		if (parse_long(arg, 1, MAX_TIMEOUT, &v))
			return bad(c, name, arg,
				   "expected milliseconds 1..3600000");
		o->timeout_ms = (uint32_t)v;
		return 0;
	case OPT_PLOT:
		if (!*arg || plot_dir_writable(arg))
			return bad(c, name, arg,
				   "expected a file in a writable directory");
		o->plot_path = arg;
		return 0;
	case OPT_MODEL:
		if (!strcmp(arg, "none")) {
			o->model = NULL;
			return 0;
		}
		o->model = hpusim_tm_profile_find(arg);
		if (!o->model)
			return bad(c, name, arg,
				   "expected gaudi, gaudi2, gaudi3 or none");
		return 0;
	}
	return CCLT_EXIT_USAGE;
}

int cclt_parse_args(int argc, char **argv, struct cclt_opts *o)
{
	int c, ret;

	set_defaults(o);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:d:r:b:e:f:n:w:c:g:h", long_opts,
				NULL)) != -1) {
		if (c == 'h') {
			cclt_usage(stdout);
			return 1;
		}
		if (c == ':') {
			fprintf(stderr,
				CCLT_PROG ": option '%s' needs a value\n",
				argv[optind - 1]);
			return CCLT_EXIT_USAGE;
		}
		if (c == '?') {
			if (optopt)
				fprintf(stderr,
					CCLT_PROG ": unknown option -%c\n",
					optopt);
			else
				fprintf(stderr,
					CCLT_PROG ": unknown option '%s'\n",
					argv[optind - 1]);
			fprintf(stderr, "Try '" CCLT_PROG " --help'.\n");
			return CCLT_EXIT_USAGE;
		}
		ret = parse_one(o, c, optarg);
		if (ret)
			return ret;
	}
	if (optind < argc) {
		fprintf(stderr, CCLT_PROG ": unexpected argument '%s'\n",
			argv[optind]);
		return CCLT_EXIT_USAGE;
	}
	if (!o->minbytes || o->minbytes > o->maxbytes) {
		fprintf(stderr,
			CCLT_PROG ": -b %llu and -e %llu: need 0 < minbytes "
				  "<= maxbytes\n",
			(unsigned long long)o->minbytes,
			(unsigned long long)o->maxbytes);
		return CCLT_EXIT_USAGE;
	}
	return 0;
}

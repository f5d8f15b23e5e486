// SPDX-License-Identifier: MIT
/*
 * main.c - hpu-smi: the status tool of the hpu stack (docs/hpu-smi.md).
 *
 * Uses libhpudrv only, and control nodes only, so watching a device never
 * makes hpu-smi one of its holders.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hpu_access.h"
#include "smi.h"

enum smi_mode {
	MODE_TABLE,
	MODE_LIST,
	MODE_QUERY,
	MODE_REPORT,
	MODE_HOT_ADD,
	MODE_HOT_REMOVE,
	MODE_RESET,
	MODE_NIC,
	MODE_FW_VERSIONS
};

/**
 * struct smi_opts - the command line
 * @mode: what to print
 * @ids: -i items, or none (n == 0) for every device
 * @fields: -Q items
 * @format: -f items
 * @has_format: -f was given
 * @display: -d items (sections of -q in hl-smi's layout), n == 0: none
 * @loop_s: -l value in seconds, 0 for a single sample
 * @count: -c value, 0 for unbounded
 * @hot_arg: --hot-add TYPE (NULL: the daemon's) or --hot-remove N
 * @reset_arg: -r KIND (NULL: hard)
 * @nic_view: -n VIEW
 */
struct smi_opts {
	enum smi_mode mode;
	struct smi_list ids;
	struct smi_list fields;
	struct smi_list format;
	bool has_format;
	struct smi_list display;
	long loop_s;
	long count;
	const char *hot_arg;
	const char *reset_arg;
	enum smi_nic_view nic_view;
};

const char *smi_prog = "hpu-smi";
bool smi_as_hl;

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [OPTIONS]\n"
		"       %s topo [-m] [-c] [-N]\n"
		"\n"
		"Show the state of the HPU devices (default: a table of every device\n"
		"and the processes holding them).\n"
		"\n"
		"  -L, --list-hpus           one line per device (also --list-aips)\n"
		"  -i, --id=ID[,ID...]       only these devices (index or bus id;\n"
		"                            also --device)\n"
		"  -Q, --query-aip=FIELDS    print FIELDS (comma-separated) per device\n"
		"      --query-hpu=FIELDS    the same\n"
		"  -f, --format=FORMAT       csv[,noheader][,nounits] (default) or json\n"
		"      --help-query          list the fields of --query-aip\n"
		"  -q, --query               detailed report of every device\n"
		"  -d, --display=SECTION[,SECTION...]\n"
		"                            with -q: hl-smi's sections PRODUCT,\n"
		"                            POWER, CLOCK, TEMPERATURE, MEMORY, NET,\n"
		"                            ROW_REPLACEMENT (as hl-smi: -q alone\n"
		"                            prints them all)\n"
		"  -l, --loop=SECONDS        repeat every SECONDS until interrupted\n"
		"  -c, --count=COUNT         with -l: stop after COUNT samples\n"
		"      --hot-add [TYPE]      add a simulated device (gaudi, gaudi2,\n"
		"                            gaudi3; default: the daemon's type)\n"
		"      --hot-remove INDEX    remove a simulated device\n"
		"  -r, --reset[=KIND]        reset the devices of -i (hard, the\n"
		"                            default, or compute)\n"
		"  -n, --nic=VIEW            NIC ports: link (UP/DOWN per port),\n"
		"                            ports (MAC address, internal or\n"
		"                            external, peer) or stats (counters)\n"
		"      --fw-versions         firmware and driver versions\n"
		"  topo [-m] [-c] [-N]       the devices' connectivity matrix,\n"
		"                            -c/-N: with CPU/NUMA affinity\n"
		"  -V, -v, --version         print versions and exit\n"
		"  -h, --help                print this help and exit\n"
		"\n"
		"Exit status: 0 ok, 1 error, 2 bad usage, 3 a device could not be\n"
		"queried, 6 no devices were found.\n",
		smi_prog, smi_prog);
}

static int parse_long(const char *s, long min, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min)
		return -EINVAL;
	*out = v;
	return 0;
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", smi_prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", smi_prog);
	return -EINVAL;
}

static int set_mode(struct smi_opts *o, enum smi_mode m, const char *flag)
{
	if (o->mode != MODE_TABLE && o->mode != m)
		return usage_error("%s cannot be combined with another mode",
				   flag);
	o->mode = m;
	return 0;
}

/* Returns 0 to run, 1 when done (help/version printed), -EINVAL. */
static int parse_args(int argc, char **argv, struct smi_opts *o)
{
	static const struct option longopts[] = {
		{ "list-hpus", no_argument, NULL, 'L' },
		{ "list-aips", no_argument, NULL, 'L' },
		{ "id", required_argument, NULL, 'i' },
		{ "device", required_argument, NULL, 'i' },
		{ "query-aip", required_argument, NULL, 'Q' },
		{ "query-hpu", required_argument, NULL, 'Q' },
		{ "format", required_argument, NULL, 'f' },
		{ "help-query", no_argument, NULL, 'H' },
		{ "query", no_argument, NULL, 'q' },
		{ "display", required_argument, NULL, 'd' },
		{ "loop", required_argument, NULL, 'l' },
		{ "count", required_argument, NULL, 'c' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ "hot-add", optional_argument, NULL, 'A' },
		{ "hot-remove", required_argument, NULL, 'R' },
		{ "reset", optional_argument, NULL, 'r' },
		{ "nic", required_argument, NULL, 'n' },
		{ "fw-versions", no_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":Li:Q:f:qd:l:c:n:Vvhr::", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'L':
			if (set_mode(o, MODE_LIST, "-L"))
				return -EINVAL;
			break;
		case 'i':
			if (smi_list_parse("-i", optarg, &o->ids))
				return -EINVAL;
			break;
		case 'Q':
			if (set_mode(o, MODE_QUERY, "-Q") ||
			    smi_list_parse("-Q", optarg, &o->fields))
				return -EINVAL;
			break;
		case 'f':
			if (smi_list_parse("-f", optarg, &o->format))
				return -EINVAL;
			o->has_format = true;
			break;
		case 'q':
			if (set_mode(o, MODE_REPORT, "-q"))
				return -EINVAL;
			break;
		case 'd':
			if (smi_list_parse("-d", optarg, &o->display))
				return -EINVAL;
			break;
		case 'l':
			if (parse_long(optarg, 1, &o->loop_s))
				return usage_error("invalid loop interval '%s' "
						   "(whole seconds >= 1)",
						   optarg);
			break;
		case 'c':
			if (parse_long(optarg, 1, &o->count))
				return usage_error("invalid count '%s'",
						   optarg);
			break;
		case 'A':
			if (set_mode(o, MODE_HOT_ADD, "--hot-add"))
				return -EINVAL;
			/* "--hot-add TYPE" as well as "--hot-add=TYPE" */
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			o->hot_arg = optarg;
			break;
		case 'R':
			if (set_mode(o, MODE_HOT_REMOVE, "--hot-remove"))
				return -EINVAL;
			o->hot_arg = optarg;
			break;
		case 'r':
			if (set_mode(o, MODE_RESET, "-r"))
				return -EINVAL;
			o->reset_arg = optarg;
			break;
		case 'n':
			if (set_mode(o, MODE_NIC, "-n") ||
			    smi_nic_view_parse(optarg, &o->nic_view))
				return -EINVAL;
			break;
		case 'F':
			if (set_mode(o, MODE_FW_VERSIONS, "--fw-versions"))
				return -EINVAL;
			break;
		case 'H':
			smi_query_help(stdout);
			return 1;
		case 'V':
		case 'v':
			printf("%s %s (libhpudrv %s)\n", smi_prog, HPU_VERSION,
			       hpu_library_version());
			return 1;
		case 'h':
			usage(stdout);
			return 1;
		case ':':
			return usage_error("option '%s' needs an argument",
					   argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (o->has_format && o->mode != MODE_QUERY)
		return usage_error("%s needs --query-aip", "--format");
	if (o->display.n && o->mode != MODE_REPORT)
		return usage_error("%s needs --query", "--display");
	if (o->count && !o->loop_s)
		return usage_error("%s needs --loop", "--count");
	if (o->mode == MODE_RESET && (!o->ids.n || o->loop_s || o->has_format))
		return usage_error("%s needs -i and takes no -l, -c or -f",
				   "-r");
	if ((o->mode == MODE_HOT_ADD || o->mode == MODE_HOT_REMOVE) &&
	    (o->ids.n || o->loop_s || o->has_format))
		return usage_error("%s takes no -i, -l, -c or -f",
				   o->mode == MODE_HOT_ADD ? "--hot-add" :
							     "--hot-remove");
	return 0;
}

static int bus_id_match(const char *have, const char *want)
{
	size_t n = strlen(want);

	/* "BB:DD.F" means domain 0000 */
	if (n == 7 && !strncmp(have, "0000:", 5))
		have += 5;
	return have[0] && !strcasecmp(have, want);
}

/*
 * Says why -i @tok names no device. Indices are not renumbered when a
 * device goes (hot-plug, docs/hotplug.md), so an index may be missing in
 * the middle: the message lists the ones present.
 */
static void unknown_id(const char *tok, bool numeric,
		       const struct hpu_device_info *all, int n)
{
	char present[256] = "";
	size_t used = 0;
	int i;

	if (!numeric) {
		fprintf(stderr, "%s: no device with bus id '%s'\n", smi_prog,
			tok);
		return;
	}
	for (i = 0; i < n && used < sizeof(present) - 16; i++)
		used += (size_t)snprintf(present + used, sizeof(present) - used,
					 "%s%d", i ? ", " : "", all[i].index);
	fprintf(stderr,
		"%s: no device with index %s (removed, or never there); "
		"present: %s\n",
		smi_prog, tok, n ? present : "none");
}

/* Keeps the devices named by -i, in the order of @all; -EINVAL if one
 * is unknown. */
static int select_ids(const struct smi_list *ids, struct hpu_device_info *all,
		      int n, int *nsel)
{
	bool keep[n ? n : 1];
	int i, t, k = 0;

	memset(keep, 0, sizeof(keep));
	for (t = 0; t < ids->n; t++) {
		const char *tok = ids->item[t], *p;
		bool found = false, numeric = true;
		long index = -1;

		for (p = tok; *p; p++)
			if (!isdigit((unsigned char)*p))
				numeric = false;
		/* one too large for a long names no device either */
		if (numeric && parse_long(tok, 0, &index))
			index = -1;
		for (i = 0; i < n; i++) {
			if ((numeric && all[i].index == index) ||
			    (!numeric && bus_id_match(all[i].bus_id, tok))) {
				keep[i] = found = true;
			}
		}
		if (!found) {
			unknown_id(tok, numeric, all, n);
			return -EINVAL;
		}
	}
	for (i = 0; i < n; i++)
		if (keep[i])
			all[k++] = all[i];
	*nsel = k;
	return 0;
}

static int print_once(const struct smi_opts *o, const struct smi_query *q,
		      unsigned int sections, const struct hpu_device_info *sel,
		      int nsel, bool first)
{
	struct smi_sample s;
	char msg[512];
	int i, ret = SMI_EXIT_OK;

	if (smi_sample(sel, nsel, o->mode != MODE_LIST, &s)) {
		fprintf(stderr, "%s: out of memory\n", smi_prog);
		return SMI_EXIT_ERROR;
	}
	switch (o->mode) {
	case MODE_TABLE:
		/* hl-smi's layout under its name, hpu-smi's own else */
		if (smi_as_hl)
			ret = smi_print_hl_table(stdout, &s);
		else
			smi_print_table(stdout, &s);
		break;
	case MODE_NIC:
		ret = smi_print_nic(stdout, &s, o->nic_view);
		break;
	case MODE_FW_VERSIONS:
		ret = smi_print_fw_versions(stdout, &s);
		break;
	case MODE_LIST:
		smi_print_list(stdout, &s);
		break;
	case MODE_QUERY:
		smi_query_print(stdout, q, &s, first);
		break;
	case MODE_REPORT:
		if (sections)
			smi_print_hl_sections(stdout, &s, sections);
		else
			smi_print_report(stdout, &s);
		break;
	case MODE_HOT_ADD:
	case MODE_HOT_REMOVE:
	case MODE_RESET:
		break; /* handled before sampling */
	}
	for (i = 0; i < s.ndev; i++) {
		if (s.devs[i].err == -EACCES) {
			fprintf(stderr, "%s: hpu%d: %s\n", smi_prog,
				s.devs[i].info.index,
				hpu_access_hint(s.devs[i].info.control_path,
						msg, sizeof(msg)));
			ret = SMI_EXIT_QUERY;
		} else if (s.devs[i].err) {
			fprintf(stderr, "%s: hpu%d: %s\n", smi_prog,
				s.devs[i].info.index,
				hpu_strerror(s.devs[i].err));
			ret = SMI_EXIT_QUERY;
		}
	}
	smi_sample_free(&s);
	if (fflush(stdout))
		return SMI_EXIT_ERROR;
	return ret;
}

static void sleep_interruptible(long seconds)
{
	struct timespec ts = { seconds, 0 };

	/* a signal ends the sleep early; the caller then sees stop */
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	struct hpu_device_info *all = NULL;
	struct smi_query *q = NULL;
	struct sigaction sa;
	struct smi_opts o;
	unsigned int sections = 0;
	const char *base;
	int n, nsel, ret;
	long iter;

	base = argc > 0 ? strrchr(argv[0], '/') : NULL;
	base = base ? base + 1 : argc > 0 ? argv[0] : "";
	if (!strcmp(base, "hl-smi")) {
		smi_prog = "hl-smi";
		smi_as_hl = true;
	}
	/* "topo" is a command of its own, with its own flags */
	if (argc > 1 && !strcmp(argv[1], "topo")) {
		ret = smi_topo_main(argc - 1, argv + 1);
		smi_hl_close();
		return ret;
	}
	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret > 0 ? SMI_EXIT_OK : SMI_EXIT_USAGE;
	if (o.mode == MODE_HOT_ADD)
		return smi_hot_add(o.hot_arg);
	if (o.mode == MODE_HOT_REMOVE)
		return smi_hot_remove(o.hot_arg);
	if (o.mode == MODE_RESET && smi_reset_kind(o.reset_arg) < 0)
		return SMI_EXIT_USAGE;
	/* hl-smi's -q is its sections; hpu-smi's own report needs no -d */
	if (o.display.n && smi_hl_sections_parse(&o.display, &sections))
		return SMI_EXIT_USAGE;
	if (!o.display.n && smi_as_hl)
		sections = SMI_HL_SECTIONS_ALL;
	if (o.mode == MODE_QUERY &&
	    smi_query_parse(&o.fields, o.has_format ? &o.format : NULL, &q))
		return SMI_EXIT_USAGE;

	ret = hpu_device_list(&all, &n);
	if (ret) {
		fprintf(stderr, "%s: cannot enumerate devices: %s\n", smi_prog,
			hpu_last_error() ?: hpu_strerror(ret));
		ret = SMI_EXIT_ERROR;
		goto out_free_query;
	}
	if (!n) {
		fprintf(stderr, "No devices were found\n");
		ret = SMI_EXIT_NO_DEVICES;
		goto out_free_list;
	}
	nsel = n;
	if (o.ids.n && select_ids(&o.ids, all, n, &nsel)) {
		ret = SMI_EXIT_USAGE;
		goto out_free_list;
	}
	if (o.mode == MODE_RESET) {
		ret = smi_reset(all, nsel, smi_reset_kind(o.reset_arg));
		goto out_free_list;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (iter = 0; !stop; iter++) {
		ret = print_once(&o, q, sections, all, nsel, iter == 0);
		if (!o.loop_s || (o.count && iter + 1 >= o.count) || stop)
			break;
		if (o.mode != MODE_QUERY && o.mode != MODE_LIST)
			putchar('\n');
		sleep_interruptible(o.loop_s);
	}

out_free_list:
	hpu_device_list_free(all);
out_free_query:
	smi_query_free(q);
	smi_hl_close();
	return ret;
}

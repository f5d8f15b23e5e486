// SPDX-License-Identifier: MIT
/*
 * main.c - hpu-plot: redraw the pictures hpu-train and hpu-ccl-tests draw
 * (docs/plots.md), from their text outputs.
 *
 *   hpu-plot metrics [-o OUT.svg] [-t TITLE] METRICS.csv
 *   hpu-plot ccl [-o OUT.svg] [-t TITLE] [-l LABEL] TABLE [[-l LABEL] TABLE]...
 *
 * Exit status: 0 drawn, 1 the output could not be written, 2 a usage
 * error or an input that is missing or malformed (the line and what is
 * wrong with it on stderr).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cclt_plot.h"
#include "ht_metrics_plot.h"

#define PLOT_PROG	"hpu-plot"
#define PLOT_EXIT_OK	0
#define PLOT_EXIT_WRITE 1
#define PLOT_EXIT_USAGE 2
#define PLOT_MAX_TABLES HPU_PLOT_MAX_SERIES

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PLOT_PROG
		" metrics [-o OUT.svg] [-t TITLE] METRICS.csv\n"
		"       " PLOT_PROG
		" ccl [-o OUT.svg] [-t TITLE] [-l LABEL] TABLE"
		" [[-l LABEL] TABLE]...\n"
		"Draw hpu-train's metrics.csv (loss and accuracy vs step) or "
		"tables of\n"
		"hpu-ccl-tests / hpu-mpi-allreduce-ref (busbw vs size) as SVG "
		"(docs/plots.md).\n\n"
		"  -o OUT.svg   output (default: the input with .svg for its "
		"extension;\n"
		"               - for stdout, the default when the input is -)\n"
		"  -t TITLE     title of the picture\n"
		"  -l LABEL     legend prefix of the TABLE after it (default: "
		"none for one\n"
		"               table, the file name for several)\n"
		"  -h, --help   this text\n\n"
		"Exit status: 0 drawn, 1 output not written, 2 usage error or "
		"bad input.\n");
}

/* @in with its extension replaced by .svg; "-" for "-" */
static char *default_out(const char *in)
{
	const char *slash = strrchr(in, '/'), *dot = strrchr(in, '.');
	size_t stem;
	char *out;

	if (!strcmp(in, "-"))
		return strdup("-");
	stem = dot && (!slash || dot > slash + 1) ? (size_t)(dot - in) :
						    strlen(in);
	out = malloc(stem + sizeof(".svg"));
	if (out)
		snprintf(out, stem + sizeof(".svg"), "%.*s.svg", (int)stem, in);
	return out;
}

static int write_failed(const char *out, int ret)
{
	fprintf(stderr, PLOT_PROG ": cannot write %s: %s\n", out,
		strerror(-ret));
	return PLOT_EXIT_WRITE;
}

static int cmd_metrics(const char *in, const char *out, const char *title)
{
	struct ht_metrics_curves c;
	char err[512], deftitle[512];
	char *defout = NULL;
	int ret;

	ret = ht_metrics_read(in, &c, err, sizeof(err));
	if (ret) {
		fprintf(stderr, PLOT_PROG ": %s\n",
			err[0] ? err : strerror(-ret));
		ht_metrics_free(&c);
		return ret == -ENOMEM ? PLOT_EXIT_WRITE : PLOT_EXIT_USAGE;
	}
	if (c.nonfinite)
		fprintf(stderr,
			PLOT_PROG ": %s: %llu nan/inf values left out\n", in,
			(unsigned long long)c.nonfinite);
	if (c.cut)
		fprintf(stderr,
			PLOT_PROG
			": %s: the last line is cut short, left out\n",
			in);
	if (!out) {
		out = defout = default_out(in);
		if (!out) {
			ht_metrics_free(&c);
			return write_failed("the output", -ENOMEM);
		}
	}
	if (!title) {
		snprintf(deftitle, sizeof(deftitle), "hpu-train: %s", in);
		title = deftitle;
	}
	ret = ht_metrics_svg(&c, title, out);
	ht_metrics_free(&c);
	if (ret)
		ret = write_failed(out, ret);
	free(defout);
	return ret;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int cmd_ccl(char **tables, char **labels, int n, const char *out,
		   const char *title)
{
	struct cclt_plot p;
	char err[512];
	char *defout = NULL;
	int i, ret = 0;

	cclt_plot_init(&p, title ? title : "bus bandwidth vs size");
	for (i = 0; !ret && i < n; i++) {
		const char *label = labels[i];
		FILE *f = strcmp(tables[i], "-") ? fopen(tables[i], "r") :
						   stdin;

		if (!label && n > 1)
			label = base_name(tables[i]);
		if (!f) {
			fprintf(stderr, PLOT_PROG ": %s: %s\n", tables[i],
				strerror(errno));
			ret = PLOT_EXIT_USAGE;
			break;
		}
		err[0] = 0;
		ret = cclt_plot_read_table(&p, f, tables[i], label, err,
					   sizeof(err));
		if (f != stdin)
			fclose(f);
		if (ret) {
			fprintf(stderr, PLOT_PROG ": %s\n",
				err[0] ? err : strerror(-ret));
			ret = ret == -ENOMEM ? PLOT_EXIT_WRITE :
					       PLOT_EXIT_USAGE;
		}
	}
	if (!ret && p.skipped)
		fprintf(stderr, PLOT_PROG ": %lu nan/inf values left out\n",
			p.skipped);
	if (!ret && !out) {
		out = defout = default_out(tables[0]);
		if (!out)
			ret = write_failed("the output", -ENOMEM);
	}
	if (!ret) {
		ret = cclt_plot_write(&p, out);
		if (ret)
			ret = write_failed(out, ret);
	}
	cclt_plot_free(&p);
	free(defout);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *tables[PLOT_MAX_TABLES], *labels[PLOT_MAX_TABLES];
	const char *out = NULL, *title = NULL, *cmd, *label = NULL;
	int c, n = 0;

	if (argc < 2) {
		usage(stderr);
		return PLOT_EXIT_USAGE;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return PLOT_EXIT_OK;
	}
	if (strcmp(cmd, "metrics") && strcmp(cmd, "ccl")) {
		fprintf(stderr,
			PLOT_PROG ": unknown command '%s' (metrics or ccl)\n",
			cmd);
		return PLOT_EXIT_USAGE;
	}
	opterr = 0;
	optind = 2;
	/* '-': the tables come in order, each after its -l */
	while ((c = getopt_long(argc, argv, "-:o:t:l:h", long_opts, NULL)) !=
	       -1) {
		switch (c) {
		case 1:
			if (n == PLOT_MAX_TABLES) {
				fprintf(stderr,
					PLOT_PROG ": more than %d inputs\n",
					PLOT_MAX_TABLES);
				return PLOT_EXIT_USAGE;
			}
			labels[n] = (char *)label;
			tables[n++] = optarg;
			label = NULL;
			break;
		case 'o':
		case 't':
			if (!*optarg) {
				fprintf(stderr, PLOT_PROG ": -%c: empty\n", c);
				return PLOT_EXIT_USAGE;
			}
			*(c == 'o' ? &out : &title) = optarg;
			break;
		case 'l':
			if (strcmp(cmd, "ccl")) {
				fprintf(stderr,
					PLOT_PROG ": -l is for ccl tables\n");
				return PLOT_EXIT_USAGE;
			}
			label = optarg;
			break;
		case 'h':
			usage(stdout);
			return PLOT_EXIT_OK;
		case ':':
			fprintf(stderr,
				PLOT_PROG ": option '%s' needs a value\n",
				argv[optind - 1]);
			return PLOT_EXIT_USAGE;
		default:
			fprintf(stderr,
				PLOT_PROG
				": unknown option '%s'\nTry '" PLOT_PROG
				" --help'.\n",
				argv[optind - 1]);
			return PLOT_EXIT_USAGE;
		}
	}
	if (!n || (label && !strcmp(cmd, "ccl"))) {
		fprintf(stderr, PLOT_PROG ": %s\n",
			n ? "-l LABEL must come before its TABLE" :
			    "no input file");
		return PLOT_EXIT_USAGE;
	}
	if (!strcmp(cmd, "metrics")) {
		if (n > 1) {
			fprintf(stderr,
				PLOT_PROG ": metrics draws one file, got %d\n",
				n);
			return PLOT_EXIT_USAGE;
		}
		return cmd_metrics(tables[0], out, title);
	}
	return cmd_ccl(tables, labels, n, out, title);
}

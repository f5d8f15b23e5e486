// SPDX-License-Identifier: MIT
/*
 * fuzz_plot.c - libFuzzer target of the plot inputs (docs/plots.md): the
 * metrics.csv reader (trainer/lib/plot_metrics.c) and the busbw table
 * reader (tools/hpu-ccl-tests/plot.c), then the SVG writer
 * (common/hpu_plot.c) on what they accepted.
 *
 * Input: one byte choosing the reader (bit 0: 0 metrics, 1 table), then
 * the file. It is put into a memfd and read through /proc/self/fd, as a
 * user's path is. What a reader accepts must be drawable (the writer
 * returns 0) and keep its promises (points finite, steps and sizes never
 * going back); what it refuses must come with a message.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../tools/hpu-ccl-tests/cclt_plot.h"
#include "ht_metrics_plot.h"

#include "fuzz_seed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define MAX_FILE (1 << 20)

static int memfd = -1;
static char tmpdir[] = "/tmp/hpu-fuzz-plot.XXXXXX";
static char out[64];

static void remove_out(void)
{
	unlink(out);
	rmdir(tmpdir);
}

static void check_curves(const struct ht_metrics_curves *c)
{
	size_t i;
	int k;

	for (k = 0; k < HT_NUM_CURVES; k++) {
		if (c->n[k] > c->rows)
			abort();
		for (i = 0; i < c->n[k]; i++)
			if (!isfinite(c->y[k][i]) ||
			    (i && c->x[k][i] < c->x[k][i - 1]))
				abort();
	}
}

static void check_lines(const struct cclt_plot *p)
{
	size_t l, i;

	for (l = 0; l < p->nlines; l++)
		for (i = 0; i < p->line[l].n; i++)
			if (!isfinite(p->line[l].y[i]) ||
			    (i && p->line[l].x[i] < p->line[l].x[i - 1]))
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512] = "";
	size_t done = 0;
	int ret;

	if (size < 1 || size - 1 > MAX_FILE)
		return 0;
	if (ftruncate(memfd, 0) || lseek(memfd, 0, SEEK_SET))
		abort();
	while (done < size - 1) {
		ssize_t n = write(memfd, data + 1 + done, size - 1 - done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	if (!(data[0] & 1)) {
		struct ht_metrics_curves c;

		ret = ht_metrics_read(path, &c, err, sizeof(err));
		if (ret && !err[0])
			abort();
		if (!ret) {
			check_curves(&c);
			if (ht_metrics_svg(&c, "fuzz", out))
				abort();
		}
		ht_metrics_free(&c);
	} else {
		struct cclt_plot p;
		FILE *f = fopen(path, "r");

		if (!f)
			abort();
		cclt_plot_init(&p, "fuzz");
		ret = cclt_plot_read_table(&p, f, "t", NULL, err, sizeof(err));
		fclose(f);
		if (ret == -EINVAL && !err[0])
			abort();
		if (!ret) {
			check_lines(&p);
			if (cclt_plot_write(&p, out))
				abort();
		}
		cclt_plot_free(&p);
	}
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char metrics[] =
		"\0step,epoch,batch,loss,lr,val_loss,val_acc,samples_per_s,"
		"step_time_s,mem_in_use,mem_peak,utilization\n"
		"2,0,1,2.19,0.05,,,5928,5.3e-05,0,0,\n"
		"4,0,3,nan,0.05,1.2,0.75,7832,4.0e-05,0,0,\n"
		"6,0,5,1.88,0.05,,,8510,3.7e-05,0,0,";
	static const char table[] =
		"\001# allreduce: 2 ranks, float, redop sum\n"
		"  1024 256 float sum -1 10.0 0.1 0.5 0 10.0 0.1 N/A 0\n"
		"  2048 512 float sum -1 10.0 0.1 inf 0 10.0 0.1 0.7 0\n"
		"# MPI_Allreduce: 2 ranks, float, sum\n"
		"  1024 256 float sum -1 10.0 0.1 0.3\n";
	const char *dir = fuzz_corpus_dir(*argc, *argv);

	memfd = memfd_create("fuzz_plot", 0);
	if (memfd < 0 || !mkdtemp(tmpdir))
		abort();
	snprintf(out, sizeof(out), "%s/out.svg", tmpdir);
	atexit(remove_out);
	fuzz_seed_add(dir, "metrics", metrics, sizeof(metrics) - 1);
	fuzz_seed_add(dir, "table", table, sizeof(table) - 1);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * report.c - rank 0's table, in nccl-tests' columns: size and count of
 * the buffer, type, reduction, root, then per form (out of place, in
 * place) the slowest rank's time per call, the algorithm bandwidth
 * (size / time), the bus bandwidth (algbw times the collective's factor)
 * and the wrong elements over all ranks. Every line is flushed as it is
 * printed.
 */
#include <stdio.h>

#include "ccltests.h"

double cclt_busbw(const struct cclt_op *op, int nranks,
		  const struct cclt_row *row, int in_place)
{
	double t = row->time_us[in_place];

	if (t < 0)
		return -1.0;
	/* bytes per microsecond / 1000 = GB/s */
	return (t > 0 ? row->bytes / t / 1e3 : 0.0) * op->busbw_factor(nranks);
}

void cclt_print_header(const struct cclt_opts *o, const struct cclt_op *op,
		       int nranks)
{
	printf("#\n# %s: %d ranks, %s, redop %s, root %d, %llu..%llu bytes "
	       "x%llu, %ld iterations, %ld warm-up, check %d\n#\n",
	       op->name, nranks, cclt_dtype_name(o->dtype),
	       op->reduces ? cclt_redop_name(o->redop) : "none",
	       op->rooted ? o->root : -1, (unsigned long long)o->minbytes,
	       (unsigned long long)o->maxbytes, (unsigned long long)o->factor,
	       o->iters, o->warmup, o->check);
	printf("# %12s %13s %9s %6s %5s  %36s  %36s\n", "", "", "", "", "",
	       "out-of-place", "in-place");
	printf("# %12s %13s %9s %6s %5s  %10s %8s %8s %7s  %10s %8s %8s %7s\n",
	       "size", "count", "type", "redop", "root", "time", "algbw",
	       "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
	printf("# %12s %13s %9s %6s %5s  %10s %8s %8s %7s  %10s %8s %8s %7s\n",
	       "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
	       "(us)", "(GB/s)", "(GB/s)", "");
	fflush(stdout);
}

void cclt_print_row(const struct cclt_opts *o, const struct cclt_op *op,
		    int nranks, const struct cclt_row *row, double *sum, int *n)
{
	double algbw, busbw;
	char wrong[24];
	int p;

	printf("  %12llu %13llu %9s %6s %5d", (unsigned long long)row->bytes,
	       (unsigned long long)row->count, cclt_dtype_name(o->dtype),
	       op->reduces ? cclt_redop_name(o->redop) : "none",
	       op->rooted ? o->root : -1);
	for (p = 0; p < 2; p++) {
		if (row->time_us[p] < 0) {
			printf("  %10s %8s %8s %7s", "N/A", "N/A", "N/A",
			       "N/A");
			continue;
		}
		/* bytes per microsecond / 1000 = GB/s */
		algbw = row->time_us[p] > 0 ?
				row->bytes / row->time_us[p] / 1e3 :
				0.0;
		busbw = cclt_busbw(op, nranks, row, p);
		*sum += busbw;
		(*n)++;
		if (row->wrong[p] < 0)
			snprintf(wrong, sizeof(wrong), "N/A");
		else
			snprintf(wrong, sizeof(wrong), "%lld", row->wrong[p]);
		printf("  %10.1f %8.3f %8.3f %7s", row->time_us[p], algbw,
		       busbw, wrong);
	}
	printf("\n");
	fflush(stdout);
}

void cclt_print_footer(double busbw_sum, int n, long long wrong)
{
	if (wrong < 0)
		printf("# Wrong elements : not checked\n");
	else
		printf("# Wrong elements : %lld %s\n", wrong,
		       wrong ? "FAILED" : "OK");
	printf("# Avg bus bandwidth : %.3f\n#\n", n ? busbw_sum / n : 0.0);
	fflush(stdout);
}

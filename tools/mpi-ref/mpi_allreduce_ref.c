// SPDX-License-Identifier: MIT
/*
 * mpi_allreduce_ref.c - hpu-mpi-allreduce-ref: Open MPI's MPI_Allreduce
 * (float, sum) on host memory, timed over the sizes hpu-ccl-tests uses
 * and printed in its columns, so the two tables compare row by row
 * (make bench-ccl; docs/hpu-ccl-tests.md).
 *
 *   mpirun -np 8 hpu-mpi-allreduce-ref [-b SIZE] [-e SIZE] [-f N]
 *	[-n ITERS] [-w WARMUP]
 *
 * Time per call: the slowest rank's, as in hpu-ccl-tests. Exit status 0,
 * 1 on an MPI error, 2 on a usage error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#define MAX_BYTES (16ULL << 30)

struct ref_opts {
	uint64_t minbytes, maxbytes, factor;
	long iters, warmup;
};

static int parse_size(const char *arg, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (*arg < '0' || *arg > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	else if (*end)
		return -EINVAL;
	if (shift && end[1])
		return -EINVAL;
	if (v > (MAX_BYTES >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

static int parse_long(const char *arg, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	return errno || end == arg || *end || *out < min || *out > max ?
		       -EINVAL :
		       0;
}

/* 0 run, 2 usage error (printed by rank 0 only) */
static int parse_args(int argc, char **argv, struct ref_opts *o, int rank)
{
	long f;
	int c, bad = 0;

	o->minbytes = o->maxbytes = 32ULL << 20;
	o->factor = 2;
	o->iters = 20;
	o->warmup = 5;
	opterr = 0;
	while (!bad && (c = getopt(argc, argv, ":b:e:f:n:w:")) != -1) {
		switch (c) {
		case 'b':
			bad = parse_size(optarg, &o->minbytes);
			break;
		case 'e':
			bad = parse_size(optarg, &o->maxbytes);
			break;
		case 'f':
			bad = parse_long(optarg, 2, 1024, &f);
			o->factor = (uint64_t)f;
			break;
		case 'n':
			bad = parse_long(optarg, 1, 1000000, &o->iters);
			break;
		case 'w':
			bad = parse_long(optarg, 0, 1000000, &o->warmup);
			break;
		default:
			if (!rank)
				fprintf(stderr,
					"hpu-mpi-allreduce-ref: bad option "
					"'%s'\n",
					argv[optind - 1]);
			return 2;
		}
		if (bad && !rank)
			fprintf(stderr, "hpu-mpi-allreduce-ref: bad -%c '%s'\n",
				c, optarg);
	}
	if (!bad &&
	    (optind < argc || o->minbytes < 4 || o->minbytes > o->maxbytes)) {
		if (!rank)
			fprintf(stderr,
				"hpu-mpi-allreduce-ref: need 4 <= -b <= -e "
				"and no other arguments\n");
		bad = 1;
	}
	return bad ? 2 : 0;
}

/* slowest rank's seconds for @iters calls on @count floats */
static int time_size(float *send, float *recv, size_t count, long iters,
		     double *sec)
{
	double t0, dt;
	long i;
	int ret;

	ret = MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; !ret && i < iters; i++)
		ret = MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM,
				    MPI_COMM_WORLD);
	dt = MPI_Wtime() - t0;
	if (!ret)
		ret = MPI_Allreduce(&dt, sec, 1, MPI_DOUBLE, MPI_MAX,
				    MPI_COMM_WORLD);
	return ret;
}

int main(int argc, char **argv)
{
	double sec, algbw, busbw, sum_busbw = 0;
	int rank, nranks, rows = 0, ret;
	struct ref_opts o;
	float *send, *recv;
	uint64_t bytes;
	size_t count, i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (parse_args(argc, argv, &o, rank)) {
		MPI_Finalize();
		return 2;
	}
	send = malloc(o.maxbytes);
	recv = malloc(o.maxbytes);
	if (!send || !recv) {
		fprintf(stderr, "hpu-mpi-allreduce-ref: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (i = 0; i < o.maxbytes / sizeof(float); i++)
		send[i] = (float)(i % 64);
	memset(recv, 0, o.maxbytes);

	ret = MPI_Barrier(MPI_COMM_WORLD);
	for (i = 0; !ret && i < (size_t)o.warmup; i++)
		ret = MPI_Allreduce(send, recv,
				    (int)(o.maxbytes / sizeof(float)),
				    MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
	if (!rank) {
		printf("#\n# MPI_Allreduce: %d ranks, float, sum, %llu..%llu "
		       "bytes x%llu, %ld iterations, %ld warm-up\n#\n",
		       nranks, (unsigned long long)o.minbytes,
		       (unsigned long long)o.maxbytes,
		       (unsigned long long)o.factor, o.iters, o.warmup);
		printf("# %12s %13s %9s %6s %5s  %10s %8s %8s\n", "size",
		       "count", "type", "redop", "root", "time", "algbw",
		       "busbw");
		printf("# %12s %13s %9s %6s %5s  %10s %8s %8s\n", "(B)",
		       "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)");
	}
	for (bytes = o.minbytes; !ret && bytes <= o.maxbytes;
	     bytes *= o.factor) {
		count = bytes / sizeof(float);
		ret = time_size(send, recv, count, o.iters, &sec);
		if (ret || rank)
			continue;
		sec /= o.iters;
		algbw = sec > 0 ? count * sizeof(float) / sec / 1e9 : 0;
		busbw = nranks > 1 ? algbw * 2.0 * (nranks - 1) / nranks : 0;
		sum_busbw += busbw;
		rows++;
		printf("  %12zu %13zu %9s %6s %5d  %10.1f %8.3f %8.3f\n",
		       count * sizeof(float), count, "float", "sum", -1,
		       sec * 1e6, algbw, busbw);
	}
	if (!rank && !ret)
		printf("# Avg bus bandwidth : %.3f\n#\n",
		       rows ? sum_busbw / rows : 0.0);
	if (ret)
		fprintf(stderr,
			"hpu-mpi-allreduce-ref: rank %d: MPI error %d\n", rank,
			ret);
	free(send);
	free(recv);
	MPI_Finalize();
	return ret ? 1 : 0;
}

// SPDX-License-Identifier: MIT
/*
 * allreduce.c - two ranks sum a buffer with libhpuccl: the program forks
 * one process per rank (rank r on device hpu<r>), makes a communicator id
 * in the parent (which hosts the rendezvous store) and hands it to the
 * ranks through pipes, as a launcher would. Each rank fills a device
 * buffer, runs an in-place allreduce (sum) on a stream and checks the
 * result on the host.
 *
 *   allreduce [COUNT]           (default: 65536 floats; 2 devices needed)
 *
 * Exit status 0 when both ranks got the sum.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hpu/hpuccl.h>
#include <hpu/hpudrv.h>

#define NRANKS 2

static float value(int rank, size_t i)
{
	return (float)((rank + 1) * (int)(i % 7 + 1));
}

/* allreduce on an open device; 0, 1 when the sum is wrong, -errno */
static int reduce(struct hpuccl_comm *comm, struct hpu_device *dev, int rank,
		  size_t count, float *host)
{
	size_t bytes = count * sizeof(float), i, wrong = 0;
	struct hpu_stream *s;
	uint64_t h, va = 0;
	int ret;

	for (i = 0; i < count; i++)
		host[i] = value(rank, i);
	ret = hpu_mem_alloc(dev, bytes, 0, 0, &h);
	if (ret)
		return ret;
	ret = hpu_mem_map(dev, h, 0, 0, &va);
	if (ret)
		goto free_mem;
	ret = hpu_stream_create(dev, HPU_STREAM_QUEUE_AUTO, &s);
	if (ret)
		goto unmap;
	ret = hpu_stream_memcpy_h2d(s, va, host, bytes);
	if (!ret) /* in place: recvbuf == sendbuf */
		ret = hpuccl_allreduce(va, va, count, HPUCCL_FLOAT32,
				       HPUCCL_SUM, comm, s);
	if (!ret)
		ret = hpu_stream_memcpy_d2h(s, host, va, bytes);
	if (!ret)
		ret = hpu_stream_synchronize(s);
	hpu_stream_destroy(s);
	for (i = 0; !ret && i < count; i++)
		if (host[i] != value(0, i) + value(1, i))
			wrong++;
	if (!ret)
		printf("rank %d: allreduce of %zu floats, %zu wrong\n", rank,
		       count, wrong);
	if (!ret && wrong)
		ret = 1;
unmap:
	hpu_mem_unmap(dev, va);
free_mem:
	hpu_mem_free(dev, h);
	return ret;
}

/* one rank: its device, the id from @fd, a communicator, the allreduce */
static int rank_main(int rank, int fd, size_t count)
{
	struct hpuccl_unique_id id;
	struct hpuccl_config cfg = { .sz = sizeof(cfg) };
	struct hpuccl_comm *comm;
	struct hpu_device *dev;
	float *host;
	int ret;

	if (read(fd, &id, sizeof(id)) != (ssize_t)sizeof(id)) {
		fprintf(stderr, "rank %d: no communicator id\n", rank);
		return 1;
	}
	close(fd);
	ret = hpu_open(rank, &dev);
	if (ret) {
		fprintf(stderr, "rank %d: hpu%d: %s\n", rank, rank,
			hpu_strerror(ret));
		return 1;
	}
	cfg.dev = dev;
	ret = hpuccl_comm_init_rank_config(&comm, NRANKS, &id, rank, &cfg);
	if (ret) {
		fprintf(stderr, "rank %d: join: %s\n", rank,
			hpuccl_strerror(ret));
		hpu_close(dev);
		return 1;
	}
	host = malloc(count * sizeof(float));
	ret = host ? reduce(comm, dev, rank, count, host) : -ENOMEM;
	if (ret < 0)
		fprintf(stderr, "rank %d: %s\n", rank, hpuccl_strerror(ret));
	free(host);
	if (hpuccl_comm_destroy(comm) && !ret)
		ret = 1;
	hpu_close(dev);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	size_t count = argc > 1 ? strtoul(argv[1], NULL, 0) : 65536;
	struct hpuccl_unique_id id;
	int fds[NRANKS], p[2], r, st, ret, failed = 0;
	pid_t pid[NRANKS];

	printf("libhpuccl %s on libhpudrv %s\n", hpuccl_version(),
	       hpu_library_version());
	fflush(stdout);
	/* fork before any thread exists: the store's thread comes after */
	for (r = 0; r < NRANKS; r++) {
		if (pipe(p))
			return 1;
		pid[r] = fork();
		if (pid[r] < 0)
			return 1;
		if (!pid[r]) {
			int rank = r;

			close(p[1]);
			while (r--) /* the pipes of the ranks before */
				close(fds[r]);
			exit(rank_main(rank, p[0], count));
		}
		close(p[0]);
		fds[r] = p[1];
	}
	ret = hpuccl_get_unique_id(&id);
	if (ret)
		fprintf(stderr, "communicator id: %s\n", hpuccl_strerror(ret));
	for (r = 0; r < NRANKS; r++) {
		/* a rank that gets no id says so and fails */
		if (!ret && write(fds[r], &id, sizeof(id)) != sizeof(id))
			fprintf(stderr, "rank %d: id not sent\n", r);
		close(fds[r]);
	}
	for (r = 0; r < NRANKS; r++) {
		if (waitpid(pid[r], &st, 0) != pid[r] || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			fprintf(stderr, "rank %d failed\n", r);
			failed = 1;
		}
	}
	if (!failed)
		printf("allreduce: %d ranks agree\n", NRANKS);
	return failed || ret ? 1 : 0;
}

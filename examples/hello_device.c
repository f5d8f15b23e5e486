// SPDX-License-Identifier: MIT
/*
 * hello_device.c - the first program against libhpudrv: open a device,
 * ask it what it is (INFO), and move a buffer to device memory and back
 * through a stream (DMA), checking every byte.
 *
 *   hello_device [INDEX]        (default: hpu0; HPU_DEV_DIR names the
 *                                device directory, docs/device-directory.md)
 *
 * Exit status 0 when the round trip returned what was sent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpu/hpudrv.h>

#define BYTES (1u << 20)

/* 0 when the bytes came back equal, 1 when not, else -errno */
static int round_trip(struct hpu_device *dev, unsigned char *out,
		      unsigned char *back)
{
	struct hpu_stream *s = NULL;
	uint64_t handle = 0, va = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < BYTES; i++)
		out[i] = (unsigned char)(i * 7 + 1);
	memset(back, 0, BYTES);
	ret = hpu_mem_alloc(dev, BYTES, 0, 0, &handle);
	if (ret)
		return ret;
	ret = hpu_mem_map(dev, handle, 0, 0, &va);
	if (ret)
		goto free_mem;
	ret = hpu_stream_create(dev, HPU_STREAM_QUEUE_AUTO, &s);
	if (ret)
		goto unmap;
	/* in order on the stream: the copy back starts after the copy in */
	ret = hpu_stream_memcpy_h2d(s, va, out, BYTES);
	if (!ret)
		ret = hpu_stream_memcpy_d2h(s, back, va, BYTES);
	if (!ret)
		ret = hpu_stream_synchronize(s);
	hpu_stream_destroy(s);
	if (!ret)
		ret = memcmp(out, back, BYTES) ? 1 : 0;
unmap:
	hpu_mem_unmap(dev, va);
free_mem:
	hpu_mem_free(dev, handle);
	return ret;
}

int main(int argc, char **argv)
{
	int index = argc > 1 ? atoi(argv[1]) : 0;
	struct hpu_info_hw_ip_info ip;
	struct hpu_info_dram_usage dram;
	unsigned char *out, *back;
	struct hpu_device *dev;
	int ret;

	printf("libhpudrv %s\n", hpu_library_version());
	ret = hpu_open(index, &dev);
	if (ret) {
		fprintf(stderr, "hpu%d: %s\n", index, hpu_strerror(ret));
		return 1;
	}
	ret = hpu_info_hw_ip(dev, &ip);
	if (!ret)
		ret = hpu_info_dram_usage(dev, &dram);
	if (ret) {
		fprintf(stderr, "hpu%d: INFO: %s\n", index, hpu_strerror(ret));
		hpu_close(dev);
		return 1;
	}
	printf("hpu%d: %.32s, %u DMA, %u MME, %u TPC, %u NIC ports\n", index,
	       (const char *)ip.card_name, ip.num_dma, ip.num_mme, ip.num_tpc,
	       ip.num_nic_ports);
	printf("hpu%d: %llu of %llu MiB of device memory used\n", index,
	       (unsigned long long)(dram.dram_used_mem >> 20),
	       (unsigned long long)(dram.dram_total_mem >> 20));
	out = malloc(BYTES);
	back = malloc(BYTES);
	ret = out && back ? round_trip(dev, out, back) : -ENOMEM;
	if (ret < 0)
		fprintf(stderr, "round trip: %s\n", hpu_strerror(ret));
	else if (ret)
		fprintf(stderr, "round trip: the bytes differ\n");
	else
		printf("round trip: %u bytes to device memory and back, "
		       "equal\n",
		       BYTES);
	free(out);
	free(back);
	hpu_close(dev);
	return ret ? 1 : 0;
}

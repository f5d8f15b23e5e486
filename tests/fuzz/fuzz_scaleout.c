// SPDX-License-Identifier: MIT
/*
 * fuzz_scaleout.c - libFuzzer target of the scale-out receiver
 * (firmware-sim/nic_so_recv.c, docs/nic.md "Scale-out wire format").
 *
 * Each input is the byte stream a remote server sends on one connection:
 * it is written into one end of a socket pair, that end is shut for
 * writing, and hpusim_so_serve() - what every accepted connection's thread
 * runs - reads the other end to the end or to the first bad message. The
 * server has device 0 (gaudi2) with a context that registered two
 * regions (keys made predictable with hpusim_nic_seed_keys(), so the
 * seeds can name them) and accepted the connection token FUZZ_TOKEN, so
 * well-formed writes land in memory and signal sync objects; AddressSanitizer and UndefinedBehaviorSanitizer watch the
 * header checks, the payload staging and the copies.
 */
#include <endian.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nic.h"

#include "../lib/hpu_test_wire.h"
#include "fuzz_seed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* What the stream may hold: the acknowledgements must fit the socket */
#define MAX_STREAM (16 * 1024)
#define REGION	   (64 * 1024)
#define FUZZ_TOKEN 0x5eed70c3aa55f00dULL

static struct hpu_fw_fabric *fab;
static struct hpu_fw_device *dev;
static struct hpu_fw_as *as;
static uint64_t key[2];

static void on_done(void *arg, void *cookie, enum hpu_fw_cs_result result,
		    const struct hpu_fw_fault *fault, uint64_t done_ns)
{
}

static void on_nic(void *arg, void *cookie, const struct hpu_fw_nic_event *ev)
{
}

static const struct hpu_fw_ops *ops;

/* Device 0 of a server without a TCP endpoint, two regions registered */
static void server_setup(void)
{
	struct hpu_fw_fabric_config fc = { .num_devices = 1 };
	struct hpu_fw_config cfg = {
		.profile = hpu_fw_find_profile(&hpusim_model, "gaudi2"),
		.index = 0,
		.cb = { .cs_done = on_done, .nic_event = on_nic },
	};
	uint32_t handle[2], id;
	uint64_t va;
	void *mem;

	ops = hpusim_model.ops;
	mem = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || ops->fabric_create(&fc, &fab))
		abort();
	cfg.fabric = fab;
	if (ops->create(&cfg, &dev))
		abort();
	hpusim_nic_seed_keys(dev, 0x66757a7aULL);
	if (ops->as_create(dev, &as) ||
	    ops->map_shared(as, mem, REGION, 0, false, &va) ||
	    ops->nic_reg_mr(as, va, REGION, HPU_NIC_MR_REMOTE_WRITE, &handle[0],
			    &key[0]) ||
	    ops->nic_reg_mr(as, va + 4096, 4096, HPU_NIC_MR_REMOTE_WRITE,
			    &handle[1], &key[1]) ||
	    ops->nic_accept(as, FUZZ_TOKEN, &id))
		abort();
}

static size_t put_msg(uint8_t *p, uint16_t type, uint64_t seq, uint64_t rkey,
		      uint64_t offset, uint64_t size, uint32_t sob_id,
		      uint32_t sob_value)
{
	struct hpu_test_wire w = {
		.magic = htole32(HPU_TEST_WIRE_MAGIC),
		.version = htole16(HPU_TEST_WIRE_VERSION),
		.type = htole16(type),
		.seq = htole64(seq),
		.server_id = htole64(type == 1 ? 0x1234 : 0),
		.rkey = htole64(rkey),
		.token = htole64(type == 3 ? FUZZ_TOKEN : 0),
		.offset = htole64(offset),
		.size = htole64(size),
		.sob_id = htole32(sob_id),
		.sob_value = htole32(sob_value),
		.flags = htole32(sob_value ? HPU_NIC_F_SIGNAL : 0),
	};

	memcpy(p, &w, sizeof(w));
	if (type == 3)
		memset(p + sizeof(w), 0x5a, (size_t)size);
	return sizeof(w) + (type == 3 ? (size_t)size : 0);
}

/* A hello, a probe, writes with and without a signal, a write past a region */
static void seeds(const char *dir)
{
	static uint8_t s[4096];
	size_t n;

	n = put_msg(s, 1, 0, 0, 0, 0, 0, 0);
	n += put_msg(s + n, 4, 1, 0, 0, 0, 0, 0);
	fuzz_seed_add(dir, "probe", s, n);
	n = put_msg(s, 1, 0, 0, 0, 0, 0, 0);
	n += put_msg(s + n, 3, 1, key[0], 8, 100, 0, 0);
	n += put_msg(s + n, 3, 2, key[1], 0, 64, 7, 3);
	n += put_msg(s + n, 3, 3, key[0], 0, 0, 7, 1);
	fuzz_seed_add(dir, "writes", s, n);
	n = put_msg(s, 1, 0, 0, 0, 0, 0, 0);
	n += put_msg(s + n, 3, 1, key[1], 4000, 200, 0, 0);
	n += put_msg(s + n, 3, 2, key[0] ^ 9, 0, 16, 1, 1);
	fuzz_seed_add(dir, "access-errors", s, n);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	server_setup();
	seeds(fuzz_corpus_dir(*argc, *argv));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t done = 0;
	int sv[2];

	if (size > MAX_STREAM)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		abort();
	while (done < size) {
		ssize_t n = write(sv[0], data + done, size - done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	shutdown(sv[0], SHUT_WR);
	if (hpusim_so_serve(fab, sv[1], "fuzz"))
		abort();
	close(sv[0]);
	close(sv[1]);
	return 0;
}

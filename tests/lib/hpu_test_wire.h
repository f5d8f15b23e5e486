/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_wire.h - the scale-out wire header, written from its
 * specification (docs/nic.md, "Scale-out wire format") for tests and
 * fuzz targets that talk to the receiver with raw bytes. Deliberately
 * not firmware-sim's own struct, so a change of the simulator's layout
 * shows up as a failing test instead of following along unnoticed.
 */
#ifndef HPU_TEST_WIRE_H
#define HPU_TEST_WIRE_H

#include <stdint.h>

/* The bytes "H P U N" read as a little-endian u32 */
#define HPU_TEST_WIRE_MAGIC   0x4e555048
/* Version 2: 64-bit keys and connection tokens */
#define HPU_TEST_WIRE_VERSION 2

/* Every field little-endian (so is every host these tests run on) */
struct hpu_test_wire {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint64_t seq;
	uint64_t server_id;
	uint32_t device;
	uint32_t flags;
	uint64_t rkey;
	uint64_t token;
	uint64_t offset;
	uint64_t size;
	uint32_t sob_id;
	uint32_t sob_value;
	uint32_t status;
	uint32_t pad;
};

_Static_assert(sizeof(struct hpu_test_wire) == 80,
	       "the wire header is 80 bytes");

#endif /* HPU_TEST_WIRE_H */

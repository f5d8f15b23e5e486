// SPDX-License-Identifier: MIT
/*
 * identity.c - the stable identities of a simulated device: serial
 * number, UUID and NIC MAC addresses, all derived here and nowhere else
 * (docs/device-directory.md, "Identities").
 *
 * Same daemon arguments on the same machine give the same values across
 * restarts; the machine (its /etc/machine-id), the mount directory and
 * the device index are what make them differ between devices and servers.
 */
#include <stdio.h>
#include <string.h>

#include "hpu_fused.h"

#define FNV64_BASIS 0xcbf29ce484222325ULL
#define FNV64_PRIME 0x100000001b3ULL

static uint64_t fnv64(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len--) {
		h ^= *p++;
		h *= FNV64_PRIME;
	}
	return h;
}

/* Final mix (splitmix64): every input bit reaches every output bit */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/**
 * hfd_identity_server() - the server's identity hash and number
 * @where: mount directory of the daemon
 * @hash: receives a 64-bit hash of the machine id and @where
 *
 * The number (1..9999) is the FNV-1a of @where alone, as serial numbers
 * always had it.
 *
 * Return: the server number.
 */
unsigned int hfd_identity_server(const char *where, uint64_t *hash)
{
	char machine[64] = "";
	uint32_t h = 2166136261u;
	const char *p;
	FILE *f;

	f = fopen("/etc/machine-id", "re");
	if (f) {
		if (!fgets(machine, sizeof(machine), f))
			machine[0] = '\0';
		fclose(f);
	}
	machine[strcspn(machine, "\n")] = '\0';
	*hash = fnv64(FNV64_BASIS, machine, strlen(machine) + 1);
	*hash = fnv64(*hash, where ? where : "", where ? strlen(where) : 0);
	for (p = where; p && *p; p++) {
		h ^= (uint8_t)*p;
		h *= 16777619u;
	}
	return h % 9999 + 1;
}

/**
 * hfd_identity_device() - fill in the identities of a device
 * @dev: device (index and profile set)
 * @server_id: hfd_identity_server()'s number
 * @server_hash: hfd_identity_server()'s hash
 *
 * Serial "HPUS<type>-<server>-<index>"; UUID "HPU-XXXXXXXX-XXXX-XXXX-
 * XXXXXXXX" (31 characters, 96 bits of the device's hash); MAC of NIC
 * port p: 02 (locally administered, unicast), four bytes of the
 * device's hash, then p.
 */
void hfd_identity_device(struct hfd_device *dev, unsigned int server_id,
			 uint64_t server_hash)
{
	uint64_t a, b;

	snprintf(dev->serial, sizeof(dev->serial), "HPUS%u-%04u-%02u",
		 dev->profile->device_type, server_id, dev->index);
	a = mix64(fnv64(server_hash, &dev->index, sizeof(dev->index)));
	b = mix64(a ^ 0x5bd1e9955bd1e995ULL);
	snprintf(dev->uuid, sizeof(dev->uuid), "HPU-%08X-%04X-%04X-%08X",
		 (unsigned int)(a >> 32), (unsigned int)(a >> 16) & 0xffff,
		 (unsigned int)a & 0xffff, (unsigned int)(b >> 32));
	dev->mac_prefix[0] = 0x02;
	dev->mac_prefix[1] = (uint8_t)(b >> 24);
	dev->mac_prefix[2] = (uint8_t)(b >> 16);
	dev->mac_prefix[3] = (uint8_t)(b >> 8);
	dev->mac_prefix[4] = (uint8_t)b;
}

// SPDX-License-Identifier: MIT
/*
 * affinity.c - CPUs and NUMA nodes close to a device. A simulated device
 * sits on no PCI slot of this machine, so every online CPU and memory
 * node is as close as any other: the sets are the whole machine.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hlml_internal.h"

#define BITS_PER_WORD (8 * sizeof(unsigned long))

/* Sets bits @lo..@hi of @set (@words words); false when one does not fit */
static bool set_range(unsigned long *set, unsigned int words, unsigned int lo,
		      unsigned int hi)
{
	unsigned int b;

	for (b = lo; b <= hi; b++) {
		if (b / BITS_PER_WORD >= words)
			return false;
		set[b / BITS_PER_WORD] |= 1UL << (b % BITS_PER_WORD);
	}
	return true;
}

/* A kernel cpu/node list ("0-3,8") from @path into @set */
static hlml_return_t read_list(const char *path, unsigned long *set,
			       unsigned int words)
{
	unsigned int lo, hi;
	char buf[4096], *p;
	FILE *f;
	int n;

	memset(set, 0, words * sizeof(*set));
	f = fopen(path, "re");
	if (!f)
		return set_range(set, words, 0, 0) ?
			       HLML_SUCCESS :
			       HLML_ERROR_INSUFFICIENT_SIZE;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	while (p && *p && *p != '\n') {
		n = 0;
		if (sscanf(p, "%u-%u%n", &lo, &hi, &n) != 2) {
			n = 0;
			if (sscanf(p, "%u%n", &lo, &n) != 1)
				return HLML_ERROR_UNKNOWN;
			hi = lo;
		}
		if (!set_range(set, words, lo, hi))
			return HLML_ERROR_INSUFFICIENT_SIZE;
		p += n;
		if (*p == ',')
			p++;
	}
	return HLML_SUCCESS;
}

static hlml_return_t affinity(hlml_device_t device, unsigned int words,
			      unsigned long *set, hlml_affinity_scope_t scope,
			      const char *path)
{
	struct hlml_dev *d;
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	if (!set || !words || scope > HLML_AFFINITY_SCOPE_SOCKET)
		r = HLML_ERROR_INVALID_ARGUMENT;
	else
		r = read_list(path, set, words);
	hlml_dev_put(d);
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_cpu_affinity_within_scope(
	hlml_device_t device, unsigned int cpu_set_size, unsigned long *cpu_set,
	hlml_affinity_scope_t scope)
{
	return affinity(device, cpu_set_size, cpu_set, scope,
			"/sys/devices/system/cpu/online");
}

HLML_EXPORT hlml_return_t hlml_device_get_cpu_affinity(
	hlml_device_t device, unsigned int cpu_set_size, unsigned long *cpu_set)
{
	return affinity(device, cpu_set_size, cpu_set, HLML_AFFINITY_SCOPE_NODE,
			"/sys/devices/system/cpu/online");
}

HLML_EXPORT hlml_return_t hlml_device_get_memory_affinity(
	hlml_device_t device, unsigned int node_set_size,
	unsigned long *node_set, hlml_affinity_scope_t scope)
{
	return affinity(device, node_set_size, node_set, scope,
			"/sys/devices/system/node/online");
}

/* Binds the calling thread to every online CPU (the device's set) */
static hlml_return_t bind_all(hlml_device_t device)
{
	unsigned long set[CPU_SETSIZE / BITS_PER_WORD];
	cpu_set_t cpus;
	hlml_return_t r;
	unsigned int b;

	r = affinity(device, CPU_SETSIZE / BITS_PER_WORD, set,
		     HLML_AFFINITY_SCOPE_NODE,
		     "/sys/devices/system/cpu/online");
	if (r)
		return r;
	CPU_ZERO(&cpus);
	for (b = 0; b < CPU_SETSIZE; b++)
		if (set[b / BITS_PER_WORD] >> (b % BITS_PER_WORD) & 1)
			CPU_SET(b, &cpus);
	return sched_setaffinity(0, sizeof(cpus), &cpus) ? HLML_ERROR_UNKNOWN :
							   HLML_SUCCESS;
}

HLML_EXPORT hlml_return_t hlml_device_set_cpu_affinity(hlml_device_t device)
{
	return bind_all(device);
}

HLML_EXPORT hlml_return_t hlml_device_clear_cpu_affinity(hlml_device_t device)
{
	return bind_all(device);
}

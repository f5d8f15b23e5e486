// SPDX-License-Identifier: MIT
/*
 * affinity.c - CPUs and NUMA nodes close to a device. A simulated device
 * sits on no PCI slot of this machine, so every online CPU and memory
 * node is as close as any other: the sets are the whole machine. A kernel
 * device has its PCI device's local_cpulist and numa_node.
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

/* A kernel cpu/node list ("0-3,8") into @set */
static hlml_return_t parse_list(const char *p, unsigned long *set,
				unsigned int words)
{
	unsigned int lo, hi;
	int n;

	memset(set, 0, words * sizeof(*set));
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

/* The list in file @path (a missing file: CPU or node 0 only) */
static hlml_return_t read_list(const char *path, unsigned long *set,
			       unsigned int words)
{
	char buf[4096];
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return parse_list("0", set, words);
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return parse_list(buf, set, words);
}

/*
 * @path: the machine's list (a simulated device); a kernel device answers
 * its PCI device's local_cpulist (@cpus) or numa_node, the machine's list
 * when it has none
 */
static hlml_return_t affinity(hlml_device_t device, unsigned int words,
			      unsigned long *set, hlml_affinity_scope_t scope,
			      const char *path, bool cpus)
{
	unsigned long long node;
	struct hlml_dev *d;
	char buf[4096];
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	if (!set || !words || scope > HLML_AFFINITY_SCOPE_SOCKET)
		r = HLML_ERROR_INVALID_ARGUMENT;
	else if (d->info.kind != HPU_DEVICE_KIND_KERNEL)
		r = read_list(path, set, words);
	else if (cpus && !hlml_kernel_str(d, "local_cpulist", buf, sizeof(buf)))
		r = parse_list(buf, set, words);
	else if (!cpus && !hlml_kernel_str(d, "numa_node", buf, sizeof(buf)) &&
		 buf[0] != '-' && sscanf(buf, "%llu", &node) == 1 &&
		 node < 4096)
		r = parse_list(buf, set, words);
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
			"/sys/devices/system/cpu/online", true);
}

HLML_EXPORT hlml_return_t hlml_device_get_cpu_affinity(
	hlml_device_t device, unsigned int cpu_set_size, unsigned long *cpu_set)
{
	return affinity(device, cpu_set_size, cpu_set, HLML_AFFINITY_SCOPE_NODE,
			"/sys/devices/system/cpu/online", true);
}

HLML_EXPORT hlml_return_t hlml_device_get_memory_affinity(
	hlml_device_t device, unsigned int node_set_size,
	unsigned long *node_set, hlml_affinity_scope_t scope)
{
	return affinity(device, node_set_size, node_set, scope,
			"/sys/devices/system/node/online", false);
}

/*
 * Binds the calling thread to the device's CPUs (@local), or to every
 * online CPU of the machine
 */
static hlml_return_t bind_cpus(hlml_device_t device, bool local)
{
	unsigned long set[CPU_SETSIZE / BITS_PER_WORD];
	const unsigned int words = CPU_SETSIZE / BITS_PER_WORD;
	struct hlml_dev *d;
	cpu_set_t cpus;
	hlml_return_t r;
	unsigned int b;

	if (local) {
		r = affinity(device, words, set, HLML_AFFINITY_SCOPE_NODE,
			     "/sys/devices/system/cpu/online", true);
	} else {
		r = hlml_dev_get(device, &d);
		if (r)
			return r;
		hlml_dev_put(d);
		r = read_list("/sys/devices/system/cpu/online", set, words);
	}
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
	return bind_cpus(device, true);
}

HLML_EXPORT hlml_return_t hlml_device_clear_cpu_affinity(hlml_device_t device)
{
	return bind_cpus(device, false);
}

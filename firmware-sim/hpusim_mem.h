/* SPDX-License-Identifier: MIT */
/*
 * hpusim_mem.h - device memory and address translation, as the rest of
 * the model sees them (part of the private interface hpusim.h, which
 * includes it): the pools and allocations of a device (memory.c), the
 * mappings of an address space and their translation (mmu.c), bounded
 * access to pageable host memory (hostmem.c). The address space itself
 * (struct hpu_fw_as) is in hpusim.h.
 */
#ifndef HPUSIM_MEM_H
#define HPUSIM_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpu_fw_if.h"
#include "hpusim_list.h"

/**
 * struct hpusim_extent - a physically contiguous piece of a pool
 * @off: byte offset in the pool
 * @len: bytes
 */
struct hpusim_extent {
	uint64_t off;
	uint64_t len;
};

/**
 * struct hpusim_pool - one physical memory of a device (HBM or SRAM)
 * @base: host mapping of the whole pool (MAP_NORESERVE: sparse)
 * @size: bytes
 * @used: bytes allocated
 * @free: free extents, sorted by offset, coalesced
 * @nfree: entries in @free
 * @cap: room in @free
 * @pieces: allocated extents
 * @huge_pages: @base is MADV_HUGEPAGE (transparent 2 MiB pages)
 */
struct hpusim_pool {
	uint8_t *base;
	uint64_t size;
	uint64_t used;
	struct hpusim_extent *free;
	uint32_t nfree;
	uint32_t cap;
	uint64_t pieces;
	bool huge_pages;
};

/**
 * struct hpu_fw_mem - one allocation of device memory
 * @dev: device
 * @pool: pool it came from
 * @node: in @dev->mems
 * @size: bytes (a multiple of @page_size)
 * @page_size: allocation page size
 * @sram: allocated from SRAM
 * @contiguous: one extent
 * @nr_ext: extents in @ext, in allocation order
 * @ext: physical pieces; their lengths add up to @size
 * @map_count: mappings of it in any address space (dev->mem_lock)
 * @export_id: 0, or its export id once exported (dev->mem_lock)
 * @pins: host accesses given up while still copying into or out of it
 *	(hostmem.c; dev->mem_lock): its memory is not reused until they end
 * @freed: mem_free came while pinned: the last unpin releases it
 */
struct hpu_fw_mem {
	struct hpu_fw_device *dev;
	struct hpusim_pool *pool;
	struct hpusim_list node;
	uint64_t size;
	uint64_t page_size;
	bool sram;
	bool contiguous;
	uint32_t nr_ext;
	struct hpusim_extent *ext;
	uint32_t map_count;
	uint64_t export_id;
	uint32_t pins;
	bool freed;
};

/**
 * struct hpusim_mapping - one mapping of an address space
 * @va: first device VA of the mapped bytes
 * @size: bytes mapped
 * @span_start: first VA reserved for it (page-aligned)
 * @span_end: end of the reserved VAs, guard gap included
 * @mem: device allocation, or NULL for a host mapping
 * @pid: host mapping: owning process
 * @pidfd: host mapping: pidfd of @pid (the driver's until unmap)
 * @host_addr: host mapping: user address of @va
 * @shm: shared host memory (map_shared): pointer of @va in this process,
 *	reached like device memory; NULL otherwise
 */
struct hpusim_mapping {
	uint64_t va;
	uint64_t size;
	uint64_t span_start;
	uint64_t span_end;
	struct hpu_fw_mem *mem;
	int32_t pid;
	int pidfd;
	uint64_t host_addr;
	uint8_t *shm;
};

/**
 * struct hpusim_seg - a piece of a translated device VA range
 * @map: mapping it lies in
 * @ptr: device or shared host memory: pointer of the piece
 * @host_addr: host mapping: user address of the piece in @map->pid
 * @len: bytes of the piece
 */
struct hpusim_seg {
	const struct hpusim_mapping *map;
	uint8_t *ptr;
	uint64_t host_addr;
	uint64_t len;
};

/* memory.c: pools, allocations, exports */
int hpusim_mem_init(struct hpu_fw_device *dev);
void hpusim_mem_fini(struct hpu_fw_device *dev);
int hpusim_mem_alloc(struct hpu_fw_device *dev, uint64_t size,
		     uint64_t page_size, bool contiguous, bool sram,
		     struct hpu_fw_mem **out);
int hpusim_mem_free(struct hpu_fw_mem *mem);
uint64_t hpusim_mem_size(const struct hpu_fw_mem *mem);
void hpusim_mem_usage(struct hpu_fw_device *dev, uint64_t *used,
		      uint64_t *total);
int hpusim_mem_export(struct hpu_fw_mem *mem, char *path, size_t len);
int hpusim_export_dir(struct hpu_fw_device *fw, char *buf, size_t len);

/**
 * hpusim_mem_pin() - keep an allocation's memory from reuse
 * @mem: allocation, alive (mapped, or pinned already)
 *
 * For a host access given up while it may still copy into or out of the
 * memory (hostmem.c). mem_free of a pinned allocation succeeds but leaves
 * its memory allocated until the last hpusim_mem_unpin().
 */
void hpusim_mem_pin(struct hpu_fw_mem *mem);

/**
 * hpusim_mem_unpin() - drop a pin; release the allocation if it was freed
 * @mem: pinned allocation
 */
void hpusim_mem_unpin(struct hpu_fw_mem *mem);

/**
 * hpusim_mem_ptr() - host pointer and contiguous length at an offset
 * @mem: allocation
 * @off: byte offset in the allocation (< size)
 * @fwd: out: bytes from @off to the end of its extent
 * @back: out: bytes from the start of its extent up to @off (excluded)
 *
 * Return: host pointer of byte @off.
 */
uint8_t *hpusim_mem_ptr(const struct hpu_fw_mem *mem, uint64_t off,
			uint64_t *fwd, uint64_t *back);

/* mmu.c: address spaces, mappings, translation, host access */
int hpusim_as_create(struct hpu_fw_device *dev, struct hpu_fw_as **out);
void hpusim_as_destroy(struct hpu_fw_as *as);
int hpusim_map_mem(struct hpu_fw_as *as, struct hpu_fw_mem *mem,
		   uint64_t va_hint, bool fixed, uint64_t *va);
int hpusim_map_host(struct hpu_fw_as *as, const struct hpu_fw_host_range *r,
		    uint64_t va_hint, bool fixed, uint64_t *va);
int hpusim_map_shared(struct hpu_fw_as *as, void *ptr, uint64_t size,
		      uint64_t va_hint, bool fixed, uint64_t *va);
int hpusim_unmap(struct hpu_fw_as *as, uint64_t va, int *pidfd);

/**
 * hpusim_mmu_seg() - translate the start (or end) of a VA range
 * @as: address space, map_lock held for reading
 * @va: first VA of the range
 * @len: bytes of the range (> 0)
 * @back: translate the piece that ends at @va + @len instead
 * @seg: out: the piece (at most @len bytes, contiguous in one mapping and
 *	one physical extent)
 *
 * Return: 0, or -EFAULT when the first (or last) byte is unmapped.
 */
int hpusim_mmu_seg(struct hpu_fw_as *as, uint64_t va, uint64_t len, bool back,
		   struct hpusim_seg *seg);

/**
 * hpusim_mmu_check() - whether a whole VA range is mapped
 * @as: address space, map_lock held for reading
 * @va: first VA
 * @len: bytes
 * @fault_va: out: the first unmapped VA
 *
 * Return: 0, or -EFAULT.
 */
int hpusim_mmu_check(struct hpu_fw_as *as, uint64_t va, uint64_t len,
		     uint64_t *fault_va);

/**
 * hpusim_mmu_write32() - store a 32-bit value at a device VA
 * @as: address space (map_lock not held)
 * @va: device VA
 * @value: value, little-endian
 *
 * Return: 0, or -EFAULT when any of the 4 bytes is unmapped.
 */
int hpusim_mmu_write32(struct hpu_fw_as *as, uint64_t va, uint32_t value);

/**
 * hpusim_mmu_rw() - copy between a buffer and a mapped VA range
 * @as: address space, map_lock held for reading
 * @va: first VA
 * @buf: bytes to store, or room for the bytes read
 * @len: bytes
 * @write: store @buf at @va (else read @va into @buf)
 * @dev_only: every byte must be device memory (HBM, SRAM): a host
 *	mapping in the range is a fault
 * @fault_va: out on failure: the VA that faulted
 *
 * A store checks the whole range is mapped before its first byte; a read
 * is not checked first (it translates each piece once).
 *
 * Return: 0, or -EFAULT (unmapped, host memory with @dev_only, or a host
 * access that failed; what was copied before it stays).
 */
int hpusim_mmu_rw(struct hpu_fw_as *as, uint64_t va, void *buf, uint64_t len,
		  bool write, bool dev_only, uint64_t *fault_va);

/**
 * hpusim_as_read_dev() - read device memory of an address space (the
 *	firmware interface's as_read_dev, since 1.7)
 * @as: address space (map_lock not held)
 * @va: first VA
 * @buf: receives @len bytes
 * @len: bytes, at most HPU_FW_AS_READ_MAX
 *
 * Return: 0; -EINVAL for a bad argument or @len above the bound; -EFAULT
 * when a byte of the range is not device memory mapped in @as.
 */
int hpusim_as_read_dev(struct hpu_fw_as *as, uint64_t va, void *buf,
		       uint64_t len);

/* hostmem.c: bounded access to pageable host memory (host mappings) */

#define HPUSIM_HOST_TIMEOUT_MS	   2000U   /* default bound of one access */
#define HPUSIM_HOST_TIMEOUT_MAX_MS 600000U /* largest bound accepted */
#define HPUSIM_HOST_THREADS	   32	   /* live access threads, at most */
#define HPUSIM_HOST_AS_CALLS	   4 /* calls of one address space at once */
#define HPUSIM_HOST_STUCK_AS	   2 /* abandoned accesses of an address space */
#define HPUSIM_HOST_STUCK_MAX	   32 /* abandoned accesses in all */

struct hpusim_hostmem_as;
struct iovec;

/**
 * hpusim_host_copyv() - move bytes between local memory and a host mapping
 * @as: address space of @map (its map_lock held for reading)
 * @map: host mapping
 * @host_addr: user address in @map->pid (the host side is contiguous)
 * @iov: local pieces, in order
 * @niov: entries in @iov (at most HPUSIM_DMA_IOV)
 * @to_host: write the process's memory (else read it)
 * @local: the allocation @iov lies in (copied zero-copy, and pinned if the
 *	access is given up), or NULL for any other memory (copied through
 *	the access's own buffer, so it may go away when this returns)
 * @stop: NULL, or a flag that makes the wait give up when set
 *
 * The access runs in an access thread and is waited for at most the
 * address space's bound (docs/firmware-sim.md, "Host memory"); the
 * owner's pidfd is checked right before and after it: an owner that
 * exited fails the access, and what a read brought is discarded.
 *
 * Return: bytes moved before the first failure (== the total on success;
 * 0 when the access timed out, was stopped or refused).
 */
uint64_t hpusim_host_copyv(struct hpu_fw_as *as,
			   const struct hpusim_mapping *map, uint64_t host_addr,
			   const struct iovec *iov, unsigned int niov,
			   bool to_host, struct hpu_fw_mem *local,
			   const bool *stop);

/**
 * hpusim_host_copy() - hpusim_host_copyv() of one contiguous local piece
 * @as: address space of @map (map_lock held for reading)
 * @map: host mapping
 * @host_addr: user address in @map->pid
 * @ptr: local memory
 * @len: bytes
 * @to_host: write the process's memory (else read it)
 * @local: the allocation @ptr lies in, or NULL
 * @stop: NULL, or a flag that makes the wait give up when set
 *
 * Return: bytes moved before the first failure.
 */
uint64_t hpusim_host_copy(struct hpu_fw_as *as,
			  const struct hpusim_mapping *map, uint64_t host_addr,
			  uint8_t *ptr, uint64_t len, bool to_host,
			  struct hpu_fw_mem *local, const bool *stop);

/**
 * hpusim_host_probe() - map_host's check of a client range, bounded
 * @as: address space the range is being mapped into
 * @r: the range (pid, pidfd, addr, size)
 *
 * Return: 0 when the whole range is mapped readable and its first byte
 * reads; -EFAULT otherwise (owner gone, a hole, the bound passed);
 * -ENOMEM.
 */
int hpusim_host_probe(struct hpu_fw_as *as, const struct hpu_fw_host_range *r);

/* An address space's share of the pool: made with it, dropped with it */
int hpusim_hostmem_as_init(struct hpu_fw_as *as);

/**
 * hpusim_hostmem_as_dying() - as_destroy began: its waits give up at once
 * @as: address space
 */
void hpusim_hostmem_as_dying(struct hpu_fw_as *as);
void hpusim_hostmem_as_fini(struct hpu_fw_as *as);

/**
 * hpusim_hostmem_dev_fini() - device destroy: settle pins on its memory
 * @dev: device without address spaces
 *
 * Waits (at most HPUSIM_HOST_TIMEOUT_MS) for abandoned accesses into its
 * allocations to end, then detaches those still in their calls.
 *
 * Return: true when some were detached: their calls may still touch the
 * pools, whose addresses must then stay reserved.
 */
bool hpusim_hostmem_dev_fini(struct hpu_fw_device *dev);

/**
 * struct hpusim_hostmem_stats - the access pool now (tests, debug)
 * @live: access threads not stuck
 * @idle: of those, waiting for work
 * @stuck: abandoned accesses still in their calls
 * @timeouts: accesses given up (bound, stop, destroy) since start
 * @refused: accesses refused at once (too many stuck) since start
 */
struct hpusim_hostmem_stats {
	unsigned int live;
	unsigned int idle;
	unsigned int stuck;
	uint64_t timeouts;
	uint64_t refused;
};

void hpusim_hostmem_stats(struct hpusim_hostmem_stats *st);

/* Abandoned accesses of @as still in their calls */
unsigned int hpusim_hostmem_as_stuck(struct hpu_fw_as *as);

#endif /* HPUSIM_MEM_H */

/* SPDX-License-Identifier: MIT */
/*
 * hpu_mem.h - per-context handle tables shared by memory.c and cb.c.
 */
#ifndef HPU_MEM_H
#define HPU_MEM_H

#include "hpu_fused.h"

/**
 * struct hpu_alloc - one device memory allocation of a context
 * @handle: the context's handle of it (never reused)
 * @mem: the model's allocation
 * @size: bytes really reserved (rounded to the page size)
 * @sram: from SRAM (not counted as HBM)
 * @map_count: device mappings of it (FREE is -EBUSY while > 0)
 * @next: next allocation of the context
 */
struct hpu_alloc {
	uint64_t handle;
	struct hpu_fw_mem *mem;
	uint64_t size;
	bool sram;
	unsigned int map_count;
	struct hpu_alloc *next;
};

/**
 * struct hpu_map - one mapping made with MEMORY MAP
 * @va: device VA the model returned
 * @alloc: the allocation mapped, or NULL for host memory
 * @pidfd: host memory: pidfd of the process that owns it, else -1
 * @shm: MAP_SHM: the daemon's shared mapping of the client's file (munmap
 *	after the model's unmap), else NULL
 * @shm_size: bytes at @shm
 * @next: next mapping of the context
 */
struct hpu_map {
	uint64_t va;
	struct hpu_alloc *alloc;
	int pidfd;
	void *shm;
	uint64_t shm_size;
	struct hpu_map *next;
};

/**
 * struct hpu_cb - a command buffer: user memory of its creator, mapped to
 * the device
 * @handle: the context's handle of it (never reused)
 * @host_ptr: address in the creating process
 * @size: bytes
 * @owner: TGID of the creating process (its bytes are read at submission)
 * @pidfd: pidfd of @owner: a reused pid is never read
 * @va: device VA of the mapping
 * @usage: CSs in flight that use it (atomic)
 * @next: next CB of the context
 */
struct hpu_cb {
	uint64_t handle;
	uint64_t host_ptr;
	uint32_t size;
	pid_t owner;
	int pidfd;
	uint64_t va;
	uint32_t usage;
	struct hpu_cb *next;
};

/**
 * struct hpu_mem_state - handle tables of a context
 * @lock: protects every member and every object on the lists (except
 *	struct hpu_cb.usage, an atomic)
 * @next_handle: next handle to give out (shared by allocations and CBs)
 * @allocs: allocations
 * @maps: mappings made with MAP
 * @cbs: command buffers
 */
struct hpu_mem_state {
	pthread_mutex_t lock;
	uint64_t next_handle;
	struct hpu_alloc *allocs;
	struct hpu_map *maps;
	struct hpu_cb *cbs;
};

/* The device model's operations of a context's device */
#define CTX_OPS(ctx) ((ctx)->dev->model->ops)

/*
 * Map [@addr, @addr + @size) of the process of thread @tid into @ctx's
 * address space (memory.c): the range must be mapped in the process; the
 * mapping records the process through a pidfd, returned in @r->pidfd and
 * owned by the caller from then on (closed here on failure).
 * Return: 0 with *@va set, or -errno.
 */
int hpu_ctx_map_user(struct hpu_ctx *ctx, pid_t tid, uint64_t addr,
		     uint64_t size, uint64_t hint, bool fixed,
		     struct hpu_fw_host_range *r, uint64_t *va);

#endif /* HPU_MEM_H */

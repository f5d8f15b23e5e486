/* SPDX-License-Identifier: MIT */
/*
 * hpu_mem.h - per-context handle tables shared by memory.c and cb.c.
 */
#ifndef HPU_MEM_H
#define HPU_MEM_H

#include "hpu_fused.h"

/**
 * struct hpu_handle_node - an object on one of a context's handle lists
 * @handle: the context's handle of it (never reused)
 * @next: next object on the same list
 */
struct hpu_handle_node {
	uint64_t handle;
	struct hpu_handle_node *next;
};

/* The object of @type whose member "node" is @n (not NULL) */
#define hpu_handle_entry(n, type) ((type *)((char *)(n)-offsetof(type, node)))

/**
 * struct hpu_alloc - one device memory allocation of a context
 * @node: handle and link on the context's allocation list
 * @mem: the model's allocation
 * @size: bytes really reserved (rounded to the page size)
 * @sram: from SRAM (not counted as HBM)
 * @map_count: device mappings of it (FREE is -EBUSY while > 0)
 */
struct hpu_alloc {
	struct hpu_handle_node node;
	struct hpu_fw_mem *mem;
	uint64_t size;
	bool sram;
	unsigned int map_count;
};

/**
 * struct hpu_map - one mapping made with MEMORY MAP
 * @va: device VA the model returned
 * @alloc: the allocation mapped, or NULL for host memory
 * @pidfd: host memory: pidfd of the process that owns it, else -1
 * @shm: MAP_SHM: the daemon's shared mapping of the client's file (munmap
 *	after the model's unmap), else NULL
 * @shm_size: bytes at @shm
 * @host_size: USERPTR: bytes of host memory (charged to pinned_bytes)
 * @next: next mapping of the context
 */
struct hpu_map {
	uint64_t va;
	struct hpu_alloc *alloc;
	int pidfd;
	void *shm;
	uint64_t shm_size;
	uint64_t host_size;
	struct hpu_map *next;
};

/**
 * struct hpu_cb - a command buffer: user memory of its creator, mapped to
 * the device
 * @node: handle and link on the context's CB list
 * @host_ptr: address in the creating process
 * @size: bytes
 * @owner: TGID of the creating process (its bytes are read at submission)
 * @pidfd: pidfd of @owner: a reused pid is never read
 * @va: device VA of the mapping
 * @usage: CSs in flight that use it (atomic)
 */
struct hpu_cb {
	struct hpu_handle_node node;
	uint64_t host_ptr;
	uint32_t size;
	pid_t owner;
	int pidfd;
	uint64_t va;
	uint32_t usage;
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
	struct hpu_handle_node *allocs;
	struct hpu_map *maps;
	struct hpu_handle_node *cbs;
};

/*
 * The object of @handle on the list at @head, or NULL; with @link, *@link
 * is set to the pointer that links it (to unlink it). Under the lock.
 */
static inline struct hpu_handle_node *
hpu_handle_find(struct hpu_handle_node **head, uint64_t handle,
		struct hpu_handle_node ***link)
{
	struct hpu_handle_node **pp;

	for (pp = head; *pp; pp = &(*pp)->next) {
		if ((*pp)->handle == handle) {
			if (link)
				*link = pp;
			return *pp;
		}
	}
	return NULL;
}

/* Give @n the next handle of @m and put it on the list at @head */
static inline void hpu_handle_add(struct hpu_mem_state *m,
				  struct hpu_handle_node **head,
				  struct hpu_handle_node *n)
{
	pthread_mutex_lock(&m->lock);
	n->handle = m->next_handle++;
	n->next = *head;
	*head = n;
	pthread_mutex_unlock(&m->lock);
}

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

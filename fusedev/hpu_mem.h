/* SPDX-License-Identifier: MIT */
/*
 * hpu_mem.h - per-context handle tables shared by memory.c and cb.c.
 */
#ifndef HPU_MEM_H
#define HPU_MEM_H

#include "hpu_fused.h"

/**
 * struct hfd_handle_node - an object on one of a context's handle lists
 * @handle: the context's handle of it (never reused)
 * @next: next object on the same list
 */
struct hfd_handle_node {
	uint64_t handle;
	struct hfd_handle_node *next;
};

/* The object of @type whose member "node" is @n (not NULL) */
#define hfd_handle_entry(n, type) ((type *)((char *)(n)-offsetof(type, node)))

/* Processes whose host memory one context may map (-EMFILE beyond) */
#define HFD_CTX_MAX_CLIENTS 16

/**
 * struct hfd_client - a process whose memory a context maps (clients.c)
 * @tgid: its thread group id
 * @pidfd: pidfd of it, shared by every mapping of the process in the
 *	context (the model's host ranges get it)
 * @refs: mappings and CBs using it, and calls in progress (protected by
 *	the context's hfd_mem_state.lock)
 * @next: next client of the context (hfd_mem_state.lock)
 */
struct hfd_client {
	pid_t tgid;
	int pidfd;
	unsigned int refs;
	struct hfd_client *next;
};

/**
 * struct hfd_alloc - one device memory allocation of a context
 * @node: handle and link on the context's allocation list
 * @mem: the model's allocation
 * @size: bytes really reserved (rounded to the page size)
 * @sram: from SRAM (not counted as HBM)
 * @map_count: device mappings of it (FREE is -EBUSY while > 0)
 */
struct hfd_alloc {
	struct hfd_handle_node node;
	struct hpu_fw_mem *mem;
	uint64_t size;
	bool sram;
	unsigned int map_count;
};

/**
 * struct hfd_map - one mapping made with MEMORY MAP
 * @va: device VA the model returned
 * @alloc: the allocation mapped, or NULL for host memory
 * @client: host memory (USERPTR): the process that owns it, else NULL
 * @shm: MAP_SHM: the daemon's shared mapping of the client's file (munmap
 *	after the model's unmap), else NULL
 * @shm_size: bytes at @shm
 * @host_size: USERPTR: bytes of host memory (charged to pinned_bytes)
 * @host_addr: USERPTR: the address of that memory in @client
 * @next: next mapping of the context
 */
struct hfd_map {
	uint64_t va;
	struct hfd_alloc *alloc;
	struct hfd_client *client;
	void *shm;
	uint64_t shm_size;
	uint64_t host_size;
	uint64_t host_addr;
	struct hfd_map *next;
};

/**
 * struct hfd_cb - a command buffer: user memory of its creator, mapped to
 * the device
 * @node: handle and link on the context's CB list
 * @host_ptr: address in the creating process
 * @size: bytes
 * @owner: the creating process (its bytes are read at submission through
 *	its pidfd: a reused pid is never read)
 * @va: device VA of the mapping
 * @usage: CSs in flight that use it (atomic)
 */
struct hfd_cb {
	struct hfd_handle_node node;
	uint64_t host_ptr;
	uint32_t size;
	struct hfd_client *owner;
	uint64_t va;
	uint32_t usage;
};

/**
 * struct hfd_mem_state - handle tables of a context
 * @lock: protects every member and every object on the lists (except
 *	struct hfd_cb.usage, an atomic)
 * @next_handle: next handle to give out (shared by allocations and CBs)
 * @allocs: allocations
 * @maps: mappings made with MAP
 * @cbs: command buffers
 * @clients: processes whose memory is mapped (clients.c)
 * @nclients: entries of @clients
 */
struct hfd_mem_state {
	pthread_mutex_t lock;
	uint64_t next_handle;
	struct hfd_handle_node *allocs;
	struct hfd_map *maps;
	struct hfd_handle_node *cbs;
	struct hfd_client *clients;
	unsigned int nclients;
};

/*
 * The object of @handle on the list at @head, or NULL; with @link, *@link
 * is set to the pointer that links it (to unlink it). Under the lock.
 */
static inline struct hfd_handle_node *
hfd_handle_find(struct hfd_handle_node **head, uint64_t handle,
		struct hfd_handle_node ***link)
{
	struct hfd_handle_node **pp;

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
static inline void hfd_handle_add(struct hfd_mem_state *m,
				  struct hfd_handle_node **head,
				  struct hfd_handle_node *n)
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
 * address space (memory.c): the caller checked the range with
 * hfd_user_probe() before taking its locks. The mapping names the process
 * by its client record (one pidfd per process and context), returned in
 * *@client with a reference the caller owns from then on.
 * Return: 0 with *@va set, or -errno (-EMFILE: too many processes).
 */
int hfd_ctx_map_user(struct hfd_ctx *ctx, pid_t tid, uint64_t addr,
		     uint64_t size, uint64_t hint, bool fixed,
		     struct hfd_client **client, uint64_t *va);

int hfd_client_get(struct hfd_ctx *ctx, pid_t tid, struct hfd_client **out);
void hfd_client_put(struct hfd_ctx *ctx, struct hfd_client *c);
bool hfd_client_alive(const struct hfd_client *c);

#endif /* HPU_MEM_H */

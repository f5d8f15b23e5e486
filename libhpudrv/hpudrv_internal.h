/* SPDX-License-Identifier: MIT */
/*
 * hpudrv_internal.h - what the files of libhpudrv share; never installed.
 */
#ifndef HPUDRV_INTERNAL_H
#define HPUDRV_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include "hpudrv.h"

/**
 * struct hpu_device - an open node
 * @fd: the node's descriptor (O_CLOEXEC); immutable after open, so a
 *	handle may be used from several threads
 * @control: true for a control node
 * @info: description taken at open
 * @next_queue: round-robin cursor of HPU_STREAM_QUEUE_AUTO (atomic)
 * @host_lock: protects @hosts
 * @hosts: pinned host memory from hpu_host_alloc()
 * @ring: the registered ring pair (ring.c), NULL: the ioctl path only
 * @ctrl_events: HPU_CAP_CTRL_EVENTS: 0 not asked yet, 1 yes, -1 no
 *	(atomic; ctrl_events.c)
 * @sob_lock: protects @sob_used, @sob_dirty, @sob_value (sob.c)
 * @sob_used: bit per SOB handed out by hpu_sob_alloc() or to a stream
 * @sob_dirty: bit per SOB whose value the library does not know
 * @sob_value: value of a SOB not dirty (what its last owner left)
 */
struct hpu_device {
	int fd;
	bool control;
	struct hpu_device_info info;
	unsigned int next_queue;
	pthread_mutex_t host_lock;
	struct hpudrv_host *hosts;
	struct hpudrv_ring *ring;
	int ctrl_events;
	pthread_mutex_t sob_lock;
	uint64_t sob_used[HPU_NUM_SOBS / 64];
	uint64_t sob_dirty[HPU_NUM_SOBS / 64];
	uint16_t sob_value[HPU_NUM_SOBS];
};

/* Largest attribute file read into memory (clients of a busy device) */
#define HPUDRV_ATTR_MAX (1 << 20)

/**
 * struct hpudrv_scan - every device of both kinds, before the filter
 * @dir: the simulator's device directory
 * @kdevs: kernel devices, filled in, index i at i (accel minor order)
 * @nk: entries of @kdevs
 * @sim: hpuN numbers of @dir, sorted; index of N is @nk + N
 * @nsim: entries of @sim
 */
struct hpudrv_scan {
	char dir[HPU_PATH_LEN - 32];
	struct hpu_device_info *kdevs;
	int nk;
	int *sim;
	int nsim;
};

/* enum.c */
int hpudrv_devdir(char *buf, size_t len);
int hpudrv_scan(struct hpudrv_scan *s);
void hpudrv_scan_free(struct hpudrv_scan *s);
int hpudrv_scan_info(const struct hpudrv_scan *s, int index, bool full,
		     struct hpu_device_info *info);
int hpudrv_lookup(int index, bool full, struct hpu_device_info *info);
int hpudrv_sim_info(const char *dir, int num, int index, bool full,
		    struct hpu_device_info *info);
int hpudrv_name_number(const char *name, const char *prefix);
int hpudrv_module_id(const char *val);
int hpudrv_driver_open(const char *name, int flags);

/* enum_udev.c */
struct udev_device;
int hpudrv_udev_scan(struct hpu_device_info **list, int *count);
int hpudrv_udev_fill(struct udev_device *d, struct hpu_device_info *info);
int hpudrv_find(const struct hpu_device_info *want, int mode,
		struct hpu_device_info *info);
int hpudrv_read_file(const char *path, char **data, size_t *len);
int hpudrv_parse_clients(const char *text, size_t len,
			 struct hpu_process **list, int *count);

/* visible.c: the selection variables (docs/libhpudrv.md) */
#define HPUDRV_VISIBLE_HPU     0 /* HPU_VISIBLE_DEVICES: indices */
#define HPUDRV_VISIBLE_HABANA  1 /* HABANA_VISIBLE_DEVICES: indices */
#define HPUDRV_VISIBLE_MODULES 2 /* HABANA_VISIBLE_MODULES: module ids */
#define HPUDRV_VISIBLE_NVARS   3
/* Longest hpu_last_error() text */
#define HPUDRV_DETAIL_LEN      256
int hpudrv_visible_check(void);
int hpudrv_visible_var(int var, long num);
int hpudrv_visible_in(const struct hpudrv_scan *s, int index);
void hpudrv_clear_error(void);
void hpudrv_set_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* hpudrv_find() modes */
#define HPUDRV_FIND_INDEX     0
#define HPUDRV_FIND_BUS_ID    1
#define HPUDRV_FIND_MODULE_ID 2

/* ioctl.c */
int hpudrv_ioctl(int fd, unsigned long request, void *arg);
int hpudrv_info(int fd, unsigned int op, unsigned int period_ms, void *out,
		size_t size);

/* device.c */
int hpudrv_open_node(const struct hpu_device_info *info, bool control,
		     struct hpu_device **devp);

/* memory.c */
void hpudrv_host_free_all(struct hpu_device *dev);

/* cs.c */
int hpudrv_wait_status_err(uint32_t status);
/*
 * hpu_cs_submit() for streams: through the ring without waiting for the
 * take where it can (hpudrv_ring_submit_async())
 */
int hpudrv_cs_submit_async(struct hpu_device *dev,
			   const struct hpu_cs_chunk *chunks, unsigned int n,
			   uint32_t flags, uint32_t timeout_ms, uint64_t *seq);

/*
 * ring.c: the user-mode rings. Submit and wait answer -ENOTCONN when the
 * ring cannot serve the call; the caller then uses the ioctl path.
 */
void hpudrv_ring_open(struct hpu_device *dev);
void hpudrv_ring_close(struct hpu_device *dev);
int hpudrv_ring_submit(struct hpu_device *dev,
		       const struct hpu_cs_chunk *chunks, unsigned int n,
		       uint32_t flags, uint32_t timeout_ms, uint64_t *seq);
/*
 * As hpudrv_ring_submit(), but an entry whose CBs went into the CB arena
 * (or a WAIT) returns before the consumer took it: its number is the
 * predicted one, and a refusal of its contents shows in its wait's status
 * (streams: docs/libhpudrv.md)
 */
int hpudrv_ring_submit_async(struct hpu_device *dev,
			     const struct hpu_cs_chunk *chunks, unsigned int n,
			     uint32_t flags, uint32_t timeout_ms,
			     uint64_t *seq);
/**
 * struct hpudrv_wrap - bytes run around one chunk's CB bytes, in the CB
 * arena only (a stream's fences and signals without jobs of their own)
 * @pre: packets run before the CB's bytes, @npre bytes (may be 0)
 * @post: packets run after them, @npost bytes (may be 0)
 */
struct hpudrv_wrap {
	const void *pre;
	uint32_t npre;
	const void *post;
	uint32_t npost;
};

/*
 * As hpudrv_ring_submit_async() for a normal CS whose chunk i runs
 * @wrap[i].pre, then its CB's bytes, then @wrap[i].post: the chunk's
 * cb_size grows by both (it must stay within its builder CB's size). The
 * bytes can only travel in the CB arena: -ENOSPC, nothing submitted,
 * when they cannot (no arena, no room, a CB not a builder's, too large);
 * -ENOTCONN without a ring.
 */
int hpudrv_ring_submit_wrapped(struct hpu_device *dev,
			       const struct hpu_cs_chunk *chunks,
			       const struct hpudrv_wrap *wrap, unsigned int n,
			       uint32_t flags, uint32_t timeout_ms,
			       uint64_t *seq);
int hpudrv_ring_wait(struct hpu_device *dev, uint64_t seq, uint64_t timeout_us,
		     uint32_t *status, uint64_t *ts);
int hpudrv_ring_wait_multi(struct hpu_device *dev, const uint64_t *seqs,
			   unsigned int n, bool any, uint64_t timeout_us,
			   uint32_t *status, uint32_t *map);
/* ring_arena.c: builder CBs whose bytes may go through the CB arena */
void hpudrv_ring_cb_add(struct hpu_device *dev, uint64_t handle,
			const void *ptr, uint32_t size);
void hpudrv_ring_cb_del(struct hpu_device *dev, uint64_t handle);

/*
 * sob.c: SOBs of known value for the streams' fences. Take: the highest
 * free one whose value is known and below HPU_SOB_MAX_VALUE (its value
 * into *@value), -ENOSPC when none. Give: back, with the value it holds
 * (every CS that touched it ended), unless spent. A SOB never given back
 * (spent, or its value unknown) stays taken until the handle closes.
 */
/* Highest value a SOB handed to a stream may hold: room for a CS's signals */
#define HPUDRV_SOB_TAKE_MAX (HPU_SOB_MAX_VALUE - 1024)
void hpudrv_sob_init(struct hpu_device *dev);
void hpudrv_sob_fini(struct hpu_device *dev);
int hpudrv_sob_take(struct hpu_device *dev, uint32_t *sob, uint32_t *value);
void hpudrv_sob_give(struct hpu_device *dev, uint32_t sob, uint32_t value);

/* cb_builder.c */
int hpudrv_cb_builder_new(struct hpu_device *dev, size_t size,
			  struct hpu_cb_builder **bp);

/*
 * Append @size bytes of a packet whose header the caller filled in
 * (cb_builder.c). Return: 0 or -ENOSPC.
 */
int hpudrv_cb_append(struct hpu_cb_builder *b, const void *pkt, size_t size);

/*
 * allocator.c: the allocator reaches the device only through these ops,
 * so that unit tests can run it over a fake device.
 */
struct hpudrv_alloc_ops {
	int (*alloc)(void *ctx, uint64_t size, uint64_t page_size,
		     uint64_t *handle);
	int (*map)(void *ctx, uint64_t handle, uint64_t *va);
	int (*unmap)(void *ctx, uint64_t va);
	int (*free)(void *ctx, uint64_t handle);
};

/*
 * hpu_allocator_create() of HPUDRV_1.6 (the default version) under its
 * own name, which compat.c's older version calls
 */
HPUDRV_EXPORT int
hpu_allocator_create_v1_6(struct hpu_device *dev,
			  const struct hpu_allocator_opts *opts,
			  struct hpu_allocator **ap);

/**
 * struct hpu_allocator_opts_v1_1 - the options of HPUDRV_1.1 .. 1.5,
 * without a size field
 * @max_cached_bytes: as in struct hpu_allocator_opts
 * @flags: as in struct hpu_allocator_opts
 */
struct hpu_allocator_opts_v1_1 {
	uint64_t max_cached_bytes;
	uint32_t flags;
};

/* hpu_allocator_create() of programs linked before HPUDRV_1.6 */
HPUDRV_EXPORT int
hpu_allocator_create_v1_1(struct hpu_device *dev,
			  const struct hpu_allocator_opts_v1_1 *old,
			  struct hpu_allocator **ap);

int hpudrv_allocator_create_ops(const struct hpudrv_alloc_ops *ops, void *ctx,
				uint64_t small_page_size,
				const struct hpu_allocator_opts *opts,
				struct hpu_allocator **ap);

#endif /* HPUDRV_INTERNAL_H */

/* SPDX-License-Identifier: MIT */
/*
 * ht_loader.h - the DataLoader: per-rank sharding, seeded shuffling,
 * batching and host-side prefetch
 *
 * The sharding rule (docs/training-data.md has the argument):
 *
 * - g = world_size x batch_size is the global batch;
 * - epoch e uses one permutation P_e of 0..N-1: Fisher-Yates driven by
 *   xoshiro256** seeded with ht_rng_seed(seed, e) (the identity when
 *   shuffle is off). It depends on (seed, e, N) only, so every rank
 *   computes the same one;
 * - step k of the epoch is the global batch P_e[k*g .. min((k+1)*g, N));
 *   rank r takes P_e[k*g + r*b .. k*g + (r+1)*b) clipped to N;
 * - steps per epoch S = ceil(N / g), or floor(N / g) with drop_last; every
 *   rank runs the same S steps, so collectives line up even when the last
 *   global batch leaves some ranks with fewer or no samples.
 *
 * Every batch carries its rank-local count n and its global count G; a
 * trainer that scales the summed loss by 1/G gets, after summing gradients
 * over ranks, exactly the gradient of one device running batch g.
 *
 * Batches are produced in order by a prefetch thread into a ring of
 * prefetch + 1 slots (or by the caller's thread when prefetch is 0); both
 * run the same code, so the batches are identical either way.
 *
 * The samples are the rows of a data set (ht_loader_create()) or the
 * fixed-length token windows of a text (ht_loader_create_text()): the
 * same sharding, shuffling, prefetch and resume apply to both.
 */
#ifndef HT_LOADER_H
#define HT_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ht_data.h"
#include "ht_text.h"

/** HT_LOADER_MAX_PREFETCH - most batches prepared ahead */
#define HT_LOADER_MAX_PREFETCH 64

struct ht_loader;

/**
 * typedef ht_buf_alloc_fn - allocate a batch buffer
 * @size: bytes
 * @arg: the opts' alloc_arg
 *
 * E.g. pinned (device-mapped) host memory. Return: the buffer or NULL.
 */
typedef void *(*ht_buf_alloc_fn)(size_t size, void *arg);

/**
 * typedef ht_buf_free_fn - free a buffer of ht_buf_alloc_fn
 * @ptr: the buffer
 * @size: its size
 * @arg: the opts' alloc_arg
 */
typedef void (*ht_buf_free_fn)(void *ptr, size_t size, void *arg);

/**
 * struct ht_loader_opts - how to batch a data set
 * @batch_size: per-rank batch b (> 0)
 * @world_size: ranks (> 0); 1 for a single device
 * @rank: this rank, < world_size
 * @seed: shuffle seed; the same on every rank
 * @shuffle: permute every epoch; off: samples in data set order
 * @drop_last: skip the last global batch when it is partial
 * @prefetch: batches prepared ahead by a thread, 0 for none (synchronous)
 * @alloc: allocator of the batch buffers, NULL for malloc
 * @free: its release, NULL for free (required with @alloc)
 * @alloc_arg: passed to @alloc and @free
 */
struct ht_loader_opts {
	uint32_t batch_size;
	uint32_t world_size;
	uint32_t rank;
	uint64_t seed;
	bool shuffle;
	bool drop_last;
	uint32_t prefetch;
	ht_buf_alloc_fn alloc;
	ht_buf_free_fn free;
	void *alloc_arg;
};

/**
 * struct ht_batch - one rank's part of one global batch
 * @epoch: epoch of the batch
 * @step: step within the epoch, 0 .. steps per epoch - 1
 * @n: samples of this rank in this batch, 0 .. batch_size
 * @global_n: samples of the whole global batch across all ranks
 * @x: n x f features (buffer room for batch_size rows); NULL for a text
 * @y: n labels (room for batch_size); NULL for a text
 * @idx: the n data set indices of the samples (for a text: window
 *	indices, window i starts at byte i x stride)
 * @ids: text: n x context input token ids, row-major (room for
 *	batch_size rows); NULL for a data set
 * @targets: text: n x context target ids, each row its input row shifted
 *	by one (the next token); NULL for a data set
 */
struct ht_batch {
	uint64_t epoch;
	uint64_t step;
	uint32_t n;
	uint32_t global_n;
	float *x;
	int32_t *y;
	uint32_t *idx;
	int32_t *ids;
	int32_t *targets;
};

/**
 * struct ht_loader_state - where a loader is, for checkpoints
 * @epoch: epoch of the next batch to be returned
 * @step: step of the next batch to be returned
 * @seed: the loader's seed
 * @n_samples: data set size (text: windows)
 * @world_size: ranks
 * @batch_size: per-rank batch
 * @shuffle: shuffle on
 * @drop_last: drop_last on
 *
 * The same on every rank (the rank is not part of it). Batches already
 * prefetched but not returned do not count.
 */
struct ht_loader_state {
	uint64_t epoch;
	uint64_t step;
	uint64_t seed;
	uint32_t n_samples;
	uint32_t world_size;
	uint32_t batch_size;
	bool shuffle;
	bool drop_last;
};

/**
 * ht_loader_create() - make a loader over a data set
 * @ds: the data set; must stay alive and unchanged until destroy
 * @opts: batching options
 * @out: the loader
 * @err: error message buffer
 * @errlen: size of @err
 *
 * The loader starts at epoch 0, step 0; the prefetch thread (if any)
 * starts preparing batches at once.
 *
 * Return: 0; -EINVAL (batch 0, rank >= world, no batch per epoch with
 * drop_last, alloc without free, prefetch above the limit, an empty data
 * set); -ENOMEM; the error of pthread_create.
 */
int ht_loader_create(const struct ht_dataset *ds,
		     const struct ht_loader_opts *opts, struct ht_loader **out,
		     char *err, size_t errlen);

/**
 * struct ht_text_windows - the samples of a text loader
 * @text: the text; must stay alive and unchanged until destroy
 * @context: tokens per window T (> 0)
 * @stride: bytes between the starts of windows i and i + 1, 1 .. context
 *	(0: context, windows that do not overlap)
 *
 * Window i is the bytes [i x stride, i x stride + T] (T + 1 bytes): its
 * inputs are the first T as token ids, its targets the last T. A text of
 * L bytes has floor((L - 1 - T) / stride) + 1 windows (L > T needed).
 */
struct ht_text_windows {
	const struct ht_text *text;
	uint32_t context;
	uint32_t stride;
};

/**
 * ht_text_window_count() - windows of a text
 * @w: text, context and stride
 *
 * Return: the number of windows, 0 when the text is not longer than the
 * context (or the context is 0 or the stride above it).
 */
uint32_t ht_text_window_count(const struct ht_text_windows *w);

/**
 * ht_loader_create_text() - make a loader over the windows of a text
 * @w: text, context and stride (the text must outlive the loader)
 * @opts: batching options, as for ht_loader_create()
 * @out: the loader
 * @err: error message buffer
 * @errlen: size of @err
 *
 * Batches carry ids and targets (batch_size x context int32 each, from
 * opts->alloc) instead of x and y; the sharding, shuffle and resume are
 * ht_loader_create()'s over the ht_text_window_count() windows.
 *
 * Return: 0; -EINVAL (context 0, stride above the context, a text not
 * longer than the context, and ht_loader_create()'s); -ENOMEM; the error
 * of pthread_create.
 */
int ht_loader_create_text(const struct ht_text_windows *w,
			  const struct ht_loader_opts *opts,
			  struct ht_loader **out, char *err, size_t errlen);

/**
 * ht_loader_destroy() - stop the prefetch thread and free the loader
 * @l: the loader, or NULL
 *
 * May be called at any point of an epoch. Batches not yet released become
 * invalid.
 */
void ht_loader_destroy(struct ht_loader *l);

/**
 * ht_loader_steps_per_epoch() - steps every rank runs per epoch
 * @l: the loader
 *
 * Return: ceil(N / g), or floor(N / g) with drop_last.
 */
uint64_t ht_loader_steps_per_epoch(const struct ht_loader *l);

/**
 * ht_loader_next() - the next batch of the current epoch
 * @l: the loader
 * @batch: the batch, valid until ht_loader_release()
 *
 * After the last step of an epoch, returns -ENODATA once and moves to
 * step 0 of the next epoch. The caller may hold up to prefetch + 1
 * batches at a time. One thread at a time may call the loader's functions
 * (the prefetch thread is the loader's own).
 *
 * Return: 0 with a batch; -ENODATA at the end of an epoch; -EBUSY when
 * the caller holds every buffer.
 */
int ht_loader_next(struct ht_loader *l, struct ht_batch **batch);

/**
 * ht_loader_release() - give a batch's buffers back to the loader
 * @l: the loader
 * @batch: a batch of ht_loader_next()
 */
void ht_loader_release(struct ht_loader *l, struct ht_batch *batch);

/**
 * ht_loader_next_copy() - the next batch, copied into caller buffers
 * @l: the loader
 * @x: room for batch_size x f floats
 * @y: room for batch_size labels
 * @info: the batch's epoch, step, counts (its x, y, idx are NULL)
 *
 * Return: as ht_loader_next(); -EINVAL for a text loader.
 */
int ht_loader_next_copy(struct ht_loader *l, float *x, int32_t *y,
			struct ht_batch *info);

/**
 * ht_loader_next_copy_text() - the next text batch, copied into caller
 * buffers
 * @l: a loader of ht_loader_create_text()
 * @ids: room for batch_size x context ids
 * @targets: room for batch_size x context ids
 * @info: the batch's epoch, step, counts (its pointers are NULL)
 *
 * Return: as ht_loader_next(); -EINVAL for a data set loader.
 */
int ht_loader_next_copy_text(struct ht_loader *l, int32_t *ids,
			     int32_t *targets, struct ht_batch *info);

/**
 * ht_loader_seek() - continue at a given epoch and step
 * @l: the loader
 * @epoch: epoch
 * @step: step, <= steps per epoch (== means "at the end of the epoch")
 *
 * Prepared batches are dropped; batches the caller holds stay valid.
 *
 * Return: 0, -EINVAL for a step beyond the epoch.
 */
int ht_loader_seek(struct ht_loader *l, uint64_t epoch, uint64_t step);

/**
 * ht_loader_get_state() - where the loader is
 * @l: the loader
 * @st: the state, written
 */
void ht_loader_get_state(const struct ht_loader *l, struct ht_loader_state *st);

/**
 * ht_loader_set_state() - resume from a saved state
 * @l: the loader
 * @st: a state of ht_loader_get_state()
 * @err: error message buffer
 * @errlen: size of @err
 *
 * The next batch is then the one that would have followed in the run that
 * saved @st.
 *
 * Return: 0, -EINVAL when @st was saved with another seed, data set size,
 * world size, batch size, shuffle or drop_last, or names a step beyond
 * the epoch.
 */
int ht_loader_set_state(struct ht_loader *l, const struct ht_loader_state *st,
			char *err, size_t errlen);

#endif /* HT_LOADER_H */

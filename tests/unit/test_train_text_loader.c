// SPDX-License-Identifier: MIT
/*
 * test_train_text_loader.c - the DataLoader over the token windows of a
 * text: window content and count, sharding over 1/2/4/8 ranks (seeded
 * text and the corpus's training part), shuffling per seed and epoch,
 * prefetch depths, resume from a saved state, resume after kill -9 of a
 * child process, creation errors and the copying variants (the text data
 * itself: test_train_text.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "ht_data.h"
#include "ht_loader.h"
#include "ht_text.h"

#include "../lib/hpu_test_train.h"

#define ERRLEN 1024

static struct ht_loader *make_loader(const struct ht_text *t, uint32_t ctx,
				     uint32_t stride, uint32_t world,
				     uint32_t rank, uint32_t bs,
				     uint32_t prefetch, uint64_t seed,
				     bool drop_last)
{
	struct ht_text_windows w = { .text = t,
				     .context = ctx,
				     .stride = stride };
	struct ht_loader_opts o = {
		.batch_size = bs,
		.world_size = world,
		.rank = rank,
		.seed = seed,
		.shuffle = true,
		.drop_last = drop_last,
		.prefetch = prefetch,
	};
	struct ht_loader *l;
	char err[ERRLEN];
	int ret = ht_loader_create_text(&w, &o, &l, err, sizeof(err));

	if (ret)
		fail_msg("ht_loader_create_text: %d: %s", ret, err);
	return l;
}

/* Every window of @b is the text at its index x stride */
static void check_windows(const struct ht_text *t, uint32_t ctx,
			  uint32_t stride, const struct ht_batch *b)
{
	uint32_t i, j;

	assert_null(b->x);
	assert_null(b->y);
	for (i = 0; i < b->n; i++) {
		const uint8_t *w = t->data + (size_t)b->idx[i] * stride;

		assert_true((size_t)b->idx[i] * stride + ctx < t->len);
		for (j = 0; j < ctx; j++) {
			assert_int_equal(b->ids[i * ctx + j], w[j]);
			assert_int_equal(b->targets[i * ctx + j], w[j + 1]);
		}
	}
}

static void test_windows(void **state)
{
	struct ht_text t;
	struct ht_text_windows w = { .text = &t, .context = 16 };
	struct ht_loader *l;
	struct ht_batch *b;
	uint32_t stride, n;

	hpu_test_make_text(&t, 1000, 3);
	/* (1000 - 1 - 16) / 16 + 1 = 62 windows; the last ends at 992 */
	assert_int_equal(ht_text_window_count(&w), 62);
	w.stride = 5;
	assert_int_equal(ht_text_window_count(&w), (1000 - 1 - 16) / 5 + 1);
	w.stride = 17;
	assert_int_equal(ht_text_window_count(&w), 0);
	w.stride = 0;
	t.len = 17;
	assert_int_equal(ht_text_window_count(&w), 1);
	t.len = 16;
	assert_int_equal(ht_text_window_count(&w), 0);
	t.len = 1000;

	for (stride = 1; stride <= 16; stride += 5) {
		w.stride = stride;
		n = ht_text_window_count(&w);
		l = make_loader(&t, 16, stride, 1, 0, 7, 1, 5, false);
		assert_int_equal(ht_loader_steps_per_epoch(l), (n + 6) / 7);
		while (ht_loader_next(l, &b) == 0) {
			check_windows(&t, 16, stride, b);
			ht_loader_release(l, b);
		}
		ht_loader_destroy(l);
	}
	ht_text_free(&t);
}

/* The text and context of check_sharding()'s loaders */
struct text_ctx {
	const struct ht_text *t;
	uint32_t ctx;
};

static void windows_content(const void *arg, const struct ht_batch *b)
{
	const struct text_ctx *tc = arg;

	check_windows(tc->t, tc->ctx, tc->ctx, b);
}

/* All ranks of a world over two epochs (hpu_test_check_sharding()) */
static void check_sharding(const struct ht_text *t, uint32_t ctx,
			   uint32_t world, uint32_t bs, bool drop_last)
{
	struct ht_text_windows w = { .text = t, .context = ctx };
	const struct text_ctx tc = { .t = t, .ctx = ctx };
	struct ht_loader *l[8];
	uint32_t r;

	assert_true(world <= 8);
	for (r = 0; r < world; r++)
		l[r] = make_loader(t, ctx, 0, world, r, bs, r % 3, 99,
				   drop_last);
	hpu_test_check_sharding(l, world, ht_text_window_count(&w), bs,
				drop_last, windows_content, &tc);
	for (r = 0; r < world; r++)
		ht_loader_destroy(l[r]);
}

static void test_sharding(void **state)
{
	static const uint32_t worlds[] = { 1, 2, 4, 8 };
	struct ht_text t, tr, va;
	struct ht_text_split_opts so = { .val_frac = 0.1, .seed = 7 };
	char err[ERRLEN];
	unsigned int i;

	/* 1000 bytes, T 8: 124 windows; batches that do not divide it */
	hpu_test_make_text(&t, 1000, 11);
	for (i = 0; i < 4; i++) {
		check_sharding(&t, 8, worlds[i], 5, false);
		check_sharding(&t, 8, worlds[i], 5, true);
	}
	ht_text_free(&t);

	/* the corpus's training part, the GPT's defaults: T 128, b 32 */
	hpu_test_load_corpus(&t);
	assert_int_equal(ht_text_split(&t, &so, &tr, &va, err, sizeof(err)), 0);
	for (i = 0; i < 4; i++)
		check_sharding(&tr, 128, worlds[i], 32, true);
	check_sharding(&va, 128, 8, 32, false);
	ht_text_free(&tr);
	ht_text_free(&va);
	ht_text_free(&t);
}

/* Every batch a loader returns over @epochs, as one checksum per batch */
static uint64_t batch_sum(const struct ht_batch *b, uint32_t ctx)
{
	uLong c = crc32(0L, Z_NULL, 0);

	c = crc32(c, (const void *)b->idx, b->n * sizeof(uint32_t));
	c = crc32(c, (const void *)b->ids, b->n * ctx * sizeof(int32_t));
	c = crc32(c, (const void *)b->targets, b->n * ctx * sizeof(int32_t));
	return ((uint64_t)c << 32) ^ (b->epoch << 24) ^ (b->step << 8) ^ b->n;
}

static uint32_t trace(struct ht_loader *l, uint32_t ctx, uint32_t epochs,
		      uint64_t *sums, uint32_t max)
{
	struct ht_batch *b;
	uint32_t e, count = 0;

	for (e = 0; e < epochs; e++) {
		while (ht_loader_next(l, &b) == 0) {
			assert_true(count < max);
			sums[count++] = batch_sum(b, ctx);
			ht_loader_release(l, b);
		}
	}
	return count;
}

static void test_shuffle(void **state)
{
	uint64_t ref[64], got[64], other[64];
	struct ht_loader *l;
	struct ht_text t;
	uint32_t n, i, p, same;

	hpu_test_make_text(&t, 3000, 5); /* T 16: 187 windows, b 10: 19 steps */
	l = make_loader(&t, 16, 0, 1, 0, 10, 0, 42, false);
	n = trace(l, 16, 2, ref, 64);
	ht_loader_destroy(l);
	assert_int_equal(n, 38);

	/* the same seed, any prefetch depth: the same batches */
	for (p = 0; p <= 8; p += 2) {
		l = make_loader(&t, 16, 0, 1, 0, 10, p, 42, false);
		assert_int_equal(trace(l, 16, 2, got, 64), n);
		assert_memory_equal(got, ref, n * sizeof(uint64_t));
		ht_loader_destroy(l);
	}
	/* epoch 1's order is not epoch 0's */
	for (i = 0, same = 0; i < 19; i++)
		same += ref[i] >> 32 == ref[19 + i] >> 32;
	assert_true(same < 3);
	/* another seed: another order */
	l = make_loader(&t, 16, 0, 1, 0, 10, 1, 43, false);
	assert_int_equal(trace(l, 16, 2, other, 64), n);
	for (i = 0, same = 0; i < n; i++)
		same += other[i] == ref[i];
	assert_true(same < 3);
	ht_loader_destroy(l);
	ht_text_free(&t);
}

/* Save mid-epoch, restore into a fresh loader: the same batches follow */
static void test_resume(void **state)
{
	struct ht_loader_state st;
	uint64_t ref[128], got[128];
	struct ht_loader *l;
	struct ht_batch *b;
	struct ht_text t;
	char err[ERRLEN];
	uint32_t n, i;

	/* T 32: 124 windows; 2 ranks x 6: 11 steps */
	hpu_test_make_text(&t, 4000, 9);
	l = make_loader(&t, 32, 0, 2, 1, 6, 2, 77, false);
	n = trace(l, 32, 3, ref, 128);
	ht_loader_destroy(l);
	assert_int_equal(n, 33);

	/* one epoch and 4 steps, with prefetch running ahead */
	l = make_loader(&t, 32, 0, 2, 1, 6, 4, 77, false);
	assert_int_equal(trace(l, 32, 1, got, 128), 11);
	for (i = 0; i < 4; i++) {
		assert_int_equal(ht_loader_next(l, &b), 0);
		assert_int_equal(batch_sum(b, 32), ref[11 + i]);
		ht_loader_release(l, b);
	}
	ht_loader_get_state(l, &st);
	ht_loader_destroy(l);
	assert_int_equal(st.epoch, 1);
	assert_int_equal(st.step, 4);
	assert_int_equal(st.n_samples, 124);

	l = make_loader(&t, 32, 0, 2, 1, 6, 0, 77, false);
	assert_int_equal(ht_loader_set_state(l, &st, err, sizeof(err)), 0);
	assert_int_equal(trace(l, 32, 2, got, 128), 33 - 15);
	assert_memory_equal(got, ref + 15, (33 - 15) * sizeof(uint64_t));
	ht_loader_destroy(l);

	/* another context is another window count: refused */
	l = make_loader(&t, 33, 0, 2, 1, 6, 0, 77, false);
	assert_int_equal(ht_loader_set_state(l, &st, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "loader state mismatch: saved seed 77, "
				    "124 samples"));
	ht_loader_destroy(l);
	ht_text_free(&t);
}

#define KILL_FILE_MAX 64

/*
 * The child: batches forever (bounded), each one's checksum written to
 * @fd, then the loader state saved as a checkpoint would be (a new file
 * renamed over the old one).
 */
static void child_run(const struct ht_text *t, int fd, const char *ckpt)
{
	struct ht_text_windows w = { .text = t, .context = 32 };
	struct ht_loader_opts o = { .batch_size = 6,
				    .world_size = 2,
				    .rank = 0,
				    .seed = 123,
				    .shuffle = true,
				    .prefetch = 3 };
	char tmp[KILL_FILE_MAX + 8], err[ERRLEN];
	struct ht_loader_state st;
	struct ht_loader *l;
	struct ht_batch *b;
	uint32_t count = 0;
	int ret;

	if (ht_loader_create_text(&w, &o, &l, err, sizeof(err)))
		_exit(3);
	snprintf(tmp, sizeof(tmp), "%s.tmp", ckpt);
	while (count < 100000) {
		FILE *f;
		uint64_t s;

		ret = ht_loader_next(l, &b);
		if (ret == -ENODATA)
			continue;
		if (ret)
			_exit(4);
		s = batch_sum(b, 32);
		ht_loader_release(l, b);
		if (write(fd, &s, sizeof(s)) != sizeof(s))
			_exit(0); /* the parent stopped reading */
		ht_loader_get_state(l, &st);
		f = fopen(tmp, "wb");
		if (!f || fwrite(&st, sizeof(st), 1, f) != 1 || fflush(f) ||
		    fsync(fileno(f)) || fclose(f) || rename(tmp, ckpt))
			_exit(5);
		count++;
	}
	_exit(0);
}

/* kill -9 in mid-run; resume from the last state saved: bit-identical */
static void test_kill_resume(void **state)
{
	char ckpt[KILL_FILE_MAX] = "/tmp/ht-text-ckpt-XXXXXX", err[ERRLEN];
	uint64_t ref[200], got[200], s;
	struct ht_loader_state st;
	struct ht_loader *l;
	struct ht_text t;
	uint32_t n, i, pos;
	int fds[2], status, fd;
	pid_t pid;
	FILE *f;

	hpu_test_make_text(&t, 4000, 13); /* 124 windows, 11 steps per epoch */
	l = make_loader(&t, 32, 0, 2, 0, 6, 0, 123, false);
	n = trace(l, 32, 18, ref, 200);
	ht_loader_destroy(l);
	assert_int_equal(n, 198);

	fd = mkstemp(ckpt);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(fds[0]);
		child_run(&t, fds[1], ckpt);
	}
	close(fds[1]);
	/* 40 batches: epoch 3, step 7 */
	for (i = 0; i < 40; i++) {
		assert_int_equal(read(fds[0], &s, sizeof(s)), sizeof(s));
		assert_int_equal(s, ref[i]);
	}
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	close(fds[0]);

	f = fopen(ckpt, "rb");
	assert_non_null(f);
	assert_int_equal(fread(&st, sizeof(st), 1, f), 1);
	fclose(f);
	unlink(ckpt);
	pos = (uint32_t)(st.epoch * 11 + st.step);
	print_message("killed at epoch %llu step %llu (%u batches saved)\n",
		      (unsigned long long)st.epoch, (unsigned long long)st.step,
		      pos);
	/* the child reports a batch, then saves: one may be unsaved */
	assert_true(pos >= 39 && pos < n);

	l = make_loader(&t, 32, 0, 2, 0, 6, 2, 123, false);
	assert_int_equal(ht_loader_set_state(l, &st, err, sizeof(err)), 0);
	for (i = 0; pos + i < n; i++) {
		struct ht_batch *b;
		int ret = ht_loader_next(l, &b);

		if (ret == -ENODATA)
			ret = ht_loader_next(l, &b);
		assert_int_equal(ret, 0);
		got[i] = batch_sum(b, 32);
		ht_loader_release(l, b);
	}
	assert_memory_equal(got, ref + pos, i * sizeof(uint64_t));
	ht_loader_destroy(l);
	ht_text_free(&t);
}

static void test_loader_errors(void **state)
{
	struct ht_text t;
	struct ht_text_windows w = { .text = &t, .context = 0 };
	struct ht_loader_opts o = { .batch_size = 4, .world_size = 1 };
	struct ht_loader *l;
	struct ht_batch info;
	int32_t ids[4 * 8], tg[4 * 8];
	struct ht_dataset ds;
	float x[4];
	int32_t y[4];
	char err[ERRLEN];
	int i;

	hpu_test_make_text(&t, 100, 1);
	assert_int_equal(ht_loader_create_text(&w, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(
		err, "loader: context 0, stride 0 (1 <= stride <= context)");
	assert_null(l);
	w.context = 8;
	w.stride = 9;
	assert_int_equal(ht_loader_create_text(&w, &o, &l, err, sizeof(err)),
			 -EINVAL);
	w.stride = 0;
	w.context = 100;
	assert_int_equal(ht_loader_create_text(&w, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(
		err,
		"loader: a text of 100 bytes holds no window of 100 + 1 tokens");
	/* 12 windows of 8, drop_last with a global batch of 16 */
	w.context = 8;
	o.world_size = 4;
	o.drop_last = true;
	assert_int_equal(ht_loader_create_text(&w, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "drop_last with 12 samples"));
	o.world_size = 1;
	o.drop_last = false;

	/* the copying variants follow the kind of loader */
	assert_int_equal(ht_loader_create_text(&w, &o, &l, err, sizeof(err)),
			 0);
	assert_int_equal(ht_loader_next_copy(l, x, y, &info), -EINVAL);
	assert_int_equal(ht_loader_next_copy_text(l, ids, tg, &info), 0);
	assert_int_equal(info.n, 4);
	assert_null(info.ids);
	assert_null(info.targets);
	/* no shuffle: windows 0..3, 8 bytes apart */
	for (i = 0; i < 4 * 8; i++) {
		assert_int_equal(ids[i], t.data[i]);
		assert_int_equal(tg[i], t.data[i + 1]);
	}
	ht_loader_destroy(l);

	/* and a data set loader has no text batches */
	assert_int_equal(ht_dataset_alloc(&ds, 8, 1, 2), 0);
	memset(ds.x, 0, 8 * sizeof(float));
	memset(ds.y, 0, 8 * sizeof(int32_t));
	assert_int_equal(ht_loader_create(&ds, &o, &l, err, sizeof(err)), 0);
	assert_int_equal(ht_loader_next_copy_text(l, ids, tg, &info), -EINVAL);
	assert_int_equal(ht_loader_next_copy(l, x, y, &info), 0);
	ht_loader_destroy(l);
	ht_dataset_free(&ds);
	ht_text_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_sharding),
		cmocka_unit_test(test_shuffle),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_kill_resume),
		cmocka_unit_test(test_loader_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * ckpt_file.c - checkpoints: one file written atomically (temporary
 * file, fsync, rename, fsync of the directory), a header with a magic, a
 * version and the CRC-32 of the payload, then the payload: what the run
 * is (model, shapes, optimizers, data, world, batch, seed), where it is
 * (step, epoch, loader position, the module's RNG) and its state (the
 * parameters and every optimizer's state, fp32). Loading checks all of it
 * and names the first mismatch. Integers are little-endian u64, floats
 * IEEE binary32 as stored in memory (x86-64 and AArch64 alike).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ht_error.h"
#include "ht_generate.h"
#include "trainer_internal.h"

#define CKPT_MAGIC   "HTCKPT\x01\n"
#define CKPT_VERSION 1U

/**
 * struct ckpt_header - the first 32 bytes of a checkpoint
 * @magic: CKPT_MAGIC
 * @version: CKPT_VERSION
 * @header_bytes: sizeof(struct ckpt_header)
 * @payload_bytes: bytes after the header
 * @crc: CRC-32 (zlib) of the payload
 * @pad: 0
 */
struct ckpt_header {
	char magic[8];
	uint32_t version;
	uint32_t header_bytes;
	uint64_t payload_bytes;
	uint32_t crc;
	uint32_t pad;
};

/* A growing payload buffer (write) or a cursor over one (read) */
struct buf {
	uint8_t *p;
	size_t len;
	size_t cap;
	size_t pos;
	bool short_read;
};

static int put(struct buf *b, const void *src, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
	return 0;
}

static int put_u64(struct buf *b, uint64_t v)
{
	uint8_t le[8];
	unsigned int i;

	for (i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	return put(b, le, sizeof(le));
}

static const void *get(struct buf *b, size_t n)
{
	const void *p;

	if (b->short_read || b->len - b->pos < n) {
		b->short_read = true;
		return NULL;
	}
	p = b->p + b->pos;
	b->pos += n;
	return p;
}

static uint64_t get_u64(struct buf *b)
{
	const uint8_t *le = get(b, 8);
	uint64_t v = 0;
	unsigned int i;

	if (!le)
		return 0;
	for (i = 0; i < 8; i++)
		v |= (uint64_t)le[i] << (8 * i);
	return v;
}

/* CRC-32 of @n bytes at @p, also past zlib's 4 GiB length type */
static uint32_t crc_of(const uint8_t *p, size_t n)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	while (n) {
		size_t k = n < (1U << 30) ? n : (1U << 30);

		crc = crc32(crc, p, (uInt)k);
		p += k;
		n -= k;
	}
	return (uint32_t)crc;
}

/* The identity of the run, the same on save and load */
static int put_meta(struct ht_trainer *t, struct buf *b)
{
	struct ht_module *m = t->m;
	unsigned int i;
	int ret = 0;

	ret |= put_u64(b, (uint64_t)t->o.model);
	ret |= put_u64(b, t->features);
	ret |= put_u64(b, t->classes);
	ret |= put_u64(b, t->n_train);
	ret |= put_u64(b, t->world);
	ret |= put_u64(b, t->o.batch_size);
	ret |= put_u64(b, t->o.accumulate_grad_batches);
	ret |= put_u64(b, t->o.seed);
	if (t->o.model == HT_TRAIN_MODEL_GPT) {
		/* what a generator needs to rebuild the model */
		ret |= put_u64(b, t->o.gpt.layers);
		ret |= put_u64(b, t->o.gpt.heads);
		ret |= put_u64(b, t->o.gpt.dim);
		ret |= put_u64(b, t->o.gpt.context);
		ret |= put_u64(b, t->o.gpt.tied);
	}
	ret |= put_u64(b, m->nparams);
	for (i = 0; i < m->nparams; i++)
		ret |= put_u64(b, m->params[i]->numel);
	ret |= put_u64(b, m->noptims);
	for (i = 0; i < m->noptims; i++)
		ret |= put_u64(b, ht_optim_nstate(m->optims[i]));
	return ret ? -ENOMEM : 0;
}

static const char *const meta_name[] = {
	"model",
	"features",
	"classes",
	"training samples",
	"world size",
	"per-rank batch size",
	"accumulate_grad_batches",
	"seed",
	/* the GPT's only */
	"GPT layers",
	"GPT heads",
	"GPT width",
	"GPT context",
	"GPT tied output projection",
};

/* named fields of the identity: the first 8, the GPT's 5 more */
static unsigned int meta_named(const struct ht_trainer *t)
{
	return t->o.model == HT_TRAIN_MODEL_GPT ? 13 : 8;
}

/* Every tensor of the state, in file order */
static struct ht_tensor *state_tensor(struct ht_trainer *t, unsigned int i)
{
	struct ht_module *m = t->m;
	unsigned int k, n;

	if (i < m->nparams)
		return m->params[i];
	i -= m->nparams;
	for (k = 0; k < m->noptims; k++) {
		n = ht_optim_nstate(m->optims[k]);
		if (i < n)
			return ht_optim_state(m->optims[k], i);
		i -= n;
	}
	return NULL;
}

static int build_payload(struct ht_trainer *t, struct buf *b)
{
	struct ht_tensor *x;
	size_t start, total = 0;
	unsigned int i;
	int ret;

	ret = put_meta(t, b);
	ret |= put_u64(b, t->step);
	ret |= put_u64(b, t->epoch);
	ret |= put_u64(b, t->batch);
	/*
	 * the loader's position is the trainer's: the loader itself may be
	 * a batch further (taken ahead to prefetch it to the device)
	 */
	ret |= put_u64(b, t->epoch);
	ret |= put_u64(b, t->batch);
	for (i = 0; i < t->m->noptims; i++)
		ret |= put_u64(b, ht_optim_steps(t->m->optims[i]));
	for (i = 0; i < 4; i++)
		ret |= put_u64(b, t->m->rng.s[i]);
	if (ret)
		return -ENOMEM;
	/* room first: the fetches write into it at the synchronization */
	for (i = 0; (x = state_tensor(t, i)); i++)
		total += x->numel * 4;
	if (b->len + total > b->cap) {
		uint8_t *p = realloc(b->p, b->len + total);

		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = b->len + total;
	}
	start = b->len;
	b->len += total;
	for (i = 0; (x = state_tensor(t, i)); i++) {
		ret = ht_tensor_fetch(x, b->p + start);
		if (ret)
			return ret;
		start += x->numel * 4;
	}
	return ht_backend_sync(t->be);
}

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static void fsync_dir(const char *path)
{
	char tmp[PATH_MAX];
	int fd;

	snprintf(tmp, sizeof(tmp), "%s", path);
	fd = open(dirname(tmp), O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int ht_trainer_write_atomic(const char *path, const void *a, size_t na,
			    const void *b, size_t nb)
{
	char tmp[PATH_MAX];
	int fd, ret;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, a, na);
	if (!ret)
		ret = write_all(fd, b, nb);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return ret;
	}
	fsync_dir(path);
	return 0;
}

int ht_ckpt_save(struct ht_trainer *t, const char *path)
{
	struct ckpt_header h = { .version = CKPT_VERSION,
				 .header_bytes = sizeof(h) };
	struct buf b = { 0 };
	int ret;

	ret = build_payload(t, &b);
	if (ret) {
		free(b.p);
		return ht_trainer_seterr(t, ret, "checkpoint %s: %s", path,
					 t->be->err[0] ? t->be->err :
							 strerror(-ret));
	}
	memcpy(h.magic, CKPT_MAGIC, sizeof(h.magic));
	h.payload_bytes = b.len;
	h.crc = crc_of(b.p, b.len);
	ret = ht_trainer_write_atomic(path, &h, sizeof(h), b.p, b.len);
	free(b.p);
	if (ret == -ENAMETOOLONG)
		return ht_trainer_seterr(t, ret, "checkpoint path too long: %s",
					 path);
	if (ret)
		return ht_trainer_seterr(t, ret,
					 "cannot write checkpoint %s: %s", path,
					 strerror(-ret));
	return 0;
}

static int read_file(const char *path, struct buf *b)
{
	struct stat st;
	size_t got = 0;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)1 << 34) {
		ret = -EINVAL;
		goto out;
	}
	b->len = (size_t)st.st_size;
	b->p = malloc(b->len ? b->len : 1);
	if (!b->p) {
		ret = -ENOMEM;
		goto out;
	}
	while (got < b->len) {
		ssize_t r = read(fd, b->p + got, b->len - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = r < 0 ? -errno : -EIO;
			goto out;
		}
		got += (size_t)r;
	}
out:
	close(fd);
	return ret;
}

/*
 * The header and the checksum; @b's cursor ends at the payload. The
 * header is copied out: @b may be any buffer (ht_ckpt_parse()).
 */
static int check_header(struct ht_trainer *t, const char *path, struct buf *b)
{
	const void *raw = get(b, sizeof(struct ckpt_header));
	struct ckpt_header hdr, *h = &hdr;
	uint32_t crc;

	if (raw)
		memcpy(&hdr, raw, sizeof(hdr));
	if (!raw || memcmp(h->magic, CKPT_MAGIC, sizeof(h->magic)))
		return ht_trainer_seterr(
			t, -EINVAL, "%s is not a checkpoint (bad magic)", path);
	if (h->version != CKPT_VERSION || h->header_bytes != sizeof(*h))
		return ht_trainer_seterr(
			t, -EINVAL,
			"checkpoint %s has version %u, this build reads version %u",
			path, h->version, CKPT_VERSION);
	if (h->payload_bytes != b->len - sizeof(*h))
		return ht_trainer_seterr(
			t, -EINVAL,
			"checkpoint %s is truncated or has trailing bytes (%zu payload bytes, header says %llu)",
			path, b->len - sizeof(*h),
			(unsigned long long)h->payload_bytes);
	crc = crc_of(b->p + b->pos, b->len - b->pos);
	if (crc != h->crc)
		return ht_trainer_seterr(
			t, -EINVAL,
			"checkpoint %s is corrupt (checksum %08x, expected %08x)",
			path, crc, h->crc);
	t->resumed_crc = crc;
	return 0;
}

/* The name --model gives the model numbered @model in a checkpoint */
static const char *model_name(uint64_t model)
{
	switch (model) {
	case HT_TRAIN_MODEL_MLP:
		return "mlp";
	case HT_TRAIN_MODEL_MIXER:
		return "mixer";
	case HT_TRAIN_MODEL_GPT:
		return "gpt";
	default:
		return "unknown";
	}
}

/* The file's identity against this run's */
static int check_meta(struct ht_trainer *t, const char *path, struct buf *b)
{
	struct buf mine = { 0 };
	unsigned int i, n;
	int ret;

	ret = put_meta(t, &mine);
	if (ret)
		return ret;
	n = (unsigned int)(mine.len / 8);
	for (i = 0; i < n; i++) {
		uint64_t want = get_u64(&mine), got = get_u64(b);

		if (b->short_read) {
			ret = ht_trainer_seterr(
				t, -EINVAL, "checkpoint %s ends early", path);
			break;
		}
		if (want == got)
			continue;
		if (i == 0) /* the model: by its name */
			ret = ht_trainer_seterr(
				t, -EINVAL,
				"checkpoint %s does not match this run: it is of the %s model, this run trains the %s",
				path, model_name(got), model_name(want));
		else if (i < meta_named(t))
			ret = ht_trainer_seterr(
				t, -EINVAL,
				"checkpoint %s does not match this run: %s %llu in the file, %llu now",
				path, meta_name[i], (unsigned long long)got,
				(unsigned long long)want);
		else
			ret = ht_trainer_seterr(
				t, -EINVAL,
				"checkpoint %s does not match this run: the model's parameters or optimizers differ",
				path);
		break;
	}
	free(mine.p);
	return ret;
}

static int restore(struct ht_trainer *t, const char *path, struct buf *b)
{
	struct ht_loader_state ls;
	struct ht_tensor *x;
	uint64_t step, epoch, batch, lepoch, lstep;
	uint64_t osteps[HT_MODULE_MAX_OPTIMS], rng[4];
	const void *data;
	unsigned int i;
	int ret;

	step = get_u64(b);
	epoch = get_u64(b);
	batch = get_u64(b);
	lepoch = get_u64(b);
	lstep = get_u64(b);
	for (i = 0; i < t->m->noptims; i++)
		osteps[i] = get_u64(b);
	for (i = 0; i < 4; i++)
		rng[i] = get_u64(b);
	for (i = 0; !b->short_read && (x = state_tensor(t, i)); i++) {
		data = get(b, x->numel * 4);
		if (data)
			ret = ht_tensor_upload(x, data);
		else
			ret = 0;
		if (ret)
			return ht_trainer_seterr(t, ret, "checkpoint %s: %s",
						 path, t->be->err);
	}
	if (b->short_read || b->pos != b->len || lepoch != epoch ||
	    lstep != batch)
		return ht_trainer_seterr(t, -EINVAL,
					 "checkpoint %s: inconsistent contents",
					 path);
	ret = ht_backend_sync(t->be);
	if (ret)
		return ht_trainer_seterr(t, ret, "checkpoint %s: %s", path,
					 t->be->err);
	ht_loader_get_state(t->loader, &ls);
	ls.epoch = epoch;
	ls.step = batch;
	ret = ht_loader_set_state(t->loader, &ls, t->err, sizeof(t->err));
	if (ret)
		return ret;
	for (i = 0; i < t->m->noptims; i++)
		ht_optim_set_steps(t->m->optims[i], (uint32_t)osteps[i]);
	memcpy(t->m->rng.s, rng, sizeof(rng));
	t->step = step;
	t->epoch = epoch;
	t->batch = batch;
	t->resumed_step = step;
	return 0;
}

/**
 * ht_ckpt_parse() - check a checkpoint's bytes against the run and restore it
 * @t: trainer
 * @path: the file's name, for the messages
 * @data: the whole file (only read)
 * @len: its bytes
 *
 * The header (magic, version, sizes, CRC), the run's identity, then the
 * state. Return: 0, -EINVAL with the first mismatch in @t's error, or
 * the backend's error.
 */
int ht_ckpt_parse(struct ht_trainer *t, const char *path, const void *data,
		  size_t len)
{
	struct buf b = { .p = (uint8_t *)data, .len = len };
	int ret;

	ret = check_header(t, path, &b);
	if (!ret)
		ret = check_meta(t, path, &b);
	if (!ret)
		ret = restore(t, path, &b);
	return ret;
}

int ht_ckpt_load(struct ht_trainer *t, const char *path)
{
	struct buf b = { 0 };
	int ret;

	ret = read_file(path, &b);
	if (ret)
		ht_trainer_seterr(t, ret, "cannot read checkpoint %s: %s", path,
				  ret == -EINVAL ? "not a regular file" :
						   strerror(-ret));
	else
		ret = ht_ckpt_parse(t, path, b.p, b.len);
	free(b.p);
	return ret;
}

/* The parameter sizes a configuration builds (model_gpt.c's order) */
static unsigned int gpt_param_sizes(const struct ht_gpt_config *c, uint64_t *sz,
				    unsigned int max)
{
	uint64_t C = c->dim, V = c->vocab, T = c->context;
	const uint64_t blk[12] = { C, C, 3 * C * C, 3 * C, C * C,     C,
				   C, C, 4 * C * C, 4 * C, 4 * C * C, C };
	unsigned int n = 0, l, i;

	if (2 + 12 * c->layers + 2 + !c->tied > max)
		return 0;
	sz[n++] = V * C;
	sz[n++] = T * C;
	for (l = 0; l < c->layers; l++)
		for (i = 0; i < 12; i++)
			sz[n++] = blk[i];
	sz[n++] = C;
	sz[n++] = C;
	if (!c->tied)
		sz[n++] = V * C;
	return n;
}

static int gpt_meta(struct buf *b, const char *path, struct ht_gpt_weights *w,
		    char *err, size_t errlen)
{
	struct ht_gpt_config *c = &w->cfg;
	uint64_t model, f, v, sz[HT_MODULE_MAX_PARAMS], np, no, ns = 0, i;
	unsigned int n;
	const char *why;

	model = get_u64(b);
	if (!b->short_read && model != HT_TRAIN_MODEL_GPT) {
		ht_seterr(err, errlen,
			  "checkpoint %s is of the %s model, not a GPT", path,
			  model_name(model));
		return -EINVAL;
	}
	f = get_u64(b);
	v = get_u64(b);
	for (i = 0; i < 5; i++) /* samples, world, batch, accumulate, seed */
		get_u64(b);
	memset(c, 0, sizeof(*c));
	c->layers = (uint32_t)get_u64(b);
	c->heads = (uint32_t)get_u64(b);
	c->dim = (uint32_t)get_u64(b);
	c->context = (uint32_t)get_u64(b);
	c->tied = get_u64(b) != 0;
	c->vocab = (uint32_t)v;
	c->lr = 1e-3f; /* unused: a valid value for ht_gpt_check() */
	if (b->short_read)
		goto short_file;
	if (f != c->context || v > HT_TOK_VOCAB || ht_gpt_check(c, &why)) {
		ht_seterr(err, errlen,
			  "checkpoint %s: an inconsistent GPT configuration",
			  path);
		return -EINVAL;
	}
	n = gpt_param_sizes(c, sz, HT_MODULE_MAX_PARAMS);
	np = get_u64(b);
	if (b->short_read)
		goto short_file;
	if (np != n)
		goto bad_sizes;
	for (i = 0; i < np; i++) {
		if (get_u64(b) != sz[i])
			goto bad_sizes;
		w->numel += sz[i];
	}
	no = get_u64(b);
	if (no > HT_MODULE_MAX_OPTIMS)
		goto bad_sizes;
	for (i = 0; i < no; i++)
		ns += get_u64(b);
	w->step = get_u64(b);
	/* epoch, batch, the loader's two, each optimizer's steps, the RNG */
	for (i = 0; i < 4 + no + 4; i++)
		get_u64(b);
	/* then the parameters and @ns optimizer state tensors (AdamW: 2 each) */
	if (b->short_read || b->len - b->pos < w->numel * 4 ||
	    (b->len - b->pos) % 4 || (ns && b->len - b->pos == w->numel * 4))
		goto short_file;
	return 0;
short_file:
	ht_seterr(err, errlen,
		  "checkpoint %s: its state is not the size its header says",
		  path);
	return -EINVAL;
bad_sizes:
	ht_seterr(
		err, errlen,
		"checkpoint %s: the parameters are not the GPT's its configuration builds",
		path);
	return -EINVAL;
}

int ht_gpt_load_checkpoint(const char *path, struct ht_gpt_weights *w,
			   char *err, size_t errlen)
{
	struct ht_trainer t; /* only for check_header()'s messages */
	struct buf b = { 0 };
	const void *data;
	int ret;

	memset(w, 0, sizeof(*w));
	ret = read_file(path, &b);
	if (ret) {
		ht_seterr(err, errlen, "cannot read checkpoint %s: %s", path,
			  ret == -EINVAL ? "not a regular file" :
					   strerror(-ret));
		goto out;
	}
	memset(&t, 0, sizeof(t));
	ret = check_header(&t, path, &b);
	if (ret) {
		ht_seterr(err, errlen, "%s", t.err);
		goto out;
	}
	ret = gpt_meta(&b, path, w, err, errlen);
	if (ret)
		goto out;
	/* the parameters come first in the state, then optimizer state */
	data = get(&b, w->numel * 4);
	if (!data) {
		ht_seterr(err, errlen, "checkpoint %s ends early", path);
		ret = -EINVAL;
		goto out;
	}
	w->params = malloc(w->numel * 4);
	if (!w->params) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(w->params, data, w->numel * 4);
out:
	free(b.p);
	if (ret)
		ht_gpt_weights_free(w);
	return ret;
}

void ht_gpt_weights_free(struct ht_gpt_weights *w)
{
	free(w->params);
	w->params = NULL;
	w->numel = 0;
}

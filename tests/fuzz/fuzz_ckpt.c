// SPDX-License-Identifier: MIT
/*
 * fuzz_ckpt.c - libFuzzer target of the training checkpoint loader
 * (trainer/lib/ckpt_file.c: magic, version, sizes, CRC, the run's
 * identity, then the state).
 *
 * Two trainers are made once (cpu backend, a small synthetic data set,
 * an MLP with SGD and one with AdamW), each trained a few steps and
 * saved: those files are the seeds. Input: one byte of options, then the
 * file. Bit 0 picks the trainer; bit 1 writes the payload's true CRC
 * into the header and bit 2 its true size, so the fuzzer also gets past
 * the checksum to the sections behind it. The file is handed to
 * ht_ckpt_parse(), what ht_ckpt_load() runs on the bytes it read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "ht_trainer.h"
#include "trainer_internal.h"

#include "fuzz_seed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define HDR_BYTES   32 /* struct ckpt_header */
#define OFF_PAYLOAD 16 /* its payload_bytes */
#define OFF_CRC	    24 /* its crc */
#define MAX_CKPT    (1 << 20)
#define FIX_CRC	    0x2
#define FIX_SIZE    0x4

static struct ht_trainer *trainers[2];

static struct ht_trainer *make_trainer(int optim, const char *dir,
				       const char *seed_name)
{
	struct ht_trainer_opts o;
	struct ht_trainer_result res;
	struct ht_trainer *t;
	char path[64], err[512];
	uint8_t *buf;
	FILE *f;
	long n;

	ht_trainer_opts_init(&o);
	o.data = HT_TRAIN_DATA_SYNTH;
	o.synth.n = 96;
	o.synth.f = 6;
	o.synth.classes = 3;
	o.mlp.hidden[0] = 8;
	o.optim.kind = optim;
	o.batch_size = 16;
	o.max_steps = 3;
	o.progress = HT_TRAIN_PROGRESS_OFF;
	o.out = fopen("/dev/null", "w");
	if (!o.out || ht_trainer_create(&o, &t, err, sizeof(err)) ||
	    ht_trainer_fit(t, &res)) {
		fprintf(stderr, "fuzz_ckpt: cannot make a trainer: %s\n", err);
		abort();
	}
	snprintf(path, sizeof(path), "/dev/shm/fuzz_ckpt-%d.htck", getpid());
	if (ht_trainer_save_checkpoint(t, path))
		abort();
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 ||
	    n > MAX_CKPT || fseek(f, 0, SEEK_SET))
		abort();
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf + 1, 1, (size_t)n, f) != (size_t)n)
		abort();
	fclose(f);
	unlink(path);
	/* the trainer takes its own checkpoint back */
	if (ht_ckpt_parse(t, path, buf + 1, (size_t)n)) {
		fprintf(stderr, "fuzz_ckpt: own checkpoint refused: %s\n",
			t->err);
		abort();
	}
	buf[0] = (uint8_t)(optim == HT_TRAIN_OPTIM_ADAMW);
	fuzz_seed_add(dir, seed_name, buf, (size_t)n + 1);
	buf[0] |= FIX_CRC | FIX_SIZE;
	fuzz_seed_add(dir, seed_name[0] == 's' ? "sgd-fix" : "adamw-fix", buf,
		      (size_t)n + 1);
	free(buf);
	return t;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = fuzz_corpus_dir(*argc, *argv);

	trainers[0] = make_trainer(HT_TRAIN_OPTIM_SGD, dir, "sgd");
	trainers[1] = make_trainer(HT_TRAIN_OPTIM_ADAMW, dir, "adamw");
	return 0;
}

static void put_le(uint8_t *p, uint64_t v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ht_trainer *t;
	uint8_t *file;
	size_t len;
	uint8_t how;
	int ret;

	if (size < 1 || size - 1 > MAX_CKPT)
		return 0;
	how = data[0];
	t = trainers[how & 1];
	len = size - 1;
	/* an exact-size heap copy, so any over-read is caught */
	file = malloc(len ? len : 1);
	if (!file)
		return 0;
	memcpy(file, data + 1, len);
	if (len >= HDR_BYTES && (how & FIX_SIZE))
		put_le(file + OFF_PAYLOAD, len - HDR_BYTES, 8);
	if (len >= HDR_BYTES && (how & FIX_CRC))
		put_le(file + OFF_CRC,
		       crc32(crc32(0L, Z_NULL, 0), file + HDR_BYTES,
			     (uInt)(len - HDR_BYTES)),
		       4);
	ret = ht_ckpt_parse(t, "fuzz.htck", file, len);
	if (ret > 0 || (ret && !t->err[0]))
		abort();
	t->err[0] = '\0';
	free(file);
	return 0;
}

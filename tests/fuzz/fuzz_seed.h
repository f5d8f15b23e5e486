/* SPDX-License-Identifier: MIT */
/*
 * fuzz_seed.h - seeds of a fuzz target's corpus, made by the target
 * itself in LLVMFuzzerInitialize() from the real writers of its format
 * (so they follow the format when it changes).
 *
 * A seed is written as "seed-NAME" into the first directory named on the
 * command line (libFuzzer's output corpus), when it is not there yet; a
 * run without a corpus directory gets none.
 */
#ifndef HPU_FUZZ_SEED_H
#define HPU_FUZZ_SEED_H

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The corpus directory of this run, or NULL */
static inline const char *fuzz_corpus_dir(int argc, char **argv)
{
	struct stat st;
	int i;

	for (i = 1; i < argc; i++)
		if (argv[i][0] != '-' && !stat(argv[i], &st) &&
		    S_ISDIR(st.st_mode))
			return argv[i];
	return NULL;
}

/* Write @len bytes at @data as seed @name of the corpus in @dir */
static inline void fuzz_seed_add(const char *dir, const char *name,
				 const void *data, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	if (!dir || snprintf(path, sizeof(path), "%s/seed-%s", dir, name) >=
			    (int)sizeof(path))
		return;
	if (!access(path, F_OK))
		return;
	f = fopen(path, "wbx");
	if (!f)
		return;
	if (fwrite(data, 1, len, f) != len) {
		fclose(f);
		unlink(path);
		return;
	}
	fclose(f);
}

#endif /* HPU_FUZZ_SEED_H */

// SPDX-License-Identifier: MIT
/*
 * algo.c - the list of the collective families' tables of algorithms
 * (struct ccl_family, one in each family's file), HPUCCL_ALGO's names
 * and the forced choice (docs/collectives.md "Algorithms"). A new
 * algorithm is a row of its family's table, in the family's file; this
 * file changes only for a new family.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"

/* Every family; the order numbers the names (ccl_algo_parse()) */
static const struct ccl_family *const ccl_families[] = {
	&ccl_allreduce_family, &ccl_reduce_scatter_family,
	&ccl_allgather_family, &ccl_broadcast_family,
	&ccl_reduce_family,    &ccl_alltoall_family,
};

#define NFAMILIES ((int)(sizeof(ccl_families) / sizeof(ccl_families[0])))

const struct ccl_family *const *ccl_algo_families(int *n)
{
	*n = NFAMILIES;
	return ccl_families;
}

/* Whether @name is a row of a family before @f, or of @f before row @i */
static bool named_before(const char *name, int f, int i)
{
	int g, j;

	for (g = 0; g <= f; g++)
		for (j = 0; j < (g < f ? ccl_families[g]->nalgos : i); j++)
			if (!strcmp(ccl_families[g]->algos[j].name, name))
				return true;
	return false;
}

/*
 * Walk the distinct names in the families' order: number 1 is the first
 * one. Return: the number of @name (when @name is set), else the name of
 * number @num; 0 / NULL when there is none.
 */
static int walk_names(const char *name, int num, const char **found)
{
	int f, i, k = 0;

	for (f = 0; f < NFAMILIES; f++) {
		for (i = 0; i < ccl_families[f]->nalgos; i++) {
			const char *s = ccl_families[f]->algos[i].name;

			if (named_before(s, f, i))
				continue;
			k++;
			if (name ? !strcmp(name, s) : k == num) {
				*found = s;
				return k;
			}
		}
	}
	*found = NULL;
	return 0;
}

int ccl_algo_parse(const char *s)
{
	const char *found;
	int k;

	if (!s || !*s || !strcmp(s, "auto"))
		return 0;
	k = walk_names(s, 0, &found);
	return k ? k : -EINVAL;
}

const char *ccl_algo_name(int algo)
{
	const char *found;

	if (algo == 0)
		return "auto";
	if (algo < 0)
		return "?";
	walk_names(NULL, algo, &found);
	return found ? found : "?";
}

int ccl_algo_pick(const struct hpuccl_comm *c, const struct ccl_family *f,
		  uint64_t bytes)
{
	const char *forced;
	int i;

	if (c->algo && c->nranks >= 2) {
		forced = ccl_algo_name(c->algo);
		/* two ranks: only the one-level schedules are worth a name */
		if (c->nranks == 2 && strcmp(forced, "direct") &&
		    strcmp(forced, "oneshot"))
			return f->choose(c, bytes);
		for (i = 0; i < f->nalgos; i++)
			if (!strcmp(f->algos[i].name, forced))
				return i;
		if (c->nranks >= 3 && f->other >= 0)
			return f->other;
	}
	return f->choose(c, bytes);
}

/* One family's table: 0, or -EINVAL with the fault on stderr */
static int check_family(const struct ccl_family *f)
{
	const char *coll = f->coll ? f->coll : "(unnamed)";
	int i, j;

	if (!f->coll || !*f->coll || !f->algos || f->nalgos < 1 || !f->choose ||
	    f->other < -1 || f->other >= f->nalgos) {
		fprintf(stderr,
			"hpuccl: algorithms of %s: no name, rows, "
			"choice or a bad fallback\n",
			coll);
		return -EINVAL;
	}
	for (i = 0; i < f->nalgos; i++) {
		const struct ccl_algo *a = &f->algos[i];

		if (!a->name || !*a->name || !strcmp(a->name, "auto") ||
		    !a->plan || !a->gen) {
			fprintf(stderr,
				"hpuccl: algorithms of %s: row %d has "
				"no name (or \"auto\"), plan or "
				"generator\n",
				coll, i);
			return -EINVAL;
		}
		for (j = 0; j < i; j++) {
			if (!strcmp(f->algos[j].name, a->name)) {
				fprintf(stderr,
					"hpuccl: algorithms of %s: "
					"\"%s\" twice\n",
					coll, a->name);
				return -EINVAL;
			}
		}
	}
	return 0;
}

int ccl_algo_check(const struct ccl_family *const *fams, int n)
{
	int f, g, ret;

	for (f = 0; f < n; f++) {
		if (!fams[f]) {
			fprintf(stderr, "hpuccl: family %d has no table\n", f);
			return -EINVAL;
		}
		ret = check_family(fams[f]);
		if (ret)
			return ret;
		for (g = 0; g < f; g++) {
			if (!strcmp(fams[g]->coll, fams[f]->coll)) {
				fprintf(stderr, "hpuccl: two tables of %s\n",
					fams[f]->coll);
				return -EINVAL;
			}
		}
	}
	return 0;
}

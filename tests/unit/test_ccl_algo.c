// SPDX-License-Identifier: MIT
/*
 * test_ccl_algo.c - the collective families' tables of algorithms
 * (libhpuccl/algo.c, one table in each family's file): they pass the
 * check, every name parses and numbers back to itself, unknown names are
 * -EINVAL (also at communicator init), tables with a fault are caught by
 * the check, and the forced and automatic choices of the selection table
 * of docs/collectives.md.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../libhpuccl/coll.h"
#include "hpuccl.h"

/* A communicator with only what the choices read */
static struct hpuccl_comm topo(int nranks, int nservers, int nlocal,
			       const char *forced)
{
	struct hpuccl_comm c;

	memset(&c, 0, sizeof(c));
	c.nranks = nranks;
	c.nservers = nservers;
	c.nlocal = nlocal;
	c.algo = ccl_algo_parse(forced);
	assert_true(c.algo >= 0);
	return c;
}

/* Name of the algorithm of @f a call of @bytes runs on @c */
static const char *picked(const struct hpuccl_comm *c,
			  const struct ccl_family *f, uint64_t bytes)
{
	int i = ccl_algo_pick(c, f, bytes);

	assert_true(i >= 0 && i < f->nalgos);
	return f->algos[i].name;
}

static void test_tables_pass(void **state)
{
	const struct ccl_family *const *fams;
	int n, f, i, j;

	(void)state;
	fams = ccl_algo_families(&n);
	assert_true(n >= 6);
	assert_int_equal(ccl_algo_check(fams, n), 0);
	/* the same facts without the checker: names set, unique per family */
	for (f = 0; f < n; f++) {
		assert_non_null(fams[f]->coll);
		assert_true(fams[f]->nalgos >= 1);
		for (i = 0; i < fams[f]->nalgos; i++) {
			const char *s = fams[f]->algos[i].name;

			assert_non_null(s);
			assert_true(*s);
			assert_string_not_equal(s, "auto");
			for (j = 0; j < i; j++)
				assert_string_not_equal(fams[f]->algos[j].name,
							s);
		}
	}
}

static void test_every_name_parses(void **state)
{
	const struct ccl_family *const *fams;
	int n, f, i, k;

	(void)state;
	fams = ccl_algo_families(&n);
	for (f = 0; f < n; f++) {
		for (i = 0; i < fams[f]->nalgos; i++) {
			const char *s = fams[f]->algos[i].name;

			k = ccl_algo_parse(s);
			assert_true(k > 0);
			assert_string_equal(ccl_algo_name(k), s);
		}
	}
	/* the names of docs/collectives.md, distinct numbers */
	assert_true(ccl_algo_parse("direct") > 0);
	assert_true(ccl_algo_parse("ring") > 0);
	assert_true(ccl_algo_parse("hier") > 0);
	assert_int_not_equal(ccl_algo_parse("direct"), ccl_algo_parse("ring"));
	assert_int_not_equal(ccl_algo_parse("ring"), ccl_algo_parse("hier"));
	assert_int_not_equal(ccl_algo_parse("direct"), ccl_algo_parse("hier"));
	assert_int_equal(ccl_algo_parse(NULL), 0);
	assert_int_equal(ccl_algo_parse(""), 0);
	assert_int_equal(ccl_algo_parse("auto"), 0);
	assert_string_equal(ccl_algo_name(0), "auto");
	assert_string_equal(ccl_algo_name(-1), "?");
	assert_string_equal(ccl_algo_name(1000), "?");
}

static void test_unknown_names(void **state)
{
	(void)state;
	assert_int_equal(ccl_algo_parse("no-such-algorithm"), -EINVAL);
	assert_int_equal(ccl_algo_parse("Direct"), -EINVAL);
	assert_int_equal(ccl_algo_parse("ring "), -EINVAL);
	assert_int_equal(ccl_algo_parse("chain"), -EINVAL);
	assert_int_equal(ccl_algo_parse("?"), -EINVAL);
}

/* HPUCCL_ALGO naming no algorithm: init is -EINVAL and sets nothing */
static void test_unknown_name_at_init(void **state)
{
	struct hpuccl_unique_id id;
	struct hpuccl_comm *c = (struct hpuccl_comm *)&id;

	(void)state;
	unsetenv("HCCL_COMM_ID");
	unsetenv("MASTER_ADDR");
	unsetenv("MASTER_PORT");
	assert_int_equal(hpuccl_get_unique_id(&id), 0);
	setenv("HPUCCL_ALGO", "no-such-algorithm", 1);
	assert_int_equal(hpuccl_comm_init_rank(&c, 1, &id, 0), -EINVAL);
	assert_ptr_equal(c, (struct hpuccl_comm *)&id);
	unsetenv("HPUCCL_ALGO");
}

static uint64_t fake_plan(struct hpuccl_comm *c, void *x)
{
	(void)c;
	(void)x;
	return 1;
}

static int fake_gen(struct hpuccl_comm *c, void *arg, uint64_t j,
		    struct ccl_round *r)
{
	(void)c;
	(void)arg;
	(void)j;
	(void)r;
	return 0;
}

static int fake_choose(const struct hpuccl_comm *c, uint64_t bytes)
{
	(void)c;
	return bytes > 100 ? 1 : 0;
}

/* Checks one crafted family (alone, then after a good one) */
static int check_one(const struct ccl_algo *algos, int nalgos, int other)
{
	static const struct ccl_algo good_algos[] = {
		{ .name = "direct", .plan = fake_plan, .gen = fake_gen },
	};
	static const struct ccl_family good = { .coll = "good",
						.algos = good_algos,
						.nalgos = 1,
						.other = -1,
						.choose = fake_choose };
	struct ccl_family f = { .coll = "crafted",
				.algos = algos,
				.nalgos = nalgos,
				.other = other,
				.choose = fake_choose };
	const struct ccl_family *one[] = { &f };
	const struct ccl_family *two[] = { &good, &f };
	int a = ccl_algo_check(one, 1), b = ccl_algo_check(two, 2);

	assert_int_equal(a, b);
	return a;
}

static void test_bad_tables_caught(void **state)
{
	const struct ccl_algo ok[] = {
		{ .name = "direct", .plan = fake_plan, .gen = fake_gen },
		{ .name = "tree", .plan = fake_plan, .gen = fake_gen },
	};
	const struct ccl_algo twice[] = {
		{ .name = "tree", .plan = fake_plan, .gen = fake_gen },
		{ .name = "direct", .plan = fake_plan, .gen = fake_gen },
		{ .name = "tree", .plan = fake_plan, .gen = fake_gen },
	};
	const struct ccl_algo empty[] = {
		{ .name = "", .plan = fake_plan, .gen = fake_gen },
	};
	const struct ccl_algo unnamed[] = {
		{ .name = NULL, .plan = fake_plan, .gen = fake_gen },
	};
	const struct ccl_algo autoname[] = {
		{ .name = "auto", .plan = fake_plan, .gen = fake_gen },
	};
	const struct ccl_algo noplan[] = {
		{ .name = "tree", .plan = NULL, .gen = fake_gen },
	};
	const struct ccl_algo nogen[] = {
		{ .name = "tree", .plan = fake_plan, .gen = NULL },
	};
	struct ccl_family nochoice = {
		.coll = "nochoice", .algos = ok, .nalgos = 2, .other = -1
	};
	struct ccl_family unnamed_fam = { .coll = "",
					  .algos = ok,
					  .nalgos = 2,
					  .other = -1,
					  .choose = fake_choose };
	struct ccl_family same = { .coll = "same",
				   .algos = ok,
				   .nalgos = 2,
				   .other = -1,
				   .choose = fake_choose };
	const struct ccl_family *fams[2];

	(void)state;
	/* the crafted table is good before each fault goes in */
	assert_int_equal(check_one(ok, 2, -1), 0);
	assert_int_equal(check_one(ok, 2, 1), 0);
	assert_int_equal(check_one(twice, 3, -1), -EINVAL);
	assert_int_equal(check_one(twice, 2, -1), 0);
	assert_int_equal(check_one(empty, 1, -1), -EINVAL);
	assert_int_equal(check_one(unnamed, 1, -1), -EINVAL);
	assert_int_equal(check_one(autoname, 1, -1), -EINVAL);
	assert_int_equal(check_one(noplan, 1, -1), -EINVAL);
	assert_int_equal(check_one(nogen, 1, -1), -EINVAL);
	assert_int_equal(check_one(ok, 0, -1), -EINVAL);
	assert_int_equal(check_one(NULL, 2, -1), -EINVAL);
	assert_int_equal(check_one(ok, 2, 2), -EINVAL);
	assert_int_equal(check_one(ok, 2, -2), -EINVAL);
	fams[0] = &nochoice;
	assert_int_equal(ccl_algo_check(fams, 1), -EINVAL);
	fams[0] = &unnamed_fam;
	assert_int_equal(ccl_algo_check(fams, 1), -EINVAL);
	fams[0] = &same;
	fams[1] = &same;
	assert_int_equal(ccl_algo_check(fams, 1), 0);
	assert_int_equal(ccl_algo_check(fams, 2), -EINVAL);
	fams[1] = NULL;
	assert_int_equal(ccl_algo_check(fams, 2), -EINVAL);
}

/* The automatic choices: docs/collectives.md "Selection" */
static void test_automatic_choice(void **state)
{
	const uint64_t small = 256 << 10, big = small + 1;
	struct hpuccl_comm one = topo(8, 1, 8, NULL);
	struct hpuccl_comm two = topo(2, 2, 1, NULL);
	struct hpuccl_comm even = topo(8, 2, 4, NULL);
	struct hpuccl_comm uneven = topo(5, 2, 0, NULL);

	(void)state;
	assert_string_equal(picked(&one, &ccl_allreduce_family, big), "direct");
	assert_string_equal(picked(&one, &ccl_allgather_family, big), "direct");
	assert_string_equal(picked(&one, &ccl_broadcast_family, big), "direct");
	assert_string_equal(picked(&two, &ccl_allreduce_family, big), "direct");
	/* two ranks, up to 256 KiB: the one-round allreduce */
	assert_string_equal(picked(&two, &ccl_allreduce_family, small),
			    "oneshot");
	assert_string_equal(picked(&two, &ccl_allreduce_family, 4), "oneshot");
	assert_string_equal(picked(&two, &ccl_allgather_family, small),
			    "direct");
	assert_string_equal(picked(&one, &ccl_allreduce_family, small),
			    "direct");
	assert_string_equal(picked(&two, &ccl_allgather_family, big), "direct");
	assert_string_equal(picked(&even, &ccl_allreduce_family, small),
			    "direct");
	assert_string_equal(picked(&even, &ccl_allreduce_family, big), "hier");
	assert_string_equal(picked(&uneven, &ccl_allreduce_family, big),
			    "ring");
	assert_string_equal(picked(&even, &ccl_allgather_family, small),
			    "direct");
	assert_string_equal(picked(&even, &ccl_allgather_family, big), "ring");
	assert_string_equal(picked(&even, &ccl_broadcast_family, big), "ring");
	assert_string_equal(picked(&even, &ccl_reduce_scatter_family, big),
			    "direct");
	assert_string_equal(picked(&even, &ccl_reduce_family, big), "direct");
	assert_string_equal(picked(&even, &ccl_alltoall_family, big), "direct");
}

/*
 * HPUCCL_ALGO with 3 ranks or more: the family's algorithm of that name;
 * a name the family lacks: its @other (allgather, broadcast: the ring),
 * else its automatic choice. With 2 ranks only "direct" and "oneshot"
 * are honored, where the family has them; else (and with 1 rank) the
 * automatic choice.
 */
static void test_forced_choice(void **state)
{
	struct hpuccl_comm hier = topo(8, 1, 8, "hier");
	struct hpuccl_comm ring = topo(3, 1, 3, "ring");
	struct hpuccl_comm direct = topo(8, 2, 4, "direct");
	struct hpuccl_comm pair = topo(2, 1, 2, "ring");

	(void)state;
	assert_string_equal(picked(&hier, &ccl_allreduce_family, 1), "hier");
	assert_string_equal(picked(&hier, &ccl_allgather_family, 1), "ring");
	assert_string_equal(picked(&hier, &ccl_broadcast_family, 1), "ring");
	assert_string_equal(picked(&hier, &ccl_reduce_scatter_family, 1),
			    "direct");
	assert_string_equal(picked(&hier, &ccl_alltoall_family, 1), "direct");
	assert_string_equal(picked(&ring, &ccl_allreduce_family, 1), "ring");
	assert_string_equal(picked(&ring, &ccl_allgather_family, 1), "ring");
	assert_string_equal(picked(&ring, &ccl_reduce_family, 1), "direct");
	assert_string_equal(picked(&direct, &ccl_allreduce_family, 1 << 30),
			    "direct");
	assert_string_equal(picked(&direct, &ccl_broadcast_family, 1 << 30),
			    "direct");
	struct hpuccl_comm pair_direct = topo(2, 1, 2, "direct");
	struct hpuccl_comm pair_one = topo(2, 1, 2, "oneshot");
	struct hpuccl_comm eight_one = topo(8, 1, 8, "oneshot");
	struct hpuccl_comm single = topo(1, 1, 1, "direct");

	assert_string_equal(picked(&pair, &ccl_allreduce_family, 1), "oneshot");
	assert_string_equal(picked(&pair, &ccl_allreduce_family, 1 << 30),
			    "direct");
	assert_string_equal(picked(&pair, &ccl_allgather_family, 1), "direct");
	assert_string_equal(picked(&pair_direct, &ccl_allreduce_family, 1),
			    "direct");
	assert_string_equal(picked(&pair_one, &ccl_allreduce_family, 1 << 30),
			    "oneshot");
	/* a name the family lacks: with 2 ranks its automatic choice */
	assert_string_equal(picked(&pair_one, &ccl_allgather_family, 1),
			    "direct");
	assert_string_equal(picked(&pair_one, &ccl_broadcast_family, 1),
			    "direct");
	assert_string_equal(picked(&eight_one, &ccl_allreduce_family, 1),
			    "oneshot");
	assert_string_equal(picked(&eight_one, &ccl_allgather_family, 1),
			    "ring");
	assert_string_equal(picked(&single, &ccl_allreduce_family, 1),
			    "direct");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_pass),
		cmocka_unit_test(test_every_name_parses),
		cmocka_unit_test(test_unknown_names),
		cmocka_unit_test(test_unknown_name_at_init),
		cmocka_unit_test(test_bad_tables_caught),
		cmocka_unit_test(test_automatic_choice),
		cmocka_unit_test(test_forced_choice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * test_hpudrv_symbols.c - libhpudrv.so and libhpuccl.so export exactly the
 * symbols of their version scripts, each at the version of the node that
 * lists it (the newest one as the default, older ones only as compat
 * versions that still resolve), and carry their sonames; each library's
 * version (file name, soname link, .pc, its version function) is its
 * map's newest node.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpuccl.h"
#include "hpudrv.h"

#define MAX_SYMS 1024

/**
 * struct lib - a shared library under test
 * @name: file name of its development link in $O/lib
 * @map: its version script, from the top of the source tree
 * @soname: the soname it must carry
 * @version_fn: its function returning its version
 * @pc: its pkg-config file in $O/lib/pkgconfig
 */
struct lib {
	const char *name;
	const char *map;
	const char *soname;
	const char *version_fn;
	const char *pc;
};

static const struct lib libs[] = {
	{ "libhpudrv.so", "libhpudrv/libhpudrv.map", "libhpudrv.so.1",
	  "hpu_library_version", "libhpudrv.pc" },
	{ "libhpuccl.so", "libhpuccl/libhpuccl.map", "libhpuccl.so.1",
	  "hpuccl_version", "libhpuccl.pc" },
};

struct symset {
	char *name[MAX_SYMS];
	int n;
};

/* Symbol -> version node of the stanza that lists it */
struct symver {
	char name[256];
	char node[64];
};

static struct symver map_versions[MAX_SYMS];
static int n_map_versions;

static const char *lib_path(const struct lib *l)
{
	static char path[4096];
	const char *o = getenv("O");

	snprintf(path, sizeof(path), "%s/lib/%s", o && *o ? o : "build",
		 l->name);
	return path;
}

/*
 * dlopen() @l. libhpuccl.so needs libhpudrv.so.1: the loader finds it
 * among the loaded objects by soname, so libhpudrv goes first (and stays).
 */
static void *lib_open(const struct lib *l)
{
	static void *drv;
	void *h;

	if (!drv) {
		drv = dlopen(lib_path(&libs[0]), RTLD_NOW | RTLD_GLOBAL);
		if (!drv)
			fail_msg("dlopen %s: %s", lib_path(&libs[0]),
				 dlerror());
	}
	h = dlopen(lib_path(l), RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fail_msg("dlopen %s: %s", lib_path(l), dlerror());
	return h;
}

static void symset_add(struct symset *s, const char *name)
{
	assert_true(s->n < MAX_SYMS);
	s->name[s->n] = strdup(name);
	assert_non_null(s->name[s->n]);
	s->n++;
}

static void symset_free(struct symset *s)
{
	while (s->n)
		free(s->name[--s->n]);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Names listed under every "global:" of the version script (every stanza
 * "NODE { global: ...; } PARENT;"), remembering each one's node.
 */
static void read_map(const struct lib *l, struct symset *s)
{
	char line[512], name[256], node[64] = "";
	int in_global = 0;
	FILE *f = fopen(l->map, "r");

	if (!f)
		fail_msg("cannot open %s (run from the source tree)", l->map);
	n_map_versions = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '{') &&
		    sscanf(line, " %63[A-Za-z0-9_.]", node) == 1)
			continue;
		if (strstr(line, "global:")) {
			in_global = 1;
			continue;
		}
		if (strstr(line, "local:") || strchr(line, '}')) {
			in_global = 0;
			continue;
		}
		if (in_global &&
		    sscanf(line, " %255[A-Za-z0-9_] ;", name) == 1) {
			symset_add(s, name);
			assert_true(n_map_versions < MAX_SYMS);
			strcpy(map_versions[n_map_versions].name, name);
			strcpy(map_versions[n_map_versions].node, node);
			n_map_versions++;
		}
	}
	fclose(f);
	qsort(s->name, (size_t)s->n, sizeof(s->name[0]), cmp_str);
}

/* Defined dynamic symbols except version nodes (type A). */
static void read_exports(const struct lib *l, struct symset *s)
{
	char cmd[4300], line[512], type[8], name[256];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s' 2>/dev/null",
		 lib_path(l));
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *at;

		if (sscanf(line, "%*s %7s %255s", type, name) != 2)
			continue;
		if (!strcmp(type, "A"))
			continue;
		at = strchr(name, '@');
		if (at)
			*at = '\0';
		symset_add(s, name);
	}
	assert_int_equal(pclose(p), 0);
	qsort(s->name, (size_t)s->n, sizeof(s->name[0]), cmp_str);
}

static void check_exports_match_map(const struct lib *l)
{
	struct symset map = { 0 }, exp = { 0 };
	int i, j, diff = 0;

	if (access(lib_path(l), R_OK))
		fail_msg("%s is not built", lib_path(l));
	read_map(l, &map);
	read_exports(l, &exp);
	assert_true(map.n > 0);
	for (i = 0, j = 0; i < map.n || j < exp.n;) {
		int c = i == map.n ? 1 :
			j == exp.n ? -1 :
				     strcmp(map.name[i], exp.name[j]);

		if (c < 0) {
			print_error("in map, not exported: %s\n",
				    map.name[i++]);
			diff++;
		} else if (c > 0) {
			print_error("exported, not in map: %s\n",
				    exp.name[j++]);
			diff++;
		} else {
			i++;
			j++;
		}
	}
	assert_int_equal(diff, 0);
	assert_int_equal(map.n, exp.n);
	symset_free(&map);
	symset_free(&exp);
}

static void test_exports_match_map(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		check_exports_match_map(&libs[i]);
}

/*
 * The newest node (the map lists nodes oldest first) listing @name, and
 * whether @node lists it at all
 */
static const char *map_newest_node_of(const char *name)
{
	const char *node = NULL;
	int i;

	for (i = 0; i < n_map_versions; i++)
		if (!strcmp(map_versions[i].name, name))
			node = map_versions[i].node;
	return node;
}

static int map_lists(const char *name, const char *node)
{
	int i;

	for (i = 0; i < n_map_versions; i++)
		if (!strcmp(map_versions[i].name, name) &&
		    !strcmp(map_versions[i].node, node))
			return 1;
	return 0;
}

/*
 * Every export carries a version: the default one (name@@NODE) is the
 * newest node listing the name, a compat one (name@NODE) an older node
 * listing it, and dlvsym() finds it there.
 */
static void check_every_export_versioned(const struct lib *l)
{
	struct symset map = { 0 };
	char cmd[4300], line[512], type[8], name[256];
	const char *node;
	void *h;
	int n = 0, compat;
	FILE *p;

	read_map(l, &map);
	h = lib_open(l);
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s' 2>/dev/null",
		 lib_path(l));
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *at, *ver;

		if (strstr(line, " A "))
			continue;
		if (sscanf(line, "%*s %7s %255s", type, name) != 2)
			continue;
		at = strchr(name, '@');
		if (!at)
			fail_msg("unversioned export: %s", line);
		compat = at[1] != '@';
		ver = at + (compat ? 1 : 2);
		*at = '\0';
		node = map_newest_node_of(name);
		if (!node || (!compat && strcmp(node, ver)))
			fail_msg("%s is version %s, the map says %s", name, ver,
				 node ? node : "nothing");
		if (compat && (!strcmp(node, ver) || !map_lists(name, ver)))
			fail_msg("%s@%s: a compat version must be an older "
				 "node listing it (newest: %s)",
				 name, ver, node);
		if (!dlvsym(h, name, ver))
			fail_msg("dlvsym(%s, %s) finds nothing", name, ver);
		n++;
	}
	pclose(p);
	dlclose(h);
	symset_free(&map);
	assert_true(n > 0);
}

static void test_every_export_versioned(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		check_every_export_versioned(&libs[i]);
}

/*
 * Options structs changed ABI (a size field): the old entry points stay
 * reachable at their old versions, and differ from the current ones.
 */
static void test_compat_versions(void **state)
{
	static const struct {
		const struct lib *lib;
		const char *name;
		const char *old;
		const char *cur;
	} cases[] = {
		{ &libs[0], "hpu_allocator_create", "HPUDRV_1.1",
		  "HPUDRV_1.6" },
		{ &libs[1], "hpuccl_comm_init_rank_config", "HPUCCL_1.0",
		  "HPUCCL_1.1" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		void *h = lib_open(cases[i].lib);
		void *old, *cur;

		old = dlvsym(h, cases[i].name, cases[i].old);
		cur = dlvsym(h, cases[i].name, cases[i].cur);
		assert_non_null(old);
		assert_non_null(cur);
		assert_ptr_not_equal(old, cur);
		/* what a program linked now gets */
		assert_ptr_equal(dlsym(h, cases[i].name), cur);
		dlclose(h);
	}
}

static void test_soname(void **state)
{
	char cmd[4300], line[512], want[80];
	size_t i;
	int found;
	FILE *p;

	(void)state;
	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		snprintf(cmd, sizeof(cmd), "readelf -d '%s' 2>/dev/null",
			 lib_path(&libs[i]));
		snprintf(want, sizeof(want), "[%s]", libs[i].soname);
		p = popen(cmd, "r");
		assert_non_null(p);
		found = 0;
		while (fgets(line, sizeof(line), p))
			if (strstr(line, "(SONAME)") && strstr(line, want))
				found = 1;
		pclose(p);
		if (!found)
			fail_msg("%s: no SONAME %s", lib_path(&libs[i]), want);
	}
}

/* "X.Y.0" of the newest "NAME_X.Y {" node of @l's map */
static void map_version(const struct lib *l, char *buf, size_t len)
{
	char line[512], node[64];
	unsigned int x, y, bx = 0, by = 0;
	int found = 0;
	FILE *f = fopen(l->map, "r");

	if (!f)
		fail_msg("cannot open %s (run from the source tree)", l->map);
	while (fgets(line, sizeof(line), f)) {
		char *us;

		if (!strchr(line, '{') ||
		    sscanf(line, " %63[A-Za-z0-9_.]", node) != 1)
			continue;
		us = strrchr(node, '_');
		if (!us || sscanf(us + 1, "%u.%u", &x, &y) != 2)
			fail_msg("%s: node %s is not NAME_X.Y", l->map, node);
		if (!found || x > bx || (x == bx && y > by)) {
			bx = x;
			by = y;
		}
		found = 1;
	}
	fclose(f);
	assert_true(found);
	snprintf(buf, len, "%u.%u.0", bx, by);
}

static void check_version_follows_map(const struct lib *l)
{
	char want[32], path[4096], link[256], file[64], *pc;
	const char *(*version)(void);
	const char *o = getenv("O");
	ssize_t n;
	void *h;
	FILE *f;

	map_version(l, want, sizeof(want));
	/* what the shared library says */
	h = lib_open(l);
	version = (const char *(*)(void))dlsym(h, l->version_fn);
	assert_non_null(version);
	if (strcmp(version(), want))
		fail_msg("%s() of %s is %s, its map says %s", l->version_fn,
			 lib_path(l), version(), want);
	dlclose(h);
	/* the file, and the soname's link to it */
	snprintf(file, sizeof(file), "%s.%s", l->name, want);
	snprintf(path, sizeof(path), "%s/lib/%s", o && *o ? o : "build", file);
	if (access(path, R_OK))
		fail_msg("%s is missing", path);
	snprintf(path, sizeof(path), "%s/lib/%s", o && *o ? o : "build",
		 l->soname);
	n = readlink(path, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = '\0';
	if (strcmp(link, file))
		fail_msg("%s points at %s, not %s", path, link, file);
	/* the pkg-config file */
	snprintf(path, sizeof(path), "%s/lib/pkgconfig/%s",
		 o && *o ? o : "build", l->pc);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	pc = calloc(1, 4096);
	assert_non_null(pc);
	assert_true(fread(pc, 1, 4095, f) > 0);
	fclose(f);
	snprintf(path, sizeof(path), "\nVersion: %s\n", want);
	if (!strstr(pc, path))
		fail_msg("%s has no line \"Version: %s\"", l->pc, want);
	free(pc);
}

static void test_version_follows_map(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		check_version_follows_map(&libs[i]);
	/* the static library (what this binary links) says the same */
	assert_string_equal(hpu_library_version(), HPUDRV_LIB_VERSION);
	assert_string_equal(hpuccl_version(), HPUCCL_LIB_VERSION);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exports_match_map),
		cmocka_unit_test(test_every_export_versioned),
		cmocka_unit_test(test_compat_versions),
		cmocka_unit_test(test_soname),
		cmocka_unit_test(test_version_follows_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

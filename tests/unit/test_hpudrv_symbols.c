// SPDX-License-Identifier: MIT
/*
 * test_hpudrv_symbols.c - libhpudrv.so exports exactly the symbols of its
 * version script, and carries the soname.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAP_FILE "libhpudrv/libhpudrv.map"
#define MAX_SYMS 1024

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

static const char *lib_path(void)
{
	static char path[4096];
	const char *o = getenv("O");

	snprintf(path, sizeof(path), "%s/lib/libhpudrv.so",
		 o && *o ? o : "build");
	return path;
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
static void read_map(struct symset *s)
{
	char line[512], name[256], node[64] = "";
	int in_global = 0;
	FILE *f = fopen(MAP_FILE, "r");

	if (!f)
		fail_msg("cannot open %s (run from the source tree)", MAP_FILE);
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
static void read_exports(struct symset *s)
{
	char cmd[4300], line[512], type[8], name[256];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s' 2>/dev/null",
		 lib_path());
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

static void test_exports_match_map(void **state)
{
	struct symset map = { 0 }, exp = { 0 };
	int i, j, diff = 0;

	(void)state;
	if (access(lib_path(), R_OK))
		fail_msg("%s is not built", lib_path());
	read_map(&map);
	read_exports(&exp);
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

static const char *map_node_of(const char *name)
{
	int i;

	for (i = 0; i < n_map_versions; i++)
		if (!strcmp(map_versions[i].name, name))
			return map_versions[i].node;
	return NULL;
}

/* Every export carries the version node of the stanza that lists it. */
static void test_every_export_versioned(void **state)
{
	struct symset map = { 0 };
	char cmd[4300], line[512], type[8], name[256];
	const char *node;
	int n = 0;
	FILE *p;

	(void)state;
	read_map(&map);
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s' 2>/dev/null",
		 lib_path());
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *at;

		if (strstr(line, " A "))
			continue;
		if (sscanf(line, "%*s %7s %255s", type, name) != 2)
			continue;
		at = strstr(name, "@@");
		if (!at)
			fail_msg("unversioned export: %s", line);
		*at = '\0';
		node = map_node_of(name);
		if (!node || strcmp(node, at + 2))
			fail_msg("%s is version %s, the map says %s", name,
				 at + 2, node ? node : "nothing");
		n++;
	}
	pclose(p);
	symset_free(&map);
	assert_true(n > 0);
}

static void test_soname(void **state)
{
	char cmd[4300], line[512];
	int found = 0;
	FILE *p;

	(void)state;
	snprintf(cmd, sizeof(cmd), "readelf -d '%s' 2>/dev/null", lib_path());
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		if (strstr(line, "(SONAME)") &&
		    strstr(line, "[libhpudrv.so.1]"))
			found = 1;
	pclose(p);
	assert_true(found);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exports_match_map),
		cmocka_unit_test(test_every_export_versioned),
		cmocka_unit_test(test_soname),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

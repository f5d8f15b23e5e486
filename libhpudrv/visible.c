// SPDX-License-Identifier: MIT
/*
 * visible.c - device selection by environment: HPU_VISIBLE_DEVICES,
 * HABANA_VISIBLE_DEVICES (device indices) and HABANA_VISIBLE_MODULES
 * (OAM module ids), and the detail of the calling thread's last failure
 * (hpu_last_error()). docs/libhpudrv.md, "Device selection".
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpudrv_internal.h"

/* OAM module ids of a server: 0..7 (struct hpu_info_hw_ip_info) */
#define VISIBLE_MODULES 8

/* Most numbers one variable may list */
#define VISIBLE_MAX_ENTRIES 256

/* Longest value quoted in a message */
#define VISIBLE_QUOTE 48

static __thread char last_error[HPUDRV_DETAIL_LEN];

const char *hpu_last_error(void)
{
	return last_error[0] ? last_error : NULL;
}

void hpudrv_clear_error(void)
{
	last_error[0] = '\0';
}

void hpudrv_set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

/**
 * struct visible_var - one selection variable
 * @name: environment variable
 * @what: what its numbers are
 * @max: largest number allowed
 * @unique: a number may appear only once
 * @all: the value "all" selects everything
 */
struct visible_var {
	const char *name;
	const char *what;
	unsigned long max;
	bool unique;
	bool all;
};

static const struct visible_var visible_vars[HPUDRV_VISIBLE_NVARS] = {
	[HPUDRV_VISIBLE_HPU] = { .name = "HPU_VISIBLE_DEVICES",
				 .what = "device indices",
				 .max = INT_MAX },
	[HPUDRV_VISIBLE_HABANA] = { .name = "HABANA_VISIBLE_DEVICES",
				    .what = "device indices",
				    .max = INT_MAX,
				    .unique = true,
				    .all = true },
	[HPUDRV_VISIBLE_MODULES] = { .name = "HABANA_VISIBLE_MODULES",
				     .what = "module ids 0..7",
				     .max = VISIBLE_MODULES - 1,
				     .unique = true,
				     .all = true },
};

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static int bad_value(const struct visible_var *v, const char *env,
		     const char *why)
{
	hpudrv_set_error(
		"%s=\"%.*s%s\" is malformed: %s (expected a comma-separated list of %s%s)",
		v->name, VISIBLE_QUOTE, env,
		strlen(env) > VISIBLE_QUOTE ? "..." : "", why, v->what,
		v->all ? ", \"all\", or nothing" : " or nothing");
	return -EINVAL;
}

/*
 * Whether @num is selected by @v's value @env: 1 yes, 0 no, -EINVAL when
 * @env is malformed (the whole value is checked whatever @num is; a
 * negative @num just checks it).
 */
static int var_selects(const struct visible_var *v, const char *env, long num)
{
	unsigned long vals[VISIBLE_MAX_ENTRIES];
	const char *p = skip_blanks(env), *start;
	int found = 0, count = 0;

	if (!*p)
		return 0;
	if (v->all && !strncmp(p, "all", 3) && !*skip_blanks(p + 3))
		return 1;
	for (;;) {
		unsigned long x = 0;
		int digits = 0;

		p = skip_blanks(p);
		start = p;
		while (isdigit((unsigned char)*p)) {
			x = x * 10 + (unsigned long)(*p - '0');
			if (x > v->max)
				return bad_value(v, env,
						 v->max == INT_MAX ?
							 "number too large" :
							 "module id above 7");
			digits++;
			p++;
		}
		p = skip_blanks(p);
		if (!digits || (*p && *p != ','))
			return bad_value(
				v, env,
				*start == '-' ? "negative number" :
				!digits	      ? "empty or non-decimal entry" :
						"junk after a number");
		if (v->unique) {
			int i;

			for (i = 0; i < count; i++)
				if (vals[i] == x)
					return bad_value(v, env,
							 "a value repeats");
			if (count == VISIBLE_MAX_ENTRIES)
				return bad_value(v, env, "too many entries");
			vals[count++] = x;
		}
		if ((long)x == num)
			found = 1;
		if (!*p)
			return found;
		p++;
	}
}

/**
 * hpudrv_visible_check() - whether every selection variable is well formed
 *
 * Return: 0, or -EINVAL with hpu_last_error() naming the variable, its
 * value and what is wrong.
 */
int hpudrv_visible_check(void)
{
	int i, ret;

	for (i = 0; i < HPUDRV_VISIBLE_NVARS; i++) {
		const char *env = getenv(visible_vars[i].name);

		if (!env)
			continue;
		ret = var_selects(&visible_vars[i], env, -1);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/**
 * hpudrv_visible_var() - what one selection variable says of a number
 * @var: HPUDRV_VISIBLE_*
 * @num: device index (HPU_, HABANA_VISIBLE_DEVICES) or module id
 *	(HABANA_VISIBLE_MODULES; -1 unknown)
 *
 * Return: 1 selected (or the variable is unset), 0 not, -EINVAL when the
 * variable is malformed.
 */
int hpudrv_visible_var(int var, long num)
{
	const char *env = getenv(visible_vars[var].name);

	if (!env)
		return 1;
	return var_selects(&visible_vars[var], env, num);
}

/* The module id of device @index of @s; -1 when unknown */
static int scan_module_id(const struct hpudrv_scan *s, int index)
{
	struct hpu_device_info info;
	char path[HPU_PATH_LEN + 64];
	char *data;
	size_t n;
	int id;

	if (index < s->nk)
		return s->kdevs[index].module_id;
	if (hpudrv_scan_info(s, index, false, &info))
		return -1;
	snprintf(path, sizeof(path), "%s/module_id", info.attr_dir);
	if (hpudrv_read_file(path, &data, &n))
		return -1;
	while (n && (data[n - 1] == '\n' || data[n - 1] == '\r'))
		data[--n] = '\0';
	id = hpudrv_module_id(data);
	free(data);
	return id;
}

/**
 * hpudrv_visible_in() - whether device @index of @s is visible
 * @s: scan
 * @index: device index
 *
 * A device is visible when every selection variable that is set selects
 * it: HPU_VISIBLE_DEVICES and HABANA_VISIBLE_DEVICES by its index,
 * HABANA_VISIBLE_MODULES by its module id (a device whose module id is
 * unknown is hidden by it).
 *
 * Return: 1 visible, 0 hidden, -EINVAL when a variable is malformed.
 */
int hpudrv_visible_in(const struct hpudrv_scan *s, int index)
{
	int ret;

	ret = hpudrv_visible_var(HPUDRV_VISIBLE_HPU, index);
	if (ret != 1)
		return ret;
	ret = hpudrv_visible_var(HPUDRV_VISIBLE_HABANA, index);
	if (ret != 1)
		return ret;
	if (!getenv(visible_vars[HPUDRV_VISIBLE_MODULES].name))
		return 1;
	return hpudrv_visible_var(HPUDRV_VISIBLE_MODULES,
				  scan_module_id(s, index));
}

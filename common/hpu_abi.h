/* SPDX-License-Identifier: MIT */
/*
 * hpu_abi.h - the ABI rules libhpudrv and libhpuccl share (header only):
 * options structs that carry their own size, and symbol versions of
 * functions whose ABI changed (docs/libhpudrv.md "Conventions").
 *
 * Options structs. Every options struct of a library starts with
 * `size_t sz`, which the caller sets to sizeof the struct it was compiled
 * with. The library reads a field only when @sz covers it whole (an older
 * caller's smaller struct: the fields it lacks take their defaults), and
 * refuses a newer caller's larger struct unless every byte past the
 * fields it knows is zero (options it cannot honour are never ignored).
 */
#ifndef HPU_ABI_H
#define HPU_ABI_H

#include <errno.h>
#include <stddef.h>

/* Byte just past @member of @type */
#define hpu_offsetofend(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))

/* Largest @sz an options struct may claim (one page) */
#define HPU_OPTS_SZ_MAX 4096

/**
 * hpu_opts_check() - the size rule of an options struct
 * @opts: the caller's struct, or NULL (defaults)
 * @known: bytes of the struct this library knows, hpu_offsetofend() of its
 *	last member
 *
 * Return: 0; -EINVAL when @sz does not even cover itself; -E2BIG when @sz
 * is above HPU_OPTS_SZ_MAX or a byte between @known and @sz is not zero.
 */
static inline int hpu_opts_check(const void *opts, size_t known)
{
	const unsigned char *p = opts;
	size_t sz, i;

	if (!opts)
		return 0;
	sz = *(const size_t *)opts;
	if (sz < sizeof(size_t))
		return -EINVAL;
	if (sz > HPU_OPTS_SZ_MAX)
		return -E2BIG;
	for (i = known; i < sz; i++)
		if (p[i])
			return -E2BIG;
	return 0;
}

/* Whether @opts (checked, non-NULL) covers @field whole */
#define HPU_OPTS_HAS(opts, field) \
	((opts)->sz >= hpu_offsetofend(__typeof__(*(opts)), field))

/* @field of @opts when given and covered, else @def */
#define HPU_OPTS_GET(opts, field, def) \
	((opts) && HPU_OPTS_HAS(opts, field) ? (opts)->field : (def))

/*
 * Symbol versions: @impl is exported as @name at version @node (a string,
 * "HPUDRV_1.6"). DEFAULT
 * is what programs linked now bind to (one per name); COMPAT keeps an
 * older ABI of @name for programs linked before it changed. The version
 * script lists @name in both nodes; @impl must be exported (visibility
 * default) and is hidden again by the script's "local: *".
 */
#define HPU_SYMVER_DEFAULT(impl, name, node) \
	__asm__(".symver " #impl ", " #name "@@" node)
#define HPU_SYMVER_COMPAT(impl, name, node) \
	__asm__(".symver " #impl ", " #name "@" node)

#endif /* HPU_ABI_H */

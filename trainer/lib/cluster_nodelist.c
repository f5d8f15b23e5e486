// SPDX-License-Identifier: MIT
/*
 * cluster_nodelist.c - Slurm's compressed host lists ("node[01-04,07]")
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ht_cluster.h"
#include "ht_error.h"

/* Longest host name an expansion may produce */
#define HOST_MAX       255
/* Digits of one number in a bracket range */
#define NUM_MAX_DIGITS 9

struct expand_ctx {
	const char *list;
	struct ht_hostlist *out;
	size_t cap;
	char *err;
	size_t errlen;
};

static int push_host(struct expand_ctx *c, const char *name, size_t len)
{
	struct ht_hostlist *hl = c->out;
	char *dup;

	if (hl->count >= HT_NODELIST_MAX_HOSTS) {
		ht_seterr(c->err, c->errlen,
			  "node list '%.60s' expands to more than %u hosts",
			  c->list, HT_NODELIST_MAX_HOSTS);
		return -E2BIG;
	}
	if (hl->count == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		char **hosts = realloc(hl->hosts, cap * sizeof(*hosts));

		if (!hosts)
			return -ENOMEM;
		hl->hosts = hosts;
		c->cap = cap;
	}
	dup = strndup(name, len);
	if (!dup)
		return -ENOMEM;
	hl->hosts[hl->count++] = dup;
	return 0;
}

static int bad_list(struct expand_ctx *c, const char *why)
{
	ht_seterr(c->err, c->errlen, "malformed node list '%.80s': %s", c->list,
		  why);
	return -EINVAL;
}

/* A run of 1..NUM_MAX_DIGITS digits; returns its length or 0 */
static size_t parse_digits(const char *s, size_t len, unsigned long *v)
{
	size_t i = 0;

	*v = 0;
	while (i < len && s[i] >= '0' && s[i] <= '9' && i < NUM_MAX_DIGITS) {
		*v = *v * 10 + (unsigned long)(s[i] - '0');
		i++;
	}
	if (i < len && s[i] >= '0' && s[i] <= '9')
		return 0; /* too many digits */
	return i;
}

static int expand(struct expand_ctx *c, char *buf, size_t blen, const char *s,
		  size_t len);

/* One "lo" or "lo-hi" of a bracket: expand the rest for every value */
static int expand_range(struct expand_ctx *c, char *buf, size_t blen,
			const char *r, size_t rlen, const char *rest,
			size_t restlen)
{
	unsigned long lo, hi, v;
	size_t n, width;
	int ret;

	n = parse_digits(r, rlen, &lo);
	if (!n)
		return bad_list(c, "a bracket range must be numbers");
	width = n;
	hi = lo;
	if (n < rlen) {
		if (r[n] != '-' ||
		    parse_digits(r + n + 1, rlen - n - 1, &hi) !=
			    rlen - n - 1 ||
		    n + 1 == rlen)
			return bad_list(c,
					"a bracket range must be N or LO-HI");
		if (hi < lo)
			return bad_list(c, "a range ends below its start");
	}
	if (hi - lo >= HT_NODELIST_MAX_HOSTS) {
		ht_seterr(c->err, c->errlen,
			  "node list '%.60s' expands to more than %u hosts",
			  c->list, HT_NODELIST_MAX_HOSTS);
		return -E2BIG;
	}
	for (v = lo; v <= hi; v++) {
		int w = snprintf(buf + blen, HOST_MAX + 1 - blen, "%0*lu",
				 (int)width, v);

		if (w < 0 || blen + (size_t)w > HOST_MAX)
			return bad_list(c, "host name too long");
		ret = expand(c, buf, blen + (size_t)w, rest, restlen);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Expand the item text @s (@len bytes) after the already expanded prefix
 * @buf (@blen bytes); every complete name is pushed.
 */
static int expand(struct expand_ctx *c, char *buf, size_t blen, const char *s,
		  size_t len)
{
	const char *open = memchr(s, '[', len), *close, *p;
	size_t lit = open ? (size_t)(open - s) : len;
	int ret;

	if (memchr(s, ']', lit))
		return bad_list(c, "']' without '['");
	if (blen + lit > HOST_MAX)
		return bad_list(c, "host name too long");
	memcpy(buf + blen, s, lit);
	blen += lit;
	if (!open)
		return push_host(c, buf, blen);

	close = memchr(open, ']', len - lit);
	if (!close)
		return bad_list(c, "'[' without ']'");
	if (memchr(open + 1, '[', (size_t)(close - open - 1)))
		return bad_list(c, "nested '['");
	if (close == open + 1)
		return bad_list(c, "empty brackets");
	for (p = open + 1; p < close;) {
		const char *comma = memchr(p, ',', (size_t)(close - p));
		const char *end = comma ? comma : close;

		if (end == p)
			return bad_list(c, "empty range in brackets");
		ret = expand_range(c, buf, blen, p, (size_t)(end - p),
				   close + 1, len - (size_t)(close + 1 - s));
		if (ret)
			return ret;
		p = comma ? comma + 1 : close;
		if (comma && p == close)
			return bad_list(c, "empty range in brackets");
	}
	return 0;
}

int ht_slurm_nodelist_expand(const char *list, struct ht_hostlist *out,
			     char *err, size_t errlen)
{
	struct expand_ctx c = {
		.list = list, .out = out, .err = err, .errlen = errlen
	};
	char buf[HOST_MAX + 1];
	const char *s = list, *p;
	int depth = 0, ret = 0;

	memset(out, 0, sizeof(*out));
	if (!*list)
		return bad_list(&c, "empty");
	for (p = list;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']')
			depth--;
		if (*p && (*p != ',' || depth > 0))
			continue;
		if (p == s) {
			ret = bad_list(&c, "empty host name");
			break;
		}
		ret = expand(&c, buf, 0, s, (size_t)(p - s));
		if (ret || !*p)
			break;
		s = p + 1;
	}
	if (ret) {
		ht_hostlist_free(out);
		if (ret == -ENOMEM)
			ht_seterr(err, errlen, "node list: out of memory");
	}
	return ret;
}

void ht_hostlist_free(struct ht_hostlist *hl)
{
	size_t i;

	for (i = 0; i < hl->count; i++)
		free(hl->hosts[i]);
	free(hl->hosts);
	memset(hl, 0, sizeof(*hl));
}

// SPDX-License-Identifier: MIT
/*
 * list.c - the one parser of hpu-smi's comma-separated option values
 * (-i IDs, -Q fields, -f format options): an empty value or an empty item
 * is a usage error, whatever the flag.
 */
#include <errno.h>
#include <string.h>

#include "smi.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* @s without its leading and trailing blanks, cut in place */
static char *trim(char *s)
{
	char *end;

	while (is_blank(*s))
		s++;
	end = s + strlen(s);
	while (end > s && is_blank(end[-1]))
		*--end = '\0';
	return s;
}

static int list_error(const char *flag, const char *value, const char *why)
{
	fprintf(stderr, "%s: %s '%s': %s\n", smi_prog, flag, value, why);
	fprintf(stderr, "Try '%s --help' for more information.\n", smi_prog);
	return -EINVAL;
}

int smi_list_parse(const char *flag, const char *value, struct smi_list *l)
{
	char why[64], *p, *comma;

	memset(l, 0, sizeof(*l));
	if (strlen(value) >= sizeof(l->buf)) {
		fprintf(stderr,
			"%s: %s: list longer than %zu characters\n"
			"Try '%s --help' for more information.\n",
			smi_prog, flag, sizeof(l->buf) - 1, smi_prog);
		return -EINVAL;
	}
	strcpy(l->buf, value);
	p = l->buf;
	for (;;) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (l->n == SMI_LIST_MAX) {
			snprintf(why, sizeof(why), "more than %d items",
				 SMI_LIST_MAX);
			return list_error(flag, value, why);
		}
		l->item[l->n] = trim(p);
		if (!l->item[l->n][0]) {
			if (!comma && !l->n)
				return list_error(flag, value,
						  "empty list (give at least "
						  "one item)");
			snprintf(why, sizeof(why),
				 "item %d is empty (no item may be)", l->n + 1);
			return list_error(flag, value, why);
		}
		l->n++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

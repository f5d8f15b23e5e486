// SPDX-License-Identifier: MIT
/*
 * frame.c - the frame of hpu-smi's tables (its own, table.c, and hl-smi's,
 * hltable.c): three columns of SMI_COL1, SMI_COL2 and SMI_COL3
 * characters between bars, 79 characters a line.
 */
#include "smi.h"

void smi_rule(FILE *f, char fill, char edge, bool cols)
{
	int i;

	fputc(edge, f);
	for (i = 0; i < SMI_WIDTH; i++) {
		bool sep = cols &&
			   (i == SMI_COL1 || i == SMI_COL1 + 1 + SMI_COL2);

		fputc(sep ? '+' : fill, f);
	}
	fputc(edge, f);
	fputc('\n', f);
}

void smi_row(FILE *f, const char *a, const char *b, const char *c)
{
	fprintf(f, "|%-*.*s|%-*.*s|%-*.*s|\n", SMI_COL1, SMI_COL1, a, SMI_COL2,
		SMI_COL2, b, SMI_COL3, SMI_COL3, c);
}

void smi_full_row(FILE *f, const char *text)
{
	fprintf(f, "|%-*.*s|\n", SMI_WIDTH, SMI_WIDTH, text);
}

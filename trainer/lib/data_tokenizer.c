// SPDX-License-Identifier: MIT
/*
 * data_tokenizer.c - the byte-level tokenizer (see ht_text.h): token id
 * = byte value, a vocabulary of 256, no unknown token
 */
#include <errno.h>

#include "ht_text.h"

void ht_tok_encode(const void *text, size_t len, int32_t *ids)
{
	const uint8_t *b = text;
	size_t i;

	for (i = 0; i < len; i++)
		ids[i] = b[i];
}

int ht_tok_decode(const int32_t *ids, size_t n, uint8_t *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ids[i] < 0 || ids[i] >= (int32_t)HT_TOK_VOCAB)
			return -EINVAL;
	for (i = 0; i < n; i++)
		out[i] = (uint8_t)ids[i];
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * ht_error.h - the training library's user-facing error messages
 *
 * Functions that can fail because of what the user typed or supplied (a
 * file, a command-line value, the environment) take a buffer (err, errlen)
 * and write one line into it that says exactly what is wrong, without a
 * trailing newline, so that hpu-train can print it as it is. The buffer may
 * be NULL (errlen is then ignored).
 */
#ifndef HT_ERROR_H
#define HT_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/**
 * ht_seterr() - format a message into an error buffer
 * @err: buffer, or NULL to drop the message
 * @errlen: size of @err in bytes
 * @fmt: printf format
 *
 * The message is truncated to fit; callers return their own errno.
 */
static inline __attribute__((format(printf, 3, 4))) void
ht_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

#endif /* HT_ERROR_H */

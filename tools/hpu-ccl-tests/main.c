// SPDX-License-Identifier: MIT
/*
 * main.c - hpu-ccl-tests: bandwidth and correctness of libhpuccl's
 * collectives, in the manner of nccl-tests (docs/hpu-ccl-tests.md).
 */
#include <stdio.h>

#include "ccltests.h"

int main(int argc, char **argv)
{
	struct cclt_opts o;
	int ret;

	/* rows appear as they are measured, also through a pipe */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = cclt_parse_args(argc, argv, &o);
	if (ret == 1)
		return CCLT_EXIT_OK;
	if (ret)
		return ret;
	return cclt_launch(&o);
}

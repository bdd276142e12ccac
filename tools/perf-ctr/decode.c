// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "perf-ctr.h"

int cmd_decode(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "perf-ctr decode: not implemented yet\n");
	return 2;
}

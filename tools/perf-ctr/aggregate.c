// SPDX-License-Identifier: GPL-2.0
/* perf-ctr aggregate: placeholder until the AutoFDO pipeline lands. */
#include <stdio.h>
#include "perf-ctr.h"

int cmd_aggregate(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "perf-ctr aggregate: not implemented yet\n");
	return 2;
}

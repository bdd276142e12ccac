// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "perf-ctr.h"

int cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "perf-ctr record: not implemented yet\n");
	return 2;
}

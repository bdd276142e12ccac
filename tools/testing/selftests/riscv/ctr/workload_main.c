// SPDX-License-Identifier: GPL-2.0-only
/*
 * workload [N]: run the known control flow of workload.S N times (default
 * 100000), for tests that sample it with the perf tool. Built static and
 * not position independent, so that its addresses are those of its
 * symbol table.
 */
#include <stdlib.h>

#include "workload.h"

int main(int argc, char **argv)
{
	ctr_workload(argc > 1 ? atol(argv[1]) : 100000);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: the subcommands that the minimal riscv64 build (make cross:
 * no libelf, no libdw) leaves out. Empty in the normal build.
 */
#ifdef PC_CROSS_MINIMAL
#include <stdio.h>

#include "perf-ctr.h"
#include "builtin.h"

static int not_here(const char *name)
{
	fprintf(stderr, "perf-ctr %s: not in this build (no libelf/libdw); "
		"run it on the host\n", name);
	return 2;
}

int cmd_report(int argc, char **argv)
{
	(void)argc;
	return not_here(argv[0]);
}

int cmd_aggregate(int argc, char **argv)
{
	(void)argc;
	return not_here(argv[0]);
}

int cmd_synth(int argc, char **argv)
{
	(void)argc;
	return not_here(argv[0]);
}
#endif

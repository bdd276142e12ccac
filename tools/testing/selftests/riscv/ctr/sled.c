// SPDX-License-Identifier: GPL-2.0-only
/*
 * sled [N]: run addpath_sled() N times (default 100000000), 4096
 * instructions each with no transfer but the call and the return: a
 * process that adds almost nothing to the branch buffer, for the tests
 * that check whose records a sample holds.
 */
#include <stdlib.h>

#include "addpath.h"

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000000UL;

	while (n--)
		addpath_sled();
	return 0;
}

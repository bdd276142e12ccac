// SPDX-License-Identifier: GPL-2.0-only
/*
 * spin [N]: a user-mode busy loop of N (default 50000000) iterations with
 * no system calls, the workload of the sampling tests.
 */
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 50000000UL;
	unsigned long sink = 0;

	while (n--) {
		sink += n;
		/* Keep the compiler from folding the loop away. */
		asm volatile("" : "+r" (sink));
	}
	return 0;
}

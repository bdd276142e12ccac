/* SPDX-License-Identifier: GPL-2.0 */
/* The profiled program of the AutoFDO round trips: a loop, an inlined call. */
#include <stdio.h>
#include <stdlib.h>

static inline int sq(int x)
{
	return x * x;
}

__attribute__((noinline)) int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++) {
		if (i % 3 == 0)
			s += sq(i);
		else
			s -= i;
	}
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	long t = 0;

	for (int k = 0; k < 100; k++)
		t += work(n);
	printf("%ld\n", t);
	return 0;
}

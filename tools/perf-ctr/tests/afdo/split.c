/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A function GCC splits in two (-freorder-blocks-and-partition): step()
 * and step.cold, where the path to the cold function went. The records
 * of the test run step()'s loop only: the profile has step.cold's lines
 * at 0, as llvm-profgen fills every piece of a function a range starts in.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((cold, noinline)) static void bad(int x, int i)
{
	fprintf(stderr, "step: %d at %d\n", x, i);
}

__attribute__((noinline)) int step(const int *v, int n)
{
	int s = 0;

	for (int i = 0; i < n; i++) {
		if (__builtin_expect(v[i] < 0, 0)) {
			bad(v[i], i);
			bad(i, v[i]);
			abort();
		}
		s += v[i] * 3;
	}
	return s;
}

int main(int argc, char **argv)
{
	int v[64];

	for (int i = 0; i < 64; i++)
		v[i] = i + argc;
	printf("%d\n", step(v, argc > 1 ? atoi(argv[1]) : 64));
	return 0;
}

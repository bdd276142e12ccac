// SPDX-License-Identifier: GPL-2.0
/*
 * Dynamic initializers, which clang names __cxx_global_var_init (and
 * .1, .2 ...) in every translation unit: llvm-profgen leaves their
 * profiles out, inlined ones too (t-probe.sh). No C++ library needed.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int f(int x)
{
	int s = 0;

	for (int i = 0; i < x; i++)
		s += i * i;
	return s;
}

static int g1 = f(atoi("100"));
int g2 = f(atoi("200")) + 1;

static inline int h(int x)
{
	return f(x) * 2;
}

int main(int argc, char **argv)
{
	long t = 0;

	(void)argv;
	for (int k = 0; k < 1000; k++)
		t += h(argc + k) + g1 + g2;
	printf("%ld\n", t);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The profiled program of the pseudo-probe profile (t-probe.sh): a loop,
 * static functions inlined two deep (their names and GUIDs carry
 * .__uniq.), a static one called, a call through a pointer and a second
 * loop in a function of its own.
 */
#include <stdio.h>
#include <stdlib.h>

static inline int sq(int x)
{
	return x * x;
}

static inline int poly(int x)
{
	if (x & 4)
		return sq(x) + 3 * x;
	return sq(x + 1);
}

static __attribute__((noinline)) int mix(int a, int b)
{
	if (a & 1)
		return a * 3 + b;
	return a ^ b;
}

__attribute__((noinline)) int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++) {
		if (i % 3 == 0)
			s += poly(i);
		else
			s = mix(s, i);
	}
	return s;
}

__attribute__((noinline)) long sum(const int *v, int n)
{
	long t = 0;

	for (int i = 0; i < n; i++)
		t += v[i] * 2 + 1;
	return t;
}

int (*volatile op)(int) = work;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	static int v[256];
	long t = 0;

	for (int k = 0; k < 100; k++) {
		t += op(n);
		v[k] = (int)t;
		t += sum(v, k + 100);
	}
	printf("%ld\n", t);
	return 0;
}

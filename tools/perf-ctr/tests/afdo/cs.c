/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The profiled program of the context-sensitive probe profile (t-cs.sh):
 * one leaf called from two callers (two contexts of it), a recursion,
 * a tail call, a function inlined into two others and a call through a
 * pointer; a large function, inlined and called, whose size the
 * pre-inliner weighs against its calls; and a recursion of two functions
 * through pointers, which the pre-inliner orders by its calls.
 */
#include <stdio.h>
#include <stdlib.h>

static inline int scale(int x)
{
	if (x & 2)
		return x * 5;
	return x + 7;
}

__attribute__((noinline)) int leaf(int x)
{
	if (x & 1)
		return x * 3;
	return x / 2 + 1;
}

__attribute__((noinline)) int fact(int n)
{
	if (n <= 1)
		return 1;
	return n * fact(n - 1) + leaf(n);
}

__attribute__((noinline)) int tail(int x)
{
	x = scale(x) ^ 0x55;
	return leaf(x);		/* a jump at -O2: no frame of its own */
}

/* some 600 bytes of code wherever it is inlined */
static inline __attribute__((always_inline)) int wide(int x)
{
	unsigned int v = x;

	for (int i = 0; i < 3; i++) {
		v = v * 2654435761u + (v >> 7);
		if (v & 1)
			v ^= v << 13;
		else
			v += v >> 3;
		if (v & 4)
			v = (v * 7) ^ 0x9e37;
		if (v & 8)
			v -= v / 11;
		switch (v % 7) {
		case 0: v += 3; break;
		case 1: v ^= 0x55aa; break;
		case 2: v *= 9; break;
		case 3: v -= 1234; break;
		case 4: v = v << 3 | v >> 29; break;
		default: v /= 3; break;
		}
	}
	return (int)v;
}

__attribute__((noinline)) int big(int x)
{
	return wide(x) + wide(x ^ 0x3c) + leaf(x);
}

int (*volatile to_right)(int);	/* right and left, through pointers */
int (*volatile to_left)(int);

__attribute__((noinline)) int left(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += leaf(i) + scale(s);
	if (n > 20)
		s += to_right(n - 7);
	return s;
}

__attribute__((noinline)) int right(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s ^= (i & 3) ? leaf(i * 7) : tail(i);
	if (n > 10)
		s ^= to_left(n - 5);
	return s;
}

int main(int argc, char **argv)
{
	int (*pick)(int) = argc > 2 ? left : right;
	int (*rare)(int) = argc > 3 ? leaf : big;
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	long t = 0;

	to_right = right;
	to_left = left;

	for (int r = 0; r < n; r++) {
		t += left(r % 50) + pick(r % 30);
		t += fact(r % 9);
		if (!(r & 15))
			t += rare(r) + wide(r);
	}
	printf("%ld\n", t);
	return 0;
}

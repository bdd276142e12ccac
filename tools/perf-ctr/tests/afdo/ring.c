/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recursion of three functions through pointers, ping -> pong -> pang
 * -> ping, run from main at the member its arguments pick (t-cs.sh's
 * cs-scc-order, its runs made by mk-ring-walk.py). Deeper than the 64
 * frames a frame-pointer unwinder gives, most samples' contexts start
 * inside the recursion, and which of its members the pre-inliner takes
 * first decides which one keeps the others' contexts inlined.
 */
#include <stdio.h>

int (*volatile to_ping)(int);
int (*volatile to_pong)(int);
int (*volatile to_pang)(int);

__attribute__((noinline)) int ping(int n)
{
	if (n <= 0)
		return 1;
	return to_pong(n - 1) * 3 + n;
}

__attribute__((noinline)) int pong(int n)
{
	if (n <= 0)
		return 2;
	return to_pang(n - 1) ^ n;
}

__attribute__((noinline)) int pang(int n)
{
	if (n <= 0)
		return 3;
	return to_ping(n - 1) - n;
}

int main(int argc, char **argv)
{
	int (*enter)(int) = argc > 2 ? pang : argc > 1 ? pong : ping;
	long t = 0;

	to_ping = ping;
	to_pong = pong;
	to_pang = pang;
	for (int r = 0; r < 300; r++)
		t += enter(r % 150);
	printf("%ld\n", t);
	return 0;
}

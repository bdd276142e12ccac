// SPDX-License-Identifier: GPL-2.0
/*
 * A function whose statements carry lines above its own (as #line and
 * macros give them): GCC keys them by a negative line offset.
 */

__attribute__((noinline)) int neg(int n)
{
	int s = 0;
#line 1
	for (int i = 0; i < n; i++)
		s += i * 3 + (s >> 7);
	return s;
}

int main(int argc, char **argv)
{
	(void)argv;
	return neg(argc * 100000) & 1;
}

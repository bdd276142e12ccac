// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for a kernel image, for perf-ctr aggregate's kernel tests:
 * linked where a RISC-V kernel is (0xffffffff80000000 and up), with the
 * two symbols perf-ctr takes a vmlinux by, linux_banner and _text.
 */
const char linux_banner[] = "Linux version 7.3.0 (perf-ctr test)\n";

static int sq(int x)
{
	return x * x;
}

__attribute__((noinline)) int kwork(int n)
{
	int s = 0, i;

	for (i = 0; i < n; i++) {
		if (i & 1)
			s += sq(i);
		else
			s -= i;
	}
	return s;
}

__attribute__((noinline)) int kstart(int n)
{
	return kwork(n) + kwork(n / 2);
}

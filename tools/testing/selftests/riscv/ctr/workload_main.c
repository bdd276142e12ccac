// SPDX-License-Identifier: GPL-2.0-only
/*
 * workload [-t] [N]: run the known control flow of workload.S N times
 * (default 100000), for tests and benchmarks that sample it with the perf
 * tool. -t prints how long it took, in nanoseconds. Built static and not
 * position independent, so that its addresses are those of its symbol
 * table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workload.h"

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int timed = argc > 1 && !strcmp(argv[1], "-t");
	long n = argc > 1 + timed ? atol(argv[1 + timed]) : 100000;
	long long t0 = now_ns();

	ctr_workload(n);
	if (timed)
		printf("%lld\n", now_ns() - t0);
	return 0;
}

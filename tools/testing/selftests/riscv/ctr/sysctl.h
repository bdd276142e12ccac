/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf sysctls the tests change for their run and put back after it.
 */
#ifndef CTR_SELFTEST_SYSCTL_H
#define CTR_SELFTEST_SYSCTL_H

#include <errno.h>
#include <stdio.h>

#define RATE_FILE	"/proc/sys/kernel/perf_event_max_sample_rate"
#define PERCENT_FILE	"/proc/sys/kernel/perf_cpu_time_max_percent"

/* The number in @path, or -1. */
static inline long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long r = -1;

	if (f) {
		if (fscanf(f, "%ld", &r) != 1)
			r = -1;
		fclose(f);
	}
	return r;
}

/* Write @r to @path: 0 or an errno. */
static inline int write_long(const char *path, long r)
{
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f)
		return errno;
	if (fprintf(f, "%ld\n", r) < 0)
		err = errno;
	if (fclose(f) && !err)
		err = errno;
	return err;
}

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/* The CPUs a test may run on, and pinning a task to one of them. */
#ifndef __CTR_CPUS_H
#define __CTR_CPUS_H

#include <sched.h>
#include <sys/types.h>

/* The allowed CPUs of this task, up to @max, in @cpus; how many. */
static inline int allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int i = 0; i < CPU_SETSIZE && n < max; i++)
		if (CPU_ISSET(i, &set))
			cpus[n++] = i;
	return n;
}

/* Let task @pid (0: this one) run on @cpu only; 0 or -1 with errno. */
static inline int pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

#endif

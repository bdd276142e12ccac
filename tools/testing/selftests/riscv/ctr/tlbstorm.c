// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbstorm [THREADS [SECONDS]]: THREADS threads (default 4) that map,
 * touch and unmap a page over and over for SECONDS (default 5), so that
 * every unmap is a TLB flush of an mm that ran on several CPUs: a remote
 * fence, through the SBI on RISC-V. The stress run takes CPUs offline and
 * online meanwhile, which is when a fence can name a CPU that is going
 * away. Prints the number of unmaps; exits non-zero if a call fails.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static time_t deadline;

static void *storm(void *arg)
{
	unsigned long *count = arg;
	long page = sysconf(_SC_PAGESIZE);

	while (time(NULL) < deadline) {
		char *p = mmap(NULL, page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("tlbstorm: mmap");
			exit(1);
		}
		/*
		 * Touch it so that this CPU's TLB holds the mapping (munmap()
		 * gets the pointer, so the store stays).
		 */
		p[0] = 1;
		if (munmap(p, page)) {
			perror("tlbstorm: munmap");
			exit(1);
		}
		++*count;
		/* Move between CPUs now and then, to spread mm_cpumask(). */
		if (!(*count & 255))
			sched_yield();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	int secs = argc > 2 ? atoi(argv[2]) : 5;
	unsigned long total = 0, *counts;
	pthread_t *threads;
	int i;

	if (n < 1 || secs < 1) {
		fprintf(stderr, "usage: tlbstorm [THREADS [SECONDS]]\n");
		return 2;
	}
	threads = calloc(n, sizeof(*threads));
	counts = calloc(n, sizeof(*counts));
	if (!threads || !counts)
		return 1;
	deadline = time(NULL) + secs;
	for (i = 0; i < n; i++) {
		if (pthread_create(&threads[i], NULL, storm, &counts[i])) {
			fprintf(stderr, "tlbstorm: pthread_create failed\n");
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		pthread_join(threads[i], NULL);
		total += counts[i];
	}
	printf("%lu unmaps\n", total);
	return 0;
}

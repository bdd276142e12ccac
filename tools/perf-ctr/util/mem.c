// SPDX-License-Identifier: GPL-2.0
/* perf-ctr: big zeroed buffers in transparent huge pages (mem.h). */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem.h"

#define HEAP_STEP	(32UL << 20)

void pc_huge_heap(void)
{
	uintptr_t lo, hi;
	void *p;

	if (!mallopt(M_TOP_PAD, HEAP_STEP) ||
	    !mallopt(M_TRIM_THRESHOLD, 2 * HEAP_STEP))
		return;
	/* a block the heap has no room for makes it grow by HEAP_STEP more */
	lo = (uintptr_t)sbrk(0);
	p = malloc(64 << 10);
	hi = (uintptr_t)sbrk(0);
	free(p);
	lo = (lo + PC_HUGE_PAGE - 1) & ~(PC_HUGE_PAGE - 1);
	hi &= ~(PC_HUGE_PAGE - 1);
	if (p && hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

/* What pc_huge_zalloc(BYTES) maps: whole huge pages, or just BYTES. */
static size_t huge_size(size_t bytes)
{
	if (bytes < PC_HUGE_MIN)
		return bytes;
	return (bytes + PC_HUGE_PAGE - 1) & ~(PC_HUGE_PAGE - 1);
}

void *pc_huge_zalloc(size_t bytes)
{
	size_t size = huge_size(bytes), head;
	uint8_t *p;

	if (size < PC_HUGE_MIN)
		return calloc(1, size ? size : 1);
	/* a huge page more than needed, then its unaligned ends unmapped */
	p = mmap(NULL, size + PC_HUGE_PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	head = -(uintptr_t)p & (PC_HUGE_PAGE - 1);
	if (head)
		munmap(p, head);
	munmap(p + head + size, PC_HUGE_PAGE - head);
	p += head;
	madvise(p, size, MADV_HUGEPAGE);
	return p;
}

void pc_huge_free(void *p, size_t bytes)
{
	size_t size = huge_size(bytes);

	if (size < PC_HUGE_MIN)
		free(p);
	else if (p)
		munmap(p, size);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr: big zeroed buffers in transparent huge pages (mem.c).
 *
 * On the VM bench-perf-ctr runs on, each 4 KiB page a process touches
 * first costs about 16 us to fault in (the guest's fault, then its
 * shadow page table's), a 2 MiB huge page about 250 us: a run over a
 * recording of 10 MB spent over a third of its time faulting in its
 * read window and its count tables. A buffer of PC_HUGE_MIN bytes or
 * more, which would fault in at least 16 small pages, is mapped in whole
 * 2 MiB pages, aligned and marked for huge pages (the kernel's madvise
 * mode); a smaller one comes from calloc(). Elsewhere than on such a VM
 * it costs at most the rest of its last 2 MiB page, and never more
 * faults.
 */
#ifndef PERF_CTR_MEM_H
#define PERF_CTR_MEM_H

#include <stddef.h>

#define PC_HUGE_PAGE	(2UL << 20)
#define PC_HUGE_MIN	(64UL << 10)

/*
 * The heap too, for the many small blocks of libdw, libelf and the
 * writers: made to grow HEAP_STEP at a time and keep what it has (only
 * pages touched are faulted in), and that part marked for huge pages.
 * Called first thing by main(); nothing happens when it cannot be done.
 */
void pc_huge_heap(void);

/* BYTES of zeroes, or NULL when memory ran out. */
void *pc_huge_zalloc(size_t bytes);
/* Free P, which pc_huge_zalloc(BYTES) gave (NULL: nothing). */
void pc_huge_free(void *p, size_t bytes);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading samples out of a perf ring buffer, for the tests that check
 * branch stacks sample by sample. A sample may carry IP, TID, TIME, CPU,
 * PERIOD and BRANCH_STACK (with the hardware index when the event asks
 * for it); other sample fields are not parsed. An event with comm and
 * comm_exec set also marks its task's exec in the stream: each sample
 * says how many came before it.
 */
#ifndef __CTR_RING_H
#define __CTR_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#define CTR_RING_SAMPLE_TYPES	(PERF_SAMPLE_IP | PERF_SAMPLE_TID |	\
				 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |	\
				 PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK)
/* A record is at most 64 KiB: its size is a 16-bit field. */
#define CTR_RING_RECORD_MAX	65536

struct ctr_sample {
	__u64 ip;
	__u32 pid, tid;
	__u64 time;
	__u32 cpu;
	__u64 period;
	__u64 nr;		/* branch entries */
	__u64 hw_idx;	/* only with PERF_SAMPLE_BRANCH_HW_INDEX */
	const struct perf_branch_entry *br;
	unsigned long execs;	/* exec records before this sample */
};

struct ctr_ring {
	struct perf_event_mmap_page *pg;
	size_t len;
	__u64 sample_type;
	__u64 branch_sample_type;
	unsigned long samples, lost, bad, execs;
	__u64 *rec;
};

typedef void (*ctr_sample_fn)(void *arg, const struct ctr_sample *s);

/*
 * A disabled, user-only sampling event with up to 256 branch records per
 * sample, in a layout ctr_ring_parse() reads.
 */
static inline void ctr_ring_attr(struct perf_event_attr *attr, __u64 config,
				 __u64 period, __u64 branch_sample_type)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_HARDWARE;
	attr->config = config;
	attr->sample_period = period;
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_CPU | PERF_SAMPLE_BRANCH_STACK;
	attr->branch_sample_type = branch_sample_type;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->disabled = 1;
	attr->sample_max_stack = 256;
}

static inline bool ctr_kernel_addr(__u64 a)
{
	return (__s64)a < 0;
}

/* Map @pages data pages of @fd's ring; 0 or -1 with errno set. */
static inline int ctr_ring_map(struct ctr_ring *r, int fd, int pages,
			       const struct perf_event_attr *attr)
{
	memset(r, 0, sizeof(*r));
	r->sample_type = attr->sample_type;
	r->branch_sample_type = attr->branch_sample_type;
	r->len = (pages + 1) * getpagesize();
	r->rec = malloc(CTR_RING_RECORD_MAX);
	if (!r->rec)
		return -1;
	r->pg = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->pg == MAP_FAILED) {
		r->pg = NULL;
		free(r->rec);
		r->rec = NULL;
		return -1;
	}
	return 0;
}

/*
 * Sample the calling thread's branches, user and kernel ones, and none of
 * a guest's, every @period instructions, into @r.
 * Return: the event's file descriptor, or -1 with errno set.
 */
static inline int ctr_ring_open_thread(struct ctr_ring *r, __u64 period)
{
	struct perf_event_attr attr;
	int fd;

	ctr_ring_attr(&attr, PERF_COUNT_HW_INSTRUCTIONS, period,
		      PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
		      PERF_SAMPLE_BRANCH_KERNEL);
	attr.exclude_kernel = 0;
	attr.exclude_guest = 1;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd >= 0 && ctr_ring_map(r, fd, 64, &attr)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static inline void ctr_ring_unmap(struct ctr_ring *r)
{
	if (r->pg)
		munmap(r->pg, r->len);
	free(r->rec);
	r->pg = NULL;
	r->rec = NULL;
}

static inline void ctr_ring_parse(struct ctr_ring *r, ctr_sample_fn fn,
				  void *arg)
{
	const struct perf_event_header *h = (const void *)r->rec;
	const __u64 *p = r->rec + 1, *end = r->rec + h->size / 8;
	struct ctr_sample s = { .execs = r->execs };

	if (r->sample_type & PERF_SAMPLE_IP)
		s.ip = *p++;
	if (r->sample_type & PERF_SAMPLE_TID) {
		s.pid = (__u32)*p;
		s.tid = (__u32)(*p++ >> 32);
	}
	if (r->sample_type & PERF_SAMPLE_TIME)
		s.time = *p++;
	if (r->sample_type & PERF_SAMPLE_CPU)
		s.cpu = (__u32)*p++;
	if (r->sample_type & PERF_SAMPLE_PERIOD)
		s.period = *p++;
	if (r->sample_type & PERF_SAMPLE_BRANCH_STACK) {
		s.nr = *p++;
		if (r->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			s.hw_idx = *p++;
		s.br = (const void *)p;
		p += s.nr * (sizeof(*s.br) / 8);
	}
	if (p > end) {
		r->bad++;
		return;
	}
	r->samples++;
	if (fn)
		fn(arg, &s);
}

/* Hand every sample in the ring to @fn; return how many there were. */
static inline unsigned long ctr_ring_drain(struct ctr_ring *r, ctr_sample_fn fn,
					   void *arg)
{
	struct perf_event_mmap_page *pg = r->pg;
	char *data = (char *)pg + pg->data_offset;
	__u64 size = pg->data_size;
	__u64 head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = pg->data_tail;
	unsigned long before = r->samples;

	while (tail < head) {
		const struct perf_event_header *h =
			(const void *)(data + tail % size);
		size_t n = h->size, first = size - tail % size;

		if (n < sizeof(*h) || n > CTR_RING_RECORD_MAX) {
			r->bad++;
			tail = head;
			break;
		}
		memcpy(r->rec, data + tail % size, n < first ? n : first);
		if (n > first)
			memcpy((char *)r->rec + first, data, n - first);
		tail += n;

		h = (const void *)r->rec;
		if (h->type == PERF_RECORD_LOST)
			r->lost += r->rec[2];
		else if (h->type == PERF_RECORD_COMM &&
			 (h->misc & PERF_RECORD_MISC_COMM_EXEC))
			r->execs++;
		else if (h->type == PERF_RECORD_SAMPLE)
			ctr_ring_parse(r, fn, arg);
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return r->samples - before;
}

#endif

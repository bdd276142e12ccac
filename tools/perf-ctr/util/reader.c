// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: the perf.data reader.
 *
 * The file is mapped (or, for a pipe, read into memory) and walked once.
 * Every length, count and offset in it is checked against the bytes that
 * are really there before it is used; the first violation ends the walk
 * with the file offset at which it was found. Samples point into the
 * mapping, so a branch stack of any depth costs no copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf-ctr.h"
#include "format.h"
#include "search.h"

#define FILE_HEADER_SIZE	104
#define PIPE_HEADER_SIZE	16

/* User record types that perf itself writes into a file or a pipe. */
enum {
	REC_HEADER_ATTR = 64,
	REC_HEADER_BUILD_ID = 67,
	REC_AUXTRACE = 71,
	REC_COMPRESSED = 81,
	REC_COMPRESSED2 = 83,
};

struct rd_event {
	struct perf_event_attr attr;
	const uint64_t *ids;
	size_t nr_ids;
};

struct rd_id {
	uint64_t id;
	uint32_t ev;
};

struct rd {
	const uint8_t *buf;
	size_t len;
	const struct pc_handlers *h;
	void *ctx;
	struct pc_error *err;

	struct rd_event *evs;
	size_t nr_evs, cap_evs;
	struct rd_id *ids;
	size_t nr_ids;
	bool ids_sorted;
	int id_pos;		/* u64 index of the sample id, -1 if none */

	/* A mapped file: pages of walked records are handed back up to here. */
	bool mapped;
	/*
	 * The data runs to the end of what there is (a pipe, a recording
	 * perf record did not finish, a copy cut short): a last record the
	 * end cuts is dropped with a warning, as perf does.
	 */
	bool cut;
	/* Where warnings name the input; NULL: print none (a later pass). */
	const char *warn_name;
	uint64_t dropped;
	size_t page;

	uint64_t *scratch;	/* aligned copy of a misaligned record */
	uint64_t *pipe_ids;	/* ids of pipe-mode attrs, owned */
	size_t nr_pipe_ids, cap_pipe_ids;
};

int pc_err(struct pc_error *err, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->offset = off;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static void rd_warn(const struct rd *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void rd_warn(const struct rd *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	if (!r->warn_name)
		return;
	fprintf(stderr, "perf-ctr: warning: %s: offset 0x%llx: ", r->warn_name,
		(unsigned long long)off);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The size field of the record header at @p. */
static uint16_t rec_size(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p + offsetof(struct perf_event_header, size), sizeof(v));
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Is [off, off + size) inside the buffer? Written to never overflow. */
static bool in_buf(const struct rd *r, uint64_t off, uint64_t size)
{
	return off <= r->len && size <= r->len - off;
}

static int add_event(struct rd *r, const uint8_t *attr, size_t attr_bytes,
		     const uint64_t *ids, size_t nr_ids, uint64_t off)
{
	struct rd_event *ev;

	if (r->nr_evs == r->cap_evs) {
		size_t cap = r->cap_evs ? r->cap_evs * 2 : 4;
		void *p;

		if (cap > 4096)
			return pc_err(r->err, off, "more than 4096 events");
		p = realloc(r->evs, cap * sizeof(*r->evs));
		if (!p)
			return pc_err(r->err, off, "out of memory");
		r->evs = p;
		r->cap_evs = cap;
	}
	ev = &r->evs[r->nr_evs];
	memset(ev, 0, sizeof(*ev));
	/* Older or newer attrs: keep what both sides know, zero the rest. */
	memcpy(&ev->attr, attr, attr_bytes < sizeof(ev->attr) ?
				 attr_bytes : sizeof(ev->attr));
	ev->attr.size = sizeof(ev->attr);
	if (attr_bytes < PERF_ATTR_SIZE_VER2)
		ev->attr.branch_sample_type = 0;
	ev->ids = ids;
	ev->nr_ids = nr_ids;
	r->nr_evs++;
	r->ids_sorted = false;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct rd_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Build the id → event table and the sample id position. perf requires
 * every event of a file to place the id at the same spot, so the first
 * event decides it.
 */
static int index_events(struct rd *r, uint64_t off)
{
	size_t i, j, n = 0, total = 0;
	uint64_t st;

	free(r->ids);
	r->ids = NULL;
	for (i = 0; i < r->nr_evs; i++)
		total += r->evs[i].nr_ids;
	/* Each id is 8 bytes of the input: more means sections overlap. */
	if (total > r->len / 8)
		return pc_err(r->err, off,
			      "the events' id sections hold %zu ids, more than a file of %zu bytes has room for",
			      total, r->len);
	if (total) {
		r->ids = calloc(total, sizeof(*r->ids));
		if (!r->ids)
			return pc_err(r->err, off, "out of memory");
	}
	for (i = 0; i < r->nr_evs; i++)
		for (j = 0; j < r->evs[i].nr_ids; j++) {
			r->ids[n].id = r->evs[i].ids[j];
			r->ids[n++].ev = i;
		}
	r->nr_ids = n;
	if (n > 1)
		qsort(r->ids, n, sizeof(*r->ids), cmp_id);
	r->ids_sorted = true;

	r->id_pos = -1;
	if (!r->nr_evs)
		return 0;
	st = r->evs[0].attr.sample_type;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		r->id_pos = 0;
	} else if (st & PERF_SAMPLE_ID) {
		r->id_pos = !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
			    !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR);
	}
	for (i = 1; i < r->nr_evs; i++) {
		uint64_t s = r->evs[i].attr.sample_type;

		/* Without IDENTIFIER the fields before ID place it. */
		if (((s ^ st) & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID)) ||
		    (!(st & PERF_SAMPLE_IDENTIFIER) && (st & PERF_SAMPLE_ID) &&
		     ((s ^ st) & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				  PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR))))
			return pc_err(r->err, off,
				      "events disagree on where the sample id is");
	}
	if (r->nr_evs > 1 && r->id_pos < 0)
		return pc_err(r->err, off,
			      "%zu events but samples carry no id", r->nr_evs);
	return 0;
}

static const struct rd_event *event_of(struct rd *r, uint64_t id)
{
	size_t n;

	if (r->nr_evs == 1)
		return &r->evs[0];
	n = pc_count_upto(r->ids, r->nr_ids, sizeof(*r->ids),
			  offsetof(struct rd_id, id), id);
	return n && r->ids[n - 1].id == id ? &r->evs[r->ids[n - 1].ev] : NULL;
}

static int call_attrs(struct rd *r, size_t from, uint64_t off)
{
	size_t i;
	int ret;

	if (!r->h->attr)
		return 0;
	for (i = from; i < r->nr_evs; i++) {
		ret = r->h->attr(r->ctx, &r->evs[i].attr, r->evs[i].ids,
				 r->evs[i].nr_ids);
		if (ret)
			return ret;
	}
	(void)off;
	return 0;
}

/* Number of u64 words a PERF_SAMPLE_READ value takes, or -1 if unknown. */
static int64_t read_words(const uint64_t *p, const uint64_t *end, uint64_t fmt)
{
	uint64_t per = 1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST);
	uint64_t head = !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			!!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t left = end - p, nr;

	if (!(fmt & PERF_FORMAT_GROUP))
		return per + head <= left ? (int64_t)(per + head) : -1;
	if (left < 1 + head)
		return -1;
	nr = p[0];
	if (nr > (left - 1 - head) / per)
		return -1;
	return 1 + head + nr * per;
}

#define NEED(n, what)							\
	do {								\
		if ((uint64_t)(end - p) < (uint64_t)(n))		\
			return pc_err(r->err, off + (p - rec) * 8,	\
				      "sample too short for its " what); \
	} while (0)

static int parse_sample(struct rd *r, const uint64_t *rec, uint64_t off)
{
	const struct perf_event_header *hdr = (const void *)rec;
	const uint64_t *end = rec + hdr->size / 8, *p = rec + 1;
	const struct rd_event *ev;
	struct pc_sample s;
	uint64_t st, id = 0;

	if (!r->nr_evs)
		return pc_err(r->err, off, "sample before any event attr");
	if (r->id_pos >= 0) {
		if (end - p <= r->id_pos)
			return pc_err(r->err, off, "sample too short for its id");
		id = p[r->id_pos];
	}
	ev = event_of(r, id);
	if (!ev)
		return pc_err(r->err, off, "sample id 0x%llx matches no event",
			      (unsigned long long)id);
	st = ev->attr.sample_type;

	memset(&s, 0, sizeof(s));
	s.offset = off;
	s.misc = hdr->misc;
	s.attr = &ev->attr;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		NEED(1, "identifier");
		s.id = *p++;
	}
	if (st & PERF_SAMPLE_IP) {
		NEED(1, "ip");
		s.ip = *p++;
	}
	if (st & PERF_SAMPLE_TID) {
		NEED(1, "pid/tid");
		s.pid = (uint32_t)*p;
		s.tid = (uint32_t)(*p++ >> 32);
	}
	if (st & PERF_SAMPLE_TIME) {
		NEED(1, "time");
		s.time = *p++;
	}
	if (st & PERF_SAMPLE_ADDR) {
		NEED(1, "addr");
		s.addr = *p++;
	}
	if (st & PERF_SAMPLE_ID) {
		NEED(1, "id");
		s.id = *p++;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		NEED(1, "stream id");
		p++;
	}
	if (st & PERF_SAMPLE_CPU) {
		NEED(1, "cpu");
		s.cpu = (uint32_t)*p++;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		NEED(1, "period");
		s.period = *p++;
	}
	if (st & PERF_SAMPLE_READ) {
		int64_t n = read_words(p, end, ev->attr.read_format);

		if (n < 0)
			return pc_err(r->err, off + (p - rec) * 8,
				      "sample too short for its read values");
		p += n;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		NEED(1, "callchain");
		s.callchain_nr = *p++;
		if (s.callchain_nr > (uint64_t)(end - p))
			return pc_err(r->err, off + (p - rec) * 8 - 8,
				      "callchain of %llu entries does not fit in the sample",
				      (unsigned long long)s.callchain_nr);
		s.callchain = p;
		p += s.callchain_nr;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint64_t bytes;

		NEED(1, "raw data");
		/* A u32 size, then the data, padded so the sum is u64-aligned. */
		bytes = 4 + (uint32_t)*p;
		bytes = (bytes + 7) / 8;
		if (bytes > (uint64_t)(end - p))
			return pc_err(r->err, off + (p - rec) * 8,
				      "raw data of %u bytes does not fit in the sample",
				      (uint32_t)*p);
		p += bytes;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t bst = ev->attr.branch_sample_type, left;

		NEED(1, "branch stack");
		s.nr = *p++;
		if (bst & PERF_SAMPLE_BRANCH_HW_INDEX) {
			NEED(1, "branch hw_idx");
			s.has_hw_idx = true;
			s.hw_idx = *p++;
		}
		left = end - p;
		if (bst & PERF_SAMPLE_BRANCH_COUNTERS)
			left = left / 4 * 4;
		if (s.nr > left / ((bst & PERF_SAMPLE_BRANCH_COUNTERS) ? 4 : 3))
			return pc_err(r->err, off + (p - rec) * 8 -
				      (s.has_hw_idx ? 16 : 8),
				      "branch stack of %llu entries does not fit in the sample",
				      (unsigned long long)s.nr);
		s.br = (const struct perf_branch_entry *)p;
		p += s.nr * 3;
		if (bst & PERF_SAMPLE_BRANCH_COUNTERS) {
			s.br_counters = p;
			p += s.nr;
		}
	}
	/* Later fields (regs, stack, weight, ...) are not used. */
	return r->h->sample ? r->h->sample(r->ctx, &s) : 0;
}

/* Byte length of the NUL-terminated string at P, or -1 if none before END. */
static ssize_t str_in(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *z = memchr(p, 0, end - p);

	return z ? z - p : -1;
}

/*
 * The time in the sample id a non-sample record ends with (attr
 * sample_id_all): its fields are, from the end, IDENTIFIER, CPU,
 * STREAM_ID, ID, TIME, TID. 0 when the record has none.
 */
static uint64_t sid_time(struct rd *r, const uint8_t *rec, size_t fixed)
{
	const struct perf_event_header *hdr = (const void *)rec;
	const uint64_t *p = (const uint64_t *)(rec + (hdr->size & ~7u));
	const uint64_t *lo = (const uint64_t *)(rec + ((fixed + 7) & ~(size_t)7));
	const struct rd_event *ev;
	uint64_t st;

	if (!r->nr_evs)
		return 0;
	ev = &r->evs[0];
	st = ev->attr.sample_type;
	if ((st & PERF_SAMPLE_IDENTIFIER) && r->nr_evs > 1) {
		if (p - 1 < lo)
			return 0;
		ev = event_of(r, p[-1]);
		if (!ev)
			return 0;
		st = ev->attr.sample_type;
	}
	if (!ev->attr.sample_id_all || !(st & PERF_SAMPLE_TIME))
		return 0;
	p -= !!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_CPU) +
	     !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_ID) + 1;
	return p >= lo ? *p : 0;
}

static int parse_mmap(struct rd *r, const uint8_t *rec, uint64_t off, bool v2)
{
	const struct perf_event_header *hdr = (const void *)rec;
	const uint8_t *end = rec + hdr->size, *p = rec + 8;
	size_t fixed = v2 ? 8 + 24 + 24 + 8 : 8 + 24;
	struct pc_mmap m;

	if (hdr->size < 8 + fixed)
		return pc_err(r->err, off, "%s record of %u bytes is too short",
			      v2 ? "MMAP2" : "MMAP", hdr->size);
	memset(&m, 0, sizeof(m));
	m.offset = off;
	m.misc = hdr->misc;
	memcpy(&m.pid, p, 4);
	memcpy(&m.tid, p + 4, 4);
	m.start = get64(p + 8);
	m.len = get64(p + 16);
	m.pgoff = get64(p + 24);
	p += 32;
	if (v2) {
		if (hdr->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m.build_id_size = p[0];
			if (m.build_id_size > 20)
				return pc_err(r->err, off + (p - rec),
					      "build id of %u bytes (at most 20)",
					      m.build_id_size);
			memcpy(m.build_id, p + 4, m.build_id_size);
		}
		p += 24;	/* maj/min/ino/gen or build id */
		memcpy(&m.prot, p, 4);
		p += 8;		/* prot, flags */
	} else {
		m.prot = hdr->misc & PERF_RECORD_MISC_MMAP_DATA ? 1 : 5;
	}
	if (str_in(p, end) < 0)
		return pc_err(r->err, off + (p - rec),
			      "file name not terminated inside the record");
	m.filename = (const char *)p;
	m.time = sid_time(r, rec, (p - rec) + strlen(m.filename) + 1);
	return r->h->mmap ? r->h->mmap(r->ctx, &m) : 0;
}

static int parse_comm(struct rd *r, const uint8_t *rec, uint64_t off)
{
	const struct perf_event_header *hdr = (const void *)rec;
	struct pc_comm c;

	if (hdr->size < 16)
		return pc_err(r->err, off, "COMM record of %u bytes is too short",
			      hdr->size);
	memset(&c, 0, sizeof(c));
	c.offset = off;
	memcpy(&c.pid, rec + 8, 4);
	memcpy(&c.tid, rec + 12, 4);
	if (str_in(rec + 16, rec + hdr->size) < 0)
		return pc_err(r->err, off + 16,
			      "command name not terminated inside the record");
	c.comm = (const char *)rec + 16;
	c.exec = hdr->misc & PERF_RECORD_MISC_COMM_EXEC;
	c.time = sid_time(r, rec, 16 + strlen(c.comm) + 1);
	return r->h->comm ? r->h->comm(r->ctx, &c) : 0;
}

/* FORK and EXIT: pid, ppid, tid, ptid, time. */
static int parse_task(struct rd *r, const uint8_t *rec, uint64_t off)
{
	const struct perf_event_header *hdr = (const void *)rec;
	struct pc_task t;

	if (hdr->size < 32)
		return pc_err(r->err, off, "%s record of %u bytes is too short",
			      hdr->type == PERF_RECORD_FORK ? "FORK" : "EXIT",
			      hdr->size);
	memset(&t, 0, sizeof(t));
	t.offset = off;
	t.exit = hdr->type == PERF_RECORD_EXIT;
	memcpy(&t.pid, rec + 8, 4);
	memcpy(&t.ppid, rec + 12, 4);
	memcpy(&t.tid, rec + 16, 4);
	memcpy(&t.ptid, rec + 20, 4);
	t.time = get64(rec + 24);
	return r->h->task ? r->h->task(r->ctx, &t) : 0;
}

/* LOST (id, lost), LOST_SAMPLES (lost), THROTTLE/UNTHROTTLE (time, id). */
static int parse_lost(struct rd *r, const uint8_t *rec, uint64_t off)
{
	const struct perf_event_header *hdr = (const void *)rec;
	struct pc_lost l;
	size_t need = hdr->type == PERF_RECORD_LOST_SAMPLES ? 16 :
		      hdr->type == PERF_RECORD_LOST ? 24 : 32;

	if (hdr->size < need)
		return pc_err(r->err, off, "record of type %u and %u bytes is too short",
			      hdr->type, hdr->size);
	memset(&l, 0, sizeof(l));
	l.offset = off;
	l.type = hdr->type;
	switch (hdr->type) {
	case PERF_RECORD_LOST:
		l.id = get64(rec + 8);
		l.nr = get64(rec + 16);
		l.time = sid_time(r, rec, 24);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		l.nr = get64(rec + 8);
		l.time = sid_time(r, rec, 16);
		break;
	default:
		l.time = get64(rec + 8);
		l.id = get64(rec + 16);
		break;
	}
	return r->h->lost ? r->h->lost(r->ctx, &l) : 0;
}

/*
 * One build_id_event: header, pid, 24 bytes of build id (20 + a size byte
 * that is valid when misc bit 15 says so), file name.
 */
static int parse_build_id(struct rd *r, const uint8_t *rec, size_t size,
			  uint64_t off)
{
	uint16_t misc;
	struct pc_mmap b;

	if (size < 8 + 4 + 24 + 1)
		return pc_err(r->err, off, "build id record of %zu bytes is too short",
			      size);
	memset(&b, 0, sizeof(b));
	memcpy(&misc, rec + 4, 2);
	b.offset = off;
	b.misc = misc;
	memcpy(&b.pid, rec + 8, 4);
	memcpy(b.build_id, rec + 12, 20);
	b.build_id_size = (misc & (1 << 15)) ? rec[32] : 20;
	if (b.build_id_size > 20)
		return pc_err(r->err, off + 32, "build id of %u bytes (at most 20)",
			      b.build_id_size);
	if (str_in(rec + 36, rec + size) < 0)
		return pc_err(r->err, off + 36,
			      "file name not terminated inside the record");
	b.filename = (const char *)rec + 36;
	return r->h->build_id ? r->h->build_id(r->ctx, &b) : 0;
}

/* A pipe-mode attr record: the attr (attr.size bytes), then its ids. */
static int parse_header_attr(struct rd *r, const uint8_t *rec, uint64_t off)
{
	const struct perf_event_header *hdr = (const void *)rec;
	uint32_t asize;
	size_t nr, i, payload = hdr->size - 8;
	int ret;

	if (payload < PERF_ATTR_SIZE_VER0)
		return pc_err(r->err, off, "attr record of %u bytes is too short",
			      hdr->size);
	memcpy(&asize, rec + 8 + 4, 4);
	if (!asize)
		asize = PERF_ATTR_SIZE_VER0;
	if (asize < PERF_ATTR_SIZE_VER0 || asize > payload || asize % 8)
		return pc_err(r->err, off + 12, "bad attr size %u", asize);
	nr = (payload - asize) / 8;
	if (!r->pipe_ids || r->nr_pipe_ids + nr > r->cap_pipe_ids) {
		/*
		 * Events keep pointers into this array: reallocate, then
		 * repoint them all.
		 */
		size_t cap = (r->nr_pipe_ids + nr) * 2 + 16, used = 0;
		uint64_t *p = realloc(r->pipe_ids, cap * sizeof(*p));

		if (!p)
			return pc_err(r->err, off, "out of memory");
		r->pipe_ids = p;
		r->cap_pipe_ids = cap;
		for (i = 0; i < r->nr_evs; i++) {
			r->evs[i].ids = r->pipe_ids + used;
			used += r->evs[i].nr_ids;
		}
	}
	for (i = 0; i < nr; i++)
		r->pipe_ids[r->nr_pipe_ids + i] = get64(rec + 8 + asize + i * 8);
	if (add_event(r, rec + 8, asize, r->pipe_ids + r->nr_pipe_ids, nr, off))
		return -1;
	r->nr_pipe_ids += nr;
	if (index_events(r, off))
		return -1;
	ret = call_attrs(r, r->nr_evs - 1, off);
	return ret;
}

/* Walk the records in [start, start + size). */
/*
 * A file read through its mapping: every 2 MiB, hand back the pages of
 * the records already walked, so that resident memory follows what the
 * callbacks keep, not the size of the file. The mapping is private and
 * never written: a page touched again (an attr, a name) comes back from
 * the file.
 */
#define DROP_CHUNK	(2UL << 20)

static void drop_behind(struct rd *r, uint64_t off)
{
	uint64_t end;

	if (!r->mapped || off < r->dropped || off - r->dropped < 2 * DROP_CHUNK)
		return;
	end = (off - DROP_CHUNK) & ~(uint64_t)(r->page - 1);
	madvise((void *)(r->buf + r->dropped), end - r->dropped, MADV_DONTNEED);
	r->dropped = end;
}

static int walk(struct rd *r, uint64_t start, uint64_t size, bool pipe)
{
	uint64_t off = start, end = start + size;
	int ret;

	r->dropped = (start + r->page - 1) & ~(uint64_t)(r->page - 1);
	while (off < end) {
		struct perf_event_header hdr;
		const uint8_t *rec;

		if (r->cut && (end - off < sizeof(hdr) ||
			       rec_size(r->buf + off) > end - off)) {
			rd_warn(r, off, "the last record is cut short by the end of the file (%llu bytes): dropped",
				(unsigned long long)(end - off));
			break;
		}
		if (end - off < sizeof(hdr))
			return pc_err(r->err, off,
				      "truncated record header (%llu bytes left)",
				      (unsigned long long)(end - off));
		memcpy(&hdr, r->buf + off, sizeof(hdr));
		if (hdr.size < sizeof(hdr))
			return pc_err(r->err, off, "record size %u is smaller than its header",
				      hdr.size);
		if (hdr.size > end - off)
			return pc_err(r->err, off,
				      "record of %u bytes runs past the end of the data (0x%llx)",
				      hdr.size, (unsigned long long)end);
		rec = r->buf + off;
		/* Records are u64 arrays: give the parsers an aligned copy if need be. */
		if (((uintptr_t)rec & 7) || (hdr.size & 7)) {
			/* Zero the tail of the last u64 the record ends in. */
			r->scratch[(hdr.size - 1) / 8] = 0;
			memcpy(r->scratch, rec, hdr.size);
			rec = (const uint8_t *)r->scratch;
		}
		switch (hdr.type) {
		case PERF_RECORD_SAMPLE:
			ret = parse_sample(r, (const uint64_t *)rec, off);
			break;
		case PERF_RECORD_MMAP:
			ret = parse_mmap(r, rec, off, false);
			break;
		case PERF_RECORD_MMAP2:
			ret = parse_mmap(r, rec, off, true);
			break;
		case PERF_RECORD_COMM:
			ret = parse_comm(r, rec, off);
			break;
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
			ret = parse_task(r, rec, off);
			break;
		case PERF_RECORD_LOST:
		case PERF_RECORD_LOST_SAMPLES:
		case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE:
			ret = parse_lost(r, rec, off);
			break;
		case REC_HEADER_ATTR:
			ret = pipe ? parse_header_attr(r, rec, off) : 0;
			break;
		case REC_HEADER_BUILD_ID:
			ret = parse_build_id(r, rec, hdr.size, off);
			break;
		case REC_COMPRESSED:
		case REC_COMPRESSED2:
			return pc_err(r->err, off,
				      "compressed records (perf record -z) are not supported");
		case REC_AUXTRACE: {
			/* Its payload follows the record, outside header.size. */
			uint64_t extra;

			if (hdr.size < 16)
				return pc_err(r->err, off, "AUXTRACE record too short");
			extra = get64(rec + 8);
			if (extra > end - off - hdr.size)
				return pc_err(r->err, off + 8,
					      "AUXTRACE data of %llu bytes runs past the end",
					      (unsigned long long)extra);
			off += extra;
			ret = 0;
			break;
		}
		default:
			ret = 0;
		}
		if (ret)
			return ret;
		off += hdr.size;
		drop_behind(r, off);
	}
	return 0;
}

/* The HEADER_BUILD_ID feature: a sequence of build_id_event records. */
static int walk_build_ids(struct rd *r, uint64_t start, uint64_t size)
{
	uint64_t off = start, end = start + size;
	int ret;

	while (off < end) {
		uint16_t rsize;

		if (end - off < 8)
			return pc_err(r->err, off, "truncated build id record");
		memcpy(&rsize, r->buf + off + 6, 2);
		if (rsize < 8 || rsize > end - off)
			return pc_err(r->err, off, "build id record of bad size %u",
				      rsize);
		ret = parse_build_id(r, r->buf + off, rsize, off);
		if (ret)
			return ret;
		off += rsize;
	}
	return 0;
}

static int read_pipe(struct rd *r)
{
	uint64_t size = get64(r->buf + 8);

	if (size != PIPE_HEADER_SIZE)
		return pc_err(r->err, 8, "pipe header size %llu, expected 16",
			      (unsigned long long)size);
	r->cut = true;
	return walk(r, PIPE_HEADER_SIZE, r->len - PIPE_HEADER_SIZE, true);
}

static int read_file_mode(struct rd *r)
{
	uint64_t hsize = get64(r->buf + 8), attr_size, a_off, a_size;
	uint64_t d_off, d_size, feat[4], i, nr_attrs, ftab;
	int ret, bit, idx;

	if (r->len < FILE_HEADER_SIZE)
		return pc_err(r->err, r->len, "truncated file header (%zu of %d bytes)",
			      r->len, FILE_HEADER_SIZE);
	if (hsize != FILE_HEADER_SIZE)
		return pc_err(r->err, 8, "header size %llu, expected %d",
			      (unsigned long long)hsize, FILE_HEADER_SIZE);
	attr_size = get64(r->buf + 16);
	a_off = get64(r->buf + 24);
	a_size = get64(r->buf + 32);
	d_off = get64(r->buf + 40);
	d_size = get64(r->buf + 48);
	memcpy(feat, r->buf + 72, sizeof(feat));

	if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > 4096 || attr_size % 8)
		return pc_err(r->err, 16, "bad attr size %llu",
			      (unsigned long long)attr_size);
	if (!in_buf(r, a_off, a_size))
		return pc_err(r->err, 24, "attr section [0x%llx, +0x%llx) is outside the file",
			      (unsigned long long)a_off, (unsigned long long)a_size);
	if (a_size % attr_size)
		return pc_err(r->err, 32, "attr section size %llu is not a multiple of %llu",
			      (unsigned long long)a_size, (unsigned long long)attr_size);
	if (d_off > r->len)
		return pc_err(r->err, 40, "data section [0x%llx, +0x%llx) is outside the file",
			      (unsigned long long)d_off, (unsigned long long)d_size);
	if (!d_size && d_off < r->len) {
		/* perf record writes the size when it ends: it was stopped. */
		rd_warn(r, 48, "the data size is 0: perf record did not finish; reading the data to the end of the file");
		r->cut = true;
	} else if (!in_buf(r, d_off, d_size)) {
		rd_warn(r, 48, "the data section [0x%llx, +0x%llx) runs past the end of the file (0x%zx): reading what there is",
			(unsigned long long)d_off, (unsigned long long)d_size, r->len);
		r->cut = true;
	}
	if (r->cut) {
		d_size = r->len - d_off;
		/* The feature sections follow the data: none are there. */
		feat[0] = 0;
	}

	nr_attrs = a_size / attr_size;
	for (i = 0; i < nr_attrs; i++) {
		uint64_t aoff = a_off + i * attr_size;
		uint64_t ids_off = get64(r->buf + aoff + attr_size - 16);
		uint64_t ids_size = get64(r->buf + aoff + attr_size - 8);

		if (!in_buf(r, ids_off, ids_size) || ids_size % 8)
			return pc_err(r->err, aoff + attr_size - 16,
				      "id section [0x%llx, +0x%llx) of attr %llu is outside the file",
				      (unsigned long long)ids_off,
				      (unsigned long long)ids_size,
				      (unsigned long long)i);
		/* The ids are read in place: they must be aligned for that. */
		if (((uintptr_t)(r->buf + ids_off)) & 7)
			return pc_err(r->err, aoff + attr_size - 16,
				      "id section of attr %llu is not 8-byte aligned",
				      (unsigned long long)i);
		if (add_event(r, r->buf + aoff, attr_size - 16,
			      (const uint64_t *)(r->buf + ids_off), ids_size / 8, aoff))
			return -1;
	}
	if (index_events(r, a_off))
		return -1;
	ret = call_attrs(r, 0, a_off);
	if (ret)
		return ret;

	ret = walk(r, d_off, d_size, false);
	if (ret)
		return ret;

	/* The feature table follows the data: one section per set bit. */
	if (!r->h->build_id || !(feat[0] & (1ULL << FEAT_BUILD_ID)))
		return 0;
	for (idx = 0, bit = 0; bit < FEAT_BUILD_ID; bit++)
		idx += !!(feat[0] & (1ULL << bit));
	ftab = d_off + d_size + idx * 16;
	if (!in_buf(r, ftab, 16))
		return pc_err(r->err, ftab, "feature table runs past the end of the file");
	a_off = get64(r->buf + ftab);
	a_size = get64(r->buf + ftab + 8);
	if (!in_buf(r, a_off, a_size))
		return pc_err(r->err, ftab, "build id section is outside the file");
	return walk_build_ids(r, a_off, a_size);
}

static int read_buffer(const void *buf, size_t len, bool mapped,
		       const char *warn_name, const struct pc_handlers *h,
		       void *ctx, struct pc_error *err)
{
	struct rd r = {
		.buf = buf, .len = len, .h = h, .ctx = ctx, .err = err,
		.id_pos = -1, .mapped = mapped, .page = sysconf(_SC_PAGESIZE),
		.warn_name = warn_name,
	};
	uint64_t magic;
	int ret;

	if (len < PIPE_HEADER_SIZE)
		return pc_err(err, len, "truncated file header (%zu bytes)", len);
	magic = get64(buf);
	if (magic == PC_MAGIC_SWAPPED)
		return pc_err(err, 0, "big-endian perf.data is not supported");
	if (magic != PC_MAGIC)
		return pc_err(err, 0, "not a perf.data file (bad magic)");
	r.scratch = aligned_alloc(8, 65536);
	if (!r.scratch)
		return pc_err(err, 0, "out of memory");
	ret = get64(r.buf + 8) == PIPE_HEADER_SIZE ? read_pipe(&r)
						   : read_file_mode(&r);
	if (!ret && h->end)
		ret = h->end(ctx);
	free(r.scratch);
	free(r.evs);
	free(r.ids);
	free(r.pipe_ids);
	return ret;
}

int pc_read_buffer(const void *buf, size_t len, const struct pc_handlers *h,
		   void *ctx, struct pc_error *err)
{
	return read_buffer(buf, len, false, "<buffer>", h, ctx, err);
}

/* Read all of FD (a pipe or stdin) into memory. */
static int slurp(int fd, uint8_t **out, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	uint8_t *b = malloc(cap);

	if (!b)
		return -1;
	for (;;) {
		ssize_t got;

		if (n == cap) {
			uint8_t *nb = realloc(b, cap * 2);

			if (!nb) {
				free(b);
				return -1;
			}
			b = nb;
			cap *= 2;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(b);
			return -1;
		}
		if (!got)
			break;
		n += got;
	}
	*out = b;
	*len = n;
	return 0;
}

/*
 * A mapped file that another process truncates meanwhile raises SIGBUS
 * at the first access past its new end: the read ends with an error
 * instead of the process.
 */
static sigjmp_buf shrunk_jmp;
static volatile sig_atomic_t in_mapped_read;

static void on_sigbus(int sig)
{
	if (in_mapped_read)
		siglongjmp(shrunk_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int read_mapped(const uint8_t *buf, size_t len, const char *file,
		       unsigned int n, const struct pc_handlers *const *h,
		       void *const *ctx, struct pc_error *err)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	volatile unsigned int i;
	int ret = 0;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(shrunk_jmp, 1)) {
		in_mapped_read = 0;
		sigaction(SIGBUS, &old, NULL);
		return pc_err(err, 0, "the file shrank below its %zu bytes while it was read (pass %u)",
			      len, i + 1);
	}
	in_mapped_read = 1;
	for (i = 0; i < n && !ret; i++) {
		madvise((void *)buf, len, MADV_SEQUENTIAL);
		madvise((void *)buf, len, MADV_WILLNEED);
		ret = read_buffer(buf, len, true, i ? NULL : file, h[i], ctx[i],
				  err);
	}
	in_mapped_read = 0;
	sigaction(SIGBUS, &old, NULL);
	return ret;
}

/* Walk FILE once per handler set: the file is mapped or read only once. */
int pc_read_file_passes(const char *file, unsigned int n,
			const struct pc_handlers *const *h, void *const *ctx,
			struct pc_error *err)
{
	struct stat st;
	uint8_t *buf;
	size_t len;
	unsigned int i;
	int fd, ret = 0;

	fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0)
		return pc_err(err, 0, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) < 0) {
		ret = pc_err(err, 0, "cannot stat: %s", strerror(errno));
		goto out;
	}
	if (S_ISREG(st.st_mode)) {
		len = st.st_size;
		if (!len) {
			ret = pc_err(err, 0, "empty file");
			goto out;
		}
		buf = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (buf == MAP_FAILED) {
			ret = pc_err(err, 0, "cannot map: %s", strerror(errno));
			goto out;
		}
		ret = read_mapped(buf, len, file, n, h, ctx, err);
		munmap(buf, len);
	} else {
		if (slurp(fd, &buf, &len) < 0) {
			ret = pc_err(err, 0, "cannot read: %s", strerror(errno));
			goto out;
		}
		for (i = 0; i < n && !ret; i++)
			ret = read_buffer(buf, len, false,
					  i ? NULL : strcmp(file, "-") ? file : "<stdin>",
					  h[i], ctx[i], err);
		free(buf);
	}
out:
	if (fd > 0)
		close(fd);
	return ret;
}

int pc_read_file(const char *file, const struct pc_handlers *h, void *ctx,
		 struct pc_error *err)
{
	return pc_read_file_passes(file, 1, &h, &ctx, err);
}

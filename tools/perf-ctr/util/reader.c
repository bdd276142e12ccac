// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: the perf.data reader.
 *
 * A file is read through a window (a pipe is read into memory first):
 * its header, attrs, ids and features with pread(), its data section a
 * few hundred KiB at a time, so that what is read is still in the cache
 * when it is walked, and resident memory is the window, not the file.
 * Every length, count and offset in it is checked against the bytes that
 * are really there before it is used; the first violation ends the walk
 * with the file offset at which it was found. Samples point into the
 * window, so a branch stack of any depth costs no copy.
 *
 * Samples can be handed out in the order perf processes them (ordered
 * walks, pc_handlers.flush): perf record ends each pass over its ring
 * buffers with a FINISHED_ROUND record, and every record written after
 * round N + 1 is younger than the youngest one before round N. So at
 * the end of round N + 1 every sample up to that time can be processed:
 * the side-band records up to it are all in. A sample younger than that
 * waits in the window, in file order, for a later round.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf-ctr.h"
#include "format.h"
#include "mem.h"
#include "search.h"

#define FILE_HEADER_SIZE	104
#define PIPE_HEADER_SIZE	16

/* The time of a sample without PERF_SAMPLE_TIME: it waits for the end. */
#define PC_TIME_NONE		(UINT64_MAX - 1)

/* User record types that perf itself writes into a file or a pipe. */
enum {
	REC_HEADER_ATTR = 64,
	REC_HEADER_BUILD_ID = 67,
	REC_AUXTRACE = 71,
	REC_COMPRESSED = 81,
	REC_COMPRESSED2 = 83,
};

/* Where the one-word fields a sample starts with go. */
enum { W_ID, W_IP, W_TID, W_TIME, W_ADDR, W_STREAM_ID, W_CPU, W_PERIOD, NR_W };

/* Those fields, in their order in a sample. */
static const struct {
	uint64_t bit;
	const char *what;
	int field;
} words[] = {
	{ PERF_SAMPLE_IDENTIFIER, "identifier", W_ID },
	{ PERF_SAMPLE_IP, "ip", W_IP },
	{ PERF_SAMPLE_TID, "pid/tid", W_TID },
	{ PERF_SAMPLE_TIME, "time", W_TIME },
	{ PERF_SAMPLE_ADDR, "addr", W_ADDR },
	{ PERF_SAMPLE_ID, "id", W_ID },
	{ PERF_SAMPLE_STREAM_ID, "stream id", W_STREAM_ID },
	{ PERF_SAMPLE_CPU, "cpu", W_CPU },
	{ PERF_SAMPLE_PERIOD, "period", W_PERIOD },
};

#define NR_WORDS	(sizeof(words) / sizeof(words[0]))

struct rd_event {
	struct perf_event_attr attr;
	const uint64_t *ids;
	size_t nr_ids;
	/* the words[] its samples start with: decoded without a test each */
	uint8_t word[NR_WORDS];
	uint8_t nr_words;
};

struct rd_id {
	uint64_t id;
	uint32_t ev;
};

/*
 * A sample that waits for its round: where it is, its time, and itself
 * as decoded, its pointers into its record (which the window may move
 * meanwhile) kept as offsets from the record's start, 0 for none. The
 * decoding holds while no event has come since (a pipe's attr records
 * may come between samples and move the events).
 */
struct rd_wait {
	uint64_t off, time;
	struct pc_sample s;
	uint32_t br, callchain, br_counters;
	size_t nr_evs;
};

struct rd {
	const struct pc_handlers *h;
	void *ctx;
	struct pc_error *err;

	/*
	 * The input: all of it in memory (MEM), or the file FD through a
	 * window, WIN[0, FILL) holding bytes [WIN_OFF, WIN_OFF + FILL).
	 */
	const uint8_t *mem;
	int fd;
	uint8_t *win;
	size_t cap, fill;
	uint64_t win_off;
	size_t len;		/* bytes in the input */
	uint64_t data_end;	/* no record goes past it */

	struct rd_event *evs;
	size_t nr_evs, cap_evs;
	struct rd_id *ids;
	size_t nr_ids;
	bool ids_sorted;
	int id_pos;		/* u64 index of the sample id, -1 if none */

	/*
	 * The data runs to the end of what there is (a pipe, a recording
	 * perf record did not finish, a copy cut short): a last record the
	 * end cuts is dropped with a warning, as perf does.
	 */
	bool cut;
	/* Where warnings name the input; NULL: print none (a later pass). */
	const char *warn_name;

	/* An ordered walk (h->flush): samples wait here for their round. */
	struct rd_wait *wait;
	size_t head, nr_wait, cap_wait;
	uint64_t limit;		/* samples up to this time can be handed out */
	uint64_t next_limit;	/* the limit after the next round */
	uint64_t max_time;	/* of every record so far */
	bool rounds, handed;

	uint64_t *scratch;	/* aligned copy of a misaligned record */
	uint64_t *pipe_ids;	/* ids of pipe-mode attrs, owned */
	size_t nr_pipe_ids, cap_pipe_ids;
	uint64_t *file_ids;	/* ids of file-mode attrs, owned */
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
	size_t i;

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
	for (i = 0; i < NR_WORDS; i++)
		if (ev->attr.sample_type & words[i].bit)
			ev->word[ev->nr_words++] = i;
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

/* A record of time T went by: rounds hand out samples up to such times. */
static inline void saw_time(struct rd *r, uint64_t t)
{
	if (t > r->max_time && t < PC_TIME_NONE)
		r->max_time = t;
}

#define NEED(n, what)							\
	do {								\
		if ((uint64_t)(end - p) < (uint64_t)(n))		\
			return pc_err(r->err, off + (p - rec) * 8,	\
				      "sample too short for its " what); \
	} while (0)

/* Decode the sample REC at file offset OFF into *OUT. 0, or -1 with r->err. */
static int decode_sample(struct rd *r, const uint64_t *rec, uint64_t off,
			 struct pc_sample *out)
{
	const struct perf_event_header *hdr = (const void *)rec;
	const uint64_t *end = rec + hdr->size / 8, *p = rec + 1;
	const struct rd_event *ev;
	uint64_t st, id = 0, w[NR_W] = { 0 };
	struct pc_sample s;
	size_t i;

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
	if ((uint64_t)(end - p) < ev->nr_words)
		return pc_err(r->err, off + (end - rec) * 8, "sample too short for its %s",
			      words[ev->word[end - p]].what);
	for (i = 0; i < ev->nr_words; i++)
		w[words[ev->word[i]].field] = p[i];
	p += ev->nr_words;
	s.id = w[W_ID];
	s.ip = w[W_IP];
	s.pid = (uint32_t)w[W_TID];
	s.tid = (uint32_t)(w[W_TID] >> 32);
	s.time = w[W_TIME];
	s.addr = w[W_ADDR];
	s.cpu = (uint32_t)w[W_CPU];
	s.period = w[W_PERIOD];
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
	*out = s;
	return 0;
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

/* A side-band record of kind WHAT too short for what it must hold. */
static int too_short(struct rd *r, uint64_t off, const char *what,
		     uint16_t size)
{
	return pc_err(r->err, off, "%s record of %u bytes is too short", what, size);
}

/* The pid and tid at P of a side-band record. */
static void pid_tid(const uint8_t *p, uint32_t *pid, uint32_t *tid)
{
	memcpy(pid, p, 4);
	memcpy(tid, p + 4, 4);
}

/* The time of a side-band record whose sample id follows FIXED bytes. */
static uint64_t sb_time(struct rd *r, const uint8_t *rec, size_t fixed)
{
	uint64_t t = sid_time(r, rec, fixed);

	saw_time(r, t);
	return t;
}

static int parse_mmap(struct rd *r, const uint8_t *rec, uint64_t off, bool v2)
{
	const struct perf_event_header *hdr = (const void *)rec;
	const uint8_t *end = rec + hdr->size, *p = rec + 8;
	size_t fixed = v2 ? 8 + 24 + 24 + 8 : 8 + 24;
	struct pc_mmap m;

	if (hdr->size < 8 + fixed)
		return too_short(r, off, v2 ? "MMAP2" : "MMAP", hdr->size);
	memset(&m, 0, sizeof(m));
	m.offset = off;
	m.misc = hdr->misc;
	pid_tid(p, &m.pid, &m.tid);
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
	m.time = sb_time(r, rec, (p - rec) + strlen(m.filename) + 1);
	return r->h->mmap ? r->h->mmap(r->ctx, &m) : 0;
}

static int parse_comm(struct rd *r, const uint8_t *rec, uint64_t off)
{
	const struct perf_event_header *hdr = (const void *)rec;
	struct pc_comm c;

	if (hdr->size < 16)
		return too_short(r, off, "COMM", hdr->size);
	if (str_in(rec + 16, rec + hdr->size) < 0)
		return pc_err(r->err, off + 16,
			      "command name not terminated inside the record");
	memset(&c, 0, sizeof(c));
	c.offset = off;
	pid_tid(rec + 8, &c.pid, &c.tid);
	c.comm = (const char *)rec + 16;
	c.exec = hdr->misc & PERF_RECORD_MISC_COMM_EXEC;
	c.time = sb_time(r, rec, 16 + strlen(c.comm) + 1);
	return r->h->comm ? r->h->comm(r->ctx, &c) : 0;
}

/* FORK and EXIT: pid, ppid, tid, ptid, time. */
static int parse_task(struct rd *r, const uint8_t *rec, uint64_t off)
{
	const struct perf_event_header *hdr = (const void *)rec;
	struct pc_task t;

	if (hdr->size < 32)
		return too_short(r, off, hdr->type == PERF_RECORD_FORK ? "FORK" : "EXIT",
				 hdr->size);
	memset(&t, 0, sizeof(t));
	t.offset = off;
	t.exit = hdr->type == PERF_RECORD_EXIT;
	pid_tid(rec + 8, &t.pid, &t.ppid);
	pid_tid(rec + 16, &t.tid, &t.ptid);
	t.time = get64(rec + 24);
	saw_time(r, t.time);
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
	saw_time(r, l.time);
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

/* ---- the input ---- */

/*
 * Bytes a read() of the data asks for: few enough that the bytes the
 * kernel copies are still in the cache when they are walked (into a
 * window of 4 MiB, the same copies took four times as long on the
 * two-core VM bench-perf-ctr ran on).
 */
#define READ_CHUNK	(256u << 10)

/*
 * The window grows in whole huge pages (mem.h): with small pages each
 * page of it was first faulted in by the kernel's copy and then again,
 * in a VM with shadow page tables, by the first access of ours.
 */
/* The file shrank under us: perf record or a copy truncated it. */
static int shrank(struct rd *r, uint64_t at)
{
	return pc_err(r->err, 0, "the file shrank below its %zu bytes while it was read (at 0x%llx)",
		      r->len, (unsigned long long)at);
}

/* Read LEN bytes at OFF of the input into DST: header, attrs, features. */
static int in_pread(struct rd *r, uint64_t off, size_t len, void *dst)
{
	size_t done = 0;

	if (r->mem) {
		memcpy(dst, r->mem + off, len);
		return 0;
	}
	while (done < len) {
		ssize_t got = pread(r->fd, (uint8_t *)dst + done, len - done,
				    off + done);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return pc_err(r->err, off + done, "cannot read: %s",
				      strerror(errno));
		if (!got)
			return shrank(r, off + done);
		done += got;
	}
	return 0;
}

/* Where the window must start to keep the sample waiting longest, or OFF. */
static uint64_t keep_from(const struct rd *r, uint64_t off)
{
	uint64_t k = r->nr_wait > r->head ? r->wait[r->head].off : off;

	return (k < off ? k : off) & ~7ULL;
}

/*
 * The bytes [OFF, OFF + N) of the data (OFF + N <= data_end), or NULL
 * with r->err. Valid until the next call asks for bytes past the window;
 * the samples that wait for their round stay in it.
 */
static const uint8_t *in_get(struct rd *r, uint64_t off, size_t n)
{
	size_t need;

	if (r->mem)
		return r->mem + off;
	if (off >= r->win_off && off + n <= r->win_off + r->fill)
		return r->win + (off - r->win_off);
	if (off < r->win_off || off + n - r->win_off > r->cap) {
		/* No room behind it: keep only what is still needed... */
		uint64_t keep = keep_from(r, off);
		size_t cap = r->cap ? r->cap : PC_HUGE_PAGE, skip = 0;
		uint8_t *w = r->win;

		if (keep < r->win_off || keep >= r->win_off + r->fill) {
			r->fill = 0;
		} else {
			skip = keep - r->win_off;
			r->fill -= skip;
		}
		r->win_off = keep;
		/* ...with room for it twice over: moved seldom */
		while (cap < off + n - r->win_off || cap < 2 * r->fill + READ_CHUNK)
			cap *= 2;
		if (cap > r->cap) {
			w = pc_huge_zalloc(cap);
			if (!w) {
				pc_err(r->err, off, "out of memory");
				return NULL;
			}
		}
		if (r->fill)
			memmove(w, r->win + skip, r->fill);
		if (w != r->win) {
			pc_huge_free(r->win, r->cap);
			r->win = w;
			r->cap = cap;
		}
	}
	need = off + n - r->win_off;
	while (r->fill < need) {
		uint64_t at = r->win_off + r->fill;
		size_t want = r->cap - r->fill;
		ssize_t got;

		/* a chunk at a time, walked while it is in the cache */
		if (want > READ_CHUNK && need - r->fill <= READ_CHUNK)
			want = READ_CHUNK;
		if (want > r->data_end - at)
			want = r->data_end - at;
		got = pread(r->fd, r->win + r->fill, want, at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			pc_err(r->err, at, "cannot read: %s", strerror(errno));
			return NULL;
		}
		if (!got) {
			shrank(r, at);
			return NULL;
		}
		r->fill += got;
	}
	return r->win + (off - r->win_off);
}

/* ---- samples in perf's order ---- */

static int hand_out(struct rd *r, const struct pc_sample *s)
{
	r->handed = true;
	return r->h->sample ? r->h->sample(r->ctx, s) : 0;
}

/* Records are u64 arrays: an aligned copy of REC if need be. */
static const uint8_t *aligned(struct rd *r, const uint8_t *rec, uint16_t size)
{
	if (!((uintptr_t)rec & 7) && !(size & 7))
		return rec;
	/* Zero the tail of the last u64 the record ends in. */
	r->scratch[(size - 1) / 8] = 0;
	memcpy(r->scratch, rec, size);
	return (const uint8_t *)r->scratch;
}

/* P, a pointer into the record at REC, as an offset from it; and back. */
static uint32_t rec_rel(const void *p, const uint8_t *rec)
{
	return p ? (uint32_t)((const uint8_t *)p - rec) : 0;
}

static const void *rec_ptr(uint32_t rel, const uint8_t *rec)
{
	return rel ? rec + rel : NULL;
}

/*
 * Hand out the waiting samples up to the limit, oldest in the file first,
 * as they were decoded when they came: their records are where the
 * window has them now.
 */
static int hand_out_waiting(struct rd *r)
{
	while (r->head < r->nr_wait && r->wait[r->head].time <= r->limit) {
		const struct rd_wait *w = &r->wait[r->head];
		const uint8_t *rec = in_get(r, w->off, sizeof(struct perf_event_header));
		struct pc_sample s;
		int ret;

		if (rec)
			rec = in_get(r, w->off, rec_size(rec));
		if (!rec)
			return -1;
		rec = aligned(r, rec, rec_size(rec));
		if (w->nr_evs != r->nr_evs) {
			if (decode_sample(r, (const uint64_t *)rec, w->off, &s))
				return -1;
		} else {
			s = w->s;
			s.br = rec_ptr(w->br, rec);
			s.callchain = rec_ptr(w->callchain, rec);
			s.br_counters = rec_ptr(w->br_counters, rec);
		}
		r->head++;
		ret = hand_out(r, &s);
		if (ret)
			return ret;
	}
	/* What is handed out leaves the queue; the rest moves to its front. */
	if (r->head > r->nr_wait / 2) {
		r->nr_wait -= r->head;
		memmove(r->wait, r->wait + r->head, r->nr_wait * sizeof(*r->wait));
		r->head = 0;
	}
	return 0;
}

/* The side-band records up to LIMIT are in: their samples can go out. */
static int flush_to(struct rd *r, uint64_t limit)
{
	int ret;

	if (limit > r->limit)
		r->limit = limit;
	ret = r->h->flush(r->ctx, r->limit);
	return ret ? ret : hand_out_waiting(r);
}

/*
 * How much of the file a walk may hold back for samples that wait. A
 * recording that has shown no round by then has none (perf record ends
 * its first pass within a few buffers): it is read in two passes
 * instead (PC_READ_UNORDERED). Past the larger span in one with rounds,
 * the oldest samples go out early, as perf does past its own limit.
 */
#define WAIT_SPAN_NO_ROUND	(16ULL << 20)
#define WAIT_SPAN	(64ULL << 20)

static int wait_for_round(struct rd *r, const struct pc_sample *s,
			  const uint8_t *rec, uint64_t off)
{
	uint64_t t = s->attr->sample_type & PERF_SAMPLE_TIME ? s->time : PC_TIME_NONE;
	struct rd_wait *w;
	int ret;

	saw_time(r, t);
	if (r->head == r->nr_wait && t <= r->limit)
		return hand_out(r, s);
	w = pc_grow(r->wait, &r->cap_wait, r->nr_wait, sizeof(*r->wait), 64);
	if (!w)
		return pc_err(r->err, off, "out of memory");
	r->wait = w;
	w += r->nr_wait++;
	w->off = off;
	w->time = t;
	w->s = *s;
	w->br = rec_rel(s->br, rec);
	w->callchain = rec_rel(s->callchain, rec);
	w->br_counters = rec_rel(s->br_counters, rec);
	w->nr_evs = r->nr_evs;
	if (!r->rounds && !r->handed &&
	    off - r->wait[r->head].off > WAIT_SPAN_NO_ROUND)
		return PC_READ_UNORDERED;
	while (r->head < r->nr_wait && off - r->wait[r->head].off > WAIT_SPAN) {
		ret = flush_to(r, r->wait[r->head].time);
		if (ret)
			return ret;
	}
	return 0;
}

/* FINISHED_ROUND: what was younger than the round before last is all in. */
static int end_round(struct rd *r)
{
	uint64_t limit = r->next_limit;

	r->rounds = true;
	r->next_limit = r->max_time;
	return flush_to(r, limit);
}

/* ---- the walk ---- */

static int walk(struct rd *r, uint64_t start, uint64_t end, bool pipe)
{
	uint64_t off = start;
	int ret;

	r->data_end = end;
	while (off < end) {
		struct perf_event_header hdr;
		const uint8_t *rec;

		rec = end - off >= sizeof(hdr) ? in_get(r, off, sizeof(hdr)) : NULL;
		if (!rec && end - off >= sizeof(hdr))
			return -1;
		if (r->cut && (!rec || rec_size(rec) > end - off)) {
			rd_warn(r, off, "the last record is cut short by the end of the file (%llu bytes): dropped",
				(unsigned long long)(end - off));
			break;
		}
		if (!rec)
			return pc_err(r->err, off,
				      "truncated record header (%llu bytes left)",
				      (unsigned long long)(end - off));
		memcpy(&hdr, rec, sizeof(hdr));
		if (hdr.size < sizeof(hdr))
			return pc_err(r->err, off, "record size %u is smaller than its header",
				      hdr.size);
		if (hdr.size > end - off)
			return pc_err(r->err, off,
				      "record of %u bytes runs past the end of the data (0x%llx)",
				      hdr.size, (unsigned long long)end);
		/* A pass that wants no sample does not read them. */
		if (hdr.type == PERF_RECORD_SAMPLE && !r->h->sample) {
			off += hdr.size;
			continue;
		}
		rec = in_get(r, off, hdr.size);
		if (!rec)
			return -1;
		rec = aligned(r, rec, hdr.size);
		switch (hdr.type) {
		case PERF_RECORD_SAMPLE: {
			struct pc_sample s;

			ret = decode_sample(r, (const uint64_t *)rec, off, &s);
			if (!ret)
				ret = r->h->flush ? wait_for_round(r, &s, rec, off) :
				      hand_out(r, &s);
			break;
		}
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
		case PC_RECORD_FINISHED_ROUND:
			ret = r->h->flush ? end_round(r) : 0;
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
	}
	/* The end: everything is in. */
	return r->h->flush ? flush_to(r, UINT64_MAX) : 0;
}

/* The HEADER_BUILD_ID feature, read whole: a sequence of build_id_events. */
static int walk_build_ids(struct rd *r, uint64_t start, uint64_t size)
{
	uint64_t off = 0;
	uint8_t *buf;
	int ret = 0;

	buf = malloc(size ? size : 1);
	if (!buf)
		return pc_err(r->err, start, "out of memory");
	if (in_pread(r, start, size, buf)) {
		free(buf);
		return -1;
	}
	while (off < size && !ret) {
		uint16_t rsize;

		if (size - off < 8) {
			ret = pc_err(r->err, start + off, "truncated build id record");
			break;
		}
		memcpy(&rsize, buf + off + 6, 2);
		if (rsize < 8 || rsize > size - off) {
			ret = pc_err(r->err, start + off, "build id record of bad size %u",
				     rsize);
			break;
		}
		ret = parse_build_id(r, buf + off, rsize, start + off);
		off += rsize;
	}
	free(buf);
	return ret;
}

/* A pipe's stream: records to the end of what there is. */
static int read_pipe(struct rd *r)
{
	r->cut = true;
	return walk(r, PIPE_HEADER_SIZE, r->len, true);
}

static int read_file_mode(struct rd *r)
{
	uint64_t hdr[FILE_HEADER_SIZE / 8], hsize, attr_size, a_off, a_size;
	uint64_t d_off, d_size, feat[4], i, nr_attrs, ftab, total_ids = 0;
	uint8_t *attrs;
	uint64_t *ids;
	int ret, bit, idx;

	if (r->len < FILE_HEADER_SIZE)
		return pc_err(r->err, r->len, "truncated file header (%zu of %d bytes)",
			      r->len, FILE_HEADER_SIZE);
	if (in_pread(r, 0, sizeof(hdr), hdr))
		return -1;
	hsize = hdr[1];
	if (hsize != FILE_HEADER_SIZE)
		return pc_err(r->err, 8, "header size %llu, expected %d",
			      (unsigned long long)hsize, FILE_HEADER_SIZE);
	attr_size = hdr[2];
	a_off = hdr[3];
	a_size = hdr[4];
	d_off = hdr[5];
	d_size = hdr[6];
	memcpy(feat, &hdr[9], sizeof(feat));

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

	attrs = malloc(a_size ? a_size : 1);
	if (!attrs)
		return pc_err(r->err, 24, "out of memory");
	if (in_pread(r, a_off, a_size, attrs)) {
		free(attrs);
		return -1;
	}
	nr_attrs = a_size / attr_size;
	for (i = 0; i < nr_attrs; i++) {
		const uint8_t *a = attrs + i * attr_size;
		uint64_t ids_off = get64(a + attr_size - 16);
		uint64_t ids_size = get64(a + attr_size - 8);

		if (!in_buf(r, ids_off, ids_size) || ids_size % 8) {
			free(attrs);
			return pc_err(r->err, a_off + i * attr_size + attr_size - 16,
				      "id section [0x%llx, +0x%llx) of attr %llu is outside the file",
				      (unsigned long long)ids_off,
				      (unsigned long long)ids_size,
				      (unsigned long long)i);
		}
		total_ids += ids_size / 8;
	}
	/* Each id is 8 bytes of the input: more means sections overlap. */
	if (total_ids > r->len / 8) {
		free(attrs);
		return pc_err(r->err, a_off,
			      "the events' id sections hold %llu ids, more than a file of %zu bytes has room for",
			      (unsigned long long)total_ids, r->len);
	}
	r->file_ids = ids = malloc((total_ids ? total_ids : 1) * sizeof(*ids));
	if (!ids) {
		free(attrs);
		return pc_err(r->err, a_off, "out of memory");
	}
	for (ret = 0, i = 0; i < nr_attrs && !ret; i++) {
		const uint8_t *a = attrs + i * attr_size;
		uint64_t ids_off = get64(a + attr_size - 16);
		uint64_t n = get64(a + attr_size - 8) / 8;

		ret = in_pread(r, ids_off, n * 8, ids);
		if (!ret)
			ret = add_event(r, a, attr_size - 16, ids, n,
					a_off + i * attr_size);
		ids += n;
	}
	free(attrs);
	if (ret || index_events(r, a_off))
		return -1;
	ret = call_attrs(r, 0, a_off);
	if (ret)
		return ret;

	/*
	 * The feature table follows the data, one section per set bit; as
	 * perf does, its build ids are read before the data.
	 */
	if (r->h->build_id && (feat[0] & (1ULL << FEAT_BUILD_ID))) {
		uint64_t sec[2];

		for (idx = 0, bit = 0; bit < FEAT_BUILD_ID; bit++)
			idx += !!(feat[0] & (1ULL << bit));
		ftab = d_off + d_size + idx * 16;
		if (!in_buf(r, ftab, 16))
			return pc_err(r->err, ftab, "feature table runs past the end of the file");
		if (in_pread(r, ftab, sizeof(sec), sec))
			return -1;
		if (!in_buf(r, sec[0], sec[1]))
			return pc_err(r->err, ftab, "build id section is outside the file");
		ret = walk_build_ids(r, sec[0], sec[1]);
		if (ret)
			return ret;
	}
	return walk(r, d_off, d_off + d_size, false);
}

/* Walk the input of R, which has its bytes or its file set. */
static int read_input(struct rd *r)
{
	uint64_t magic[2];
	int ret;

	r->id_pos = -1;
	if (r->len < PIPE_HEADER_SIZE)
		return pc_err(r->err, r->len, "truncated file header (%zu bytes)", r->len);
	if (in_pread(r, 0, sizeof(magic), magic))
		return -1;
	if (magic[0] == PC_MAGIC_SWAPPED)
		return pc_err(r->err, 0, "big-endian perf.data is not supported");
	if (magic[0] != PC_MAGIC)
		return pc_err(r->err, 0, "not a perf.data file (bad magic)");
	r->scratch = aligned_alloc(8, 65536);
	if (!r->scratch)
		return pc_err(r->err, 0, "out of memory");
	ret = magic[1] == PIPE_HEADER_SIZE ? read_pipe(r) : read_file_mode(r);
	if (!ret && r->h->end)
		ret = r->h->end(r->ctx);
	free(r->scratch);
	free(r->evs);
	free(r->ids);
	free(r->pipe_ids);
	free(r->file_ids);
	free(r->wait);
	pc_huge_free(r->win, r->cap);
	return ret;
}

int pc_read_buffer(const void *buf, size_t len, const struct pc_handlers *h,
		   void *ctx, struct pc_error *err)
{
	struct rd r = {
		.mem = buf, .fd = -1, .len = len, .h = h, .ctx = ctx, .err = err,
		.warn_name = "<buffer>",
	};

	return read_input(&r);
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
 * Walk FILE once per handler set: a regular file through a window (its
 * size as it was when opened: a file that shrinks meanwhile is an
 * error), anything else read into memory once.
 */
int pc_read_file_passes(const char *file, unsigned int n,
			const struct pc_handlers *const *h, void *const *ctx,
			struct pc_error *err)
{
	struct stat st;
	uint8_t *buf = NULL;
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
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	} else if (slurp(fd, &buf, &len) < 0) {
		ret = pc_err(err, 0, "cannot read: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < n && !ret; i++) {
		struct rd r = {
			.mem = buf, .fd = buf ? -1 : fd, .len = len,
			.h = h[i], .ctx = ctx[i], .err = err,
			.warn_name = i ? NULL : strcmp(file, "-") ? file : "<stdin>",
		};

		ret = read_input(&r);
	}
	free(buf);
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

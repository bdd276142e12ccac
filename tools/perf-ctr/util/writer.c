// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: the perf.data writer.
 *
 * Layout: file header, every attr's ids, the attrs, the data section, the
 * feature table and the features. The attrs are known before the first
 * record, so they go before the data; the header is written last, when the
 * sizes are known, which is what perf itself does.
 *
 * The file is written beside the output under a temporary name and
 * renamed over it by a pc_writer_close() that found no error: a failed or
 * discarded recording never replaces a good perf.data with a broken one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf-ctr.h"
#include "format.h"

#define MAX_ATTRS		64

/* Sample fields the writer can fill in; the others it refuses. */
#define WRITABLE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		  PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |	\
		  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
		  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK)

struct w_attr {
	struct perf_event_attr attr;
	uint64_t *ids;
	size_t nr_ids;
};

struct w_bid {
	struct pc_mmap m;
	char *filename;
};

struct pc_writer {
	FILE *f;
	const char *file;
	char *tmp;		/* what f is until the rename; NULL for stdout */
	struct pc_error *err;
	struct w_attr attrs[MAX_ATTRS];
	size_t nr_attrs;
	bool data_started;
	uint64_t data_off, pos;
	uint64_t nr_samples;
	struct w_bid *bids;
	size_t nr_bids;
	uint64_t buf[8192];	/* one record: at most 64 KiB */
	int failed;
};

static int w_fail(struct pc_writer *w, const char *what)
{
	if (!w->failed)
		pc_err(w->err, w->pos, "%s: %s", what, strerror(errno ? errno : EIO));
	w->failed = 1;
	return -1;
}

static int w_write(struct pc_writer *w, const void *p, size_t n)
{
	if (w->failed)
		return -1;
	if (n && fwrite(p, 1, n, w->f) != n)
		return w_fail(w, "write");
	w->pos += n;
	return 0;
}

struct pc_writer *pc_writer_open(const char *file, struct pc_error *err)
{
	struct pc_writer *w = calloc(1, sizeof(*w));
	uint8_t hdr[104] = { 0 };

	if (!w) {
		pc_err(err, 0, "out of memory");
		return NULL;
	}
	w->file = file;
	w->err = err;
	w->f = pc_output_open(file, &w->tmp);
	if (!w->f) {
		pc_err(err, 0, "cannot create: %s", strerror(errno));
		free(w);
		return NULL;
	}
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	/* Placeholder: the real header is written by pc_writer_close(). */
	w_write(w, hdr, sizeof(hdr));
	return w;
}

int pc_writer_add_attr(struct pc_writer *w, const struct perf_event_attr *attr,
		       const uint64_t *ids, size_t nr_ids)
{
	struct w_attr *a;

	if (w->data_started)
		return pc_err(w->err, w->pos, "attr added after the first record");
	if (w->nr_attrs == MAX_ATTRS)
		return pc_err(w->err, w->pos, "more than %d attrs", MAX_ATTRS);
	if (attr->sample_type & ~(uint64_t)WRITABLE)
		return pc_err(w->err, w->pos, "sample_type 0x%llx: the writer cannot fill 0x%llx",
			      (unsigned long long)attr->sample_type,
			      (unsigned long long)(attr->sample_type & ~(uint64_t)WRITABLE));
	a = &w->attrs[w->nr_attrs];
	a->attr = *attr;
	a->attr.size = sizeof(a->attr);
	a->ids = calloc(nr_ids ? nr_ids : 1, sizeof(*ids));
	if (!a->ids)
		return pc_err(w->err, w->pos, "out of memory");
	memcpy(a->ids, ids, nr_ids * sizeof(*ids));
	a->nr_ids = nr_ids;
	w->nr_attrs++;
	return 0;
}

/* Ids, then the attrs that point at them; the data follows. */
static int start_data(struct pc_writer *w)
{
	uint64_t ids_off[MAX_ATTRS];
	size_t i;

	if (w->data_started)
		return 0;
	w->data_started = true;
	for (i = 0; i < w->nr_attrs; i++) {
		ids_off[i] = w->pos;
		w_write(w, w->attrs[i].ids, w->attrs[i].nr_ids * 8);
	}
	for (i = 0; i < w->nr_attrs; i++) {
		uint64_t sec[2] = { ids_off[i], w->attrs[i].nr_ids * 8 };

		w_write(w, &w->attrs[i].attr, sizeof(w->attrs[i].attr));
		w_write(w, sec, sizeof(sec));
	}
	w->data_off = w->pos;
	return w->failed ? -1 : 0;
}

static const struct w_attr *attr_of(const struct pc_writer *w, uint64_t id)
{
	size_t i, j;

	for (i = 0; i < w->nr_attrs; i++)
		for (j = 0; j < w->attrs[i].nr_ids; j++)
			if (w->attrs[i].ids[j] == id)
				return &w->attrs[i];
	return w->nr_attrs ? &w->attrs[0] : NULL;
}

/* Append the sample_id_all trailer of attr 0 to a non-sample record. */
static size_t id_trailer(const struct pc_writer *w, uint64_t *p, uint32_t pid,
			 uint32_t tid)
{
	const struct w_attr *a = w->nr_attrs ? &w->attrs[0] : NULL;
	uint64_t st, id;
	size_t n = 0;

	if (!a || !a->attr.sample_id_all)
		return 0;
	st = a->attr.sample_type;
	id = a->nr_ids ? a->ids[0] : 0;
	if (st & PERF_SAMPLE_TID)
		p[n++] = pid | (uint64_t)tid << 32;
	if (st & PERF_SAMPLE_TIME)
		p[n++] = 0;
	if (st & PERF_SAMPLE_ID)
		p[n++] = id;
	if (st & PERF_SAMPLE_STREAM_ID)
		p[n++] = id;
	if (st & PERF_SAMPLE_CPU)
		p[n++] = 0;
	if (st & PERF_SAMPLE_IDENTIFIER)
		p[n++] = id;
	return n;
}

int pc_writer_raw(struct pc_writer *w, const void *rec, size_t size)
{
	if (start_data(w))
		return -1;
	return w_write(w, rec, size);
}

static int emit(struct pc_writer *w, uint32_t type, uint16_t misc, size_t words)
{
	struct perf_event_header *h = (void *)w->buf;

	if (words * 8 > 65535)
		return pc_err(w->err, w->pos, "record of %zu bytes is too large",
			      words * 8);
	h->type = type;
	h->misc = misc;
	h->size = words * 8;
	return pc_writer_raw(w, w->buf, words * 8);
}

int pc_writer_sample(struct pc_writer *w, const struct pc_sample *s)
{
	const struct w_attr *a = attr_of(w, s->id);
	uint64_t st, bst, *p = w->buf + 1, i;

	if (!a)
		return pc_err(w->err, w->pos, "sample without any attr");
	st = a->attr.sample_type;
	bst = a->attr.branch_sample_type;
	/* 3 words per entry + 1 counter each + the fixed part must fit 64 KiB. */
	if (s->nr > 2000 || s->callchain_nr > 2000)
		return pc_err(w->err, w->pos, "sample too large");
	if (st & PERF_SAMPLE_IDENTIFIER)
		*p++ = s->id;
	if (st & PERF_SAMPLE_IP)
		*p++ = s->ip;
	if (st & PERF_SAMPLE_TID)
		*p++ = s->pid | (uint64_t)s->tid << 32;
	if (st & PERF_SAMPLE_TIME)
		*p++ = s->time;
	if (st & PERF_SAMPLE_ADDR)
		*p++ = s->addr;
	if (st & PERF_SAMPLE_ID)
		*p++ = s->id;
	if (st & PERF_SAMPLE_STREAM_ID)
		*p++ = s->id;
	if (st & PERF_SAMPLE_CPU)
		*p++ = s->cpu;
	if (st & PERF_SAMPLE_PERIOD)
		*p++ = s->period;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		*p++ = s->callchain_nr;
		for (i = 0; i < s->callchain_nr; i++)
			*p++ = s->callchain[i];
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		*p++ = s->nr;
		if (bst & PERF_SAMPLE_BRANCH_HW_INDEX)
			*p++ = s->has_hw_idx ? s->hw_idx : (uint64_t)-1;
		if (s->nr)
			memcpy(p, s->br, s->nr * sizeof(*s->br));
		p += s->nr * 3;
		if (bst & PERF_SAMPLE_BRANCH_COUNTERS)
			for (i = 0; i < s->nr; i++)
				*p++ = s->br_counters ? s->br_counters[i] : 0;
	}
	w->nr_samples++;
	return emit(w, PERF_RECORD_SAMPLE, s->misc, p - w->buf);
}

/* Copy a string NUL-terminated and zero-padded to 8 bytes; return words. */
static size_t put_str(uint64_t *p, const char *s, size_t max_words)
{
	size_t n = strlen(s) + 1, words = (n + 7) / 8;

	if (words > max_words) {
		words = max_words;
		n = words * 8;
	}
	memset(p, 0, words * 8);
	memcpy(p, s, n - 1);
	return words;
}

int pc_writer_mmap2(struct pc_writer *w, const struct pc_mmap *m)
{
	uint64_t *p = w->buf + 1;
	uint16_t misc = m->misc ? m->misc : PERF_RECORD_MISC_USER;
	uint8_t *b;

	p[0] = m->pid | (uint64_t)m->tid << 32;
	p[1] = m->start;
	p[2] = m->len;
	p[3] = m->pgoff;
	/* maj, min, ino, ino_generation, or the build id in their place. */
	memset(&p[4], 0, 24);
	b = (uint8_t *)&p[4];
	if (m->build_id_size) {
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		b[0] = m->build_id_size > 20 ? 20 : m->build_id_size;
		memcpy(b + 4, m->build_id, b[0]);
	} else {
		misc &= ~PERF_RECORD_MISC_MMAP_BUILD_ID;
	}
	p[7] = 5 | 2ULL << 32;	/* prot PROT_READ|PROT_EXEC, flags MAP_PRIVATE */
	p += 8;
	p += put_str(p, m->filename, 512);
	p += id_trailer(w, p, m->pid, m->tid);
	return emit(w, PERF_RECORD_MMAP2, misc, p - w->buf);
}

int pc_writer_comm(struct pc_writer *w, const struct pc_comm *c)
{
	uint64_t *p = w->buf + 1;

	p[0] = c->pid | (uint64_t)c->tid << 32;
	p++;
	p += put_str(p, c->comm, 4);
	p += id_trailer(w, p, c->pid, c->tid);
	return emit(w, PERF_RECORD_COMM, 0, p - w->buf);
}

int pc_writer_round(struct pc_writer *w)
{
	return emit(w, PC_RECORD_FINISHED_ROUND, 0, 1);
}

int pc_writer_build_id(struct pc_writer *w, const struct pc_mmap *m)
{
	struct w_bid *nb = realloc(w->bids, (w->nr_bids + 1) * sizeof(*nb));

	if (!nb)
		return pc_err(w->err, w->pos, "out of memory");
	w->bids = nb;
	nb[w->nr_bids].m = *m;
	nb[w->nr_bids].filename = strdup(m->filename);
	if (!nb[w->nr_bids].filename)
		return pc_err(w->err, w->pos, "out of memory");
	nb[w->nr_bids].m.filename = nb[w->nr_bids].filename;
	w->nr_bids++;
	return 0;
}

/* HEADER_BUILD_ID: build_id_event records, names padded to 64 like perf. */
static void write_build_ids(struct pc_writer *w)
{
	size_t i;

	for (i = 0; i < w->nr_bids; i++) {
		const struct pc_mmap *m = &w->bids[i].m;
		size_t name = strlen(m->filename) + 1, padded = (name + 63) / 64 * 64;
		uint8_t head[36] = { 0 };
		uint16_t misc = PERF_RECORD_MISC_USER | (1 << 15), size = 36 + padded;
		int32_t pid = -1;	/* perf's id of the host machine */
		static const char zero[64];

		memcpy(head + 4, &misc, 2);
		memcpy(head + 6, &size, 2);
		memcpy(head + 8, &pid, 4);
		memcpy(head + 12, m->build_id, m->build_id_size > 20 ? 20 : m->build_id_size);
		head[32] = m->build_id_size > 20 ? 20 : m->build_id_size;
		w_write(w, head, sizeof(head));
		w_write(w, m->filename, name);
		w_write(w, zero, padded - name);
	}
}

int pc_writer_close(struct pc_writer *w)
{
	uint64_t hdr[13] = { 0 }, data_size, sec[2];
	size_t i;
	int ret;

	start_data(w);
	data_size = w->pos - w->data_off;
	hdr[0] = PC_MAGIC;
	hdr[1] = 104;
	hdr[2] = sizeof(struct perf_event_attr) + 16;
	hdr[3] = w->data_off - w->nr_attrs * hdr[2];	/* attrs */
	hdr[4] = w->nr_attrs * hdr[2];
	hdr[5] = w->data_off;
	hdr[6] = data_size;
	if (w->nr_bids) {
		/* One feature: its table entry, then its data. */
		hdr[9] = 1ULL << FEAT_BUILD_ID;
		sec[0] = w->pos + 16;
		w_write(w, sec, 8);		/* size patched below */
		w_write(w, sec, 8);
		sec[0] = w->pos;
		write_build_ids(w);
		sec[1] = w->pos - sec[0];
		if (!w->failed && (fseek(w->f, w->data_off + data_size, SEEK_SET) ||
				   fwrite(sec, 1, 16, w->f) != 16))
			w_fail(w, "write");
	}
	if (!w->failed && (fseek(w->f, 0, SEEK_SET) ||
			   fwrite(hdr, 1, sizeof(hdr), w->f) != sizeof(hdr)))
		w_fail(w, w->f == stdout ? "cannot seek stdout" : "write");
	/* Renamed only now that all of it is written; else removed. */
	if (pc_output_close(w->f, w->tmp, !w->failed) && !w->failed)
		w_fail(w, "close");
	ret = w->failed ? -1 : 0;
	for (i = 0; i < w->nr_attrs; i++)
		free(w->attrs[i].ids);
	for (i = 0; i < w->nr_bids; i++)
		free(w->bids[i].filename);
	free(w->bids);
	free(w);
	return ret;
}

void pc_writer_discard(struct pc_writer *w)
{
	/* As after a write error: nothing more is written, the file goes. */
	w->failed = 1;
	pc_writer_close(w);
}

uint64_t pc_writer_nr_samples(const struct pc_writer *w)
{
	return w->nr_samples;
}

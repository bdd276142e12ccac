// SPDX-License-Identifier: GPL-2.0
/* perf-ctr aggregate: GCC's AutoFDO profile, gcov version 2 (-fauto-profile). */
#include <stdlib.h>
#include <string.h>
#include "tree.h"


#define GCOV_DATA_MAGIC			0x67636461u	/* "gcda" */
#define AFDO_VERSION			2u
#define GCOV_TAG_AFDO_FILE_NAMES	0xaa000000u
#define GCOV_TAG_AFDO_FUNCTION		0xac000000u
#define GCOV_TAG_AFDO_MODULE_GROUPING	0xae000000u
#define HIST_TYPE_INDIR_CALL		3u

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	b->p = afdo_xgrow(b->p, &b->cap, b->n + n, 1);
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

/* gcov words are in the host's order: GCC compares the magic as written. */
static void put32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put64(struct buf *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b, (uint32_t)(v >> 32));
}

struct strtab {
	const char **v;
	size_t n, cap;
	struct { const char *s; uint32_t idx; } *h;
	size_t hmask;
};

static uint32_t str_index(struct strtab *st, const char *s)
{
	size_t i = afdo_str_hash(s) & st->hmask;

	while (st->h[i].s) {
		if (!strcmp(st->h[i].s, s))
			return st->h[i].idx;
		i = (i + 1) & st->hmask;
	}
	if ((st->n + 1) * 2 > st->hmask + 1) {
		size_t cap = (st->hmask + 1) * 2, j;
		void *nh = calloc(cap, sizeof(*st->h));

		if (!nh)
			exit(1);
		for (j = 0; j < st->n; j++) {
			size_t k = afdo_str_hash(st->v[j]) & (cap - 1);

			while (((typeof(st->h))nh)[k].s)
				k = (k + 1) & (cap - 1);
			((typeof(st->h))nh)[k].s = st->v[j];
			((typeof(st->h))nh)[k].idx = (uint32_t)j;
		}
		free(st->h);
		st->h = nh;
		st->hmask = cap - 1;
		return str_index(st, s);
	}
	st->v = afdo_xgrow(st->v, &st->cap, st->n + 1, sizeof(*st->v));
	st->v[st->n] = s;
	st->h[i].s = s;
	st->h[i].idx = (uint32_t)st->n;
	return (uint32_t)st->n++;
}

static void gcov_names(struct strtab *st, struct inst *in)
{
	size_t i;
	struct tgt *tg;

	str_index(st, in->name);
	for (i = 0; i < in->nbody; i++)
		if (in->body[i].indirect)
			for (tg = in->body[i].tgts; tg; tg = tg->next)
				str_index(st, tg->name);
	for (i = 0; i < in->nkids; i++)
		if (in->kids[i].in->total)
			gcov_names(st, in->kids[i].in);
}

static void gcov_inst(struct buf *b, struct strtab *st, struct inst *in)
{
	size_t i, j, npos = 0, nkids = 0;

	/* Every position, those that did not run too (zero_fill()). */
	npos = in->nbody;
	for (i = 0; i < in->nkids; i++)
		nkids += in->kids[i].in->total != 0;
	put32(b, str_index(st, in->name));
	put32(b, (uint32_t)npos);
	put32(b, (uint32_t)nkids);
	for (i = 0; i < in->nbody; i++) {
		struct body *bd = &in->body[i];
		struct tgt **tv;
		size_t nt = 0;

		put32(b, bd->off << 16 | (bd->discr & 0xffff));
		if (bd->indirect)
			nt = afdo_sorted_tgts(bd, &tv);
		put32(b, (uint32_t)nt);
		put64(b, bd->n);
		for (j = 0; j < nt; j++) {
			put32(b, HIST_TYPE_INDIR_CALL);
			put64(b, str_index(st, tv[j]->name));
			put64(b, tv[j]->n);
		}
		if (bd->indirect)
			free(tv);
	}
	for (i = 0; i < in->nkids; i++) {
		if (!in->kids[i].in->total)
			continue;
		put32(b, in->kids[i].off << 16 | (in->kids[i].discr & 0xffff));
		gcov_inst(b, st, in->kids[i].in);
	}
}

/*
 * How often a function was entered: the calls the records saw land on
 * its first byte. A function entered seldom, such as bzip2's mainSort
 * (once per block), can have thousands of samples in its loops and no
 * sampled call. GCC 14 then gave every block of mainSort count 0, its
 * hot loops too, and optimised all of it for size (its unroller says
 * "cold area"); GCC 12 did not. A function whose body ran was entered at
 * least once.
 */
static uint64_t gcov_head(const struct inst *in)
{
	return in->head || !in->total ? in->head : 1;
}

int afdo_gcov_write(FILE *f, struct inst **top, size_t ntop)
{
	struct strtab st = { 0 };
	struct buf b = { 0 }, fn = { 0 };
	size_t i, lenpos;
	uint32_t len;
	int rc;

	st.h = calloc(64, sizeof(*st.h));
	if (!st.h)
		return -1;
	st.hmask = 63;
	/*
	 * GCC (auto-profile.cc, string_table::get_name) takes index 0 for no
	 * name and stops with an internal error on a profile that names a
	 * function by it: give index 0 a name no function has.
	 */
	str_index(&st, "");
	for (i = 0; i < ntop; i++)
		gcov_names(&st, top[i]);
	/* function profiles first: their name indexes are all known now */
	put32(&fn, GCOV_TAG_AFDO_FUNCTION);
	put32(&fn, 0);
	put32(&fn, (uint32_t)ntop);
	for (i = 0; i < ntop; i++) {
		put64(&fn, gcov_head(top[i]));
		gcov_inst(&fn, &st, top[i]);
	}
	len = (uint32_t)(fn.n - 8);
	memcpy(fn.p + 4, &len, 4);

	put32(&b, GCOV_DATA_MAGIC);
	put32(&b, AFDO_VERSION);
	put32(&b, 0);
	put32(&b, GCOV_TAG_AFDO_FILE_NAMES);
	lenpos = b.n;
	put32(&b, 0);
	put32(&b, (uint32_t)st.n);
	for (i = 0; i < st.n; i++) {
		/* GCC >= 12: length in bytes with the NUL, no padding */
		uint32_t sl = (uint32_t)strlen(st.v[i]) + 1;

		put32(&b, sl);
		put(&b, st.v[i], sl);
	}
	len = (uint32_t)(b.n - lenpos - 4);
	memcpy(b.p + lenpos, &len, 4);
	put(&b, fn.p, fn.n);
	put32(&b, GCOV_TAG_AFDO_MODULE_GROUPING);
	put32(&b, 0);
	put32(&b, 0);
	rc = fwrite(b.p, 1, b.n, f) == b.n ? 0 : -1;
	free(b.p);
	free(fn.p);
	free(st.v);
	free(st.h);
	return rc;
}

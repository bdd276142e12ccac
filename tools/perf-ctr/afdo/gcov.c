// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: GCC's AutoFDO profile (-fauto-profile), gcov
 * version 2 for GCC 12 to 15, version 3 for GCC 16 and later. Version 3
 * adds a profile summary (GCC 16 takes its hot count threshold from it),
 * the file each function is defined in (GCC 16 tells static functions of
 * one name apart by it: a function whose file does not match gets no
 * profile) and a first-run timestamp per function (0: none).
 */
#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "tree.h"
#include "writers.h"

#define GCOV_DATA_MAGIC			0x67636461u	/* "gcda" */
#define GCOV_TAG_AFDO_SUMMARY		0xa8000000u
#define GCOV_TAG_AFDO_FILE_NAMES	0xaa000000u
#define GCOV_TAG_AFDO_FUNCTION		0xac000000u
#define GCOV_TAG_AFDO_MODULE_GROUPING	0xae000000u
#define HIST_TYPE_INDIR_CALL		3u

/* The file is made in memory: its section lengths come first. */
struct buf {
	uint8_t *p;
	size_t n, cap;
	bool oom;
};

static void put(struct buf *b, const void *d, size_t n)
{
	uint8_t *p = b->p;

	while (!b->oom && b->n + n > b->cap) {
		p = pc_grow(b->p, &b->cap, b->cap, 1, 4096);
		if (!p)
			b->oom = true;
		else
			b->p = p;
	}
	if (b->oom)
		return;
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

/* The names, each with the index of its first mention. */
struct strtab {
	const char **v;
	size_t n, cap;
	struct pc_index ix;
	bool oom;
};

static bool str_is(const void *ctx, size_t pos, const void *key)
{
	return !strcmp(((const char *const *)ctx)[pos], key);
}

static uint32_t str_index(struct strtab *st, const char *s)
{
	bool added;
	size_t i = pc_index_get(&st->ix, (void **)&st->v, &st->n, &st->cap,
				sizeof(*st->v), pc_hash(pc_hash_str(s), 0, 0), str_is, s, &added);

	if (i == PC_INDEX_NONE) {
		st->oom = true;
		return 0;
	}
	if (added)
		st->v[i] = s;
	return (uint32_t)i;
}

/*
 * Every name, in the order GCC's string table gets them: an instance's,
 * then the targets of its indirect calls (the last found first), then
 * its inlined instances that ran.
 */
static void gcov_names(struct strtab *st, const struct afdo_inst *in)
{
	size_t i, j, k;

	str_index(st, in->name);
	for (i = 0; i < in->nbody; i++) {
		const struct afdo_body *bd = &in->body[i];
		size_t below = SIZE_MAX;

		if (!bd->indirect)
			continue;
		for (j = 0; j < bd->ntgts; j++) {
			size_t best = 0, seq = 0;

			for (k = 0; k < bd->ntgts; k++)
				if (bd->tgts[k].seq < below && bd->tgts[k].seq >= seq) {
					seq = bd->tgts[k].seq;
					best = k;
				}
			str_index(st, bd->tgts[best].name);
			below = seq;
		}
	}
	for (i = 0; i < in->nkids; i++)
		if (in->kids[i].in->total)
			gcov_names(st, in->kids[i].in);
}

static void gcov_inst(struct buf *b, struct strtab *st,
		      const struct afdo_inst *in)
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
		const struct afdo_body *bd = &in->body[i];
		size_t nt = bd->indirect ? bd->ntgts : 0;

		put32(b, bd->off << 16 | (bd->discr & 0xffff));
		put32(b, (uint32_t)nt);
		put64(b, bd->n);
		for (j = 0; j < nt; j++) {
			put32(b, HIST_TYPE_INDIR_CALL);
			put64(b, str_index(st, bd->tgts[j].name));
			put64(b, bd->tgts[j].n);
		}
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
static uint64_t gcov_head(const struct afdo_inst *in)
{
	return in->head || !in->total ? in->head : 1;
}

/* Every body count written of IN and its inlined instances (into V). */
static size_t gcov_bodies(const struct afdo_inst *in, uint64_t *v)
{
	size_t i, n = in->nbody;

	for (i = 0; v && i < in->nbody; i++)
		v[i] = in->body[i].n;
	for (i = 0; i < in->nkids; i++)
		if (in->kids[i].in->total)
			n += gcov_bodies(in->kids[i].in, v ? v + n : NULL);
	return n;
}

/* Version 3: the summary of the body counts, as create_gcov makes it. */
static int gcov_summary(struct buf *b, const struct afdo_tree *t)
{
	uint64_t *v, total = 0, max_head = 0;
	size_t i, n = 0;

	for (i = 0; i < t->ntop; i++)
		n += gcov_bodies(t->top[i], NULL);
	v = malloc((n + 1) * sizeof(*v));
	if (!v)
		return -1;
	n = 0;
	for (i = 0; i < t->ntop; i++) {
		n += gcov_bodies(t->top[i], v + n);
		if (max_head < gcov_head(t->top[i]))
			max_head = gcov_head(t->top[i]);
	}
	for (i = 0; i < n; i++)
		total += v[i];
	afdo_summary_sort(v, n);
	put32(b, GCOV_TAG_AFDO_SUMMARY);
	put64(b, total);
	put64(b, n ? v[0] : 0);		/* the largest */
	put64(b, max_head);
	put64(b, n);
	put64(b, t->ntop);
	put64(b, AFDO_NCUTOFFS);
	for (i = 0; i < AFDO_NCUTOFFS; i++) {
		struct afdo_cutoff c = afdo_summary_at(v, n, total, afdo_cutoffs[i]);

		put32(b, c.cutoff);
		put64(b, c.min_count);
		put64(b, c.num_counts);
	}
	free(v);
	return 0;
}

/*
 * Version 3: the file of each name in ST (FOF[name], ~0 for none), its
 * first instance's; a name only ever called indirectly has none.
 */
static void gcov_files(struct strtab *ft, uint32_t *fof, struct strtab *st,
		       const struct afdo_inst *in)
{
	uint32_t i = str_index(st, in->name);
	size_t k;

	if (fof[i] == UINT32_MAX && in->file)
		fof[i] = str_index(ft, in->file);
	for (k = 0; k < in->nkids; k++)
		if (in->kids[k].in->total)
			gcov_files(ft, fof, st, in->kids[k].in);
}

/* GCC >= 12: a string's length in bytes with its NUL, no padding. */
static void put_str(struct buf *b, const char *s)
{
	uint32_t sl = (uint32_t)strlen(s) + 1;

	put32(b, sl);
	put(b, s, sl);
}

int afdo_write_gcov(FILE *f, const struct afdo_input *in,
		    struct afdo_notes *notes)
{
	struct strtab st = { 0 }, ft = { 0 };
	struct buf b = { 0 }, fn = { 0 };
	struct afdo_tree t;
	uint32_t *fof = NULL, version;
	size_t i, lenpos;
	uint32_t len;
	int rc = -1;

	if (afdo_tree_build(&t, AFDO_TREE_GCC, in, notes->err, sizeof(notes->err)))
		return -1;
	notes->gcc = true;
	notes->gcc_version = t.gcc_version;
	notes->discriminators = !t.nodiscr;
	notes->skipped_lines = t.skipped_lines;
	version = t.gcc_version >= 16 ? 3 : 2;
	/*
	 * GCC (auto-profile.cc, string_table::get_name) takes index 0 for no
	 * name and stops with an internal error on a profile that names a
	 * function by it: give index 0 a name no function has.
	 */
	str_index(&st, "");
	for (i = 0; i < t.ntop; i++)
		gcov_names(&st, t.top[i]);
	if (st.oom)
		goto out;
	if (version >= 3) {
		fof = malloc(st.n * sizeof(*fof));
		if (!fof)
			goto out;
		memset(fof, 0xff, st.n * sizeof(*fof));
		for (i = 0; i < t.ntop; i++)
			gcov_files(&ft, fof, &st, t.top[i]);
		if (ft.oom)
			goto out;
	}
	/* function profiles first: their name indexes are all known now */
	put32(&fn, GCOV_TAG_AFDO_FUNCTION);
	put32(&fn, 0);
	put32(&fn, (uint32_t)t.ntop);
	for (i = 0; i < t.ntop; i++) {
		put64(&fn, gcov_head(t.top[i]));
		if (version >= 3)
			put64(&fn, 0);		/* no first-run timestamp */
		gcov_inst(&fn, &st, t.top[i]);
	}
	if (fn.oom || st.oom)
		goto out;
	len = (uint32_t)(fn.n - 8);
	memcpy(fn.p + 4, &len, 4);

	put32(&b, GCOV_DATA_MAGIC);
	put32(&b, version);
	put32(&b, 0);
	if (version >= 3 && gcov_summary(&b, &t))
		goto out;
	put32(&b, GCOV_TAG_AFDO_FILE_NAMES);
	lenpos = b.n;
	put32(&b, 0);
	if (version >= 3) {
		put32(&b, (uint32_t)ft.n);
		for (i = 0; i < ft.n; i++)
			put_str(&b, ft.v[i]);
	}
	put32(&b, (uint32_t)st.n);
	for (i = 0; i < st.n; i++) {
		put_str(&b, st.v[i]);
		if (version >= 3)
			put32(&b, fof[i]);
	}
	if (b.oom)
		goto out;
	len = (uint32_t)(b.n - lenpos - 4);
	memcpy(b.p + lenpos, &len, 4);
	put(&b, fn.p, fn.n);
	put32(&b, GCOV_TAG_AFDO_MODULE_GROUPING);
	put32(&b, 0);
	put32(&b, 0);
	if (b.oom)
		goto out;
	rc = fwrite(b.p, 1, b.n, f) == b.n ? 0 : -1;
out:
	if (rc && !ferror(f))
		snprintf(notes->err, sizeof(notes->err), "out of memory");
	free(b.p);
	free(fn.p);
	free(fof);
	free(st.v);
	pc_index_free(&st.ix);
	free(ft.v);
	pc_index_free(&ft.ix);
	afdo_tree_free(&t);
	return rc;
}

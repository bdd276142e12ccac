// SPDX-License-Identifier: GPL-2.0
/* perf-ctr aggregate: GCC's AutoFDO profile, gcov version 2 (-fauto-profile). */
#include <stdlib.h>
#include <string.h>

#include "tree.h"
#include "writers.h"

#define GCOV_DATA_MAGIC			0x67636461u	/* "gcda" */
#define AFDO_VERSION			2u
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

int afdo_write_gcov(FILE *f, const struct afdo_input *in,
		    struct afdo_notes *notes)
{
	struct strtab st = { 0 };
	struct buf b = { 0 }, fn = { 0 };
	struct afdo_tree t;
	size_t i, lenpos;
	uint32_t len;
	int rc = -1;

	if (afdo_tree_build(&t, AFDO_TREE_GCC, in, notes->err, sizeof(notes->err)))
		return -1;
	notes->gcc = true;
	notes->gcc_version = t.gcc_version;
	notes->discriminators = !t.nodiscr;
	notes->skipped_lines = t.skipped_lines;
	/*
	 * GCC (auto-profile.cc, string_table::get_name) takes index 0 for no
	 * name and stops with an internal error on a profile that names a
	 * function by it: give index 0 a name no function has.
	 */
	str_index(&st, "");
	for (i = 0; i < t.ntop; i++)
		gcov_names(&st, t.top[i]);
	/* function profiles first: their name indexes are all known now */
	put32(&fn, GCOV_TAG_AFDO_FUNCTION);
	put32(&fn, 0);
	put32(&fn, (uint32_t)t.ntop);
	for (i = 0; i < t.ntop; i++) {
		put64(&fn, gcov_head(t.top[i]));
		gcov_inst(&fn, &st, t.top[i]);
	}
	if (fn.oom || st.oom)
		goto out;
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
	if (rc && (b.oom || fn.oom || st.oom))
		snprintf(notes->err, sizeof(notes->err), "out of memory");
	free(b.p);
	free(fn.p);
	free(st.v);
	pc_index_free(&st.ix);
	afdo_tree_free(&t);
	return rc;
}

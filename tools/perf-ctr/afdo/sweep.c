// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: from range counts to instruction counts. Each
 * range adds its count from its first byte to the end of its last
 * instruction; a sweep over those events in address order gives every
 * covered instruction the sum of the ranges over it.
 */
#include <stdlib.h>
#include <string.h>

#include "dwarf-info.h"
#include "search.h"
#include "sweep.h"

struct sweep_ev {
	uint64_t addr;
	int64_t d;
};

static int cmp_ev(const void *x, const void *y)
{
	const struct sweep_ev *p = x, *q = y;

	return p->addr < q->addr ? -1 : p->addr > q->addr;
}

int afdo_sweep(const struct afdo_counts *c, const struct pc_dso *bin,
	       int (*insn)(void *ctx, uint64_t addr, uint64_t n, unsigned int len),
	       void *ctx, struct afdo_span **spans, size_t *nspans)
{
	size_t n, i, ne = 0, cap = 0;
	struct afdo_cnt *v = afdo_map_sorted(&c->ranges, &n);
	struct sweep_ev *ev;
	int64_t active = 0;
	int rc = 0;

	if (spans) {
		*spans = NULL;
		*nspans = 0;
	}
	if (!v)
		return -1;
	ev = malloc((2 * n + 1) * sizeof(*ev));
	if (!ev) {
		free(v);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct pc_rv_insn in;
		unsigned int len = pc_dso_insn(bin, v[i].b, &in);

		if (!len)
			continue;
		ev[ne].addr = v[i].a;
		ev[ne++].d = (int64_t)v[i].n;
		ev[ne].addr = v[i].b + len;
		ev[ne++].d = -(int64_t)v[i].n;
	}
	free(v);
	qsort(ev, ne, sizeof(*ev), cmp_ev);
	for (i = 0; i < ne && !rc;) {
		uint64_t a = ev[i].addr, p;

		while (i < ne && ev[i].addr == a)
			active += ev[i++].d;
		if (active <= 0 || i == ne)
			continue;
		if (spans) {
			struct afdo_span *s = pc_grow(*spans, &cap, *nspans,
						      sizeof(**spans), 64);

			if (!s) {
				rc = -1;
				break;
			}
			*spans = s;
			s[*nspans].lo = a;
			s[(*nspans)++].hi = ev[i].addr;
		}
		for (p = a; p < ev[i].addr && !rc;) {
			struct pc_rv_insn in;
			unsigned int len = pc_dso_insn(bin, p, &in);

			if (!len)
				break;
			rc = insn(ctx, p, (uint64_t)active, len);
			p += len;
		}
	}
	free(ev);
	if (rc && spans) {
		free(*spans);
		*spans = NULL;
	}
	return rc ? -1 : 0;
}

/* Is ADDR in one of the N SPANS (sorted, disjoint)? Else 0 or where it ends. */
static uint64_t span_end(const struct afdo_span *spans, size_t n, uint64_t addr)
{
	size_t i = pc_count_upto(spans, n, sizeof(*spans),
				 offsetof(struct afdo_span, hi), addr);

	return i < n && spans[i].lo <= addr ? spans[i].hi : 0;
}

static int cmp_sym_start(const void *x, const void *y)
{
	const struct pc_sym *p = *(const struct pc_sym *const *)x;
	const struct pc_sym *q = *(const struct pc_sym *const *)y;

	return pc_cmp_u64(p->start, q->start);
}

/* The name DWARF gives the function at ADDR, or NULL. */
static const char *dwarf_name(struct pc_dwarf *dw, uint64_t addr)
{
	struct pc_frame f[PC_MAX_FRAMES];

	return pc_dwarf_frames(dw, addr, f, PC_MAX_FRAMES) > 0 ? f[0].name : NULL;
}

/* The length of NAME before its first '.': "f" of "f.part.0", "f.cold". */
static size_t base_len(const char *name)
{
	const char *dot = strchr(name, '.');

	return dot && dot != name ? (size_t)(dot - name) : strlen(name);
}

/* Do A and B name pieces of one function: the same name up to a '.'? */
static bool same_base(const char *a, const char *b)
{
	size_t la = base_len(a);

	return la == base_len(b) && !strncmp(a, b, la) && (a[la] || b[la]);
}

/* Add S to FS (*NF used of *CAP) unless it is there; -1 out of memory. */
static int add_piece(const struct pc_sym ***fs, size_t *nf, size_t *cap,
		     const struct pc_sym *s)
{
	const struct pc_sym **m;
	size_t k;

	for (k = 0; k < *nf; k++)
		if ((*fs)[k] == s)
			return 0;
	m = pc_grow(*fs, cap, *nf, sizeof(*m), 64);
	if (!m)
		return -1;
	*fs = m;
	(*fs)[(*nf)++] = s;
	return 0;
}

/*
 * GCC splits a function into pieces with symbols of their own (f and
 * f.part.0 of partial inlining, f.cold of hot/cold splitting, clones),
 * and DWARF names the code of each f: llvm-profgen fills every piece of
 * a function that a range starts in, its functions being DWARF's. Add
 * to FS (the touched symbols, sorted and unique, *NF of them in *CAP)
 * the symbols that share a name up to a '.' with one of them and whose
 * code DW names alike. 0, or -1 out of memory.
 */
static int add_pieces(const struct pc_dso *bin, struct pc_dwarf *dw,
		      const struct pc_sym ***fs, size_t *nf, size_t *cap)
{
	size_t touched = *nf, i, j;
	const char *want, *have;
	/* which touched names have a '.': asked for every symbol */
	bool *tdot = malloc(touched ? touched : 1);

	if (!tdot)
		return -1;
	for (j = 0; j < touched; j++)
		tdot[j] = strchr((*fs)[j]->name, '.');
	for (i = 0; i < bin->nr_syms; i++) {
		const struct pc_sym *s = &bin->syms[i];
		bool dot = strchr(s->name, '.');

		if (!s->func || s->end <= s->start + 1)
			continue;
		for (j = 0; j < touched; j++) {
			/* one of the two has a '.': checked first, cheaply */
			if (!dot && !tdot[j])
				continue;
			if ((*fs)[j] == s || !same_base((*fs)[j]->name, s->name))
				continue;
			want = dwarf_name(dw, (*fs)[j]->start);
			have = dwarf_name(dw, s->start);
			if (want && have && !strcmp(want, have)) {
				if (add_piece(fs, nf, cap, s)) {
					free(tdot);
					return -1;
				}
				break;
			}
		}
	}
	free(tdot);
	if (*nf != touched)
		qsort(*fs, *nf, sizeof(**fs), cmp_sym_start);
	return 0;
}

/* The functions the ranges of C start in, and their pieces; NULL: no memory. */
static const struct pc_sym **touched_funcs(const struct afdo_counts *c,
					   struct pc_dso *bin, struct pc_dwarf *dw,
					   size_t *nr)
{
	size_t nf = 0, cap = c->ranges.used + 1, i, u;
	const struct pc_sym **fs = malloc(cap * sizeof(*fs));

	if (!fs)
		return NULL;
	for (i = 0; i <= c->ranges.mask; i++) {
		const struct pc_sym *f;

		if (!c->ranges.t[i].tag)
			continue;
		f = pc_dso_sym(bin, c->ranges.t[i].a);
		if (f && f->end > f->start + 1)
			fs[nf++] = f;
	}
	qsort(fs, nf, sizeof(*fs), cmp_sym_start);
	for (i = u = 0; i < nf; i++)
		if (!u || fs[i] != fs[u - 1])
			fs[u++] = fs[i];
	nf = u;
	if (dw && add_pieces(bin, dw, &fs, &nf, &cap)) {
		free(fs);
		return NULL;
	}
	*nr = nf;
	return fs;
}

int afdo_sweep_filled(const struct afdo_counts *c, struct pc_dso *bin,
		      struct pc_dwarf *dw,
		      int (*insn)(void *ctx, uint64_t addr, uint64_t n, unsigned int len),
		      void *ctx, const struct pc_sym ***funcs, size_t *nfuncs)
{
	struct afdo_span *spans;
	const struct pc_sym **fs;
	size_t nspans, nf = 0, i;
	int rc = 0;

	if (afdo_sweep(c, bin, insn, ctx, &spans, &nspans))
		return -1;
	fs = touched_funcs(c, bin, dw, &nf);
	if (!fs) {
		free(spans);
		return -1;
	}
	for (i = 0; i < nf && !rc; i++) {
		uint64_t p;

		for (p = fs[i]->start; p < fs[i]->end && !rc;) {
			/* the sweep counted what a range covers: skip it */
			uint64_t end = span_end(spans, nspans, p);
			struct pc_rv_insn in;
			unsigned int len;

			if (end) {
				p = end;
				continue;
			}
			len = pc_dso_insn(bin, p, &in);
			if (!len)
				break;
			rc = insn(ctx, p, 0, len);
			p += len;
		}
	}
	free(spans);
	if (rc || !funcs) {
		free(fs);
		return rc ? -1 : 0;
	}
	*funcs = fs;
	*nfuncs = nf;
	return 0;
}

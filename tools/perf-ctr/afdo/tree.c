// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: the tree of function instances (tree.h) built from
 * the range and branch counts and the binary's DWARF, for the LLVM text
 * and GCC gcov writers (llvm-text.c, gcov.c).
 */
#include <stdlib.h>
#include <string.h>
#include "tree.h"

void *afdo_xgrow(void *p, size_t *cap, size_t need, size_t sz)
{
	if (need <= *cap)
		return p;
	*cap = *cap ? *cap * 2 : 8;
	if (*cap < need)
		*cap = need;
	p = realloc(p, *cap * sz);
	if (!p) {
		fprintf(stderr, "perf-ctr aggregate: out of memory\n");
		exit(1);
	}
	return p;
}

static struct inst *new_inst(const char *name, int decl_line)
{
	struct inst *in = calloc(1, sizeof(*in));

	if (!in) {
		fprintf(stderr, "perf-ctr aggregate: out of memory\n");
		exit(1);
	}
	in->name = name;
	in->decl_line = decl_line;
	return in;
}

static struct inst *top_inst(struct tree *t, const char *name, int decl_line)
{
	unsigned int h = afdo_str_hash(name) % TOP_HASH;
	struct inst *in;

	for (in = t->top[h]; in; in = in->hnext)
		if (!strcmp(in->name, name))
			return in;
	in = new_inst(name, decl_line);
	in->hnext = t->top[h];
	t->top[h] = in;
	t->ntop++;
	return in;
}

static struct inst *kid_inst(struct inst *p, uint32_t off, uint32_t discr,
			     const char *name, int decl_line)
{
	size_t i;

	for (i = 0; i < p->nkids; i++)
		if (p->kids[i].off == off && p->kids[i].discr == discr &&
		    !strcmp(p->kids[i].in->name, name))
			return p->kids[i].in;
	p->kids = afdo_xgrow(p->kids, &p->ckids, p->nkids + 1, sizeof(*p->kids));
	p->kids[p->nkids].off = off;
	p->kids[p->nkids].discr = discr;
	p->kids[p->nkids].in = new_inst(name, decl_line);
	return p->kids[p->nkids++].in;
}

static struct body *body_at(struct inst *in, uint32_t off, uint32_t discr)
{
	size_t i;

	for (i = 0; i < in->nbody; i++)
		if (in->body[i].off == off && in->body[i].discr == discr)
			return &in->body[i];
	in->body = afdo_xgrow(in->body, &in->cbody, in->nbody + 1, sizeof(*in->body));
	memset(&in->body[in->nbody], 0, sizeof(in->body[0]));
	in->body[in->nbody].off = off;
	in->body[in->nbody].discr = discr;
	return &in->body[in->nbody++];
}

static bool line_off(struct tree *t, const struct pc_frame *f, uint32_t *off)
{
	/*
	 * LLVM keys a location by (line - function's line) & 0xffff, line 0
	 * and lines above the function included: so do its profiles.
	 */
	if (t->llvm_discr) {
		*off = (uint32_t)(f->line - f->decl_line) & 0xffff;
		return true;
	}
	if (f->line <= 0 || f->line < f->decl_line || f->line - f->decl_line > 0xffff) {
		t->skipped_lines++;
		return false;
	}
	*off = (uint32_t)(f->line - f->decl_line);
	return true;
}

/*
 * LLVM encodes a base discriminator and duplication factors in the DWARF
 * discriminator; its sample profiles carry the base only (what clang
 * -fprofile-sample-use compares with). GCC's are plain numbers.
 */
static uint32_t llvm_base_discr(uint32_t d)
{
	if (d & 1)
		return 0;
	d >>= 1;
	return (d & 0x20) ? (((d >> 1) & 0xfe0) | (d & 0x1f)) : (d & 0x1f);
}

/*
 * The duplication factor LLVM encodes after the base discriminator (code
 * copied by unrolling or vectorization): llvm-profgen multiplies a
 * location's count by it, as it takes the maximum over its instructions.
 */
static uint32_t llvm_dup_factor(uint32_t d)
{
	uint32_t f;

	d = (d & 1) ? d >> 1 : d >> ((d & 0x40) ? 14 : 7);
	f = llvm_base_discr(d);
	return f ? f : 1;
}

static uint32_t discr_of(const struct tree *t, uint32_t d)
{
	if (t->nodiscr)
		return 0;
	return t->llvm_discr ? llvm_base_discr(d) : d;
}

/* The body entry of the innermost frame of F, creating instances on the way. */
static struct body *locate(struct tree *t, const struct pc_frame *f, int nf,
			   struct inst **leaf)
{
	struct inst *in = top_inst(t, f[0].name, f[0].decl_line);
	uint32_t off;
	int k;

	for (k = 0; k + 1 < nf; k++) {
		if (!line_off(t, &f[k], &off))
			return NULL;
		in = kid_inst(in, off, discr_of(t, f[k].discr),
			      f[k + 1].name, f[k + 1].decl_line);
	}
	if (!line_off(t, &f[nf - 1], &off))
		return NULL;
	if (leaf)
		*leaf = in;
	return body_at(in, off, discr_of(t, f[nf - 1].discr));
}

struct sweep_ev {
	uint64_t addr;
	int64_t d;
};

static int cmp_ev(const void *x, const void *y)
{
	const struct sweep_ev *p = x, *q = y;

	return p->addr < q->addr ? -1 : p->addr > q->addr;
}


struct tree_sweep {
	struct sweep w;
	struct tree *t;
};

static void add_insn(struct tree *t, struct pc_dwarf *s, uint64_t addr,
		     uint64_t n, unsigned int len);

static void tree_insn(struct sweep *w, uint64_t addr, uint64_t n, unsigned int len)
{
	add_insn(((struct tree_sweep *)w)->t, w->s, addr, n, len);
}

static void add_insn(struct tree *t, struct pc_dwarf *s, uint64_t addr,
		     uint64_t n, unsigned int len)
{
	struct pc_frame f[PC_MAX_FRAMES];
	int nf = pc_dwarf_frames(s, addr, f, PC_MAX_FRAMES);
	struct inst *in = NULL;
	struct body *bd;

	if (nf <= 0)
		return;
	bd = locate(t, f, nf, &in);
	if (!bd)
		return;
	bd->seen = true;
	/* LLVM's totals count bytes: llvm-profgen weighs each instruction so */
	in->insn_sum += n * len;
	if (t->llvm_discr)
		n *= llvm_dup_factor(f[nf - 1].discr);
	if (bd->n < n)
		bd->n = n;
}

/* Counts of every instruction covered by a range: a sweep over events. */
int afdo_sweep_ranges(struct sweep *w, const struct afdo_agg *g,
		      struct pc_dso *b)
{
	size_t n, i, ne = 0;
	struct afdo_cnt *v = afdo_map_sorted(&g->ranges, &n);
	struct sweep_ev *ev;
	int64_t active = 0;

	if (!v)
		return -1;
	ev = malloc((2 * n + 1) * sizeof(*ev));
	if (!ev) {
		free(v);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct pc_rv_insn in;
		unsigned int len = pc_dso_insn(b, v[i].b, &in);

		if (!len)
			continue;
		ev[ne].addr = v[i].a;
		ev[ne++].d = (int64_t)v[i].n;
		ev[ne].addr = v[i].b + len;
		ev[ne++].d = -(int64_t)v[i].n;
	}
	free(v);
	qsort(ev, ne, sizeof(*ev), cmp_ev);
	for (i = 0; i < ne;) {
		uint64_t a = ev[i].addr, p;

		while (i < ne && ev[i].addr == a)
			active += ev[i++].d;
		if (active <= 0 || i == ne)
			continue;
		if (w->keep_spans) {
			w->spans = afdo_xgrow(w->spans, &w->cspans, w->nspans + 1,
					      sizeof(*w->spans));
			w->spans[w->nspans].lo = a;
			w->spans[w->nspans++].hi = ev[i].addr;
		}
		for (p = a; p < ev[i].addr;) {
			struct pc_rv_insn in;
			unsigned int len = pc_dso_insn(b, p, &in);

			if (!len)
				break;
			w->insn(w, p, (uint64_t)active, len);
			p += len;
		}
	}
	free(ev);
	return 0;
}

/*
 * Every instruction of a function that any range starts in gets a count,
 * 0 where no range covers it: a compiler takes an explicit 0 for code
 * that did not run, and an absent line for code it knows nothing of, so
 * llvm-profgen and create_gcov fill the functions they saw so.
 */
static int zero_fill(struct tree *t, struct pc_dwarf *s,
		     const struct afdo_agg *g, struct pc_dso *b,
		     const struct sweep *w)
{
	const struct pc_sym **seen = NULL;
	size_t nseen = 0, cap = 0, i, j;

	for (i = 0; i <= g->ranges.mask; i++) {
		const struct pc_sym *fs;
		uint64_t p;

		if (!g->ranges.t[i].n)
			continue;
		fs = pc_dso_sym(b, g->ranges.t[i].a);
		if (!fs || fs->end <= fs->start + 1)
			continue;
		for (j = 0; j < nseen && seen[j] != fs; j++)
			;
		if (j < nseen)
			continue;
		seen = afdo_xgrow(seen, &cap, nseen + 1, sizeof(*seen));
		seen[nseen++] = fs;
		for (p = fs->start; p < fs->end;) {
			struct pc_rv_insn in;
			unsigned int len;
			size_t lo = 0, hi = w->nspans;

			/* the sweep counted what a range covers: skip it */
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (w->spans[mid].hi <= p)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < w->nspans && w->spans[lo].lo <= p) {
				p = w->spans[lo].hi;
				continue;
			}
			len = pc_dso_insn(b, p, &in);
			if (!len)
				break;
			add_insn(t, s, p, 0, len);
			p += len;
		}
	}
	free(seen);
	return 0;
}

/* Call targets at the calls' locations, head counts at the callees. */
static int add_calls(struct tree *t, struct pc_dwarf *s,
		     const struct afdo_agg *g, struct pc_dso *b)
{
	size_t n, i;
	struct afdo_cnt *v = afdo_map_sorted(&g->branches, &n);

	if (!v)
		return -1;
	for (i = 0; i < n; i++) {
		struct pc_frame f[PC_MAX_FRAMES], callee[PC_MAX_FRAMES];
		const struct pc_sym *fs;
		struct pc_rv_insn call;
		const char *cname;
		struct body *bd;
		struct tgt *tg;
		int nf, nc;

		if (!pc_dso_insn(b, v[i].a, &call) || !pc_rv_is_call(call.kind))
			continue;
		/* a call lands on a function's first byte (PLT stubs have none) */
		fs = pc_dso_sym(b, v[i].b);
		if (!fs || fs->start != v[i].b)
			continue;
		cname = fs->name;
		nc = pc_dwarf_frames(s, v[i].b, callee, PC_MAX_FRAMES);
		if (nc > 0) {
			cname = callee[0].name;
			top_inst(t, cname, callee[0].decl_line)->head += v[i].n;
		} else if (t->llvm_discr) {
			/* llvm-profgen knows functions by their DWARF only */
			continue;
		}
		nf = pc_dwarf_frames(s, v[i].a, f, PC_MAX_FRAMES);
		if (nf <= 0)
			continue;
		bd = locate(t, f, nf, NULL);
		if (!bd)
			continue;
		bd->indirect |= call.kind != PC_RV_CALL;
		for (tg = bd->tgts; tg; tg = tg->next)
			if (!strcmp(tg->name, cname))
				break;
		if (!tg) {
			tg = calloc(1, sizeof(*tg));
			if (!tg) {
				free(v);
				return -1;
			}
			tg->name = cname;
			tg->next = bd->tgts;
			bd->tgts = tg;
		}
		tg->n += v[i].n;
	}
	free(v);
	return 0;
}

/*
 * The total of an instance: GCC sums its line counts itself; LLVM's is
 * what llvm-profgen computes: count times size of each of its
 * instructions, plus the totals of the instances inlined into it.
 */
static uint64_t compute_total(struct inst *in, bool llvm, bool top)
{
	size_t i;
	uint64_t sum = 0;

	for (i = 0; i < in->nbody; i++) {
		uint64_t ts = 0;
		struct tgt *tg;

		/*
		 * A call site counts at least as often as its calls; llvm-profgen
		 * makes it so in top-level functions only.
		 */
		for (tg = in->body[i].tgts; tg; tg = tg->next)
			ts += tg->n;
		if (in->body[i].n < ts && (top || !llvm))
			in->body[i].n = ts;
		sum += in->body[i].n;
	}
	if (llvm)
		sum = in->insn_sum;
	for (i = 0; i < in->nkids; i++)
		sum += compute_total(in->kids[i].in, llvm, false);
	in->total = sum;
	return sum;
}

static int cmp_body(const void *x, const void *y)
{
	const struct body *p = x, *q = y;

	if (p->off != q->off)
		return p->off < q->off ? -1 : 1;
	return p->discr < q->discr ? -1 : p->discr > q->discr;
}

static int cmp_kid(const void *x, const void *y)
{
	const struct kid *p = x, *q = y;

	if (p->off != q->off)
		return p->off < q->off ? -1 : 1;
	if (p->discr != q->discr)
		return p->discr < q->discr ? -1 : 1;
	return strcmp(p->in->name, q->in->name);
}

static int cmp_tgt(const void *x, const void *y)
{
	const struct tgt *p = *(struct tgt * const *)x, *q = *(struct tgt * const *)y;

	if (p->n != q->n)
		return p->n > q->n ? -1 : 1;
	return strcmp(p->name, q->name);
}

/* Targets sorted by count, most frequent first; returns their number. */
size_t afdo_sorted_tgts(struct body *bd, struct tgt ***out)
{
	size_t n = 0, i = 0;
	struct tgt *tg;
	struct tgt **v;

	for (tg = bd->tgts; tg; tg = tg->next)
		n++;
	v = malloc((n + 1) * sizeof(*v));
	if (!v)
		exit(1);
	for (tg = bd->tgts; tg; tg = tg->next)
		v[i++] = tg;
	qsort(v, n, sizeof(*v), cmp_tgt);
	*out = v;
	return n;
}

static void sort_inst(struct inst *in)
{
	size_t i;

	if (in->nbody)
		qsort(in->body, in->nbody, sizeof(*in->body), cmp_body);
	if (in->nkids)
		qsort(in->kids, in->nkids, sizeof(*in->kids), cmp_kid);
	for (i = 0; i < in->nkids; i++)
		sort_inst(in->kids[i].in);
}

static int cmp_top(const void *x, const void *y)
{
	const struct inst *p = *(struct inst * const *)x, *q = *(struct inst * const *)y;

	if (p->total != q->total)
		return p->total > q->total ? -1 : 1;
	return strcmp(p->name, q->name);
}

static void free_inst(struct inst *in)
{
	size_t i;

	for (i = 0; i < in->nbody; i++)
		while (in->body[i].tgts) {
			struct tgt *tg = in->body[i].tgts;

			in->body[i].tgts = tg->next;
			free(tg);
		}
	for (i = 0; i < in->nkids; i++)
		free_inst(in->kids[i].in);
	free(in->body);
	free(in->kids);
	free(in);
}

int afdo_write_symbolized(FILE *f, enum afdo_format fmt,
			  const struct afdo_agg *g, struct pc_dso *b,
			  char *err, size_t errlen)
{
	struct tree *t = calloc(1, sizeof(*t));
	struct tree_sweep ts;
	struct pc_dwarf *s;
	struct inst **top;
	size_t i, n = 0;
	int rc = 0;

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s = pc_dso_dwarf(b, err, errlen);
	if (!s) {
		free(t);
		return -1;
	}
	/*
	 * GCC 12 and older key counts by line offset only; GCC 13 and newer
	 * by offset and discriminator: write them for the GCC that built
	 * the binary (--gcc-version overrides).
	 */
	if (fmt == AFDO_FMT_GCOV) {
		int gcc = afdo_gcc_version ? afdo_gcc_version : pc_dwarf_gcc_major(s);

		t->nodiscr = gcc < 13;
		if (afdo_verbose)
			fprintf(stderr, "perf-ctr aggregate: GCC %d profile: %s discriminators\n",
				gcc, t->nodiscr ? "without" : "with");
	}
	t->llvm_discr = fmt == AFDO_FMT_LLVM_TEXT;
	memset(&ts, 0, sizeof(ts));
	ts.w.insn = tree_insn;
	ts.w.s = s;
	ts.w.keep_spans = true;
	ts.t = t;
	if (afdo_sweep_ranges(&ts.w, g, b) || add_calls(t, s, g, b) ||
	    zero_fill(t, s, g, b, &ts.w)) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
		goto out;
	}
	top = malloc((t->ntop + 1) * sizeof(*top));
	if (!top) {
		rc = -1;
		goto out;
	}
	for (i = 0; i < TOP_HASH; i++) {
		struct inst *in;

		for (in = t->top[i]; in; in = in->hnext) {
			compute_total(in, fmt == AFDO_FMT_LLVM_TEXT, true);
			sort_inst(in);
			if (in->total || in->head)
				top[n++] = in;
		}
	}
	qsort(top, n, sizeof(*top), cmp_top);
	if (fmt == AFDO_FMT_LLVM_TEXT) {
		afdo_llvm_text_write(f, top, n);
	} else {
		rc = afdo_gcov_write(f, top, n);
	}
	free(top);
	if (t->skipped_lines && afdo_verbose)
		fprintf(stderr, "perf-ctr aggregate: %llu locations before their function's line skipped\n",
			(unsigned long long)t->skipped_lines);
out:
	for (i = 0; i < TOP_HASH; i++)
		while (t->top[i]) {
			struct inst *in = t->top[i];

			t->top[i] = in->hnext;
			free_inst(in);
		}
	free(ts.w.spans);
	free(t);
	return rc;
}

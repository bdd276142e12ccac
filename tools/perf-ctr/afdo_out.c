// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: output formats.
 *
 * Unsymbolized: the AutoFDO text of create_gcov --profiler=text, and the
 * llvm-profgen unsymbolized profile. Symbolized: the LLVM sample profile
 * text and GCC's AutoFDO gcov container (version 2), both built from one
 * tree of function instances:
 *
 *   range counts -> count of every instruction (a sweep over the text)
 *   instruction  -> inline stack (libdw) -> body count of a line offset
 *                   in the innermost instance (max over its instructions)
 *   call branch  -> call target count at the call's location, and the
 *                   head count of the callee entered at its first byte
 */
#include <stdlib.h>
#include <string.h>
#include "afdo.h"

/* ---- unsymbolized formats ---- */

static int write_pairs(FILE *f, const struct afdo_map *m, const char *sep,
		       uint64_t base, const char *indent)
{
	size_t n, i;
	struct afdo_cnt *v = afdo_map_sorted(m, &n);

	if (!v)
		return -1;
	fprintf(f, "%s%zu\n", indent, n);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%llx%s%llx:%llu\n", indent,
			(unsigned long long)(v[i].a - base), sep,
			(unsigned long long)(v[i].b - base),
			(unsigned long long)v[i].n);
	free(v);
	return 0;
}

/*
 * create_gcov reads three sections: "N" then N "begin-end:count" lines,
 * "N" then "addr:count", "N" then "from->to:count". Hex addresses are
 * relative to the p_vaddr of the binary's first PT_LOAD.
 */
int afdo_write_autofdo_text(FILE *f, const struct afdo_agg *g,
			    const struct afdo_bin *b)
{
	size_t n, i;
	struct afdo_cnt *v;

	if (write_pairs(f, &g->ranges, "-", b->first_load, ""))
		return -1;
	v = afdo_map_sorted(&g->addrs, &n);
	if (!v)
		return -1;
	fprintf(f, "%zu\n", n);
	for (i = 0; i < n; i++)
		fprintf(f, "%llx:%llu\n",
			(unsigned long long)(v[i].a - b->first_load),
			(unsigned long long)v[i].n);
	free(v);
	return write_pairs(f, &g->branches, "->", b->first_load, "");
}

/*
 * llvm-profgen --unsymbolized-profile: range section then branch
 * section, hex offsets from the first executable segment (4K aligned),
 * no context line for a profile without call stacks.
 */
int afdo_write_llvm_unsym(FILE *f, const struct afdo_agg *g,
			  const struct afdo_bin *b)
{
	if (write_pairs(f, &g->ranges, "-", b->first_exec_page, ""))
		return -1;
	return write_pairs(f, &g->branches, "->", b->first_exec_page, "");
}

/* ---- the tree of function instances ---- */

struct tgt {
	const char *name;
	uint64_t n;
	struct tgt *next;
};

struct body {
	uint32_t off, discr;
	uint64_t n;
	bool indirect;
	struct tgt *tgts;
};

struct inst;
struct kid {
	uint32_t off, discr;
	struct inst *in;
};

struct inst {
	const char *name;
	int decl_line;
	uint64_t head, total;
	uint64_t insn_sum;		/* count x size of its own instructions */
	struct body *body;
	size_t nbody, cbody;
	struct kid *kids;
	size_t nkids, ckids;
	struct inst *hnext;		/* top-level hash chain */
};

#define TOP_HASH 4096

struct tree {
	struct inst *top[TOP_HASH];
	size_t ntop;
	bool nodiscr;			/* GCC 12: no discriminators */
	bool llvm_discr;		/* LLVM: base discriminators */
	uint64_t skipped_lines;		/* before the function's line, or 0 */
};

static unsigned int str_hash(const char *s)
{
	unsigned int h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void *xgrow(void *p, size_t *cap, size_t need, size_t sz)
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
	unsigned int h = str_hash(name) % TOP_HASH;
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
	p->kids = xgrow(p->kids, &p->ckids, p->nkids + 1, sizeof(*p->kids));
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
	in->body = xgrow(in->body, &in->cbody, in->nbody + 1, sizeof(*in->body));
	memset(&in->body[in->nbody], 0, sizeof(in->body[0]));
	in->body[in->nbody].off = off;
	in->body[in->nbody].discr = discr;
	return &in->body[in->nbody++];
}

static bool line_off(struct tree *t, const struct afdo_frame *f, uint32_t *off)
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
static struct body *locate(struct tree *t, const struct afdo_frame *f, int nf,
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

struct sweep {
	void (*insn)(struct sweep *w, uint64_t addr, uint64_t n, unsigned int len);
	struct afdo_sym *s;
};

struct tree_sweep {
	struct sweep w;
	struct tree *t;
};

static void add_insn(struct tree *t, struct afdo_sym *s, uint64_t addr,
		     uint64_t n, unsigned int len);

static void tree_insn(struct sweep *w, uint64_t addr, uint64_t n, unsigned int len)
{
	add_insn(((struct tree_sweep *)w)->t, w->s, addr, n, len);
}

static void add_insn(struct tree *t, struct afdo_sym *s, uint64_t addr,
		     uint64_t n, unsigned int len)
{
	struct afdo_frame f[AFDO_MAX_INLINE];
	int nf = afdo_sym_frames(s, addr, f, AFDO_MAX_INLINE);
	struct inst *in = NULL;
	struct body *bd;

	if (nf <= 0)
		return;
	bd = locate(t, f, nf, &in);
	if (!bd)
		return;
	/* LLVM's totals count bytes: llvm-profgen weighs each instruction so */
	in->insn_sum += n * len;
	if (t->llvm_discr)
		n *= llvm_dup_factor(f[nf - 1].discr);
	if (bd->n < n)
		bd->n = n;
}

/* Counts of every instruction covered by a range: a sweep over events. */
static int sweep_ranges(struct sweep *w, const struct afdo_agg *g,
			const struct afdo_bin *b)
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
		uint32_t insn;
		unsigned int len = afdo_insn(b, v[i].b, &insn);

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
		for (p = a; p < ev[i].addr;) {
			uint32_t insn;
			unsigned int len = afdo_insn(b, p, &insn);

			if (!len)
				break;
			w->insn(w, p, (uint64_t)active, len);
			p += len;
		}
	}
	free(ev);
	return 0;
}

/* Call targets at the calls' locations, head counts at the callees. */
static int add_calls(struct tree *t, struct afdo_sym *s,
		     const struct afdo_agg *g, const struct afdo_bin *b)
{
	size_t n, i;
	struct afdo_cnt *v = afdo_map_sorted(&g->branches, &n);

	if (!v)
		return -1;
	for (i = 0; i < n; i++) {
		enum afdo_call kind = afdo_call_kind(b, v[i].a);
		struct afdo_frame f[AFDO_MAX_INLINE], callee[AFDO_MAX_INLINE];
		const char *cname;
		uint64_t entry = 0;
		struct body *bd;
		struct tgt *tg;
		int nf, nc;

		if (kind == AFDO_NOT_CALL)
			continue;
		/* a call lands on a function's first byte (PLT stubs have none) */
		cname = afdo_sym_func(s, v[i].b, &entry);
		if (!cname || entry != v[i].b)
			continue;
		nc = afdo_sym_frames(s, v[i].b, callee, AFDO_MAX_INLINE);
		if (nc > 0) {
			cname = callee[0].name;
			top_inst(t, cname, callee[0].decl_line)->head += v[i].n;
		} else if (t->llvm_discr) {
			/* llvm-profgen knows functions by their DWARF only */
			continue;
		}
		nf = afdo_sym_frames(s, v[i].a, f, AFDO_MAX_INLINE);
		if (nf <= 0)
			continue;
		bd = locate(t, f, nf, NULL);
		if (!bd)
			continue;
		bd->indirect |= kind == AFDO_ICALL;
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
static uint64_t compute_total(struct inst *in, bool llvm)
{
	size_t i;
	uint64_t sum = 0;

	for (i = 0; i < in->nbody; i++) {
		uint64_t ts = 0;
		struct tgt *tg;

		/* a call site counts at least as often as its calls */
		for (tg = in->body[i].tgts; tg; tg = tg->next)
			ts += tg->n;
		if (in->body[i].n < ts)
			in->body[i].n = ts;
		sum += in->body[i].n;
	}
	if (llvm)
		sum = in->insn_sum;
	for (i = 0; i < in->nkids; i++)
		sum += compute_total(in->kids[i].in, llvm);
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
static size_t sorted_tgts(struct body *bd, struct tgt ***out)
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

/* ---- LLVM sample profile text ---- */

static void llvm_loc(FILE *f, int depth, uint32_t off, uint32_t discr)
{
	fprintf(f, "%*s%u", depth, "", off);
	if (discr)
		fprintf(f, ".%u", discr);
	fputs(": ", f);
}

static void llvm_inst(FILE *f, struct inst *in, int depth)
{
	size_t i, j;

	for (i = 0; i < in->nbody; i++) {
		struct body *bd = &in->body[i];
		struct tgt **tv;
		size_t nt;

		if (!bd->n)
			continue;
		llvm_loc(f, depth, bd->off, bd->discr);
		fprintf(f, "%llu", (unsigned long long)bd->n);
		nt = sorted_tgts(bd, &tv);
		for (j = 0; j < nt; j++)
			fprintf(f, " %s:%llu", tv[j]->name, (unsigned long long)tv[j]->n);
		free(tv);
		fputc('\n', f);
	}
	for (i = 0; i < in->nkids; i++) {
		struct inst *k = in->kids[i].in;

		if (!k->total)
			continue;
		llvm_loc(f, depth, in->kids[i].off, in->kids[i].discr);
		fprintf(f, "%s:%llu\n", k->name, (unsigned long long)k->total);
		llvm_inst(f, k, depth + 1);
	}
}

/* ---- GCC AutoFDO gcov (version 2, GCC >= 12) ---- */

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
	b->p = xgrow(b->p, &b->cap, b->n + n, 1);
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
	size_t i = str_hash(s) & st->hmask;

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
			size_t k = str_hash(st->v[j]) & (cap - 1);

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
	st->v = xgrow(st->v, &st->cap, st->n + 1, sizeof(*st->v));
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

	for (i = 0; i < in->nbody; i++)
		npos += in->body[i].n != 0;
	for (i = 0; i < in->nkids; i++)
		nkids += in->kids[i].in->total != 0;
	put32(b, str_index(st, in->name));
	put32(b, (uint32_t)npos);
	put32(b, (uint32_t)nkids);
	for (i = 0; i < in->nbody; i++) {
		struct body *bd = &in->body[i];
		struct tgt **tv;
		size_t nt = 0;

		if (!bd->n)
			continue;
		put32(b, bd->off << 16 | (bd->discr & 0xffff));
		if (bd->indirect)
			nt = sorted_tgts(bd, &tv);
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

static int write_gcov(FILE *f, struct inst **top, size_t ntop)
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
	for (i = 0; i < ntop; i++)
		gcov_names(&st, top[i]);
	/* function profiles first: their name indexes are all known now */
	put32(&fn, GCOV_TAG_AFDO_FUNCTION);
	put32(&fn, 0);
	put32(&fn, (uint32_t)ntop);
	for (i = 0; i < ntop; i++) {
		put64(&fn, top[i]->head);
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

int afdo_write_symbolized(FILE *f, enum afdo_format fmt,
			  const struct afdo_agg *g, struct afdo_bin *b,
			  char *err, size_t errlen)
{
	struct tree *t = calloc(1, sizeof(*t));
	struct tree_sweep ts;
	struct afdo_sym *s;
	struct inst **top;
	size_t i, n = 0;
	int rc = 0;

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s = afdo_sym_open(b, err, errlen);
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
		int gcc = afdo_gcc_version ? afdo_gcc_version : afdo_sym_gcc_major(s);

		t->nodiscr = gcc < 13;
		if (afdo_verbose)
			fprintf(stderr, "perf-ctr aggregate: GCC %d profile: %s discriminators\n",
				gcc, t->nodiscr ? "without" : "with");
	}
	t->llvm_discr = fmt == AFDO_FMT_LLVM_TEXT;
	ts.w.insn = tree_insn;
	ts.w.s = s;
	ts.t = t;
	if (sweep_ranges(&ts.w, g, b) || add_calls(t, s, g, b)) {
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
			compute_total(in, fmt == AFDO_FMT_LLVM_TEXT);
			sort_inst(in);
			if (in->total || in->head)
				top[n++] = in;
		}
	}
	qsort(top, n, sizeof(*top), cmp_top);
	if (fmt == AFDO_FMT_LLVM_TEXT) {
		for (i = 0; i < n; i++) {
			fprintf(f, "%s:%llu:%llu\n", top[i]->name,
				(unsigned long long)top[i]->total,
				(unsigned long long)top[i]->head);
			llvm_inst(f, top[i], 1);
		}
	} else {
		rc = write_gcov(f, top, n);
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
	free(t);
	afdo_sym_close(s);
	return rc;
}

/* ---- lines: the profile as source-line counts, to compare with gcov ---- */

struct line_cnt {
	const char *file;	/* owned by libdw, one pointer per CU and file */
	int line;
	uint64_t n;
};

struct lines_sweep {
	struct sweep w;
	struct line_cnt *v;
	size_t n, cap;
	int oom;
};

static void line_insn(struct sweep *w, uint64_t addr, uint64_t n, unsigned int len)
{
	struct lines_sweep *ls = (struct lines_sweep *)w;
	const char *file;
	int line;

	(void)len;
	if (!afdo_sym_line(w->s, addr, &file, &line) || !line)
		return;
	if (ls->n == ls->cap) {
		void *p = xgrow(ls->v, &ls->cap, ls->n + 1, sizeof(*ls->v));

		if (!p) {
			ls->oom = 1;
			return;
		}
		ls->v = p;
	}
	ls->v[ls->n].file = file;
	ls->v[ls->n].line = line;
	ls->v[ls->n++].n = n;
}

static int cmp_line(const void *x, const void *y)
{
	const struct line_cnt *p = x, *q = y;
	int c = strcmp(p->file, q->file);

	if (c)
		return c;
	return p->line - q->line;
}

int afdo_write_lines(FILE *f, const struct afdo_agg *g, struct afdo_bin *b,
		     char *err, size_t errlen)
{
	struct lines_sweep ls = { 0 };
	size_t i, j;
	int rc = 0;

	ls.w.insn = line_insn;
	ls.w.s = afdo_sym_open(b, err, errlen);
	if (!ls.w.s)
		return -1;
	if (sweep_ranges(&ls.w, g, b) || ls.oom) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
		goto out;
	}
	/* a line counts as much as its most executed instruction */
	qsort(ls.v, ls.n, sizeof(*ls.v), cmp_line);
	for (i = 0; i < ls.n; i = j) {
		uint64_t max = 0;

		for (j = i; j < ls.n && !cmp_line(&ls.v[i], &ls.v[j]); j++)
			if (ls.v[j].n > max)
				max = ls.v[j].n;
		fprintf(f, "%s:%d %llu\n", ls.v[i].file, ls.v[i].line,
			(unsigned long long)max);
	}
out:
	free(ls.v);
	afdo_sym_close(ls.w.s);
	return rc;
}

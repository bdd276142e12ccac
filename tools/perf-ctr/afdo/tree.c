// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: the tree of function instances (tree.h), built
 * from the range and branch counts and the binary's DWARF. It calls no
 * writer: the writers read it.
 */
#include <stdlib.h>
#include <string.h>

#include "dwarf-info.h"
#include "sweep.h"
#include "tree.h"

static struct afdo_inst *new_inst(const char *name, int decl_line)
{
	struct afdo_inst *in = calloc(1, sizeof(*in));

	if (in) {
		in->name = name;
		in->decl_line = decl_line;
	}
	return in;
}

static bool top_is(const void *ctx, size_t pos, const void *key)
{
	return !strcmp(((struct afdo_inst *const *)ctx)[pos]->name, key);
}

struct afdo_inst *afdo_tree_top(struct afdo_tree *t, const char *name,
				int decl_line)
{
	bool added;
	size_t i = pc_index_get(&t->all_ix, (void **)&t->all, &t->nall, &t->call,
				sizeof(*t->all), pc_hash(pc_hash_str(name), 0, 0), top_is,
				name, &added);

	if (i == PC_INDEX_NONE)
		return NULL;
	/* out of memory ends the build: no lookup meets a NULL instance */
	if (added)
		t->all[i] = new_inst(name, decl_line);
	return t->all[i];
}

struct loc_key {
	uint32_t off, discr;
	const char *name;		/* of a kid */
};

static uint64_t loc_hash(const struct loc_key *k)
{
	return pc_hash((uint64_t)k->off << 32 | k->discr,
		       k->name ? pc_hash_str(k->name) : 0, 0);
}

/* The position of K in the array of an instance (its kids or bodies). */
static size_t loc_get(struct pc_index *x, void **arr, size_t *nr, size_t *cap,
		      size_t size, const struct loc_key *k, pc_index_eq eq,
		      bool *added)
{
	return pc_index_get(x, arr, nr, cap, size, loc_hash(k), eq, k, added);
}

static bool kid_is(const void *ctx, size_t pos, const void *key)
{
	const struct afdo_kid *d = &((const struct afdo_kid *)ctx)[pos];
	const struct loc_key *k = key;

	return d->off == k->off && d->discr == k->discr && !strcmp(d->in->name, k->name);
}

struct afdo_inst *afdo_inst_kid(struct afdo_inst *p, uint32_t off,
				uint32_t discr, const char *name, int decl_line)
{
	struct loc_key k = { off, discr, name };
	bool added;
	size_t i = loc_get(&p->kid_ix, (void **)&p->kids, &p->nkids, &p->ckids,
			   sizeof(*p->kids), &k, kid_is, &added);

	if (i != PC_INDEX_NONE && added) {
		p->kids[i].off = off;
		p->kids[i].discr = discr;
		p->kids[i].in = new_inst(name, decl_line);
	}
	return i == PC_INDEX_NONE ? NULL : p->kids[i].in;
}

static bool body_is(const void *ctx, size_t pos, const void *key)
{
	const struct afdo_body *b = &((const struct afdo_body *)ctx)[pos];
	const struct loc_key *k = key;

	return b->off == k->off && b->discr == k->discr;
}

struct afdo_body *afdo_inst_body(struct afdo_inst *in, uint32_t off,
				 uint32_t discr)
{
	struct loc_key k = { off, discr, NULL };
	bool added;
	size_t i = loc_get(&in->body_ix, (void **)&in->body, &in->nbody,
			   &in->cbody, sizeof(*in->body), &k, body_is, &added);

	if (i == PC_INDEX_NONE)
		return NULL;
	in->body[i].off = off;
	in->body[i].discr = discr;
	return &in->body[i];
}

const struct afdo_body *afdo_inst_body_find(const struct afdo_inst *in,
					    uint32_t off, uint32_t discr)
{
	struct loc_key k = { off, discr, NULL };
	size_t i = pc_index_find(&in->body_ix, loc_hash(&k), body_is, in->body, &k);

	return i == PC_INDEX_NONE ? NULL : &in->body[i];
}

static bool line_off(struct afdo_tree *t, const struct pc_frame *f, uint32_t *off)
{
	/*
	 * LLVM keys a location by (line - function's line) & 0xffff, line 0
	 * and lines above the function included: so do its profiles.
	 */
	if (t->kind == AFDO_TREE_LLVM) {
		*off = (uint32_t)(f->line - f->decl_line) & 0xffff;
		return true;
	}
	/*
	 * GCC's offset is (line - function's line) << 16 in 32 bits: a line
	 * above the function (#line, macros) wraps, as create_gcov writes it
	 * and GCC computes it. Line 0 is no location for GCC.
	 */
	if (f->line <= 0 || f->line - f->decl_line > 0xffff ||
	    f->decl_line - f->line > 0xffff) {
		t->skipped_lines++;
		return false;
	}
	*off = (uint32_t)(f->line - f->decl_line) & 0xffff;
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

/*
 * A binary built with flow-sensitive discriminators (clang
 * -enable-fs-discriminator, as the kernel's AutoFDO build is) has base
 * and per-pass bits in them and no duplication factor: its profile
 * carries them whole, as llvm-profgen writes it.
 */
static uint32_t discr_of(const struct afdo_tree *t, uint32_t d)
{
	if (t->nodiscr)
		return 0;
	if (t->kind != AFDO_TREE_LLVM || t->fs_discr)
		return d;
	return llvm_base_discr(d);
}

/*
 * The body entry of the innermost frame of F, creating instances on the
 * way; NULL with *OOM set when out of memory, without when the location
 * is skipped.
 */
static struct afdo_body *locate(struct afdo_tree *t, const struct pc_frame *f,
				int nf, struct afdo_inst **leaf, bool *oom)
{
	struct afdo_inst *in = afdo_tree_top(t, f[0].name, f[0].decl_line);
	struct afdo_body *bd;
	uint32_t off;
	int k;

	for (k = 0; in && k + 1 < nf; k++) {
		if (!in->file)
			in->file = f[k].decl_file;
		if (!line_off(t, &f[k], &off))
			return NULL;
		in = afdo_inst_kid(in, off, discr_of(t, f[k].discr),
			      f[k + 1].name, f[k + 1].decl_line);
	}
	if (in && !in->file)
		in->file = f[nf - 1].decl_file;
	if (!in) {
		*oom = true;
		return NULL;
	}
	if (!line_off(t, &f[nf - 1], &off))
		return NULL;
	if (leaf)
		*leaf = in;
	bd = afdo_inst_body(in, off, discr_of(t, f[nf - 1].discr));
	*oom = !bd;
	return bd;
}

struct tree_build {
	struct afdo_tree *t;
	struct pc_dwarf *s;
};

/* An instruction at ADDR ran N times (0: not at all): its line's count. */
static int add_insn(void *ctx, uint64_t addr, uint64_t n, unsigned int len)
{
	struct tree_build *b = ctx;
	struct afdo_tree *t = b->t;
	struct pc_frame f[PC_MAX_FRAMES];
	int nf = pc_dwarf_frames(b->s, addr, f, PC_MAX_FRAMES);
	struct afdo_inst *in = NULL;
	struct afdo_body *bd;
	bool oom = false;

	if (nf <= 0)
		return 0;
	bd = locate(t, f, nf, &in, &oom);
	if (!bd)
		return oom ? -1 : 0;
	bd->seen = true;
	/* LLVM's totals count bytes: llvm-profgen weighs each instruction so */
	in->insn_sum += n * len;
	if (t->kind == AFDO_TREE_LLVM && !t->fs_discr)
		n *= llvm_dup_factor(f[nf - 1].discr);
	if (bd->n < n)
		bd->n = n;
	return 0;
}

struct afdo_tgt *afdo_body_tgt(struct afdo_tree *t, struct afdo_body *bd,
			       const char *name)
{
	struct afdo_tgt *v;
	size_t i;

	/* a call site has a few targets at the most */
	for (i = 0; i < bd->ntgts; i++)
		if (!strcmp(bd->tgts[i].name, name))
			return &bd->tgts[i];
	v = pc_grow(bd->tgts, &bd->ctgts, bd->ntgts, sizeof(*bd->tgts), 2);
	if (!v)
		return NULL;
	bd->tgts = v;
	v = &bd->tgts[bd->ntgts++];
	v->name = name;
	v->n = 0;
	v->seq = t->ntgts++;
	return v;
}

/* The top-level instance of the function at its first byte ENTRY, or NULL. */
static struct afdo_inst *callee_of(struct tree_build *b, struct pc_dso *bin,
				   uint64_t entry, const char **name, bool *oom)
{
	struct pc_frame callee[PC_MAX_FRAMES];
	const struct pc_sym *fs = pc_dso_sym(bin, entry);
	struct afdo_inst *top;
	int nc;

	*oom = false;
	if (!fs || fs->start != entry)
		return NULL;
	*name = fs->name;
	nc = pc_dwarf_frames(b->s, entry, callee, PC_MAX_FRAMES);
	if (nc <= 0)
		return NULL;
	*name = callee[0].name;
	top = afdo_tree_top(b->t, *name, callee[0].decl_line);
	if (top && !top->file)
		top->file = callee[0].decl_file;
	*oom = !top;
	return top;
}

/*
 * Head counts: every entry into a function (afdo_counts), from a call, a
 * tail call or another file. A function known by its symbol only has no
 * instance to count them in.
 */
static int add_heads(struct tree_build *b, const struct afdo_counts *c,
		     struct pc_dso *bin)
{
	size_t i;

	for (i = 0; i <= c->entries.mask; i++) {
		const struct afdo_cnt *e = &c->entries.t[i];
		struct afdo_inst *top;
		const char *name;
		bool oom;

		if (!e->tag)
			continue;
		top = callee_of(b, bin, e->a, &name, &oom);
		if (oom)
			return -1;
		if (top)
			top->head += e->n;
	}
	return 0;
}

/*
 * Call targets at the locations of the transfers into a function's first
 * byte: calls, and jumps from other functions (tail calls), as
 * llvm-profgen counts them. A jump within the function is a loop.
 */
static int add_calls(struct tree_build *b, const struct afdo_counts *c,
		     struct pc_dso *bin)
{
	struct afdo_tree *t = b->t;
	size_t n, i;
	struct afdo_cnt *v = afdo_map_sorted(&c->branches, &n);
	int rc = 0;

	if (!v)
		return -1;
	for (i = 0; i < n && !rc; i++) {
		struct pc_frame f[PC_MAX_FRAMES];
		const char *cname = NULL;
		struct pc_rv_insn call;
		struct afdo_body *bd;
		struct afdo_tgt *tg;
		bool oom = false;
		int nf;

		if (!pc_dso_insn(bin, v[i].a, &call) || call.kind == PC_RV_OTHER)
			continue;
		/* a call lands on a function's first byte (PLT stubs have none) */
		if (!callee_of(b, bin, v[i].b, &cname, &oom)) {
			if (oom) {
				rc = -1;
				break;
			}
			/* llvm-profgen knows functions by their DWARF only */
			if (!cname || t->kind == AFDO_TREE_LLVM)
				continue;
		}
		if (!pc_rv_is_call(call.kind) &&
		    pc_dso_sym(bin, v[i].a) == pc_dso_sym(bin, v[i].b))
			continue;
		nf = pc_dwarf_frames(b->s, v[i].a, f, PC_MAX_FRAMES);
		if (nf <= 0)
			continue;
		bd = locate(t, f, nf, NULL, &oom);
		if (!bd) {
			rc = oom ? -1 : 0;
			continue;
		}
		bd->indirect |= !call.direct;
		tg = afdo_body_tgt(t, bd, cname);
		if (!tg)
			rc = -1;
		else
			tg->n += v[i].n;
	}
	free(v);
	return rc;
}

/*
 * The total of an instance: GCC sums its line counts itself; LLVM's is
 * what llvm-profgen computes: count times size of each of its
 * instructions, plus the totals of the instances inlined into it.
 */
static uint64_t compute_total(struct afdo_inst *in, bool llvm, bool top)
{
	size_t i, j;
	uint64_t sum = 0;

	for (i = 0; i < in->nbody; i++) {
		uint64_t ts = 0;

		/*
		 * A call site counts at least as often as its calls; llvm-profgen
		 * makes it so in top-level functions only.
		 */
		for (j = 0; j < in->body[i].ntgts; j++)
			ts += in->body[i].tgts[j].n;
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
	const struct afdo_body *p = x, *q = y;

	return pc_cmp_u64(p->off, q->off) ?: pc_cmp_u64(p->discr, q->discr);
}

static int cmp_kid(const void *x, const void *y)
{
	const struct afdo_kid *p = x, *q = y;

	return pc_cmp_u64(p->off, q->off) ?: pc_cmp_u64(p->discr, q->discr) ?:
	       strcmp(p->in->name, q->in->name);
}

/* Most frequent first; names are unique in a call site. */
static int cmp_tgt(const void *x, const void *y)
{
	const struct afdo_tgt *p = x, *q = y;

	return pc_cmp_u64(q->n, p->n) ?: strcmp(p->name, q->name);
}

/* Sorted as written; the indexes are not needed any more. */
static void sort_inst(struct afdo_inst *in)
{
	size_t i;

	/* qsort() may not be given the NULL of an array never grown */
	for (i = 0; i < in->nbody; i++)
		if (in->body[i].ntgts > 1)
			qsort(in->body[i].tgts, in->body[i].ntgts,
			      sizeof(*in->body[i].tgts), cmp_tgt);
	if (in->nbody > 1)
		qsort(in->body, in->nbody, sizeof(*in->body), cmp_body);
	if (in->nkids > 1)
		qsort(in->kids, in->nkids, sizeof(*in->kids), cmp_kid);
	pc_index_free(&in->body_ix);
	pc_index_free(&in->kid_ix);
	for (i = 0; i < in->nkids; i++)
		sort_inst(in->kids[i].in);
}

static int cmp_top(const void *x, const void *y)
{
	const struct afdo_inst *p = *(struct afdo_inst * const *)x;
	const struct afdo_inst *q = *(struct afdo_inst * const *)y;

	return pc_cmp_u64(q->total, p->total) ?: strcmp(p->name, q->name);
}

static void free_inst(struct afdo_inst *in)
{
	size_t i;

	if (!in)		/* the one that ran out of memory */
		return;
	for (i = 0; i < in->nbody; i++)
		free(in->body[i].tgts);
	for (i = 0; i < in->nkids; i++)
		free_inst(in->kids[i].in);
	pc_index_free(&in->body_ix);
	pc_index_free(&in->kid_ix);
	free(in->body);
	free(in->kids);
	free(in);
}

int afdo_tree_build(struct afdo_tree *t, enum afdo_tree_kind kind,
		    const struct afdo_input *in, char *err, size_t errlen)
{
	struct tree_build b = { .t = t };

	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->fs_discr = kind == AFDO_TREE_LLVM && in->bin->llvm_fs_discr;
	b.s = pc_dso_dwarf(in->bin, err, errlen);
	if (!b.s)
		return -1;
	/*
	 * GCC 12 and older key counts by line offset only; GCC 13 and newer
	 * by offset and discriminator: write them for the GCC that built
	 * the binary (or the one asked for).
	 */
	if (kind == AFDO_TREE_GCC) {
		t->gcc_version = in->gcc_version ? in->gcc_version :
			       pc_dwarf_gcc_major(b.s);
		t->nodiscr = t->gcc_version < 13;
	}
	if (afdo_sweep_filled(in->counts, in->bin, b.s, add_insn, &b, NULL, NULL) ||
	    add_calls(&b, in->counts, in->bin) ||
	    add_heads(&b, in->counts, in->bin) || afdo_tree_finish(t)) {
		afdo_tree_free(t);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/*
 * C++ compilers give the initializers of every translation unit one name
 * (__cxx_global_var_init, __tls_init, numbered copies of them): their
 * profile would mislead, and llvm-profgen leaves it out, where they are
 * inlined too. The totals that counted them stay as they are.
 */
static bool llvm_ambiguous(const char *name)
{
	return !strncmp(name, "__cxx_global_var_init", 21) ||
	       !strncmp(name, "__tls_init", 10);
}

static void drop_ambiguous(struct afdo_inst *in)
{
	size_t i, k;

	for (i = k = 0; i < in->nkids; i++) {
		if (llvm_ambiguous(in->kids[i].in->name)) {
			free_inst(in->kids[i].in);
			continue;
		}
		drop_ambiguous(in->kids[i].in);
		in->kids[k++] = in->kids[i];
	}
	in->nkids = k;
}

/* Did a call site of @in, or of what is inlined into it, count a call? */
static bool has_call_count(const struct afdo_inst *in)
{
	size_t i, j;

	for (i = 0; i < in->nbody; i++)
		for (j = 0; j < in->body[i].ntgts; j++)
			if (in->body[i].tgts[j].n)
				return true;
	for (i = 0; i < in->nkids; i++)
		if (has_call_count(in->kids[i].in))
			return true;
	return false;
}

int afdo_tree_finish(struct afdo_tree *t)
{
	size_t i;

	t->top = malloc((t->nall + 1) * sizeof(*t->top));
	if (!t->top)
		return -1;
	for (i = 0; i < t->nall; i++) {
		struct afdo_inst *top = t->all[i];

		compute_total(top, t->kind != AFDO_TREE_GCC, true);
		sort_inst(top);
		if (t->kind != AFDO_TREE_GCC) {
			drop_ambiguous(top);
			if (llvm_ambiguous(top->name))
				continue;
		}
		/*
		 * llvm-profgen writes every function a probe gave a count, 0
		 * too, and one whose only count is a call site's: a call that
		 * was a sample's oldest record, with no range before it.
		 */
		if (top->total || top->head || t->kind == AFDO_TREE_PROBE ||
		    has_call_count(top))
			t->top[t->ntop++] = top;
	}
	qsort(t->top, t->ntop, sizeof(*t->top), cmp_top);
	return 0;
}

void afdo_tree_free(struct afdo_tree *t)
{
	size_t i;

	for (i = 0; i < t->nall; i++)
		free_inst(t->all[i]);
	free(t->all);
	free(t->top);
	pc_index_free(&t->all_ix);
	memset(t, 0, sizeof(*t));
}

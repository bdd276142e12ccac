// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: the context-sensitive probe-based LLVM sample
 * profile (CSSPGO) of a binary built with clang
 * -fpseudo-probe-for-profiling, from samples with call chains and branch
 * stacks, as llvm-profgen 19 writes it given --gen-cs-nested-profile=0
 * --infer-missing-frames=0: one flat profile per calling context, after
 * its pre-inliner (preinline.c) has folded the contexts not worth
 * inlining into their functions' base profiles; with --no-preinline,
 * every context, as llvm-profgen's --csspgo-preinliner=0
 * --csprof-merge-cold-context=0 gives them.
 *
 *  - context.c unwinds each sample into contexts: the call instructions
 *    around a range or branch.
 *  - A context's call sites become frames through their call probes,
 *    innermost first until one has none (llvm-profgen cuts it there:
 *    clang 19 emits no call probes for RISC-V, so there contexts are
 *    those of inlining only); each call probe brings the functions
 *    inlined at it: [main:3 @ foo:2 @ bar].
 *  - Each instruction of a range counts for every block probe at its
 *    address, in the context followed by the probe's inline context;
 *    a probe's function's entry probe (index 1) gives the head count,
 *    and, when the function was inlined, a call of it at its site in
 *    the profile of the context around. Every probe of an inline
 *    instance that counted is in its profile, 0 when nothing ran it.
 *  - A branch from a call probe's address counts for the call probe,
 *    and for its target, named as a call target.
 *  - Repeated frames of a recursion are kept once (llvm-profgen's
 *    default --compress-recursion=-1).
 *
 * Profiles come out by total, then context; each with its body
 * locations in order, their call targets by count, its CFG checksum and
 * its attributes (1: the leaf function was inlined there; 2: the
 * pre-inliner inlines it there).
 */
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "dwarf-info.h"
#include "md5.h"
#include "preinline.h"
#include "probe.h"
#include "tree.h"
#include "writers.h"

struct cs_build {
	const struct pc_probes *pp;
	struct pc_dso *bin;
	struct pc_dwarf *dw;
	struct afdo_tree t;		/* where the counts of each profile live */
	struct afdo_cs_prof *prof;
	size_t nprof, cprof;
	struct pc_index prof_ix;
	bool *touched;			/* by symbol: the profiled functions */
	bool *kept;			/* by node: its function's probes are decoded */
	uint32_t *node_first;		/* by node + 1: its probes in NODE_PROBES */
	uint32_t *node_probes;
	uint32_t *zeroed;		/* by node: 1 + the context it was zeroed in */
	uint64_t *cnt;			/* by probe: in the context at hand */
	uint32_t *hit;			/* probes with a count there */
	size_t nhit;
	struct afdo_cs_frame *fr;	/* scratch: a context being made */
	struct afdo_cs_frame *ctx_fr;	/* the frames of the context at hand */
	size_t nctx_fr, cctx_fr;
	bool native;			/* native calls: sites from DWARF too */
	size_t cfr;
	struct afdo_names names;
};

/* ---- which functions llvm-profgen decodes probes of ---- */

static void touch_ctx(struct pc_dso *bin, const struct afdo_ctx *c, bool *touched)
{
	size_t i;

	for (i = 0; i < c->nsites; i++)
		afdo_touch(bin, c->sites[i], touched);
	for (i = 0; i <= c->ranges.mask; i++)
		if (c->ranges.t[i].tag)
			afdo_touch(bin, c->ranges.t[i].a, touched);
	for (i = 0; i <= c->branches.mask; i++) {
		if (!c->branches.t[i].tag)
			continue;
		afdo_touch(bin, c->branches.t[i].a, touched);
		afdo_touch(bin, c->branches.t[i].b, touched);
	}
}

/*
 * The functions of the contexts' call sites, of the ranges' starts and
 * of the branches' ends: only theirs are decoded (KEPT by node).
 */
static int keep_profiled(struct cs_build *b, const struct afdo_ctxs *cs)
{
	struct pc_dso *bin = b->bin;
	size_t i;

	b->touched = calloc(bin->nr_syms + 1, sizeof(*b->touched));
	if (!b->touched)
		return -1;
	for (i = 0; i < cs->n; i++)
		touch_ctx(bin, &cs->v[i], b->touched);
	return afdo_probe_keep(b->pp, bin, b->touched, b->kept);
}

/* Each node's probes, for the zeros of an instance that counted. */
static int index_nodes(struct cs_build *b)
{
	size_t nn = b->pp->nnodes, np = b->pp->nprobes, i;
	uint32_t *at;

	b->node_first = calloc(nn + 2, sizeof(*b->node_first));
	b->node_probes = malloc((np + 1) * sizeof(*b->node_probes));
	at = calloc(nn + 1, sizeof(*at));
	if (!b->node_first || !b->node_probes || !at) {
		free(at);
		return -1;
	}
	for (i = 0; i < np; i++)
		b->node_first[b->pp->probes[i].node + 1]++;
	for (i = 0; i < nn; i++)
		b->node_first[i + 1] += b->node_first[i];
	for (i = 0; i < np; i++) {
		uint32_t nd = b->pp->probes[i].node;

		b->node_probes[b->node_first[nd] + at[nd]++] = i;
	}
	free(at);
	return 0;
}

/* ---- contexts of probes ---- */

static int add_frame(struct cs_build *b, size_t *n, const char *name,
		     uint32_t off)
{
	struct afdo_cs_frame *v = pc_grow(b->fr, &b->cfr, *n, sizeof(*v), 32);

	if (!v)
		return -1;
	b->fr = v;
	b->fr[(*n)++] = (struct afdo_cs_frame){ name, off };
	return 0;
}

/*
 * Append the functions of inline node ND, from the emitted one down,
 * each at the site of the next. A site of index 0 is a call llvm-profgen
 * 19 knows no probe of: the whole context starts over below it, the
 * frames of the call sites before too (ND still counts as inlined, for
 * its attributes).
 */
static int add_node(struct cs_build *b, size_t *n, uint32_t nd)
{
	const struct pc_probe_node *x = &b->pp->nodes[nd];

	if (x->parent != PC_PROBE_TOP) {
		if (add_node(b, n, x->parent))
			return -1;
		if (x->site)
			b->fr[*n - 1].off = x->site;
		else
			*n = 0;
	}
	return add_frame(b, n, x->desc->name, 0);
}

/* Append the inline context of probe PR, its own function at its index. */
static int add_inline(struct cs_build *b, size_t *n, const struct pc_probe *pr)
{
	if (add_node(b, n, pr->node))
		return -1;
	b->fr[*n - 1].off = pr->index;
	return 0;
}

/* The first call probe at ADDR of a decoded function, or NULL. */
static const struct pc_probe *call_probe(const struct cs_build *b, uint64_t addr)
{
	const struct pc_probe *pr;
	size_t k, i;

	if (addr == AFDO_ELSEWHERE)
		return NULL;
	pr = pc_probes_at(b->pp, addr, &k);
	for (i = 0; i < k; i++)
		if (pc_probe_is_call(&pr[i]) && b->kept[pr[i].node])
			return &pr[i];
	return NULL;
}

/*
 * The probe index a DWARF discriminator D names, when it is a call
 * probe's. libdw keeps only 24 bits of a line's discriminator (an
 * inlined call's is whole): the probe's type and the flag of a base
 * discriminator in bits 16 to 18 are gone then, and bits 16 to 18 are
 * taken for one (a function of more than 8191 probes is misread).
 */
static bool call_discr(uint32_t d, uint32_t *index)
{
	uint32_t type = (d >> 26) & 3;

	if ((d & 7) != 7)
		return false;
	if (d < 1U << 24) {
		*index = (d >> 3) & 0x1fff;
		return true;
	}
	if (type != PC_PROBE_DIRECT_CALL && type != PC_PROBE_INDIRECT_CALL)
		return false;
	*index = pc_probe_discr_index(d);
	return true;
}

/*
 * Native calls: append the frames of the call at ADDR, which no call
 * probe names, from its DWARF inline stack: each function by its probe
 * desc, each at the call probe its discriminator names (clang 19 emits
 * no call probes for RISC-V, but it writes their indices into the
 * calls' discriminators, which is what its sample loader looks the
 * contexts up by). *LEAF, when LEAF is not NULL, gets the innermost
 * function's desc. 1 when the stack has a frame without either.
 */
static int dwarf_site(struct cs_build *b, size_t *n, uint64_t addr,
		      const struct pc_probe_desc **leaf)
{
	struct pc_frame f[PC_MAX_FRAMES];
	int nf, i;

	if (!b->native || !b->dw || addr == AFDO_ELSEWHERE)
		return 1;
	nf = pc_dwarf_frames(b->dw, addr, f, PC_MAX_FRAMES);
	for (i = 0; i < nf; i++) {
		const struct pc_probe_desc *d;
		uint32_t index;

		d = pc_probe_desc(b->pp, pc_md5_guid(f[i].name, strlen(f[i].name)));
		if (!d || !call_discr(f[i].discr, &index))
			return 1;
		if (add_frame(b, n, d->name, index))
			return -1;
		if (leaf)
			*leaf = d;
	}
	return nf > 0 ? 0 : 1;
}

/*
 * Append the frames of call site ADDR: its call probe's inline context
 * at the probe, else (native calls) its DWARF's. 0; 1 when the site is
 * none; -1 out of memory.
 */
static int add_site(struct cs_build *b, size_t *n, uint64_t addr)
{
	const struct pc_probe *pr = call_probe(b, addr);
	size_t at = *n;
	int rc;

	if (pr)
		return add_inline(b, n, pr) ? -1 : 0;
	rc = dwarf_site(b, n, addr, NULL);
	if (rc > 0)
		*n = at;
	return rc;
}

/*
 * The frames of context C into CTX_FR: its call sites, innermost first
 * back to the first that is none, each through its inline context.
 */
static int ctx_frames(struct cs_build *b, const struct afdo_ctx *c)
{
	size_t lo = c->nsites, n, i;
	int rc;

	for (; lo > 0; lo--) {
		n = 0;
		rc = add_site(b, &n, c->sites[lo - 1]);
		if (rc < 0)
			return -1;
		if (rc)
			break;
	}
	n = 0;
	for (i = lo; i < c->nsites; i++)
		if (add_site(b, &n, c->sites[i]))
			return -1;
	if (n > b->cctx_fr) {
		struct afdo_cs_frame *v = realloc(b->ctx_fr, n * sizeof(*v));

		if (!v)
			return -1;
		b->ctx_fr = v;
		b->cctx_fr = n;
	}
	if (n)
		memcpy(b->ctx_fr, b->fr, n * sizeof(*b->fr));
	b->nctx_fr = n;
	return 0;
}

/* Start a context's frames in FR with those of the context at hand. */
static int ctx_start(struct cs_build *b, size_t *n)
{
	size_t i;

	*n = 0;
	for (i = 0; i < b->nctx_fr; i++)
		if (add_frame(b, n, b->ctx_fr[i].name, b->ctx_fr[i].off))
			return -1;
	return 0;
}

struct prof_key {
	const struct afdo_cs_frame *fr;
	size_t n;
};

static bool prof_is(const void *arr, size_t pos, const void *key)
{
	const struct afdo_cs_prof *p = &((const struct afdo_cs_prof *)arr)[pos];
	const struct prof_key *k = key;

	return p->nfr == k->n && !memcmp(p->fr, k->fr, k->n * sizeof(*k->fr));
}

static uint64_t frames_hash(const struct afdo_cs_frame *fr, size_t n)
{
	uint64_t h = n;
	size_t i;

	for (i = 0; i < n; i++)
		h = pc_hash(h, (uintptr_t)fr[i].name, fr[i].off);
	return h;
}

char *afdo_cs_string(const struct afdo_cs_frame *fr, size_t n)
{
	size_t len = 1, i, at = 0;
	char *s;

	for (i = 0; i < n; i++)
		len += strlen(fr[i].name) + 16;
	s = malloc(len);
	if (!s)
		return NULL;
	for (i = 0; i < n; i++) {
		at += sprintf(s + at, "%s%s", i ? " @ " : "", fr[i].name);
		if (i + 1 < n)
			at += sprintf(s + at, ":%u", fr[i].off);
	}
	s[at] = '\0';
	return s;
}

/* The profile of the N frames FR (the leaf's at 0), made when new. */
static struct afdo_cs_prof *prof_get(struct cs_build *b,
				     const struct afdo_cs_frame *fr, size_t n)
{
	struct prof_key k = { fr, n };
	struct afdo_cs_prof *p;
	bool added;
	size_t i;

	i = pc_index_get(&b->prof_ix, (void **)&b->prof, &b->nprof, &b->cprof,
			 sizeof(*b->prof), frames_hash(fr, n), prof_is, &k, &added);
	if (i == PC_INDEX_NONE)
		return NULL;
	p = &b->prof[i];
	if (!added)
		return p;
	p->fr = malloc((n + 1) * sizeof(*fr));
	p->str = afdo_cs_string(fr, n);
	if (!p->fr || !p->str)
		return NULL;
	memcpy(p->fr, fr, n * sizeof(*fr));
	p->nfr = n;
	p->in = afdo_tree_top(&b->t, p->str, 0);
	return p->in ? p : NULL;
}

/*
 * The profile of the N frames in FR (the last the leaf's, its site
 * dropped; the rest of a recursion once), of a function with CFG
 * checksum HASH, INLINED there or not.
 */
static struct afdo_cs_prof *prof_at(struct cs_build *b, size_t n,
				    uint64_t hash, bool inlined)
{
	struct afdo_cs_frame leaf = b->fr[n - 1];
	struct afdo_cs_prof *p;

	leaf.off = 0;
	n = afdo_ctx_compress(b->fr, n - 1, sizeof(*b->fr));
	b->fr[n++] = leaf;
	p = prof_get(b, b->fr, n);
	if (!p)
		return NULL;
	if (inlined)
		p->attr |= AFDO_CS_WAS_INLINED;
	p->in->hash = hash;
	return p;
}

/*
 * The profile of probe PR in the context at hand: its frames, then PR's
 * inline context.
 */
static struct afdo_cs_prof *leaf_prof(struct cs_build *b,
				      const struct pc_probe *pr)
{
	const struct pc_probe_node *nd = &b->pp->nodes[pr->node];
	size_t n;

	if (ctx_start(b, &n) || add_inline(b, &n, pr))
		return NULL;
	return prof_at(b, n, nd->desc->hash, nd->parent != PC_PROBE_TOP);
}

/* ---- counts ---- */

/* Each instruction from FIRST to LAST runs N times: so do its probes. */
static void count_range(struct cs_build *b, uint64_t first, uint64_t last,
			uint64_t n)
{
	struct pc_rv_insn in;
	uint64_t a = first;
	unsigned int len;

	/* a probe with a count is HIT once */
	if (!n)
		return;
	for (; a <= last; a += len) {
		const struct pc_probe *pr;
		size_t k, i;

		len = pc_dso_insn(b->bin, a, &in);
		if (!len)
			break;
		pr = pc_probes_at(b->pp, a, &k);
		for (i = 0; i < k; i++) {
			size_t at = pr - b->pp->probes + i;

			if (!b->kept[pr[i].node])
				continue;
			if (!b->cnt[at])
				b->hit[b->nhit++] = at;
			b->cnt[at] += n;
		}
	}
}

/*
 * An inlined function's entry count is a call of it at its site, in
 * the profile of the context around (llvm-profgen infers it so, having
 * no branch for it).
 */
static int add_inlined_call(struct cs_build *b,
			    const struct afdo_cs_prof *callee,
			    const struct pc_probe *pr, uint64_t n)
{
	const struct pc_probe_node *nd = &b->pp->nodes[pr->node];
	const struct pc_probe_node *up = &b->pp->nodes[nd->parent];
	struct afdo_body *bd;
	struct afdo_tgt *tg;
	const char *name = callee->fr[callee->nfr - 1].name;
	struct afdo_cs_prof *p;
	uint32_t site;
	size_t k = callee->nfr - 1;

	if (!k)
		return 0;
	/* CALLEE may move as the profiles grow: nothing of it is used after */
	memcpy(b->fr, callee->fr, k * sizeof(*b->fr));
	site = b->fr[k - 1].off;
	b->fr[k - 1].off = 0;
	p = prof_get(b, b->fr, k);
	if (!p)
		return -1;
	p->in->hash = up->desc->hash;
	bd = afdo_inst_body(p->in, site, 0);
	tg = bd ? afdo_body_tgt(&b->t, bd, name) : NULL;
	if (!tg)
		return -1;
	bd->n += n;
	bd->seen = true;
	p->in->insn_sum += n;
	tg->n += n;
	return 0;
}

/*
 * Probe PR's count C in the context at hand (the ID-th): every probe of
 * its instance is in the profile then, 0 when nothing ran it.
 */
static int add_block(struct cs_build *b, uint32_t id, const struct pc_probe *pr,
		     uint64_t c)
{
	struct afdo_cs_prof *p = leaf_prof(b, pr);
	struct afdo_inst *in = p ? p->in : NULL;
	struct afdo_body *bd = in ? afdo_inst_body(in, pr->index, pr->discr) : NULL;
	uint32_t i;

	if (!bd)
		return -1;
	bd->n += c;
	bd->seen = true;
	in->insn_sum += c;
	if (pr->index == 1) {
		in->head += c;
		if (b->pp->nodes[pr->node].parent != PC_PROBE_TOP &&
		    add_inlined_call(b, p, pr, c))
			return -1;
	}
	/* one profile a node in a context: its zeros once */
	if (b->zeroed[pr->node] == id + 1)
		return 0;
	b->zeroed[pr->node] = id + 1;
	for (i = b->node_first[pr->node]; i < b->node_first[pr->node + 1]; i++) {
		const struct pc_probe *q = &b->pp->probes[b->node_probes[i]];

		bd = afdo_inst_body(in, q->index, q->discr);
		if (!bd)
			return -1;
		bd->seen = true;
	}
	return 0;
}

static int cmp_u32(const void *x, const void *y)
{
	return pc_cmp_u64(*(const uint32_t *)x, *(const uint32_t *)y);
}

/* The ranges of context C (the ID-th), through the probes they ran over. */
static int count_ctx_ranges(struct cs_build *b, const struct afdo_ctx *c,
			    uint32_t id)
{
	size_t i;
	int rc = 0;

	b->nhit = 0;
	for (i = 0; i <= c->ranges.mask; i++)
		if (c->ranges.t[i].tag)
			count_range(b, c->ranges.t[i].a, c->ranges.t[i].b,
				    c->ranges.t[i].n);
	/* in address order: the same profile whatever order the table has */
	qsort(b->hit, b->nhit, sizeof(*b->hit), cmp_u32);
	for (i = 0; i < b->nhit; i++) {
		const struct pc_probe *pr = &b->pp->probes[b->hit[i]];
		uint64_t n = b->cnt[b->hit[i]];

		b->cnt[b->hit[i]] = 0;
		if (rc || pr->type != PC_PROBE_BLOCK || !n)
			continue;
		rc = add_block(b, id, pr, n);
	}
	return rc;
}

/*
 * The profile the call at ADDR counts in, in the context at hand, and
 * its call probe's INDEX and DISCR there (through its DWARF for native
 * calls); NULL when ADDR is no call site (*OOM: out of memory).
 */
static struct afdo_cs_prof *call_prof(struct cs_build *b, uint64_t addr,
				      uint32_t *index, uint32_t *discr,
				      bool *oom)
{
	const struct pc_probe *pr = call_probe(b, addr);
	const struct pc_probe_desc *d = NULL;
	struct afdo_cs_prof *p;
	size_t n, at;
	int rc;

	*oom = false;
	if (pr) {
		*index = pr->index;
		*discr = pr->discr;
		p = leaf_prof(b, pr);
		*oom = !p;
		return p;
	}
	if (ctx_start(b, &n)) {
		*oom = true;
		return NULL;
	}
	at = n;
	rc = dwarf_site(b, &n, addr, &d);
	if (rc) {
		*oom = rc < 0;
		return NULL;
	}
	*index = b->fr[n - 1].off;
	*discr = 0;
	p = prof_at(b, n, d->hash, n - at > 1);
	*oom = !p;
	return p;
}

/*
 * The branches of context C: one from a call site counts for its call
 * probe, and for its target when that is a function's start.
 */
static int count_ctx_calls(struct cs_build *b, const struct afdo_ctx *c)
{
	size_t i;

	for (i = 0; i <= c->branches.mask; i++) {
		const struct afdo_cnt *e = &c->branches.t[i];
		struct afdo_body *bd;
		struct afdo_tgt *tg;
		struct afdo_cs_prof *p;
		uint32_t index, discr;
		const char *name;
		bool oom;

		if (!e->tag)
			continue;
		p = call_prof(b, e->a, &index, &discr, &oom);
		if (!p && !oom)
			continue;
		bd = p ? afdo_inst_body(p->in, index, 0) : NULL;
		if (!bd)
			return -1;
		bd->n += e->n;
		bd->seen = true;
		p->in->insn_sum += e->n;
		name = e->b == AFDO_ELSEWHERE ? NULL :
		       afdo_callee_name(b->bin, b->dw, e->b, &b->names, &oom);
		if (!name) {
			if (e->b != AFDO_ELSEWHERE && oom)
				return -1;
			continue;
		}
		bd = afdo_inst_body(p->in, index, discr);
		tg = bd ? afdo_body_tgt(&b->t, bd, name) : NULL;
		if (!tg)
			return -1;
		tg->n += e->n;
	}
	return 0;
}

/* ---- the text ---- */

static int cmp_frames(const struct afdo_cs_prof *x,
		      const struct afdo_cs_prof *y)
{
	size_t i, n = x->nfr < y->nfr ? x->nfr : y->nfr;
	int v;

	for (i = 0; i < n; i++) {
		v = strcmp(x->fr[i].name, y->fr[i].name);
		if (v)
			return v < 0 ? -1 : 1;
		if (x->fr[i].off != y->fr[i].off)
			return x->fr[i].off < y->fr[i].off ? -1 : 1;
	}
	return pc_cmp_u64(x->nfr, y->nfr);
}

/* By total, the larger first, then by context, frame by frame. */
static int cmp_prof(const void *a, const void *b)
{
	const struct afdo_cs_prof *x = *(const struct afdo_cs_prof *const *)a;
	const struct afdo_cs_prof *y = *(const struct afdo_cs_prof *const *)b;

	if (x->in->insn_sum != y->in->insn_sum)
		return x->in->insn_sum > y->in->insn_sum ? -1 : 1;
	return cmp_frames(x, y);
}

static int cmp_body(const void *a, const void *b)
{
	const struct afdo_body *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return pc_cmp_u64(x->discr, y->discr);
}

/* By count, the larger first, then by name. */
static int cmp_tgt(const void *a, const void *b)
{
	const struct afdo_tgt *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void write_prof(FILE *f, const struct afdo_cs_prof *p)
{
	struct afdo_inst *in = p->in;
	size_t i, j;

	fprintf(f, "[%s]:%llu:%llu\n", p->str, (unsigned long long)in->insn_sum,
		(unsigned long long)in->head);
	/* the index of afdo_inst_body() is of no use past here */
	qsort(in->body, in->nbody, sizeof(*in->body), cmp_body);
	for (i = 0; i < in->nbody; i++) {
		struct afdo_body *bd = &in->body[i];

		fprintf(f, " %u", bd->off);
		if (bd->discr)
			fprintf(f, ".%u", bd->discr);
		fprintf(f, ": %llu", (unsigned long long)bd->n);
		qsort(bd->tgts, bd->ntgts, sizeof(*bd->tgts), cmp_tgt);
		for (j = 0; j < bd->ntgts; j++)
			fprintf(f, " %s:%llu", bd->tgts[j].name,
				(unsigned long long)bd->tgts[j].n);
		fputc('\n', f);
	}
	fprintf(f, " !CFGChecksum: %llu\n", (unsigned long long)in->hash);
	if (p->attr)
		fprintf(f, " !Attributes: %u\n", p->attr);
}

/* llvm-profgen leaves out C++ initializers: their names are ambiguous. */
static bool ambiguous(const struct afdo_cs_prof *p)
{
	const char *leaf = p->fr[p->nfr - 1].name;

	return !strncmp(leaf, "__cxx_global_var_init", 21) ||
	       !strncmp(leaf, "__tls_init", 10);
}

static int write_text(FILE *f, struct afdo_cs_prof *p, size_t np)
{
	struct afdo_cs_prof **v = malloc((np + 1) * sizeof(*v));
	size_t n = 0, i;

	if (!v)
		return -1;
	for (i = 0; i < np; i++)
		if (!ambiguous(&p[i]))
			v[n++] = &p[i];
	qsort(v, n, sizeof(*v), cmp_prof);
	for (i = 0; i < n; i++)
		write_prof(f, v[i]);
	free(v);
	return 0;
}

/* ---- the writer ---- */

static int build(struct cs_build *b, const struct afdo_ctxs *cs)
{
	size_t np = b->pp->nprobes, i;

	b->kept = calloc(b->pp->nnodes + 1, sizeof(*b->kept));
	b->zeroed = calloc(b->pp->nnodes + 1, sizeof(*b->zeroed));
	b->cnt = calloc(np + 1, sizeof(*b->cnt));
	b->hit = malloc((np + 1) * sizeof(*b->hit));
	if (!b->kept || !b->zeroed || !b->cnt || !b->hit ||
	    keep_profiled(b, cs) || index_nodes(b))
		return -1;
	for (i = 0; i < cs->n; i++)
		if (ctx_frames(b, &cs->v[i]) ||
		    count_ctx_ranges(b, &cs->v[i], i) ||
		    count_ctx_calls(b, &cs->v[i]))
			return -1;
	return 0;
}

/*
 * llvm-profgen's pre-inliner (preinline.c) over the profiles, then the
 * text of what remains.
 */
static int write_preinlined(FILE *f, struct cs_build *b)
{
	const struct afdo_cs_binary bin = {
		b->bin, b->dw, b->pp, b->kept, b->touched,
	};
	struct afdo_cs_prof *v;
	size_t n;
	int rc;

	if (afdo_cs_preinline(&b->t, b->prof, b->nprof, &bin, &v, &n))
		return -1;
	rc = write_text(f, v, n);
	afdo_cs_profs_free(v, n);
	return rc;
}

static void build_free(struct cs_build *b)
{
	afdo_cs_profs_free(b->prof, b->nprof);
	pc_index_free(&b->prof_ix);
	afdo_tree_free(&b->t);
	afdo_names_free(&b->names);
	free(b->touched);
	free(b->kept);
	free(b->zeroed);
	free(b->node_first);
	free(b->node_probes);
	free(b->cnt);
	free(b->hit);
	free(b->fr);
	free(b->ctx_fr);
}

int afdo_write_llvm_cs(FILE *f, const struct afdo_input *in,
		       struct afdo_notes *notes)
{
	struct cs_build b = { .bin = in->bin, .t = { .kind = AFDO_TREE_PROBE } };
	int rc;

	if (!in->ctxs || !in->ctxs->samples) {
		snprintf(notes->err, sizeof(notes->err),
			 "no sample has a call chain: a context-sensitive profile needs them (perf record -g)");
		return -1;
	}
	b.pp = pc_dso_probes(in->bin, notes->err, sizeof(notes->err));
	if (!b.pp)
		return -1;
	notes->probes = true;
	b.dw = pc_dso_dwarf(in->bin, NULL, 0);
	b.native = in->ctxs->native;
	rc = build(&b, in->ctxs);
	if (!rc && in->cs_no_preinline)
		rc = write_text(f, b.prof, b.nprof);
	else if (!rc)
		rc = write_preinlined(f, &b);
	if (rc)
		snprintf(notes->err, sizeof(notes->err), "out of memory");
	build_free(&b);
	return rc;
}

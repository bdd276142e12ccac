// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: llvm-profgen 19's pre-inliner over the profiles of
 * calling contexts (llvm-cs.c). It decides, as a top-down inliner with
 * the whole program's profile would, in which contexts the compiler
 * should inline a function, keeps those (!Attributes 2), and folds every
 * other context into the base profile of its function, so that the
 * compiler's sample loader does not have to guess. llvm-profgen's
 * CSSPGO profiles owe it their gain over the context-free ones.
 *
 *  - The contexts form a trie: [main:3 @ foo:2 @ bar] is bar under
 *    foo's site 2 under main's site 3. Siblings are in the order of
 *    LLVM's hash of (name, site), which decides which context a merged
 *    base profile takes its attributes from.
 *  - Functions are taken callers first (callgraph.c): the strongly
 *    connected components of the call graph the trie's edges make
 *    (cold ones dropped), in reverse; the members of a recursion by its
 *    hottest calls.
 *  - A function's base profile is the merge of its contexts no caller
 *    inlined, each moved under the root together with what it calls.
 *    Its callees' contexts are candidates, the most frequent first; one
 *    is inlined when its size is below a threshold that grows with the
 *    call's count, as long as the function's size so far stays below 12
 *    times its own (100 bytes at least, 50,000 at most); then its own
 *    callees are candidates. Nothing inlines a cold call.
 *  - Hot and cold come from the profile summary of the profile with the
 *    contexts of each function merged: a count is cold at or below the
 *    least count needed for 99.9999% of all counts, and a call's hotness
 *    is where its count lies between that and the least count for 10%.
 *  - A size is the bytes of machine code of a function in an inline
 *    context of the binary: each instruction of a profiled function
 *    counts for its DWARF inline stack (call sites by the probe index in
 *    their discriminators), an inlinee whose code is all gone for 0. A
 *    context takes the size of the longest part of it the binary has,
 *    else the function's size inlined somewhere else.
 */
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "dwarf-info.h"
#include "md5.h"
#include "preinline.h"
#include "probe.h"
#include "riscv-insn.h"
#include "summary.h"
#include "tree.h"

#define NONE		UINT32_MAX

/* LLVM's state of a profile in the pre-inliner */
#define ST_INLINED	1		/* inlined into its caller's context */
#define ST_MERGED	2		/* merged into another: gone */

#define GROWTH_LIMIT	12		/* sample-profile-inline-growth-limit */
#define LIMIT_MIN	100		/* sample-profile-inline-limit-min */
#define LIMIT_MAX	50000		/* the pre-inliner's inline-limit-max */
#define HOT_THRESHOLD	1500		/* its hot-callsite-threshold */
#define PREV_INL_MULT	100		/* ...times, inlined in the binary */
#define CUTOFF_COLD	999999		/* profile-summary-cutoff-cold */
#define CUTOFF_HOT10	100000		/* the 10% the hotness is scaled to */

/* A function, by name. */
struct fn {
	const char *name;
	uint64_t guid;
	uint32_t *ctx;			/* its profiles, as the trie had them */
	size_t nctx, cctx;
};

struct node {
	uint64_t key;			/* LLVM's hash of (name, site) */
	uint32_t fn, site, parent;
	uint32_t *kids;			/* by key */
	size_t nkids, ckids;
	uint32_t prof;			/* context trie: its profile, or NONE */
	uint32_t size;			/* size trie: bytes */
	bool sized;
};

struct trie {
	struct node *v;
	size_t n, cap;
};

struct prof {
	struct afdo_inst *in;
	uint32_t fn, node, attr, state;
};

struct cand {
	uint32_t prof, size;
	uint64_t count;
};

struct pi {
	struct afdo_tree *t;
	const struct afdo_cs_binary *b;
	struct fn *f;
	size_t nf, cf;
	struct pc_index fix;
	struct trie ct, st;		/* contexts; sizes */
	struct prof *p;
	size_t np;
	uint64_t cold, hot10;
	struct cand *q;			/* the candidates: a heap */
	size_t nq, cq;
	uint32_t *order;		/* functions, callers first */
	size_t norder;
};

static int push_u32(uint32_t **v, size_t *n, size_t *cap, uint32_t x)
{
	uint32_t *a = pc_grow(*v, cap, *n, sizeof(*a), 4);

	if (!a)
		return -1;
	*v = a;
	a[(*n)++] = x;
	return 0;
}

/* ---- functions ---- */

static bool fn_is(const void *arr, size_t pos, const void *key)
{
	return !strcmp(((const struct fn *)arr)[pos].name, key);
}

/* The function called NAME, or NONE when out of memory. */
static uint32_t fn_of(struct pi *pi, const char *name)
{
	bool added;
	size_t i = pc_index_get(&pi->fix, (void **)&pi->f, &pi->nf, &pi->cf,
				sizeof(*pi->f), pc_hash_str(name), fn_is, name,
				&added);

	if (i == PC_INDEX_NONE)
		return NONE;
	if (added) {
		pi->f[i].name = name;
		pi->f[i].guid = pc_md5_guid(name, strlen(name));
	}
	return i;
}

/* ---- tries ---- */

static uint64_t node_key(const struct pi *pi, uint32_t fn, uint32_t site)
{
	return pi->f[fn].guid + ((uint64_t)site << 5) + site;
}

static uint32_t node_new(struct trie *t, uint64_t key, uint32_t fn,
			 uint32_t site, uint32_t parent)
{
	struct node *v = pc_grow(t->v, &t->cap, t->n, sizeof(*v), 256);

	if (!v)
		return NONE;
	t->v = v;
	memset(&v[t->n], 0, sizeof(v[t->n]));
	v[t->n].key = key;
	v[t->n].fn = fn;
	v[t->n].site = site;
	v[t->n].parent = parent;
	v[t->n].prof = NONE;
	return t->n++;
}

/* Where a kid of key KEY is or goes among ND's. */
static size_t kid_pos(const struct trie *t, uint32_t nd, uint64_t key)
{
	const struct node *x = &t->v[nd];
	size_t lo = 0, hi = x->nkids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->v[x->kids[mid]].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ND's kid for function FN at SITE, or NONE. */
static uint32_t kid_find(const struct pi *pi, const struct trie *t,
			 uint32_t nd, uint32_t site, uint32_t fn)
{
	uint64_t key = node_key(pi, fn, site);
	size_t at = kid_pos(t, nd, key);
	const struct node *x = &t->v[nd];

	if (at < x->nkids && t->v[x->kids[at]].key == key)
		return x->kids[at];
	return NONE;
}

static int kid_add(struct trie *t, uint32_t nd, uint32_t kid)
{
	size_t at = kid_pos(t, nd, t->v[kid].key);
	struct node *x = &t->v[nd];

	if (push_u32(&x->kids, &x->nkids, &x->ckids, kid))
		return -1;
	memmove(&x->kids[at + 1], &x->kids[at],
		(x->nkids - 1 - at) * sizeof(*x->kids));
	x->kids[at] = kid;
	t->v[kid].parent = nd;
	return 0;
}

static void kid_drop(struct trie *t, uint32_t nd, uint32_t kid)
{
	struct node *x = &t->v[nd];
	size_t i;

	for (i = 0; i < x->nkids; i++)
		if (x->kids[i] == kid) {
			memmove(&x->kids[i], &x->kids[i + 1],
				(x->nkids - i - 1) * sizeof(*x->kids));
			x->nkids--;
			return;
		}
}

/* ND's kid for FN at SITE, made when new; NONE when out of memory. */
static uint32_t kid_get(struct pi *pi, struct trie *t, uint32_t nd,
			uint32_t site, uint32_t fn)
{
	uint32_t k = kid_find(pi, t, nd, site, fn);

	if (k != NONE)
		return k;
	k = node_new(t, node_key(pi, fn, site), fn, site, nd);
	if (k == NONE || kid_add(t, nd, k))
		return NONE;
	return k;
}

static void trie_free(struct trie *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].kids);
	free(t->v);
}

/* ---- the profiles in their trie ---- */

static int add_prof(struct pi *pi, const struct afdo_cs_prof *c)
{
	uint32_t nd = 0, fn = NONE;
	size_t i;

	for (i = 0; i < c->nfr; i++) {
		fn = fn_of(pi, c->fr[i].name);
		if (fn == NONE)
			return -1;
		nd = kid_get(pi, &pi->ct, nd, i ? c->fr[i - 1].off : 0, fn);
		if (nd == NONE)
			return -1;
	}
	pi->ct.v[nd].prof = pi->np;
	pi->p[pi->np++] = (struct prof){ c->in, fn, nd, c->attr, 0 };
	return 0;
}

/* Each function's profiles, in the order LLVM walks its trie: by level. */
static int list_contexts(struct pi *pi)
{
	uint32_t *q = malloc((pi->ct.n + 1) * sizeof(*q));
	size_t head = 0, tail = 0, i;
	int rc = 0;

	if (!q)
		return -1;
	q[tail++] = 0;
	while (head < tail && !rc) {
		const struct node *x = &pi->ct.v[q[head++]];

		if (x->prof != NONE)
			rc = push_u32(&pi->f[x->fn].ctx, &pi->f[x->fn].nctx,
				      &pi->f[x->fn].cctx, x->prof);
		for (i = 0; i < x->nkids; i++)
			q[tail++] = x->kids[i];
	}
	free(q);
	return rc;
}

/* ---- counts ---- */

static const struct afdo_body *body_at(const struct afdo_inst *in,
				       uint32_t off)
{
	return afdo_inst_body_find(in, off, 0);
}

/* LLVM's getHeadSamplesEstimate() of a flat context profile. */
static uint64_t head_estimate(const struct afdo_inst *in)
{
	const struct afdo_body *first = NULL;
	size_t i;

	if (in->head)
		return in->head;
	for (i = 0; i < in->nbody; i++) {
		const struct afdo_body *bd = &in->body[i];

		if (!first || bd->off < first->off ||
		    (bd->off == first->off && bd->discr < first->discr))
			first = bd;
	}
	if (first && first->n)
		return first->n;
	return in->insn_sum > 0;
}

/*
 * How often profile CALLEE is entered from profile CALLER, whose call
 * at SITE it is: the larger of its head count and the call's count of
 * it there.
 */
static uint64_t call_count(const struct pi *pi, const struct prof *caller,
			   const struct prof *callee, uint32_t site)
{
	const struct afdo_body *bd = body_at(caller->in, site);
	uint64_t head = head_estimate(callee->in), calls = 0;
	size_t i;

	for (i = 0; bd && i < bd->ntgts; i++)
		if (!strcmp(bd->tgts[i].name, pi->f[callee->fn].name))
			calls = bd->tgts[i].n;
	return calls > head ? calls : head;
}

/* Merge profile FROM into TO, as LLVM's FunctionSamples::merge(). */
static int merge_counts(struct pi *pi, struct afdo_inst *to,
			const struct afdo_inst *from)
{
	size_t i, j;

	if (!to->hash)
		to->hash = from->hash;
	else if (to->hash != from->hash)
		return 0;		/* LLVM keeps TO as it is */
	to->insn_sum += from->insn_sum;
	to->head += from->head;
	for (i = 0; i < from->nbody; i++) {
		const struct afdo_body *s = &from->body[i];
		struct afdo_body *d = afdo_inst_body(to, s->off, s->discr);

		if (!d)
			return -1;
		d->n += s->n;
		d->seen |= s->seen;
		for (j = 0; j < s->ntgts; j++) {
			struct afdo_tgt *tg = afdo_body_tgt(pi->t, d, s->tgts[j].name);

			if (!tg)
				return -1;
			tg->n += s->tgts[j].n;
		}
	}
	return 0;
}

/* ---- the summary ---- */

struct fn_count {
	uint32_t fn, off, discr;
	uint64_t n;
};

static bool fc_is(const void *arr, size_t pos, const void *key)
{
	const struct fn_count *x = &((const struct fn_count *)arr)[pos];
	const struct fn_count *k = key;

	return x->fn == k->fn && x->off == k->off && x->discr == k->discr;
}

/*
 * The cold and 10% counts of the body counts of every function, its
 * contexts merged (what LLVM's summary takes for CS profiles).
 */
static int summarize(struct pi *pi)
{
	struct fn_count *fc = NULL;
	struct pc_index ix = { 0 };
	size_t nfc = 0, cfc = 0, i, j;
	uint64_t *v, total = 0;
	int rc = -1;

	for (i = 0; i < pi->np; i++) {
		const struct afdo_inst *in = pi->p[i].in;

		for (j = 0; j < in->nbody; j++) {
			struct fn_count k = { pi->p[i].fn, in->body[j].off,
					      in->body[j].discr, 0 };
			bool added;
			size_t at = pc_index_get(&ix, (void **)&fc, &nfc, &cfc,
						 sizeof(*fc),
						 pc_hash(k.fn, k.off, k.discr),
						 fc_is, &k, &added);

			if (at == PC_INDEX_NONE)
				goto out;
			if (added)
				fc[at] = k;
			fc[at].n += in->body[j].n;
		}
	}
	v = malloc((nfc + 1) * sizeof(*v));
	if (!v)
		goto out;
	for (i = 0; i < nfc; i++) {
		v[i] = fc[i].n;
		total += v[i];
	}
	afdo_summary_sort(v, nfc);
	pi->cold = afdo_summary_at(v, nfc, total, CUTOFF_COLD).min_count;
	pi->hot10 = afdo_summary_at(v, nfc, total, CUTOFF_HOT10).min_count;
	free(v);
	rc = 0;
out:
	free(fc);
	pc_index_free(&ix);
	return rc;
}

/* ---- sizes ---- */

/* The instructions of [LO, HI): each adds its bytes to its inline context. */
static int size_range(struct pi *pi, uint64_t lo, uint64_t hi)
{
	struct pc_frame f[PC_MAX_FRAMES];
	struct pc_rv_insn in;
	unsigned int len;
	uint64_t a;

	for (a = lo; a < hi; a += len) {
		uint32_t nd = 0;
		int nf, i;

		len = pc_dso_insn(pi->b->bin, a, &in);
		if (!len)
			break;
		nf = pc_dwarf_frames(pi->b->dw, a, f, PC_MAX_FRAMES);
		for (i = nf - 1; i >= 0; i--) {
			uint32_t fn = fn_of(pi, f[i].name), site = 0;

			if (fn == NONE)
				return -1;
			if (i < nf - 1)
				site = pc_probe_discr_index(f[i].discr);
			nd = kid_get(pi, &pi->st, nd, site, fn);
			if (nd == NONE)
				return -1;
		}
		pi->st.v[nd].size += len;
		pi->st.v[nd].sized = true;
	}
	return 0;
}

/*
 * An inlinee whose code the compiler removed leaves its probes: its
 * size in that context is known, 0.
 */
static int size_probe_nodes(struct pi *pi)
{
	const struct pc_probes *pp = pi->b->pp;
	bool *has = calloc(pp->nnodes + 1, sizeof(*has));
	size_t i;

	if (!has)
		return -1;
	for (i = 0; i < pp->nprobes; i++)
		has[pp->probes[i].node] = true;
	for (i = 0; i < pp->nnodes; i++) {
		uint32_t x = i, nd = 0, site = 0;

		if (!has[i] || !pi->b->kept[i])
			continue;
		for (;;) {
			uint32_t fn = fn_of(pi, pp->nodes[x].desc->name);

			nd = fn == NONE ? NONE : kid_get(pi, &pi->st, nd, site, fn);
			if (nd == NONE) {
				free(has);
				return -1;
			}
			if (pp->nodes[x].parent == PC_PROBE_TOP)
				break;
			site = pp->nodes[x].site;
			x = pp->nodes[x].parent;
		}
		pi->st.v[nd].sized = true;
	}
	free(has);
	return 0;
}

static int build_sizes(struct pi *pi)
{
	const struct pc_dso *bin = pi->b->bin;
	size_t i;

	if (node_new(&pi->st, 0, NONE, 0, NONE) == NONE)
		return -1;
	for (i = 0; pi->b->dw && i < bin->nr_syms; i++)
		if (pi->b->touched[i] &&
		    size_range(pi, bin->syms[i].start, bin->syms[i].end))
			return -1;
	return size_probe_nodes(pi);
}

/*
 * The size of the function of context node ND there: of the longest
 * part of its context the binary has (leaf first), else of the function
 * inlined into its first caller there is.
 */
static uint32_t size_of(const struct pi *pi, uint32_t nd)
{
	const struct trie *st = &pi->st;
	uint32_t cur = 0, prev = NONE, site = 0, size = 0;
	bool have = false;

	while (cur != NONE && pi->ct.v[nd].parent != NONE) {
		prev = cur;
		cur = kid_find(pi, st, cur, site, pi->ct.v[nd].fn);
		if (cur != NONE && st->v[cur].sized) {
			size = st->v[cur].size;
			have = true;
		}
		site = pi->ct.v[nd].site;
		nd = pi->ct.v[nd].parent;
	}
	if (cur == NONE)
		cur = prev;
	while (!have && cur != NONE && st->v[cur].nkids) {
		cur = st->v[cur].kids[0];
		if (st->v[cur].sized) {
			size = st->v[cur].size;
			have = true;
		}
	}
	return size;
}

/* ---- the order: callers first (callgraph.c) ---- */

/*
 * The call graph of the trie's edges, each weighed by how often its
 * callee's context is entered from its caller's; the functions in it,
 * callers first, into PI->order.
 */
static int top_down(struct pi *pi)
{
	const char **names = malloc((pi->nf + 1) * sizeof(*names));
	struct afdo_cg *g = names ? afdo_cg_new(names, pi->nf) : NULL;
	size_t i, j;
	int rc = -1;

	pi->order = malloc((pi->nf + 1) * sizeof(*pi->order));
	if (!g || !pi->order)
		goto out;
	for (i = 0; i < pi->nf; i++)
		names[i] = pi->f[i].name;
	for (i = 1; i < pi->ct.n; i++) {
		const struct node *x = &pi->ct.v[i];

		afdo_cg_add_node(g, x->fn);
		for (j = 0; j < x->nkids; j++) {
			const struct node *y = &pi->ct.v[x->kids[j]];
			uint64_t w = 0;

			if (x->prof != NONE && y->prof != NONE)
				w = call_count(pi, &pi->p[x->prof],
					       &pi->p[y->prof], y->site);
			if (afdo_cg_add_call(g, x->fn, y->fn, w))
				goto out;
		}
	}
	rc = afdo_cg_top_down(g, pi->cold, pi->order, &pi->norder);
out:
	afdo_cg_free(g);
	free(names);
	return rc;
}

/* ---- promoting and merging contexts ---- */

/* Node FROM's profile goes into node TO's (both the same function). */
static int merge_nodes(struct pi *pi, uint32_t from, uint32_t to)
{
	struct node *f = &pi->ct.v[from], *t = &pi->ct.v[to];

	if (f->prof == NONE)
		return 0;
	if (t->prof == NONE) {
		t->prof = f->prof;
		pi->p[t->prof].node = to;
		f->prof = NONE;
		return 0;
	}
	pi->p[t->prof].attr |= pi->p[f->prof].attr & AFDO_CS_INLINE;
	pi->p[f->prof].state |= ST_MERGED;
	return merge_counts(pi, pi->p[t->prof].in, pi->p[f->prof].in);
}

/*
 * Move node FROM, with what it calls, under TO_PARENT (the root: as a
 * base profile, at no site), merged into what is there already. *TO
 * gets where it went.
 */
static int promote(struct pi *pi, uint32_t from, uint32_t to_parent,
		   uint32_t *to)
{
	struct trie *t = &pi->ct;
	uint32_t old_parent = t->v[from].parent, fn = t->v[from].fn;
	uint32_t site = to_parent ? t->v[from].site : 0, dummy;
	size_t i;

	*to = kid_find(pi, t, to_parent, site, fn);
	if (*to == NONE) {
		if (!to_parent)
			kid_drop(t, old_parent, from);
		t->v[from].site = site;
		t->v[from].key = node_key(pi, fn, site);
		*to = from;
		return kid_add(t, to_parent, from);
	}
	if (merge_nodes(pi, from, *to))
		return -1;
	for (i = 0; i < t->v[from].nkids; i++)
		if (promote(pi, t->v[from].kids[i], *to, &dummy))
			return -1;
	t->v[from].nkids = 0;
	if (!to_parent)
		kid_drop(t, old_parent, from);
	return 0;
}

/*
 * The node of FN's base profile: its contexts that no caller inlined,
 * merged under the root. NONE when it has none; -1 out of memory.
 */
static int base_of(struct pi *pi, uint32_t fn, uint32_t *nd)
{
	const struct fn *f = &pi->f[fn];
	size_t i;

	*nd = kid_find(pi, &pi->ct, 0, 0, fn);
	for (i = 0; i < f->nctx; i++) {
		const struct prof *p = &pi->p[f->ctx[i]];

		if (p->state & (ST_INLINED | ST_MERGED) || p->node == *nd)
			continue;
		if (promote(pi, p->node, 0, nd))
			return -1;
	}
	return 0;
}

/* ---- inlining ---- */

/* Is candidate L to be taken after R? */
static bool cand_less(const struct pi *pi, const struct cand *l,
		      const struct cand *r)
{
	/* a callee whose code is gone costs nothing: first */
	if ((!l->size || !r->size) && l->size != r->size)
		return !r->size;
	if (l->count != r->count)
		return l->count < r->count;
	if (l->size != r->size)
		return l->size > r->size;
	return pi->f[pi->p[l->prof].fn].guid < pi->f[pi->p[r->prof].fn].guid;
}

/* Sift V up from HOLE (as std::push_heap: the same order for ties). */
static void heap_up(struct pi *pi, size_t hole, size_t top, struct cand v)
{
	size_t parent = hole ? (hole - 1) / 2 : 0;

	while (hole > top && cand_less(pi, &pi->q[parent], &v)) {
		pi->q[hole] = pi->q[parent];
		hole = parent;
		parent = hole ? (hole - 1) / 2 : 0;
	}
	pi->q[hole] = v;
}

static int heap_push(struct pi *pi, struct cand c)
{
	struct cand *q = pc_grow(pi->q, &pi->cq, pi->nq, sizeof(*q), 16);

	if (!q)
		return -1;
	pi->q = q;
	pi->nq++;
	heap_up(pi, pi->nq - 1, 0, c);
	return 0;
}

/* The top candidate, taken off (as std::pop_heap). */
static struct cand heap_pop(struct pi *pi)
{
	struct cand top = pi->q[0], v;
	size_t len = --pi->nq, hole = 0, second = 0;

	if (!len)
		return top;
	v = pi->q[len];
	while (second < (len - 1) / 2) {
		second = 2 * (second + 1);
		if (cand_less(pi, &pi->q[second], &pi->q[second - 1]))
			second--;
		pi->q[hole] = pi->q[second];
		hole = second;
	}
	if (!(len & 1) && second == (len - 2) / 2) {
		second = 2 * (second + 1);
		pi->q[hole] = pi->q[second - 1];
		hole = second - 1;
	}
	heap_up(pi, hole, 0, v);
	return top;
}

/* The contexts profile P calls, as candidates. */
static int candidates(struct pi *pi, uint32_t p)
{
	const struct node *x = &pi->ct.v[pi->p[p].node];
	size_t i;

	for (i = 0; i < x->nkids; i++) {
		const struct node *k = &pi->ct.v[x->kids[i]];
		struct cand c;

		if (k->prof == NONE)
			continue;
		c.prof = k->prof;
		c.count = call_count(pi, &pi->p[p], &pi->p[k->prof], k->site);
		c.size = size_of(pi, x->kids[i]);
		if (heap_push(pi, c))
			return -1;
	}
	return 0;
}

static bool should_inline(const struct pi *pi, const struct cand *c)
{
	double lo = (double)pi->cold, hi = (double)pi->hot10, hot;
	unsigned int limit;

	if (c->count <= pi->cold)
		return false;	/* the cold threshold is 0: nothing is below */
	hot = ((double)c->count - lo) / (hi - lo);
	if (hot > 1.0)
		hot = 1.0;
	/* the cold threshold (0) and 1, for a hot call to get one */
	limit = HOT_THRESHOLD * hot * 100 + 1;
	if (pi->p[c->prof].attr & AFDO_CS_WAS_INLINED)
		limit *= PREV_INL_MULT;
	return c->size < limit;
}

static int process(struct pi *pi, uint32_t fn)
{
	uint32_t nd, size, final, limit;

	if (base_of(pi, fn, &nd))
		return -1;
	if (nd == NONE || pi->ct.v[nd].prof == NONE)
		return 0;
	size = size_of(pi, nd);
	final = size;
	limit = size * GROWTH_LIMIT;
	limit = limit < LIMIT_MAX ? limit : LIMIT_MAX;
	limit = limit > LIMIT_MIN ? limit : LIMIT_MIN;
	pi->nq = 0;
	if (candidates(pi, pi->ct.v[nd].prof))
		return -1;
	while (pi->nq && final < limit) {
		struct cand c = heap_pop(pi);

		if (!should_inline(pi, &c))
			continue;
		pi->p[c.prof].state |= ST_INLINED;
		pi->p[c.prof].attr |= AFDO_CS_INLINE;
		final += c.size;
		if (candidates(pi, c.prof))
			return -1;
	}
	return 0;
}

/* ---- what is left ---- */

struct out {
	struct afdo_cs_prof *v;
	size_t n, cap;
	struct afdo_cs_frame *fr;	/* the path to the node at hand */
};

static int emit(struct pi *pi, struct out *o, uint32_t nd, size_t depth)
{
	const struct node *x = &pi->ct.v[nd];
	size_t i;

	if (nd) {
		o->fr[depth - 1] = (struct afdo_cs_frame){ pi->f[x->fn].name, 0 };
		if (depth > 1)
			o->fr[depth - 2].off = x->site;
	}
	if (nd && x->prof != NONE) {
		const struct prof *p = &pi->p[x->prof];
		struct afdo_cs_prof *c = pc_grow(o->v, &o->cap, o->n, sizeof(*c), 64);

		if (!c)
			return -1;
		o->v = c;
		c = &c[o->n++];
		memset(c, 0, sizeof(*c));
		c->fr = malloc(depth * sizeof(*c->fr));
		if (!c->fr)
			return -1;
		memcpy(c->fr, o->fr, depth * sizeof(*c->fr));
		c->fr[depth - 1].off = 0;
		c->nfr = depth;
		c->str = afdo_cs_string(c->fr, depth);
		c->in = p->in;
		c->attr = p->attr;
		if (!c->str)
			return -1;
	}
	for (i = 0; i < pi->ct.v[nd].nkids; i++)
		if (emit(pi, o, pi->ct.v[nd].kids[i], depth + 1))
			return -1;
	return 0;
}

static size_t trie_depth(const struct trie *t)
{
	size_t max = 0, i;

	for (i = 1; i < t->n; i++) {
		size_t d = 0;
		uint32_t x = i;

		while (x != NONE && x) {
			x = t->v[x].parent;
			d++;
		}
		max = d > max ? d : max;
	}
	return max;
}

static void pi_free(struct pi *pi)
{
	size_t i;

	for (i = 0; i < pi->nf; i++)
		free(pi->f[i].ctx);
	free(pi->f);
	pc_index_free(&pi->fix);
	trie_free(&pi->ct);
	trie_free(&pi->st);
	free(pi->p);
	free(pi->q);
	free(pi->order);
}

static int run(struct pi *pi, const struct afdo_cs_prof *v, size_t n,
	       struct out *o)
{
	size_t i;

	pi->p = malloc((n + 1) * sizeof(*pi->p));
	if (!pi->p || node_new(&pi->ct, 0, NONE, 0, NONE) == NONE)
		return -1;
	for (i = 0; i < n; i++)
		if (add_prof(pi, &v[i]))
			return -1;
	if (list_contexts(pi) || summarize(pi) || build_sizes(pi) ||
	    top_down(pi))
		return -1;
	for (i = 0; i < pi->norder; i++)
		if (process(pi, pi->order[i]))
			return -1;
	/* what no caller inlined is in its base profile now */
	for (i = 1; i < pi->ct.n; i++) {
		struct node *x = &pi->ct.v[i];

		if (x->prof != NONE && x->parent &&
		    !(pi->p[x->prof].state & ST_INLINED))
			x->prof = NONE;
	}
	o->fr = malloc((trie_depth(&pi->ct) + 1) * sizeof(*o->fr));
	return o->fr ? emit(pi, o, 0, 0) : -1;
}

void afdo_cs_profs_free(struct afdo_cs_prof *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].fr);
		free(v[i].str);
	}
	free(v);
}

int afdo_cs_preinline(struct afdo_tree *t, const struct afdo_cs_prof *v,
		      size_t n, const struct afdo_cs_binary *b,
		      struct afdo_cs_prof **out, size_t *nout)
{
	struct pi pi = { .t = t, .b = b };
	struct out o = { 0 };
	int rc = run(&pi, v, n, &o);

	free(o.fr);
	pi_free(&pi);
	if (rc) {
		afdo_cs_profs_free(o.v, o.n);
		return -1;
	}
	*out = o.v;
	*nout = o.n;
	return 0;
}

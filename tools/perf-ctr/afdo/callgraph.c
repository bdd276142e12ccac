// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: functions callers first, as llvm-profgen 19's
 * pre-inliner orders them (preinline.c), so that a function's contexts
 * are decided by its callers before its own base profile is made.
 *
 *  - The graph's calls are the profile's, those of weight at or below
 *    the cold count dropped (they would make the order unstable).
 *  - A root calls every function; a function's calls are taken in the
 *    order of their callees' names. Tarjan's algorithm from the root, as
 *    LLVM's scc_iterator runs it, gives the strongly connected
 *    components callees first; reversed, callers first.
 *  - The members of a recursion are ordered as LLVM's
 *    scc_member_iterator orders them: a maximum spanning tree of their
 *    calls (the heaviest first, equal ones in the order met), walked
 *    from its roots breadth first, reversed.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "perf-ctr.h"

struct call {
	uint32_t from, to;
	uint64_t w;
};

struct cg_fn {
	uint32_t *out;			/* its calls, by callee name once sorted */
	size_t nout, cout;
	bool in;			/* in the graph */
};

struct afdo_cg {
	const char *const *names;
	struct cg_fn *f;
	size_t n;
	struct call *c;
	size_t nc, cc;
};

struct afdo_cg *afdo_cg_new(const char *const *names, size_t n)
{
	struct afdo_cg *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->names = names;
	g->n = n;
	g->f = calloc(n + 1, sizeof(*g->f));
	if (!g->f) {
		free(g);
		return NULL;
	}
	return g;
}

void afdo_cg_free(struct afdo_cg *g)
{
	size_t i;

	if (!g)
		return;
	for (i = 0; i < g->n; i++)
		free(g->f[i].out);
	free(g->f);
	free(g->c);
	free(g);
}

void afdo_cg_add_node(struct afdo_cg *g, uint32_t f)
{
	g->f[f].in = true;
}

int afdo_cg_add_call(struct afdo_cg *g, uint32_t from, uint32_t to, uint64_t w)
{
	struct cg_fn *f = &g->f[from];
	struct call *c;
	uint32_t *o;
	size_t i;

	f->in = g->f[to].in = true;
	for (i = 0; i < f->nout; i++)
		if (g->c[f->out[i]].to == to) {
			g->c[f->out[i]].w += w;
			return 0;
		}
	c = pc_grow(g->c, &g->cc, g->nc, sizeof(*c), 64);
	if (!c)
		return -1;
	g->c = c;
	o = pc_grow(f->out, &f->cout, f->nout, sizeof(*o), 4);
	if (!o)
		return -1;
	f->out = o;
	c[g->nc] = (struct call){ from, to, w };
	o[f->nout++] = g->nc++;
	return 0;
}

static int cmp_callee(const void *a, const void *b, void *arg)
{
	const struct afdo_cg *g = arg;

	return strcmp(g->names[g->c[*(const uint32_t *)a].to],
		      g->names[g->c[*(const uint32_t *)b].to]);
}

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct afdo_cg *g = arg;

	return strcmp(g->names[*(const uint32_t *)a],
		      g->names[*(const uint32_t *)b]);
}

/* ---- the members of a recursion ---- */

/* Union-find with ranks. */
static uint32_t uf_find(uint32_t *up, uint32_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

static bool uf_union(uint32_t *up, uint32_t *rank, uint32_t a, uint32_t b)
{
	a = uf_find(up, a);
	b = uf_find(up, b);
	if (a == b)
		return false;
	if (rank[a] < rank[b]) {
		up[a] = b;
	} else {
		up[b] = a;
		if (rank[a] == rank[b])
			rank[a]++;
	}
	return true;
}

struct scc_sort {
	uint32_t *up, *rank, *in_mst;	/* by function */
	bool *member;			/* by function */
	bool *mst;			/* by call */
	uint32_t *calls, *q;
};

/*
 * Order the N members V of a recursion: a maximum spanning tree of their
 * calls, walked breadth first from its roots, reversed.
 */
static void sort_scc(const struct afdo_cg *g, struct scc_sort *s, uint32_t *v,
		     size_t n)
{
	size_t nc = 0, nq = 0, head = 0, i, j;

	for (i = 0; i < n; i++) {
		s->member[v[i]] = true;
		s->up[v[i]] = v[i];
		s->rank[v[i]] = 0;
		s->in_mst[v[i]] = 0;
	}
	for (i = 0; i < n; i++) {
		const struct cg_fn *f = &g->f[v[i]];

		for (j = 0; j < f->nout; j++)
			if (s->member[g->c[f->out[j]].to])
				s->calls[nc++] = f->out[j];
	}
	/* heaviest first, equal ones in the order met (LLVM's multiset) */
	for (i = 1; i < nc; i++) {
		uint32_t id = s->calls[i];

		for (j = i; j > 0 && g->c[s->calls[j - 1]].w < g->c[id].w; j--)
			s->calls[j] = s->calls[j - 1];
		s->calls[j] = id;
	}
	for (i = 0; i < nc; i++) {
		const struct call *c = &g->c[s->calls[i]];

		s->mst[s->calls[i]] = uf_union(s->up, s->rank, c->from, c->to);
		if (s->mst[s->calls[i]])
			s->in_mst[c->to]++;
	}
	/* the roots: callers no tree call reaches, in the order of the calls */
	for (i = 0; i < nc; i++) {
		uint32_t from = g->c[s->calls[i]].from;

		for (j = 0; j < nq && s->q[j] != from; j++)
			;
		if (j == nq && !s->in_mst[from])
			s->q[nq++] = from;
	}
	while (head < nq) {
		const struct cg_fn *f = &g->f[s->q[head++]];

		for (j = 0; j < f->nout; j++) {
			uint32_t id = f->out[j], to = g->c[id].to;

			if (s->member[to] && s->mst[id] && !--s->in_mst[to])
				s->q[nq++] = to;
		}
	}
	for (i = 0; i < n; i++)
		s->member[v[i]] = false;
	/* every member is reached from a root of the tree: never otherwise */
	for (i = 0; nq == n && i < n; i++)
		v[i] = s->q[nq - 1 - i];
}

/* ---- components ---- */

struct visit {
	uint32_t n, min;
	size_t next;
};

struct tarjan {
	const struct afdo_cg *g;
	uint32_t *root;			/* the root's callees: every function */
	size_t nroot;
	uint32_t *num;			/* by function: visit number, 0 none */
	struct visit *vs;		/* the walk */
	uint32_t *st;			/* the stack of the components */
};

static size_t ncallees(const struct tarjan *t, uint32_t n)
{
	return n == t->g->n ? t->nroot : t->g->f[n].nout;
}

static uint32_t callee(const struct tarjan *t, uint32_t n, size_t k)
{
	return n == t->g->n ? t->root[k] : t->g->c[t->g->f[n].out[k]].to;
}

/* Components, callees first, each as scc_iterator gives it, into ORDER. */
static void components(struct tarjan *t, struct scc_sort *s, uint32_t *order,
		       size_t *norder)
{
	size_t nvs = 0, nst = 0, i;
	uint32_t counter = 0, r = t->g->n;

	t->num[r] = ++counter;
	t->st[nst++] = r;
	t->vs[nvs++] = (struct visit){ r, counter, 0 };
	while (nvs) {
		struct visit *top = &t->vs[nvs - 1];
		uint32_t n, min;
		size_t first;

		while (top->next < ncallees(t, top->n)) {
			uint32_t c = callee(t, top->n, top->next++);

			if (!t->num[c]) {
				t->num[c] = ++counter;
				t->st[nst++] = c;
				t->vs[nvs++] = (struct visit){ c, counter, 0 };
				top = &t->vs[nvs - 1];
			} else if (top->min > t->num[c]) {
				top->min = t->num[c];
			}
		}
		n = top->n;
		min = top->min;
		nvs--;
		if (nvs && t->vs[nvs - 1].min > min)
			t->vs[nvs - 1].min = min;
		if (min != t->num[n])
			continue;
		/* a component: N and what is above it on the stack */
		first = nst;
		do {
			first--;
			t->num[t->st[first]] = UINT32_MAX;
		} while (t->st[first] != n);
		/* LLVM takes them off the stack, the top first */
		for (i = 0; i < (nst - first) / 2; i++) {
			uint32_t x = t->st[first + i];

			t->st[first + i] = t->st[nst - 1 - i];
			t->st[nst - 1 - i] = x;
		}
		if (nst - first > 1)
			sort_scc(t->g, s, &t->st[first], nst - first);
		for (i = first; i < nst; i++)
			if (t->st[i] != r)
				order[(*norder)++] = t->st[i];
		nst = first;
	}
}

int afdo_cg_top_down(struct afdo_cg *g, uint64_t cold, uint32_t *order,
		     size_t *norder)
{
	size_t nn = g->n + 1, i, j, k;
	struct tarjan t = {
		.g = g,
		.root = malloc(nn * sizeof(uint32_t)),
		.num = calloc(nn, sizeof(uint32_t)),
		.vs = malloc(nn * sizeof(struct visit)),
		.st = malloc(nn * sizeof(uint32_t)),
	};
	struct scc_sort s = {
		.up = malloc(nn * sizeof(uint32_t)),
		.rank = malloc(nn * sizeof(uint32_t)),
		.in_mst = malloc(nn * sizeof(uint32_t)),
		.member = calloc(nn, sizeof(bool)),
		.mst = calloc(g->nc + 1, sizeof(bool)),
		.calls = malloc((g->nc + 1) * sizeof(uint32_t)),
		.q = malloc(nn * sizeof(uint32_t)),
	};
	int rc = -1;

	*norder = 0;
	if (!t.root || !t.num || !t.vs || !t.st || !s.up || !s.rank ||
	    !s.in_mst || !s.member || !s.mst || !s.calls || !s.q)
		goto out;
	for (i = 0; i < g->n; i++) {
		struct cg_fn *f = &g->f[i];

		for (j = k = 0; j < f->nout; j++)
			if (!cold || g->c[f->out[j]].w > cold)
				f->out[k++] = f->out[j];
		f->nout = k;
		qsort_r(f->out, f->nout, sizeof(*f->out), cmp_callee, g);
		if (f->in)
			t.root[t.nroot++] = i;
	}
	qsort_r(t.root, t.nroot, sizeof(*t.root), cmp_name, g);
	components(&t, &s, order, norder);
	for (i = 0; i < *norder / 2; i++) {
		uint32_t x = order[i];

		order[i] = order[*norder - 1 - i];
		order[*norder - 1 - i] = x;
	}
	rc = 0;
out:
	free(t.root);
	free(t.num);
	free(t.vs);
	free(t.st);
	free(s.up);
	free(s.rank);
	free(s.in_mst);
	free(s.member);
	free(s.mst);
	free(s.calls);
	free(s.q);
	return rc;
}

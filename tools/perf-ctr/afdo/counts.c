// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: a binary's records to counts of fall-through
 * ranges, branches and sample addresses, in open-addressing tables keyed
 * by (a, b): their size follows the number of distinct ranges and
 * branches, never the number of records.
 */
#include <stdlib.h>
#include <string.h>
#include "afdo.h"

int afdo_map_init(struct afdo_map *m, size_t cap)
{
	size_t c = 16;

	while (c < cap)
		c <<= 1;
	m->t = calloc(c, sizeof(*m->t));
	m->mask = c - 1;
	m->used = 0;
	return m->t ? 0 : -1;
}

void afdo_map_free(struct afdo_map *m)
{
	free(m->t);
	m->t = NULL;
	m->mask = 0;
	m->used = 0;
}

int afdo_map_grow(struct afdo_map *m)
{
	size_t cap = (m->mask + 1) * 2, i;
	struct afdo_cnt *t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i <= m->mask; i++) {
		const struct afdo_cnt *c = &m->t[i];
		size_t j;

		if (!c->n)
			continue;
		j = afdo_map_slot(&(struct afdo_map){ .mask = cap - 1 }, c->a, c->b);
		while (t[j].n)
			j = (j + 1) & (cap - 1);
		t[j] = *c;
	}
	free(m->t);
	m->t = t;
	m->mask = cap - 1;
	return 0;
}

static int cmp_cnt(const void *x, const void *y)
{
	const struct afdo_cnt *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return 0;
}

struct afdo_cnt *afdo_map_sorted(const struct afdo_map *m, size_t *nr)
{
	struct afdo_cnt *v = malloc((m->used ? m->used : 1) * sizeof(*v));
	size_t i, n = 0;

	if (!v)
		return NULL;
	for (i = 0; i <= m->mask; i++)
		if (m->t[i].n)
			v[n++] = m->t[i];
	qsort(v, n, sizeof(*v), cmp_cnt);
	*nr = n;
	return v;
}

int afdo_counts_init(struct afdo_counts *c)
{
	memset(c, 0, sizeof(*c));
	c->steps_mask = (1 << 12) - 1;
	c->steps = calloc(c->steps_mask + 1, sizeof(*c->steps));
	if (!c->steps || afdo_map_init(&c->ranges, 1 << 12) ||
	    afdo_map_init(&c->branches, 1 << 12) ||
	    afdo_map_init(&c->addrs, 1 << 10)) {
		afdo_counts_free(c);
		return -1;
	}
	return 0;
}

void afdo_counts_free(struct afdo_counts *c)
{
	free(c->steps);
	c->steps = NULL;
	afdo_map_free(&c->ranges);
	afdo_map_free(&c->branches);
	afdo_map_free(&c->addrs);
}

static inline size_t step_slot(uint64_t from, uint64_t to, uint64_t next,
			       uint64_t flags, size_t mask)
{
	uint64_t h = from * PC_HASH_MUL ^ (to + flags) * 0xc2b2ae3d27d4eb4fULL ^
		     next * 0x165667b19e3779f9ULL;

	return (size_t)(h >> 32) & mask;
}

static int steps_grow(struct afdo_counts *c)
{
	size_t mask = c->steps_mask * 2 + 1, i;
	struct afdo_step *t = calloc(mask + 1, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i <= c->steps_mask; i++) {
		const struct afdo_step *e = &c->steps[i];
		size_t j;

		if (!e->flags_n)
			continue;
		j = step_slot(e->from, e->to, e->next, e->flags_n >> AFDO_STEP_SHIFT, mask);
		while (t[j].flags_n)
			j = (j + 1) & mask;
		t[j] = *e;
	}
	free(c->steps);
	c->steps = t;
	c->steps_mask = mask;
	return 0;
}

/* One more occurrence of the step, weighing W. */
static inline int step_add(struct afdo_counts *c, uint64_t from, uint64_t to,
			   uint64_t next, uint64_t flags, uint64_t w)
{
	size_t i = step_slot(from, to, next, flags, c->steps_mask);

	for (;; i = (i + 1) & c->steps_mask) {
		struct afdo_step *e = &c->steps[i];

		if (!e->flags_n)
			break;
		if (e->from == from && e->to == to && e->next == next &&
		    e->flags_n >> AFDO_STEP_SHIFT == flags) {
			e->flags_n++;
			e->w += w;
			return 0;
		}
	}
	if ((c->steps_used + 1) * 2 > c->steps_mask + 1) {
		if (steps_grow(c))
			return -1;
		return step_add(c, from, to, next, flags, w);
	}
	c->steps[i] = (struct afdo_step){ from, to, next,
					  flags << AFDO_STEP_SHIFT | 1, w };
	c->steps_used++;
	return 0;
}

/*
 * Each record gives a branch count (from -> to); the target of each
 * older record runs straight to the source of the next younger one,
 * which is the last instruction of that fall-through range. A not-taken
 * conditional branch transfers nothing: no branch, and the range from
 * the next older record's target runs on through it. The records are
 * counted as steps; afdo_counts_finish() makes the branches and ranges.
 */
int afdo_counts_sample(struct afdo_counts *c, const struct pc_dso *bin,
		       bool ip_mapped, uint64_t ip, const struct afdo_rec *r,
		       size_t nr, uint64_t w)
{
	struct afdo_stats *st = &c->st;
	uint64_t next = 0, has_next = 0;
	size_t i;

	st->samples++;
	if (ip_mapped && pc_dso_text_at(bin, ip)) {
		if (afdo_map_add(&c->addrs, ip, 0, 1))
			return -1;
	} else {
		st->samples_other++;
	}
	if (!nr) {
		st->empty_stacks++;
		return 0;
	}
	st->records += nr;
	for (i = 0; i < nr; i++) {
		uint64_t from = r[i].from_mapped ? r[i].from : 0;
		uint64_t to = r[i].to_mapped ? r[i].to : 0;
		uint64_t flags = r[i].from_mapped | r[i].to_mapped << 1 | has_next;

		if (r[i].not_taken) {
			st->branches_not_taken++;
			continue;
		}
		if (step_add(c, from, to, next, flags, w))
			return -1;
		next = from;
		has_next = AFDO_STEP_HAS_NEXT | (uint64_t)r[i].from_mapped << 2;
	}
	return 0;
}

/* The branch and the range of a step: checked, counted N times (weight W). */
static int step_out(struct afdo_counts *c, const struct pc_dso *bin,
		    const struct afdo_step *e)
{
	struct afdo_stats *st = &c->st;
	uint64_t flags = e->flags_n >> AFDO_STEP_SHIFT;
	uint64_t n = e->flags_n & ((1ULL << AFDO_STEP_SHIFT) - 1);
	bool fok = (flags & AFDO_STEP_FROM) && pc_dso_text_at(bin, e->from);
	bool tok = (flags & AFDO_STEP_TO) && pc_dso_text_at(bin, e->to);
	bool nok = (flags & AFDO_STEP_NEXT) && pc_dso_text_at(bin, e->next);

	st->branches += n;
	if (fok && tok) {
		if (afdo_map_add(&c->branches, e->from, e->to, e->w))
			return -1;
	} else {
		st->branches_outside += n;
	}
	if (!(flags & AFDO_STEP_HAS_NEXT))
		return 0;
	/* this (older) record's target runs to the younger's source */
	st->ranges += n;
	if (tok && nok) {
		if (e->to > e->next)
			st->ranges_bad_order += n;
		else if (pc_dso_text_at(bin, e->to) != pc_dso_text_at(bin, e->next))
			st->ranges_outside += n;
		else if ((e->to | e->next) & 1)
			st->ranges_misaligned += n;
		else if (afdo_map_add(&c->ranges, e->to, e->next, e->w))
			return -1;
	} else if (flags & (AFDO_STEP_TO | AFDO_STEP_NEXT)) {
		/* one end in the binary, the other not */
		st->ranges_outside += n;
	}
	return 0;
}

/*
 * A fall-through range never leaves its function: drop the unique ranges
 * whose ends lie in different function symbols. Done once on the unique
 * ranges, not per record.
 */
int afdo_counts_finish(struct afdo_counts *c, struct pc_dso *bin)
{
	struct afdo_map m;
	size_t i;

	for (i = 0; i <= c->steps_mask; i++)
		if (c->steps[i].flags_n && step_out(c, bin, &c->steps[i]))
			return -1;
	if (!bin->nr_syms)
		return 0;
	if (afdo_map_init(&m, (c->ranges.used + 1) * 2))
		return -1;
	for (i = 0; i <= c->ranges.mask; i++) {
		const struct afdo_cnt *r = &c->ranges.t[i];
		const struct pc_sym *f1, *f2;

		if (!r->n)
			continue;
		f1 = pc_dso_sym(bin, r->a);
		f2 = pc_dso_sym(bin, r->b);
		/*
		 * Both ends in functions the symbol table knows, different ones;
		 * or one end in one and the other outside it. Where it knows
		 * neither end (a stripped binary's .dynsym), nothing is known.
		 */
		if (!f1 != !f2 || (f1 && f1->start != f2->start)) {
			c->st.ranges_cross_func++;
			continue;
		}
		if (afdo_map_add(&m, r->a, r->b, r->n)) {
			afdo_map_free(&m);
			return -1;
		}
	}
	afdo_map_free(&c->ranges);
	c->ranges = m;
	return 0;
}

size_t afdo_counts_bytes(const struct afdo_counts *c)
{
	return (c->ranges.mask + c->branches.mask + c->addrs.mask + 3) *
	       sizeof(struct afdo_cnt) + (c->steps_mask + 1) * sizeof(*c->steps);
}

bool afdo_counts_empty(const struct afdo_counts *c)
{
	return !c->ranges.used && !c->addrs.used && !c->branches.used;
}

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
	size_t mask = m->mask * 2 + 1, i;
	struct afdo_cnt *t = calloc(mask + 1, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i <= m->mask; i++) {
		const struct afdo_cnt *e = &m->t[i];
		size_t j;

		if (!e->tag)
			continue;
		j = afdo_map_slot(mask, e->a, e->b, e->c, AFDO_CNT_FLAGS(e));
		while (t[j].tag)
			j = (j + 1) & mask;
		t[j] = *e;
	}
	free(m->t);
	m->t = t;
	m->mask = mask;
	return 0;
}

static int cmp_cnt(const void *x, const void *y)
{
	const struct afdo_cnt *p = x, *q = y;

	return pc_cmp_u64(p->a, q->a) ?: pc_cmp_u64(p->b, q->b) ?:
	       pc_cmp_u64(p->c, q->c);
}

struct afdo_cnt *afdo_map_sorted(const struct afdo_map *m, size_t *nr)
{
	struct afdo_cnt *v = malloc((m->used ? m->used : 1) * sizeof(*v));
	size_t i, n = 0;

	if (!v)
		return NULL;
	for (i = 0; i <= m->mask; i++)
		if (m->t[i].tag)
			v[n++] = m->t[i];
	qsort(v, n, sizeof(*v), cmp_cnt);
	*nr = n;
	return v;
}

int afdo_counts_init(struct afdo_counts *c)
{
	memset(c, 0, sizeof(*c));
	if (afdo_map_init(&c->steps, 1 << 12) || afdo_map_init(&c->ranges, 1 << 12) ||
	    afdo_map_init(&c->branches, 1 << 12) ||
	    afdo_map_init(&c->addrs, 1 << 10)) {
		afdo_counts_free(c);
		return -1;
	}
	return 0;
}

void afdo_counts_free(struct afdo_counts *c)
{
	afdo_map_free(&c->steps);
	afdo_map_free(&c->ranges);
	afdo_map_free(&c->branches);
	afdo_map_free(&c->addrs);
}

/* The branch and the range of a step: checked, counted N times (weight W). */
static int step_out(struct afdo_counts *c, const struct pc_dso *bin,
		    const struct afdo_cnt *e)
{
	struct afdo_stats *st = &c->st;
	uint64_t flags = AFDO_CNT_FLAGS(e), n = AFDO_CNT_HITS(e);
	uint64_t from = e->a, to = e->b, next = e->c;
	bool fok = (flags & AFDO_STEP_FROM) && pc_dso_text_at(bin, from);
	bool tok = (flags & AFDO_STEP_TO) && pc_dso_text_at(bin, to);
	bool nok = (flags & AFDO_STEP_NEXT) && pc_dso_text_at(bin, next);

	st->branches += n;
	if (fok && tok) {
		if (afdo_map_add(&c->branches, from, to, 0, 0, e->n))
			return -1;
	} else {
		st->branches_outside += n;
	}
	if (!(flags & AFDO_STEP_HAS_NEXT))
		return 0;
	/* this (older) record's target runs to the younger's source */
	st->ranges += n;
	if (tok && nok) {
		if (to > next)
			st->ranges_bad_order += n;
		else if (pc_dso_text_at(bin, to) != pc_dso_text_at(bin, next))
			st->ranges_outside += n;
		else if ((to | next) & 1)
			st->ranges_misaligned += n;
		else if (afdo_map_add(&c->ranges, to, next, 0, 0, e->n))
			return -1;
	} else if (flags & (AFDO_STEP_TO | AFDO_STEP_NEXT)) {
		/* one end in the binary, the other not */
		st->ranges_outside += n;
	}
	return 0;
}

/*
 * The steps so far into branches and ranges, and a table of steps that
 * starts over: the counts add up the same whenever it is done. Done when
 * the table holds STEPS_MAX steps too, so that it stays in the cache and
 * memory follows the distinct branches and ranges, not the distinct
 * pairs of them a recording of much code has.
 */
#define STEPS_MAX	(1u << 14)

static int steps_out(struct afdo_counts *c, const struct pc_dso *bin)
{
	size_t i;

	for (i = 0; i <= c->steps.mask; i++)
		if (c->steps.t[i].tag && step_out(c, bin, &c->steps.t[i]))
			return -1;
	memset(c->steps.t, 0, (c->steps.mask + 1) * sizeof(*c->steps.t));
	c->steps.used = 0;
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
		if (afdo_map_add(&c->addrs, ip, 0, 0, 0, 1))
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
		if (afdo_map_add(&c->steps, from, to, next, flags, w) ||
		    (c->steps.used >= STEPS_MAX && steps_out(c, bin)))
			return -1;
		next = from;
		has_next = AFDO_STEP_HAS_NEXT | (uint64_t)r[i].from_mapped << 2;
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

	if (steps_out(c, bin))
		return -1;
	if (!bin->nr_syms)
		return 0;
	if (afdo_map_init(&m, (c->ranges.used + 1) * 2))
		return -1;
	for (i = 0; i <= c->ranges.mask; i++) {
		const struct afdo_cnt *r = &c->ranges.t[i];
		const struct pc_sym *f1, *f2;

		if (!r->tag)
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
		if (afdo_map_add(&m, r->a, r->b, 0, 0, r->n)) {
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
	return (c->steps.mask + c->ranges.mask + c->branches.mask +
		c->addrs.mask + 4) * sizeof(struct afdo_cnt);
}

bool afdo_counts_empty(const struct afdo_counts *c)
{
	return !c->ranges.used && !c->addrs.used && !c->branches.used;
}

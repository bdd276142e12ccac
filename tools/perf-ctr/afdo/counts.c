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
	if (afdo_map_init(&c->ranges, 1 << 12) ||
	    afdo_map_init(&c->branches, 1 << 12) ||
	    afdo_map_init(&c->addrs, 1 << 10)) {
		afdo_counts_free(c);
		return -1;
	}
	return 0;
}

void afdo_counts_free(struct afdo_counts *c)
{
	afdo_map_free(&c->ranges);
	afdo_map_free(&c->branches);
	afdo_map_free(&c->addrs);
}

/*
 * Each record gives a branch count (from -> to); the target of each
 * older record runs straight to the source of the next younger one,
 * which is the last instruction of that fall-through range. A not-taken
 * conditional branch transfers nothing: no branch, and the range from
 * the next older record's target runs on through it. Impossible ranges
 * (a start after its end, ends in two sections or outside the text, an
 * odd address) are counted and dropped.
 */
int afdo_counts_sample(struct afdo_counts *c, const struct pc_dso *bin,
		       bool ip_mapped, uint64_t ip, const struct afdo_rec *r,
		       size_t nr, uint64_t w)
{
	struct afdo_stats *st = &c->st;
	bool have_prev = false, prev_ok = false, prev_mapped = false;
	uint64_t prev_from = 0;
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
		bool fok, tok;

		if (r[i].not_taken) {
			st->branches_not_taken++;
			continue;
		}
		fok = r[i].from_mapped && pc_dso_text_at(bin, from);
		tok = r[i].to_mapped && pc_dso_text_at(bin, to);
		st->branches++;
		if (fok && tok) {
			if (afdo_map_add(&c->branches, from, to, w))
				return -1;
		} else {
			st->branches_outside++;
		}
		if (have_prev) {
			/* this (older) record's target runs to the younger's source */
			st->ranges++;
			if (tok && prev_ok) {
				if (to > prev_from)
					st->ranges_bad_order++;
				else if (pc_dso_text_at(bin, to) != pc_dso_text_at(bin, prev_from))
					st->ranges_outside++;
				else if ((to | prev_from) & 1)
					st->ranges_misaligned++;
				else if (afdo_map_add(&c->ranges, to, prev_from, w))
					return -1;
			} else if (r[i].to_mapped || prev_mapped) {
				/* one end in the binary, the other not */
				st->ranges_outside++;
			}
		}
		prev_from = from;
		prev_ok = fok;
		prev_mapped = r[i].from_mapped;
		have_prev = true;
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
	       sizeof(struct afdo_cnt);
}

bool afdo_counts_empty(const struct afdo_counts *c)
{
	return !c->ranges.used && !c->addrs.used && !c->branches.used;
}

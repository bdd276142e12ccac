// SPDX-License-Identifier: GPL-2.0
/* perf-ctr aggregate: open-addressing tables of counts keyed by (a, b). */
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
		j = afdo_hash(c->a, c->b) & (cap - 1);
		while (t[j].n)
			j = (j + 1) & (cap - 1);
		t[j] = *c;
	}
	free(m->t);
	m->t = t;
	m->mask = cap - 1;
	return 0;
}

uint64_t afdo_map_get(const struct afdo_map *m, uint64_t a, uint64_t b)
{
	size_t i = afdo_hash(a, b) & m->mask;

	while (m->t[i].n) {
		if (m->t[i].a == a && m->t[i].b == b)
			return m->t[i].n;
		i = (i + 1) & m->mask;
	}
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

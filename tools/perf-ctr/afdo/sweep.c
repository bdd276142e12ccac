// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: from range counts to instruction counts. Each
 * range adds its count from its first byte to the end of its last
 * instruction; a sweep over those events in address order gives every
 * covered instruction the sum of the ranges over it.
 */
#include <stdlib.h>

#include "search.h"
#include "sweep.h"

struct sweep_ev {
	uint64_t addr;
	int64_t d;
};

static int cmp_ev(const void *x, const void *y)
{
	const struct sweep_ev *p = x, *q = y;

	return p->addr < q->addr ? -1 : p->addr > q->addr;
}

int afdo_sweep(const struct afdo_counts *c, const struct pc_dso *bin,
	       int (*insn)(void *ctx, uint64_t addr, uint64_t n, unsigned int len),
	       void *ctx, struct afdo_span **spans, size_t *nspans)
{
	size_t n, i, ne = 0, cap = 0;
	struct afdo_cnt *v = afdo_map_sorted(&c->ranges, &n);
	struct sweep_ev *ev;
	int64_t active = 0;
	int rc = 0;

	if (spans) {
		*spans = NULL;
		*nspans = 0;
	}
	if (!v)
		return -1;
	ev = malloc((2 * n + 1) * sizeof(*ev));
	if (!ev) {
		free(v);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct pc_rv_insn in;
		unsigned int len = pc_dso_insn(bin, v[i].b, &in);

		if (!len)
			continue;
		ev[ne].addr = v[i].a;
		ev[ne++].d = (int64_t)v[i].n;
		ev[ne].addr = v[i].b + len;
		ev[ne++].d = -(int64_t)v[i].n;
	}
	free(v);
	qsort(ev, ne, sizeof(*ev), cmp_ev);
	for (i = 0; i < ne && !rc;) {
		uint64_t a = ev[i].addr, p;

		while (i < ne && ev[i].addr == a)
			active += ev[i++].d;
		if (active <= 0 || i == ne)
			continue;
		if (spans) {
			struct afdo_span *s = pc_grow(*spans, &cap, *nspans,
						      sizeof(**spans), 64);

			if (!s) {
				rc = -1;
				break;
			}
			*spans = s;
			s[*nspans].lo = a;
			s[(*nspans)++].hi = ev[i].addr;
		}
		for (p = a; p < ev[i].addr && !rc;) {
			struct pc_rv_insn in;
			unsigned int len = pc_dso_insn(bin, p, &in);

			if (!len)
				break;
			rc = insn(ctx, p, (uint64_t)active, len);
			p += len;
		}
	}
	free(ev);
	if (rc && spans) {
		free(*spans);
		*spans = NULL;
	}
	return rc ? -1 : 0;
}

uint64_t afdo_span_end(const struct afdo_span *spans, size_t n, uint64_t addr)
{
	size_t i = pc_count_upto(spans, n, sizeof(*spans),
				 offsetof(struct afdo_span, hi), addr);

	return i < n && spans[i].lo <= addr ? spans[i].hi : 0;
}

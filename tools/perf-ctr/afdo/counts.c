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
#include "mem.h"
#include "riscv-insn.h"

int afdo_map_init(struct afdo_map *m, size_t cap)
{
	size_t c = 16;

	while (c < cap)
		c <<= 1;
	m->t = pc_huge_zalloc(c * sizeof(*m->t));
	m->mask = c - 1;
	m->used = 0;
	return m->t ? 0 : -1;
}

void afdo_map_free(struct afdo_map *m)
{
	pc_huge_free(m->t, (m->mask + 1) * sizeof(*m->t));
	m->t = NULL;
	m->mask = 0;
	m->used = 0;
}

int afdo_map_grow(struct afdo_map *m)
{
	size_t mask = m->mask * 2 + 1, i;
	struct afdo_cnt *t = pc_huge_zalloc((mask + 1) * sizeof(*t));

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
	pc_huge_free(m->t, (m->mask + 1) * sizeof(*m->t));
	m->t = t;
	m->mask = mask;
	return 0;
}

int afdo_map_insert(struct afdo_map *m, size_t i, uint64_t a, uint64_t b,
		    uint64_t c, uint64_t flags, uint64_t n)
{
	if ((m->used + 1) * 4 > (m->mask + 1) * 3) {
		if (afdo_map_grow(m))
			return -1;
		return afdo_map_add(m, a, b, c, flags, n);
	}
	m->t[i] = (struct afdo_cnt){ a, b, c, flags << AFDO_TAG_SHIFT | 1, n };
	m->used++;
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
	    afdo_map_init(&c->addrs, 1 << 10) ||
	    afdo_map_init(&c->entries, 1 << 8) ||
	    afdo_map_init(&c->traces, 16) || afdo_map_init(&c->outer, 16) ||
	    afdo_map_init(&c->misp, 16)) {
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
	afdo_map_free(&c->entries);
	afdo_map_free(&c->traces);
	afdo_map_free(&c->outer);
	afdo_map_free(&c->misp);
}

/*
 * Was the record a trap (an exception or an interrupt) of its source
 * instruction, which then did not retire? Its type says so when it has
 * one (flag TRAP or XFER); else the instruction at ADDR does: a record
 * from one that transfers nothing, and is no trap return, is a trap's.
 */
static bool step_trap(const struct pc_dso *bin, uint64_t addr, bool in_bin,
		      uint64_t flags, uint64_t trap, uint64_t xfer)
{
	struct pc_rv_insn in;

	if (flags & (trap | xfer))
		return flags & trap;
	return in_bin && pc_dso_insn(bin, addr, &in) && in.kind == PC_RV_OTHER &&
	       !pc_rv_is_xret(&in);
}

/*
 * Does FROM -> TO (TO in the binary's text) enter a function? TO must be
 * its first byte. From another file it does (main from libc, a callback);
 * from 0, the end of a privilege not recorded, only a trap does (a trap
 * return to the first byte resumes a fault there). Inside the binary
 * everything does but a jump within the function (a loop whose head is
 * its first instruction); a call to itself is recursion.
 */
static bool step_entry(struct pc_dso *bin, uint64_t from, bool fok,
		       uint64_t to, bool trap)
{
	const struct pc_sym *f = pc_dso_sym(bin, to);
	struct pc_rv_insn in;

	if (!f || f->start != to)
		return false;
	if (!fok)
		return from != 0 || trap;
	if (trap || pc_dso_sym(bin, from) != f)
		return true;
	return pc_dso_insn(bin, from, &in) && pc_rv_is_call(in.kind);
}

/* The branch, entry and range of a step, counted N times (weight W). */
static int step_out(struct afdo_counts *c, struct pc_dso *bin,
		    const struct afdo_cnt *e)
{
	struct afdo_stats *st = &c->st;
	uint64_t flags = AFDO_CNT_FLAGS(e), n = AFDO_CNT_HITS(e);
	uint64_t from = e->a, to = e->b, next = e->c;
	bool fok = (flags & AFDO_STEP_FROM) && pc_dso_text_at(bin, from);
	bool tok = (flags & AFDO_STEP_TO) && pc_dso_text_at(bin, to);
	bool nok = (flags & AFDO_STEP_NEXT) && pc_dso_text_at(bin, next);
	bool trap = step_trap(bin, from, fok, flags, AFDO_STEP_TRAP,
			      AFDO_STEP_XFER);

	st->branches += n;
	if (!fok || !tok)
		st->branches_outside += n;
	if (trap)
		/* no branch edge from an instruction that did not retire */
		st->traps += n;
	else if (fok && tok && afdo_map_add(&c->branches, from, to, 0, 0, e->n))
		return -1;
	/* BOLT's entries from, and exits to, what is not the binary */
	if (c->origins && fok != tok &&
	    afdo_map_add(&c->outer, fok ? from : 0, tok ? to : 0, 0, 0, e->n))
		return -1;
	if (tok && step_entry(bin, from, fok, to, trap)) {
		st->entries += n;
		if (!fok)
			st->entries_outside += n;
		if (afdo_map_add(&c->entries, to, 0, 0, 0, e->n))
			return -1;
	}
	if (!(flags & AFDO_STEP_HAS_NEXT))
		return 0;
	/*
	 * This (older) record's target runs to the younger's source; when
	 * the younger is a trap, to the instruction before it (c = 1).
	 */
	st->ranges += n;
	if (tok && nok) {
		uint64_t excl = step_trap(bin, next, nok, flags, AFDO_STEP_NEXT_TRAP,
					  AFDO_STEP_NEXT_XFER);

		/* for BOLT: did the range's way in come from another function? */
		if (c->origins && (!fok || !pc_dso_sym(bin, to) ||
				   pc_dso_sym(bin, from) != pc_dso_sym(bin, to)))
			excl |= 2;

		if (to > next)
			st->ranges_bad_order += n;
		else if (pc_dso_text_at(bin, to) != pc_dso_text_at(bin, next))
			st->ranges_outside += n;
		else if ((to | next) & 1)
			st->ranges_misaligned += n;
		else if (afdo_map_add(&c->ranges, to, next, excl, 0, e->n))
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

static int steps_out(struct afdo_counts *c, struct pc_dso *bin)
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
int afdo_counts_sample(struct afdo_counts *c, struct pc_dso *bin,
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
		uint64_t flags = r[i].flags;

		if (r[i].not_taken) {
			st->branches_not_taken++;
			continue;
		}
		if (r[i].misp && c->origins &&
		    (flags & (AFDO_STEP_FROM | AFDO_STEP_TO))) {
			st->mispredicts++;
			if (afdo_map_add(&c->misp, flags & AFDO_STEP_FROM ? r[i].from : 0,
					 r[i].to, 0, 0, w))
				return -1;
		}
		if (afdo_map_add(&c->steps, r[i].from, r[i].to, next, flags | has_next, w) ||
		    (c->steps.used >= STEPS_MAX && steps_out(c, bin)))
			return -1;
		next = r[i].from;
		/* the younger's FROM and type flags, two bits up */
		has_next = AFDO_STEP_HAS_NEXT | (flags & ~AFDO_STEP_TO) << 2;
	}
	return 0;
}

/*
 * Walk a range from its first instruction A to B, which ends it (EXCL:
 * the range ends before B, B being a trap's source that did not retire).
 * 0 with *END its last instruction; 1 when it is empty; 2 when it runs
 * through a jump, call or return (a record between them was lost or
 * filtered) or B is not on A's instruction stream.
 */
static int range_walk(const struct pc_dso *bin, uint64_t a, uint64_t b,
		      bool excl, uint64_t *end)
{
	struct pc_rv_insn in;
	uint64_t p = a, last = 0;
	unsigned int len;

	if (excl && a == b)
		return 1;
	while (p < b) {
		len = pc_dso_insn(bin, p, &in);
		if (!len || pc_rv_is_uncond(in.kind))
			return 2;
		last = p;
		p += len;
	}
	if (p != b)
		return 2;
	*end = excl ? last : b;
	return 0;
}

/*
 * Once on the unique ranges, not per record: a range that ends before a
 * trap's source gets its last instruction; a range that runs through an
 * unconditional transfer (llvm-profgen's check too) is dropped, and so
 * is one whose ends lie in different function symbols: straight-line
 * code never leaves its function.
 */
int afdo_counts_finish(struct afdo_counts *c, struct pc_dso *bin)
{
	struct afdo_map m;
	size_t i;

	if (steps_out(c, bin))
		return -1;
	if (afdo_map_init(&m, (c->ranges.used + 1) * 2))
		return -1;
	for (i = 0; i <= c->ranges.mask; i++) {
		const struct afdo_cnt *r = &c->ranges.t[i];
		const struct pc_sym *f1, *f2;
		uint64_t end;
		int w;

		if (!r->tag)
			continue;
		w = range_walk(bin, r->a, r->b, r->c & 1, &end);
		if (w == 1) {
			c->st.ranges_empty++;
			continue;
		}
		f1 = pc_dso_sym(bin, r->a);
		f2 = pc_dso_sym(bin, r->b);
		/*
		 * Both ends in functions the symbol table knows, different ones;
		 * or one end in one and the other outside it. Where it knows
		 * neither end (a stripped binary's .dynsym), nothing is known.
		 */
		if (bin->nr_syms &&
		    (!f1 != !f2 || (f1 && f1->start != f2->start))) {
			c->st.ranges_cross_func++;
			continue;
		}
		if (w) {
			c->st.ranges_cross_jump++;
			continue;
		}
		if (afdo_map_add(&m, r->a, end, 0, 0, r->n) ||
		    (c->origins &&
		     afdo_map_add(&c->traces, r->a, end, r->c >> 1, 0, r->n))) {
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
		c->addrs.mask + c->entries.mask + c->traces.mask +
		c->outer.mask + c->misp.mask + 8) * sizeof(struct afdo_cnt);
}

bool afdo_counts_empty(const struct afdo_counts *c)
{
	return !c->ranges.used && !c->addrs.used && !c->branches.used;
}

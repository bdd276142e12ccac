// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: hybrid samples unwound into calling contexts, as
 * llvm-profgen 19 does (context.h).
 *
 * llvm-profgen knows instructions by LLVM's instruction descriptions,
 * not by what they do: on RISC-V, only c.jalr (and RV32's c.jal) are
 * calls there, nothing is a return, and c.j and the calls are the
 * unconditional transfers a range cannot run through. A jal or jalr
 * that links ra is no call to it: a return address after one ends the
 * call chain, a record of one is a branch within the frame. The
 * contexts here are llvm-profgen's, so that its profile and perf-ctr's
 * are the same.
 *
 * Or, for native calls, RISC-V's own: every jal and jalr that links ra
 * or t0 is a call, a jump back through them a return, and no range runs
 * through a jump, call or return: contexts through every call.
 */
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "dwarf-info.h"
#include "riscv-insn.h"
#include "search.h"

/*
 * What llvm-profgen's disassembly says of an address, found once: is an
 * instruction there, and which call (0: none) is the instruction before.
 */
struct insn_at {
	uint64_t addr, call;
	bool start;
};

/* The unwinder's state for one sample, and what it reuses for the next. */
struct afdo_unwind {
	struct afdo_ctxs *cs_all;
	struct pc_dso *bin;
	uint64_t *st;			/* frames, outermost first; the last the leaf */
	size_t n, cap;
	uint64_t *key;			/* scratch: a context */
	size_t ckey;
	uint64_t *cs;			/* scratch: a call stack, leaf first */
	size_t ccs;
	uint64_t *r;			/* scratch: the records kept */
	size_t cr;
	struct insn_at *at;		/* look_at()'s answers, by address */
	size_t nat, cat;
	struct pc_index at_ix;
	struct pc_dwarf *dw;		/* BIN's, or NULL */
	uint64_t ip;			/* where the walk back is */
	uint64_t w;			/* the sample's weight */
	bool invalid;			/* a range made no sense: contexts are lost */
	bool native;			/* RISC-V's calls and returns */
};

static bool lp_call_insn(const struct afdo_unwind *u, const struct pc_rv_insn *in)
{
	return (u->native || in->len == 2) && pc_rv_is_call(in->kind);
}

/* Is the instruction at ADDR a call, as llvm-profgen 19 takes it? */
static bool lp_call(const struct afdo_unwind *u, uint64_t addr)
{
	struct pc_rv_insn in;

	return addr != AFDO_ELSEWHERE && pc_dso_insn(u->bin, addr, &in) &&
	       lp_call_insn(u, &in);
}

/* Is the instruction at ADDR a return (native calls only)? */
static bool native_ret(const struct afdo_unwind *u, uint64_t addr)
{
	struct pc_rv_insn in;

	return u->native && addr != AFDO_ELSEWHERE &&
	       pc_dso_insn(u->bin, addr, &in) && in.kind == PC_RV_RET;
}

/* A transfer that straight-line code cannot run through, to llvm-profgen. */
static bool lp_uncond(const struct afdo_unwind *u, const struct pc_rv_insn *in)
{
	if (u->native)
		return pc_rv_is_uncond(in->kind);
	return lp_call_insn(u, in) || (in->len == 2 && in->kind == PC_RV_JUMP);
}

/*
 * From the start of the K-th symbol to ADDR, an instruction at a time:
 * the last one before ADDR in *PREV (0: none). Does one start at ADDR?
 */
static bool walk_from(struct pc_dso *bin, size_t k, uint64_t addr,
		      uint64_t *prev)
{
	struct pc_rv_insn in;
	unsigned int len;
	uint64_t p;

	*prev = 0;
	for (p = bin->syms[k].start; p < addr; p += len) {
		len = pc_dso_insn(bin, p, &in);
		if (!len)
			return false;
		*prev = p;
	}
	return p == addr;
}

/*
 * Walk to ADDR as llvm-profgen's disassembly does: it runs from each
 * symbol to the next, so an instruction starts at every symbol, and the
 * one before a function's first is the last of the function before (as
 * after a call that does not return). Is an instruction at ADDR? *PREV
 * gets the one before it (0: none).
 */
static bool insn_walk(struct pc_dso *bin, uint64_t addr, uint64_t *prev)
{
	size_t k, before;

	*prev = 0;
	/* (which loads the symbols, too) */
	pc_dso_sym(bin, addr);
	k = pc_count_upto(bin->syms, bin->nr_syms, sizeof(*bin->syms),
			  offsetof(struct pc_sym, start), addr);
	if (!k || !addr)
		return false;
	before = pc_count_upto(bin->syms, bin->nr_syms, sizeof(*bin->syms),
			       offsetof(struct pc_sym, start), addr - 1);
	if (bin->syms[k - 1].start != addr)
		return walk_from(bin, k - 1, addr, prev);
	/* a symbol starts at ADDR: the one before runs up to it */
	if (before)
		walk_from(bin, before - 1, addr, prev);
	return true;
}

static bool at_is(const void *arr, size_t pos, const void *key)
{
	return ((const struct insn_at *)arr)[pos].addr == *(const uint64_t *)key;
}

/*
 * What llvm-profgen makes of ADDR, walked once an address; NULL when out
 * of memory.
 */
static const struct insn_at *look_at(struct afdo_unwind *u, uint64_t addr)
{
	struct insn_at *e;
	uint64_t prev;
	bool added;
	size_t i;

	i = pc_index_get(&u->at_ix, (void **)&u->at, &u->nat, &u->cat,
			 sizeof(*u->at), pc_hash(addr, 0, 0), at_is, &addr, &added);
	if (i == PC_INDEX_NONE)
		return NULL;
	e = &u->at[i];
	if (added) {
		e->addr = addr;
		e->start = insn_walk(u->bin, addr, &prev);
		e->call = prev && lp_call(u, prev) ? prev : 0;
	}
	return e;
}

/*
 * ADDR as llvm-profgen takes it: AFDO_ELSEWHERE unless an instruction
 * of the binary starts there (*OOM when out of memory).
 */
static uint64_t code(struct afdo_unwind *u, uint64_t addr, bool *oom)
{
	const struct insn_at *e;

	if (addr == AFDO_ELSEWHERE)
		return addr;
	e = look_at(u, addr);
	if (!e)
		*oom = true;
	return e && e->start ? addr : AFDO_ELSEWHERE;
}

/*
 * The call that returns to ADDR: the instruction before it when that
 * is a call, else 0 (the unwinder of the chain went wrong, to
 * llvm-profgen). An address outside the binary stays so (*OOM when out
 * of memory).
 */
static uint64_t call_before(struct afdo_unwind *u, uint64_t addr, bool *oom)
{
	const struct insn_at *e;

	if (addr == AFDO_ELSEWHERE)
		return AFDO_ELSEWHERE;
	e = look_at(u, addr);
	if (!e)
		*oom = true;
	return e ? e->call : 0;
}

/*
 * Is ADDR in a prologue, as llvm-profgen guesses it: the first two
 * instructions of a function (one with DWARF; returns, whose epilogues
 * it also guesses, are none on RISC-V)? A sample there has no trusted
 * call chain.
 */
static bool in_prolog(struct pc_dso *bin, struct pc_dwarf *dw, uint64_t addr)
{
	const struct pc_sym *s = pc_dso_sym(bin, addr);
	struct pc_frame f[PC_MAX_FRAMES];
	struct pc_rv_insn in;

	if (!s || addr == AFDO_ELSEWHERE)
		return false;
	if (addr != s->start &&
	    (!pc_dso_insn(bin, s->start, &in) || addr != s->start + in.len))
		return false;
	return dw && pc_dwarf_frames(dw, s->start, f, PC_MAX_FRAMES) > 0;
}

/* Does a range from START to END run through an unconditional transfer? */
static bool crosses_uncond(const struct afdo_unwind *u, uint64_t start,
			   uint64_t end)
{
	struct pc_rv_insn in;
	unsigned int len;
	uint64_t p;

	for (p = start; p < end; p += len) {
		len = pc_dso_insn(u->bin, p, &in);
		if (!len)
			return false;
		if (lp_uncond(u, &in))
			return true;
	}
	return false;
}

size_t afdo_ctx_compress(void *v, size_t n, size_t size)
{
	char *a = v;
	size_t run, in, out;

	for (run = 1; run <= n / 2; run++) {
		for (in = out = 0; in < n;) {
			/* the next RUN elements repeat the last RUN kept: drop them */
			if (out >= run && in + run <= n &&
			    !memcmp(a + (out - run) * size, a + in * size, run * size)) {
				in += run;
				continue;
			}
			memmove(a + out * size, a + in * size, size);
			out++;
			in++;
		}
		n = out;
	}
	return n;
}

struct ctx_key {
	const uint64_t *v;
	size_t n;
};

static bool ctx_is(const void *arr, size_t pos, const void *key)
{
	const struct afdo_ctx *c = &((const struct afdo_ctx *)arr)[pos];
	const struct ctx_key *k = key;

	return c->nsites == k->n && !memcmp(c->sites, k->v, k->n * sizeof(*k->v));
}

static uint64_t ctx_hash(const uint64_t *v, size_t n)
{
	uint64_t h = n;
	size_t i;

	for (i = 0; i < n; i++)
		h = pc_hash(h, v[i], i);
	return h;
}

/* The context of the N call sites V, made when new; NULL: out of memory. */
static struct afdo_ctx *ctx_get(struct afdo_ctxs *cs, const uint64_t *v,
				size_t n)
{
	struct ctx_key k = { v, n };
	struct afdo_ctx *c;
	bool added;
	size_t i;

	/* the array moves as it grows: EQ gets it through the key's lookup */
	i = pc_index_get(&cs->ix, (void **)&cs->v, &cs->n, &cs->cap, sizeof(*cs->v),
			 ctx_hash(v, n), ctx_is, &k, &added);
	if (i == PC_INDEX_NONE)
		return NULL;
	c = &cs->v[i];
	if (!added)
		return c;
	c->sites = malloc((n + 1) * sizeof(*v));
	if (!c->sites || afdo_map_init(&c->ranges, 64) ||
	    afdo_map_init(&c->branches, 64))
		return NULL;
	memcpy(c->sites, v, n * sizeof(*v));
	c->nsites = n;
	return c;
}

/*
 * The context of what the frame around the leaf holds: the frames but
 * the leaf, from the one below the innermost frame outside the binary
 * (a context starts over there), repeated calls of a recursion once.
 */
static struct afdo_ctx *parent_ctx(struct afdo_unwind *u)
{
	size_t lo = 0, n = u->n ? u->n - 1 : 0, i;

	for (i = 0; i < n; i++)
		if (u->st[i] == AFDO_ELSEWHERE)
			lo = i + 1;
	if (pc_reserve_u64(&u->key, &u->ckey, n - lo))
		return NULL;
	memcpy(u->key, u->st + lo, (n - lo) * sizeof(*u->key));
	n = afdo_ctx_compress(u->key, n - lo, sizeof(*u->key));
	return ctx_get(u->cs_all, u->key, n);
}

static int push(struct afdo_unwind *u, uint64_t addr)
{
	if (pc_reserve_u64(&u->st, &u->cap, u->n + 1))
		return -1;
	u->st[u->n++] = addr;
	return 0;
}

/* The leaf becomes ADDR: a branch within a frame. */
static void switch_to(struct afdo_unwind *u, uint64_t addr)
{
	if (u->n)
		u->st[u->n - 1] = addr;
}

/* The range from the target of record R back to where the walk is. */
static int unwind_linear(struct afdo_unwind *u, const uint64_t *r)
{
	uint64_t target = r[1], end = u->ip;
	struct afdo_ctx *c;

	if (end == AFDO_ELSEWHERE && target == AFDO_ELSEWHERE)
		return 0;
	if (end == AFDO_ELSEWHERE || target == AFDO_ELSEWHERE ||
	    target > end || crosses_uncond(u, target, end)) {
		u->invalid = true;
		return 0;
	}
	c = parent_ctx(u);
	return c ? afdo_map_add(&c->ranges, target, end, 0, 0, u->w) : -1;
}

/*
 * Record R, a call: the frame it made is the leaf, and the walk goes on
 * in its caller; when the frame around the leaf is not this call's
 * (the chain was taken in a prologue), the call stands in for the leaf.
 */
static int unwind_call(struct afdo_unwind *u, uint64_t from)
{
	if (u->n < 2 || u->st[u->n - 2] != from)
		switch_to(u, from);
	else
		u->n--;
	u->ip = from;
	return 0;
}

/* Record R, a return: the walk goes back into the frame it left. */
static int unwind_return(struct afdo_unwind *u, const uint64_t *r)
{
	bool oom = false;

	switch_to(u, call_before(u, r[1], &oom));
	u->ip = r[0];
	return oom ? -1 : push(u, r[0]);
}

/* Count branch R in the context the walk is in now, the record's own. */
static int count_branch(struct afdo_unwind *u, const uint64_t *r)
{
	struct afdo_ctx *c;

	if (r[1] == AFDO_ELSEWHERE)
		return 0;
	/* entered from elsewhere: no context */
	c = r[0] == AFDO_ELSEWHERE ? ctx_get(u->cs_all, NULL, 0) : parent_ctx(u);
	return c ? afdo_map_add(&c->branches, r[0], r[1], 0, 0, u->w) : -1;
}

/* One record R (from, to), the I-th youngest, walked back over. */
static int unwind_record(struct afdo_unwind *u, const uint64_t *r, size_t i)
{
	uint64_t from = r[0], to = r[1];
	bool oom = false;

	/* the youngest range runs on past the sample: none */
	if (i && unwind_linear(u, r))
		return -1;
	if (!u->invalid &&
	    (lp_call(u, from) ||
	     (from == AFDO_ELSEWHERE && !call_before(u, to, &oom) && !oom))) {
		unwind_call(u, from);
	} else if (oom) {
		return -1;
	} else if (!u->invalid &&
		   (from == AFDO_ELSEWHERE || native_ret(u, from))) {
		/* a return from elsewhere: the code after a call */
		if (unwind_return(u, r))
			return -1;
	} else if (!u->invalid) {
		switch_to(u, from);
		u->ip = from;
	} else {
		/* lost: what is left counts with no context */
		u->n = 0;
		u->ip = from;
		if (push(u, from))
			return -1;
	}
	return count_branch(u, r);
}

/*
 * The call stack of the NF frames F, leaf first, in U (outermost
 * first): return addresses become their calls; the chain ends at one
 * after no call; frames outside the binary in a row are one, and the
 * outermost such goes. false when nothing is left of it or its leaf is
 * in a prologue: llvm-profgen drops the sample.
 */
static bool call_stack(struct afdo_unwind *u, const uint64_t *f, size_t nf,
		       int *oom)
{
	uint64_t *cs, a;
	size_t n = 0, i;

	*oom = 0;
	u->n = 0;
	if (pc_reserve_u64(&u->cs, &u->ccs, nf + 1)) {
		*oom = 1;
		return false;
	}
	cs = u->cs;
	for (i = 0; i < nf; i++) {
		bool no_mem = false;

		a = code(u, f[i], &no_mem);
		if (no_mem) {
			*oom = 1;
			return false;
		}
		if (a == AFDO_ELSEWHERE) {
			if (!n || cs[n - 1] != AFDO_ELSEWHERE)
				cs[n++] = a;
			continue;
		}
		if (n) {
			a = call_before(u, a, &no_mem);
			if (no_mem) {
				*oom = 1;
				return false;
			}
			if (!a)
				break;
		}
		cs[n++] = a;
	}
	if (n > 1 && cs[n - 1] == AFDO_ELSEWHERE)
		n--;
	if (!n || in_prolog(u->bin, u->dw, cs[0]))
		return false;
	for (i = n; i-- > 0 && !*oom;)
		*oom = push(u, cs[i]);
	return !*oom;
}

int afdo_ctxs_init(struct afdo_ctxs *cs, struct pc_dso *bin, bool native)
{
	memset(cs, 0, sizeof(*cs));
	cs->u = calloc(1, sizeof(*cs->u));
	if (!cs->u)
		return -1;
	cs->u->cs_all = cs;
	cs->u->bin = bin;
	cs->u->native = cs->native = native;
	cs->u->dw = pc_dso_dwarf(bin, NULL, 0);
	return 0;
}

/*
 * The records with neither end in the binary are left out; a sample
 * left with none, or without a call stack, gives nothing.
 */
int afdo_ctxs_sample(struct afdo_ctxs *cs, const uint64_t *f, size_t nf,
		     const uint64_t *in, size_t nr, uint64_t w)
{
	struct afdo_unwind *u = cs->u;
	bool no_mem = false;
	size_t n = 0, i;
	uint64_t *r;
	int oom;

	cs->samples++;
	if (pc_reserve_u64(&u->r, &u->cr, 2 * nr + 2))
		return -1;
	r = u->r;
	for (i = 0; i < nr; i++) {
		r[2 * n] = code(u, in[2 * i], &no_mem);
		r[2 * n + 1] = code(u, in[2 * i + 1], &no_mem);
		if (r[2 * n] != AFDO_ELSEWHERE || r[2 * n + 1] != AFDO_ELSEWHERE)
			n++;
	}
	if (no_mem)
		return -1;
	if (!n || !call_stack(u, f, nf, &oom))
		return n ? -oom : 0;
	u->w = w;
	u->invalid = false;
	/* the leaf is where the youngest record went, not the sampled ip */
	u->st[u->n - 1] = r[1];
	u->ip = r[1];
	cs->unwound++;
	for (i = 0; i < n; i++)
		if (unwind_record(u, r + 2 * i, i))
			return -1;
	return 0;
}

void afdo_ctxs_free(struct afdo_ctxs *cs)
{
	size_t i;

	for (i = 0; i < cs->n; i++) {
		free(cs->v[i].sites);
		afdo_map_free(&cs->v[i].ranges);
		afdo_map_free(&cs->v[i].branches);
	}
	free(cs->v);
	pc_index_free(&cs->ix);
	if (cs->u) {
		free(cs->u->st);
		free(cs->u->key);
		free(cs->u->cs);
		free(cs->u->r);
		free(cs->u->at);
		pc_index_free(&cs->u->at_ix);
		free(cs->u);
	}
	memset(cs, 0, sizeof(*cs));
}

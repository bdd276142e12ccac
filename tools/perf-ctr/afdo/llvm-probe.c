// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: the probe-based LLVM sample profile of a binary
 * built with clang -fpseudo-probe-for-profiling (util/probe.h), as
 * llvm-profgen 19 writes it of branch stacks without call stacks:
 *
 *  - the ranges, and every other instruction of each function a range
 *    starts in at 0, give each instruction a count (afdo_sweep_filled());
 *    each probe at its address adds it up. A probe's count goes to the
 *    instance of its inline context (the emitted function, then the
 *    function inlined at each site down to the probe's): the body count
 *    of (probe index, discriminator), the total of every instance on the
 *    way, and the head count of the instance when it is the function's
 *    first probe (index 1). A probe no instruction ran over is left out;
 *    one a range did not cover counts 0.
 *  - a branch to a function's first byte from an address with a call
 *    probe is a call target at that probe's index.
 *  - only the probes of functions a range starts in or a branch leaves
 *    or enters count: llvm-profgen decodes no others.
 *
 * The probes are where the section says, as llvm-profgen takes them. On
 * RISC-V, LLVM 19 encodes their address deltas before the linker
 * shortens calls (relaxation): a probe after a shortened call lies past
 * its code, inside an instruction (then no instruction runs over it) or
 * in the next function (then that function's instructions count for it).
 */
#include <stdlib.h>
#include <string.h>

#include "dwarf-info.h"
#include "probe.h"
#include "sweep.h"
#include "tree.h"
#include "writers.h"

struct probe_cnt {
	uint64_t n;
	bool hit;			/* an instruction at its address was swept */
};

struct probe_build {
	struct afdo_tree *t;
	const struct pc_probes *pp;
	struct pc_dso *bin;
	struct pc_dwarf *dw;		/* BIN's, or NULL */
	struct probe_cnt *cnt;		/* by probe */
	bool *kept;			/* by node: its emitted function counts */
	struct afdo_names names;	/* callee names made here */
};

static int count_insn(void *ctx, uint64_t addr, uint64_t n, unsigned int len)
{
	struct probe_build *b = ctx;
	const struct pc_probe *pr;
	size_t k, i;

	(void)len;
	pr = pc_probes_at(b->pp, addr, &k);
	for (i = 0; i < k; i++) {
		struct probe_cnt *c = &b->cnt[pr - b->pp->probes + i];

		c->n += n;
		c->hit = true;
	}
	return 0;
}

/*
 * Which nodes count: those of a tree whose function is one of the NF
 * filled (FS: the ones ranges start in, and their pieces) or that a
 * branch leaves or enters. 0, or -1 out of memory.
 */
static int keep_profiled(struct probe_build *b, const struct afdo_counts *c,
			 const struct pc_sym **fs, size_t nf)
{
	struct pc_dso *bin = b->bin;
	bool *touched = calloc(bin->nr_syms + 1, sizeof(*touched));
	size_t i;
	int ret;

	if (!touched)
		return -1;
	for (i = 0; i < nf; i++)
		touched[fs[i] - bin->syms] = true;
	for (i = 0; i <= c->branches.mask; i++) {
		if (!c->branches.t[i].tag)
			continue;
		afdo_touch(bin, c->branches.t[i].a, touched);
		afdo_touch(bin, c->branches.t[i].b, touched);
	}
	ret = afdo_probe_keep(b->pp, bin, touched, b->kept);
	free(touched);
	return ret;
}

/*
 * The instance of inline node NODE: that of its parent's, inlined at its
 * site. A site of index 0 is a call llvm-profgen knows no probe of: the
 * context starts over below it, at a top-level instance.
 */
static struct afdo_inst *node_inst(struct probe_build *b, uint32_t node)
{
	const struct pc_probe_node *nd = &b->pp->nodes[node];
	struct afdo_inst *in;

	if (nd->parent == PC_PROBE_TOP || !nd->site) {
		in = afdo_tree_top(b->t, nd->desc->name, 0);
	} else {
		in = node_inst(b, nd->parent);
		if (in)
			in = afdo_inst_kid(in, nd->site, 0, nd->desc->name, 0);
	}
	if (in)
		in->hash = nd->desc->hash;
	return in;
}

/* Count N of probe PR; its instance's total adds up in afdo_tree_finish(). */
static int add_probe(struct probe_build *b, const struct pc_probe *pr,
		     uint64_t n)
{
	struct afdo_inst *in = node_inst(b, pr->node);
	struct afdo_body *bd = in ? afdo_inst_body(in, pr->index, pr->discr) : NULL;

	if (!bd)
		return -1;
	bd->n += n;
	bd->seen = true;
	in->insn_sum += n;
	if (pr->index == 1)
		in->head += n;
	return 0;
}

static int add_probes(struct probe_build *b)
{
	size_t i;

	for (i = 0; i < b->pp->nprobes; i++) {
		const struct pc_probe *pr = &b->pp->probes[i];

		if (b->cnt[i].hit && b->kept[pr->node] &&
		    add_probe(b, pr, b->cnt[i].n))
			return -1;
	}
	return 0;
}

/* The name of the function whose first byte is TO, as a call target. */
static const char *callee_name(struct probe_build *b, uint64_t to, bool *oom)
{
	return afdo_callee_name(b->bin, b->dw, to, &b->names, oom);
}

/* The first call probe of a counted function at ADDR, or NULL. */
static const struct pc_probe *call_probe(const struct probe_build *b,
					 uint64_t addr)
{
	const struct pc_probe *pr;
	size_t k, i;

	pr = pc_probes_at(b->pp, addr, &k);
	for (i = 0; i < k; i++)
		if (pc_probe_is_call(&pr[i]) && b->kept[pr[i].node])
			return &pr[i];
	return NULL;
}

/*
 * Call targets: each branch into a function's first byte from a call
 * probe's address, at the probe's index (discriminator 0, as
 * llvm-profgen keys it).
 */
static int add_calls(struct probe_build *b, const struct afdo_counts *c)
{
	size_t n, i;
	struct afdo_cnt *v = afdo_map_sorted(&c->branches, &n);
	int rc = 0;

	if (!v)
		return -1;
	for (i = 0; i < n && !rc; i++) {
		const struct pc_probe *pr;
		struct afdo_inst *in;
		struct afdo_body *bd;
		struct afdo_tgt *tg;
		const char *name;
		bool oom;

		name = callee_name(b, v[i].b, &oom);
		pr = name ? call_probe(b, v[i].a) : NULL;
		if (!pr) {
			rc = oom ? -1 : 0;
			continue;
		}
		in = node_inst(b, pr->node);
		bd = in ? afdo_inst_body(in, pr->index, 0) : NULL;
		tg = bd ? afdo_body_tgt(b->t, bd, name) : NULL;
		if (!tg) {
			rc = -1;
			break;
		}
		bd->seen = true;
		tg->n += v[i].n;
	}
	free(v);
	return rc;
}

static int build(struct probe_build *b, const struct afdo_input *in)
{
	const struct pc_sym **fs = NULL;
	size_t nf = 0;
	int rc;

	b->cnt = calloc(b->pp->nprobes + 1, sizeof(*b->cnt));
	b->kept = calloc(b->pp->nnodes + 1, sizeof(*b->kept));
	if (!b->cnt || !b->kept)
		return -1;
	/* DWARF, when there is some, names callees and finds split functions */
	b->dw = pc_dso_dwarf(in->bin, NULL, 0);
	if (afdo_sweep_filled(in->counts, in->bin, b->dw, count_insn, b, &fs, &nf))
		return -1;
	rc = keep_profiled(b, in->counts, fs, nf);
	free(fs);
	if (rc || add_probes(b) || add_calls(b, in->counts))
		return -1;
	return afdo_tree_finish(b->t);
}

int afdo_write_llvm_probe(FILE *f, const struct afdo_input *in,
			  struct afdo_notes *notes)
{
	struct afdo_tree t = { .kind = AFDO_TREE_PROBE };
	struct probe_build b = { .t = &t, .bin = in->bin };
	int rc;

	b.pp = pc_dso_probes(in->bin, notes->err, sizeof(notes->err));
	if (!b.pp)
		return -1;
	notes->probes = true;
	rc = build(&b, in);
	if (rc)
		snprintf(notes->err, sizeof(notes->err), "out of memory");
	else
		afdo_llvm_text_tree(f, &t);
	afdo_tree_free(&t);
	afdo_names_free(&b.names);
	free(b.cnt);
	free(b.kept);
	return rc;
}

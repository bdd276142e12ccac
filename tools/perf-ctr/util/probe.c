// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: the pseudo probe decoder (probe.h), for the encoding of
 * LLVM 19. Nothing in the sections is trusted: a number or a name that
 * runs past the end, a count that does not fit, a function without a
 * description and an inline tree too deep are errors that name the
 * section and the offset.
 *
 * .pseudo_probe_desc, per function: u64 GUID, u64 CFG hash, ULEB128
 * name size, the name.
 *
 * .pseudo_probe, per node of an inline tree: the ULEB128 probe index of
 * its site (not for the root of a tree), u64 GUID, ULEB128 number of
 * probes, ULEB128 number of inlined nodes; its probes; its inlined nodes.
 * A probe: ULEB128 index, a type byte (bits 0-3 the type, 4-6 the
 * attributes, bit 7: the address follows as an SLEB128 delta from the
 * previous probe's, else as a u64), the address, and a ULEB128
 * discriminator when the attributes say so. The first delta of a tree is
 * from its function's start, which only the symbol table knows (by the
 * GUID of the symbol's name). A sentinel probe, at the start of a part
 * of a function split off elsewhere, is no probe: its u64 is the GUID of
 * the part's symbol, whose address the next delta starts from.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf-ctr.h"
#include "dso.h"
#include "md5.h"
#include "probe.h"
#include "search.h"

/* Each level of inlining is a call deeper in the decoder. */
#define PROBE_MAX_DEPTH	256

struct rd {
	const uint8_t *base, *p, *end;
	const char *dso, *scn;
	char *err;
	size_t errlen;
};

static int __attribute__((format(printf, 3, 4)))
rd_fail(struct rd *r, const uint8_t *at, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	n = snprintf(r->err, r->errlen, "%s: %s: offset 0x%zx: ", r->dso,
		     r->scn, (size_t)(at - r->base));
	if (n < r->errlen) {
		va_start(ap, fmt);
		vsnprintf(r->err + n, r->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int rd_u64(struct rd *r, uint64_t *v, const char *what)
{
	int i;

	if (r->end - r->p < 8)
		return rd_fail(r, r->p, "%s runs past the end", what);
	*v = 0;
	for (i = 7; i >= 0; i--)
		*v = *v << 8 | r->p[i];
	r->p += 8;
	return 0;
}

/* An unsigned LEB128 number of at most MAX. */
static int rd_uleb(struct rd *r, uint64_t max, uint64_t *v, const char *what)
{
	const uint8_t *at = r->p;
	unsigned int shift = 0;
	uint8_t b;

	*v = 0;
	do {
		if (r->p == r->end)
			return rd_fail(r, at, "%s runs past the end", what);
		b = *r->p++;
		/* bits beyond the 64th must be 0 */
		if ((shift >= 64 && (b & 0x7f)) || (shift == 63 && (b & 0x7e)))
			return rd_fail(r, at, "%s does not fit in 64 bits", what);
		if (shift < 64)
			*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (*v > max)
		return rd_fail(r, at, "%s %llu is too large", what,
			       (unsigned long long)*v);
	return 0;
}

static int rd_sleb(struct rd *r, int64_t *v, const char *what)
{
	const uint8_t *at = r->p;
	unsigned int shift = 0;
	uint64_t x = 0;
	uint8_t b;

	*v = 0;
	do {
		if (r->p == r->end)
			return rd_fail(r, at, "%s runs past the end", what);
		b = *r->p++;
		if (shift >= 64 && (b & 0x7f) != ((x >> 63) ? 0x7f : 0))
			return rd_fail(r, at, "%s does not fit in 64 bits", what);
		if (shift < 64)
			x |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		x |= ~0ULL << shift;	/* the sign of the last byte */
	*v = (int64_t)x;
	return 0;
}

static int rd_u32(struct rd *r, uint32_t *v, const char *what)
{
	uint64_t x;

	if (rd_uleb(r, UINT32_MAX, &x, what))
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int cmp_desc(const void *x, const void *y)
{
	const struct pc_probe_desc *p = x, *q = y;

	/* names are copied in section order: the first of a GUID wins */
	return pc_cmp_u64(p->guid, q->guid) ?:
	       pc_cmp_u64((uintptr_t)p->name, (uintptr_t)q->name);
}

static int read_descs(struct pc_probes *pp, struct rd *r)
{
	size_t size = r->end - r->base, cap = 0, used = 0;

	/* a description takes 17 bytes at least; each name gets a NUL */
	pp->names = malloc(size + size / 17 + 1);
	if (!pp->names)
		return rd_fail(r, r->p, "out of memory");
	while (r->p < r->end) {
		struct pc_probe_desc *d = pc_grow(pp->descs, &cap, pp->ndescs,
						  sizeof(*d), 64);
		uint64_t guid, hash, len;

		if (!d)
			return rd_fail(r, r->p, "out of memory");
		pp->descs = d;
		if (rd_u64(r, &guid, "GUID") || rd_u64(r, &hash, "CFG hash") ||
		    rd_uleb(r, UINT32_MAX, &len, "name size"))
			return -1;
		if (len > (size_t)(r->end - r->p))
			return rd_fail(r, r->p, "a name of %llu bytes runs past the end",
				       (unsigned long long)len);
		d = &pp->descs[pp->ndescs++];
		d->guid = guid;
		d->hash = hash;
		d->name = pp->names + used;
		memcpy(pp->names + used, r->p, len);
		used += len;
		pp->names[used++] = 0;
		r->p += len;
	}
	if (pp->ndescs)
		qsort(pp->descs, pp->ndescs, sizeof(*pp->descs), cmp_desc);
	return 0;
}

const struct pc_probe_desc *pc_probe_desc(const struct pc_probes *p, uint64_t guid)
{
	size_t i = pc_count_below(p->descs, p->ndescs, sizeof(*p->descs),
				  offsetof(struct pc_probe_desc, guid), guid);

	return i < p->ndescs && p->descs[i].guid == guid ? &p->descs[i] : NULL;
}

/* A function symbol's start, by the GUID of its name. */
struct sym_guid {
	uint64_t guid, addr;
};

static int cmp_sym_guid(const void *x, const void *y)
{
	const struct sym_guid *p = x, *q = y;

	return pc_cmp_u64(p->guid, q->guid);
}

struct decoder {
	struct rd r;
	struct pc_probes *pp;
	size_t cnodes, cprobes;
	struct sym_guid *starts;
	size_t nstarts;
	uint64_t last;			/* the previous probe's address */
	bool addr_based;		/* an old encoding: absolute addresses */
};

static bool start_of(const struct decoder *x, uint64_t guid, uint64_t *addr)
{
	size_t i = pc_count_below(x->starts, x->nstarts, sizeof(*x->starts),
				  offsetof(struct sym_guid, guid), guid);

	if (i == x->nstarts || x->starts[i].guid != guid)
		return false;
	*addr = x->starts[i].addr;
	return true;
}

static int read_probe(struct decoder *x, uint32_t node)
{
	struct rd *r = &x->r;
	struct pc_probe *pr;
	uint32_t index, discr = 0;
	uint64_t addr;
	uint8_t tb, attr;

	if (rd_u32(r, &index, "probe index"))
		return -1;
	if (r->p == r->end)
		return rd_fail(r, r->p, "probe type runs past the end");
	tb = *r->p++;
	attr = (tb >> 4) & 7;
	if (tb & 0x80) {
		int64_t delta;

		if (rd_sleb(r, &delta, "address delta"))
			return -1;
		addr = x->last + (uint64_t)delta;
	} else if (rd_u64(r, &addr, "address")) {
		return -1;
	} else if (attr & PC_PROBE_ATTR_SENTINEL) {
		/* the GUID of the split-off part: where it starts */
		start_of(x, addr, &addr);
	} else {
		x->addr_based = true;
	}
	if ((attr & PC_PROBE_ATTR_DISCR) && rd_u32(r, &discr, "discriminator"))
		return -1;
	x->last = addr;
	if (attr & PC_PROBE_ATTR_SENTINEL)
		return 0;
	pr = pc_grow(x->pp->probes, &x->cprobes, x->pp->nprobes, sizeof(*pr), 256);
	if (!pr)
		return rd_fail(r, r->p, "out of memory");
	x->pp->probes = pr;
	pr = &pr[x->pp->nprobes];
	pr->addr = addr;
	pr->index = index;
	pr->discr = discr;
	pr->node = node;
	pr->seq = (uint32_t)x->pp->nprobes++;
	pr->type = tb & 0xf;
	pr->attr = attr;
	return 0;
}

static int read_node(struct decoder *x, uint32_t parent, unsigned int depth)
{
	struct rd *r = &x->r;
	struct pc_probes *pp = x->pp;
	struct pc_probe_node *n;
	uint32_t site = 0, nprobes, nkids, i, me;
	const uint8_t *at;
	uint64_t guid;

	if (depth > PROBE_MAX_DEPTH)
		return rd_fail(r, r->p, "functions inlined more than %d deep",
			       PROBE_MAX_DEPTH);
	if (parent != PC_PROBE_TOP && rd_u32(r, &site, "inline site"))
		return -1;
	at = r->p;
	if (rd_u64(r, &guid, "GUID"))
		return -1;
	if (pp->nnodes >= UINT32_MAX - 1)
		return rd_fail(r, at, "too many inline tree nodes");
	n = pc_grow(pp->nodes, &x->cnodes, pp->nnodes, sizeof(*n), 64);
	if (!n)
		return rd_fail(r, at, "out of memory");
	pp->nodes = n;
	me = (uint32_t)pp->nnodes++;
	n = &n[me];
	n->guid = guid;
	n->parent = parent;
	n->site = site;
	n->top = parent == PC_PROBE_TOP ? me : pp->nodes[parent].top;
	n->desc = pc_probe_desc(pp, guid);
	if (!n->desc)
		return rd_fail(r, at, "function GUID 0x%016llx has no .pseudo_probe_desc entry",
			       (unsigned long long)guid);
	/* a tree's first delta is from its function's start */
	if (parent == PC_PROBE_TOP && !x->addr_based)
		start_of(x, guid, &x->last);
	if (rd_u32(r, &nprobes, "probe count") ||
	    rd_u32(r, &nkids, "inlinee count"))
		return -1;
	for (i = 0; i < nprobes; i++)
		if (read_probe(x, me))
			return -1;
	for (i = 0; i < nkids; i++)
		if (read_node(x, me, depth + 1))
			return -1;
	return 0;
}

static int cmp_probe(const void *x, const void *y)
{
	const struct pc_probe *p = x, *q = y;

	return pc_cmp_u64(p->addr, q->addr) ?: pc_cmp_u64(p->seq, q->seq);
}

/* The GUIDs of D's function symbols' names, sorted. */
static struct sym_guid *sym_guids(const struct pc_dso *d, size_t *n)
{
	struct sym_guid *v = malloc((d->nr_syms + 1) * sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < d->nr_syms; i++) {
		v[i].guid = pc_md5_guid(d->syms[i].name, strlen(d->syms[i].name));
		v[i].addr = d->syms[i].start;
	}
	qsort(v, d->nr_syms, sizeof(*v), cmp_sym_guid);
	*n = d->nr_syms;
	return v;
}

static int read_probes(struct pc_dso *d, struct pc_probes *pp, const void *data,
		       size_t size, char *err, size_t errlen)
{
	struct decoder x = {
		.r = { data, data, (const uint8_t *)data + size, d->name,
		       ".pseudo_probe", err, errlen },
		.pp = pp,
	};
	int rc = 0;

	x.starts = sym_guids(d, &x.nstarts);
	if (!x.starts)
		return rd_fail(&x.r, x.r.p, "out of memory");
	while (x.r.p < x.r.end && !rc)
		rc = read_node(&x, PC_PROBE_TOP, 0);
	free(x.starts);
	if (!rc && pp->nprobes)
		qsort(pp->probes, pp->nprobes, sizeof(*pp->probes), cmp_probe);
	return rc;
}

static struct pc_probes *probes_load(struct pc_dso *d, char *err, size_t errlen)
{
	const void *desc, *data;
	size_t desc_size, size;
	struct pc_probes *pp;
	struct rd r;

	desc = pc_dso_section(d, ".pseudo_probe_desc", &desc_size);
	data = pc_dso_section(d, ".pseudo_probe", &size);
	if (!desc || !data) {
		snprintf(err, errlen, "%s: no pseudo probes (%s): build it with clang -fpseudo-probe-for-profiling",
			 d->name, desc ? "no .pseudo_probe" : "no .pseudo_probe_desc");
		return NULL;
	}
	pp = calloc(1, sizeof(*pp));
	if (!pp) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r = (struct rd){ desc, desc, (const uint8_t *)desc + desc_size, d->name,
			 ".pseudo_probe_desc", err, errlen };
	if (read_descs(pp, &r) || read_probes(d, pp, data, size, err, errlen)) {
		pc_probes_free(pp);
		return NULL;
	}
	return pp;
}

const struct pc_probes *pc_dso_probes(struct pc_dso *d, char *err, size_t errlen)
{
	char msg[512];

	if (!d->probes_tried) {
		d->probes_tried = true;
		pc_dso_load(d);
		d->probes = probes_load(d, msg, sizeof(msg));
		if (!d->probes)
			d->probes_err = strdup(msg);
	}
	if (!d->probes && err)
		snprintf(err, errlen, "%s", d->probes_err ? d->probes_err : "out of memory");
	return d->probes;
}

void pc_probes_free(struct pc_probes *p)
{
	if (!p)
		return;
	free(p->descs);
	free(p->nodes);
	free(p->probes);
	free(p->names);
	free(p);
}

const struct pc_probe *pc_probes_at(const struct pc_probes *p, uint64_t addr,
				    size_t *n)
{
	size_t lo = pc_count_below(p->probes, p->nprobes, sizeof(*p->probes),
				   offsetof(struct pc_probe, addr), addr);
	size_t hi = lo;

	while (hi < p->nprobes && p->probes[hi].addr == addr)
		hi++;
	*n = hi - lo;
	return *n ? &p->probes[lo] : NULL;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr: the pseudo probes of a binary built with clang
 * -fpseudo-probe-for-profiling (probe.c), decoded once from its DSO.
 *
 * .pseudo_probe_desc names each function that has probes: its GUID (the
 * low 64 bits of the MD5 of its name, md5.h), the hash of its CFG and its
 * name. .pseudo_probe holds a forest of inline trees, one per function
 * as emitted: a node is a function, inlined into its parent at the probe
 * of the parent's it replaced (its site); its probes are numbered blocks
 * and calls of that function's source, each at an address of the code
 * it became. A count at an address is a count of every probe there, in
 * the context of its node's chain of sites up to the emitted function.
 */
#ifndef PERF_CTR_PROBE_H
#define PERF_CTR_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pc_dso;

enum pc_probe_type {
	PC_PROBE_BLOCK = 0,
	PC_PROBE_INDIRECT_CALL = 1,
	PC_PROBE_DIRECT_CALL = 2,
};

/* Attributes of a probe, in the section's bits 4-6 of its type byte. */
#define PC_PROBE_ATTR_RESERVED	1
#define PC_PROBE_ATTR_SENTINEL	2	/* marks where a split-off part starts */
#define PC_PROBE_ATTR_DISCR	4	/* a discriminator follows */

/* No parent: a node of the emitted function itself. */
#define PC_PROBE_TOP		UINT32_MAX

struct pc_probe_desc {
	uint64_t guid, hash;
	const char *name;		/* NUL-terminated copy */
};

struct pc_probe_node {
	uint64_t guid;
	uint32_t parent;		/* index of its node, or PC_PROBE_TOP */
	uint32_t site;			/* probe index in the parent it was inlined at */
	uint32_t top;			/* the node of the emitted function */
	const struct pc_probe_desc *desc;
};

struct pc_probe {
	uint64_t addr;
	uint32_t index, discr;
	uint32_t node;			/* index of its node */
	uint32_t seq;			/* place in the section: keeps its order */
	uint8_t type, attr;
};

struct pc_probes {
	struct pc_probe_desc *descs;	/* by GUID */
	size_t ndescs;
	struct pc_probe_node *nodes;	/* in section order, parents first */
	size_t nnodes;
	struct pc_probe *probes;	/* by address, then section order */
	size_t nprobes;
	char *names;			/* what the descs' names point into */
};

/*
 * D's probes, decoded at the first call: NULL, with ERR filled in, when
 * it has none (no .pseudo_probe or .pseudo_probe_desc) or they are
 * malformed (the section and the offset in it named).
 */
const struct pc_probes *pc_dso_probes(struct pc_dso *d, char *err, size_t errlen);
void pc_probes_free(struct pc_probes *p);

/* The function of GUID, or NULL. */
const struct pc_probe_desc *pc_probe_desc(const struct pc_probes *p, uint64_t guid);
/* The first of the probes at ADDR, *N of them (0: none). */
const struct pc_probe *pc_probes_at(const struct pc_probes *p, uint64_t addr,
				    size_t *n);

/*
 * The probe index clang packs into a DWARF discriminator D (the 0x7 of a
 * probe's, its index from bit 3; 13 bits of it when bit 28 says a base
 * discriminator shares them), as LLVM's extractProbeIndex() reads it.
 */
static inline uint32_t pc_probe_discr_index(uint32_t d)
{
	return d & 0x10000000 ? (d >> 3) & 0x1fff : (d >> 3) & 0xffff;
}

static inline bool pc_probe_is_call(const struct pc_probe *pr)
{
	return pr->type == PC_PROBE_INDIRECT_CALL ||
	       pr->type == PC_PROBE_DIRECT_CALL;
}

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: what the probe-based writers (llvm-probe.c,
 * llvm-cs.c) share: the names llvm-profgen gives call targets, and which
 * functions' probes it decodes.
 */
#include <stdlib.h>
#include <string.h>

#include "dwarf-info.h"
#include "md5.h"
#include "probe.h"
#include "tree.h"

/* Where LEN bytes at S last occur in the first N of NAME, or NULL. */
static const char *last_of(const char *name, size_t n, const char *s, size_t len)
{
	size_t i;

	for (i = n >= len ? n - len + 1 : 0; i-- > 0;)
		if (!memcmp(name + i, s, len))
			return name + i;
	return NULL;
}

/*
 * The length of llvm-profgen's name of a callee: without the suffix
 * .llvm.N (of ThinLTO's promoted locals), then .part.N, when it is the
 * last '.' of the name; .__uniq.N stays, as it is the function's.
 */
static size_t canonical_len(const char *name)
{
	static const char *const sfx[] = { ".llvm.", ".part." };
	size_t n = strlen(name), i;

	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		size_t sl = strlen(sfx[i]);
		const char *at = last_of(name, n, sfx[i], sl);

		if (at && memrchr(name, '.', n) == at + sl - 1)
			n = at - name;
	}
	return n;
}

/*
 * The name of the function whose first byte is TO, as a call target; NULL
 * when TO is none (*OOM: out of memory). llvm-profgen knows functions by
 * their DWARF (a function without, as crt1.o's _start, is no target) and
 * names them so; without DWARF, the symbol's name is all there is.
 */
const char *afdo_callee_name(struct pc_dso *bin, struct pc_dwarf *dw,
			     uint64_t to, struct afdo_names *nm, bool *oom)
{
	const struct pc_sym *s = pc_dso_sym(bin, to);
	struct pc_frame f[PC_MAX_FRAMES];
	const char *full;
	char **v, *name;
	size_t n;

	*oom = false;
	if (!s || s->start != to)
		return NULL;
	full = s->name;
	if (dw) {
		if (pc_dwarf_frames(dw, to, f, PC_MAX_FRAMES) <= 0)
			return NULL;
		full = f[0].name;
	}
	n = canonical_len(full);
	if (!full[n])
		return full;
	v = pc_grow(nm->v, &nm->cap, nm->n, sizeof(*v), 16);
	name = v ? strndup(full, n) : NULL;
	if (v)
		nm->v = v;
	if (!name) {
		*oom = true;
		return NULL;
	}
	nm->v[nm->n++] = name;
	return name;
}

void afdo_names_free(struct afdo_names *nm)
{
	size_t i;

	for (i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
	memset(nm, 0, sizeof(*nm));
}

void afdo_touch(struct pc_dso *bin, uint64_t addr, bool *touched)
{
	const struct pc_sym *s = addr == AFDO_ELSEWHERE ? NULL : pc_dso_sym(bin, addr);

	if (s)
		touched[s - bin->syms] = true;
}

static int cmp_guid(const void *x, const void *y)
{
	return pc_cmp_u64(*(const uint64_t *)x, *(const uint64_t *)y);
}

int afdo_probe_keep(const struct pc_probes *pp, const struct pc_dso *bin,
		    const bool *touched, bool *kept)
{
	uint64_t *g = malloc((bin->nr_syms + 1) * sizeof(*g));
	size_t n = 0, i;

	if (!g)
		return -1;
	/* the GUID of each touched function's name, once */
	for (i = 0; i < bin->nr_syms; i++)
		if (touched[i])
			g[n++] = pc_md5_guid(bin->syms[i].name, strlen(bin->syms[i].name));
	qsort(g, n, sizeof(*g), cmp_guid);
	for (i = 0; i < pp->nnodes; i++)
		kept[i] = bsearch(&pp->nodes[pp->nodes[i].top].guid, g, n,
				  sizeof(*g), cmp_guid);
	free(g);
	return 0;
}

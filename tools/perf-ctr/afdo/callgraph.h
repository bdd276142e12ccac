/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr aggregate: the order in which llvm-profgen 19's pre-inliner
 * (preinline.c) takes functions, callers first, from the call graph of a
 * profile's contexts (callgraph.c).
 */
#ifndef PERF_CTR_AFDO_CALLGRAPH_H
#define PERF_CTR_AFDO_CALLGRAPH_H

#include <stddef.h>
#include <stdint.h>

struct afdo_cg;

/* A graph of N functions, NAMES[i] function i's (kept, not copied). */
struct afdo_cg *afdo_cg_new(const char *const *names, size_t n);
void afdo_cg_free(struct afdo_cg *g);
/* Function F is in the graph, called or not. */
void afdo_cg_add_node(struct afdo_cg *g, uint32_t f);
/* A call from FROM to TO of weight W (added to the calls before). 0, or -1. */
int afdo_cg_add_call(struct afdo_cg *g, uint32_t from, uint32_t to, uint64_t w);
/*
 * The functions of G, callers first, into ORDER (room for N), *NORDER
 * of them, calls of weight COLD or less left out (none when COLD is 0).
 * 0, or -1 when out of memory.
 */
int afdo_cg_top_down(struct afdo_cg *g, uint64_t cold, uint32_t *order,
		     size_t *norder);

#endif

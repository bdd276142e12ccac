/* SPDX-License-Identifier: GPL-2.0 */
/* perf-ctr: address spaces and ELF symbols (symbols.c). */
#ifndef PERF_CTR_SYMBOLS_H
#define PERF_CTR_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

#include "perf-ctr.h"

#define PC_MAX_LOADS 16

struct pc_sym {
	uint64_t start, end;	/* link-time addresses */
	char *name;
	int global;
};

struct pc_dso {
	struct pc_dso *next;
	bool loaded, et_dyn;
	int fd;
	unsigned int machine;
	void *elf;		/* Elf * */
	struct { uint64_t vaddr, offset, size; } loads[PC_MAX_LOADS];
	int nr_loads;
	struct pc_sym *syms;
	size_t nr_syms;
	uint8_t build_id[20], build_id_size;
	void *dw;		/* report's DWARF state, freed by cleanup */
	void (*cleanup)(struct pc_dso *d);
	char name[];
};

struct pc_map {
	uint32_t pid;
	uint64_t start, end, pgoff;
	size_t seq;
	struct pc_dso *dso;
};

struct pc_maps {
	struct pc_map *maps;
	size_t nr, cap;
	bool sorted;
	struct pc_dso *dsos;
};

/* Where an address lands: its map, and its link-time address in the file. */
struct pc_loc {
	const struct pc_map *map;
	struct pc_dso *dso;
	uint64_t vaddr;
	const struct pc_sym *sym;
};

int pc_maps_add(struct pc_maps *ms, const struct pc_mmap *m);
const struct pc_map *pc_maps_find(struct pc_maps *ms, uint32_t pid, uint64_t addr);
uint64_t pc_map_to_dso(const struct pc_map *m, uint64_t addr);
const struct pc_sym *pc_dso_sym(struct pc_dso *d, uint64_t vaddr);
bool pc_resolve(struct pc_maps *ms, uint32_t pid, uint64_t addr,
		struct pc_loc *loc);
void pc_maps_free(struct pc_maps *ms);
/* The GNU build-id of an ELF (an Elf *) into @id; its size, 0 if none. */
uint8_t pc_elf_build_id(void *elf, uint8_t id[20]);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* perf-ctr: the files of a recording and their ELF symbols (symbols.c). */
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
	bool as_is;		/* name is a host path, not under --symfs */
	char *dbg_path;		/* of dbg_elf */
	int fd;
	unsigned int machine;
	void *elf;		/* Elf * */
	struct { uint64_t vaddr, offset, size; } loads[PC_MAX_LOADS];
	int nr_loads;
	struct pc_sym *syms;
	size_t nr_syms;
	uint8_t build_id[20], build_id_size;
	void *dbg_elf;		/* Elf * of its separate debug file, or NULL */
	int dbg_fd;
	void *dw;		/* its DWARF (dwarf.c), freed by cleanup */
	void (*cleanup)(struct pc_dso *d);
	int mark;		/* for the command's own use */
	char name[];
};

struct pc_dso *pc_dso_new(const char *name);
/*
 * A DSO for the file at PATH as it is (not under --symfs), loaded: its
 * DWARF and full symbols from DEBUG when given, else from itself, else
 * from its separate debug file. NULL, or no ->elf when it is no ELF.
 */
struct pc_dso *pc_dso_open(const char *path, const char *debug);
/* Open D's file (under --symfs) and read its symbols, once. */
void pc_dso_load(struct pc_dso *d);
void pc_dso_free(struct pc_dso *d);
/* The link-time address of file offset OFF (OFF when no segment holds it). */
uint64_t pc_dso_vaddr(struct pc_dso *d, uint64_t off);
const struct pc_sym *pc_dso_sym(struct pc_dso *d, uint64_t vaddr);
/* Does the ELF (an Elf *) hold DWARF? */
bool pc_elf_has_debug(void *elf);
/*
 * The separate debug file of the ELF (an Elf *) at PATH, into OUT: in
 * SYMFS/usr/lib/debug/.build-id/, then where its .gnu_debuglink says
 * (beside it, in .debug/ beside it, under SYMFS/usr/lib/debug/). 0 if
 * found, -1 if not.
 */
int pc_find_debug(void *elf, const char *path, const char *symfs, char *out,
		  size_t outlen);
/* The GNU build-id of an ELF (an Elf *) into @id; its size, 0 if none. */
uint8_t pc_elf_build_id(void *elf, uint8_t id[20]);

#endif

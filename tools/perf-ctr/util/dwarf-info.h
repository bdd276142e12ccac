/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr: DWARF (dwarf.c, libdw), one layer for every command: inline
 * stacks with their lines and discriminators (aggregate's profiles), the
 * source lines of an instruction, and the file:line and inlined frames
 * report shows (through the DSO that owns it, dso.c).
 */
#ifndef PERF_CTR_DWARF_INFO_H
#define PERF_CTR_DWARF_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


struct pc_frame {
	const char *name;		/* linkage name, else name */
	const char *decl_file;		/* of the function of this frame, or NULL */
	int decl_line;			/* of the function of this frame */
	int line;			/* in this frame: call site or the line */
	unsigned int discr;
};

#define PC_MAX_FRAMES 64

struct pc_dwarf;
/*
 * The DWARF of ELF (an Elf *: a binary, or its separate debug file; PATH
 * names it in ERR), or NULL with ERR filled in.
 */
struct pc_dwarf *pc_dwarf_open(void *elf, const char *path, char *err,
			       size_t errlen);
void pc_dwarf_close(struct pc_dwarf *s);
/*
 * Inline stack of ADDR, outermost function first. Returns the number of
 * frames (0 when nothing is known). Names live as long as S.
 */
int pc_dwarf_frames(struct pc_dwarf *s, uint64_t addr, struct pc_frame *f,
		    int max);
/* The source file and line of the instruction at ADDR; false if unknown. */
bool pc_dwarf_line(struct pc_dwarf *s, uint64_t addr, const char **file,
		   int *line);
/*
 * Every source line of the instruction at ADDR: each line whose row
 * starts there (an -O2 line table gives several lines one address), else
 * the line in effect. Returns how many (at most MAX).
 */
int pc_dwarf_lines(struct pc_dwarf *s, uint64_t addr, const char **files,
		   int *lines, int max);
/* Major version of the GCC that built the binary (DW_AT_producer), or 0. */
int pc_dwarf_gcc_major(struct pc_dwarf *s);
/*
 * How many compile units had a line table libdw could not read (each
 * counted once, at the first address looked up in it), and the first
 * one's name and libdw's reason.
 */
size_t pc_dwarf_bad_lines(const struct pc_dwarf *s, const char **cu,
			  const char **why);


#endif

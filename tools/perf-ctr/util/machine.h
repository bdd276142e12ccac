/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr: the address spaces of a recording (machine.c).
 *
 * One model for every command: the processes of the recording, each with
 * the history of its executable mappings and of its threads' names
 * (comm), built from the side-band records
 * (MMAP, MMAP2, COMM, FORK, EXIT) handled in time order. A sample's
 * address is looked up in its own process's mappings as they were at the
 * sample's time; kernel addresses in the kernel's (pid -1).
 */
#ifndef PERF_CTR_MACHINE_H
#define PERF_CTR_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "perf-ctr.h"
#include "dso.h"
#include "hash.h"

/* The kernel's maps (perf's HOST_KERNEL_ID). */
#define PC_PID_KERNEL	((uint32_t)-1)
/* For samples without PERF_SAMPLE_TID: any process's maps will do. */
#define PC_PID_ANY	((uint32_t)-2)
/* For samples without PERF_SAMPLE_TIME: the maps at the end. */
#define PC_TIME_END	(UINT64_MAX - 1)

/* One mapping, in use for samples with t_begin <= time < t_end. */
struct pc_map {
	uint32_t pid;
	uint64_t start, end, pgoff;
	uint64_t t_begin, t_end;
	struct pc_dso *dso;
};

struct pc_proc;
struct pc_strings;

/*
 * A region of a process's addresses and times that one lookup answers
 * for all: every address of [LO, HI) at every time of [T_LO, T_HI) is
 * in MAP (NULL: in none), while the machine's GEN stays what it was.
 */
struct pc_region {
	uint64_t lo, hi, t_lo, t_hi, gen;
	uint32_t pid;
	const struct pc_map *map;
};

/* A build id of the header's HEADER_BUILD_ID feature. */
struct pc_fbid {
	struct pc_fbid *next;
	uint8_t id[20], size;
	char name[];
};

struct pc_machine {
	struct pc_proc *procs;
	size_t nr_procs, cap_procs;
	struct pc_index pids;		/* of procs */
	struct pc_dso *dsos;
	/* side-band records not applied yet, and the time applied up to */
	struct pc_sb *sb;
	size_t nr_sb, cap_sb;
	uint64_t sb_seq, applied;
	bool sorted;
	struct pc_fbid *fbids;
	struct pc_region hit, miss;	/* of the last lookups that found one, none */
	uint64_t gen;			/* side-band records applied */
	struct pc_strings *strings;	/* the threads' names */
	const char *last_string;
	uint64_t nr_mmaps, nr_forks, nr_execs;	/* records read so far */
};

/*
 * Where an address lands: its map, the file offset there, and the
 * link-time address of that offset in the file (pc_dso_vaddr(); the
 * offset itself when no segment of a file known here holds it).
 */
struct pc_loc {
	const struct pc_map *map;
	struct pc_dso *dso;
	uint64_t off, vaddr;
	bool in_image;		/* a segment of the file holds it */
	const struct pc_sym *sym;
};

void pc_machine_init(struct pc_machine *mc);
void pc_machine_free(struct pc_machine *mc);

/*
 * Side-band records, in any order; they take effect at pc_machine_flush()
 * up to a time, or pc_machine_finish().
 */
int pc_machine_mmap(struct pc_machine *mc, const struct pc_mmap *m);
int pc_machine_comm(struct pc_machine *mc, const struct pc_comm *c);
int pc_machine_task(struct pc_machine *mc, const struct pc_task *t);
/* HEADER_BUILD_ID: the build id of the file that is mapped as B->filename. */
int pc_machine_build_id(struct pc_machine *mc, const struct pc_mmap *b);
int pc_machine_flush(struct pc_machine *mc, uint64_t upto);
int pc_machine_finish(struct pc_machine *mc);

/* How many mappings (by any process, at any time) DSO had. */
size_t pc_machine_count_maps(const struct pc_machine *mc,
			     const struct pc_dso *dso);

/* The mapping of ADDR in process PID at TIME, or NULL. */
const struct pc_map *pc_machine_find(struct pc_machine *mc, uint32_t pid,
				     uint64_t time, uint64_t addr);
/* The same, and in *R the region around it that has the same answer. */
const struct pc_map *pc_machine_region(struct pc_machine *mc, uint32_t pid,
				       uint64_t time, uint64_t addr,
				       struct pc_region *r);

/* Does R answer for ADDR of PID at TIME? */
static inline bool pc_region_has(const struct pc_region *r,
				 const struct pc_machine *mc, uint32_t pid,
				 uint64_t time, uint64_t addr)
{
	return r->gen == mc->gen && r->pid == pid &&
	       addr - r->lo < r->hi - r->lo && time - r->t_lo < r->t_hi - r->t_lo;
}
/*
 * The name (comm) of thread TID of process PID at TIME, or NULL when the
 * recording never named the process.
 */
const char *pc_machine_comm_at(struct pc_machine *mc, uint32_t pid,
			       uint32_t tid, uint64_t time);
/*
 * The resolver every command uses: ADDR of process PID at TIME to its
 * map and the file offset there (pc_resolve_map()), then to the
 * link-time address and symbol of that offset in the file the map names
 * (pc_resolve()). False when no mapping holds it. A command that knows
 * the file itself (aggregate's --binary) relocates the offset with
 * pc_dso_vaddr() of that file.
 */
bool pc_resolve_map(struct pc_machine *mc, uint32_t pid, uint64_t time,
		    uint64_t addr, struct pc_loc *loc);
bool pc_resolve(struct pc_machine *mc, uint32_t pid, uint64_t time,
		uint64_t addr, struct pc_loc *loc);

/* The pid and time to look a sample's addresses up with. */
uint32_t pc_sample_pid(const struct pc_sample *s);
uint64_t pc_sample_time(const struct pc_sample *s);

/*
 * Read FILE: a first pass builds MC from the side-band records, a second
 * hands the samples (and H's other records) to H. H's mmap, comm and task
 * handlers, if any, see the records in file order in the second pass.
 */
int pc_machine_read(struct pc_machine *mc, const char *file,
		    const struct pc_handlers *h, void *ctx,
		    struct pc_error *err);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr synth: a synthetic but plausible perf.data, for tests and
 * benchmarks of the readers.
 *
 * Branch records come from a walk over "branch sites". With a RISC-V
 * --binary, the sites are the real branch and jump instructions of its
 * functions and direct targets are the encoded ones, so fall-through
 * ranges between records are real instruction sequences. With any other
 * binary, sites are made-up addresses inside its functions; without one,
 * inside a made-up text segment. Records are always consistent: each
 * record's target lies at or before the source of the next younger one,
 * in the same mapping, so `check` finds nothing wrong with them.
 *
 * With --walk the transfers are not random but those of a run of the
 * binary that a test knows, each sample the last records of the run so
 * far, as a branch buffer holds them.
 */
#include <errno.h>
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf-ctr.h"
#include "builtin.h"
#include "options.h"
#include "dso.h"
#include "search.h"
#include "machine.h"

#ifndef PERF_SAMPLE_BRANCH_HW_INDEX
#define PERF_SAMPLE_BRANCH_HW_INDEX	(1U << 17)
#endif

struct site {
	uint64_t pc;		/* link-time address */
	uint64_t target;	/* direct target, 0 if indirect */
	uint8_t len;		/* 2 or 4 */
	uint8_t kind;		/* enum pc_rv_kind */
};

struct func {
	uint64_t start, end;
};

struct synth {
	struct site *sites;
	size_t nr_sites, cap_sites;
	struct func *funcs;
	size_t nr_funcs, cap_funcs;
	size_t *calls;		/* indexes of call sites, for returns */
	size_t nr_calls;
	uint64_t text_start, text_end;	/* link-time */
	uint64_t map_start, map_len, pgoff, bias;
	uint8_t build_id[20], build_id_size;
	char filename[PATH_MAX];
	uint64_t rng;
	/*
	 * --callchain: the return addresses of the calls the walk is in,
	 * innermost last; a return goes back to the last one. At most
	 * SYNTH_MAX_STACK: a deeper call forgets the outermost, as a
	 * frame-pointer unwinder stops at its limit.
	 */
	bool stacked;
	uint64_t stack[64];
	size_t depth;
};

#define SYNTH_MAX_STACK	(sizeof(((struct synth *)0)->stack) / sizeof(uint64_t))

static uint64_t rnd(struct synth *s)
{
	/* xorshift64*: fast, and the same stream for the same --seed. */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545f4914f6cdd1dULL;
}

static int add_site(struct synth *s, uint64_t pc, uint64_t target, int len,
		    enum pc_rv_kind k)
{
	struct site *v = pc_grow(s->sites, &s->cap_sites, s->nr_sites,
				 sizeof(*v), 1024);

	if (!v)
		return -1;
	s->sites = v;
	v[s->nr_sites++] = (struct site){ pc, target, len, k };
	return 0;
}

static int add_func(struct synth *s, uint64_t start, uint64_t end)
{
	struct func *v = pc_grow(s->funcs, &s->cap_funcs, s->nr_funcs,
				 sizeof(*v), 256);

	if (!v)
		return -1;
	s->funcs = v;
	v[s->nr_funcs++] = (struct func){ start, end };
	return 0;
}

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sites for a non-RISC-V binary or none: a few per function, made up. */
static int fake_sites(struct synth *s)
{
	size_t f;

	for (f = 0; f < s->nr_funcs; f++) {
		uint64_t a = s->funcs[f].start, e = s->funcs[f].end;

		while (a + 8 < e) {
			enum pc_rv_kind k = rnd(s) % 8 < 5 ? PC_RV_COND :
					    rnd(s) % 3 ? PC_RV_CALL : PC_RV_RET;
			uint64_t t = 0;

			a += 4 + (rnd(s) % 24) * 2;
			if (a + 4 > e)
				break;
			if (k == PC_RV_COND)
				t = s->funcs[f].start + (rnd(s) % ((e - s->funcs[f].start) / 2)) * 2;
			else if (k == PC_RV_CALL)
				t = s->funcs[rnd(s) % s->nr_funcs].start;
			if (add_site(s, a, t, 4, k))
				return -1;
		}
	}
	return 0;
}

/*
 * The target of IN at PC, a jalr through the register the auipc PREV
 * at PC - 4 just set (a call or tail call too far for jal, as linked
 * without relaxation); 0 when it is not one.
 */
static uint64_t auipc_target(const struct pc_rv_insn *prev,
			     const struct pc_rv_insn *in, uint64_t pc)
{
	uint32_t a = prev->bits, j = in->bits;

	if (prev->len != 4 || in->len != 4 || (a & 0x7f) != 0x17 ||
	    (j & 0x707f) != 0x67 || ((a >> 7) & 31) != ((j >> 15) & 31))
		return 0;
	return pc - 4 + (int64_t)(int32_t)(a & 0xfffff000) +
	       ((int64_t)(int32_t)j >> 20);
}

/*
 * The branch sites of a RISC-V binary: every branch and jump of its
 * functions, decoded from its executable sections. With --callchain,
 * an auipc+jalr pair goes where it says, as a call must for calls and
 * returns to pair up.
 */
static int riscv_sites(struct synth *s, const struct pc_dso *d)
{
	size_t i;

	for (i = 0; i < s->nr_funcs; i++) {
		uint64_t pc = s->funcs[i].start, to;
		struct pc_rv_insn in, prev = { 0 };

		while (pc < s->funcs[i].end && pc_dso_insn(d, pc, &in)) {
			to = in.direct ? pc + in.offset : 0;
			if (!to && s->stacked)
				to = auipc_target(&prev, &in, pc);
			if (in.kind != PC_RV_OTHER &&
			    add_site(s, pc, to, in.len, in.kind))
				return -1;
			prev = in;
			pc += in.len;
		}
	}
	return 0;
}

/* KERNEL: PATH is a vmlinux, running KASLR bytes above its link time. */
static int load_binary(struct synth *s, const char *path, bool kernel,
		       uint64_t kaslr)
{
	const struct pc_seg *x = NULL;
	struct pc_dso *d;
	unsigned int i;
	size_t k;
	int ret = -1;

	if (!realpath(path, s->filename)) {
		fprintf(stderr, "perf-ctr synth: %s: %s\n", path, strerror(errno));
		return -1;
	}
	d = pc_dso_open(path, NULL);
	if (!d || !d->elf) {
		fprintf(stderr, "perf-ctr synth: %s: not an ELF file\n", path);
		goto out;
	}
	for (i = 0; i < d->nr_segs && !x; i++)
		if (d->segs[i].flags & PF_X)
			x = &d->segs[i];
	if (!x) {
		fprintf(stderr, "perf-ctr synth: %s: no executable segment\n", path);
		goto out;
	}
	/* perf maps the page-aligned executable segment. */
	s->bias = d->et_dyn ? 0x555555554000ULL : 0;
	s->text_start = x->vaddr;
	s->text_end = x->vaddr + x->filesz;
	s->map_start = s->bias + (x->vaddr & ~0xfffULL);
	s->map_len = ((x->vaddr + x->memsz + 0xfff) & ~0xfffULL) -
		     (x->vaddr & ~0xfffULL);
	s->pgoff = x->offset & ~0xfffULL;
	if (kernel) {
		if (!pc_dso_is_kernel(d)) {
			fprintf(stderr, "perf-ctr synth: %s: not a Linux kernel image (no linux_banner and _text)\n",
				path);
			goto out;
		}
		/* perf's kernel map: from _text as it runs, its pgoff too */
		s->bias = kaslr;
		s->map_start = d->ktext + kaslr;
		s->map_len = s->text_end - d->ktext;
		s->pgoff = d->ktext + kaslr;
		strcpy(s->filename, "[kernel.kallsyms]_text");
	}
	s->build_id_size = d->elf_build_id_size;
	memcpy(s->build_id, d->elf_build_id, sizeof(s->build_id));
	/* The functions of its symbol table that lie in that segment. */
	for (k = 0; k < d->nr_syms; k++) {
		const struct pc_sym *f = &d->syms[k];

		if (f->func && f->sized && f->start >= s->text_start &&
		    f->end <= s->text_end && add_func(s, f->start, f->end))
			goto out;
	}
	if (!s->nr_funcs)
		add_func(s, s->text_start, s->text_end);
	qsort(s->funcs, s->nr_funcs, sizeof(*s->funcs), cmp_func);
	ret = d->machine == EM_RISCV ? riscv_sites(s, d) : fake_sites(s);
out:
	if (d)
		pc_dso_free(d);
	return ret;
}

static void fake_binary(struct synth *s)
{
	uint64_t a = 0x10000;
	int i;

	strcpy(s->filename, "/synthetic/perf-ctr-synth");
	s->text_start = a;
	for (i = 0; i < 200; i++) {
		uint64_t len = 64 + (rnd(s) % 64) * 8;

		add_func(s, a, a + len);
		a += len;
	}
	s->text_end = a;
	s->map_start = s->text_start & ~0xfffULL;
	s->map_len = ((a + 0xfff) & ~0xfffULL) - s->map_start;
	s->pgoff = 0;
	fake_sites(s);
}

/* The function holding ADDR, or NULL. */
static const struct func *func_at(const struct synth *s, uint64_t addr)
{
	size_t n = pc_count_upto(s->funcs, s->nr_funcs, sizeof(*s->funcs),
				 offsetof(struct func, start), addr);

	return n && addr < s->funcs[n - 1].end ? &s->funcs[n - 1] : NULL;
}

/* The first site at or after PC inside the function holding PC. */
static const struct site *next_site(const struct synth *s, uint64_t pc)
{
	const struct func *f = func_at(s, pc);
	size_t i = pc_count_below(s->sites, s->nr_sites, sizeof(*s->sites),
				  offsetof(struct site, pc), pc);

	if (i < s->nr_sites && s->sites[i].pc < (f ? f->end : 0))
		return &s->sites[i];
	return NULL;
}

/* The start of the function holding ADDR, or ADDR itself. */
static uint64_t next_func_start(const struct synth *s, uint64_t addr)
{
	const struct func *f = func_at(s, addr);

	return f ? f->start : addr;
}

/* The CTR transfer type of each kind of branch site. */
static const uint8_t kind_ctr_type[] = {
	[PC_RV_COND] = 5, [PC_RV_JUMP] = 11, [PC_RV_CALL] = 9,
	[PC_RV_IND_CALL] = 8, [PC_RV_RET] = 13, [PC_RV_IND_JUMP] = 10,
	[PC_RV_CO_SWAP] = 12, [PC_RV_IND_LINK] = 14, [PC_RV_DIR_LINK] = 15,
};

/*
 * A target for a taken transfer at SITE. It must have a site after it in
 * its function, or the walk would have to jump without a record, which
 * would break the chain of ranges.
 */
static uint64_t pick_target(struct synth *s, const struct site *site)
{
	uint64_t to = site->target;
	int tries;

	for (tries = 0; tries < 64; tries++) {
		if (site->kind == PC_RV_RET && s->nr_calls) {
			const struct site *c = &s->sites[s->calls[rnd(s) % s->nr_calls]];

			to = c->pc + c->len;
		} else if (tries || !to || to < s->text_start || to >= s->text_end) {
			to = s->sites[rnd(s) % s->nr_sites].pc;
			/* Some function start before it, or the site itself. */
			if (rnd(s) % 2)
				to = next_func_start(s, to);
		}
		if (next_site(s, to))
			return to;
	}
	return s->sites[rnd(s) % s->nr_sites].pc;
}

/* --callchain: a call at SITE opens a frame that returns after it. */
static void push_return(struct synth *s, const struct site *site)
{
	if (s->depth == SYNTH_MAX_STACK) {
		memmove(s->stack, s->stack + 1, (s->depth - 1) * sizeof(*s->stack));
		s->depth--;
	}
	s->stack[s->depth++] = site->pc + site->len;
}

/*
 * --callchain: where a return goes, the innermost open call's return
 * address; 0 when no call is open (the walk began inside the function)
 * or the code after the call has no site to walk on to (a call that
 * does not return): then a made-up caller, as without --callchain, and
 * no frames are known any more.
 */
static uint64_t pop_return(struct synth *s)
{
	uint64_t to;

	if (!s->depth)
		return 0;
	to = s->stack[--s->depth];
	if (next_site(s, to))
		return to;
	s->depth = 0;
	return 0;
}

/* The record of a taken transfer at SITE to TO (link-time). */
static void fill_record(const struct synth *s, const struct site *site,
			uint64_t to, bool mispred, unsigned int cycles,
			struct perf_branch_entry *e)
{
	unsigned int type, new_type;

	memset(e, 0, sizeof(*e));
	e->from = site->pc + s->bias;
	e->to = to + s->bias;
	e->mispred = mispred;
	e->predicted = !mispred;
	e->cycles = cycles;
	pc_ctr_type_to_perf(kind_ctr_type[site->kind], &type, &new_type);
	e->type = type;
	e->new_type = new_type;
	e->priv = PERF_BR_PRIV_USER;
}

/* One taken transfer from the walker's position; moves the walker. */
static void step(struct synth *s, uint64_t *pc, struct perf_branch_entry *e)
{
	const struct site *site;
	bool mispred;
	uint64_t to;

	site = next_site(s, *pc);
	if (!site)	/* only the very first position can be off the sites */
		site = &s->sites[0];
	/* Not-taken branches are not recorded: walk past them. */
	while (site->kind == PC_RV_COND && rnd(s) % 8 < 3) {
		const struct site *n = next_site(s, site->pc + site->len);

		if (!n)
			break;
		site = n;
	}
	to = 0;
	if (s->stacked && site->kind == PC_RV_RET)
		to = pop_return(s);
	if (!to)
		to = pick_target(s, site);
	if (s->stacked && (site->kind == PC_RV_CALL || site->kind == PC_RV_IND_CALL))
		push_return(s, site);
	mispred = rnd(s) % 20 == 0;
	fill_record(s, site, to, mispred, 1 + rnd(s) % 40, e);
	*pc = to;
}

/*
 * --walk: the taken transfers of a run of the binary, oldest first, each
 * a branch site and where it went, as a test knows its program runs.
 */
struct walk_step {
	size_t site;		/* in synth's sites */
	uint64_t to;		/* link-time */
};

struct walk {
	struct walk_step *v;
	size_t n, cap;
	size_t at;		/* the next one to take */
};

/*
 * --walk: the call stack after the transfer at ST, a call opening a
 * frame and a return closing one; the return address a return closed,
 * else 0.
 */
static uint64_t follow_calls(struct synth *s, const struct site *st)
{
	if (st->kind == PC_RV_CALL || st->kind == PC_RV_IND_CALL)
		push_return(s, st);
	else if (st->kind == PC_RV_RET && s->depth)
		return s->stack[--s->depth];
	return 0;
}

/*
 * Read PATH, "FROM TO" in hex a line (link-time addresses; # comments),
 * into WK. Every FROM must be a branch or jump of the binary, every TO
 * in one of its functions, and a return must go where the call it
 * closes would: errors name the line.
 */
static int read_walk(struct synth *s, const char *path, struct walk *wk)
{
	FILE *f = fopen(path, "r");
	size_t lineno = 0;
	char line[128];
	int ret = -1;

	if (!f) {
		fprintf(stderr, "perf-ctr synth: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long from, to;
		const struct site *st;
		struct walk_step *v;
		uint64_t ra;
		char extra;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			fprintf(stderr, "perf-ctr synth: %s:%zu: a line longer than %zu characters\n",
				path, lineno, sizeof(line) - 2);
			goto out;
		}
		if (line[0] == '#' || !line[strspn(line, " \t\r\n")])
			continue;
		if (sscanf(line, "%llx %llx %c", &from, &to, &extra) != 2) {
			fprintf(stderr, "perf-ctr synth: %s:%zu: not \"FROM TO\" in hex\n",
				path, lineno);
			goto out;
		}
		st = next_site(s, from);
		if (!st || st->pc != from || !func_at(s, to)) {
			fprintf(stderr, "perf-ctr synth: %s:%zu: %s 0x%llx is %s of %s\n",
				path, lineno, st && st->pc == from ? "TO" : "FROM",
				st && st->pc == from ? to : from,
				st && st->pc == from ? "in no function" : "no branch or jump",
				s->filename);
			goto out;
		}
		ra = follow_calls(s, st);
		if (ra && ra != to) {
			fprintf(stderr, "perf-ctr synth: %s:%zu: a return to 0x%llx, where its call returns to 0x%llx\n",
				path, lineno, to, (unsigned long long)ra);
			goto out;
		}
		v = pc_grow(wk->v, &wk->cap, wk->n, sizeof(*v), 1024);
		if (!v) {
			fprintf(stderr, "perf-ctr synth: out of memory\n");
			goto out;
		}
		wk->v = v;
		v[wk->n++] = (struct walk_step){ st - s->sites, to };
	}
	if (ferror(f))
		fprintf(stderr, "perf-ctr synth: %s: %s\n", path, strerror(errno));
	else if (!wk->n)
		fprintf(stderr, "perf-ctr synth: %s: no transfers\n", path);
	else
		ret = 0;
out:
	s->depth = 0;
	fclose(f);
	return ret;
}

/*
 * --walk: take the next EVERY transfers, the call stack following the
 * calls and returns; into BR the last DEPTH of them, the youngest
 * first, as a sample taken then holds them. How many.
 */
static uint64_t walk_on(struct synth *s, struct walk *wk, uint64_t every,
			uint64_t depth, struct perf_branch_entry *br)
{
	size_t end = wk->at + every, d, nr = end < depth ? end : depth;

	for (; wk->at < end; wk->at++)
		follow_calls(s, &s->sites[wk->v[wk->at].site]);
	for (d = 0; d < nr; d++) {
		const struct walk_step *w = &wk->v[end - 1 - d];

		fill_record(s, &s->sites[w->site], w->to, false, 1, &br[d]);
	}
	return nr;
}

/*
 * The call chain of a sample at IP, as the kernel's frame-pointer
 * unwinder gives it of user code: the context marker, IP, then the
 * return address of each open call, innermost first. Its length.
 */
static uint64_t fill_callchain(const struct synth *s, uint64_t ip,
			       uint64_t *chain)
{
	uint64_t n = 0;
	size_t d;

	chain[n++] = PERF_CONTEXT_USER;
	chain[n++] = ip;
	for (d = s->depth; d-- > 0;)
		chain[n++] = s->stack[d] + s->bias;
	return n;
}

/*
 * --bogus: the defects `check` looks for, one kind per sample number mod 8:
 * 1 empty stack, 3 a backward range, 5 an address in no mapping (and
 * that sample written twice: a duplicate stack).
 */
static void make_bogus(struct perf_branch_entry *br, struct pc_sample *smp,
		       uint64_t i)
{
	switch (i % 8) {
	case 1:
		smp->nr = 0;
		break;
	case 3:
		br[1].to = br[0].from + 0x40;
		break;
	case 5:
		br[0].to = 0x7f0000001000ULL;
		break;
	}
}

static const struct pc_usage usage = {
	.cmd = "synth",
	.synopsis = "-o FILE [options]",
	.about =
"  A synthetic perf.data with N samples (default 1000) of D-deep branch\n"
"  stacks (default 32, at most 256). Records lie in ELF's functions (real\n"
"  branch instructions for a RISC-V ELF) with an MMAP2 for it; without\n"
"  --binary, in a made-up /synthetic/perf-ctr-synth. The same options\n"
"  always give the same file.\n",
};

int cmd_synth(int argc, char **argv)
{
	const char *out = NULL, *binary = NULL, *walk_path = NULL;
	uint64_t nsamples = 1000, depth = 32, seed = 1, events = 1, round = 256;
	uint64_t every = 100;
	uint64_t kaslr = 0;
	bool hw_idx, no_hw_idx = false, bogus = false, kernel = false;
	bool callchain = false;
	uint64_t chain[2 + SYNTH_MAX_STACK];
	struct synth s;
	struct perf_event_attr attr;
	struct perf_branch_entry br[256];
	struct pc_error err = { 0 };
	struct pc_writer *w;
	struct walk wk = { 0 };
	uint64_t ids[2] = { 101, 202 }, pc, i, d;
	int ret;
	const struct pc_option opts[] = {
		PC_STRING('o', "output", &out, "FILE", "the perf.data to write (required)"),
		PC_U64(0, "samples", &nsamples, "N", "samples (default 1000)"),
		PC_U64(0, "depth", &depth, "D", "records per sample (default 32, at most 256)"),
		PC_STRING(0, "binary", &binary, "ELF", "where the records lie"),
		PC_U64(0, "seed", &seed, "S", "another walk (default 1)"),
		PC_U64(0, "events", &events, "1|2",
		       "2 adds an event that samples without branch\nstacks"),
		PC_BOOL(0, "no-hw-idx", &no_hw_idx, "leave out the hw_idx of branch stacks"),
		PC_BOOL(0, "bogus", &bogus, "plant the defects that perf-ctr check reports"),
		PC_BOOL(0, "kernel", &kernel,
			"--binary is a vmlinux: kernel samples (-j any,k)\n"
			"of a process, perf's map of the kernel's text"),
		PC_U64(0, "kaslr", &kaslr, "OFFSET",
		       "with --kernel: the kernel runs OFFSET bytes above\n"
		       "its link-time addresses (default 0)"),
		PC_BOOL(0, "callchain", &callchain,
			"samples carry the user call chain of the walk\n"
			"(perf record -g): calls and returns pair up"),
		PC_STRING(0, "walk", &walk_path, "FILE",
			  "not a random walk: the transfers of FILE, a\n"
			  "\"FROM TO\" line each (hex, oldest first)"),
		PC_U64(0, "every", &every, "K",
		       "with --walk: a sample after every K transfers\n"
		       "(default 100)"),
		PC_U64(0, "round", &round, "N",
		       "a FINISHED_ROUND after every N samples, as perf\n"
		       "record ends its passes (default 256; 0: none)"),
		PC_END(),
	};

	argc = pc_parse_options(argc, argv, opts, &usage, 0);
	if (argc < 0)
		return pc_parse_exit(argc);
	if (!out)
		return pc_usage_error(opts, &usage, "-o is required");
	if (depth > 256)
		return pc_usage_error(opts, &usage, "--depth %llu: at most 256",
				      (unsigned long long)depth);
	if (events < 1 || events > 2)
		return pc_usage_error(opts, &usage, "--events %llu: 1 or 2",
				      (unsigned long long)events);
	if (kernel && !binary)
		return pc_usage_error(opts, &usage, "--kernel needs --binary");
	if (kernel && callchain)
		return pc_usage_error(opts, &usage, "--callchain is of user samples: not with --kernel");
	if (walk_path && (!binary || kernel || bogus))
		return pc_usage_error(opts, &usage,
				      "--walk needs --binary, and takes neither --kernel nor --bogus");
	if (!every)
		return pc_usage_error(opts, &usage, "--every 0: at least 1");
	hw_idx = !no_hw_idx;
	memset(&s, 0, sizeof(s));
	s.stacked = callchain;
	s.rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	if (binary ? load_binary(&s, binary, kernel, kaslr) : (fake_binary(&s), 0))
		return 1;
	if (!s.nr_sites) {
		fprintf(stderr, "perf-ctr synth: no branch sites found\n");
		return 1;
	}
	qsort(s.sites, s.nr_sites, sizeof(*s.sites), cmp_site);
	s.calls = calloc(s.nr_sites, sizeof(*s.calls));
	for (i = 0; s.calls && i < s.nr_sites; i++)
		if (s.sites[i].kind == PC_RV_CALL ||
		    s.sites[i].kind == PC_RV_IND_CALL)
			s.calls[s.nr_calls++] = i;
	if (walk_path) {
		if (read_walk(&s, walk_path, &wk))
			goto out;
		nsamples = wk.n / every;
		if (!nsamples) {
			fprintf(stderr, "perf-ctr synth: %s: %zu transfers, fewer than --every %llu: no sample\n",
				walk_path, wk.n, (unsigned long long)every);
			goto out;
		}
	}

	w = pc_writer_open(out, &err);
	if (!w)
		goto fail;
	/* What `perf record -b` asks for on a current kernel. */
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.sample_period = 10007;
	attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			   PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
				  (kernel ? PERF_SAMPLE_BRANCH_KERNEL :
					    PERF_SAMPLE_BRANCH_USER) |
				  PERF_SAMPLE_BRANCH_TYPE_SAVE |
				  PERF_SAMPLE_BRANCH_PRIV_SAVE |
				  (hw_idx ? PERF_SAMPLE_BRANCH_HW_INDEX : 0);
	if (callchain)
		attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
	attr.exclude_kernel = !kernel;
	attr.exclude_user = kernel;
	attr.exclude_hv = 1;
	attr.mmap = attr.comm = attr.mmap2 = 1;
	attr.sample_id_all = 1;
	ret = pc_writer_add_attr(w, &attr, &ids[0], 1);
	if (!ret && events == 2) {
		attr.config = PERF_COUNT_HW_INSTRUCTIONS;
		attr.sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_STACK;
		attr.branch_sample_type = 0;
		attr.mmap = attr.comm = attr.mmap2 = 0;
		ret = pc_writer_add_attr(w, &attr, &ids[1], 1);
	}
	{
		const char *base = strrchr(s.filename, '/');
		struct pc_comm c = { .pid = 4242, .tid = 4242,
				     .comm = base ? base + 1 : s.filename };
		struct pc_mmap m = {
			.pid = 4242, .tid = 4242, .start = s.map_start,
			.len = s.map_len, .pgoff = s.pgoff,
			.misc = PERF_RECORD_MISC_USER, .filename = s.filename,
			.build_id_size = s.build_id_size,
		};

		if (kernel) {
			c.comm = "kworkload";
			/* as perf writes it: pid -1, tid 0 */
			m.pid = PC_PID_KERNEL;
			m.tid = 0;
			m.misc = PERF_RECORD_MISC_KERNEL;
			m.build_id_size = 0;
		}
		memcpy(m.build_id, s.build_id, sizeof(m.build_id));
		ret = ret ? ret : pc_writer_comm(w, &c);
		ret = ret ? ret : pc_writer_mmap2(w, &m);
		if (!ret && s.build_id_size)
			ret = pc_writer_build_id(w, &m);
	}
	pc = s.funcs[0].start;
	for (i = 0; !ret && i < nsamples; i++) {
		struct pc_sample smp = {
			.pid = 4242, .tid = 4242, .time = 1000000000ULL + i * 100000,
			.period = 10007,
			.misc = kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
			.id = ids[0], .br = br, .nr = depth,
			.has_hw_idx = hw_idx, .hw_idx = depth ? depth - 1 : 0,
		};

		/* Oldest first in time, youngest first in the stack. */
		if (walk_path)
			smp.nr = walk_on(&s, &wk, every, depth, br);
		for (d = depth; !walk_path && d-- > 0;)
			step(&s, &pc, &br[d]);
		smp.hw_idx = smp.nr ? smp.nr - 1 : 0;
		for (d = 0; kernel && d < depth; d++)
			br[d].priv = PERF_BR_PRIV_KERNEL;
		smp.ip = smp.nr ? br[0].to : s.funcs[0].start + s.bias;
		if (callchain)
			smp.callchain_nr = fill_callchain(&s, smp.ip, chain);
		smp.callchain = chain;
		if (bogus && depth >= 2)
			make_bogus(br, &smp, i);
		ret = pc_writer_sample(w, &smp);
		/* And a stale re-read of the same buffer. */
		if (!ret && bogus && depth >= 2 && i % 8 == 5)
			ret = pc_writer_sample(w, &smp);
		if (!ret && events == 2 && i % 4 == 0) {
			smp.id = ids[1];
			smp.nr = 0;
			ret = pc_writer_sample(w, &smp);
		}
		if (!ret && round && (i + 1) % round == 0)
			ret = pc_writer_round(w);
	}
	/* A file that could not be written whole does not appear. */
	if (ret) {
		pc_writer_discard(w);
		goto fail;
	}
	if (pc_writer_close(w))
		goto fail;
	free(s.sites);
	free(s.funcs);
	free(s.calls);
	free(wk.v);
	return 0;
fail:
	fprintf(stderr, "perf-ctr synth: %s: offset 0x%llx: %s\n", out,
		(unsigned long long)err.offset, err.msg);
out:
	free(s.sites);
	free(s.funcs);
	free(s.calls);
	free(wk.v);
	return 1;
}

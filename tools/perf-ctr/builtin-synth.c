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
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf-ctr.h"
#include "builtin.h"
#include "options.h"
#include "symbols.h"

#ifndef PERF_SAMPLE_BRANCH_HW_INDEX
#define PERF_SAMPLE_BRANCH_HW_INDEX	(1U << 17)
#endif

enum kind { K_COND, K_JUMP, K_CALL, K_INDCALL, K_RET, K_INDJUMP,
	    K_COSWAP, K_INDLINK, K_DIRLINK };

struct site {
	uint64_t pc;		/* link-time address */
	uint64_t target;	/* direct target, 0 if indirect */
	uint8_t len;		/* 2 or 4 */
	uint8_t kind;
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
};

static uint64_t rnd(struct synth *s)
{
	/* xorshift64*: fast, and the same stream for the same --seed. */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545f4914f6cdd1dULL;
}

static int add_site(struct synth *s, uint64_t pc, uint64_t target, int len,
		    enum kind k)
{
	if (s->nr_sites == s->cap_sites) {
		size_t cap = s->cap_sites ? s->cap_sites * 2 : 1024;
		void *p = realloc(s->sites, cap * sizeof(*s->sites));

		if (!p)
			return -1;
		s->sites = p;
		s->cap_sites = cap;
	}
	s->sites[s->nr_sites++] = (struct site){ pc, target, len, k };
	return 0;
}

static int add_func(struct synth *s, uint64_t start, uint64_t end)
{
	if (s->nr_funcs == s->cap_funcs) {
		size_t cap = s->cap_funcs ? s->cap_funcs * 2 : 256;
		void *p = realloc(s->funcs, cap * sizeof(*s->funcs));

		if (!p)
			return -1;
		s->funcs = p;
		s->cap_funcs = cap;
	}
	s->funcs[s->nr_funcs++] = (struct func){ start, end };
	return 0;
}

static int64_t sext(uint64_t v, int bits)
{
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

static bool is_link(unsigned int r)
{
	return r == 1 || r == 5;
}

/* Classify one RISC-V instruction; returns its length, adds a site if a branch. */
static int rv_decode(struct synth *s, uint64_t pc, const uint8_t *p, size_t left)
{
	uint32_t i;

	if (left < 2)
		return 0;
	i = p[0] | p[1] << 8;
	if ((i & 3) != 3) {
		unsigned int f3 = i >> 13, q = i & 3, rs1 = (i >> 7) & 31;

		if (q == 1 && f3 == 5) {			/* c.j */
			uint64_t o = ((i >> 12) & 1) << 11 | ((i >> 11) & 1) << 4 |
				     ((i >> 9) & 3) << 8 | ((i >> 8) & 1) << 10 |
				     ((i >> 7) & 1) << 6 | ((i >> 6) & 1) << 7 |
				     ((i >> 3) & 7) << 1 | ((i >> 2) & 1) << 5;

			add_site(s, pc, pc + sext(o, 12), 2, K_JUMP);
		} else if (q == 1 && (f3 == 6 || f3 == 7)) {	/* c.beqz, c.bnez */
			uint64_t o = ((i >> 12) & 1) << 8 | ((i >> 10) & 3) << 3 |
				     ((i >> 5) & 3) << 6 | ((i >> 3) & 3) << 1 |
				     ((i >> 2) & 1) << 5;

			add_site(s, pc, pc + sext(o, 9), 2, K_COND);
		} else if (q == 2 && f3 == 4 && !((i >> 2) & 31) && rs1) {
			if ((i >> 12) & 1)			/* c.jalr */
				add_site(s, pc, 0, 2, rs1 == 5 ? K_COSWAP : K_INDCALL);
			else					/* c.jr */
				add_site(s, pc, 0, 2, is_link(rs1) ? K_RET : K_INDJUMP);
		}
		return 2;
	}
	if (left < 4)
		return 0;
	i |= (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	switch (i & 0x7f) {
	case 0x63: {
		uint64_t o = ((i >> 31) & 1) << 12 | ((i >> 25) & 0x3f) << 5 |
			     ((i >> 8) & 0xf) << 1 | ((i >> 7) & 1) << 11;

		add_site(s, pc, pc + sext(o, 13), 4, K_COND);
		break;
	}
	case 0x6f: {
		unsigned int rd = (i >> 7) & 31;
		uint64_t o = ((i >> 31) & 1) << 20 | ((i >> 21) & 0x3ff) << 1 |
			     ((i >> 20) & 1) << 11 | ((i >> 12) & 0xff) << 12;

		add_site(s, pc, pc + sext(o, 21), 4,
			 !rd ? K_JUMP : is_link(rd) ? K_CALL : K_DIRLINK);
		break;
	}
	case 0x67: {
		unsigned int rd = (i >> 7) & 31, rs1 = (i >> 15) & 31;
		enum kind k;

		if (is_link(rd) && is_link(rs1) && rd != rs1)
			k = K_COSWAP;
		else if (is_link(rd))
			k = K_INDCALL;
		else if (is_link(rs1))
			k = K_RET;
		else
			k = rd ? K_INDLINK : K_INDJUMP;
		add_site(s, pc, 0, 4, k);
		break;
	}
	}
	return 4;
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
			enum kind k = rnd(s) % 8 < 5 ? K_COND : rnd(s) % 3 ? K_CALL : K_RET;
			uint64_t t = 0;

			a += 4 + (rnd(s) % 24) * 2;
			if (a + 4 > e)
				break;
			if (k == K_COND)
				t = s->funcs[f].start + (rnd(s) % ((e - s->funcs[f].start) / 2)) * 2;
			else if (k == K_CALL)
				t = s->funcs[rnd(s) % s->nr_funcs].start;
			if (add_site(s, a, t, 4, k))
				return -1;
		}
	}
	return 0;
}

static int load_binary(struct synth *s, const char *path)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	Elf_Scn *scn = NULL;
	size_t i, nph, fsize;
	const uint8_t *raw;
	bool found = false;
	int fd, ret = -1;
	Elf *e;

	if (!realpath(path, s->filename)) {
		fprintf(stderr, "perf-ctr synth: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "perf-ctr synth: %s: %s\n", path, strerror(errno));
		return -1;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &nph)) {
		fprintf(stderr, "perf-ctr synth: %s: not an ELF file\n", path);
		goto out;
	}
	for (i = 0; i < nph; i++) {
		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		/* perf maps the page-aligned executable segment. */
		s->bias = eh.e_type == ET_DYN ? 0x555555554000ULL : 0;
		s->text_start = ph.p_vaddr;
		s->text_end = ph.p_vaddr + ph.p_filesz;
		s->map_start = s->bias + (ph.p_vaddr & ~0xfffULL);
		s->map_len = ((ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffULL) -
			     (ph.p_vaddr & ~0xfffULL);
		s->pgoff = ph.p_offset & ~0xfffULL;
		found = true;
		break;
	}
	if (!found) {
		fprintf(stderr, "perf-ctr synth: %s: no executable segment\n", path);
		goto out;
	}
	s->build_id_size = pc_elf_build_id(e, s->build_id);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (i = 0; d && i < n; i++) {
			GElf_Sym sym;

			if (!gelf_getsym(d, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_size || sym.st_value < s->text_start ||
			    sym.st_value + sym.st_size > s->text_end)
				continue;
			if (add_func(s, sym.st_value, sym.st_value + sym.st_size))
				goto out;
		}
	}
	if (!s->nr_funcs)
		add_func(s, s->text_start, s->text_end);
	qsort(s->funcs, s->nr_funcs, sizeof(*s->funcs), cmp_func);

	raw = (const uint8_t *)elf_rawfile(e, &fsize);
	if (eh.e_machine == EM_RISCV && raw) {
		for (i = 0; i < s->nr_funcs; i++) {
			uint64_t pc = s->funcs[i].start, off;
			int len;

			if (i && s->funcs[i].start == s->funcs[i - 1].start)
				continue;
			off = ph.p_offset + (pc - ph.p_vaddr);
			while (pc < s->funcs[i].end && off < fsize) {
				len = rv_decode(s, pc, raw + off, fsize - off);
				if (!len)
					break;
				pc += len;
				off += len;
			}
		}
	} else if (fake_sites(s)) {
		goto out;
	}
	ret = 0;
out:
	if (e)
		elf_end(e);
	close(fd);
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

/* The first site at or after PC inside the function holding PC. */
static const struct site *next_site(const struct synth *s, uint64_t pc)
{
	size_t lo = 0, hi = s->nr_sites, f_lo = 0, f_hi = s->nr_funcs;
	uint64_t fend = 0;

	while (f_lo < f_hi) {
		size_t mid = (f_lo + f_hi) / 2;

		if (s->funcs[mid].start <= pc)
			f_lo = mid + 1;
		else
			f_hi = mid;
	}
	if (f_lo && pc < s->funcs[f_lo - 1].end)
		fend = s->funcs[f_lo - 1].end;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->sites[mid].pc < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nr_sites && s->sites[lo].pc < fend)
		return &s->sites[lo];
	return NULL;
}

/* The start of the function holding ADDR, or ADDR itself. */
static uint64_t next_func_start(const struct synth *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nr_funcs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->funcs[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < s->funcs[lo - 1].end ? s->funcs[lo - 1].start : addr;
}

static const uint8_t kind_ctr_type[] = {
	[K_COND] = 5, [K_JUMP] = 11, [K_CALL] = 9, [K_INDCALL] = 8,
	[K_RET] = 13, [K_INDJUMP] = 10, [K_COSWAP] = 12, [K_INDLINK] = 14,
	[K_DIRLINK] = 15,
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
		if (site->kind == K_RET && s->nr_calls) {
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

/* One taken transfer from the walker's position; moves the walker. */
static void step(struct synth *s, uint64_t *pc, struct perf_branch_entry *e)
{
	const struct site *site;
	unsigned int type, new_type;
	uint64_t to;

	site = next_site(s, *pc);
	if (!site)	/* only the very first position can be off the sites */
		site = &s->sites[0];
	/* Not-taken branches are not recorded: walk past them. */
	while (site->kind == K_COND && rnd(s) % 8 < 3) {
		const struct site *n = next_site(s, site->pc + site->len);

		if (!n)
			break;
		site = n;
	}
	to = pick_target(s, site);
	memset(e, 0, sizeof(*e));
	e->from = site->pc + s->bias;
	e->to = to + s->bias;
	e->mispred = rnd(s) % 20 == 0;
	e->predicted = !e->mispred;
	e->cycles = 1 + rnd(s) % 40;
	pc_ctr_type_to_perf(kind_ctr_type[site->kind], &type, &new_type);
	e->type = type;
	e->new_type = new_type;
	e->priv = PERF_BR_PRIV_USER;
	*pc = to;
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
	const char *out = NULL, *binary = NULL;
	uint64_t nsamples = 1000, depth = 32, seed = 1, events = 1;
	bool hw_idx, no_hw_idx = false, bogus = false;
	struct synth s;
	struct perf_event_attr attr;
	struct perf_branch_entry br[256];
	struct pc_error err = { 0 };
	struct pc_writer *w;
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
	hw_idx = !no_hw_idx;
	memset(&s, 0, sizeof(s));
	s.rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	if (binary ? load_binary(&s, binary) : (fake_binary(&s), 0))
		return 1;
	if (!s.nr_sites) {
		fprintf(stderr, "perf-ctr synth: no branch sites found\n");
		return 1;
	}
	qsort(s.sites, s.nr_sites, sizeof(*s.sites), cmp_site);
	s.calls = calloc(s.nr_sites, sizeof(*s.calls));
	for (i = 0; s.calls && i < s.nr_sites; i++)
		if (s.sites[i].kind == K_CALL || s.sites[i].kind == K_INDCALL)
			s.calls[s.nr_calls++] = i;

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
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
				  PERF_SAMPLE_BRANCH_TYPE_SAVE |
				  PERF_SAMPLE_BRANCH_PRIV_SAVE |
				  (hw_idx ? PERF_SAMPLE_BRANCH_HW_INDEX : 0);
	attr.exclude_kernel = 1;
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
			.period = 10007, .misc = PERF_RECORD_MISC_USER,
			.id = ids[0], .br = br, .nr = depth,
			.has_hw_idx = hw_idx, .hw_idx = depth ? depth - 1 : 0,
		};

		/* Oldest first in time, youngest first in the stack. */
		for (d = depth; d-- > 0;)
			step(&s, &pc, &br[d]);
		smp.ip = depth ? br[0].to : s.funcs[0].start + s.bias;
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
	return 0;
fail:
	fprintf(stderr, "perf-ctr synth: %s: offset 0x%llx: %s\n", out,
		(unsigned long long)err.offset, err.msg);
	free(s.sites);
	free(s.funcs);
	free(s.calls);
	return 1;
}

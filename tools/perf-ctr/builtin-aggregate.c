// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: branch stacks to AutoFDO profiles.
 *
 * Each sample's records, youngest first, give branch counts (from -> to)
 * and fall-through ranges: the target of a record runs straight to the
 * source of the next younger record, which is the last instruction of
 * the range. A not-taken conditional branch (PERF_BR_RISCV_NOT_TAKEN) is
 * no transfer: it gives no branch count and ranges run through it. An
 * address counts for the --binary (matched by build id, else by file
 * name) only through a mapping of it by the sampled process at the
 * sample's time (machine.c), and is relocated to its link-time address;
 * everything else is counted and dropped. The counts live in hash tables
 * whose size follows the number of distinct ranges and branches, never
 * the number of records.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "perf-ctr.h"
#include "builtin.h"
#include "afdo.h"
#include "context.h"
#include "machine.h"
#include "options.h"
#include "dwarf-info.h"

enum { MODE_UNDECIDED, MODE_MAPPED, MODE_IDENTITY };
/* pc_dso.mark: what a file of the recording is to --binary. */
enum { DSO_UNKNOWN, DSO_BINARY, DSO_OTHER, DSO_OTHER_BUILD };

/*
 * Addresses and times of the sampled process that relocate alike (a
 * region of the machine's): into the binary by adding DELTA, or not.
 */
struct agg_win {
	struct pc_region r;
	bool bin;
	uint64_t delta;
};

/*
 * What a record's type says of it (its step type flags, and
 * KIND_NOT_TAKEN), looked up in a table made once by bits 20 to 29 of
 * its flags word: type, spec and new_type in perf's ABI, the file's
 * layout. One shift and a mask where reading the two bitfields and
 * putting them together took eight instructions a record.
 */
#define KIND_SHIFT	20
#define NR_KINDS	1024
#define KIND_NOT_TAKEN	0x80

struct agg_ctx {
	struct pc_dso *bin;
	struct afdo_counts counts;
	struct afdo_rec *recs;	/* one sample's, relocated */
	size_t cap_recs;
	uint64_t *frames;	/* its user call chain, relocated */
	size_t cap_frames;
	uint64_t *pairs;	/* its records as (from, to), relocated */
	size_t cap_pairs;
	bool stacks;		/* the format wants calling contexts: */
	struct afdo_ctxs ctxs;	/* the samples' */
	const char *bin_base;	/* file name part of --binary */
	struct pc_machine mc;
	struct agg_win win[2];	/* the binary's last, and another's */
	int mode;
	bool decided;		/* the mode of this recording */
	uint64_t maps_bin;
	uint64_t mmaps, procs, forks, execs;	/* of every input */
	bool build_id_mismatch;
	bool progress;
	uint64_t file_size;
	time_t last_progress;
	/* what the kernel dropped, and samples whose filter gives no ranges */
	uint64_t lost_records, lost_samples, throttled;
	uint64_t lost_before[3];	/* of the recordings before this one */
	uint64_t samples_filtered;
	bool window_weight;	/* weigh records by 1 / window length */
	uint64_t insn_bytes_x256;	/* the binary's mean instruction length */
	uint64_t filter_seen;	/* branch_sample_type of one such event */
	uint8_t kind[NR_KINDS];	/* by br_kind() */
	int oom;
};

/* A record's word of flags (mispred, ..., type, spec, new_type), after TO. */
static inline uint64_t br_flags(const struct perf_branch_entry *e)
{
	uint64_t w;

	memcpy(&w, &e->to + 1, sizeof(w));
	return w;
}

static inline unsigned int br_kind(uint64_t flags)
{
	return (flags >> KIND_SHIFT) & (NR_KINDS - 1);
}

static void init_kinds(uint8_t *kind)
{
	struct perf_branch_entry e;
	uint64_t v;

	memset(&e, 0, sizeof(e));
	for (v = 0; v < NR_KINDS; v++) {
		uint64_t w = v << KIND_SHIFT;

		memcpy(&e.to + 1, &w, sizeof(w));
		kind[v] = afdo_step_type(pc_br_trap(&e)) |
			  (pc_br_not_taken(&e) ? KIND_NOT_TAKEN : 0);
	}
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* "[kernel.kallsyms]_text" and the like: perf's maps of the kernel. */
static bool kernel_map(const struct pc_dso *d)
{
	return !strncmp(d->name, "[kernel.kallsyms]", 17);
}

/*
 * Is file D of the recording the --binary? By build id when both have
 * one, else by file name: the recording's paths are the target's own
 * (/usr/bin/x), --binary is where a copy is on this host.
 */
static int classify(struct agg_ctx *c, const struct pc_dso *d)
{
	bool same_name = !strcmp(base_name(d->name), c->bin_base);

	/* perf's map of the running kernel's text: a vmlinux's */
	if (kernel_map(d))
		return pc_dso_is_kernel(c->bin) ? DSO_BINARY : DSO_OTHER;

	if (d->build_id_size && c->bin->elf_build_id_size) {
		if (d->build_id_size >= c->bin->elf_build_id_size &&
		    !memcmp(d->build_id, c->bin->elf_build_id,
			    c->bin->elf_build_id_size))
			return DSO_BINARY;
		return same_name ? DSO_OTHER_BUILD : DSO_OTHER;
	}
	return same_name ? DSO_BINARY : DSO_OTHER;
}

/*
 * At the first sample: only a recording without any mapping (written by
 * hand, or a brstack text) is taken at the binary's link-time addresses.
 * perf record writes the mappings of a process before its first sample.
 */
static void decide(struct agg_ctx *c)
{
	c->decided = true;
	c->mode = c->mc.nr_mmaps ? MODE_MAPPED : MODE_IDENTITY;
	if (c->mode == MODE_IDENTITY)
		fprintf(stderr, "perf-ctr aggregate: warning: the recording maps no file: addresses are taken as %s's link-time addresses\n",
			c->bin->name);
}

/* After a recording: which of its files were the binary, for -v. */
static void tally(struct agg_ctx *c)
{
	struct pc_dso *d;

	if (!c->decided)
		return;
	for (d = c->mc.dsos; d; d = d->next) {
		if (d->mark == DSO_UNKNOWN)
			d->mark = classify(c, d);
		if (d->mark == DSO_BINARY)
			c->maps_bin += pc_machine_count_maps(&c->mc, d);
		else if (d->mark == DSO_OTHER_BUILD)
			c->build_id_mismatch = true;
	}
	c->mmaps += c->mc.nr_mmaps;
	c->procs += c->mc.nr_procs;
	c->forks += c->mc.nr_forks;
	c->execs += c->mc.nr_execs;
}

/*
 * ADDR of process PID at TIME to a link-time address of the binary: only
 * through a mapping of the binary by that process at that time, and by
 * the binary's own program headers. The answer holds for the region
 * around it the machine gives (pc_region), cut to the segment: the next
 * lookups in it take the window instead.
 */
static bool reloc_slow(struct agg_ctx *c, uint32_t pid, uint64_t time,
		       uint64_t addr, uint64_t *out)
{
	struct agg_win *w = &c->win[1];
	const struct pc_seg *seg;
	const struct pc_map *m;
	struct pc_region r;
	uint64_t off, lo, hi;

	m = pc_machine_region(&c->mc, pid, time, addr, &r);
	if (m && m->dso->mark == DSO_UNKNOWN)
		m->dso->mark = classify(c, m->dso);
	if (!m || m->dso->mark != DSO_BINARY) {
		w->r = r;
		w->bin = false;
		return false;
	}
	if (kernel_map(m->dso)) {
		/*
		 * Its pgoff is where _text runs (KASLR's offset included):
		 * every address of the map moves by the same amount.
		 */
		w = &c->win[0];
		w->r = r;
		w->bin = true;
		w->delta = c->bin->ktext - m->pgoff;
		*out = addr + w->delta;
		return true;
	}
	off = addr - m->start + m->pgoff;
	seg = pc_dso_seg(c->bin, off);
	if (!seg)
		return false;
	/* The segment's part of the region, in file offsets, then addresses. */
	lo = r.lo - m->start + m->pgoff;
	hi = r.hi - m->start + m->pgoff;
	if (lo < seg->offset)
		lo = seg->offset;
	if (hi > seg->offset + seg->filesz)
		hi = seg->offset + seg->filesz;
	w = &c->win[0];
	w->r = r;
	w->r.lo = lo - m->pgoff + m->start;
	w->r.hi = hi - m->pgoff + m->start;
	w->bin = true;
	w->delta = seg->vaddr - seg->offset + m->pgoff - m->start;
	*out = addr + w->delta;
	return true;
}

static inline bool reloc(struct agg_ctx *c, uint32_t pid, uint64_t time,
			 uint64_t addr, uint64_t *out)
{
	unsigned int i;

	if (c->mode == MODE_IDENTITY) {
		*out = addr;
		return true;
	}
	for (i = 0; i < 2; i++) {
		const struct agg_win *w = &c->win[i];

		if (pc_region_has(&w->r, &c->mc, pid, time, addr)) {
			*out = addr + w->delta;
			return w->bin;
		}
	}
	return reloc_slow(c, pid, time, addr, out);
}

/* An end of a record as the step table keys it (afdo_rec). */
struct end_key {
	uint64_t key;
	bool mapped;
};

/*
 * ADDR, an end outside the window of the sample's records, keyed: its
 * link-time address when the binary maps it, else 0 when it is 0 and
 * ELSEWHERE when not. Kept out of line: on_sample()'s loop over the
 * records keeps its values in registers only while it takes no address.
 */
static __attribute__((noinline)) struct end_key
end_key(struct agg_ctx *c, uint32_t pid, uint64_t time, uint64_t addr,
	uint64_t elsewhere)
{
	struct end_key k;

	k.mapped = reloc(c, pid, time, addr, &k.key);
	if (!k.mapped)
		k.key = addr ? elsewhere : 0;
	return k;
}

/* The recording is read again from its start: forget what it lost. */
static void on_restart(void *vc)
{
	struct agg_ctx *c = vc;

	memset(c->win, 0, sizeof(c->win));
	c->lost_records = c->lost_before[0];
	c->lost_samples = c->lost_before[1];
	c->throttled = c->lost_before[2];
}

static int on_lost(void *vc, const struct pc_lost *l)
{
	struct agg_ctx *c = vc;

	switch (l->type) {
	case PERF_RECORD_LOST:
		c->lost_records += l->nr;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		c->lost_samples += l->nr;
		break;
	case PERF_RECORD_THROTTLE:
		c->throttled++;
		break;
	}
	return 0;
}

/*
 * Fall-through ranges need every taken branch in order: -b or -j any
 * (any privilege filter), not a type filter and not call-stack mode.
 */
static bool gives_ranges(const struct perf_event_attr *attr)
{
	uint64_t bst;

	if (!attr)
		return true;
	bst = attr->branch_sample_type;
	return (bst & PERF_SAMPLE_BRANCH_ANY) &&
	       !(bst & PERF_SAMPLE_BRANCH_CALL_STACK);
}

static void progress(struct agg_ctx *c, const struct pc_sample *s)
{
	time_t now = time(NULL);

	if (now == c->last_progress)
		return;
	c->last_progress = now;
	if (c->file_size)
		fprintf(stderr, "\rperf-ctr aggregate: %llu samples, %3.0f%%",
			(unsigned long long)c->counts.st.samples,
			100.0 * (double)s->offset / (double)c->file_size);
	else
		fprintf(stderr, "\rperf-ctr aggregate: %llu samples",
			(unsigned long long)c->counts.st.samples);
}

/*
 * A sample's records cover the last N taken branches before it. Sampled
 * every P instructions (or cycles), an instruction executed where taken
 * branches are sparse is inside many samples' windows, one executed
 * where they are dense in few: unweighted, its range count is its
 * execution count times the length of the window around it. Weighing
 * each sample's records by 1 / (its window's length in instructions)
 * makes every range count proportional to execution counts again.
 * Sampled every P taken branches (a branch event, as x86 AutoFDO
 * records), windows cover equal shares of the branch stream and need no
 * weight.
 *
 * Lengths are counted in instructions, not bytes: with compressed
 * instructions the bytes of a window say its instructions only to within
 * a factor of two. Straight-line code in the binary's text is walked;
 * elsewhere (a library) its bytes are divided by the binary's mean
 * instruction length.
 */
#define WEIGHT_UNIT	(1ULL << 20)	/* the weight of a 1-instruction window */

/* Instructions from one record's target TO to the next one's source FROM. */
static uint64_t straight_insns(const struct agg_ctx *c,
			       const struct perf_branch_entry *older,
			       const struct afdo_rec *ro,
			       const struct perf_branch_entry *younger,
			       const struct afdo_rec *ry)
{
	uint64_t n = 0, to = older->to, from = younger->from;

	if ((ro->flags & AFDO_STEP_TO) && (ry->flags & AFDO_STEP_FROM))
		n = pc_dso_count_insns(c->bin, ro->to, ry->from);
	if (n)
		return n;
	/* the branch itself, and what its bytes say, when they say anything */
	if (to && from >= to && from - to < WEIGHT_UNIT)
		n = (from - to) * 256 / c->insn_bytes_x256;
	return n + 1;
}

static uint64_t window_weight(const struct agg_ctx *c,
			      const struct pc_sample *s,
			      const struct afdo_rec *r)
{
	uint64_t span = 0, i, prev = 0;
	bool have_prev = false;

	for (i = 0; i < s->nr; i++) {
		/* a not-taken branch is inside the straight-line code */
		if (r[i].not_taken)
			continue;
		if (have_prev)
			span += straight_insns(c, &s->br[i], &r[i],
					       &s->br[prev], &r[prev]);
		prev = i;
		have_prev = true;
	}
	if (!span)
		return 1;
	return WEIGHT_UNIT / span ? WEIGHT_UNIT / span : 1;
}

/* The binary's mean instruction length, in 1/256 bytes (4 without text). */
static uint64_t mean_insn_bytes_x256(const struct pc_dso *bin)
{
	uint64_t bytes = 0, insns = 0;
	unsigned int i;

	for (i = 0; i < bin->nr_text; i++) {
		const struct pc_text *t = &bin->text[i];

		if (t->size < 2)
			continue;
		bytes += t->size;
		insns += pc_dso_count_insns(bin, t->addr, t->addr + t->size - 2);
	}
	return insns ? bytes * 256 / insns : 4 * 256;
}

static bool branch_event(const struct perf_event_attr *attr)
{
	return attr && attr->type == PERF_TYPE_HARDWARE &&
	       attr->config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
}

/* Does window W relocate every address of [LO, LO + LEN) for PID at TIME? */
static inline bool win_for(const struct agg_win *w, const struct pc_machine *mc,
			   uint32_t pid, uint64_t time)
{
	return w->bin && w->r.gen == mc->gen && w->r.pid == pid &&
	       time - w->r.t_lo < w->r.t_hi - w->r.t_lo;
}

/* A record's end as the unwinder takes it: AFDO_ELSEWHERE if not BIN's code. */
static uint64_t code_addr(const struct pc_dso *bin, bool mapped, uint64_t a)
{
	return mapped && pc_dso_text_at(bin, a) ? a : AFDO_ELSEWHERE;
}

/*
 * Unwind sample S into its calling contexts, for a format of them: the
 * user part of its call chain and its records R, relocated (an address
 * that is not the binary's code marked AFDO_ELSEWHERE). Every sample
 * counts once, as llvm-profgen counts it. 0, or -1 when out of memory.
 */
static int keep_stack(struct agg_ctx *c, const struct pc_sample *s,
		      uint32_t pid, uint64_t time, const struct afdo_rec *r)
{
	uint64_t ctx = PERF_CONTEXT_USER, a, i;
	size_t n = 0;

	if (pc_reserve_u64(&c->frames, &c->cap_frames, s->callchain_nr) ||
	    pc_reserve_u64(&c->pairs, &c->cap_pairs, 2 * s->nr))
		return -1;
	for (i = 0; i < s->nr; i++) {
		c->pairs[2 * i] = code_addr(c->bin, r[i].flags & AFDO_STEP_FROM, r[i].from);
		c->pairs[2 * i + 1] = code_addr(c->bin, r[i].flags & AFDO_STEP_TO, r[i].to);
	}
	for (i = 0; i < s->callchain_nr; i++) {
		a = s->callchain[i];
		if (a >= PERF_CONTEXT_MAX) {
			ctx = a;
			continue;
		}
		if (ctx != PERF_CONTEXT_USER)
			continue;
		if (!reloc(c, pid, time, a, &c->frames[n]) ||
		    !pc_dso_text_at(c->bin, c->frames[n]))
			c->frames[n] = AFDO_ELSEWHERE;
		n++;
	}
	return afdo_ctxs_sample(&c->ctxs, c->frames, n, c->pairs, s->nr, 1);
}

static int on_sample(void *vc, const struct pc_sample *s)
{
	struct agg_ctx *c = vc;
	uint64_t ip = 0, i, time = pc_sample_time(s), w = 1, lo = 0, len = 0, d = 0;
	uint32_t pid = pc_sample_pid(s);
	const struct perf_branch_entry *br;
	bool ip_mapped;
	struct afdo_rec *r;
	uint64_t nr;

	if (c->mode == MODE_UNDECIDED)
		decide(c);
	if (s->attr && (s->attr->sample_type & PERF_SAMPLE_BRANCH_STACK) &&
	    !gives_ranges(s->attr)) {
		c->samples_filtered++;
		c->filter_seen = s->attr->branch_sample_type;
		return 0;
	}
	ip_mapped = reloc(c, pid, time, s->ip, &ip);
	while (c->cap_recs < s->nr) {
		r = pc_grow(c->recs, &c->cap_recs, c->cap_recs, sizeof(*r), 256);
		if (!r)
			goto oom;
		c->recs = r;
	}
	r = c->recs;
	nr = s->nr;
	br = s->br;
	/* Most records of a sample lie in one window: no call for them. */
	if (c->mode == MODE_IDENTITY) {
		len = UINT64_MAX;
	} else if (win_for(&c->win[0], &c->mc, pid, time)) {
		lo = c->win[0].r.lo;
		len = c->win[0].r.hi - lo;
		d = c->win[0].delta;
	}
	for (i = 0; i < nr; i++) {
		const struct perf_branch_entry *e = &br[i];
		uint64_t flags = br_flags(e);
		uint8_t k = c->kind[br_kind(flags)];
		uint8_t f = k & (AFDO_STEP_TRAP | AFDO_STEP_XFER);
		uint64_t from = e->from, to = e->to;
		struct end_key ek;

		if (from - lo < len) {
			from += d;
			f |= AFDO_STEP_FROM;
		} else {
			ek = end_key(c, pid, time, from, AFDO_ELSEWHERE);
			from = ek.key;
			f |= ek.mapped ? AFDO_STEP_FROM : 0;
		}
		if (to - lo < len) {
			to += d;
			f |= AFDO_STEP_TO;
		} else {
			ek = end_key(c, pid, time, to, 0);
			to = ek.key;
			f |= ek.mapped ? AFDO_STEP_TO : 0;
		}
		r[i] = (struct afdo_rec){
			.from = from, .to = to, .flags = f,
			.not_taken = k & KIND_NOT_TAKEN, .misp = flags & 1,
		};
	}
	if (s->nr && c->window_weight && !branch_event(s->attr)) {
		w = window_weight(c, s, r);
		c->counts.st.weighted++;
	}
	if (afdo_counts_sample(&c->counts, c->bin, ip_mapped, ip, r, s->nr, w))
		goto oom;
	if (c->stacks && s->callchain_nr && s->nr &&
	    keep_stack(c, s, pid, time, r))
		goto oom;
	if (c->progress && !(c->counts.st.samples & 0xffff))
		progress(c, s);
	return 0;
oom:
	c->oom = 1;
	return -1;
}

/*
 * The PRED and TYPE fields of a record's "/PRED/INTX/ABORT/CYCLES/TYPE/SPEC"
 * tail (REST): M is a mispredicted branch; a not-taken branch gives no
 * edge, a trap no retired source.
 */
static void set_text_type(struct perf_branch_entry *e, const char *rest)
{
	int i;

	if (rest[0] == '/' && rest[1] == 'M')
		e->mispred = 1;

	for (i = 0; i < 5; i++) {
		rest = strchr(rest, '/');
		if (!rest)
			return;
		rest++;
	}
	pc_branch_type_parse(rest, strcspn(rest, "/"), e);
}

/*
 * The text of `perf script -F [pid,]ip,brstack`: one sample a line, an
 * optional decimal pid, the hex ip, then FROM/TO/... records, youngest
 * first. No mappings: addresses are the binary's link-time ones. Of the
 * flags, only the TYPE is read.
 */
static int read_brstack_text(const char *file, struct agg_ctx *c,
			     struct pc_error *err)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	static struct perf_branch_entry br[4096];
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	uint64_t off = 0;
	int rc = 0;

	if (!f)
		return pc_err(err, 0, "cannot open: %s", strerror(errno));
	c->mode = MODE_IDENTITY;
	while ((len = getline(&line, &cap, f)) > 0) {
		struct pc_sample s;
		const char *num[2];
		int nnum = 0;
		char *p = line, *tok, *end;

		memset(&s, 0, sizeof(s));
		s.offset = off;
		off += (uint64_t)len;
		while ((tok = strsep(&p, " \t\n"))) {
			char *slash;

			if (!*tok)
				continue;
			slash = strchr(tok, '/');
			if (!slash) {
				/* pid and ip; anything else (a comm, an event) is skipped */
				strtoull(tok, &end, 16);
				if (*end || s.nr)
					continue;
				if (nnum == 2) {
					rc = pc_err(err, s.offset, "unexpected '%s'", tok);
					goto out;
				}
				num[nnum++] = tok;
				continue;
			}
			if (s.nr == sizeof(br) / sizeof(br[0])) {
				rc = pc_err(err, s.offset, "more than %zu records",
					    sizeof(br) / sizeof(br[0]));
				goto out;
			}
			memset(&br[s.nr], 0, sizeof(br[0]));
			br[s.nr].from = strtoull(tok, &end, 16);
			if (end != slash) {
				rc = pc_err(err, s.offset, "bad record '%s'", tok);
				goto out;
			}
			br[s.nr].to = strtoull(slash + 1, &end, 16);
			if (end == slash + 1 || (*end && *end != '/')) {
				rc = pc_err(err, s.offset, "bad record '%s'", tok);
				goto out;
			}
			set_text_type(&br[s.nr], end);
			s.nr++;
		}
		if (!nnum && !s.nr)
			continue;
		if (!nnum) {
			rc = pc_err(err, s.offset, "no sample address");
			goto out;
		}
		/* perf script prints the pid in decimal and the ip in hex */
		if (nnum == 2)
			s.pid = (uint32_t)strtoul(num[0], NULL, 10);
		s.ip = strtoull(num[nnum - 1], NULL, 16);
		s.br = br;
		rc = on_sample(c, &s);
		if (rc)
			goto out;
	}
out:
	free(line);
	if (f != stdin)
		fclose(f);
	return rc;
}


/*
 * The profiled binary: an ELF with executable code. Its DWARF and symbols
 * come from DEBUG when given (--debug-binary), else from itself, else
 * from the separate debug file its build id or .gnu_debuglink leads to.
 * NULL, and why on stderr, when it cannot be profiled.
 */
static struct pc_dso *open_binary(const char *path, const char *debug)
{
	const char *why = NULL;
	struct pc_dso *d;

	if (access(path, R_OK)) {
		fprintf(stderr, "perf-ctr aggregate: %s: %m\n", path);
		return NULL;
	}
	d = pc_dso_open(path, debug);
	if (!d) {
		fprintf(stderr, "perf-ctr aggregate: out of memory\n");
		return NULL;
	}
	if (!d->elf)
		why = "not an ELF file";
	else if (!d->has_exec)
		why = "no executable PT_LOAD segment";
	else if (!d->nr_text)
		why = "no executable section with contents";
	if (d->elf && d->machine != EM_RISCV)
		fprintf(stderr, "perf-ctr aggregate: warning: %s is not a RISC-V binary (e_machine %u)\n",
			path, d->machine);
	if (!why && debug && (!d->dbg_elf || !pc_elf_has_debug(d->dbg_elf))) {
		path = debug;
		why = "no DWARF debug information";
	}
	if (why) {
		fprintf(stderr, "perf-ctr aggregate: %s: %s\n", path, why);
		pc_dso_free(d);
		return NULL;
	}
	if (d->dbg_path && pc_verbose)
		fprintf(stderr, "perf-ctr aggregate: debug information of %s from %s\n",
			path, d->dbg_path);
	return d;
}

/* The usage's text around the formats of afdo_formats[]. */
static const char *about_text(void)
{
	static char text[2048];
	const struct afdo_format *f;
	size_t n;

	n = snprintf(text, sizeof(text),
		     "  Turns branch stacks of B into an AutoFDO profile. Formats:\n");
	for (f = afdo_formats; f->name && n < sizeof(text); f++)
		n += snprintf(text + n, sizeof(text) - n, "    %-13s %s\n",
			      f->name, f->help);
	if (n < sizeof(text))
		snprintf(text + n, sizeof(text) - n,
"  Several -i recordings are merged into one profile. The profile appears\n"
"  whole or not at all. -v: counts of what was used\n"
"  and what was dropped; --symfs DIR: look for B under DIR when it is not\n"
"  found as given.\n");
	return text;
}

#define MAX_INPUTS 256

struct inputs {
	const char *file[MAX_INPUTS];
	unsigned int nr;
};

/* -i FILE, once per recording to merge. */
static int add_input(const struct pc_option *opt, const char *arg)
{
	struct inputs *in = opt->value;

	if (in->nr == MAX_INPUTS) {
		fprintf(stderr, "perf-ctr aggregate: more than %d inputs\n", MAX_INPUTS);
		return -1;
	}
	in->file[in->nr++] = arg;
	return 0;
}

static int set_weight(const struct pc_option *opt, const char *arg)
{
	bool *window = opt->value;

	if (!strcmp(arg, "window") || !strcmp(arg, "none")) {
		*window = !strcmp(arg, "window");
		return 0;
	}
	fprintf(stderr, "perf-ctr aggregate: --weight is window or none, not '%s'\n", arg);
	return -1;
}

/* Resident anonymous memory (the tables; not the mapped input) in KiB. */
static unsigned long rss_anon_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %lu", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static void print_stats(const struct agg_ctx *c)
{
	const struct afdo_stats *st = &c->counts.st;
	size_t tables = afdo_counts_bytes(&c->counts);
	char not_taken[64] = "";

	if (st->branches_not_taken)
		snprintf(not_taken, sizeof(not_taken), "; %llu not taken, no edge",
			 (unsigned long long)st->branches_not_taken);
	fprintf(stderr,
		"perf-ctr aggregate: %llu samples (%llu outside %s, %llu with no records), %llu records\n"
		"  branches: %llu, %llu unique, %llu with an end outside the binary's text, %llu traps%s\n"
		"  function entries: %llu, %llu from outside the binary\n"
		"  ranges: %llu, %llu unique; rejected: %llu start after end, %llu outside the text or across sections, %llu misaligned, %llu unique across functions, %llu unique through a jump, %llu unique empty\n"
		"  sample addresses: %llu unique; mappings: %llu seen, %llu of the binary;"
		" %llu processes, %llu forks, %llu execs\n"
		"  dropped by the kernel: %llu records, %llu samples; throttled %llu times;"
		" %llu samples of a filter that gives no ranges\n"
		"  memory: %zu KiB of tables, %lu KiB anonymous resident\n",
		(unsigned long long)st->samples, (unsigned long long)st->samples_other,
		c->bin_base, (unsigned long long)st->empty_stacks,
		(unsigned long long)st->records,
		(unsigned long long)st->branches, (unsigned long long)c->counts.branches.used,
		(unsigned long long)st->branches_outside,
		(unsigned long long)st->traps, not_taken,
		(unsigned long long)st->entries,
		(unsigned long long)st->entries_outside,
		(unsigned long long)st->ranges, (unsigned long long)c->counts.ranges.used,
		(unsigned long long)st->ranges_bad_order,
		(unsigned long long)st->ranges_outside,
		(unsigned long long)st->ranges_misaligned,
		(unsigned long long)st->ranges_cross_func,
		(unsigned long long)st->ranges_cross_jump,
		(unsigned long long)st->ranges_empty,
		(unsigned long long)c->counts.addrs.used,
		(unsigned long long)c->mmaps, (unsigned long long)c->maps_bin,
		(unsigned long long)c->procs, (unsigned long long)c->forks,
		(unsigned long long)c->execs,
		(unsigned long long)c->lost_records, (unsigned long long)c->lost_samples,
		(unsigned long long)c->throttled, (unsigned long long)c->samples_filtered,
		tables / 1024, rss_anon_kb());
	if (c->counts.origins)
		fprintf(stderr, "  mispredicted: %llu records with an end in the binary\n",
			(unsigned long long)st->mispredicts);
	/* llvm-profgen drops a sample whose chain is empty or starts in a prologue */
	if (c->stacks)
		fprintf(stderr, "  call chains: %llu samples, %llu unwound, %zu contexts\n",
			(unsigned long long)c->ctxs.samples,
			(unsigned long long)c->ctxs.unwound, c->ctxs.n);
}

int cmd_aggregate(int argc, char **argv)
{
	const char *input, *output = NULL, *binary = NULL, *debug = NULL;
	const char *fmt_name = "autofdo-text", *symfs, *in_fmt = "perf";
	struct inputs inputs = { .nr = 0 };
	unsigned long gcc_version = 0;
	bool window = false, no_preinline = false, native = false;
	unsigned int n;
	char path[4096];
	const struct pc_usage usage = {
		.cmd = "aggregate",
		.synopsis = "--binary B [options]",
		.about = about_text(),
	};
	const struct afdo_format *fmt;
	struct afdo_notes notes;
	struct afdo_input ain;
	struct pc_dso *bin;
	struct agg_ctx c;
	struct pc_handlers h;
	struct pc_error perr;
	struct stat sb;
	char *tmp = NULL;
	FILE *out;
	int rc;
	const struct pc_option opts[] = {
		PC_CALLBACK('i', "input", &inputs, "FILE",
			    "perf.data to read (default perf.data, - for stdin);\n"
			    "give it again to merge several recordings", add_input),
		PC_STRING('o', "output", &output, "FILE",
			  "where the profile goes (- for stdout)"),
		PC_STRING('b', "binary", &binary, "B",
			  "the profiled program, with debug info for the\n"
			  "symbolized formats; matched by build id, else name"),
		PC_STRING('f', "format", &fmt_name, "F", "one of the formats above"),
		PC_STRING(0, "debug-binary", &debug, "FILE",
			  "B's DWARF and symbols are in FILE (objcopy\n"
			  "--only-keep-debug); else in B, or found by its build\n"
			  "id or .gnu_debuglink"),
		PC_CALLBACK(0, "weight", &window, "window|none",
			    "window: weigh each sample's records by 1 / its\n"
			    "window's length (samples of a non-branch event);\n"
			    "none (default): every record counts 1, as\n"
			    "llvm-profgen counts", set_weight),
		PC_BOOL(0, "no-preinline", &no_preinline,
			"llvm-cs: every calling context as it ran, none\n"
			"folded into its function's base profile by\n"
			"llvm-profgen's pre-inliner"),
		PC_BOOL(0, "native-calls", &native,
			"llvm-cs: calls and returns as RISC-V makes them\n"
			"(llvm-profgen 19 sees c.jalr only), a call site\n"
			"named by the probe in its DWARF discriminator"),
		PC_ULONG(0, "gcc-version", &gcc_version, "N",
			 "the GCC the gcov profile is for (default: the one\n"
			 "in B's DWARF); 13 and later get discriminators,\n"
			 "16 and later gcov version 3"),
		PC_STRING(0, "input-format", &in_fmt, "perf|brstack",
			  "brstack: FILE is `perf script -F ip,brstack`\n"
			  "text (link-time addresses, no relocation)"),
		PC_END(),
	};

	/* -v and --symfs are common options: they set pc_verbose and pc_symfs. */
	argc = pc_parse_options(argc, argv, opts, &usage, 0);
	if (argc < 0)
		return pc_parse_exit(argc);
	symfs = pc_symfs;
	if (!inputs.nr)
		inputs.file[inputs.nr++] = "perf.data";
	input = inputs.file[0];
	if (!binary)
		return pc_usage_error(opts, &usage, "--binary is required");
	fmt = afdo_format_find(fmt_name);
	if (!fmt) {
		const struct afdo_format *f;

		fprintf(stderr, "perf-ctr aggregate: unknown format '%s' (", fmt_name);
		for (f = afdo_formats; f->name; f++)
			fprintf(stderr, "%s%s", f == afdo_formats ? "" : ", ", f->name);
		fprintf(stderr, ")\n");
		return 2;
	}
	if ((no_preinline || native) && !fmt->stacks)
		return pc_usage_error(opts, &usage, "--no-preinline and --native-calls are options of -f llvm-cs");
	if (strcmp(in_fmt, "perf") && strcmp(in_fmt, "brstack")) {
		fprintf(stderr, "perf-ctr aggregate: unknown input format '%s' (perf, brstack)\n", in_fmt);
		return 2;
	}
	if (stat(binary, &sb) && symfs && *symfs) {
		snprintf(path, sizeof(path), "%s/%s", symfs, binary);
		binary = path;
	}
	bin = open_binary(binary, debug);
	if (!bin)
		return 1;

	memset(&c, 0, sizeof(c));
	c.bin = bin;
	c.bin_base = base_name(binary);
	c.progress = isatty(2);
	c.window_weight = window;
	init_kinds(c.kind);
	if (window)
		c.insn_bytes_x256 = mean_insn_bytes_x256(bin);
	if (afdo_counts_init(&c.counts)) {
		fprintf(stderr, "perf-ctr aggregate: out of memory\n");
		pc_dso_free(bin);
		return 1;
	}
	c.counts.origins = fmt->origins;
	c.stacks = fmt->stacks;
	if (c.stacks && afdo_ctxs_init(&c.ctxs, bin, native)) {
		fprintf(stderr, "perf-ctr aggregate: out of memory\n");
		afdo_counts_free(&c.counts);
		pc_dso_free(bin);
		return 1;
	}
	memset(&h, 0, sizeof(h));
	h.sample = on_sample;
	h.lost = on_lost;
	h.restart = on_restart;
	/* Each recording has its own processes: one model each, one profile. */
	for (n = 0, rc = 0; n < inputs.nr && !rc && !c.oom; n++) {
		input = inputs.file[n];
		memset(&perr, 0, sizeof(perr));
		c.file_size = 0;
		if (strcmp(input, "-") && !stat(input, &sb))
			c.file_size = (uint64_t)sb.st_size;
		pc_machine_free(&c.mc);
		pc_machine_init(&c.mc);
		c.mode = MODE_UNDECIDED;
		c.decided = false;
		memset(c.win, 0, sizeof(c.win));
		c.lost_before[0] = c.lost_records;
		c.lost_before[1] = c.lost_samples;
		c.lost_before[2] = c.throttled;
		if (!strcmp(in_fmt, "brstack"))
			rc = read_brstack_text(input, &c, &perr);
		else
			rc = pc_machine_read(&c.mc, input, &h, &c, &perr);
		if (!rc)
			tally(&c);
	}
	if (c.progress && c.counts.st.samples >= 0x10000)
		fputc('\n', stderr);
	if (c.oom) {
		fprintf(stderr, "perf-ctr aggregate: out of memory\n");
		rc = 1;
		goto done;
	}
	if (rc) {
		fprintf(stderr, "%s: offset 0x%llx: %s\n", input,
			(unsigned long long)perr.offset,
			perr.msg[0] ? perr.msg : "error");
		rc = 1;
		goto done;
	}
	if (afdo_counts_finish(&c.counts, bin)) {
		fprintf(stderr, "perf-ctr aggregate: out of memory\n");
		rc = 1;
		goto done;
	}
	if (pc_verbose)
		print_stats(&c);
	if (c.lost_records || c.lost_samples || c.throttled)
		fprintf(stderr, "perf-ctr aggregate: warning: the kernel dropped %llu records and %llu samples and throttled sampling %llu times: hot code is undercounted (record with a longer period)\n",
			(unsigned long long)c.lost_records,
			(unsigned long long)c.lost_samples,
			(unsigned long long)c.throttled);
	if (c.samples_filtered) {
		bool none = !c.counts.st.samples;

		fprintf(stderr, "perf-ctr aggregate: %s: %llu samples have branch filter 0x%llx: fall-through ranges need every taken branch (perf record -b or -j any)%s\n",
			none ? "error" : "warning",
			(unsigned long long)c.samples_filtered,
			(unsigned long long)c.filter_seen,
			none ? "" : "; left out");
		if (none) {
			rc = 1;
			goto done;
		}
	}
	if (c.build_id_mismatch)
		fprintf(stderr, "perf-ctr aggregate: warning: %s has another build id in %s: the profile may not fit it\n",
			binary, input);
	if (afdo_counts_empty(&c.counts)) {
		fprintf(stderr, "perf-ctr aggregate: no sample of %s in %s (%llu samples, %llu mappings of it)\n",
			binary, input, (unsigned long long)c.counts.st.samples,
			(unsigned long long)c.maps_bin);
		rc = 1;
		goto done;
	}

	if (!output)
		output = fmt->default_output;
	out = pc_output_open(output, &tmp);
	if (!out) {
		fprintf(stderr, "perf-ctr aggregate: %s: %s\n", output, strerror(errno));
		rc = 1;
		goto done;
	}
	memset(&notes, 0, sizeof(notes));
	ain.counts = &c.counts;
	ain.ctxs = c.stacks ? &c.ctxs : NULL;
	ain.bin = bin;
	ain.gcc_version = (int)gcc_version;
	ain.cs_no_preinline = no_preinline;
	rc = fmt->write(out, &ain, &notes);
	if (rc && notes.err[0])
		fprintf(stderr, "perf-ctr aggregate: %s\n", notes.err);
	if (!rc && notes.gcc && pc_verbose)
		fprintf(stderr, "perf-ctr aggregate: GCC %d profile: %s discriminators\n",
			notes.gcc_version, notes.discriminators ? "with" : "without");
	/* lines name a probe profile's native call sites, not its counts */
	if (!rc && bin->dwarf && (!notes.probes || native)) {
		const char *cu, *why;
		size_t bad = pc_dwarf_bad_lines(bin->dwarf, &cu, &why);

		if (bad)
			fprintf(stderr, "perf-ctr aggregate: warning: libdw could not read the line table of %zu compile unit%s (%s: %s): %s; an elfutils that reads this DWARF (0.196 does) is needed\n",
				bad, bad == 1 ? "" : "s", cu, why,
				notes.probes ? "their calls are no call sites of contexts" :
				"their instructions have no line in the profile");
	}
	if (!rc && notes.skipped_lines && pc_verbose)
		fprintf(stderr, "perf-ctr aggregate: %llu locations of line 0 or 2^16 lines from their function's skipped\n",
			(unsigned long long)notes.skipped_lines);
	if (pc_output_close(out, tmp, rc == 0)) {
		fprintf(stderr, "perf-ctr aggregate: %s: write error: %s\n", output,
			strerror(errno));
		rc = -1;
	}
	rc = rc ? 1 : 0;
done:
	afdo_counts_free(&c.counts);
	free(c.recs);
	free(c.frames);
	free(c.pairs);
	afdo_ctxs_free(&c.ctxs);
	pc_machine_free(&c.mc);
	pc_dso_free(bin);
	return rc;
}

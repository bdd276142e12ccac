// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: branch stacks to AutoFDO profiles.
 *
 * Each sample's records, youngest first, give branch counts (from -> to)
 * and fall-through ranges: the target of a record runs straight to the
 * source of the next younger record, which is the last instruction of
 * the range. Addresses are relocated through the MMAP/MMAP2 records of
 * the --binary (matched by build id, else by file name) to its link-time
 * addresses; everything else is counted and dropped. The counts live in
 * hash tables whose size follows the number of distinct ranges and
 * branches, never the number of records.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "perf-ctr.h"
#include "afdo.h"

#ifndef PERF_RECORD_MISC_MMAP_DATA
#define PERF_RECORD_MISC_MMAP_DATA (1 << 13)
#endif

int afdo_verbose;

struct rmap {
	uint32_t pid;
	uint64_t start, end;	/* runtime [start, end) */
	uint64_t delta;		/* link-time = runtime + delta (mod 2^64) */
};

enum { MODE_UNDECIDED, MODE_MAPPED, MODE_IDENTITY };

struct agg_ctx {
	struct afdo_bin *bin;
	struct afdo_agg g;
	const char *bin_base;	/* file name part of --binary */
	struct rmap *maps;
	size_t nmaps, cmaps, last;
	int mode;
	uint64_t mmaps_seen, mmaps_bin;
	bool build_id_mismatch;
	bool progress;
	uint64_t file_size;
	time_t last_progress;
	int oom;
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static bool same_file(struct agg_ctx *c, const struct pc_mmap *m)
{
	if (m->build_id_size && c->bin->build_id_size)
		return m->build_id_size >= c->bin->build_id_size &&
		       !memcmp(m->build_id, c->bin->build_id, c->bin->build_id_size);
	return m->filename && !strcmp(base_name(m->filename), c->bin_base);
}

static int on_mmap(void *vc, const struct pc_mmap *m)
{
	struct agg_ctx *c = vc;
	unsigned int i;

	c->mmaps_seen++;
	if ((m->misc & PERF_RECORD_MISC_MMAP_DATA) || !same_file(c, m))
		return 0;
	c->mmaps_bin++;
	/* one entry per executable segment that this mapping covers */
	for (i = 0; i < c->bin->nseg; i++) {
		const struct afdo_seg *s = &c->bin->seg[i];
		uint64_t lo, hi;

		if (!(s->flags & 1 /* PF_X */))
			continue;
		lo = m->pgoff > s->offset ? m->pgoff : s->offset;
		hi = m->pgoff + m->len < s->offset + s->filesz ?
		     m->pgoff + m->len : s->offset + s->filesz;
		if (lo >= hi)
			continue;
		if (c->nmaps == c->cmaps) {
			size_t n = c->cmaps ? c->cmaps * 2 : 16;
			struct rmap *v = realloc(c->maps, n * sizeof(*v));

			if (!v) {
				c->oom = 1;
				return -1;
			}
			c->maps = v;
			c->cmaps = n;
		}
		c->maps[c->nmaps].pid = m->pid;
		c->maps[c->nmaps].start = m->start + (lo - m->pgoff);
		c->maps[c->nmaps].end = m->start + (hi - m->pgoff);
		c->maps[c->nmaps].delta = s->vaddr - s->offset + m->pgoff - m->start;
		c->nmaps++;
	}
	return 0;
}

static int on_build_id(void *vc, const struct pc_mmap *b)
{
	struct agg_ctx *c = vc;

	if (b->filename && !strcmp(base_name(b->filename), c->bin_base) &&
	    b->build_id_size && c->bin->build_id_size &&
	    memcmp(b->build_id, c->bin->build_id, c->bin->build_id_size))
		c->build_id_mismatch = true;
	return 0;
}

/* Runtime ADDR of process PID to a link-time address of the binary. */
static inline bool reloc(struct agg_ctx *c, uint32_t pid, uint64_t addr,
			 uint64_t *out)
{
	const struct rmap *m;
	size_t i;

	if (c->mode == MODE_IDENTITY) {
		*out = addr;
		return true;
	}
	if (!c->nmaps)
		return false;
	m = &c->maps[c->last];
	if (m->pid == pid && addr - m->start < m->end - m->start) {
		*out = addr + m->delta;
		return true;
	}
	/*
	 * Newest first: a later exec in the same pid wins. A mapping of
	 * another process serves when PID has none (samples without
	 * PERF_SAMPLE_TID, or threads whose mmaps were not recorded).
	 */
	size_t other = SIZE_MAX;

	for (i = c->nmaps; i-- > 0;) {
		m = &c->maps[i];
		if (addr - m->start >= m->end - m->start)
			continue;
		if (m->pid == pid) {
			c->last = i;
			*out = addr + m->delta;
			return true;
		}
		if (other == SIZE_MAX)
			other = i;
	}
	if (other == SIZE_MAX)
		return false;
	*out = addr + c->maps[other].delta;
	return true;
}

static void progress(struct agg_ctx *c, const struct pc_sample *s)
{
	time_t now = time(NULL);

	if (now == c->last_progress)
		return;
	c->last_progress = now;
	if (c->file_size)
		fprintf(stderr, "\rperf-ctr aggregate: %llu samples, %3.0f%%",
			(unsigned long long)c->g.st.samples,
			100.0 * (double)s->offset / (double)c->file_size);
	else
		fprintf(stderr, "\rperf-ctr aggregate: %llu samples",
			(unsigned long long)c->g.st.samples);
}

static int on_sample(void *vc, const struct pc_sample *s)
{
	struct agg_ctx *c = vc;
	struct afdo_stats *st = &c->g.st;
	const struct afdo_bin *b = c->bin;
	uint64_t ip, prev_from = 0, i;
	bool prev_ok = false, prev_mapped = false;
	uint32_t pid = s->pid;

	if (c->mode == MODE_UNDECIDED) {
		c->mode = c->nmaps ? MODE_MAPPED : MODE_IDENTITY;
		if (c->mode == MODE_IDENTITY)
			fprintf(stderr, "perf-ctr aggregate: warning: no mapping of %s before the first sample: addresses are taken as its link-time addresses\n",
				c->bin->path);
	}
	st->samples++;
	if (c->progress && !(st->samples & 0xffff))
		progress(c, s);
	if (reloc(c, pid, s->ip, &ip) && afdo_text_at(b, ip)) {
		if (afdo_map_add(&c->g.addrs, ip, 0, 1))
			goto oom;
	} else {
		st->samples_other++;
	}
	if (!s->nr) {
		st->empty_stacks++;
		return 0;
	}
	st->records += s->nr;
	for (i = 0; i < s->nr; i++) {
		uint64_t from = 0, to = 0;
		bool fm = reloc(c, pid, s->br[i].from, &from);
		bool tm = reloc(c, pid, s->br[i].to, &to);
		bool fok = fm && afdo_text_at(b, from);
		bool tok = tm && afdo_text_at(b, to);

		st->branches++;
		if (fok && tok) {
			if (afdo_map_add(&c->g.branches, from, to, 1))
				goto oom;
		} else {
			st->branches_outside++;
		}
		if (i) {
			/* this (older) record's target runs to the younger's source */
			st->ranges++;
			if (tok && prev_ok) {
				if (to > prev_from)
					st->ranges_bad_order++;
				else if (afdo_text_at(b, to) != afdo_text_at(b, prev_from))
					st->ranges_outside++;
				else if ((to | prev_from) & 1)
					st->ranges_misaligned++;
				else if (afdo_map_add(&c->g.ranges, to, prev_from, 1))
					goto oom;
			} else if (tm || prev_mapped) {
				/* one end in the binary, the other not */
				st->ranges_outside++;
			}
		}
		prev_from = from;
		prev_ok = fok;
		prev_mapped = fm;
	}
	return 0;
oom:
	c->oom = 1;
	return -1;
}

/*
 * The text of `perf script -F [pid,]ip,brstack`: one sample a line, an
 * optional decimal pid, the hex ip, then FROM/TO/... records, youngest
 * first. No mappings: addresses are the binary's link-time ones.
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
 * A fall-through range never leaves its function: drop the unique ranges
 * whose ends lie in different function symbols (a stripped binary keeps
 * all). Done once on the unique ranges, not per record.
 */
static int drop_cross_function(struct afdo_agg *g, const struct afdo_bin *b)
{
	struct afdo_map m;
	size_t i;

	if (!b->nfs)
		return 0;
	if (afdo_map_init(&m, (g->ranges.used + 1) * 2))
		return -1;
	for (i = 0; i <= g->ranges.mask; i++) {
		const struct afdo_cnt *r = &g->ranges.t[i];
		uint64_t e1 = 1, e2 = 2;

		if (!r->n)
			continue;
		afdo_func_at(b, r->a, &e1);
		afdo_func_at(b, r->b, &e2);
		if (e1 != e2) {
			g->st.ranges_cross_func++;
			continue;
		}
		if (afdo_map_add(&m, r->a, r->b, r->n)) {
			afdo_map_free(&m);
			return -1;
		}
	}
	afdo_map_free(&g->ranges);
	g->ranges = m;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: perf-ctr aggregate --binary B [--format F] [-i FILE] [-o FILE]\n"
"                          [--symfs DIR] [--input-format perf|brstack] [-v]\n"
"\n"
"  Turns branch stacks of B into an AutoFDO profile. Formats:\n"
"    autofdo-text  create_gcov --profiler=text input (default; stdout)\n"
"    llvm-unsym    llvm-profgen --unsymbolized-profile input (stdout)\n"
"    llvm-text     LLVM sample profile text, clang -fprofile-sample-use (stdout)\n"
"    gcov          GCC >= 12 -fauto-profile file (default -o fbdata.afdo)\n"
"\n"
"  -i, --input FILE     perf.data to read (default perf.data, '-' for stdin)\n"
"  -o, --output FILE    where the profile goes ('-' for stdout)\n"
"  -b, --binary B       the profiled program, with debug info for the\n"
"                       symbolized formats; matched by build id, else name\n"
"  -f, --format F       one of the formats above\n"
"      --symfs DIR      look for B under DIR when it is not found as given\n"
"      --input-format   'brstack': FILE is `perf script -F ip,brstack` text\n"
"                       (link-time addresses, no relocation)\n"
"  -v, --verbose        counts of what was used and what was dropped\n");
}

static const struct {
	const char *name;
	enum afdo_format fmt;
} formats[] = {
	{ "autofdo-text", AFDO_FMT_AUTOFDO_TEXT },
	{ "llvm-unsym", AFDO_FMT_LLVM_UNSYM },
	{ "llvm-text", AFDO_FMT_LLVM_TEXT },
	{ "gcov", AFDO_FMT_GCOV },
};

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
	const struct afdo_stats *st = &c->g.st;
	size_t tables = (c->g.ranges.mask + c->g.branches.mask + c->g.addrs.mask + 3) *
			sizeof(struct afdo_cnt);

	fprintf(stderr,
		"perf-ctr aggregate: %llu samples (%llu outside %s, %llu with no records), %llu records\n"
		"  branches: %llu, %llu unique, %llu with an end outside the binary's text\n"
		"  ranges: %llu, %llu unique; rejected: %llu start after end, %llu outside the text or across sections, %llu misaligned, %llu unique across functions\n"
		"  sample addresses: %llu unique; mappings: %llu seen, %llu of the binary\n"
		"  memory: %zu KiB of tables, %lu KiB anonymous resident\n",
		(unsigned long long)st->samples, (unsigned long long)st->samples_other,
		c->bin_base, (unsigned long long)st->empty_stacks,
		(unsigned long long)st->records,
		(unsigned long long)st->branches, (unsigned long long)c->g.branches.used,
		(unsigned long long)st->branches_outside,
		(unsigned long long)st->ranges, (unsigned long long)c->g.ranges.used,
		(unsigned long long)st->ranges_bad_order,
		(unsigned long long)st->ranges_outside,
		(unsigned long long)st->ranges_misaligned,
		(unsigned long long)st->ranges_cross_func,
		(unsigned long long)c->g.addrs.used,
		(unsigned long long)c->mmaps_seen, (unsigned long long)c->mmaps_bin,
		tables / 1024, rss_anon_kb());
}

int cmd_aggregate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "binary", required_argument, NULL, 'b' },
		{ "format", required_argument, NULL, 'f' },
		{ "symfs", required_argument, NULL, 'S' },
		{ "input-format", required_argument, NULL, 'I' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "perf.data", *output = NULL, *binary = NULL;
	const char *fmt_name = "autofdo-text", *symfs = pc_symfs, *in_fmt = "perf";
	char path[4096], err[512];
	struct afdo_bin bin;
	struct agg_ctx c;
	struct pc_handlers h;
	struct pc_error perr;
	enum afdo_format fmt = AFDO_FMT_AUTOFDO_TEXT;
	struct stat sb;
	FILE *out;
	size_t i;
	int o, rc;

	afdo_verbose = pc_verbose;
	optind = 1;
	while ((o = getopt_long(argc, argv, "i:o:b:f:vh", opts, NULL)) != -1) {
		switch (o) {
		case 'i': input = optarg; break;
		case 'o': output = optarg; break;
		case 'b': binary = optarg; break;
		case 'f': fmt_name = optarg; break;
		case 'S': symfs = optarg; break;
		case 'I': in_fmt = optarg; break;
		case 'v': afdo_verbose++; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perf-ctr aggregate: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!binary) {
		fprintf(stderr, "perf-ctr aggregate: --binary is required\n");
		usage(stderr);
		return 2;
	}
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(fmt_name, formats[i].name))
			break;
	if (i == sizeof(formats) / sizeof(formats[0])) {
		fprintf(stderr, "perf-ctr aggregate: unknown format '%s' (autofdo-text, llvm-unsym, llvm-text, gcov)\n",
			fmt_name);
		return 2;
	}
	fmt = formats[i].fmt;
	if (strcmp(in_fmt, "perf") && strcmp(in_fmt, "brstack")) {
		fprintf(stderr, "perf-ctr aggregate: unknown input format '%s' (perf, brstack)\n", in_fmt);
		return 2;
	}
	if (stat(binary, &sb) && symfs && *symfs) {
		snprintf(path, sizeof(path), "%s/%s", symfs, binary);
		binary = path;
	}
	if (afdo_bin_open(&bin, binary, err, sizeof(err))) {
		fprintf(stderr, "perf-ctr aggregate: %s\n", err);
		return 1;
	}

	memset(&c, 0, sizeof(c));
	c.bin = &bin;
	c.bin_base = base_name(binary);
	c.progress = isatty(2);
	if (strcmp(input, "-") && !stat(input, &sb))
		c.file_size = (uint64_t)sb.st_size;
	if (afdo_map_init(&c.g.ranges, 1 << 12) || afdo_map_init(&c.g.branches, 1 << 12) ||
	    afdo_map_init(&c.g.addrs, 1 << 10)) {
		fprintf(stderr, "perf-ctr aggregate: out of memory\n");
		return 1;
	}
	memset(&h, 0, sizeof(h));
	h.sample = on_sample;
	h.mmap = on_mmap;
	h.build_id = on_build_id;
	memset(&perr, 0, sizeof(perr));
	if (!strcmp(in_fmt, "brstack"))
		rc = read_brstack_text(input, &c, &perr);
	else
		rc = pc_read_file(input, &h, &c, &perr);
	if (c.progress && c.g.st.samples >= 0x10000)
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
	if (drop_cross_function(&c.g, &bin)) {
		fprintf(stderr, "perf-ctr aggregate: out of memory\n");
		rc = 1;
		goto done;
	}
	if (afdo_verbose)
		print_stats(&c);
	if (c.build_id_mismatch)
		fprintf(stderr, "perf-ctr aggregate: warning: %s has another build id in %s: the profile may not fit it\n",
			binary, input);
	if (!c.g.ranges.used && !c.g.addrs.used && !c.g.branches.used) {
		fprintf(stderr, "perf-ctr aggregate: no sample of %s in %s (%llu samples, %llu mappings of it)\n",
			binary, input, (unsigned long long)c.g.st.samples,
			(unsigned long long)c.mmaps_bin);
		rc = 1;
		goto done;
	}

	if (!output)
		output = fmt == AFDO_FMT_GCOV ? "fbdata.afdo" : "-";
	out = strcmp(output, "-") ? fopen(output, "wb") : stdout;
	if (!out) {
		fprintf(stderr, "perf-ctr aggregate: %s: %s\n", output, strerror(errno));
		rc = 1;
		goto done;
	}
	switch (fmt) {
	case AFDO_FMT_AUTOFDO_TEXT:
		rc = afdo_write_autofdo_text(out, &c.g, &bin);
		break;
	case AFDO_FMT_LLVM_UNSYM:
		rc = afdo_write_llvm_unsym(out, &c.g, &bin);
		break;
	default:
		err[0] = 0;
		rc = afdo_write_symbolized(out, fmt, &c.g, &bin, err, sizeof(err));
		if (rc && err[0])
			fprintf(stderr, "perf-ctr aggregate: %s\n", err);
		break;
	}
	if (fflush(out) || ferror(out)) {
		fprintf(stderr, "perf-ctr aggregate: %s: write error\n", output);
		rc = -1;
	}
	if (out != stdout)
		fclose(out);
	rc = rc ? 1 : 0;
done:
	afdo_map_free(&c.g.ranges);
	afdo_map_free(&c.g.branches);
	afdo_map_free(&c.g.addrs);
	free(c.maps);
	afdo_bin_close(&bin);
	return rc;
}

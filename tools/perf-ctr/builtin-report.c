// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr report: the hottest branch edges and functions of a perf.data.
 *
 * Records are counted by raw (from, to) in one pass; only what is printed
 * is symbolized (ELF symbols, then DWARF for file:line and inlined frames),
 * so the cost of libdw does not grow with the file. --folded prints call
 * stacks for flame graphs instead: from the callchain when samples have
 * one, else from a call-stack branch stack (-j stack: every entry is a
 * call that has not returned yet), else the sampled ip alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf-ctr.h"
#include "builtin.h"
#include "machine.h"
#include "options.h"

/*
 * An edge is counted per (from, to, file mapped at from in the sampled
 * process): two processes running different files at the same addresses
 * keep apart. The pid and time of its first sample name it.
 */
struct edge {
	uint64_t from, to;	/* from == 0 && to == 0: empty slot */
	const void *key;
	uint64_t time;
	uint32_t pid;
	uint8_t type, new_type, mixed;
	uint64_t count, mispred, cyc_sum, cyc_n;
};

struct func {
	const char *name;	/* symbol, or the DSO name when there is none */
	struct pc_dso *dso;
	uint64_t start;
	uint64_t count, mispred, cyc_sum, cyc_n, samples;
};

struct folded {
	char *stack;
	uint64_t count;
};

enum sort_key { S_COUNT, S_MISPRED, S_CYCLES };

struct report {
	struct pc_machine mc;
	struct edge *edges;
	size_t nr_edges, cap_edges;	/* cap: a power of two */
	bool zero_edge_used;
	struct edge zero_edge;
	uint64_t samples, br_samples, records, mispred, cyc_records, cyc_sum;
	uint64_t type_counts[32];
	bool has_flags, has_cycles;
	/* folded */
	bool folded;
	struct folded *fold;
	size_t nr_fold, cap_fold;
	/* progress */
	uint64_t file_size;
	bool progress;
	/* ip samples, by address, for the functions table */
	struct edge *ips;
	size_t nr_ips, cap_ips;
};

static uint64_t mix(uint64_t a, uint64_t b, const void *key)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL) ^
		     (uintptr_t)key;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 32);
}

/* Open addressing on (from, to); grows at 50% load. */
static struct edge *table_get(struct edge **tab, size_t *nr, size_t *cap,
			      uint64_t from, uint64_t to, const void *key)
{
	size_t i;

	if (*nr * 2 >= *cap) {
		size_t ncap = *cap ? *cap * 2 : 4096, j;
		struct edge *nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return NULL;
		for (j = 0; j < *cap; j++) {
			struct edge *e = &(*tab)[j];

			if (!e->from && !e->to)
				continue;
			for (i = mix(e->from, e->to, e->key) & (ncap - 1);
			     nt[i].from || nt[i].to;
			     i = (i + 1) & (ncap - 1))
				;
			nt[i] = *e;
		}
		free(*tab);
		*tab = nt;
		*cap = ncap;
	}
	for (i = mix(from, to, key) & (*cap - 1);; i = (i + 1) & (*cap - 1)) {
		struct edge *e = &(*tab)[i];

		if (e->from == from && e->to == to && e->key == key)
			return e;
		if (!e->from && !e->to) {
			e->from = from;
			e->to = to;
			e->key = key;
			(*nr)++;
			return e;
		}
	}
}

static struct edge *edge_get(struct report *r, uint64_t from, uint64_t to,
			     const void *key)
{
	/* (0, 0) marks empty slots: keep that edge aside. */
	if (!from && !to) {
		r->zero_edge_used = true;
		return &r->zero_edge;
	}
	return table_get(&r->edges, &r->nr_edges, &r->cap_edges, from, to, key);
}

/* "sym" or "[dso]" or "[unknown]": a folded frame. */
static void frame_name(struct report *r, const struct pc_sample *s,
		       uint64_t addr, char *buf, size_t len)
{
	struct pc_loc l;

	if (!pc_resolve(&r->mc, pc_sample_pid(s), pc_sample_time(s), addr, &l))
		snprintf(buf, len, "[unknown]");
	else if (l.sym)
		snprintf(buf, len, "%s", l.sym->name);
	else if (l.dso->name[0] == '[')	/* [kernel.kallsyms], [vdso] */
		snprintf(buf, len, "%s", l.dso->name);
	else
		snprintf(buf, len, "[%s]", strrchr(l.dso->name, '/') ?
			 strrchr(l.dso->name, '/') + 1 : l.dso->name);
}

static int fold_add(struct report *r, const char *stack)
{
	size_t i;

	/* Linear over a hash would do for small outputs; keep it a hash. */
	if (r->nr_fold * 2 >= r->cap_fold) {
		size_t ncap = r->cap_fold ? r->cap_fold * 2 : 1024, j;
		struct folded *nf = calloc(ncap, sizeof(*nf));

		if (!nf)
			return -1;
		for (j = 0; j < r->cap_fold; j++) {
			uint64_t h = 5381;
			const char *p;

			if (!r->fold[j].stack)
				continue;
			for (p = r->fold[j].stack; *p; p++)
				h = h * 33 + (unsigned char)*p;
			for (i = h & (ncap - 1); nf[i].stack; i = (i + 1) & (ncap - 1))
				;
			nf[i] = r->fold[j];
		}
		free(r->fold);
		r->fold = nf;
		r->cap_fold = ncap;
	}
	{
		uint64_t h = 5381;
		const char *p;

		for (p = stack; *p; p++)
			h = h * 33 + (unsigned char)*p;
		for (i = h & (r->cap_fold - 1); r->fold[i].stack;
		     i = (i + 1) & (r->cap_fold - 1))
			if (!strcmp(r->fold[i].stack, stack)) {
				r->fold[i].count++;
				return 0;
			}
	}
	r->fold[i].stack = strdup(stack);
	if (!r->fold[i].stack)
		return -1;
	r->fold[i].count = 1;
	r->nr_fold++;
	return 0;
}

#define PERF_CONTEXT_MAX_MARK ((uint64_t)-4095)

/* One folded line: comm;outermost;...;innermost. */
static int fold_sample(struct report *r, const struct pc_sample *s)
{
	char buf[16384], name[256];
	const char *comm;
	uint64_t frames[512], i;
	size_t n = 0, len;

	/*
	 * A call-stack branch stack (--call-graph lbr) is the better user
	 * stack: the callchain of such a sample is the frame-pointer walk
	 * perf also asks for, which code without frame pointers cuts short.
	 * Each record is a call not returned from: its source is the caller.
	 */
	if ((s->attr->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) &&
	    (s->attr->sample_type & PERF_SAMPLE_BRANCH_STACK)) {
		frames[n++] = s->ip;
		for (i = 0; i < s->nr && n < 512; i++)
			frames[n++] = s->br[i].from;
	} else {
		for (i = 0; i < s->callchain_nr && n < 512; i++)
			if (s->callchain[i] < PERF_CONTEXT_MAX_MARK)
				frames[n++] = s->callchain[i];
		if (!n)
			frames[n++] = s->ip;
	}
	/* The thread's name when it was sampled; perf's ":TID" if none. */
	comm = pc_machine_comm_at(&r->mc, pc_sample_pid(s), s->tid,
				  pc_sample_time(s));
	if (comm)
		len = snprintf(buf, sizeof(buf), "%s", comm);
	else if (s->attr && (s->attr->sample_type & PERF_SAMPLE_TID))
		len = snprintf(buf, sizeof(buf), ":%u", s->tid);
	else
		len = snprintf(buf, sizeof(buf), "[unknown]");
	/* frames[] is innermost first; folded stacks are outermost first. */
	while (n-- > 0 && len < sizeof(buf) - 1) {
		frame_name(r, s, frames[n], name, sizeof(name));
		len += snprintf(buf + len, sizeof(buf) - len, ";%s", name);
	}
	return fold_add(r, buf);
}

static void progress(struct report *r, const struct pc_sample *s)
{
	if (!r->progress || (r->samples & 0xffff) || !r->file_size)
		return;
	fprintf(stderr, "\rperf-ctr report: %3d%%",
		(int)(s->offset * 100 / r->file_size));
}

static int on_sample(void *ctx, const struct pc_sample *s)
{
	struct report *r = ctx;
	const struct pc_map *m;
	uint64_t i, time;
	struct edge *ip;
	uint32_t pid;

	r->samples++;
	progress(r, s);
	if (r->folded)
		return fold_sample(r, s);
	pid = pc_sample_pid(s);
	time = pc_sample_time(s);
	m = pc_machine_find(&r->mc, pid, time, s->ip);
	ip = table_get(&r->ips, &r->nr_ips, &r->cap_ips, s->ip | 1, pid,
		       m ? m->dso : NULL);
	if (!ip)
		return -1;
	if (!ip->count)
		ip->time = time;
	ip->count++;
	if (!(s->attr->sample_type & PERF_SAMPLE_BRANCH_STACK))
		return 0;
	r->br_samples++;
	r->records += s->nr;
	if (!(s->attr->branch_sample_type & PERF_SAMPLE_BRANCH_NO_FLAGS))
		r->has_flags = true;
	if (!(s->attr->branch_sample_type & PERF_SAMPLE_BRANCH_NO_CYCLES))
		r->has_cycles = true;
	for (i = 0; i < s->nr; i++) {
		const struct perf_branch_entry *b = &s->br[i];
		struct edge *e;

		m = pc_machine_find(&r->mc, pid, time, b->from);
		e = edge_get(r, b->from, b->to, m ? m->dso : NULL);
		if (!e)
			return -1;
		if (!e->count) {
			e->pid = pid;
			e->time = time;
			e->type = b->type;
			e->new_type = b->new_type;
		} else if (e->type != b->type || e->new_type != b->new_type) {
			e->mixed = 1;
		}
		e->count++;
		e->mispred += b->mispred;
		r->mispred += b->mispred;
		if (b->cycles) {
			e->cyc_sum += b->cycles;
			e->cyc_n++;
			r->cyc_sum += b->cycles;
			r->cyc_records++;
		}
		r->type_counts[b->type == PERF_BR_EXTEND_ABI ? 16 + b->new_type : b->type]++;
	}
	return 0;
}

static enum sort_key sort_by;

static uint64_t key_of(uint64_t count, uint64_t mispred, uint64_t cyc_sum)
{
	return sort_by == S_MISPRED ? mispred : sort_by == S_CYCLES ? cyc_sum : count;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	uint64_t kx = key_of(x->count, x->mispred, x->cyc_sum);
	uint64_t ky = key_of(y->count, y->mispred, y->cyc_sum);

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	uint64_t kx = key_of(x->count, x->mispred, x->cyc_sum);
	uint64_t ky = key_of(y->count, y->mispred, y->cyc_sum);

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* An address as "sym+0xoff", "dso+0xvaddr" or "0xaddr". */
static void addr_name(struct report *r, const struct edge *e, uint64_t addr,
		      char *buf, size_t len, struct pc_srcinfo *si)
{
	struct pc_loc l;
	const char *base;

	memset(si, 0, sizeof(*si));
	if (!pc_resolve(&r->mc, e->pid, e->time, addr, &l)) {
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
		return;
	}
	base = strrchr(l.dso->name, '/') ? strrchr(l.dso->name, '/') + 1 : l.dso->name;
	if (l.sym)
		snprintf(buf, len, "%s+0x%llx", l.sym->name,
			 (unsigned long long)(l.vaddr - l.sym->start));
	else
		snprintf(buf, len, "%s+0x%llx", base, (unsigned long long)l.vaddr);
	pc_dso_srcinfo(l.dso, l.vaddr, si);
}

/* "file:line", plus " [inlined: a <- b]" when the address is inlined code. */
static void src_text(const struct pc_srcinfo *si, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = 0;
	if (si->line)
		n = snprintf(buf, len, "%s:%d", si->file, si->line);
	if (si->nr_frames > 1) {
		n += snprintf(buf + n, len > n ? len - n : 0, "%s[inlined:", n ? " " : "");
		for (i = 0; i < si->nr_frames; i++)
			n += snprintf(buf + n, len > n ? len - n : 0, "%s%s",
				      i ? " <- " : " ", si->frames[i]);
		snprintf(buf + n, len > n ? len - n : 0, "]");
	}
}

static const char *type_name(uint8_t type, uint8_t new_type)
{
	struct perf_branch_entry e = { .type = type, .new_type = new_type };
	const char *n = pc_branch_type_name(&e);

	return *n ? n : "-";
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void json_src(FILE *f, const char *key, const struct pc_srcinfo *si)
{
	int i;

	fprintf(f, ", \"%s_src\": ", key);
	if (si->line) {
		char b[300];

		snprintf(b, sizeof(b), "%s:%d", si->file, si->line);
		json_str(f, b);
	} else {
		fputs("null", f);
	}
	fprintf(f, ", \"%s_inlined\": [", key);
	for (i = 0; si->nr_frames > 1 && i < si->nr_frames; i++) {
		fputs(i ? ", " : "", f);
		json_str(f, si->frames[i]);
	}
	fputc(']', f);
}

/* Functions: branch records leaving each, plus the samples in it. */
static struct func *build_funcs(struct report *r, size_t *nr)
{
	struct func *fs = NULL;
	size_t n = 0, cap = 0, i, j;
	struct edge *all[2] = { r->edges, r->ips };
	size_t caps[2] = { r->cap_edges, r->cap_ips };
	int t;

	for (t = 0; t < 2; t++) {
		for (i = 0; i < caps[t]; i++) {
			struct edge *e = &all[t][i];
			uint64_t addr = t ? e->from & ~1ULL : e->from;
			uint32_t pid = t ? (uint32_t)e->to : e->pid;
			struct pc_loc l;
			const char *name;
			uint64_t start;

			if (!e->count)
				continue;
			if (pc_resolve(&r->mc, pid, e->time, addr, &l) && l.sym) {
				name = l.sym->name;
				start = l.sym->start;
			} else if (l.map) {
				name = l.dso->name;
				start = 0;
			} else {
				name = "[unknown]";
				start = 0;
			}
			for (j = 0; j < n; j++)
				if (fs[j].start == start && fs[j].dso == l.dso &&
				    !strcmp(fs[j].name, name))
					break;
			if (j == n) {
				if (n == cap) {
					cap = cap ? cap * 2 : 256;
					fs = realloc(fs, cap * sizeof(*fs));
					if (!fs)
						return NULL;
				}
				memset(&fs[n], 0, sizeof(fs[n]));
				fs[n].name = name;
				fs[n].dso = l.map ? l.dso : NULL;
				fs[n].start = start;
				n++;
			}
			if (t) {
				fs[j].samples += e->count;
			} else {
				fs[j].count += e->count;
				fs[j].mispred += e->mispred;
				fs[j].cyc_sum += e->cyc_sum;
				fs[j].cyc_n += e->cyc_n;
			}
		}
	}
	*nr = n;
	return fs;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * a / b : 0;
}

static double avg(uint64_t sum, uint64_t n)
{
	return n ? (double)sum / n : 0;
}

static void print_report(struct report *r, size_t limit, bool json)
{
	struct edge *es = malloc((r->nr_edges + 1) * sizeof(*es));
	struct func *fs;
	size_t n = 0, i, nf = 0;
	char from[512], to[512], sf[512], st[512];
	struct pc_srcinfo a, b;

	if (!es)
		return;
	for (i = 0; i < r->cap_edges; i++)
		if (r->edges[i].count)
			es[n++] = r->edges[i];
	if (r->zero_edge_used)
		es[n++] = r->zero_edge;
	qsort(es, n, sizeof(*es), cmp_edge);
	fs = build_funcs(r, &nf);
	if (fs)
		qsort(fs, nf, sizeof(*fs), cmp_func);

	if (json) {
		printf("{\"samples\": %llu, \"branch_samples\": %llu, \"records\": %llu, "
		       "\"mispredicted\": %llu, \"cycles_records\": %llu, \"edges\": [",
		       (unsigned long long)r->samples, (unsigned long long)r->br_samples,
		       (unsigned long long)r->records, (unsigned long long)r->mispred,
		       (unsigned long long)r->cyc_records);
		for (i = 0; i < n && i < limit; i++) {
			addr_name(r, &es[i], es[i].from, from, sizeof(from), &a);
			addr_name(r, &es[i], es[i].to, to, sizeof(to), &b);
			printf("%s\n  {\"from\": \"0x%llx\", \"to\": \"0x%llx\", \"count\": %llu, "
			       "\"mispredicted\": %llu, \"cycles_avg\": %.1f, \"type\": ",
			       i ? "," : "", (unsigned long long)es[i].from,
			       (unsigned long long)es[i].to, (unsigned long long)es[i].count,
			       (unsigned long long)es[i].mispred, avg(es[i].cyc_sum, es[i].cyc_n));
			json_str(stdout, es[i].mixed ? "MIXED" : type_name(es[i].type, es[i].new_type));
			printf(", \"from_sym\": ");
			json_str(stdout, from);
			json_src(stdout, "from", &a);
			printf(", \"to_sym\": ");
			json_str(stdout, to);
			json_src(stdout, "to", &b);
			putchar('}');
		}
		printf("\n], \"functions\": [");
		for (i = 0; fs && i < nf && i < limit; i++) {
			printf("%s\n  {\"name\": ", i ? "," : "");
			json_str(stdout, fs[i].name);
			printf(", \"branches\": %llu, \"samples\": %llu, \"mispredicted\": %llu, "
			       "\"cycles_avg\": %.1f}",
			       (unsigned long long)fs[i].count, (unsigned long long)fs[i].samples,
			       (unsigned long long)fs[i].mispred, avg(fs[i].cyc_sum, fs[i].cyc_n));
		}
		printf("\n]}\n");
		goto out;
	}

	printf("# perf-ctr report: %llu samples, %llu with branch stacks, %llu records, "
	       "%zu edges\n", (unsigned long long)r->samples,
	       (unsigned long long)r->br_samples, (unsigned long long)r->records, n);
	if (r->has_flags)
		printf("# mispredicted: %llu (%.2f%%)\n", (unsigned long long)r->mispred,
		       pct(r->mispred, r->records));
	if (r->has_cycles)
		printf("# cycles: on %llu records (%.2f%%), %.1f on average\n",
		       (unsigned long long)r->cyc_records, pct(r->cyc_records, r->records),
		       avg(r->cyc_sum, r->cyc_records));
	printf("# branch types:");
	for (i = 0; i < 32; i++)
		if (r->type_counts[i])
			printf(" %s %.1f%%", i >= 16 ? type_name(PERF_BR_EXTEND_ABI, i - 16) :
			       type_name(i, 0), pct(r->type_counts[i], r->records));
	printf("\n#\n# Hottest branch edges\n#\n");
	printf("# %10s %7s %6s %7s  %-13s %s\n", "count", "%", "misp%", "cycles",
	       "type", "from -> to");
	for (i = 0; i < n && i < limit; i++) {
		addr_name(r, &es[i], es[i].from, from, sizeof(from), &a);
		addr_name(r, &es[i], es[i].to, to, sizeof(to), &b);
		src_text(&a, sf, sizeof(sf));
		src_text(&b, st, sizeof(st));
		printf("  %10llu %6.2f%% %5.1f%% %7.1f  %-13s %s%s%s%s -> %s%s%s%s\n",
		       (unsigned long long)es[i].count, pct(es[i].count, r->records),
		       pct(es[i].mispred, es[i].count), avg(es[i].cyc_sum, es[i].cyc_n),
		       es[i].mixed ? "MIXED" : type_name(es[i].type, es[i].new_type),
		       from, *sf ? " (" : "", sf, *sf ? ")" : "",
		       to, *st ? " (" : "", st, *st ? ")" : "");
	}
	printf("#\n# Hottest functions (branch records leaving them; samples in them)\n#\n");
	printf("# %10s %7s %10s %6s %7s  %s\n", "branches", "%", "samples", "misp%",
	       "cycles", "function");
	for (i = 0; fs && i < nf && i < limit; i++) {
		char src[512] = "";

		if (fs[i].dso && fs[i].start) {
			struct pc_srcinfo si;

			if (pc_dso_srcinfo(fs[i].dso, fs[i].start, &si) && si.line)
				snprintf(src, sizeof(src), " (%s:%d)", si.file, si.line);
		}
		printf("  %10llu %6.2f%% %10llu %5.1f%% %7.1f  %s%s\n",
		       (unsigned long long)fs[i].count, pct(fs[i].count, r->records),
		       (unsigned long long)fs[i].samples, pct(fs[i].mispred, fs[i].count),
		       avg(fs[i].cyc_sum, fs[i].cyc_n), fs[i].name, src);
	}
out:
	free(fs);
	free(es);
}

static int cmp_fold(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;

	return strcmp(x->stack, y->stack);
}

static void print_folded(struct report *r)
{
	struct folded *fs = malloc((r->nr_fold + 1) * sizeof(*fs));
	size_t i, n = 0;

	if (!fs)
		return;
	for (i = 0; i < r->cap_fold; i++)
		if (r->fold[i].stack)
			fs[n++] = r->fold[i];
	qsort(fs, n, sizeof(*fs), cmp_fold);
	for (i = 0; i < n; i++)
		printf("%s %llu\n", fs[i].stack, (unsigned long long)fs[i].count);
	free(fs);
}

/* --sort KEY */
static int opt_sort(const struct pc_option *opt, const char *arg)
{
	enum sort_key *key = opt->value;

	if (!strcmp(arg, "count")) {
		*key = S_COUNT;
	} else if (!strcmp(arg, "mispred")) {
		*key = S_MISPRED;
	} else if (!strcmp(arg, "cycles")) {
		*key = S_CYCLES;
	} else {
		fprintf(stderr, "perf-ctr report: unknown sort key '%s'\n", arg);
		return -1;
	}
	return 0;
}

static const struct pc_usage usage = {
	.cmd = "report",
	.synopsis = "[options]",
	.about =
"  The hottest branch edges (from -> to, with symbol, file:line and inlined\n"
"  frames from DWARF) and functions, with counts, branch types, and\n"
"  mispredict and cycle statistics when the records have them.\n"
"  Progress goes to stderr when it is a terminal.\n",
};

int cmd_report(int argc, char **argv)
{
	const char *in = "perf.data", *output = "-";
	struct report r;
	struct pc_handlers h = { .sample = on_sample };
	struct pc_error err = { 0 };
	struct pc_stdout o;
	unsigned long limit = 20;
	size_t i;
	int json = 0;
	struct stat st;
	int ret;
	const struct pc_option opts[] = {
		PC_STRING('i', "input", &in, "FILE",
			  "perf.data to read (default perf.data, - for stdin)"),
		PC_STRING('o', "output", &output, "FILE",
			  "where to write (default -, stdout)"),
		PC_CALLBACK(0, "sort", &sort_by, "KEY",
			    "count (default), mispred or cycles (sum)", opt_sort),
		PC_ULONG(0, "limit", &limit, "N", "rows per table (default 20, 0 = all)"),
		PC_SET_INT(0, "stdio", &json, 0, "text (default)"),
		PC_SET_INT(0, "json", &json, 1, "one JSON object instead of text"),
		PC_BOOL(0, "folded", &r.folded,
			"'comm;outer;...;inner count' lines for flame\n"
			"graphs, from callchains or call-stack branch\n"
			"stacks (-j stack)"),
		PC_END(),
	};

	memset(&r, 0, sizeof(r));
	sort_by = S_COUNT;
	argc = pc_parse_options(argc, argv, opts, &usage, 0);
	if (argc < 0)
		return pc_parse_exit(argc);
	if (!limit)
		limit = (unsigned long)-1;
	r.progress = isatty(2);
	if (strcmp(in, "-") && !stat(in, &st))
		r.file_size = st.st_size;
	if (pc_stdout_redirect(&o, output)) {
		fprintf(stderr, "perf-ctr report: %s: %s\n", output, strerror(errno));
		return 1;
	}
	pc_machine_init(&r.mc);
	ret = pc_machine_read(&r.mc, in, &h, &r, &err);
	if (r.progress && r.samples > 0xffff)
		fprintf(stderr, "\r%30s\r", "");
	if (!ret) {
		if (r.folded)
			print_folded(&r);
		else
			print_report(&r, limit, json);
	} else {
		pc_print_error(in, &err);
	}
	/* A report that could not be made leaves no file. */
	if (pc_stdout_restore(&o, !ret) && !ret) {
		fprintf(stderr, "perf-ctr report: %s: write error: %s\n",
			strcmp(output, "-") ? output : "stdout", strerror(errno));
		ret = 1;
	}
	for (i = 0; i < r.cap_fold; i++)
		free(r.fold[i].stack);
	free(r.fold);
	free(r.edges);
	free(r.ips);
	pc_machine_free(&r.mc);
	return ret ? 1 : 0;
}

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
	uint64_t from, to;
	const void *key;
	size_t seq;		/* in the order they were first seen */
	uint64_t time;
	uint32_t pid;
	uint8_t type, new_type, mixed;
	uint64_t count, mispred, cyc_sum, cyc_n;
};

struct func {
	const char *name;	/* symbol, or the DSO name when there is none */
	size_t seq;		/* in the order they were found */
	struct pc_dso *dso;
	uint64_t start;
	uint64_t count, mispred, cyc_sum, cyc_n, samples;
};

struct folded {
	char *stack;
	uint64_t count;
};

enum sort_key { S_COUNT, S_MISPRED, S_CYCLES };

/* Elements in the order they were first seen, indexed by their key. */
struct edges {
	struct edge *v;
	size_t nr, cap;
	struct pc_index ix;
};

struct report {
	struct pc_machine mc;
	struct edges edges;
	uint64_t samples, br_samples, records, mispred, cyc_records, cyc_sum;
	uint64_t type_counts[32];
	bool has_flags, has_cycles;
	/* folded */
	bool folded;
	struct folded *fold;
	size_t nr_fold, cap_fold;
	struct pc_index fold_ix;
	/* progress */
	uint64_t file_size;
	bool progress;
	/* ip samples, by address, for the functions table */
	struct edges ips;
};

static uint64_t edge_hash(uint64_t from, uint64_t to, const void *key)
{
	return pc_hash(from, to, (uintptr_t)key);
}

static bool edge_is(const void *ctx, size_t pos, const void *key)
{
	const struct edge *e = &((const struct edge *)ctx)[pos], *k = key;

	return e->from == k->from && e->to == k->to && e->key == k->key;
}

/* The edge (FROM, TO, KEY) of T, a new one with count 0 if need be. */
static struct edge *table_get(struct edges *t, uint64_t from, uint64_t to,
			      const void *key)
{
	struct edge k = { .from = from, .to = to, .key = key };
	bool added;
	size_t i = pc_index_get(&t->ix, (void **)&t->v, &t->nr, &t->cap,
				sizeof(*t->v), edge_hash(from, to, key), edge_is,
				&k, &added);

	if (i == PC_INDEX_NONE)
		return NULL;
	if (added) {
		k.seq = i;
		t->v[i] = k;
	}
	return &t->v[i];
}

static struct edge *edge_get(struct report *r, uint64_t from, uint64_t to,
			     const void *key)
{
	/* Records of no address (0 -> 0) are one edge, whatever is mapped at 0. */
	return table_get(&r->edges, from, to, from || to ? key : NULL);
}

static void edges_free(struct edges *t)
{
	free(t->v);
	pc_index_free(&t->ix);
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

static bool fold_is(const void *ctx, size_t pos, const void *key)
{
	return !strcmp(((const struct folded *)ctx)[pos].stack, key);
}

static int fold_add(struct report *r, const char *stack)
{
	bool added;
	size_t i = pc_index_get(&r->fold_ix, (void **)&r->fold, &r->nr_fold,
				&r->cap_fold, sizeof(*r->fold),
				pc_hash(pc_hash_str(stack), 0, 0), fold_is, stack,
				&added);

	if (i == PC_INDEX_NONE)
		return -1;
	/* out of memory ends the walk: no lookup meets a NULL stack */
	if (added)
		r->fold[i].stack = strdup(stack);
	if (!r->fold[i].stack)
		return -1;
	r->fold[i].count++;
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
	ip = table_get(&r->ips, s->ip | 1, pid, m ? m->dso : NULL);
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

/* The sort key of an edge or a function, the largest first. */
#define KEY_OF(x) (sort_by == S_MISPRED ? (x)->mispred :			\
		   sort_by == S_CYCLES ? (x)->cyc_sum : (x)->count)

/* Ties in address order, then as found. */
static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	return pc_cmp_u64(KEY_OF(y), KEY_OF(x)) ?: pc_cmp_u64(x->from, y->from) ?:
	       pc_cmp_u64(x->to, y->to) ?: pc_cmp_u64(x->seq, y->seq);
}

/* Ties by samples, name, then as found. */
static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return pc_cmp_u64(KEY_OF(y), KEY_OF(x)) ?:
	       pc_cmp_u64(y->samples, x->samples) ?:
	       strcmp(x->name, y->name) ?: pc_cmp_u64(x->seq, y->seq);
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

struct func_key {
	const char *name;
	const struct pc_dso *dso;
	uint64_t start;
};

static bool func_is(const void *ctx, size_t pos, const void *key)
{
	const struct func *f = &((const struct func *)ctx)[pos];
	const struct func_key *k = key;

	return f->start == k->start && f->dso == k->dso && !strcmp(f->name, k->name);
}

/* Functions: branch records leaving each, plus the samples in it. */
static struct func *build_funcs(struct report *r, size_t *nr)
{
	struct func *fs = NULL;
	struct pc_index ix = { 0 };
	size_t n = 0, cap = 0, i;
	const struct edges *all[2] = { &r->edges, &r->ips };
	int t;

	for (t = 0; t < 2; t++) {
		for (i = 0; i < all[t]->nr; i++) {
			const struct edge *e = &all[t]->v[i];
			uint64_t addr = t ? e->from & ~1ULL : e->from, h;
			uint32_t pid = t ? (uint32_t)e->to : e->pid;
			struct func_key k;
			struct pc_loc l;
			bool added;
			size_t j;

			if (!e->count)
				continue;
			if (pc_resolve(&r->mc, pid, e->time, addr, &l) && l.sym) {
				k.name = l.sym->name;
				k.start = l.sym->start;
			} else if (l.map) {
				k.name = l.dso->name;
				k.start = 0;
			} else {
				k.name = "[unknown]";
				k.start = 0;
			}
			k.dso = l.map ? l.dso : NULL;
			h = pc_hash(k.start, (uintptr_t)k.dso, pc_hash_str(k.name));
			j = pc_index_get(&ix, (void **)&fs, &n, &cap, sizeof(*fs), h,
					 func_is, &k, &added);
			if (j == PC_INDEX_NONE) {
				free(fs);
				pc_index_free(&ix);
				return NULL;
			}
			if (added) {
				fs[j].name = k.name;
				fs[j].dso = l.map ? l.dso : NULL;
				fs[j].start = k.start;
				fs[j].seq = j;
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
	pc_index_free(&ix);
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
	struct edge *es = malloc((r->edges.nr + 1) * sizeof(*es));
	struct func *fs;
	size_t n = 0, i, nf = 0;
	char from[512], to[512], sf[512], st[512];
	struct pc_srcinfo a, b;

	if (!es)
		return;
	for (i = 0; i < r->edges.nr; i++)
		if (r->edges.v[i].count)
			es[n++] = r->edges.v[i];
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
	for (i = 0; i < r->nr_fold; i++)
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
	for (i = 0; i < r.nr_fold; i++)
		free(r.fold[i].stack);
	free(r.fold);
	pc_index_free(&r.fold_ix);
	edges_free(&r.edges);
	edges_free(&r.ips);
	pc_machine_free(&r.mc);
	return ret ? 1 : 0;
}

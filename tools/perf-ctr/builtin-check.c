// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr check: lint the branch stacks of a perf.data, the "bogus LBR
 * data" diagnostics.
 *
 * - empty-stack: a sample of a branch-stack event with no record;
 * - backward-range: between a record's target and the source of the next
 *   younger record the CPU ran straight-line code, so that target must not
 *   lie above that source (a 0 address, a privilege transition the
 *   hardware reports as 0, is not checked); a not-taken branch
 *   (PERF_BR_RISCV_NOT_TAKEN) lies inside such code: the code runs on
 *   from its source, its target is not checked;
 * - outside-mapping: a non-zero source or target in no MMAP/MMAP2 of the
 *   sample's process (nor of the kernel's);
 * - duplicate-stack: a sample whose stack is identical to the previous
 *   sample's of the same process and event: the buffer was read again
 *   without being cleared or refilled.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf-ctr.h"
#include "builtin.h"
#include "machine.h"
#include "options.h"

enum { D_EMPTY, D_BACKWARD, D_OUTSIDE, D_DUP, NR_DIAG };

static const char *const diag_names[NR_DIAG] = {
	"empty-stack", "backward-range", "outside-mapping", "duplicate-stack",
};

/* The previous stack of one process and event, for duplicate-stack. */
struct prev {
	uint32_t pid;
	const struct perf_event_attr *attr;
	uint64_t nr;
	struct perf_branch_entry *br;	/* 256 of them */
};

struct check {
	struct pc_machine mc;
	uint64_t counts[NR_DIAG];
	uint64_t samples, branch_samples, records;
	unsigned long max_examples;
	struct prev *prevs;		/* by (pid, event), in prev_ix */
	size_t nr_prevs, cap_prevs;
	struct pc_index prev_ix;
	bool has_maps;
};

static void example(struct check *c, int d, const struct pc_sample *s,
		    uint64_t i, const char *fmt, uint64_t a, uint64_t b)
{
	if (c->counts[d]++ >= c->max_examples && pc_verbose < 1)
		return;
	printf("%s: sample at offset 0x%llx (pid %u), record %llu: ",
	       diag_names[d], (unsigned long long)s->offset, s->pid,
	       (unsigned long long)i);
	printf(fmt, (unsigned long long)a, (unsigned long long)b);
	putchar('\n');
}

static bool prev_is(const void *ctx, size_t pos, const void *key)
{
	const struct prev *p = &((const struct prev *)ctx)[pos];
	const struct pc_sample *s = key;

	return p->pid == s->pid && p->attr == s->attr;
}

static struct prev *prev_of(struct check *c, const struct pc_sample *s)
{
	bool added;
	size_t i = pc_index_get(&c->prev_ix, (void **)&c->prevs, &c->nr_prevs,
				&c->cap_prevs, sizeof(*c->prevs),
				pc_hash(s->pid, (uintptr_t)s->attr, 0),
				prev_is, s, &added);
	struct prev *p;

	if (i == PC_INDEX_NONE)
		return NULL;
	p = &c->prevs[i];
	if (added) {
		p->pid = s->pid;
		p->attr = s->attr;
		p->br = calloc(256, sizeof(*p->br));
	}
	return p->br ? p : NULL;
}

static bool mapped(struct check *c, const struct pc_sample *s, uint64_t addr)
{
	return !addr ||
	       pc_machine_find(&c->mc, pc_sample_pid(s), pc_sample_time(s), addr);
}

static int on_sample(void *ctx, const struct pc_sample *s)
{
	struct check *c = ctx;
	struct prev *p;
	uint64_t i;

	c->samples++;
	if (!(s->attr->sample_type & PERF_SAMPLE_BRANCH_STACK))
		return 0;
	c->branch_samples++;
	c->records += s->nr;
	if (!s->nr) {
		example(c, D_EMPTY, s, 0, "no records%.0llx%.0llx", 0, 0);
		return 0;
	}
	for (i = 0; i < s->nr; i++) {
		const struct perf_branch_entry *e = &s->br[i];
		const struct perf_branch_entry *o = &s->br[i + 1];
		uint64_t start = 0;

		/*
		 * br[i + 1] is older: its target flows into br[i]'s source. A
		 * not-taken branch is no transfer: the straight-line code runs
		 * on from its own address, whatever its target says.
		 */
		if (i + 1 < s->nr)
			start = pc_br_not_taken(o) ? o->from : o->to;
		if (start && e->from && start > e->from)
			example(c, D_BACKWARD, s, i + 1,
				"range 0x%llx..0x%llx runs backwards",
				start, e->from);
		if (c->has_maps && !mapped(c, s, e->from))
			example(c, D_OUTSIDE, s, i, "source 0x%llx%.0llx is in no mapping",
				e->from, 0);
		if (c->has_maps && !mapped(c, s, e->to))
			example(c, D_OUTSIDE, s, i, "target 0x%llx%.0llx is in no mapping",
				e->to, 0);
	}
	p = prev_of(c, s);
	if (!p)
		return -1;
	if (p->nr == s->nr && !memcmp(p->br, s->br, s->nr * sizeof(*s->br)))
		example(c, D_DUP, s, 0, "same %llu records as the previous sample%.0llx",
			s->nr, 0);
	p->nr = s->nr < 256 ? s->nr : 256;
	memcpy(p->br, s->br, p->nr * sizeof(*s->br));
	if (p->nr != s->nr)
		p->nr = 0;	/* deeper than kept: never equal */
	return 0;
}

static int on_mmap(void *ctx, const struct pc_mmap *m)
{
	struct check *c = ctx;

	(void)m;
	c->has_maps = true;
	return 0;
}

/* The recording is read again from its start (no sample went out yet). */
static void on_restart(void *ctx)
{
	struct check *c = ctx;

	c->has_maps = false;
}

static const struct pc_usage usage = {
	.cmd = "check",
	.synopsis = "[options]",
	.about =
"  Lint branch stacks: empty-stack, backward-range, outside-mapping,\n"
"  duplicate-stack. Prints up to N examples per diagnostic (default 5,\n"
"  all with -v), then one count per diagnostic.\n",
	.exit =
"Exit status: 0 if every count is 0 (or with --no-fail), 1 if not, 2 if\n"
"the file cannot be read or the output written, or on a usage error.",
};

int cmd_check(int argc, char **argv)
{
	const char *in = "perf.data", *output = "-";
	struct check c = { .max_examples = 5 };
	struct pc_handlers h = {
		.sample = on_sample, .mmap = on_mmap, .restart = on_restart,
	};
	struct pc_error err = { 0 };
	struct pc_stdout o;
	bool no_fail = false;
	uint64_t total = 0;
	int i, ret;
	const struct pc_option opts[] = {
		PC_STRING('i', "input", &in, "FILE",
			  "perf.data to read (default perf.data, - for stdin)"),
		PC_STRING('o', "output", &output, "FILE",
			  "where to write (default -, stdout)"),
		PC_ULONG(0, "max-examples", &c.max_examples, "N",
			 "examples per diagnostic (default 5)"),
		PC_BOOL(0, "no-fail", &no_fail, "exit 0 even when something is found"),
		PC_END(),
	};

	argc = pc_parse_options(argc, argv, opts, &usage, 0);
	if (argc < 0)
		return pc_parse_exit(argc);
	/* The examples are printed as the file is read. */
	if (pc_stdout_redirect(&o, output)) {
		fprintf(stderr, "perf-ctr check: %s: %s\n", output, strerror(errno));
		return 2;
	}
	pc_machine_init(&c.mc);
	ret = pc_machine_read(&c.mc, in, &h, &c, &err);
	while (c.nr_prevs)
		free(c.prevs[--c.nr_prevs].br);
	free(c.prevs);
	pc_index_free(&c.prev_ix);
	pc_machine_free(&c.mc);
	if (ret) {
		pc_stdout_restore(&o, false);
		pc_print_error(in, &err);
		return 2;
	}
	printf("%llu samples, %llu with branch stacks, %llu records%s\n",
	       (unsigned long long)c.samples, (unsigned long long)c.branch_samples,
	       (unsigned long long)c.records,
	       c.has_maps ? "" : " (no MMAP records: mappings not checked)");
	for (i = 0; i < NR_DIAG; i++) {
		printf("%-16s %llu\n", diag_names[i], (unsigned long long)c.counts[i]);
		total += c.counts[i];
	}
	/* Exit status 1 is taken (something found): an error is 2, as above. */
	if (pc_stdout_restore(&o, true)) {
		fprintf(stderr, "perf-ctr check: %s: write error: %s\n",
			strcmp(output, "-") ? output : "stdout", strerror(errno));
		return 2;
	}
	return total && !no_fail ? 1 : 0;
}

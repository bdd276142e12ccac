// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr script: one line per sample, in the format of
 * `perf script -F brstack` (and brstacksym, ip): each record is
 * " FROM/TO/PRED/INTX/ABORT/CYCLES/TYPE/SPEC ", youngest first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf-ctr.h"
#include "builtin.h"
#include "machine.h"
#include "options.h"

enum { F_IP = 1, F_BRSTACK = 2, F_BRSTACKSYM = 4, F_SYM = 8 };

struct script {
	unsigned int fields;
	bool no_spec;
	struct pc_machine mc;
	FILE *out;
};

static const char *const spec_names[4] = {
	"-", "SPEC_WRONG_PATH", "NON_SPEC_CORRECT_PATH", "SPEC_CORRECT_PATH"
};

static void put_flags(FILE *f, const struct perf_branch_entry *e, bool no_spec)
{
	const char *pred = e->mispred ? "M" : e->predicted ? "P" : "-";

	fprintf(f, "/%s/%c/%c/%u/%s", pred, e->in_tx ? 'X' : '-',
		e->abort ? 'A' : '-', (unsigned int)e->cycles,
		pc_branch_type_name(e));
	/* perf 6.1 and older print no SPEC field. */
	if (!no_spec)
		fprintf(f, "/%s", spec_names[e->spec & 3]);
	fputc(' ', f);
}

/* perf's "sym+0xoff", or "[unknown]". */
static void put_sym(struct script *sc, const struct pc_sample *s, uint64_t addr)
{
	struct pc_loc l;

	if (pc_resolve(&sc->mc, pc_sample_pid(s), pc_sample_time(s), addr, &l) &&
	    l.sym)
		fprintf(sc->out, "%s+0x%llx", l.sym->name,
			(unsigned long long)(l.vaddr - l.sym->start));
	else
		fputs("[unknown]", sc->out);
}

static int on_sample(void *ctx, const struct pc_sample *s)
{
	struct script *sc = ctx;
	FILE *f = sc->out;
	uint64_t i;

	if (!(s->attr->sample_type & PERF_SAMPLE_BRANCH_STACK) &&
	    !(sc->fields & (F_IP | F_SYM)))
		return 0;
	if (sc->fields & F_IP)
		fprintf(f, "%16llx", (unsigned long long)s->ip);
	if (sc->fields & F_SYM) {
		fputc(' ', f);
		put_sym(sc, s, s->ip);
	}
	for (i = 0; i < s->nr; i++) {
		const struct perf_branch_entry *e = &s->br[i];

		if (sc->fields & F_BRSTACK) {
			fprintf(f, " 0x%llx/0x%llx", (unsigned long long)e->from,
				(unsigned long long)e->to);
		} else if (sc->fields & F_BRSTACKSYM) {
			/* perf puts no space before a brstacksym record. */
			put_sym(sc, s, e->from);
			fputc('/', f);
			put_sym(sc, s, e->to);
		} else {
			continue;
		}
		put_flags(f, e, sc->no_spec);
	}
	fputc('\n', f);
	return 0;
}

static const struct pc_usage usage = {
	.cmd = "script",
	.synopsis = "[options]",
	.about =
"  One line per sample, youngest record first, as perf script prints it.\n"
"  Each record is FROM/TO/PRED/INTX/ABORT/CYCLES/TYPE/SPEC, with PRED M\n"
"  (mispredicted), P (predicted) or -. TYPE names are the same on every\n"
"  host; RISC-V types without a generic name are RISCV_CO_SWAP,\n"
"  RISCV_IND_LINK_JUMP and RISCV_DIR_LINK_JUMP.\n",
};

static int parse_fields(const char *arg, unsigned int *fields)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int ret = 0;

	*fields = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "ip"))
			*fields |= F_IP;
		else if (!strcmp(tok, "sym"))
			*fields |= F_SYM;
		else if (!strcmp(tok, "brstack"))
			*fields |= F_BRSTACK;
		else if (!strcmp(tok, "brstacksym"))
			*fields |= F_BRSTACKSYM;
		else {
			fprintf(stderr, "perf-ctr script: unknown field '%s'\n", tok);
			ret = -1;
		}
	}
	free(copy);
	return ret;
}

/* -F FIELDS: the last one given counts. */
static int opt_fields(const struct pc_option *opt, const char *arg)
{
	return parse_fields(arg, opt->value);
}

int cmd_script(int argc, char **argv)
{
	const char *in = "perf.data", *output = "-";
	struct script sc = { .fields = F_BRSTACK, .out = stdout };
	struct pc_handlers h = { .sample = on_sample };
	struct pc_error err = { 0 };
	static char obuf[1 << 20];
	char *tmp;
	int ret;
	const struct pc_option opts[] = {
		PC_STRING('i', "input", &in, "FILE",
			  "perf.data to read (default perf.data, - for stdin)"),
		PC_STRING('o', "output", &output, "FILE",
			  "where to write (default -, stdout)"),
		PC_CALLBACK('F', "fields", &sc.fields, "FIELDS",
			    "comma-separated: ip, sym, brstack (default),\n"
			    "brstacksym", opt_fields),
		PC_BOOL(0, "no-spec", &sc.no_spec,
			"leave out the SPEC field, as perf 6.1 and older do"),
		PC_END(),
	};

	argc = pc_parse_options(argc, argv, opts, &usage, 0);
	if (argc < 0)
		return pc_parse_exit(argc);
	sc.out = pc_output_open(output, &tmp);
	if (!sc.out) {
		fprintf(stderr, "perf-ctr script: %s: %s\n", output, strerror(errno));
		return 1;
	}
	setvbuf(sc.out, obuf, _IOFBF, sizeof(obuf));
	pc_machine_init(&sc.mc);
	ret = pc_machine_read(&sc.mc, in, &h, &sc, &err);
	pc_machine_free(&sc.mc);
	/* Only a complete script replaces the output. */
	if (pc_output_close(sc.out, tmp, !ret) && !ret) {
		fprintf(stderr, "perf-ctr script: %s: write error: %s\n",
			strcmp(output, "-") ? output : "stdout", strerror(errno));
		return 1;
	}
	if (ret) {
		pc_print_error(in, &err);
		return 1;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: RISC-V Control Transfer Records (and any perf branch stack)
 * from perf.data to reports, lint and AutoFDO profiles.
 *
 * Options that every subcommand understands the way perf does (-v,
 * --symfs) are taken out of argv here, wherever they appear, so each
 * subcommand parses only its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf-ctr.h"

int pc_verbose;
const char *pc_symfs = "";

struct subcmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct subcmd subcmds[] = {
	{ "record", cmd_record, "run a command and record its branch stacks" },
	{ "report", cmd_report, "hottest branch edges and functions" },
	{ "script", cmd_script, "one line per sample, like perf script -F brstack" },
	{ "decode", cmd_decode, "raw CTR register triplets to readable records" },
	{ "check", cmd_check, "lint the branch stacks of a perf.data" },
	{ "aggregate", cmd_aggregate, "AutoFDO profiles (GCC, LLVM) from branch stacks" },
	{ "synth", cmd_synth, "write a synthetic perf.data (tests, benchmarks)" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: perf-ctr [-v] [--symfs DIR] COMMAND [ARGS]\n\n");
	for (i = 0; i < sizeof(subcmds) / sizeof(subcmds[0]); i++)
		fprintf(f, "   %-10s %s\n", subcmds[i].name, subcmds[i].help);
	fprintf(f, "\n'perf-ctr COMMAND --help' describes a command; see also "
		   "Documentation/perf-ctr.txt.\n");
}

/* Remove the global options from argv; returns the new argc. */
static int global_opts(int argc, char **argv)
{
	int i, n = 0;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			pc_verbose++;
			continue;
		}
		if (!strcmp(argv[i], "--symfs") && i + 1 < argc) {
			pc_symfs = argv[++i];
			continue;
		}
		if (!strncmp(argv[i], "--symfs=", 8)) {
			pc_symfs = argv[i] + 8;
			continue;
		}
		/* After "--" everything is the recorded command's. */
		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				argv[n++] = argv[i++];
			break;
		}
		argv[n++] = argv[i];
	}
	argv[n] = NULL;
	return n;
}

int main(int argc, char **argv)
{
	size_t i;

	argc = global_opts(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(subcmds) / sizeof(subcmds[0]); i++)
		if (!strcmp(argv[1], subcmds[i].name))
			return subcmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "perf-ctr: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}

void pc_print_error(const char *file, const struct pc_error *err)
{
	fprintf(stderr, "%s: offset 0x%llx: %s\n", file,
		(unsigned long long)err->offset, err->msg[0] ? err->msg : "error");
}

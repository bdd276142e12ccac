// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: RISC-V Control Transfer Records (and any perf branch stack)
 * from perf.data to reports, lint and AutoFDO profiles.
 *
 * The options every command understands (-v, --symfs) may come before
 * the command's name, as with perf, or after it, where the command's own
 * parser finds them (options.c). Nothing after the command's name is
 * looked at here: it may be a workload's own arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf-ctr.h"
#include "builtin.h"
#include "mem.h"
#include "options.h"

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

/* The commands and what they do, between the synopsis and the options. */
static const char *commands_text(void)
{
	static char text[1024];
	size_t i, n = 0;

	for (i = 0; i < sizeof(subcmds) / sizeof(subcmds[0]) && n < sizeof(text); i++)
		n += snprintf(text + n, sizeof(text) - n, "   %-10s %s\n",
			      subcmds[i].name, subcmds[i].help);
	if (n < sizeof(text))
		snprintf(text + n, sizeof(text) - n, "\n'perf-ctr COMMAND --help' "
			 "describes a command; see also Documentation/perf-ctr.txt.\n");
	return text;
}

int main(int argc, char **argv)
{
	static const struct pc_option opts[] = { PC_END() };
	const struct pc_usage usage = {
		.synopsis = "[-v] [--symfs DIR] COMMAND [ARGS]",
		.about = commands_text(),
	};
	size_t i;
	int n;

	pc_huge_heap();
	/* Only the common options, and only up to the command's name. */
	n = pc_parse_options(argc, argv, opts, &usage, PC_PARSE_STOP);
	if (n < 0)
		return pc_parse_exit(n);
	if (!n)
		return pc_usage_error(opts, &usage, "no command given");
	if (!strcmp(argv[0], "help")) {
		/* "perf-ctr help COMMAND" is "perf-ctr COMMAND --help". */
		if (n > 1) {
			char *help_argv[] = { argv[1], "--help", NULL };

			for (i = 0; i < sizeof(subcmds) / sizeof(subcmds[0]); i++)
				if (!strcmp(argv[1], subcmds[i].name))
					return subcmds[i].fn(2, help_argv);
			return pc_usage_error(opts, &usage, "unknown command '%s'", argv[1]);
		}
		pc_usage_print(stdout, opts, &usage);
		return 0;
	}
	for (i = 0; i < sizeof(subcmds) / sizeof(subcmds[0]); i++)
		if (!strcmp(argv[0], subcmds[i].name))
			return subcmds[i].fn(n, argv);
	return pc_usage_error(opts, &usage, "unknown command '%s'", argv[0]);
}

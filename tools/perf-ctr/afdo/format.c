// SPDX-License-Identifier: GPL-2.0
/* perf-ctr aggregate: the one table of formats. */
#include <string.h>

#include "writers.h"

const struct afdo_format afdo_formats[] = {
	{ "autofdo-text", "create_gcov --profiler=text input (default; stdout)",
	  "-", afdo_write_autofdo_text, false, false },
	{ "llvm-unsym", "llvm-profgen --unsymbolized-profile input (stdout)",
	  "-", afdo_write_llvm_unsym, false, false },
	{ "llvm-text", "LLVM sample profile text, clang -fprofile-sample-use (stdout)",
	  "-", afdo_write_llvm_text, false, false },
	{ "llvm-probe", "LLVM text of pseudo probes (-fpseudo-probe-for-profiling; stdout)",
	  "-", afdo_write_llvm_probe, false, false },
	{ "llvm-cs", "LLVM context-sensitive text of pseudo probes (needs -g; stdout)",
	  "-", afdo_write_llvm_cs, false, true },
	{ "gcov", "GCC >= 12 -fauto-profile file (default -o fbdata.afdo)",
	  "fbdata.afdo", afdo_write_gcov, false, false },
	{ "lines", "'file:line count' of each source line (to compare with gcov)",
	  "-", afdo_write_lines, false, false },
	{ "bolt", "llvm-bolt/perf2bolt -pa input: branches and traces (stdout)",
	  "-", afdo_write_bolt, true, false },
	{ NULL, NULL, NULL, NULL, false, false },
};

const struct afdo_format *afdo_format_find(const char *name)
{
	const struct afdo_format *f;

	for (f = afdo_formats; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

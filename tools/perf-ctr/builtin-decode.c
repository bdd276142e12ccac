// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr decode: raw CTR entry registers to readable records, for
 * hardware and firmware bring-up. Input is triplets of ctrsource,
 * ctrtarget and ctrdata in hex, from the arguments or one per line of
 * stdin (commas, "0x" and '#' comments allowed).
 *
 * The output also says what perf would get from the riscv_ctr driver:
 * the perf branch type and the cycle count clamped to perf's 16 bits.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf-ctr.h"
#include "builtin.h"
#include "options.h"

#define CTRDATA_RESERVED	(~0xffff800fULL)	/* 14:4 and 63:32 */

static void decode_one(unsigned long n, uint64_t src, uint64_t tgt, uint64_t data)
{
	unsigned int type = data & 15, ptype, pnew;
	struct perf_branch_entry e = { 0 };
	uint64_t cycles = pc_ctr_cycles(data);

	if (!(src & 1)) {
		printf("%lu: invalid (V=0)\n", n);
		return;
	}
	pc_ctr_type_to_perf(type, &ptype, &pnew);
	e.type = ptype;
	e.new_type = pnew;
	printf("%lu: 0x%llx -> 0x%llx type=%u:%s perf=%s misp=%u ccv=%u cce=%u ccm=%u cycles=%llu",
	       n, (unsigned long long)(src & ~1ULL), (unsigned long long)(tgt & ~1ULL),
	       type, *pc_ctr_type_name(type) ? pc_ctr_type_name(type) : "RESERVED",
	       *pc_branch_type_name(&e) ? pc_branch_type_name(&e) : "N/A",
	       (unsigned int)(tgt & 1), (unsigned int)((data >> 15) & 1),
	       (unsigned int)((data >> 28) & 15), (unsigned int)((data >> 16) & 0xfff),
	       (unsigned long long)cycles);
	if (cycles > 65535)
		printf(" (perf: 65535)");
	if (data & CTRDATA_RESERVED)
		printf(" reserved-bits=0x%llx", (unsigned long long)(data & CTRDATA_RESERVED));
	if (type == 6 || type == 7)
		printf(" reserved-type");
	putchar('\n');
}

static int parse_hex(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 16);
	return (errno || end == s || *end) ? -1 : 0;
}

static const struct pc_usage usage = {
	.cmd = "decode",
	.synopsis = "[options] [SOURCE TARGET DATA]...",
	.about =
"  Decode CTR entries: ctrsource, ctrtarget, ctrdata in hex (0x optional),\n"
"  as arguments or, without arguments, one triplet per line of the input.\n"
"  Prints per entry: N: FROM -> TO type=T:NAME perf=PERF_TYPE misp=M\n"
"  ccv=V cce=E ccm=M cycles=C, or 'invalid (V=0)'. Cycles decode as\n"
"  CCE ? (4096 + CCM) << (CCE - 1) : CCM, 0 when CCV is clear.\n",
};

/* The triplets of the arguments, or of the lines of IN. 0, 1 or 2. */
static int decode(int argc, char **argv, FILE *in)
{
	uint64_t v[3];
	unsigned long n = 0, line = 0;
	char buf[1024];
	int i;

	if (argc) {
		if (argc % 3) {
			fprintf(stderr, "perf-ctr decode: %d values, need triplets\n",
				argc);
			return 2;
		}
		for (i = 0; i < argc; i += 3) {
			if (parse_hex(argv[i], &v[0]) || parse_hex(argv[i + 1], &v[1]) ||
			    parse_hex(argv[i + 2], &v[2])) {
				fprintf(stderr, "perf-ctr decode: bad hex value in '%s %s %s'\n",
					argv[i], argv[i + 1], argv[i + 2]);
				return 2;
			}
			decode_one(n++, v[0], v[1], v[2]);
		}
		return 0;
	}
	while (fgets(buf, sizeof(buf), in)) {
		char *tok, *save = NULL, *hash = strchr(buf, '#');
		int k = 0;

		line++;
		if (hash)
			*hash = 0;
		for (tok = strtok_r(buf, " \t\r\n,", &save); tok;
		     tok = strtok_r(NULL, " \t\r\n,", &save)) {
			if (k == 3 || parse_hex(tok, &v[k])) {
				fprintf(stderr, "perf-ctr decode: line %lu: expected 3 hex values\n",
					line);
				return 1;
			}
			k++;
		}
		if (!k)
			continue;
		if (k != 3) {
			fprintf(stderr, "perf-ctr decode: line %lu: expected 3 hex values\n",
				line);
			return 1;
		}
		decode_one(n++, v[0], v[1], v[2]);
	}
	if (ferror(in)) {
		fprintf(stderr, "perf-ctr decode: read error: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

int cmd_decode(int argc, char **argv)
{
	const char *input = "-", *output = "-";
	struct pc_stdout o;
	FILE *in = stdin;
	int ret;
	const struct pc_option opts[] = {
		PC_STRING('i', "input", &input, "FILE",
			  "triplets to read without arguments (default -,\n"
			  "stdin)"),
		PC_STRING('o', "output", &output, "FILE",
			  "where to write (default -, stdout)"),
		PC_END(),
	};

	argc = pc_parse_options(argc, argv, opts, &usage, PC_PARSE_ARGS);
	if (argc < 0)
		return pc_parse_exit(argc);
	if (argc && strcmp(input, "-"))
		return pc_usage_error(opts, &usage, "triplets both as arguments and from -i");
	if (strcmp(input, "-")) {
		in = fopen(input, "r");
		if (!in) {
			fprintf(stderr, "perf-ctr decode: %s: %s\n", input, strerror(errno));
			return 1;
		}
	}
	if (pc_stdout_redirect(&o, output)) {
		fprintf(stderr, "perf-ctr decode: %s: %s\n", output, strerror(errno));
		ret = 1;
	} else {
		ret = decode(argc, argv, in);
		/* Bad input leaves no file. */
		if (pc_stdout_restore(&o, !ret) && !ret) {
			fprintf(stderr, "perf-ctr decode: %s: write error: %s\n",
				strcmp(output, "-") ? output : "stdout", strerror(errno));
			ret = 1;
		}
	}
	if (in != stdin)
		fclose(in);
	return ret;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr: one command-line parser for every command.
 *
 * A command describes its options in one table and gets perf's habits
 * for free: -x VAL, -xVAL, --long VAL, --long=VAL, a unique prefix of a
 * long name, bundled flags (-bv), "--" to end the options, -h/--help and
 * a usage made from the table. The options common to every command (-v,
 * --symfs, -h) are always looked up after the command's own, so they
 * work after the command's name without each table repeating them.
 *
 * Exit status, the same for every command: 0 success, 1 error while
 * working (bad input, nothing to output, write error), 2 usage error.
 */
#ifndef PERF_CTR_OPTIONS_H
#define PERF_CTR_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum pc_opt_kind {
	PC_OPT_END,		/* ends a table */
	PC_OPT_BOOL,		/* bool *: set to true */
	PC_OPT_SET_INT,		/* int *: set to .defval */
	PC_OPT_COUNTER,		/* int *: one more each time it is given */
	PC_OPT_STRING,		/* const char **: the argument */
	PC_OPT_ULONG,		/* unsigned long *: a number, 0x and 0 prefixes too */
	PC_OPT_U64,		/* uint64_t *: the same */
	PC_OPT_CALLBACK,	/* .cb checks the argument (if .argh) and stores it */
	PC_OPT_HELP,		/* the common -h: usage on stdout */
};

struct pc_option;

/*
 * Returns 0, or -1 after printing one line that says what is wrong with
 * ARG (NULL for a callback without argument).
 */
typedef int (*pc_opt_cb)(const struct pc_option *opt, const char *arg);

struct pc_option {
	char short_name;	/* 0: long name only */
	const char *long_name;	/* NULL: short name only */
	enum pc_opt_kind kind;
	void *value;
	const char *argh;	/* the argument's name in the usage; NULL: none */
	const char *help;	/* '\n' continues it on another line */
	pc_opt_cb cb;
	int defval;
};

/*
 * The table entries. V must point to the type the kind stores: the
 * conditional expression makes the compiler check it.
 */
#define PC_OPT_VALUE(v, type)	((void *)(1 ? (v) : (type)0))

#define PC_BOOL(s, l, v, h) \
	{ (s), (l), PC_OPT_BOOL, PC_OPT_VALUE(v, bool *), NULL, (h), NULL, 0 }
#define PC_SET_INT(s, l, v, val, h) \
	{ (s), (l), PC_OPT_SET_INT, PC_OPT_VALUE(v, int *), NULL, (h), NULL, (val) }
#define PC_COUNTER(s, l, v, h) \
	{ (s), (l), PC_OPT_COUNTER, PC_OPT_VALUE(v, int *), NULL, (h), NULL, 0 }
#define PC_STRING(s, l, v, a, h) \
	{ (s), (l), PC_OPT_STRING, PC_OPT_VALUE(v, const char **), (a), (h), NULL, 0 }
#define PC_ULONG(s, l, v, a, h) \
	{ (s), (l), PC_OPT_ULONG, PC_OPT_VALUE(v, unsigned long *), (a), (h), NULL, 0 }
#define PC_U64(s, l, v, a, h) \
	{ (s), (l), PC_OPT_U64, PC_OPT_VALUE(v, uint64_t *), (a), (h), NULL, 0 }
#define PC_CALLBACK(s, l, v, a, h, f) \
	{ (s), (l), PC_OPT_CALLBACK, (v), (a), (h), (f), 0 }
#define PC_END() \
	{ 0, NULL, PC_OPT_END, NULL, NULL, NULL, NULL, 0 }

/* What the usage says around the options. */
struct pc_usage {
	const char *cmd;	/* "record"; NULL for perf-ctr itself */
	const char *synopsis;	/* after "usage: perf-ctr CMD " */
	const char *about;	/* lines between the synopsis and the options */
	const char *exit;	/* the exit status, if not the usual one */
};

/* pc_parse_options() flags: where positional arguments may be. */
#define PC_PARSE_ARGS	1	/* anywhere among the options */
#define PC_PARSE_STOP	2	/* they end the options: a command to run follows */

/* What pc_parse_options() returns when the command must return at once. */
#define PC_PARSE_HELP	(-1)	/* it printed the usage on stdout: exit 0 */
#define PC_PARSE_ERROR	(-2)	/* it printed why and the usage on stderr: exit 2 */

/*
 * Parse ARGV[1..ARGC) (ARGV[0] is the command's name) against OPTS and
 * the common options. Returns the number of positional arguments, moved
 * to ARGV[0..n) and followed by NULL, or PC_PARSE_HELP/PC_PARSE_ERROR.
 */
int pc_parse_options(int argc, char **argv, const struct pc_option *opts,
		     const struct pc_usage *usage, unsigned int flags);

/* The exit status of a negative pc_parse_options() return value. */
static inline int pc_parse_exit(int ret)
{
	return ret == PC_PARSE_HELP ? 0 : 2;
}

void pc_usage_print(FILE *f, const struct pc_option *opts,
		    const struct pc_usage *usage);

/*
 * A usage error found after parsing (a missing or conflicting option):
 * "perf-ctr CMD: MESSAGE" and the usage on stderr. Returns 2.
 */
int pc_usage_error(const struct pc_option *opts, const struct pc_usage *usage,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A whole decimal, 0x hex or 0 octal number, for callbacks. 0 or -1. */
int pc_parse_u64(const char *s, uint64_t *v);

/*
 * -o FILE of the commands that print on stdout: until
 * pc_stdout_restore(), stdout goes to a temporary file beside FILE
 * (pc_output_open()), renamed to FILE only if KEEP and all of it was
 * written. "-" leaves stdout alone. Both return 0, or -1 with errno.
 */
struct pc_stdout {
	const char *path;
	char *tmp;
	FILE *f;		/* the temporary file; NULL for "-" */
	int saved_fd;		/* stdout's own file, -1 if it had none */
};

int pc_stdout_redirect(struct pc_stdout *o, const char *path);
int pc_stdout_restore(struct pc_stdout *o, bool keep);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: the command-line parser of every command (options.h).
 *
 * Arguments are taken left to right, the way getopt does (and perf's own
 * parser), so that "-o -" means stdout and an option's argument may start
 * with a dash. A required argument is never optional: "-i" at the end of
 * the line is an error, not "-i perf.data". Positional arguments are
 * packed in place at the start of argv, so no memory is needed.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf-ctr.h"
#include "options.h"

/* The common options' values: every command and util/ read them. */
int pc_verbose;
const char *pc_symfs = "";

/* Looked up after the command's own table, so a command may override one. */
static const struct pc_option common_opts[] = {
	PC_COUNTER('v', "verbose", &pc_verbose,
		   "more messages (twice: even more)"),
	PC_STRING(0, "symfs", &pc_symfs, "DIR",
		  "look for the recording's binaries under DIR"),
	{ 'h', "help", PC_OPT_HELP, NULL, NULL, "print this help and exit", NULL, 0 },
	PC_END(),
};

#define HELP_COL	26	/* where the help of an option starts */

static const char default_exit[] =
	"Exit status: 0 on success, 1 on an error while working, 2 on a usage error.";

static bool has_arg(const struct pc_option *o)
{
	switch (o->kind) {
	case PC_OPT_STRING:
	case PC_OPT_ULONG:
	case PC_OPT_U64:
		return true;
	case PC_OPT_CALLBACK:
		return o->argh;
	default:
		return false;
	}
}

static void print_option(FILE *f, const struct pc_option *o)
{
	const char *h = o->help ? o->help : "";
	int n;

	if (o->short_name && o->long_name)
		n = fprintf(f, "  -%c, --%s", o->short_name, o->long_name);
	else if (o->short_name)
		n = fprintf(f, "  -%c", o->short_name);
	else
		n = fprintf(f, "      --%s", o->long_name);
	if (has_arg(o))
		n += fprintf(f, " %s", o->argh);
	/* A long name and argument push the help onto the next line. */
	if (n >= HELP_COL - 1) {
		fputc('\n', f);
		n = 0;
	}
	for (;;) {
		size_t len = strcspn(h, "\n");

		fprintf(f, "%*s%.*s\n", HELP_COL - n, "", (int)len, h);
		if (!h[len])
			break;
		h += len + 1;
		n = 0;
	}
}

void pc_usage_print(FILE *f, const struct pc_option *opts,
		    const struct pc_usage *u)
{
	const struct pc_option *o;

	fprintf(f, "usage: perf-ctr %s%s%s\n", u->cmd ? u->cmd : "",
		u->cmd ? " " : "", u->synopsis);
	if (u->about)
		fprintf(f, "\n%s", u->about);
	fputc('\n', f);
	for (o = opts; o->kind != PC_OPT_END; o++)
		print_option(f, o);
	for (o = common_opts; o->kind != PC_OPT_END; o++)
		print_option(f, o);
	fprintf(f, "\n%s\n", u->exit ? u->exit : default_exit);
}

static void vmessage(const struct pc_usage *u, const char *fmt, va_list ap)
{
	fprintf(stderr, "perf-ctr%s%s: ", u->cmd ? " " : "", u->cmd ? u->cmd : "");
	vfprintf(stderr, fmt, ap);
	fputs("\n\n", stderr);
}

int pc_usage_error(const struct pc_option *opts, const struct pc_usage *u,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(u, fmt, ap);
	va_end(ap);
	pc_usage_print(stderr, opts, u);
	return 2;
}

/* The parser's errors: the same, as what pc_parse_options() returns. */
static int __attribute__((format(printf, 3, 4)))
fail(const struct pc_option *opts, const struct pc_usage *u, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(u, fmt, ap);
	va_end(ap);
	pc_usage_print(stderr, opts, u);
	return PC_PARSE_ERROR;
}

int pc_parse_u64(const char *s, uint64_t *v)
{
	unsigned long long n;
	char *end;

	/* strtoull() would take " 1", "+1" and "-1" (as ULLONG_MAX). */
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*v = n;
	return 0;
}

static int apply(const struct pc_option *o, const char *arg, const char *name,
		 const struct pc_option *opts, const struct pc_usage *u)
{
	uint64_t n;

	switch (o->kind) {
	case PC_OPT_BOOL:
		*(bool *)o->value = true;
		break;
	case PC_OPT_SET_INT:
		*(int *)o->value = o->defval;
		break;
	case PC_OPT_COUNTER:
		(*(int *)o->value)++;
		break;
	case PC_OPT_STRING:
		*(const char **)o->value = arg;
		break;
	case PC_OPT_ULONG:
	case PC_OPT_U64:
		if (pc_parse_u64(arg, &n) || (o->kind == PC_OPT_ULONG && n > ULONG_MAX))
			return fail(opts, u, "option '%s': '%s' is not a number", name, arg);
		if (o->kind == PC_OPT_ULONG)
			*(unsigned long *)o->value = n;
		else
			*(uint64_t *)o->value = n;
		break;
	case PC_OPT_CALLBACK:
		/* The callback said what is wrong: add the usage. */
		if (o->cb(o, arg)) {
			fputc('\n', stderr);
			pc_usage_print(stderr, opts, u);
			return PC_PARSE_ERROR;
		}
		break;
	case PC_OPT_HELP:
		pc_usage_print(stdout, opts, u);
		return PC_PARSE_HELP;
	case PC_OPT_END:
		break;
	}
	return 0;
}

static const struct pc_option *find_short(const struct pc_option *opts, char c)
{
	const struct pc_option *tables[2] = { opts, common_opts }, *o;
	int t;

	for (t = 0; t < 2; t++)
		for (o = tables[t]; o->kind != PC_OPT_END; o++)
			if (o->short_name == c)
				return o;
	return NULL;
}

/* A bundle of short options: -bv, -ifile, -i file. */
static int parse_short(int argc, char **argv, int *i,
		       const struct pc_option *opts, const struct pc_usage *u)
{
	const char *p;
	int ret;

	for (p = argv[*i] + 1; *p; p++) {
		const struct pc_option *o = find_short(opts, *p);
		char name[3] = { '-', *p, 0 };

		if (!o)
			return fail(opts, u, "unknown option '%s'", name);
		if (!has_arg(o)) {
			ret = apply(o, NULL, name, opts, u);
			if (ret)
				return ret;
			continue;
		}
		/* The rest of the bundle is the argument, else the next word. */
		if (p[1])
			return apply(o, p + 1, name, opts, u);
		if (*i + 1 >= argc)
			return fail(opts, u, "option '%s' needs an argument (%s)",
				    name, o->argh);
		return apply(o, argv[++*i], name, opts, u);
	}
	return 0;
}

/*
 * The option named NAME (LEN bytes), or the only one whose long name
 * starts with it. Several of those: NULL with *NR_MATCHES > 1.
 */
static const struct pc_option *find_long(const struct pc_option *opts,
					 const char *name, size_t len,
					 int *nr_matches)
{
	const struct pc_option *tables[2] = { opts, common_opts }, *o, *found = NULL;
	int t;

	*nr_matches = 0;
	if (!len)
		return NULL;
	for (t = 0; t < 2; t++)
		for (o = tables[t]; o->kind != PC_OPT_END; o++)
			if (o->long_name && strlen(o->long_name) == len &&
			    !strncmp(o->long_name, name, len)) {
				*nr_matches = 1;
				return o;
			}
	for (t = 0; t < 2; t++)
		for (o = tables[t]; o->kind != PC_OPT_END; o++)
			if (o->long_name && !strncmp(o->long_name, name, len)) {
				found = o;
				(*nr_matches)++;
			}
	return *nr_matches == 1 ? found : NULL;
}

static int ambiguous(const struct pc_option *opts, const struct pc_usage *u,
		     const char *name, size_t len)
{
	const struct pc_option *tables[2] = { opts, common_opts }, *o;
	char list[256] = "";
	size_t n = 0;
	int t;

	for (t = 0; t < 2; t++)
		for (o = tables[t]; o->kind != PC_OPT_END; o++)
			if (o->long_name && !strncmp(o->long_name, name, len) &&
			    n < sizeof(list))
				n += snprintf(list + n, sizeof(list) - n, "%s--%s",
					      n ? ", " : "", o->long_name);
	return fail(opts, u, "option '--%.*s' is ambiguous: %s", (int)len, name, list);
}

/* --name, --name=value, --name value, or a unique prefix of the name. */
static int parse_long(int argc, char **argv, int *i,
		      const struct pc_option *opts, const struct pc_usage *u)
{
	const char *a = argv[*i] + 2, *eq = strchr(a, '='), *arg = NULL;
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	const struct pc_option *o;
	char name[80];
	int nr;

	o = find_long(opts, a, len, &nr);
	if (!o && nr > 1)
		return ambiguous(opts, u, a, len);
	if (!o)
		return fail(opts, u, "unknown option '--%.*s'", (int)len, a);
	snprintf(name, sizeof(name), "--%s", o->long_name);
	if (!has_arg(o)) {
		if (eq)
			return fail(opts, u, "option '%s' takes no argument", name);
	} else if (eq) {
		arg = eq + 1;
	} else if (*i + 1 < argc) {
		arg = argv[++*i];
	} else {
		return fail(opts, u, "option '%s' needs an argument (%s)", name, o->argh);
	}
	return apply(o, arg, name, opts, u);
}

int pc_parse_options(int argc, char **argv, const struct pc_option *opts,
		     const struct pc_usage *u, unsigned int flags)
{
	int i, n = 0, ret;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		/* "-" alone is a file name (stdin), not an option. */
		if (a[0] != '-' || !a[1]) {
			if (flags & PC_PARSE_STOP)
				break;
			if (!(flags & PC_PARSE_ARGS))
				return fail(opts, u, "unexpected argument '%s'", a);
			argv[n++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[1] == '-')
			ret = parse_long(argc, argv, &i, opts, u);
		else
			ret = parse_short(argc, argv, &i, opts, u);
		if (ret)
			return ret;
	}
	if (i < argc && !(flags & (PC_PARSE_ARGS | PC_PARSE_STOP)))
		return fail(opts, u, "unexpected argument '%s'", argv[i]);
	/* n <= i - 1 all along: moving down never overwrites what is left. */
	while (i < argc)
		argv[n++] = argv[i++];
	argv[n] = NULL;
	return n;
}

int pc_stdout_redirect(struct pc_stdout *o, const char *path)
{
	int err;

	o->path = path;
	o->tmp = NULL;
	o->f = NULL;
	o->saved_fd = -1;
	if (!strcmp(path, "-"))
		return 0;
	o->f = pc_output_open(path, &o->tmp);
	if (!o->f)
		return -1;
	/*
	 * The commands print with printf(): pointing file descriptor 1 at the
	 * temporary file sends all of it there without threading a FILE
	 * through every printer. stdout has not been written to yet, so its
	 * buffer follows the new file (fully buffered).
	 */
	fflush(stdout);
	o->saved_fd = dup(STDOUT_FILENO);
	if (o->saved_fd < 0 && errno != EBADF)
		goto fail;
	if (dup2(fileno(o->f), STDOUT_FILENO) < 0)
		goto fail;
	return 0;
fail:
	err = errno;
	if (o->saved_fd >= 0)
		close(o->saved_fd);
	pc_output_close(o->f, o->tmp, false);
	o->f = NULL;
	o->tmp = NULL;
	errno = err;
	return -1;
}

int pc_stdout_restore(struct pc_stdout *o, bool keep)
{
	int ret = 0, err = 0;

	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		ret = -1;
		err = errno ? errno : EIO;
	}
	if (!o->f) {
		errno = err;
		return ret;
	}
	if (o->saved_fd >= 0) {
		dup2(o->saved_fd, STDOUT_FILENO);
		close(o->saved_fd);
	} else {
		close(STDOUT_FILENO);
	}
	clearerr(stdout);
	if (pc_output_close(o->f, o->tmp, keep && !ret) && !ret) {
		ret = -1;
		err = errno;
	}
	o->f = NULL;
	o->tmp = NULL;
	errno = err;
	return ret;
}

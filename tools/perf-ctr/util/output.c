// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: output files that appear whole or not at all.
 *
 * A command writes to a temporary file beside the output and renames it
 * over the output only when everything was written: an error, a full disk
 * or an interrupt never leaves a half-written or empty profile behind.
 * Only a regular file can be replaced that way: a device, FIFO or socket
 * (-o /dev/null, -o /dev/stdout) is written in place, and a symbolic link
 * stays a link to the file that gets replaced. A temporary file still
 * open when the process exits (out of memory: exit(1)) or is killed by
 * SIGINT, SIGTERM or SIGHUP is removed.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf-ctr.h"

#define TMP_SUFFIX	".tmp.XXXXXX"

/* The temporary files open now, removed if the process ends first. */
#define MAX_PENDING	8
static char *volatile pending[MAX_PENDING];

static void remove_pending(void)
{
	int i;

	for (i = 0; i < MAX_PENDING; i++)
		if (pending[i])
			unlink(pending[i]);
}

static void on_fatal_signal(int sig)
{
	remove_pending();	/* unlink() is async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void track(char *tmp)
{
	static bool armed;
	int i;

	if (!armed) {
		armed = true;
		atexit(remove_pending);
		signal(SIGINT, on_fatal_signal);
		signal(SIGTERM, on_fatal_signal);
		signal(SIGHUP, on_fatal_signal);
	}
	for (i = 0; i < MAX_PENDING; i++)
		if (!pending[i]) {
			pending[i] = tmp;
			return;
		}
}

static void untrack(const char *tmp)
{
	int i;

	for (i = 0; i < MAX_PENDING; i++)
		if (pending[i] == tmp)
			pending[i] = NULL;
}

/* The file the symbolic link PATH names, whether it exists yet or not. */
static char *link_target(const char *path)
{
	char buf[PATH_MAX], *real, *slash;
	ssize_t n;

	real = realpath(path, NULL);
	if (real)
		return real;
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	slash = strrchr(path, '/');
	if (buf[0] == '/' || !slash)
		return strdup(buf);
	if (asprintf(&real, "%.*s/%s", (int)(slash - path), path, buf) < 0)
		return NULL;
	return real;
}

FILE *pc_output_open(const char *path, char **tmp)
{
	char *real = NULL;
	struct stat st;
	mode_t mask;
	FILE *f;
	int fd, n;

	*tmp = NULL;
	if (!strcmp(path, "-"))
		return stdout;
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return fopen(path, "wb");
	if (!lstat(path, &st) && S_ISLNK(st.st_mode))
		real = link_target(path);
	n = asprintf(tmp, "%s" TMP_SUFFIX, real ? real : path);
	free(real);
	if (n < 0) {
		*tmp = NULL;
		errno = ENOMEM;
		return NULL;
	}
	/*
	 * Tracked before it exists: a signal that comes once mkstemp() has
	 * made the file must find its name (mkstemp() writes the name into
	 * the buffer before it creates the file).
	 */
	track(*tmp);
	fd = mkstemp(*tmp);
	if (fd < 0)
		goto fail;
	/* mkstemp() makes it 0600: give it the mode a new file would get. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0) {
		close(fd);
		unlink(*tmp);
		goto fail;
	}
	f = fdopen(fd, "wb");
	if (f)
		return f;
	close(fd);
	unlink(*tmp);
fail:
	untrack(*tmp);
	free(*tmp);
	*tmp = NULL;
	return NULL;
}

void pc_print_error(const char *file, const struct pc_error *err)
{
	fprintf(stderr, "%s: offset 0x%llx: %s\n", file,
		(unsigned long long)err->offset, err->msg[0] ? err->msg : "error");
}

int pc_output_close(FILE *f, char *tmp, bool keep)
{
	int ret = 0, err = 0;
	char *target;

	if (fflush(f) || ferror(f)) {
		ret = -1;
		err = errno ? errno : EIO;
	}
	if (f == stdout)
		goto out;
	if (fclose(f) && !ret) {
		ret = -1;
		err = errno;
	}
	if (!tmp)	/* written in place */
		goto out;
	/* The file it stands for: PATH, or the file PATH links to. */
	target = strndup(tmp, strlen(tmp) - strlen(TMP_SUFFIX));
	if (keep && !ret && (!target || rename(tmp, target) < 0)) {
		ret = -1;
		err = target ? errno : ENOMEM;
	}
	free(target);
	if (!keep || ret)
		unlink(tmp);
	untrack(tmp);
	free(tmp);
out:
	errno = err;
	return ret;
}

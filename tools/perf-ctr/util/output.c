// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: output files that appear whole or not at all.
 *
 * A command writes to a temporary file beside the output and renames it
 * over the output only when everything was written: an error, a full disk
 * or an interrupt never leaves a half-written or empty profile behind.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf-ctr.h"

FILE *pc_output_open(const char *path, char **tmp)
{
	mode_t mask;
	FILE *f;
	int fd;

	*tmp = NULL;
	if (!strcmp(path, "-"))
		return stdout;
	if (asprintf(tmp, "%s.tmp.XXXXXX", path) < 0) {
		*tmp = NULL;
		errno = ENOMEM;
		return NULL;
	}
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
	free(*tmp);
	*tmp = NULL;
	return NULL;
}

int pc_output_close(FILE *f, const char *path, char *tmp, bool keep)
{
	int ret = 0, err = 0;

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
	if (keep && !ret && rename(tmp, path) < 0) {
		ret = -1;
		err = errno;
	}
	if (!keep || ret)
		unlink(tmp);
	free(tmp);
out:
	errno = err;
	return ret;
}

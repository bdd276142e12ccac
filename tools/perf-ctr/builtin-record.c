// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr record: run a command and record its samples and branch stacks
 * with libperf, into a perf.data that perf itself reads.
 *
 * The command is forked first and held on a pipe until the event is open
 * on it; enable_on_exec starts counting at its exec, so the kernel's own
 * COMM and MMAP2 records describe the new image. When the kernel refuses
 * the branch filter, each requested branch type is tried alone to name
 * the ones it refuses; those are dropped (or, if none is left, "any" is
 * used) and the user is told.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include "perf-ctr.h"
#include "builtin.h"
#include "options.h"

/*
 * libperf allocates the sample ids of PERF_FORMAT_ID events when it maps
 * them but only frees them from an internal function, and asserts that
 * they were freed when the evsel is deleted. It is exported, if not
 * declared in the public headers.
 */
void perf_evsel__free_id(struct perf_evsel *evsel);

#ifndef PERF_SAMPLE_BRANCH_HW_INDEX
#define PERF_SAMPLE_BRANCH_HW_INDEX	(1U << 17)
#endif
#ifndef PERF_SAMPLE_BRANCH_PRIV_SAVE
#define PERF_SAMPLE_BRANCH_PRIV_SAVE	(1U << 18)
#endif
#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS	(1U << 19)
#endif

#define CAPS_BRANCHES "/sys/bus/event_source/devices/cpu/caps/branches"

static const struct {
	const char *name;
	uint64_t bit;
} branch_opts[] = {
	{ "u", PERF_SAMPLE_BRANCH_USER },
	{ "k", PERF_SAMPLE_BRANCH_KERNEL },
	{ "hv", PERF_SAMPLE_BRANCH_HV },
	{ "any", PERF_SAMPLE_BRANCH_ANY },
	{ "any_call", PERF_SAMPLE_BRANCH_ANY_CALL },
	{ "any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN },
	{ "ind_call", PERF_SAMPLE_BRANCH_IND_CALL },
	{ "abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX },
	{ "in_tx", PERF_SAMPLE_BRANCH_IN_TX },
	{ "no_tx", PERF_SAMPLE_BRANCH_NO_TX },
	{ "cond", PERF_SAMPLE_BRANCH_COND },
	{ "ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP },
	{ "ind_jump", PERF_SAMPLE_BRANCH_IND_JUMP },
	{ "call", PERF_SAMPLE_BRANCH_CALL },
	{ "no_flags", PERF_SAMPLE_BRANCH_NO_FLAGS },
	{ "no_cycles", PERF_SAMPLE_BRANCH_NO_CYCLES },
	{ "save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE },
	{ "stack", PERF_SAMPLE_BRANCH_CALL_STACK },
	{ "hw_index", PERF_SAMPLE_BRANCH_HW_INDEX },
	{ "priv", PERF_SAMPLE_BRANCH_PRIV_SAVE },
	{ "counter", PERF_SAMPLE_BRANCH_COUNTERS },
};

#define PLM_BITS (PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | \
		  PERF_SAMPLE_BRANCH_HV)
/* What says which transfers to record, as opposed to how to record them. */
#define TYPE_BITS (PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_ANY_CALL |	\
		   PERF_SAMPLE_BRANCH_ANY_RETURN | PERF_SAMPLE_BRANCH_IND_CALL | \
		   PERF_SAMPLE_BRANCH_ABORT_TX | PERF_SAMPLE_BRANCH_IN_TX |	\
		   PERF_SAMPLE_BRANCH_NO_TX | PERF_SAMPLE_BRANCH_COND |	\
		   PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_IND_JUMP | \
		   PERF_SAMPLE_BRANCH_CALL)

static const char *bit_name(uint64_t bit)
{
	size_t i;

	for (i = 0; i < sizeof(branch_opts) / sizeof(branch_opts[0]); i++)
		if (branch_opts[i].bit == bit)
			return branch_opts[i].name;
	return "?";
}

/* perf's -j syntax: comma-separated names; privilege levels alone mean "any". */
static int parse_branch_filter(const char *arg, uint64_t *out)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	uint64_t v = 0;
	size_t i;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(branch_opts) / sizeof(branch_opts[0]); i++)
			if (!strcmp(tok, branch_opts[i].name))
				break;
		if (i == sizeof(branch_opts) / sizeof(branch_opts[0])) {
			fprintf(stderr, "perf-ctr record: unknown branch filter '%s'\n", tok);
			free(copy);
			return -1;
		}
		v |= branch_opts[i].bit;
	}
	free(copy);
	if (!(v & TYPE_BITS))
		v |= PERF_SAMPLE_BRANCH_ANY;
	*out = v;
	return 0;
}

static void print_filter(FILE *f, uint64_t v)
{
	const char *sep = "";
	int b;

	for (b = 0; b < 64; b++)
		if (v & (1ULL << b)) {
			fprintf(f, "%s%s", sep, bit_name(1ULL << b));
			sep = ",";
		}
}

/* Say what caps/branches says: the depth of the branch stack, or nothing. */
static void report_caps(bool want_branches)
{
	char buf[64] = "";
	FILE *f = fopen(CAPS_BRANCHES, "r");

	if (!f) {
		if (want_branches)
			fprintf(stderr, "perf-ctr record: %s is absent: the cpu PMU "
				"advertises no branch stack (no CTR, LBR or BRBE, or a "
				"kernel without the driver); trying anyway\n", CAPS_BRANCHES);
		return;
	}
	if (fgets(buf, sizeof(buf), f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
	if (pc_verbose || !want_branches)
		fprintf(stderr, "perf-ctr record: the cpu PMU records %s branches\n", buf);
}

struct rec {
	struct perf_event_attr attr;
	struct perf_evlist *evlist;
	struct perf_evsel *evsel;
	struct perf_thread_map *threads;
	struct perf_cpu_map *cpus;
	pid_t child;
};

/* Open ATTR on the child; returns 0 or -errno, and closes what it opened. */
static int try_open(struct rec *r, struct perf_event_attr *attr, bool keep)
{
	int err;

	r->evlist = perf_evlist__new();
	r->evsel = perf_evsel__new(attr);
	if (!r->evlist || !r->evsel)
		return -ENOMEM;
	perf_evlist__add(r->evlist, r->evsel);
	perf_evlist__set_maps(r->evlist, r->cpus, r->threads);
	err = perf_evlist__open(r->evlist);
	if (err || !keep) {
		if (!err)
			perf_evlist__close(r->evlist);
		perf_evlist__delete(r->evlist);	/* deletes the evsel too */
		r->evlist = NULL;
		r->evsel = NULL;
	}
	return err < 0 ? err : err ? -err : 0;
}

/*
 * Open the event, falling back when the kernel refuses the branch filter:
 * first what perf adds by itself (hw_index), then each refused branch type.
 */
static int open_with_fallback(struct rec *r, const char *ev_name)
{
	struct perf_event_attr a = r->attr, plain = r->attr;
	uint64_t types, refused = 0;
	int err, b;

	err = try_open(r, &a, true);
	if (!err || !(a.sample_type & PERF_SAMPLE_BRANCH_STACK))
		return err;
	/* Is it the event itself? Then there is nothing to fall back to. */
	plain.sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_STACK;
	plain.branch_sample_type = 0;
	if (try_open(r, &plain, false))
		return err;
	if (a.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
		/* Older kernels: perf drops it silently too. */
		a.branch_sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_HW_INDEX;
		err = try_open(r, &a, true);
		if (!err) {
			r->attr = a;
			return 0;
		}
	}
	types = a.branch_sample_type & TYPE_BITS;
	for (b = 0; b < 64; b++) {
		struct perf_event_attr one = a;
		uint64_t bit = 1ULL << b;
		int e;

		if (!(types & bit))
			continue;
		one.branch_sample_type = (a.branch_sample_type & ~TYPE_BITS) | bit;
		e = try_open(r, &one, false);
		if (e) {
			fprintf(stderr, "perf-ctr record: the kernel refuses branch filter "
				"'%s' (%s)\n", bit_name(bit), strerror(-e));
			refused |= bit;
		}
	}
	if (refused == types) {
		struct perf_event_attr any = a;

		any.branch_sample_type = (a.branch_sample_type & ~TYPE_BITS) |
					 PERF_SAMPLE_BRANCH_ANY;
		if ((types & PERF_SAMPLE_BRANCH_ANY) || try_open(r, &any, false)) {
			fprintf(stderr, "perf-ctr record: the %s event opens, but not "
				"with branch stacks (%s): no branch stack support here; "
				"record without -b/-j\n", ev_name, strerror(-err));
			return err;
		}
		fprintf(stderr, "perf-ctr record: no requested branch type is "
			"supported: recording 'any' instead\n");
		a = any;
	} else if (refused) {
		a.branch_sample_type &= ~refused;
		fprintf(stderr, "perf-ctr record: recording without the refused filters: ");
		print_filter(stderr, a.branch_sample_type);
		fputc('\n', stderr);
	} else {
		/* Every type is fine alone: it is the combination, or a flag. */
		fprintf(stderr, "perf-ctr record: the kernel refuses the combination ");
		print_filter(stderr, a.branch_sample_type);
		fprintf(stderr, " (%s): trying 'any'\n", strerror(-err));
		a.branch_sample_type = (a.branch_sample_type & PLM_BITS) |
				       PERF_SAMPLE_BRANCH_ANY;
	}
	err = try_open(r, &a, true);
	if (!err)
		r->attr = a;
	else
		fprintf(stderr, "perf-ctr record: still refused (%s)\n", strerror(-err));
	return err;
}

static volatile sig_atomic_t child_done;

static void on_sigchld(int sig)
{
	(void)sig;
	child_done = 1;
}

/* Copy every record in the ring buffers to the file. */
static int drain(struct rec *r, struct pc_writer *w, uint64_t *samples,
		 uint64_t *lost)
{
	struct perf_mmap *map;

	perf_evlist__for_each_mmap(r->evlist, map, false) {
		union perf_event *ev;

		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map))) {
			if (ev->header.type == PERF_RECORD_SAMPLE)
				(*samples)++;
			else if (ev->header.type == PERF_RECORD_LOST)
				*lost += ev->lost.lost;
			if (pc_writer_raw(w, ev, ev->header.size)) {
				perf_mmap__consume(map);
				return -1;
			}
			perf_mmap__consume(map);
		}
		perf_mmap__read_done(map);
	}
	return 0;
}

static int libperf_print(enum libperf_print_level level, const char *fmt, va_list ap)
{
	if (level > LIBPERF_WARN && pc_verbose < 2)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* -j: perf's filters, added to those of -b and earlier -j. */
static int opt_filter(const struct pc_option *opt, const char *arg)
{
	uint64_t f;

	if (parse_branch_filter(arg, &f))
		return -1;
	*(uint64_t *)opt->value |= f;
	return 0;
}

struct rate {
	uint64_t period, freq;
};

/* -c: a period, which replaces an earlier -F. */
static int opt_period(const struct pc_option *opt, const char *arg)
{
	struct rate *rate = opt->value;

	if (pc_parse_u64(arg, &rate->period)) {
		fprintf(stderr, "perf-ctr record: option -c/--count: '%s' is not a number\n", arg);
		return -1;
	}
	rate->freq = 0;
	return 0;
}

static const struct pc_usage usage = {
	.cmd = "record",
	.synopsis = "[options] [--] CMD [ARGS]",
	.about =
"  Run CMD and record samples with branch stacks into FILE (perf.data).\n"
"  Options end at CMD: what follows it is CMD's.\n"
"  Reads " CAPS_BRANCHES ".\n"
"  A filter the kernel refuses is named, dropped, and the rest recorded\n"
"  (or 'any' if nothing is left).\n",
	.exit =
"Exit status: CMD's when it was recorded, 1 if it could not be, 2 on a\n"
"usage error.",
};

int cmd_record(int argc, char **argv)
{
	const char *out = "perf.data", *event = "cycles";
	struct rec r = { .child = -1 };
	struct pc_error err = { 0 };
	struct perf_counts_values counts = { 0 };
	uint64_t bst = 0, samples = 0, lost = 0, *ids = NULL;
	struct rate rate = { .period = 10007 };
	size_t nr_ids;
	struct pc_writer *w = NULL;
	int i, pipefd[2], status = 0, ret = 1, e;
	bool branches, any = false, dry = false;
	char **cmd;
	const struct pc_option opts[] = {
		PC_STRING('e', "event", &event, "EVENT",
			  "cycles (default), instructions, cpu-clock or\n"
			  "task-clock"),
		PC_BOOL('b', "branch-any", &any, "record any taken branch (-j any)"),
		PC_CALLBACK('j', "branch-filter", &bst, "FILTERS",
			    "perf's branch filters, comma-separated: any,\n"
			    "any_call, any_ret, ind_call, call, ind_jmp (or\n"
			    "ind_jump), cond, stack, abort_tx, in_tx, no_tx;\n"
			    "u, k, hv; save_type, priv, hw_index, no_flags,\n"
			    "no_cycles, counter. Only u/k/hv means any.",
			    opt_filter),
		PC_CALLBACK('c', "count", &rate, "PERIOD",
			    "sample every PERIOD events (default 10007)", opt_period),
		PC_U64('F', "freq", &rate.freq, "FREQ", "sample FREQ times a second instead"),
		PC_STRING('o', "output", &out, "FILE", "where to write (default perf.data)"),
		PC_BOOL(0, "dry-run", &dry, "print the event that would be opened, run nothing"),
		PC_END(),
	};

	/* Options end at the workload: what follows it, -v too, is its own. */
	argc = pc_parse_options(argc, argv, opts, &usage, PC_PARSE_STOP);
	if (argc < 0)
		return pc_parse_exit(argc);
	cmd = argv;
	if (!dry && !argc)
		return pc_usage_error(opts, &usage, "no command to run");
	if (any)
		bst |= PERF_SAMPLE_BRANCH_ANY;
	branches = bst != 0;

	memset(&r.attr, 0, sizeof(r.attr));
	r.attr.size = sizeof(r.attr);
	if (!strcmp(event, "cycles")) {
		r.attr.type = PERF_TYPE_HARDWARE;
		r.attr.config = PERF_COUNT_HW_CPU_CYCLES;
	} else if (!strcmp(event, "instructions")) {
		r.attr.type = PERF_TYPE_HARDWARE;
		r.attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	} else if (!strcmp(event, "cpu-clock") || !strcmp(event, "task-clock")) {
		r.attr.type = PERF_TYPE_SOFTWARE;
		r.attr.config = event[0] == 'c' ? PERF_COUNT_SW_CPU_CLOCK :
						  PERF_COUNT_SW_TASK_CLOCK;
	} else {
		fprintf(stderr, "perf-ctr record: unknown event '%s'\n", event);
		return 2;
	}
	if (rate.freq) {
		r.attr.freq = 1;
		r.attr.sample_freq = rate.freq;
	} else {
		r.attr.sample_period = rate.period;
	}
	r.attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			     PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	r.attr.read_format = PERF_FORMAT_ID;
	if (branches) {
		/* Privilege: what was asked for, else what the event counts. */
		if (!(bst & PLM_BITS))
			bst |= PERF_SAMPLE_BRANCH_USER;
		bst |= PERF_SAMPLE_BRANCH_HW_INDEX;
		r.attr.sample_type |= PERF_SAMPLE_BRANCH_STACK;
		r.attr.branch_sample_type = bst;
	}
	r.attr.exclude_kernel = !(bst & PERF_SAMPLE_BRANCH_KERNEL);
	r.attr.exclude_hv = 1;
	r.attr.disabled = 1;
	r.attr.enable_on_exec = 1;
	r.attr.inherit = 1;
	r.attr.mmap = r.attr.mmap2 = r.attr.comm = 1;
	r.attr.comm_exec = 1;
	r.attr.sample_id_all = 1;
	r.attr.task = 1;

	if (dry) {
		printf("type %u config %llu sample_type 0x%llx branch_sample_type 0x%llx (",
		       r.attr.type, (unsigned long long)r.attr.config,
		       (unsigned long long)r.attr.sample_type,
		       (unsigned long long)r.attr.branch_sample_type);
		print_filter(stdout, r.attr.branch_sample_type);
		printf(")%s\n", r.attr.exclude_kernel ? " exclude_kernel" : "");
		return 0;
	}
	report_caps(branches);
	libperf_init(libperf_print);

	/* The child waits for the go (the pipe closing) before it execs. */
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		perror("perf-ctr record: pipe");
		return 1;
	}
	signal(SIGCHLD, on_sigchld);
	r.child = fork();
	if (r.child < 0) {
		perror("perf-ctr record: fork");
		return 1;
	}
	if (!r.child) {
		char c;

		close(pipefd[1]);
		if (read(pipefd[0], &c, 1) != 1)
			_exit(127);	/* the parent gave up */
		execvp(cmd[0], cmd);
		fprintf(stderr, "perf-ctr record: %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	close(pipefd[0]);

	r.threads = perf_thread_map__new_array(1, &r.child);
	/*
	 * One event per CPU, inherited by the command's children: the kernel
	 * maps no inherited per-task event (cpu -1).
	 */
	r.cpus = perf_cpu_map__new_online_cpus();
	if (!r.threads || !r.cpus)
		goto kill_child;
	e = open_with_fallback(&r, event);
	if (e) {
		fprintf(stderr, "perf-ctr record: cannot open the %s event%s: %s%s\n", event,
			branches ? " with branch stacks" : "",
			strerror(-e), e == -EACCES || e == -EPERM ?
			" (see /proc/sys/kernel/perf_event_paranoid)" : "");
		goto kill_child;
	}
	if (perf_evlist__mmap(r.evlist, 64) < 0) {
		fprintf(stderr, "perf-ctr record: cannot map the ring buffer: %s "
			"(see /proc/sys/kernel/perf_event_mlock_kb)\n", strerror(errno));
		goto kill_child;
	}
	/* The ids the kernel gave the event (one per CPU), for the attr. */
	nr_ids = perf_cpu_map__nr(r.cpus);
	ids = calloc(nr_ids ? nr_ids : 1, sizeof(*ids));
	if (!ids)
		goto kill_child;
	for (i = 0; i < (int)nr_ids; i++)
		if (!perf_evsel__read(r.evsel, i, 0, &counts))
			ids[i] = counts.id;
	w = pc_writer_open(out, &err);
	if (!w || pc_writer_add_attr(w, &r.attr, ids, nr_ids)) {
		pc_print_error(out, &err);
		goto kill_child;
	}

	if (write(pipefd[1], "g", 1) != 1)
		goto kill_child;
	close(pipefd[1]);
	pipefd[1] = -1;
	for (;;) {
		pid_t p = waitpid(r.child, &status, WNOHANG);

		if (drain(&r, w, &samples, &lost))
			break;
		if (p == r.child) {
			r.child = -1;
			drain(&r, w, &samples, &lost);
			break;
		}
		perf_evlist__poll(r.evlist, 100);
	}
	if (pc_writer_close(w)) {
		pc_print_error(out, &err);
		w = NULL;
		goto out;
	}
	w = NULL;
	fprintf(stderr, "[ perf-ctr record: %llu samples%s, %llu lost, wrote %s ]\n",
		(unsigned long long)samples,
		r.attr.sample_type & PERF_SAMPLE_BRANCH_STACK ? " with branch stacks" : "",
		(unsigned long long)lost, out);
	ret = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	goto out;

kill_child:
	if (r.child > 0) {
		kill(r.child, SIGKILL);
		waitpid(r.child, NULL, 0);
	}
out:
	/* A recording that did not complete must not replace the output. */
	if (w)
		pc_writer_discard(w);
	if (r.evlist) {
		perf_evlist__munmap(r.evlist);
		perf_evlist__close(r.evlist);
		perf_evsel__free_id(r.evsel);
		perf_evlist__delete(r.evlist);
	}
	perf_cpu_map__put(r.cpus);
	perf_thread_map__put(r.threads);
	free(ids);
	return ret;
}

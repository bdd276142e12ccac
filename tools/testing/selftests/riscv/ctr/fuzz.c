// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf_event_open() with branch stacks, at random. The kernel must neither
 * crash nor hang, and must answer with the errno the CTR rules document:
 *
 * - ABORT_TX, IN_TX, NO_TX, COUNTERS: EOPNOTSUPP;
 * - no branch type, or no privilege mode: EINVAL;
 * - a branch stack on an event that does not sample: EINVAL;
 * - CALL_STACK with a type filter: EINVAL; with KERNEL or HV: EOPNOTSUPP;
 *   without USER: EINVAL (where the hart has no call-stack mode, a
 *   CALL_STACK request that breaks neither EINVAL rule is refused with
 *   EOPNOTSUPP: a malformed request is malformed on every hart);
 * - on a hart without CTR, every branch stack event: EOPNOTSUPP;
 * - before all of them, perf core's own: bits from PERF_SAMPLE_BRANCH_MAX
 *   up, or privilege bits alone: EINVAL.
 *
 * "rules" checks each rule once on an otherwise valid event. "random"
 * opens CTR_FUZZ_ITERATIONS (default 100000) random events, in
 * CTR_FUZZ_WORKERS workers (default 2, at most 4, one a CPU), from a
 * seeded PRNG: the seed is printed, and CTR_FUZZ_SEED=N replays a run.
 * It stops early after CTR_FUZZ_SECONDS (default 180; a loaded host
 * makes a guest slow) with a twentieth of them at least, and a worker
 * that opens no event for STUCK_SECONDS is a failure: its kernel stack is
 * printed and it is killed. Most events are built to be valid
 * but for their branch sample type, which takes every combination of the
 * bits below PERF_SAMPLE_BRANCH_MAX: the errno must then be one of those
 * of the rules they break, and success when they break none. The others
 * are random in every field (type, config, sample_type, read_format, flags,
 * size, group): any errno perf_event_open(2) documents for a bad
 * attribute will do. The events that open go through a random sequence
 * of enable, disable, reset, refresh, period changes, mmap, some work to
 * sample, read and close; some stay open a while, as group leaders. While
 * it runs, perf_event_max_sample_rate is 2000.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#include "../../kselftest_harness.h"
#include "sysctl.h"

#define CAPS_BRANCHES	"/sys/bus/event_source/devices/cpu/caps/branches"
#define ITERATIONS	100000
#define WORKERS		2
#define MAX_WORKERS	4
#define POOL		4	/* open events kept as group leaders */
#define MAX_REPORTS	10
#define SECONDS		180	/* the time the workers get */
#define STUCK_SECONDS	90	/* without an event done: a hang */

#define BR(x)		PERF_SAMPLE_BRANCH_##x
#define BR_PLM		(BR(USER) | BR(KERNEL) | BR(HV))
#define BR_TYPES	(BR(ANY) | BR(ANY_CALL) | BR(ANY_RETURN) |		\
			 BR(IND_CALL) | BR(CALL) | BR(IND_JUMP) | BR(COND))
#define BR_NEVER	(BR(ABORT_TX) | BR(IN_TX) | BR(NO_TX) | BR(COUNTERS))

/* What the answer to an open may be: success and/or some errnos. */
enum { OK_OPEN = 1, OK_EINVAL = 2, OK_EOPNOTSUPP = 4 };

struct platform {
	bool ctr;		/* branch stacks at all */
	bool callstack;		/* CALL_STACK accepted */
	int ncpus;
	int home;		/* the worker's own CPU */
};

static bool has_ctr(void)
{
	return !access(CAPS_BRANCHES, F_OK);
}

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group, 0);
}

/* A valid user-only sampling event with a branch stack. */
static void base_attr(struct perf_event_attr *a, __u64 bst)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_INSTRUCTIONS;
	a->sample_period = 100003;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	a->branch_sample_type = bst;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->disabled = 1;
}

static bool callstack_supported(void)
{
	struct perf_event_attr a;
	int fd;

	base_attr(&a, BR(CALL_STACK) | BR(USER));
	fd = perf_open(&a, 0, -1, -1);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/*
 * The answers the documented rules allow for @a, an event that is valid
 * but maybe for its branch sample type. Where it breaks several rules,
 * any of their errnos will do.
 */
static unsigned int expected(const struct perf_event_attr *a,
			     const struct platform *p)
{
	__u64 bst = a->branch_sample_type;
	unsigned int ok = 0;

	if (!(a->sample_type & PERF_SAMPLE_BRANCH_STACK))
		return OK_OPEN;
	/* perf core: unknown bits, and nothing but privilege bits */
	if (bst & ~(__u64)(PERF_SAMPLE_BRANCH_MAX - 1) || !(bst & ~BR_PLM))
		return OK_EINVAL;
	/* perf core: no privilege bit means the event's own modes */
	if (!(bst & BR_PLM)) {
		if (!a->exclude_kernel)
			bst |= BR(KERNEL);
		if (!a->exclude_user)
			bst |= BR(USER);
		if (!a->exclude_hv)
			bst |= BR(HV);
	}
	if (!p->ctr)
		return OK_EOPNOTSUPP;
	if (!a->sample_period)		/* also sample_freq */
		ok |= OK_EINVAL;
	if (bst & BR_NEVER)
		ok |= OK_EOPNOTSUPP;
	if (bst & BR(CALL_STACK)) {
		bool malformed = (bst & BR_TYPES) || !(bst & BR(USER));

		if (malformed)
			ok |= OK_EINVAL;
		if (bst & (BR(KERNEL) | BR(HV)))
			ok |= OK_EOPNOTSUPP;
		if (!p->callstack && !malformed)
			ok |= OK_EOPNOTSUPP;
	} else if (!(bst & BR_TYPES) || !(bst & BR_PLM)) {
		ok |= OK_EINVAL;
	}
	return ok ? ok : OK_OPEN;
}

static bool answer_ok(unsigned int ok, int fd, int err)
{
	if (fd >= 0)
		return ok & OK_OPEN;
	return (err == EINVAL && (ok & OK_EINVAL)) ||
	       (err == EOPNOTSUPP && (ok & OK_EOPNOTSUPP));
}

static const char *answer(unsigned int ok)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%s%s%s", ok & OK_OPEN ? " success" : "",
		 ok & OK_EINVAL ? " EINVAL" : "", ok & OK_EOPNOTSUPP ? " EOPNOTSUPP" : "");
	return buf;
}

static void get_platform(struct platform *p)
{
	p->ctr = has_ctr();
	p->callstack = p->ctr && callstack_supported();
	p->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	ksft_print_msg("branch stacks: %s, call-stack mode: %s, %d CPUs\n",
		       p->ctr ? "yes" : "no", p->callstack ? "yes" : "no",
		       p->ncpus);
}

/* Each rule on its own, on an event that is otherwise valid. */
TEST(rules)
{
	static const struct {
		const char *what;
		__u64 bst;
		bool counting;		/* no sample period */
		bool user_excluded;	/* exclude_user too */
		bool callstack;		/* a call-stack rule */
		bool core;		/* one of perf core's rules */
		unsigned int ok;	/* with CTR */
	} rules[] = {
		{ "any,u", BR(ANY) | BR(USER), .ok = OK_OPEN },
		{ "any,u,k,hv", BR(ANY) | BR_PLM, .ok = OK_OPEN },
		{ "every type,u", BR_TYPES | BR(USER), .ok = OK_OPEN },
		{ "abort_tx", BR(ANY) | BR(USER) | BR(ABORT_TX), .ok = OK_EOPNOTSUPP },
		{ "in_tx", BR(ANY) | BR(USER) | BR(IN_TX), .ok = OK_EOPNOTSUPP },
		{ "no_tx", BR(ANY) | BR(USER) | BR(NO_TX), .ok = OK_EOPNOTSUPP },
		{ "counters", BR(ANY) | BR(USER) | BR(COUNTERS), .ok = OK_EOPNOTSUPP },
		{ "no type", BR(USER) | BR(NO_CYCLES) | BR(TYPE_SAVE), .ok = OK_EINVAL },
		{ "no privilege", BR(ANY), .user_excluded = true, .ok = OK_EINVAL },
		{ "not sampling", BR(ANY) | BR(USER), .counting = true, .ok = OK_EINVAL },
		{ "unknown bit", BR(ANY) | BR(USER) | BR(MAX), .core = true,
		  .ok = OK_EINVAL },
		{ "privilege only", BR(USER), .core = true, .ok = OK_EINVAL },
		{ "call_stack,u", BR(CALL_STACK) | BR(USER), .callstack = true,
		  .ok = OK_OPEN },
		{ "call_stack,u (as perf --call-graph lbr)",
		  BR(CALL_STACK) | BR(USER) | BR(NO_CYCLES) | BR(NO_FLAGS) |
		  BR(HW_INDEX), .callstack = true, .ok = OK_OPEN },
		{ "call_stack with any", BR(CALL_STACK) | BR(USER) | BR(ANY),
		  .callstack = true, .ok = OK_EINVAL },
		{ "call_stack with call", BR(CALL_STACK) | BR(USER) | BR(CALL),
		  .callstack = true, .ok = OK_EINVAL },
		{ "call_stack,k", BR(CALL_STACK) | BR(USER) | BR(KERNEL),
		  .callstack = true, .ok = OK_EOPNOTSUPP },
		{ "call_stack,hv", BR(CALL_STACK) | BR(USER) | BR(HV),
		  .callstack = true, .ok = OK_EOPNOTSUPP },
		{ "call_stack, no privilege", BR(CALL_STACK), .user_excluded = true,
		  .callstack = true, .ok = OK_EINVAL },
		{ "call_stack, not sampling", BR(CALL_STACK) | BR(USER),
		  .counting = true, .callstack = true, .ok = OK_EINVAL },
	};
	struct platform p;
	int failed = 0;

	get_platform(&p);
	for (int i = 0; i < ARRAY_SIZE(rules); i++) {
		struct perf_event_attr a;
		unsigned int ok = rules[i].ok;
		int fd, err;

		base_attr(&a, rules[i].bst);
		if (rules[i].counting)
			a.sample_period = 0;
		if (rules[i].user_excluded)
			a.exclude_user = 1;
		/* perf core's own rules come first; then the driver's. */
		if (!rules[i].core && !p.ctr)
			ok = OK_EOPNOTSUPP;
		else if (!rules[i].core && rules[i].callstack && !p.callstack &&
			 ok != OK_EINVAL)
			ok = OK_EOPNOTSUPP;
		/* Cross-check the model of the random test. */
		EXPECT_NE(0, ok & expected(&a, &p)) TH_LOG("model of %s", rules[i].what);

		fd = perf_open(&a, 0, -1, -1);
		err = errno;
		if (fd >= 0)
			close(fd);
		ksft_print_msg("%-40s %s (want%s)\n", rules[i].what,
			       fd >= 0 ? "opened" : strerror(err), answer(ok));
		if (!answer_ok(ok, fd, err))
			failed++;
	}
	EXPECT_EQ(0, failed);
}

/* splitmix64 */
static __u64 next(__u64 *s)
{
	__u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int below(__u64 *s, unsigned int n)
{
	return next(s) % n;
}

static bool chance(__u64 *s, unsigned int percent)
{
	return below(s, 100) < percent;
}

/* Each bit of @mask with probability @percent. */
static __u64 some_bits(__u64 *s, __u64 mask, unsigned int percent)
{
	__u64 r = 0;

	for (int i = 0; i < 64; i++)
		if ((mask & (1ULL << i)) && chance(s, percent))
			r |= 1ULL << i;
	return r;
}

static __u64 random_bst(__u64 *s)
{
	__u64 bst = some_bits(s, PERF_SAMPLE_BRANCH_MAX - 1, below(s, 40));

	/* Often one of the usual shapes, with noise. */
	switch (below(s, 4)) {
	case 0:
		bst |= BR(ANY) | BR(USER);
		break;
	case 1:
		bst = (bst & ~BR_TYPES) | BR(CALL_STACK) | BR(USER);
		break;
	}
	if (chance(s, 2))
		bst |= 1ULL << (PERF_SAMPLE_BRANCH_MAX_SHIFT + below(s, 8));
	return bst;
}

static __u64 random_period(__u64 *s)
{
	switch (below(s, 6)) {
	case 0:
		return 0;
	case 1:
		return 1 + below(s, 100);
	case 2:
		return 1000 + below(s, 100000);
	case 3:
		return 1ULL << below(s, 62);
	default:
		return 10007 + below(s, 1000000);
	}
}

/* Sample types whose other requirements the events below meet. */
#define CLEAN_SAMPLE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |	\
			 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |	\
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_STREAM_ID |		\
			 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_READ |		\
			 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_WEIGHT |		\
			 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_IDENTIFIER |	\
			 PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR |	\
			 PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_PAGE_SIZE |	\
			 PERF_SAMPLE_CODE_PAGE_SIZE)
#define CLEAN_READ	(PERF_FORMAT_TOTAL_TIME_ENABLED |			\
			 PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |	\
			 PERF_FORMAT_LOST)

/*
 * A CPU for an event: mostly the worker's own, as an event on another
 * CPU takes a cross-call for each operation on it.
 */
static int some_cpu(__u64 *s, const struct platform *p)
{
	return chance(s, 75) ? p->home : (int)below(s, p->ncpus);
}

/* A valid event but maybe for its branch sample type; returns the cpu. */
static int clean_attr(__u64 *s, struct perf_event_attr *a, pid_t *pid,
		      const struct platform *p)
{
	int cpu = -1;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_HARDWARE;
	a->config = chance(s, 50) ? PERF_COUNT_HW_INSTRUCTIONS :
				    PERF_COUNT_HW_CPU_CYCLES;
	a->sample_type = some_bits(s, CLEAN_SAMPLE, 20);
	if (chance(s, 90))
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
	a->branch_sample_type = random_bst(s);
	a->read_format = some_bits(s, CLEAN_READ, 30);
	if (a->sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR)) {
		a->sample_regs_user = 3;	/* pc, ra */
		a->sample_regs_intr = 3;
	}
	if (chance(s, 10)) {
		a->freq = 1;
		a->sample_freq = 1 + below(s, 1000);
	} else {
		a->sample_period = random_period(s);
	}
	a->exclude_user = chance(s, 10);
	a->exclude_kernel = chance(s, 70);
	a->exclude_hv = chance(s, 70);
	a->exclude_idle = chance(s, 10);
	a->disabled = chance(s, 50);
	a->pinned = chance(s, 10);
	a->mmap = chance(s, 20);
	a->comm = chance(s, 20);
	a->task = chance(s, 20);
	a->sample_id_all = chance(s, 30);
	a->watermark = chance(s, 10);
	a->wakeup_events = below(s, 3);
	*pid = 0;
	switch (below(s, 8)) {
	case 0:		/* CPU-wide */
		*pid = -1;
		cpu = some_cpu(s, p);
		break;
	case 1:		/* this task on one CPU */
		cpu = some_cpu(s, p);
		break;
	default:
		a->inherit = chance(s, 20);
		break;
	}
	if (a->inherit && (a->sample_type & PERF_SAMPLE_READ))
		a->sample_type |= PERF_SAMPLE_TID;
	return cpu;
}

static const int chaos_types[] = {
	PERF_TYPE_HARDWARE, PERF_TYPE_HW_CACHE, PERF_TYPE_RAW,
	PERF_TYPE_SOFTWARE, 77,
};

/* Anything, but for signals and breakpoints. */
static int chaos_attr(__u64 *s, struct perf_event_attr *a, pid_t *pid,
		      const struct platform *p)
{
	size_t at = offsetof(struct perf_event_attr, read_format) + 8;
	int cpu = clean_attr(s, a, pid, p);
	__u64 flags;

	a->type = chaos_types[below(s, ARRAY_SIZE(chaos_types))];
	a->config = chance(s, 50) ? below(s, 16) : next(s);
	if (chance(s, 50))
		a->sample_type = some_bits(s, PERF_SAMPLE_MAX - 1, 20) |
				 (chance(s, 3) ? PERF_SAMPLE_MAX : 0);
	if (chance(s, 50))
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
	if (chance(s, 30))
		a->read_format = some_bits(s, 2 * PERF_FORMAT_MAX - 1, 30);
	/* The flag bits after read_format, without sigtrap. */
	if (chance(s, 50)) {
		memcpy(&flags, (char *)a + at, sizeof(flags));
		flags ^= some_bits(s, ~0ULL, 5);
		memcpy((char *)a + at, &flags, sizeof(flags));
		a->sigtrap = 0;
	}
	if (chance(s, 20))
		a->precise_ip = below(s, 4);
	if (chance(s, 10))
		a->sample_max_stack = below(s, 1024);
	if (chance(s, 10))
		a->sample_regs_user = next(s);
	if (chance(s, 10))
		a->sample_stack_user = below(s, 70000);
	if (chance(s, 10))
		a->clockid = below(s, 16);
	if (chance(s, 5))
		a->size = below(s, 2) ? PERF_ATTR_SIZE_VER0 + 8 * below(s, 10) :
					below(s, 200);
	return cpu;
}

/* What perf_event_open(2) may answer to an attribute it does not take. */
static bool documented_errno(int err)
{
	switch (err) {
	case E2BIG: case EACCES: case EBADF: case EBUSY: case EINVAL:
	case ENODEV: case ENOENT: case ENOSPC: case EOPNOTSUPP:
	case EOVERFLOW: case EPERM:
		return true;
	}
	return false;
}

/* Work for the events to count and sample. */
static void work(long n)
{
	unsigned long sink = 0;

	for (long i = 0; i < n; i++) {
		sink += i;
		asm volatile("" : "+r" (sink));
	}
}

struct stats {
	unsigned long opened, refused, unexpected, clean, chaos, ops, mmaps;
	__u64 open_ns, exercise_ns, close_ns;
	unsigned long errnos[256];
	unsigned long done;	/* events so far, for the watchdog */
};

/* Shared between the workers and the parent. */
struct run {
	int stop;		/* out of time: the workers finish */
	struct stats st[MAX_WORKERS];
};

/* A random sequence of what a perf tool does with an event. */
static void exercise(__u64 *s, int fd, struct stats *st)
{
	int n = below(s, 6);
	size_t len = 0;
	void *ring = MAP_FAILED;
	__u64 v, buf[64];

	for (int i = 0; i < n; i++, st->ops++) {
		switch (below(s, 9)) {
		case 0:
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			break;
		case 1:
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			break;
		case 2:
			ioctl(fd, PERF_EVENT_IOC_RESET, 0);
			break;
		case 3:
			ioctl(fd, PERF_EVENT_IOC_REFRESH, below(s, 4));
			break;
		case 4:
			v = random_period(s);
			ioctl(fd, PERF_EVENT_IOC_PERIOD, &v);
			break;
		case 5:
			if (ring != MAP_FAILED)
				break;
			len = (1 + (1 << below(s, 4))) * getpagesize();
			ring = mmap(NULL, len, PROT_READ | PROT_WRITE,
				    MAP_SHARED, fd, 0);
			st->mmaps += ring != MAP_FAILED;
			break;
		case 6:
			work(below(s, 2000));
			break;
		case 7:
			if (read(fd, buf, sizeof(buf)) < 0)
				buf[0] = 0;
			break;
		case 8:
			ioctl(fd, PERF_EVENT_IOC_ID, &v);
			break;
		}
	}
	if (ring != MAP_FAILED)
		munmap(ring, len);
}

static void report(__u64 seed, int worker, unsigned long i, const char *kind,
		   const struct perf_event_attr *a, pid_t pid, int cpu, int fd,
		   int err, const char *want)
{
	char buf[1024];
	int n;

	/* One write, so that the workers' reports do not mix. */
	n = snprintf(buf, sizeof(buf),
		     "# seed %llu worker %d iteration %lu (%s): type %u config %#llx size %u\n"
		     "#   sample_type %#llx branch_sample_type %#llx read_format %#llx\n"
		     "#   period %llu freq %u excl u/k/hv %u/%u/%u inherit %u pid %d cpu %d\n"
		     "#   got %s, want%s\n",
		     seed, worker, i, kind, a->type, a->config, a->size,
		     a->sample_type, a->branch_sample_type, a->read_format,
		     a->sample_period, a->freq, a->exclude_user, a->exclude_kernel,
		     a->exclude_hv, a->inherit, pid, cpu,
		     fd >= 0 ? "success" : strerror(err), want);
	if (write(STDERR_FILENO, buf, n) != n)
		return;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void run_worker(__u64 seed, int worker, unsigned long iterations,
		       const struct platform *pl, struct run *run)
{
	struct stats *st = &run->st[worker];
	__u64 s = seed + worker * 0x5851f42d4c957f2dULL;
	struct platform platform = *pl, *p = &platform;
	int pool[POOL];
	cpu_set_t set;

	p->home = worker % p->ncpus;
	CPU_ZERO(&set);
	CPU_SET(p->home, &set);
	sched_setaffinity(0, sizeof(set), &set);

	for (int i = 0; i < POOL; i++)
		pool[i] = -1;
	for (unsigned long i = 0; i < iterations &&
	     !__atomic_load_n(&run->stop, __ATOMIC_RELAXED); i++) {
		struct perf_event_attr a;
		bool chaos = chance(&s, 20);
		int group = -1, slot = below(&s, POOL);
		unsigned int ok;
		int cpu, fd, err;
		pid_t pid;
		__u64 t;

		__atomic_store_n(&st->done, i, __ATOMIC_RELAXED);

		if (chaos) {
			cpu = chaos_attr(&s, &a, &pid, p);
			if (chance(&s, 30))
				group = pool[slot];
			st->chaos++;
		} else {
			cpu = clean_attr(&s, &a, &pid, p);
			st->clean++;
		}
		ok = expected(&a, p);
		t = now_ns();
		fd = perf_open(&a, pid, cpu, group);
		err = errno;
		st->open_ns += now_ns() - t;
		if (fd < 0) {
			st->refused++;
			if (err >= 0 && err < (int)ARRAY_SIZE(st->errnos))
				st->errnos[err]++;
		} else {
			st->opened++;
		}
		if (chaos ? fd < 0 && !documented_errno(err) : !answer_ok(ok, fd, err)) {
			if (st->unexpected++ < MAX_REPORTS)
				report(seed, worker, i, chaos ? "random" : "valid but for branches",
				       &a, pid, cpu, fd, err,
				       chaos ? " a documented errno" : answer(ok));
		}
		if (fd < 0)
			continue;
		t = now_ns();
		if (chance(&s, 40))
			exercise(&s, fd, st);
		st->exercise_ns += now_ns() - t;
		t = now_ns();
		/* Keep some open, as group leaders and company. */
		if (chance(&s, 30)) {
			if (pool[slot] >= 0)
				close(pool[slot]);
			pool[slot] = fd;
		} else {
			close(fd);
		}
		st->close_ns += now_ns() - t;
	}
	for (int i = 0; i < POOL; i++)
		if (pool[i] >= 0)
			close(pool[i]);
}

/* The guest boots with the same clock every time: take the nanoseconds. */
static __u64 fresh_seed(void)
{
	struct timespec a, b;

	clock_gettime(CLOCK_REALTIME, &a);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (a.tv_sec * 1000000000ULL + a.tv_nsec) ^
	       ((__u64)b.tv_nsec << 32) ^ getpid();
}

static __u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/*
 * Events with tiny periods would otherwise interrupt the workers at the
 * rate the guest allows for the other tests, 100000 a second: allow
 * fewer. The rate can only be set while the CPU time limit is on, and
 * the limit then lowers it when samples take long: turn the limit off
 * again, so that the rate the random events see stays put.
 */
#define FUZZ_RATE	2000

FIXTURE(fuzz) {
	long saved_rate, saved_percent;
};

FIXTURE_SETUP(fuzz)
{
	self->saved_percent = read_long(PERCENT_FILE);
	if (self->saved_percent == 0 || self->saved_percent == 100)
		write_long(PERCENT_FILE, 25);
	self->saved_rate = read_long(RATE_FILE);
	write_long(RATE_FILE, FUZZ_RATE);
	write_long(PERCENT_FILE, 0);
}

FIXTURE_TEARDOWN(fuzz)
{
	write_long(PERCENT_FILE, 25);
	if (self->saved_rate > 0)
		write_long(RATE_FILE, self->saved_rate);
	if (self->saved_percent >= 0)
		write_long(PERCENT_FILE, self->saved_percent);
}

/* A worker that does not move on: where it is in the kernel, to the log. */
static void show_stuck(int worker, pid_t pid, unsigned long done)
{
	char path[64], line[256];
	FILE *f;

	ksft_print_msg("worker %d (pid %d): no event done for %d s, at event %lu\n",
		       worker, pid, STUCK_SECONDS, done);
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "State:", 6))
			ksft_print_msg("  %s", line);
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		ksft_print_msg("  %s", line);
	if (f)
		fclose(f);
}

/*
 * Wait for the workers: stop them when their time is up, and kill one
 * that stays on an event for STUCK_SECONDS. The number of workers that
 * did not exit cleanly, or were stuck.
 */
static int wait_workers(struct __test_metadata *_metadata, struct run *run,
			const pid_t *pids, int workers, unsigned int seconds)
{
	__u64 t0 = now_ms(), seen[MAX_WORKERS];
	unsigned long last[MAX_WORKERS] = { 0 };
	bool live[MAX_WORKERS];
	int left = workers, bad = 0;

	for (int w = 0; w < workers; w++) {
		live[w] = true;
		seen[w] = t0;
	}
	while (left) {
		__u64 t = now_ms();

		if (!run->stop && t - t0 >= seconds * 1000ULL) {
			__atomic_store_n(&run->stop, 1, __ATOMIC_RELAXED);
			ksft_print_msg("%u s are up: the workers stop\n", seconds);
		}
		for (int w = 0; w < workers; w++) {
			unsigned long done;
			int status;

			if (!live[w])
				continue;
			if (waitpid(pids[w], &status, WNOHANG) == pids[w]) {
				live[w] = false;
				left--;
				if (!WIFEXITED(status) || WEXITSTATUS(status)) {
					bad++;
					TH_LOG("worker %d: status %#x", w, status);
				}
				continue;
			}
			done = __atomic_load_n(&run->st[w].done, __ATOMIC_RELAXED);
			if (done != last[w]) {
				last[w] = done;
				seen[w] = t;
			} else if (t - seen[w] >= STUCK_SECONDS * 1000ULL) {
				show_stuck(w, pids[w], done);
				kill(pids[w], SIGKILL);
				/* one in the kernel for good may never exit */
				live[w] = false;
				left--;
				bad++;
			}
		}
		usleep(100000);
	}
	return bad;
}

/*
 * A minute or two of fuzzing here; a kernel with KASAN and lockdep, or a
 * guest on a loaded host, stops at its time.
 */
TEST_F_TIMEOUT(fuzz, random, 2 * SECONDS + STUCK_SECONDS)
{
	const char *env_seed = getenv("CTR_FUZZ_SEED");
	const char *env_n = getenv("CTR_FUZZ_ITERATIONS");
	const char *env_w = getenv("CTR_FUZZ_WORKERS");
	const char *env_s = getenv("CTR_FUZZ_SECONDS");
	unsigned long n = env_n ? strtoul(env_n, NULL, 0) : ITERATIONS;
	unsigned int seconds = env_s ? strtoul(env_s, NULL, 0) : SECONDS;
	__u64 seed = env_seed ? strtoull(env_seed, NULL, 0) : fresh_seed();
	struct stats total = { 0 };
	struct platform p;
	struct run *run;
	int workers, bad;
	pid_t pids[MAX_WORKERS];
	__u64 t0 = now_ms();

	get_platform(&p);
	ksft_print_msg("perf_event_max_sample_rate %ld\n", read_long(RATE_FILE));
	workers = env_w ? atoi(env_w) : WORKERS;
	if (workers > p.ncpus)
		workers = p.ncpus;
	if (workers > MAX_WORKERS)
		workers = MAX_WORKERS;
	if (workers < 1)
		workers = 1;
	ksft_print_msg("seed %llu (CTR_FUZZ_SEED=%llu replays it), %lu events, %d workers, %u s\n",
		       seed, seed, n, workers, seconds);
	run = mmap(NULL, sizeof(*run), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, run);
	memset(run, 0, sizeof(*run));

	for (int w = 0; w < workers; w++) {
		pids[w] = fork();
		ASSERT_LE(0, pids[w]);
		if (!pids[w]) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			run_worker(seed, w, n / workers + (w < (int)(n % workers)),
				   &p, run);
			_exit(0);
		}
	}
	bad = wait_workers(_metadata, run, pids, workers, seconds);
	for (int w = 0; w < workers; w++) {
		const struct stats *st = &run->st[w];

		total.opened += st->opened;
		total.refused += st->refused;
		total.unexpected += st->unexpected;
		total.clean += st->clean;
		total.chaos += st->chaos;
		total.ops += st->ops;
		total.mmaps += st->mmaps;
		total.open_ns += st->open_ns;
		total.exercise_ns += st->exercise_ns;
		total.close_ns += st->close_ns;
		for (int e = 0; e < (int)ARRAY_SIZE(total.errnos); e++)
			total.errnos[e] += st->errnos[e];
	}

	ksft_print_msg("%lu events (%lu valid but for branches, %lu random) in %llu ms\n",
		       total.clean + total.chaos, total.clean, total.chaos,
		       now_ms() - t0);
	ksft_print_msg("%lu opened (%lu operations, %lu mmaps), %lu refused, %lu unexpected\n",
		       total.opened, total.ops, total.mmaps, total.refused,
		       total.unexpected);
	ksft_print_msg("time in the workers: %llu ms opening, %llu ms using, %llu ms closing\n",
		       total.open_ns / 1000000, total.exercise_ns / 1000000,
		       total.close_ns / 1000000);
	for (int e = 0; e < (int)ARRAY_SIZE(total.errnos); e++)
		if (total.errnos[e])
			ksft_print_msg("  %-24s %lu\n", strerror(e), total.errnos[e]);
	EXPECT_EQ(0, bad);
	/* all of them, or at least a twentieth in the time */
	EXPECT_LE(run->stop ? n / 20 : n, total.clean + total.chaos);
	EXPECT_EQ(0, total.unexpected);
	munmap(run, sizeof(*run));
}

TEST_HARNESS_MAIN

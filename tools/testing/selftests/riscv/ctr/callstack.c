// SPDX-License-Identifier: GPL-2.0-only
/*
 * Call-stack mode (PERF_SAMPLE_BRANCH_CALL_STACK, CTR's RASEMU), as
 * perf record --call-graph lbr asks for it. The test climbs a ladder of
 * n calls whose every source and target is known (callstack_code.S) and
 * spins in its leaf. Every sample taken in the leaf must hold exactly the
 * innermost frames, youngest first: entry k is the call from stub
 * CS_STUBS - 1 - k to the next stub (or to the leaf), for the innermost
 * min(n, depth) of them; when n < depth, entry n is the call into the
 * ladder.
 *
 * Shorter and longer than the buffer, alone, while another task with its
 * own call-stack event takes turns with it on the CPU, while it is moved
 * from CPU to CPU, and beside setjmp()/longjmp(), which leaves frames on
 * the stack that no return pops: the fresh frames must still be exact.
 * Also while taking turns after perf refused other call-stack events of
 * the task: a refusal must not take the task's save area with it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#include "../../kselftest_harness.h"
#include "callstack.h"
#include "cpus.h"
#include "ring.h"

#define CAPS_BRANCHES	"/sys/bus/event_source/devices/cpu/caps/branches"
#define PERIOD		100003
#define PAGES		256
#define SPINS		100000	/* leaf iterations per climb */
#define MIN_SAMPLES	200	/* in the leaf */
#define MIN_NS		500000000ULL	/* of switches or migrations */
#define MAX_NS		30000000000ULL
#define BRANCH_LBR	(PERF_SAMPLE_BRANCH_CALL_STACK |		\
			 PERF_SAMPLE_BRANCH_USER |			\
			 PERF_SAMPLE_BRANCH_NO_CYCLES |			\
			 PERF_SAMPLE_BRANCH_NO_FLAGS |			\
			 PERF_SAMPLE_BRANCH_HW_INDEX)

#define A(p)		((__u64)(uintptr_t)(p))
#define STUB(i)		(A(cs_ladder) + (__u64)(i) * CS_STUB_SIZE)

typedef void (*stub_fn)(long iterations);

/* Climb n stubs of the ladder, then spin in the leaf. */
static void climb(int n, long spins)
{
	stub_fn stub = (stub_fn)STUB(CS_STUBS - n);

	stub(spins);
	/* Not a tail call: the call into the ladder is a frame too. */
	asm volatile("" ::: "memory");
}

static jmp_buf jump_env;
static bool jump_set;

/* Dive n calls deep and longjmp() back out from the bottom. */
static void dive(int n)
{
	if (!n) {
		if (jump_set)
			longjmp(jump_env, 1);
		return;
	}
	dive(n - 1);
	asm volatile("" ::: "memory");
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int read_depth(void)
{
	FILE *f = fopen(CAPS_BRANCHES, "r");
	int n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

struct stack_check {
	int depth, frames;
	unsigned long samples, leaf, good, bad;
	unsigned long too_long, kernel, flags, bad_hw_idx;
	__u64 cpus;		/* CPUs the samples came from */
};

static void dump(const struct ctr_sample *s, int bad)
{
	fprintf(stderr, "# sample at %#llx, %llu entries, entry %d is wrong:\n",
		(unsigned long long)s->ip, (unsigned long long)s->nr, bad);
	for (int k = bad > 2 ? bad - 2 : 0; k < (int)s->nr && k < bad + 3; k++)
		fprintf(stderr, "#   %3d %#llx -> %#llx\n", k,
			(unsigned long long)s->br[k].from,
			(unsigned long long)s->br[k].to);
}

/* The index of the first entry that is not the expected frame, or -1. */
static int first_wrong(const struct stack_check *c, const struct ctr_sample *s)
{
	int n = c->frames;
	int k;

	if (n >= c->depth && s->nr != (__u64)c->depth)
		return s->nr < (__u64)c->depth ? (int)s->nr : c->depth;
	if (n < c->depth && s->nr <= (__u64)n)
		return s->nr;
	for (k = 0; k < n && k < c->depth; k++)
		if (s->br[k].from != STUB(CS_STUBS - 1 - k) + CS_CALL_OFFSET ||
		    s->br[k].to != STUB(CS_STUBS - k))
			return k;
	/* The call into the ladder: from C code, to its first stub. */
	if (n < c->depth && s->br[n].to != STUB(CS_STUBS - n))
		return n;
	return -1;
}

static void check_sample(void *arg, const struct ctr_sample *s)
{
	struct stack_check *c = arg;
	int bad;

	c->samples++;
	c->cpus |= 1ULL << (s->cpu & 63);
	if (s->nr > (__u64)c->depth)
		c->too_long++;
	/*
	 * A call stack is consecutive in the buffer: its hardware index is
	 * the place of its youngest entry, or -1 (~0) when it has none.
	 */
	if (s->nr ? s->hw_idx >= (__u64)c->depth : s->hw_idx != ~0ULL)
		c->bad_hw_idx++;
	if (ctr_kernel_addr(s->ip))
		c->kernel++;
	for (__u64 k = 0; k < s->nr; k++) {
		const struct perf_branch_entry *e = &s->br[k];

		if (ctr_kernel_addr(e->from) || ctr_kernel_addr(e->to))
			c->kernel++;
		/* NO_FLAGS and NO_CYCLES */
		if (e->mispred || e->predicted || e->cycles)
			c->flags++;
	}
	if (s->ip < A(cs_leaf) || s->ip >= A(cs_leaf_end))
		return;
	c->leaf++;
	bad = first_wrong(c, s);
	if (bad < 0) {
		c->good++;
		return;
	}
	if (!c->bad++)
		dump(s, bad);
}

FIXTURE(callstack) {
	int fd, peer_fd;
	pid_t peer, mover;
	int cpus[64], ncpus;
	struct ctr_ring ring;
	struct stack_check check;
};

FIXTURE_VARIANT(callstack) {
	int frames;		/* 0: as many as the buffer holds */
	bool switches;		/* another sampled task on the same CPU */
	bool migrate;		/* moved from CPU to CPU while sampling */
	bool longjmp;		/* frames that no return pops, in between */
	bool refusals;		/* after refused call-stack events of ours */
};

FIXTURE_VARIANT_ADD(callstack, shallow) { .frames = 10 };
FIXTURE_VARIANT_ADD(callstack, buffer_deep) { .frames = 0 };
FIXTURE_VARIANT_ADD(callstack, deeper_than_buffer) { .frames = 300 };
FIXTURE_VARIANT_ADD(callstack, shallow_switches) {
	.frames = 10, .switches = true,
};

FIXTURE_VARIANT_ADD(callstack, deep_switches) {
	.frames = 300, .switches = true,
};

FIXTURE_VARIANT_ADD(callstack, deep_migrations) {
	.frames = 300, .migrate = true,
};

FIXTURE_VARIANT_ADD(callstack, shallow_after_longjmp) {
	.frames = 10, .longjmp = true,
};

FIXTURE_VARIANT_ADD(callstack, deep_switches_after_refusals) {
	.frames = 300, .switches = true, .refusals = true,
};

static int open_callstack(pid_t pid, __u64 config, struct perf_event_attr *attr)
{
	ctr_ring_attr(attr, config, PERIOD, BRANCH_LBR);
	return syscall(__NR_perf_event_open, attr, pid, -1, -1, 0);
}

/* The other task on our CPU: short climbs of its own, and yields. */
static void run_peer(void)
{
	/* Gone with the test, even where it ends without its teardown. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		climb(40, 1000);
		sched_yield();
	}
}

/* Move @pid over the CPUs, one every 2 ms. */
static void run_mover(pid_t pid, const int *cpus, int ncpus)
{
	const struct timespec ts = { .tv_nsec = 2000000 };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (unsigned int i = 0; ; i++) {
		if (pin(pid, cpus[i % ncpus]))
			_exit(1);
		nanosleep(&ts, NULL);
	}
}

FIXTURE_SETUP(callstack)
{
	struct perf_event_attr attr;

	memset(self, 0, sizeof(*self));
	self->fd = -1;
	self->peer_fd = -1;
	self->ncpus = allowed_cpus(self->cpus, 64);
	self->check.depth = read_depth();
	if (self->check.depth < 0)
		SKIP(return, "no %s: no CTR", CAPS_BRANCHES);
	self->check.frames = variant->frames ? variant->frames : self->check.depth;
	ASSERT_GE(CS_STUBS, self->check.frames);

	self->fd = open_callstack(0, PERF_COUNT_HW_INSTRUCTIONS, &attr);
	if (self->fd < 0 && errno == EOPNOTSUPP)
		SKIP(return, "call-stack mode refused (EOPNOTSUPP)");
	ASSERT_LE(0, self->fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, ctr_ring_map(&self->ring, self->fd, PAGES, &attr));

	if (variant->refusals) {
		/*
		 * Call-stack events of this task that perf refuses after
		 * their branch filters passed (there is no such hardware
		 * event): the save area of the event above must survive them.
		 */
		struct perf_event_attr bad;

		for (int i = 0; i < 3; i++) {
			int fd = open_callstack(0, PERF_COUNT_HW_MAX, &bad);
			int err = errno;

			if (fd >= 0)
				close(fd);
			ASSERT_GT(0, fd);
			ASSERT_EQ(EINVAL, err);
		}
	}

	if (variant->switches) {
		/* The last allowed CPU, for both. */
		ASSERT_EQ(0, pin(0, self->cpus[self->ncpus - 1]));
		self->peer = fork();
		ASSERT_LE(0, self->peer);
		if (!self->peer)
			run_peer();
		self->peer_fd = open_callstack(self->peer, PERF_COUNT_HW_INSTRUCTIONS,
					       &attr);
		ASSERT_LE(0, self->peer_fd) TH_LOG("perf_event_open: %s", strerror(errno));
	}
	if (variant->migrate) {
		pid_t me = getpid();

		if (self->ncpus < 2)
			SKIP(return, "needs two CPUs");
		self->mover = fork();
		ASSERT_LE(0, self->mover);
		if (!self->mover)
			run_mover(me, self->cpus, self->ncpus);
	}
}

FIXTURE_TEARDOWN(callstack)
{
	if (self->mover > 0) {
		kill(self->mover, SIGKILL);
		waitpid(self->mover, NULL, 0);
	}
	if (self->peer > 0) {
		kill(self->peer, SIGKILL);
		waitpid(self->peer, NULL, 0);
	}
	ctr_ring_unmap(&self->ring);
	if (self->peer_fd >= 0)
		close(self->peer_fd);
	if (self->fd >= 0)
		close(self->fd);
}

/* A kernel with KASAN and lockdep takes its time. */
TEST_F_TIMEOUT(callstack, exact_frames, 300)
{
	struct stack_check *c = &self->check;
	__u64 start, elapsed;
	struct rusage ru0, ru1;
	unsigned long climbs = 0, jumps = 0;
	int cpus_seen;

	climb(c->frames, 10);	/* fault the ladder in */
	if (self->peer_fd >= 0)
		ASSERT_EQ(0, ioctl(self->peer_fd, PERF_EVENT_IOC_ENABLE, 0));
	getrusage(RUSAGE_SELF, &ru0);
	start = now_ns();
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0));
	jump_set = true;
	do {
		if (variant->longjmp) {
			for (int i = 0; i < 20; i++) {
				if (!setjmp(jump_env))
					dive(5 + i);
				jumps++;
			}
		}
		climb(c->frames, SPINS);
		climbs++;
		ctr_ring_drain(&self->ring, check_sample, c);
		elapsed = now_ns() - start;
	} while ((c->leaf < MIN_SAMPLES ||
		  ((variant->switches || variant->migrate) && elapsed < MIN_NS)) &&
		 elapsed < MAX_NS);
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0));
	getrusage(RUSAGE_SELF, &ru1);
	ctr_ring_drain(&self->ring, check_sample, c);

	cpus_seen = __builtin_popcountll(c->cpus);
	ksft_print_msg("depth %d, %d frames, %lu climbs, %lu longjmps, %llu ms\n",
		       c->depth, c->frames, climbs, jumps,
		       (unsigned long long)elapsed / 1000000);
	ksft_print_msg("%lu samples, %lu in the leaf: %lu exact, %lu wrong; %lu lost\n",
		       c->samples, c->leaf, c->good, c->bad, self->ring.lost);
	ksft_print_msg("%ld involuntary switches, samples from %d CPUs\n",
		       ru1.ru_nivcsw - ru0.ru_nivcsw, cpus_seen);
	ksft_print_msg("%lu too long, %lu kernel addresses, %lu with flags, %lu bad hw_idx\n",
		       c->too_long, c->kernel, c->flags, c->bad_hw_idx);

	ASSERT_LE(MIN_SAMPLES, c->leaf);
	EXPECT_EQ(0, c->bad);
	EXPECT_EQ(0, self->ring.bad);
	EXPECT_EQ(0, c->too_long);
	EXPECT_EQ(0, c->kernel);
	EXPECT_EQ(0, c->flags);
	EXPECT_EQ(0, c->bad_hw_idx);
	/* The variants did what they are for. */
	if (variant->switches)
		EXPECT_LE(10, ru1.ru_nivcsw - ru0.ru_nivcsw);
	if (variant->migrate)
		EXPECT_LE(2, cpus_seen);
}

TEST_HARNESS_MAIN

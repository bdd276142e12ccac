// SPDX-License-Identifier: GPL-2.0-only
/*
 * Branch records must not cross tasks. Two processes pinned to one CPU
 * take turns through a pair of pipes, at least 10000 times: A runs only
 * the loop leak_a_spin(), B only leak_b_spin() (leak_code.S, each in its
 * own section). A is sampled with branch stacks, user branches only:
 *
 * - no record of A's has an end in B's loop (and, when B is sampled
 *   too, no record of B's has an end in A's loop);
 * - no record and no sample IP is a kernel address;
 * - A gets a minimum number of samples, and the two really alternated:
 *   A left the CPU at least once per round.
 *
 * In plain mode (ANY) and in call-stack mode (CALL_STACK), alone, with B
 * sampled by its own event, and beside a CPU-wide branch event that keeps
 * the hart recording while B runs. A CPU-wide event on its own, in
 * contrast, records every task: it must see both loops, each in the
 * samples of the task that runs it only (perf record -a -b resolves a
 * sample's records against the sampled process's maps).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#include "../../kselftest_harness.h"
#include "leak.h"
#include "ring.h"

#define CAPS_BRANCHES	"/sys/bus/event_source/devices/cpu/caps/branches"
#define ROUNDS		10000
#define SPIN		50	/* loop iterations per turn, 600 instructions */
/*
 * Without -icount QEMU counts instructions at the pace of host time,
 * with it exactly (CTR_TEST_EXACT=1): a turn is then far fewer of them.
 */
#define PERIOD		200003
#define PERIOD_EXACT	10007
#define PAGES		256
#define MIN_SAMPLES	100

#define A(label)	((__u64)(uintptr_t)(label))

static bool in_a(__u64 x)
{
	return x >= A(leak_a_begin) && x < A(leak_a_end);
}

static bool in_b(__u64 x)
{
	return x >= A(leak_b_begin) && x < A(leak_b_end);
}

/* What one event's samples held. */
struct tally {
	unsigned long samples, records, kernel;
	unsigned long in_a, in_b;	/* records with an end in each loop */
	unsigned long pid_a, pid_b;	/* samples of each task */
	unsigned long cross;		/* records of one in the other's samples */
	pid_t a, b;
};

static void count_sample(void *arg, const struct ctr_sample *s)
{
	struct tally *t = arg;

	t->samples++;
	t->pid_a += s->pid == t->a;
	t->pid_b += s->pid == t->b;
	if (ctr_kernel_addr(s->ip) && !t->kernel++)
		fprintf(stderr, "# kernel IP %#llx in a user-only sample\n",
			(unsigned long long)s->ip);
	for (__u64 i = 0; i < s->nr; i++) {
		const struct perf_branch_entry *e = &s->br[i];

		t->records++;
		if ((ctr_kernel_addr(e->from) || ctr_kernel_addr(e->to)) &&
		    !t->kernel++)
			fprintf(stderr, "# kernel address in a user-only record: %#llx -> %#llx\n",
				(unsigned long long)e->from,
				(unsigned long long)e->to);
		t->in_a += in_a(e->from) || in_a(e->to);
		t->in_b += in_b(e->from) || in_b(e->to);
		if ((s->pid == t->a && (in_b(e->from) || in_b(e->to))) ||
		    (s->pid == t->b && (in_a(e->from) || in_a(e->to))))
			t->cross++;
	}
}

enum mode {
	ALONE,		/* only A is sampled */
	BOTH,		/* A and B, each by its own event */
	BESIDE_CPU,	/* A, beside a CPU-wide branch event */
	CPU_WIDE,	/* only a CPU-wide event */
};

FIXTURE(leak) {
	int cpu;
	pid_t b;
	int to_b, from_b;
	int fd[2];		/* the events; fd[1]: B's or the CPU-wide one */
	struct ctr_ring ring[2];
	struct tally tally[2];
};

FIXTURE_VARIANT(leak) {
	__u64 filter;
	enum mode mode;
};

FIXTURE_VARIANT_ADD(leak, plain) {
	.filter = PERF_SAMPLE_BRANCH_ANY, .mode = ALONE,
};

FIXTURE_VARIANT_ADD(leak, plain_both_sampled) {
	.filter = PERF_SAMPLE_BRANCH_ANY, .mode = BOTH,
};

FIXTURE_VARIANT_ADD(leak, plain_beside_cpu_wide) {
	.filter = PERF_SAMPLE_BRANCH_ANY, .mode = BESIDE_CPU,
};

FIXTURE_VARIANT_ADD(leak, call_stack) {
	.filter = PERF_SAMPLE_BRANCH_CALL_STACK, .mode = ALONE,
};

FIXTURE_VARIANT_ADD(leak, call_stack_both_sampled) {
	.filter = PERF_SAMPLE_BRANCH_CALL_STACK, .mode = BOTH,
};

FIXTURE_VARIANT_ADD(leak, cpu_wide_sees_both) {
	.filter = PERF_SAMPLE_BRANCH_ANY, .mode = CPU_WIDE,
};

static int open_event(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, -1, 0);
}

/* B: one turn of its loop for every byte A sends, until A closes. */
static void run_b(int in, int out)
{
	char c;

	/* Gone with A, even where A's test ends without its teardown. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (read(in, &c, 1) == 1) {
		leak_b_spin(SPIN);
		if (write(out, &c, 1) != 1)
			break;
	}
	_exit(0);
}

/* The second CPU this task may run on, or the first if there is one. */
static int pick_cpu(void)
{
	cpu_set_t set;
	int first = -1;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &set))
			continue;
		if (first >= 0)
			return i;
		first = i;
	}
	return first < 0 ? 0 : first;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

FIXTURE_SETUP(leak)
{
	bool has_ctr = !access(CAPS_BRANCHES, F_OK);
	struct perf_event_attr attr;
	int p2b[2], b2p[2];
	__u64 period;

	memset(self, 0, sizeof(*self));
	self->fd[0] = -1;
	self->fd[1] = -1;
	self->b = -1;
	self->cpu = pick_cpu();
	ASSERT_EQ(0, pin(self->cpu)) TH_LOG("pin to CPU%d: %s", self->cpu,
					    strerror(errno));
	ASSERT_EQ(0, pipe(p2b));
	ASSERT_EQ(0, pipe(b2p));
	self->b = fork();
	ASSERT_LE(0, self->b);
	if (!self->b) {
		close(p2b[1]);
		close(b2p[0]);
		run_b(p2b[0], b2p[1]);
	}
	close(p2b[0]);
	close(b2p[1]);
	self->to_b = p2b[1];
	self->from_b = b2p[0];
	for (int i = 0; i < 2; i++) {
		self->tally[i].a = getpid();
		self->tally[i].b = self->b;
	}

	period = getenv("CTR_TEST_EXACT") ? PERIOD_EXACT : PERIOD;
	if (variant->mode != CPU_WIDE) {
		ctr_ring_attr(&attr, PERF_COUNT_HW_INSTRUCTIONS, period,
			      variant->filter | PERF_SAMPLE_BRANCH_USER);
		self->fd[0] = open_event(&attr, 0, -1);
		if (self->fd[0] < 0 && errno == EOPNOTSUPP && has_ctr &&
		    variant->filter == PERF_SAMPLE_BRANCH_CALL_STACK)
			SKIP(return, "call-stack mode refused (EOPNOTSUPP)");
		if (self->fd[0] < 0 && errno == EOPNOTSUPP)
			SKIP(return, "no branch stack sampling on this CPU (no Ssctr?)");
		ASSERT_LE(0, self->fd[0]) TH_LOG("perf_event_open: %s", strerror(errno));
		ASSERT_EQ(0, ctr_ring_map(&self->ring[0], self->fd[0], PAGES, &attr));
	}

	switch (variant->mode) {
	case ALONE:
		return;
	case BOTH:
		/* B's own event, the same as A's. */
		self->fd[1] = open_event(&attr, self->b, -1);
		break;
	case BESIDE_CPU:
		/* Cycles, so that it takes another counter than A's event. */
		ctr_ring_attr(&attr, PERF_COUNT_HW_CPU_CYCLES, 5 * period,
			      variant->filter | PERF_SAMPLE_BRANCH_USER);
		self->fd[1] = open_event(&attr, -1, self->cpu);
		break;
	case CPU_WIDE:
		ctr_ring_attr(&attr, PERF_COUNT_HW_INSTRUCTIONS, period,
			      variant->filter | PERF_SAMPLE_BRANCH_USER);
		self->fd[1] = open_event(&attr, -1, self->cpu);
		break;
	}
	if (self->fd[1] < 0 && (errno == EACCES || errno == EPERM))
		SKIP(return, "CPU-wide events need CAP_PERFMON or paranoid <= 0");
	if (self->fd[1] < 0 && errno == EOPNOTSUPP)
		SKIP(return, "no branch stack sampling on this CPU (no Ssctr?)");
	ASSERT_LE(0, self->fd[1]) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, ctr_ring_map(&self->ring[1], self->fd[1], PAGES, &attr));
}

FIXTURE_TEARDOWN(leak)
{
	for (int i = 0; i < 2; i++) {
		ctr_ring_unmap(&self->ring[i]);
		if (self->fd[i] >= 0)
			close(self->fd[i]);
	}
	if (self->b > 0) {
		close(self->to_b);
		close(self->from_b);
		kill(self->b, SIGKILL);
		waitpid(self->b, NULL, 0);
	}
}

static void drain(struct _test_data_leak *self)
{
	for (int i = 0; i < 2; i++)
		if (self->ring[i].pg)
			ctr_ring_drain(&self->ring[i], count_sample, &self->tally[i]);
}

static void report(const char *who, const struct tally *t,
		   const struct ctr_ring *r)
{
	ksft_print_msg("%s: %lu samples (%lu of A, %lu of B), %lu records, %lu lost\n",
		       who, t->samples, t->pid_a, t->pid_b, t->records, r->lost);
	ksft_print_msg("%s: %lu records in A's loop, %lu in B's, %lu kernel addresses\n",
		       who, t->in_a, t->in_b, t->kernel);
	ksft_print_msg("%s: %lu records of one task in the other's samples\n",
		       who, t->cross);
}

/* A kernel with KASAN and lockdep takes its time. */
TEST_F_TIMEOUT(leak, isolation, 300)
{
	struct rusage ru0, ru1;
	long switches;
	char c = 'x';

	/* Fault both loops in before sampling. */
	leak_a_spin(1);
	for (int i = 0; i < 2; i++)
		if (self->fd[i] >= 0)
			ASSERT_EQ(0, ioctl(self->fd[i], PERF_EVENT_IOC_ENABLE, 0));
	getrusage(RUSAGE_SELF, &ru0);
	for (int i = 0; i < ROUNDS; i++) {
		leak_a_spin(SPIN);
		ASSERT_EQ(1, write(self->to_b, &c, 1));
		ASSERT_EQ(1, read(self->from_b, &c, 1));
		drain(self);
	}
	getrusage(RUSAGE_SELF, &ru1);
	for (int i = 0; i < 2; i++)
		if (self->fd[i] >= 0)
			ASSERT_EQ(0, ioctl(self->fd[i], PERF_EVENT_IOC_DISABLE, 0));
	drain(self);
	/* B preempts A at its wake-up, or A waits in read(). */
	switches = ru1.ru_nvcsw - ru0.ru_nvcsw + ru1.ru_nivcsw - ru0.ru_nivcsw;

	ksft_print_msg("%d rounds on CPU%d, %ld switches of A (%ld voluntary)\n",
		       ROUNDS, self->cpu, switches, ru1.ru_nvcsw - ru0.ru_nvcsw);
	if (self->fd[0] >= 0)
		report("A's event", &self->tally[0], &self->ring[0]);
	if (self->fd[1] >= 0)
		report(variant->mode == BOTH ? "B's event" : "CPU-wide event",
		       &self->tally[1], &self->ring[1]);
	/* A waited for B in every round: they alternated. */
	EXPECT_LE(ROUNDS, switches);

	for (int i = 0; i < 2; i++) {
		EXPECT_EQ(0, self->ring[i].bad);
		EXPECT_EQ(0, self->tally[i].kernel);
		EXPECT_EQ(0, self->tally[i].cross);
	}
	if (variant->mode == CPU_WIDE) {
		/* CPU-wide events record every task. */
		EXPECT_LT(0, self->tally[1].pid_a);
		EXPECT_LT(0, self->tally[1].pid_b);
		EXPECT_LT(0, self->tally[1].in_a);
		EXPECT_LT(0, self->tally[1].in_b);
		return;
	}
	EXPECT_LE(MIN_SAMPLES, self->tally[0].samples);
	EXPECT_EQ(self->tally[0].samples, self->tally[0].pid_a);
	EXPECT_LT(0, self->tally[0].in_a);
	EXPECT_EQ(0, self->tally[0].in_b);
	if (variant->mode == BOTH) {
		EXPECT_LE(MIN_SAMPLES, self->tally[1].samples);
		EXPECT_EQ(self->tally[1].samples, self->tally[1].pid_b);
		EXPECT_LT(0, self->tally[1].in_b);
		EXPECT_EQ(0, self->tally[1].in_a);
	}
}

TEST_HARNESS_MAIN

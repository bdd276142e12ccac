// SPDX-License-Identifier: GPL-2.0-only
/*
 * Privilege mode filtering of cycle and instret (Smcntrpmf, reached through
 * the SBI PMU's inhibit flags): a user-only event counts user mode only,
 * with a branch stack too.
 *
 * user_only: cycles:u and instructions:u, with and without a branch stack,
 * over a loop of system calls that spends nearly all its time in the
 * kernel. Under exact counting (QEMU -icount, CTR_TEST_EXACT=1) the user
 * counts are the loop's own instructions, the same with a branch stack as
 * without, and counting both modes adds the kernel's hundreds a call.
 * Without it QEMU's counters follow host time, which gives no bound on
 * the ratio of user to kernel time: there every count must only be
 * positive.
 *
 * exact_fault_count (QEMU -icount, CTR_TEST_EXACT=1): instructions:u, with
 * and without a branch stack, over a loop whose every load takes a page
 * fault, counts exactly the loop's retired user instructions: a faulting
 * load counts once, the kernel's fault handling and its sret not at all.
 * Measured as the difference of two runs of different lengths, which
 * leaves out the instructions around the loop. With kernel counting, the
 * same difference is much larger.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "../../kselftest_harness.h"

#include "pmf.h"

#define LOOP_INSNS	4	/* per iteration, of both loops */
#define SYSCALLS	2000
#define PAGES_SHORT	16
#define PAGES_LONG	(PAGES_SHORT + 256)
/* What handling a page fault costs the kernel, at the very least. */
#define MIN_FAULT_INSNS	100
/* And a getppid() system call. */
#define MIN_SYSCALL_INSNS	100
/* The user instructions around a loop: measure()'s and libc's ioctl(). */
#define MAX_AROUND_INSNS	200

enum how { USER, USER_BRANCHES, BOTH_MODES };

static const char * const how_name[] = {
	[USER] = ":u", [USER_BRANCHES] = ":u with branch stack",
	[BOTH_MODES] = " (user and kernel)",
};

static int open_counter(__u64 config, enum how how)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = config,
		.exclude_kernel = how != BOTH_MODES,
		.exclude_hv = 1,
		.disabled = 1,
	};

	if (how == USER_BRANCHES) {
		/* A sampling event whose period never runs out here. */
		attr.sample_period = 1ULL << 40;
		attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
		attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
					  PERF_SAMPLE_BRANCH_USER;
	}
	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

/* Count @config over @fn(@arg); -1 with errno set if it cannot open. */
static long long measure(__u64 config, enum how how, void (*fn)(long),
			 long arg)
{
	int fd = open_counter(config, how);
	__u64 count;

	if (fd < 0)
		return -1;
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		close(fd);
		return -1;
	}
	fn(arg);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = -1;
	close(fd);
	return count;
}

static void syscalls(long n)
{
	pmf_syscalls(n);
}

static long faults;

/* Load from n pages that nothing has touched yet. */
static void touch_fresh(long n)
{
	long page = getpagesize();
	struct rusage r0, r1;
	char *p;

	p = mmap(NULL, n * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	getrusage(RUSAGE_SELF, &r0);
	pmf_touch(p, n, page);
	getrusage(RUSAGE_SELF, &r1);
	faults += r1.ru_minflt - r0.ru_minflt;
	munmap(p, n * page);
}

FIXTURE(user_only) {
};

FIXTURE_VARIANT(user_only) {
	__u64 config;
	const char *name;
};

FIXTURE_VARIANT_ADD(user_only, cycles) {
	.config = PERF_COUNT_HW_CPU_CYCLES, .name = "cycles",
};

FIXTURE_VARIANT_ADD(user_only, instructions) {
	.config = PERF_COUNT_HW_INSTRUCTIONS, .name = "instructions",
};

FIXTURE_SETUP(user_only)
{
}

FIXTURE_TEARDOWN(user_only)
{
}

TEST_F(user_only, syscall_loop)
{
	long long n[3];

	syscalls(10);
	for (int how = 0; how < 3; how++) {
		n[how] = measure(variant->config, how, syscalls, SYSCALLS);
		if (n[how] < 0 && errno == EOPNOTSUPP && how == USER_BRANCHES)
			SKIP(return, "no branch stack sampling on this CPU (no Ssctr?)");
		ASSERT_LE(0, n[how]) TH_LOG("%s%s: %s", variant->name,
					    how_name[how], strerror(errno));
		ksft_print_msg("%s%s: %lld over %d system calls\n", variant->name,
			       how_name[how], n[how], SYSCALLS);
	}
	EXPECT_LT(0, n[USER]);
	EXPECT_LT(0, n[USER_BRANCHES]);
	EXPECT_LT(0, n[BOTH_MODES]);
	if (!getenv("CTR_TEST_EXACT")) {
		ksft_print_msg("bounds need exact counting (QEMU -icount, CTR_TEST_EXACT=1)\n");
		return;
	}
	/*
	 * The loop retires 3 or 4 instructions a call (see pmf_code.S), and
	 * a branch stack changes nothing of what is counted: the user count
	 * reads the same with one. Under -icount a hart's cycle counter
	 * advances one an instruction, so cycles:u is held to the same. (A
	 * QEMU whose counters also count the instructions other harts run
	 * while this one waits for its turn fails here, in a few runs of a
	 * hundred on four harts; this project's QEMU counts the hart's own.)
	 */
	for (int how = USER; how <= USER_BRANCHES; how++) {
		EXPECT_LE(SYSCALLS * (LOOP_INSNS - 1), n[how]);
		EXPECT_GE(SYSCALLS * LOOP_INSNS + MAX_AROUND_INSNS, n[how]);
	}
	EXPECT_EQ(n[USER], n[USER_BRANCHES]);
	EXPECT_LE(n[USER] + SYSCALLS * MIN_SYSCALL_INSNS, n[BOTH_MODES]);
}

TEST(exact_fault_count)
{
	long long d[3];

	if (!getenv("CTR_TEST_EXACT"))
		SKIP(return, "needs exact counting (QEMU -icount, CTR_TEST_EXACT=1)");
	touch_fresh(1);
	for (int how = 0; how < 3; how++) {
		long long a, b;

		faults = 0;
		a = measure(PERF_COUNT_HW_INSTRUCTIONS, how, touch_fresh, PAGES_SHORT);
		b = measure(PERF_COUNT_HW_INSTRUCTIONS, how, touch_fresh, PAGES_LONG);
		if ((a < 0 || b < 0) && errno == EOPNOTSUPP && how == USER_BRANCHES)
			SKIP(return, "no branch stack sampling on this CPU (no Ssctr?)");
		ASSERT_LE(0, a) TH_LOG("%s", strerror(errno));
		ASSERT_LE(0, b) TH_LOG("%s", strerror(errno));
		d[how] = b - a;
		ksft_print_msg("instructions%s: %lld for %d pages, %lld for %d\n",
			       how_name[how], a, PAGES_SHORT, b, PAGES_LONG);
		ksft_print_msg("  %lld more; %ld page faults\n", d[how], faults);
		/* Every page was a fault: the test measures what it says. */
		EXPECT_LE(PAGES_SHORT + PAGES_LONG, faults);
	}
	EXPECT_EQ((PAGES_LONG - PAGES_SHORT) * LOOP_INSNS, d[USER]);
	EXPECT_EQ((PAGES_LONG - PAGES_SHORT) * LOOP_INSNS, d[USER_BRANCHES]);
	EXPECT_LT(d[USER] + (PAGES_LONG - PAGES_SHORT) * MIN_FAULT_INSNS,
		  d[BOTH_MODES]);
}

TEST_HARNESS_MAIN

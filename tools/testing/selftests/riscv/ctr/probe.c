// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a user sees of control transfer records before sampling with them:
 * the ISA string, the depth perf reads from caps/branches, and whether
 * the kernel accepts a branch stack event.
 *
 * CTR_EXPECT_DEPTH=N in the environment makes the depth exact; without it
 * any valid depth passes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "../../kselftest_harness.h"

#define CAPS_BRANCHES "/sys/bus/event_source/devices/cpu/caps/branches"

/* Does every hart's ISA string in /proc/cpuinfo name the extension? */
static bool cpuinfo_has(const char *ext)
{
	char line[4096], pat[64];
	int harts = 0, with = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	snprintf(pat, sizeof(pat), "_%s_", ext);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "hart isa", 8))
			continue;
		line[strcspn(line, "\n")] = '_';
		harts++;
		if (strstr(line, pat))
			with++;
	}
	fclose(f);
	return harts && with == harts;
}

static int read_caps_branches(void)
{
	FILE *f = fopen(CAPS_BRANCHES, "r");
	int n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &n) != 1)
		n = -2;
	fclose(f);
	return n;
}

static int open_branch_event(__u64 branch_sample_type)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.sample_period = 100000,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = branch_sample_type,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};

	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

TEST(caps_branches_matches_isa)
{
	bool ctr = cpuinfo_has("ssctr");
	int n = read_caps_branches();
	const char *expect = getenv("CTR_EXPECT_DEPTH");

	ksft_print_msg("ssctr in /proc/cpuinfo: %s, caps/branches: %d\n",
		       ctr ? "yes" : "no", n);
	if (!ctr) {
		EXPECT_EQ(-1, n) TH_LOG("caps/branches without ssctr");
		return;
	}
	ASSERT_GE(n, 16);
	EXPECT_LE(n, 256);
	EXPECT_EQ(0, n & (n - 1)) TH_LOG("depth %d is not a power of two", n);
	if (expect)
		EXPECT_EQ(atoi(expect), n);
}

TEST(expected_isa)
{
	const char *want = getenv("CTR_EXPECT_ISA");

	if (!want)
		SKIP(return, "CTR_EXPECT_ISA not set");
	EXPECT_EQ(!strcmp(want, "yes"), cpuinfo_has("ssctr"));
}

/* Until branch stacks are sampled, the kernel must refuse them cleanly. */
TEST(branch_stack_refused)
{
	int fd = open_branch_event(PERF_SAMPLE_BRANCH_ANY |
				   PERF_SAMPLE_BRANCH_USER);

	if (fd >= 0)
		close(fd);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EOPNOTSUPP, errno) TH_LOG("errno %d: %s", errno, strerror(errno));
}

TEST_HARNESS_MAIN

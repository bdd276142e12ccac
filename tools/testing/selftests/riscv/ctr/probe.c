// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a user sees of control transfer records: the ISA string, the depth
 * perf reads from caps/branches, and how the kernel answers branch stack
 * events it can and cannot serve.
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

static int open_branch_event3(__u64 branch_sample_type, __u64 config2,
			      bool exclude_guest, bool exclude_host)
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
		.config2 = config2,
		.exclude_guest = exclude_guest,
		.exclude_host = exclude_host,
	};

	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

static int open_branch_event2(__u64 branch_sample_type, __u64 config2)
{
	return open_branch_event3(branch_sample_type, config2, false, false);
}

static int open_branch_event(__u64 branch_sample_type)
{
	return open_branch_event2(branch_sample_type, 0);
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

#define CAPS_DIR "/sys/bus/event_source/devices/cpu/caps/"

/* A caps/ file's first line, or NULL when it is not there. */
static char *read_cap(const char *name, char *buf, size_t size)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), CAPS_DIR "%s", name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	if (!fgets(buf, size, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

static const char *const feature_caps[] = {
	"branch_types", "branch_mispred", "branch_cycles",
	"branch_call_stack", "branch_freeze",
};

/*
 * CTR_EXPECT_CAPS names what the hart has: "max" for every part (QEMU
 * -cpu max), or a list such as "types=1,mispred=0,depths=16:32,
 * hw_filters=cond:not_taken" whose keys are the caps/branch_* files, with ':' for
 * the spaces of branch_depths and branch_hw_filters. Returns the value expected of @file, or
 * NULL when the list says nothing of it.
 */
static const char *expected_cap(const char *file, char *buf, size_t len)
{
	const char *expect = getenv("CTR_EXPECT_CAPS");
	static const char *const max[][2] = {
		{ "branch_types", "1" }, { "branch_mispred", "1" },
		{ "branch_cycles", "1" }, { "branch_call_stack", "1" },
		{ "branch_freeze", "1" },
		{ "branch_depths", "16 32 64 128 256" },
		{ "branch_hw_filters",
		  "any_call any_ret ind_call call ind_jmp cond not_taken" },
	};
	const char *key = file + strlen("branch_"), *p;
	size_t klen = strlen(key);

	if (!expect)
		return NULL;
	if (!strcmp(expect, "max")) {
		for (int i = 0; i < ARRAY_SIZE(max); i++)
			if (!strcmp(max[i][0], file))
				return max[i][1];
		return NULL;
	}
	for (p = expect; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (strncmp(p, key, klen) || p[klen] != '=')
			continue;
		snprintf(buf, len, "%.*s", (int)strcspn(p + klen + 1, ","),
			 p + klen + 1);
		for (char *c = buf; *c; c++)
			if (*c == ':')
				*c = ' ';
		return buf;
	}
	return NULL;
}

/*
 * What the driver found the hart to have, beside the depth: each feature
 * file says 1 or 0, the depth in use is one the hart offers, what the
 * files say agrees with what the kernel accepts, and with what
 * CTR_EXPECT_CAPS says the hart has.
 */
TEST(caps_features)
{
	char buf[128], depth[16], want[128];
	const char *exp;
	int n = read_caps_branches(), fd;

	if (!cpuinfo_has("ssctr")) {
		for (int i = 0; i < ARRAY_SIZE(feature_caps); i++) {
			EXPECT_EQ(NULL, read_cap(feature_caps[i], buf, sizeof(buf)))
				TH_LOG("caps/%s without Ssctr", feature_caps[i]);
		}
		return;
	}
	for (int i = 0; i < ARRAY_SIZE(feature_caps); i++) {
		ASSERT_NE(NULL, read_cap(feature_caps[i], buf, sizeof(buf)))
			TH_LOG("no caps/%s", feature_caps[i]);
		ksft_print_msg("caps/%s: %s\n", feature_caps[i], buf);
		EXPECT_TRUE(!strcmp(buf, "1") || !strcmp(buf, "0"));
		exp = expected_cap(feature_caps[i], want, sizeof(want));
		if (exp)
			EXPECT_STREQ(exp, buf) TH_LOG("caps/%s", feature_caps[i]);
	}
	ASSERT_NE(NULL, read_cap("branch_depths", buf, sizeof(buf)));
	ksft_print_msg("caps/branch_depths: %s\n", buf);
	snprintf(depth, sizeof(depth), "%d", n);
	EXPECT_NE(NULL, strstr(buf, depth)) TH_LOG("depth %d not offered", n);
	exp = expected_cap("branch_depths", want, sizeof(want));
	if (exp)
		EXPECT_STREQ(exp, buf);
	ASSERT_NE(NULL, read_cap("branch_hw_filters", buf, sizeof(buf)));
	ksft_print_msg("caps/branch_hw_filters: %s\n", buf);
	exp = expected_cap("branch_hw_filters", want, sizeof(want));
	if (exp)
		EXPECT_STREQ(exp, buf);

	/* Call stacks are taken exactly when the file says so. */
	read_cap("branch_call_stack", buf, sizeof(buf));
	fd = open_branch_event(PERF_SAMPLE_BRANCH_USER |
			       PERF_SAMPLE_BRANCH_CALL_STACK);
	if (fd >= 0)
		close(fd);
	EXPECT_EQ(strcmp(buf, "1") ? EOPNOTSUPP : 0, fd < 0 ? errno : 0);
	/* So are type filters, with TYPE. */
	read_cap("branch_types", buf, sizeof(buf));
	fd = open_branch_event(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL);
	if (fd >= 0)
		close(fd);
	EXPECT_EQ(strcmp(buf, "1") ? EOPNOTSUPP : 0, fd < 0 ? errno : 0);
}

TEST(expected_isa)
{
	const char *want = getenv("CTR_EXPECT_ISA");

	if (!want)
		SKIP(return, "CTR_EXPECT_ISA not set");
	EXPECT_EQ(!strcmp(want, "yes"), cpuinfo_has("ssctr"));
}

/* With CTR the kernel takes branch stack events; without, it refuses them. */
TEST(branch_stack_open)
{
	bool ctr = cpuinfo_has("ssctr");
	int fd = open_branch_event(PERF_SAMPLE_BRANCH_ANY |
				   PERF_SAMPLE_BRANCH_USER);

	if (fd >= 0)
		close(fd);
	if (ctr) {
		EXPECT_LE(0, fd) TH_LOG("errno %d: %s", errno, strerror(errno));
	} else {
		EXPECT_EQ(-1, fd);
		EXPECT_EQ(EOPNOTSUPP, errno) TH_LOG("errno %d: %s", errno, strerror(errno));
	}
}

/* What CTR cannot do is refused with the documented errno, not ignored. */
TEST(branch_stack_invalid)
{
	static const struct { __u64 bst; int err; } cases[] = {
		{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
		  PERF_SAMPLE_BRANCH_ABORT_TX, EOPNOTSUPP },
		{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
		  PERF_SAMPLE_BRANCH_IN_TX, EOPNOTSUPP },
		{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
		  PERF_SAMPLE_BRANCH_NO_TX, EOPNOTSUPP },
		{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
		  PERF_SAMPLE_BRANCH_COUNTERS, EOPNOTSUPP },
		/* Only flags, no branch type: nothing to record. */
		{ PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_NO_CYCLES, EINVAL },
		{ PERF_SAMPLE_BRANCH_MAX | PERF_SAMPLE_BRANCH_ANY |
		  PERF_SAMPLE_BRANCH_USER, EINVAL },
		/* A call stack replaces the type filters... */
		{ PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_ANY_CALL |
		  PERF_SAMPLE_BRANCH_USER, EINVAL },
		/* ...and is user space's only. */
		{ PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_USER |
		  PERF_SAMPLE_BRANCH_KERNEL, EOPNOTSUPP },
	};

	if (!cpuinfo_has("ssctr"))
		SKIP(return, "no Ssctr: every branch stack event is refused");
	for (int i = 0; i < ARRAY_SIZE(cases); i++) {
		int fd = open_branch_event(cases[i].bst);

		if (fd >= 0)
			close(fd);
		EXPECT_EQ(-1, fd) TH_LOG("branch_sample_type %#llx accepted",
					 (unsigned long long)cases[i].bst);
		EXPECT_EQ(cases[i].err, errno)
			TH_LOG("branch_sample_type %#llx: errno %d",
			       (unsigned long long)cases[i].bst, errno);
	}
}

/*
 * The host never records a guest's transfers: an event of guests only
 * (exclude_host) is refused, as it would get no record; one of the host
 * and its guests gets the host's.
 */
TEST(branch_stack_guests)
{
	const __u64 bst = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	int fd;

	if (!cpuinfo_has("ssctr"))
		SKIP(return, "no Ssctr: every branch stack event is refused");
	fd = open_branch_event3(bst, 0, false, true);
	if (fd >= 0)
		close(fd);
	EXPECT_EQ(-1, fd) TH_LOG("a branch event of guests only accepted");
	EXPECT_EQ(EOPNOTSUPP, errno) TH_LOG("errno %d", errno);
	for (int g = 0; g < 2; g++) {
		fd = open_branch_event3(bst, 0, g, false);
		EXPECT_LE(0, fd) TH_LOG("exclude_guest %d: errno %d", g, errno);
		if (fd >= 0)
			close(fd);
	}
}

#define NOT_TAKEN_FORMAT "/sys/bus/event_source/devices/cpu/format/not_taken"

/*
 * Not-taken branches come with the not_taken format attribute (config2
 * bit 0), beside cond or any, and with nothing else.
 */
/* Does caps/branch_hw_filters name not_taken (sctrctl.NTBREN)? */
static bool has_ntbren(void)
{
	char buf[128];

	return read_cap("branch_hw_filters", buf, sizeof(buf)) &&
	       strstr(buf, "not_taken");
}

TEST(not_taken_format)
{
	static const struct { __u64 bst; int err; } cases[] = {
		{ PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_USER, 0 },
		{ PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER, 0 },
		{ PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_USER, EINVAL },
		{ PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_USER, EINVAL },
	};
	char buf[32] = "";
	FILE *f = fopen(NOT_TAKEN_FORMAT, "r");
	bool shown = f;

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	if (!cpuinfo_has("ssctr")) {
		EXPECT_FALSE(shown) TH_LOG("%s without Ssctr", NOT_TAKEN_FORMAT);
		return;
	}
	ASSERT_STREQ("config2:0\n", buf);
	for (int i = 0; i < ARRAY_SIZE(cases); i++) {
		int fd = open_branch_event2(cases[i].bst, 1);

		if (fd >= 0)
			close(fd);
		if (!cases[i].err && !has_ntbren()) {
			/* A hart without NTBREN cannot record not-taken branches. */
			EXPECT_EQ(-1, fd);
			EXPECT_EQ(EOPNOTSUPP, errno)
				TH_LOG("branch_sample_type %#llx without NTBREN: errno %d",
				       (unsigned long long)cases[i].bst, errno);
		} else if (!cases[i].err) {
			EXPECT_LE(0, fd) TH_LOG("branch_sample_type %#llx: errno %d",
						(unsigned long long)cases[i].bst, errno);
		} else {
			EXPECT_EQ(-1, fd);
			EXPECT_EQ(cases[i].err, errno)
				TH_LOG("branch_sample_type %#llx: errno %d",
				       (unsigned long long)cases[i].bst, errno);
		}
	}
}

/*
 * perf record --call-graph lbr asks for exactly this: accepted where
 * caps/branch_call_stack says 1, refused with EOPNOTSUPP where it says 0.
 */
TEST(call_stack_accepted)
{
	char buf[16];
	int fd;

	if (!cpuinfo_has("ssctr"))
		SKIP(return, "no Ssctr: every branch stack event is refused");
	ASSERT_NE(NULL, read_cap("branch_call_stack", buf, sizeof(buf)));
	fd = open_branch_event(PERF_SAMPLE_BRANCH_USER |
			       PERF_SAMPLE_BRANCH_CALL_STACK |
			       PERF_SAMPLE_BRANCH_NO_CYCLES |
			       PERF_SAMPLE_BRANCH_NO_FLAGS |
			       PERF_SAMPLE_BRANCH_HW_INDEX);
	if (!strcmp(buf, "0")) {
		EXPECT_EQ(-1, fd);
		EXPECT_EQ(EOPNOTSUPP, errno) TH_LOG("without RASEMU: errno %d", errno);
		return;
	}
	ASSERT_LE(0, fd) TH_LOG("errno %d: %s", errno, strerror(errno));
	close(fd);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Throttling stops an event until perf unthrottles it, and sampling goes
 * on after that. A period far too small for the allowed sample rate gets
 * the event throttled at nearly every tick and unthrottled at the next:
 * throttles and unthrottles must alternate, a throttled event must give
 * no samples but the one that throttled it, and each unthrottle must
 * bring samples again. With and without branch stacks.
 *
 * Needs root, to lower kernel.perf_event_max_sample_rate.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "../../kselftest_harness.h"
#include "sysctl.h"

#define RATE		1000
#define PAGES		64
#define RUN_NS		1500000000ULL

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

FIXTURE(throttle) {
	int fd;
	long saved_rate, saved_percent;
	struct perf_event_mmap_page *page;
	/* throttles, unthrottles, samples, and unthrottles followed by a sample */
	unsigned long thr, unthr, samples, resumed;
	/* samples taken while throttled */
	unsigned long while_throttled;
	bool after_unthrottle, throttled;
};

FIXTURE_VARIANT(throttle) {
	bool branches;
};

FIXTURE_VARIANT_ADD(throttle, plain) { .branches = false };
FIXTURE_VARIANT_ADD(throttle, branch_stack) { .branches = true };

FIXTURE_SETUP(throttle)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.sample_period = 10007,
		.sample_type = PERF_SAMPLE_IP,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};

	int err;

	self->fd = -1;
	self->page = MAP_FAILED;
	/* The rate is read-only while the CPU time limit is off (0 or 100). */
	self->saved_percent = read_long(PERCENT_FILE);
	if (self->saved_percent == 0 || self->saved_percent == 100)
		write_long(PERCENT_FILE, 25);
	self->saved_rate = read_long(RATE_FILE);
	err = write_long(RATE_FILE, RATE);
	if (err)
		SKIP(return, "cannot set %s: %s", RATE_FILE, strerror(err));

	if (variant->branches) {
		attr.sample_type |= PERF_SAMPLE_BRANCH_STACK;
		attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
					  PERF_SAMPLE_BRANCH_USER;
	}
	self->fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (self->fd < 0 && errno == EOPNOTSUPP && variant->branches)
		SKIP(return, "no branch stack sampling on this CPU (no Ssctr?)");
	ASSERT_LE(0, self->fd) TH_LOG("perf_event_open: %s", strerror(errno));
	self->page = mmap(NULL, (PAGES + 1) * getpagesize(),
			  PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->page);
}

FIXTURE_TEARDOWN(throttle)
{
	if (self->page != MAP_FAILED)
		munmap(self->page, (PAGES + 1) * getpagesize());
	if (self->fd >= 0)
		close(self->fd);
	if (self->saved_rate > 0)
		write_long(RATE_FILE, self->saved_rate);
	if (self->saved_percent >= 0)
		write_long(PERCENT_FILE, self->saved_percent);
}

static void drain(struct _test_data_throttle *self)
{
	struct perf_event_mmap_page *pg = self->page;
	char *data = (char *)pg + pg->data_offset;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;

	while (tail < head) {
		struct perf_event_header *h =
			(void *)(data + tail % pg->data_size);

		switch (h->type) {
		case PERF_RECORD_THROTTLE:
			self->thr++;
			self->throttled = true;
			break;
		case PERF_RECORD_UNTHROTTLE:
			self->unthr++;
			self->after_unthrottle = true;
			self->throttled = false;
			break;
		case PERF_RECORD_SAMPLE:
			self->samples++;
			self->while_throttled += self->throttled;
			if (self->after_unthrottle)
				self->resumed++;
			self->after_unthrottle = false;
			break;
		}
		tail += h->size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

TEST_F(throttle, resumes_after_unthrottle)
{
	uint64_t end = now_ns() + RUN_NS;
	unsigned long sink = 0;

	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0));
	while (now_ns() < end) {
		for (int i = 0; i < 100000; i++) {
			sink += i;
			asm volatile("" : "+r" (sink));
		}
		drain(self);
	}
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0));
	drain(self);

	ksft_print_msg("%lu samples, %lu while throttled\n",
		       self->samples, self->while_throttled);
	ksft_print_msg("%lu throttles, %lu unthrottles, %lu followed by samples\n",
		       self->thr, self->unthr, self->resumed);
	/* The period is small enough that throttling must happen. */
	ASSERT_LT(1, self->unthr);
	/* Throttled, the event is stopped until perf unthrottles it. */
	EXPECT_LE(self->unthr, self->thr);
	EXPECT_LE(self->thr, self->unthr + 1);
	/* The sample that throttles comes after its THROTTLE record. */
	EXPECT_LE(self->while_throttled, self->thr);
	/* Only the last unthrottle may lack the time to bring a sample. */
	EXPECT_LE(self->unthr - 1, self->resumed);
}

TEST_HARNESS_MAIN

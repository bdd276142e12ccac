// SPDX-License-Identifier: GPL-2.0-only
/*
 * Branch stack sampling on a workload whose control flow is known to the
 * instruction (workload.S), once per perf branch filter. For every filter:
 *
 * - every record that starts in the workload is one of its transfers,
 *   with the exact source, target and type;
 * - no record has a type the filter leaves out;
 * - a user-only event sees no kernel address, in its records or its IP;
 * - every transfer of the workload that the filter selects shows up.
 *
 * cond means taken conditional branches, as everywhere in perf; not-taken
 * ones come only with the core PMU's not_taken format attribute.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "../../kselftest_harness.h"
#include "workload.h"

/* Control transfer types, as ctrdata.TYPE numbers them. */
enum { XCPT = 1, INTR = 2, TRET = 3, NTAKEN = 4, TAKEN = 5, ICALL = 8,
	DCALL = 9, IJUMP = 10, DJUMP = 11, SWAP = 12, RET = 13, ILJUMP = 14,
	DLJUMP = 15 };
#define B(t)		(1u << (t))
#define ALL_BUT_NT	(B(XCPT) | B(INTR) | B(TRET) | B(TAKEN) | B(ICALL) |	\
			 B(DCALL) | B(IJUMP) | B(DJUMP) | B(SWAP) | B(RET) |	\
			 B(ILJUMP) | B(DLJUMP))

/* How the kernel reports each type in a perf branch entry. */
static const struct { uint8_t type, new_type; } perf_type[16] = {
	[XCPT] = { PERF_BR_SYSCALL }, [INTR] = { PERF_BR_IRQ },
	[TRET] = { PERF_BR_ERET },
	[NTAKEN] = { PERF_BR_EXTEND_ABI, PERF_BR_NEW_ARCH_4 },
	[TAKEN] = { PERF_BR_COND }, [ICALL] = { PERF_BR_IND_CALL },
	[DCALL] = { PERF_BR_CALL }, [IJUMP] = { PERF_BR_IND },
	[DJUMP] = { PERF_BR_UNCOND },
	[SWAP] = { PERF_BR_EXTEND_ABI, PERF_BR_NEW_ARCH_1 },
	[RET] = { PERF_BR_RET },
	[ILJUMP] = { PERF_BR_EXTEND_ABI, PERF_BR_NEW_ARCH_2 },
	[DLJUMP] = { PERF_BR_EXTEND_ABI, PERF_BR_NEW_ARCH_3 },
};

#define ANYWHERE	UINT64_MAX	/* an address we cannot know */
#define IN_KERNEL	(UINT64_MAX - 1)	/* some kernel address */

struct transfer {
	uint64_t from, to;
	int type;
	bool once;		/* once per call of the workload */
	unsigned long seen;
};

#define A(label)	((uint64_t)(uintptr_t)(label))

static struct transfer transfers[20];
static int nr_transfers;

static void add(uint64_t from, uint64_t to, int type)
{
	transfers[nr_transfers++] = (struct transfer){ from, to, type };
}

static void add_once(uint64_t from, uint64_t to, int type)
{
	transfers[nr_transfers++] = (struct transfer){ from, to, type, true };
}

static void fill_workload(void)
{
	nr_transfers = 0;
	add(A(ctr_wl_dircall), A(ctr_wl_leaf), DCALL);
	add(A(ctr_wl_leaf_ret), A(ctr_wl_dircall) + 4, RET);
	add(A(ctr_wl_indcall), A(ctr_wl_leaf), ICALL);
	add(A(ctr_wl_leaf_ret), A(ctr_wl_indcall) + 4, RET);
	add(A(ctr_wl_taken), A(ctr_wl_taken_to), TAKEN);
	add(A(ctr_wl_nottaken), A(ctr_wl_nottaken) + 4, NTAKEN);
	add(A(ctr_wl_dirjump), A(ctr_wl_dirjump_to), DJUMP);
	add(A(ctr_wl_indjump), A(ctr_wl_indjump_to), IJUMP);
	add(A(ctr_wl_swap), A(ctr_wl_coroutine), SWAP);
	add(A(ctr_wl_coroutine_swap), A(ctr_wl_swap) + 4, SWAP);
	add(A(ctr_wl_dirlink), A(ctr_wl_other), DLJUMP);
	add(A(ctr_wl_other_ret), A(ctr_wl_dirlink) + 4, IJUMP);
	add(A(ctr_wl_indlink), A(ctr_wl_other), ILJUMP);
	add(A(ctr_wl_other_ret), A(ctr_wl_indlink) + 4, IJUMP);
	add(A(ctr_wl_ecall), IN_KERNEL, XCPT);
	add(IN_KERNEL, A(ctr_wl_ecall) + 4, TRET);
	add(A(ctr_wl_loopbr), A(ctr_wl_loop), TAKEN);
	add_once(A(ctr_wl_loopbr), A(ctr_wl_loopbr) + 4, NTAKEN);
	add_once(A(ctr_wl_ret), ANYWHERE, RET);
}

static bool kernel_addr(uint64_t a)
{
	return (int64_t)a < 0;
}

static bool in_workload(uint64_t a)
{
	return a >= A(ctr_wl_begin) && a < A(ctr_wl_end);
}

static bool addr_matches(uint64_t want, uint64_t got)
{
	if (want == ANYWHERE)
		return true;
	if (want == IN_KERNEL)
		return kernel_addr(got);
	return want == got;
}

/*
 * The transfer type of a record, from its perf type. Both kinds of
 * conditional branch are PERF_BR_COND: in the workload, which has no
 * compressed instructions, a not-taken branch goes to the next instruction;
 * elsewhere the two cannot be told apart, and COND stands for both.
 */
#define COND	16

static int perf_type_of(const struct perf_branch_entry *e)
{
	/* An exception that is no ecall: a fault, a breakpoint, ... */
	if (e->type == PERF_BR_EXTEND_ABI &&
	    (e->new_type == PERF_BR_NEW_FAULT_DATA ||
	     e->new_type == PERF_BR_NEW_FAULT_INST ||
	     e->new_type == PERF_BR_NEW_ARCH_5))
		return XCPT;
	for (int t = 1; t < 16; t++) {
		if (!perf_type[t].type && !perf_type[t].new_type)
			continue;
		if (e->type != perf_type[t].type ||
		    (e->type == PERF_BR_EXTEND_ABI && e->new_type != perf_type[t].new_type))
			continue;
		if (t == NTAKEN || t == TAKEN) {
			if (!in_workload(e->from))
				return COND;
			return e->to == e->from + 4 ? NTAKEN : TAKEN;
		}
		return t;
	}
	return -1;
}

/*
 * Does the hart record transfer types (caps/branch_types)? Without TYPE
 * every record is of type UNKNOWN, and the filters the hart takes are
 * those it applies itself: a record is then known by its addresses.
 */
static bool types_known = true;

static bool has_types(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/cpu/caps/branch_types", "r");
	int c = f ? fgetc(f) : '1';

	if (f)
		fclose(f);
	return c != '0';
}

static bool type_in(uint32_t types, int type)
{
	if (type == COND)
		return types & (B(TAKEN) | B(NTAKEN));
	return type >= 0 && (types & B(type));
}

#define PAGES		128
#define PERIOD		500009
#define CHUNK		2000
#define MIN_SAMPLES	200
#define MAX_CHUNKS	4000

FIXTURE(brstack) {
	int fd;
	int companion_fd;
	struct perf_event_mmap_page *page;
	size_t len;
	unsigned long samples, records, in_range, lost;
	unsigned long bad_transfer, bad_type, kernel_leak, bad_priv;
};

FIXTURE_VARIANT(brstack) {
	uint64_t filter;	/* perf branch type filter */
	uint32_t types;		/* the transfer types it selects */
	bool kernel;		/* kernel branches too */
	/*
	 * Another branch event on the same task, sampling kernel calls: the
	 * hart then records kernel branches, which this event must not see.
	 */
	bool companion;
	bool not_taken;		/* the not_taken format attribute */
};

FIXTURE_VARIANT_ADD(brstack, any) {
	.filter = PERF_SAMPLE_BRANCH_ANY, .types = ALL_BUT_NT,
};

FIXTURE_VARIANT_ADD(brstack, any_call) {
	.filter = PERF_SAMPLE_BRANCH_ANY_CALL,
	.types = B(XCPT) | B(INTR) | B(ICALL) | B(DCALL) | B(SWAP),
};

FIXTURE_VARIANT_ADD(brstack, any_return) {
	.filter = PERF_SAMPLE_BRANCH_ANY_RETURN,
	.types = B(TRET) | B(RET) | B(SWAP),
};

FIXTURE_VARIANT_ADD(brstack, ind_call) {
	.filter = PERF_SAMPLE_BRANCH_IND_CALL, .types = B(ICALL),
};

FIXTURE_VARIANT_ADD(brstack, call) {
	.filter = PERF_SAMPLE_BRANCH_CALL, .types = B(DCALL),
};

FIXTURE_VARIANT_ADD(brstack, ind_jump) {
	.filter = PERF_SAMPLE_BRANCH_IND_JUMP, .types = B(IJUMP) | B(ILJUMP),
};

FIXTURE_VARIANT_ADD(brstack, cond) {
	.filter = PERF_SAMPLE_BRANCH_COND, .types = B(TAKEN),
};

FIXTURE_VARIANT_ADD(brstack, cond_not_taken) {
	.filter = PERF_SAMPLE_BRANCH_COND, .types = B(TAKEN) | B(NTAKEN),
	.not_taken = true,
};

FIXTURE_VARIANT_ADD(brstack, any_kernel) {
	.filter = PERF_SAMPLE_BRANCH_ANY, .types = ALL_BUT_NT, .kernel = true,
};

FIXTURE_VARIANT_ADD(brstack, any_beside_kernel_event) {
	.filter = PERF_SAMPLE_BRANCH_ANY, .types = ALL_BUT_NT, .companion = true,
};

FIXTURE_VARIANT_ADD(brstack, any_call_kernel) {
	.filter = PERF_SAMPLE_BRANCH_ANY_CALL,
	.types = B(XCPT) | B(INTR) | B(ICALL) | B(DCALL) | B(SWAP), .kernel = true,
};

#define NOT_TAKEN_FORMAT "/sys/bus/event_source/devices/cpu/format/not_taken"

/* Does the hart have sctrctl.NTBREN (not_taken in caps/branch_hw_filters)? */
static bool has_ntbren(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/cpu/caps/branch_hw_filters", "r");
	char buf[128] = "";

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strstr(buf, "not_taken");
}

/* Is the type filter @filter in caps/branch_hw_filters (any always is)? */
static bool hw_filter_listed(uint64_t filter)
{
	static const struct { uint64_t filter; const char *name; } names[] = {
		{ PERF_SAMPLE_BRANCH_ANY_CALL, "any_call" },
		{ PERF_SAMPLE_BRANCH_ANY_RETURN, "any_ret" },
		{ PERF_SAMPLE_BRANCH_IND_CALL, "ind_call" },
		{ PERF_SAMPLE_BRANCH_CALL, "call" },
		{ PERF_SAMPLE_BRANCH_IND_JUMP, "ind_jmp" },
		{ PERF_SAMPLE_BRANCH_COND, "cond" },
	};
	FILE *f = fopen("/sys/bus/event_source/devices/cpu/caps/branch_hw_filters", "r");
	char buf[128] = " ", word[16];

	if (filter == PERF_SAMPLE_BRANCH_ANY)
		return true;
	if (f) {
		if (!fgets(buf + 1, sizeof(buf) - 2, f))
			buf[1] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	strcat(buf, " ");
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (names[i].filter != filter)
			continue;
		snprintf(word, sizeof(word), " %s ", names[i].name);
		return strstr(buf, word);
	}
	return false;
}

/* The config2 bit of the not_taken format attribute, or -1. */
static int not_taken_bit(void)
{
	FILE *f = fopen(NOT_TAKEN_FORMAT, "r");
	int bit = -1;

	if (!f)
		return -1;
	if (fscanf(f, "config2:%d", &bit) != 1)
		bit = -1;
	fclose(f);
	return bit;
}

FIXTURE_SETUP(brstack)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.sample_period = PERIOD,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = variant->filter | PERF_SAMPLE_BRANCH_USER |
				      PERF_SAMPLE_BRANCH_TYPE_SAVE |
				      PERF_SAMPLE_BRANCH_PRIV_SAVE,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
		/* The whole buffer, not perf_event_max_stack's 127 records. */
		.sample_max_stack = 256,
	};
	int err;

	memset(self, 0, sizeof(*self));
	self->fd = -1;
	fill_workload();
	if (variant->kernel)
		attr.branch_sample_type |= PERF_SAMPLE_BRANCH_KERNEL;
	if (variant->not_taken) {
		int bit = not_taken_bit();

		if (bit < 0 && access("/sys/bus/event_source/devices/cpu/caps/branches", F_OK))
			SKIP(return, "no branch stack sampling on this CPU (no Ssctr?)");
		ASSERT_LE(0, bit) TH_LOG("no config2 bit in %s", NOT_TAKEN_FORMAT);
		attr.config2 = 1ULL << bit;
	}

	self->companion_fd = -1;
	/*
	 * QEMU without -icount approximates counter overflow with host
	 * timers, and with two counters running it sometimes never raises
	 * the first one's overflow again (6 of 24 runs). With -icount it
	 * is exact: CTR_TEST_EXACT=1 says so, and every period must then
	 * give a sample.
	 */
	if (variant->companion && !getenv("CTR_TEST_EXACT"))
		SKIP(return, "needs exact counter overflow (QEMU -icount, CTR_TEST_EXACT=1)");
	if (variant->companion) {
		struct perf_event_attr k = attr;

		k.config = PERF_COUNT_HW_CPU_CYCLES;
		k.exclude_kernel = 0;
		k.branch_sample_type = PERF_SAMPLE_BRANCH_ANY_CALL |
				       PERF_SAMPLE_BRANCH_KERNEL;
		self->companion_fd = syscall(__NR_perf_event_open, &k, 0, -1, -1, 0);
		if (self->companion_fd < 0 && errno == EACCES)
			SKIP(return, "kernel branches need CAP_PERFMON or paranoid <= 1");
		if (self->companion_fd < 0 && errno == EOPNOTSUPP)
			SKIP(return, "no branch stack sampling on this CPU (no Ssctr?)");
		ASSERT_LE(0, self->companion_fd)
			TH_LOG("perf_event_open: %s", strerror(errno));
	}
	types_known = has_types();
	self->fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	/* The checks below open files: keep perf_event_open()'s errno. */
	err = self->fd < 0 ? errno : 0;
	if (err == EACCES && variant->kernel)
		SKIP(return, "kernel branches need CAP_PERFMON or paranoid <= 1");
	/* A hart without NTBREN refuses not_taken, as ctr.rst says. */
	if (err == EOPNOTSUPP && variant->not_taken && !has_ntbren())
		SKIP(return, "not_taken refused (EOPNOTSUPP): the hart has no NTBREN");
	/*
	 * Without TYPE, not_taken and the filters the hart does not apply
	 * itself are refused too; those it lists in branch_hw_filters not.
	 */
	if (err == EOPNOTSUPP && !types_known &&
	    (variant->not_taken || !hw_filter_listed(variant->filter)))
		SKIP(return, "refused (EOPNOTSUPP): no TYPE, and no such filter in hardware");
	if (err == EOPNOTSUPP &&
	    access("/sys/bus/event_source/devices/cpu/caps/branches", F_OK))
		SKIP(return, "no branch stack sampling on this CPU (no Ssctr?)");
	ASSERT_GE(self->fd, 0) TH_LOG("perf_event_open: %s", strerror(err));

	self->len = (PAGES + 1) * getpagesize();
	self->page = mmap(NULL, self->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			  self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->page);
}

FIXTURE_TEARDOWN(brstack)
{
	if (self->page && self->page != MAP_FAILED)
		munmap(self->page, self->len);
	if (self->companion_fd >= 0)
		close(self->companion_fd);
	if (self->fd >= 0)
		close(self->fd);
}

static void check_record(struct _test_data_brstack *self,
			 const FIXTURE_VARIANT(brstack) *variant,
			 const struct perf_branch_entry *e)
{
	int type = perf_type_of(e);
	bool k = kernel_addr(e->from) || kernel_addr(e->to);

	self->records++;
	if (types_known && !type_in(variant->types, type)) {
		if (!self->bad_type++)
			fprintf(stderr, "# type %u/%u not in the filter: %#llx -> %#llx\n",
				e->type, e->new_type, e->from, e->to);
		return;
	}
	if (k && !variant->kernel) {
		if (!self->kernel_leak++)
			fprintf(stderr, "# kernel address in a user-only record: %#llx -> %#llx\n",
				e->from, e->to);
		return;
	}
	if (e->priv != (kernel_addr(e->from ? e->from : e->to) ?
			PERF_BR_PRIV_KERNEL : PERF_BR_PRIV_USER))
		self->bad_priv++;

	if (!in_workload(e->from) && !in_workload(e->to))
		return;
	self->in_range++;
	for (int i = 0; i < nr_transfers; i++) {
		struct transfer *t = &transfers[i];

		if ((types_known ? t->type == type : type_in(variant->types, t->type)) &&
		    addr_matches(t->from, e->from) && addr_matches(t->to, e->to)) {
			t->seen++;
			return;
		}
	}
	/* Interrupts and the returns from them land anywhere in the workload. */
	if (((types_known ? type == INTR : type_in(variant->types, INTR)) &&
	     in_workload(e->from) && kernel_addr(e->to)) ||
	    ((types_known ? type == TRET : type_in(variant->types, TRET)) &&
	     kernel_addr(e->from) && in_workload(e->to)))
		return;
	if (!self->bad_transfer++)
		fprintf(stderr, "# unexpected record %#llx -> %#llx type %d\n",
			e->from, e->to, type);
}

/* Read the samples out of the ring buffer. */
static void drain(struct _test_data_brstack *self,
		  const FIXTURE_VARIANT(brstack) *variant)
{
	struct perf_event_mmap_page *pg = self->page;
	char *data = (char *)pg + pg->data_offset;
	uint64_t size = pg->data_size;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	static uint64_t rec[(256 * 24 + 64) / 8 * 2];

	while (tail < head) {
		struct perf_event_header *h = (void *)(data + tail % size);
		size_t n = h->size, first = size - tail % size;
		uint64_t *p = rec;

		if (n > sizeof(rec))
			n = sizeof(rec);
		memcpy(rec, data + tail % size, n < first ? n : first);
		if (n > first)
			memcpy((char *)rec + first, data, n - first);
		tail += h->size;

		h = (void *)rec;
		if (h->type == PERF_RECORD_LOST) {
			self->lost += rec[2];
			continue;
		}
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		p = rec + 1;
		self->samples++;
		if (getenv("BRSTACK_DUMP") && self->samples == 1)
			for (uint64_t i = 0; i < p[1]; i++) {
				const struct perf_branch_entry *e =
					(const struct perf_branch_entry *)(p + 2) + i;

				fprintf(stderr, "# %3llu %#llx -> %#llx %u/%u\n",
					(unsigned long long)i, e->from, e->to,
					e->type, e->new_type);
			}
		if (kernel_addr(p[0]) && !self->kernel_leak++)
			fprintf(stderr, "# kernel IP %#llx in a user-only sample\n",
				(unsigned long long)p[0]);
		for (uint64_t i = 0; i < p[1]; i++)
			check_record(self, variant,
				     (const struct perf_branch_entry *)(p + 2) + i);
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

/* A kernel with KASAN and lockdep takes its time. */
TEST_F_TIMEOUT(brstack, known_control_flow, 300)
{
	uint64_t count;
	int chunks = 0;

	ctr_workload(10);	/* fault the code in before sampling */
	if (self->companion_fd >= 0)
		ASSERT_EQ(0, ioctl(self->companion_fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0));
	while (self->samples < MIN_SAMPLES && chunks++ < MAX_CHUNKS) {
		ctr_workload(CHUNK);
		drain(self, variant);
	}
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0));
	if (self->companion_fd >= 0)
		ASSERT_EQ(0, ioctl(self->companion_fd, PERF_EVENT_IOC_DISABLE, 0));
	drain(self, variant);
	ASSERT_EQ(sizeof(count), read(self->fd, &count, sizeof(count)));

	ksft_print_msg("%lu samples, %lu records, %lu in the workload, %lu lost\n",
		       self->samples, self->records, self->in_range, self->lost);
	ksft_print_msg("%d chunks, %llu events counted (%llu periods)\n",
		       chunks, (unsigned long long)count,
		       (unsigned long long)count / PERIOD);
	ASSERT_GE(self->samples, MIN_SAMPLES);
	/*
	 * Where overflows are exact, a period without a sample is a lost
	 * interrupt (the last period may still be running).
	 */
	if (getenv("CTR_TEST_EXACT"))
		EXPECT_GE(self->samples + self->lost + 1, count / PERIOD);
	EXPECT_EQ(0, self->bad_transfer);
	EXPECT_EQ(0, self->bad_type);
	EXPECT_EQ(0, self->kernel_leak);
	EXPECT_EQ(0, self->bad_priv);

	/*
	 * With lockdep and KASAN, every system call and interrupt runs
	 * hundreds of the kernel's own transfers, which push the workload's
	 * out of the buffer before most samples when the hart records them:
	 * for this event's sake, or for a CPU-wide event's beside it
	 * (CTR_TEST_BESIDE_KERNEL=1: the check's snapshots, armed on every
	 * CPU as retsnoop arms them, record the kernel). Whether a given
	 * transfer is ever seen is then down to chance: only some are
	 * required.
	 */
	if ((variant->kernel || getenv("CTR_TEST_BESIDE_KERNEL")) &&
	    !access("/proc/lockdep", F_OK)) {
		ksft_print_msg("lockdep: %lu workload records, not each transfer\n",
			       self->in_range);
		EXPECT_LT(0, self->in_range);
		return;
	}
	for (int i = 0; i < nr_transfers; i++) {
		struct transfer *t = &transfers[i];
		bool kernel_end = t->from == IN_KERNEL || t->to == IN_KERNEL;

		if (!(variant->types & B(t->type)) || (kernel_end && !variant->kernel))
			continue;
		/*
		 * The loop exit happens once per call: whether a sample lands
		 * close enough after it to hold it is down to chance.
		 */
		if (t->once)
			continue;
		EXPECT_NE(0, t->seen)
			TH_LOG("never saw %#llx -> %#llx type %d",
			       (unsigned long long)t->from,
			       (unsigned long long)t->to, t->type);
	}
}

TEST_HARNESS_MAIN

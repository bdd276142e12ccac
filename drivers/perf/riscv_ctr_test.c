// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the RISC-V Control Transfer Records driver.
 *
 * The buffer tests run on the hart they start on, with interrupts off,
 * and leave it as riscv_ctr_reset() does: deepest buffer, recording off,
 * no records.
 */
#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/irqflags.h>
#include <asm/csr.h>
#include <asm/ctr.h>

#include "riscv_ctr.h"

struct ctr_test_entry {
	u64 source;
	u64 target;
	u64 data;
};

static void ctr_test_read(unsigned int idx, struct ctr_test_entry *e)
{
	csr_write(CSR_SISELECT, CTR_ENTRY_SISELECT + idx);
	e->source = csr_read(CSR_SIREG);
	e->target = csr_read(CSR_SIREG2);
	e->data = csr_read(CSR_SIREG3);
}

static void ctr_test_write(unsigned int idx, const struct ctr_test_entry *e)
{
	csr_write(CSR_SISELECT, CTR_ENTRY_SISELECT + idx);
	csr_write(CSR_SIREG, e->source);
	csr_write(CSR_SIREG2, e->target);
	csr_write(CSR_SIREG3, e->data);
}

static int ctr_test_init(struct kunit *test)
{
	if (!riscv_ctr_num_branches())
		kunit_skip(test, "no control transfer records on this hart");
	return 0;
}

static void ctr_test_exit(struct kunit *test)
{
	if (riscv_ctr_num_branches())
		riscv_ctr_reset();
}

static void ctr_test_depth(struct kunit *test)
{
	unsigned int n = riscv_ctr_num_branches();
	unsigned long depth = FIELD_GET(SCTRDEPTH_DEPTH, csr_read(CSR_SCTRDEPTH));

	KUNIT_EXPECT_TRUE(test, is_power_of_2(n));
	KUNIT_EXPECT_GE(test, n, CTR_DEPTH_ENTRIES(0));
	KUNIT_EXPECT_LE(test, n, CTR_MAX_ENTRIES);
	KUNIT_EXPECT_EQ(test, CTR_DEPTH_ENTRIES(depth), n);
}

/* Reset leaves recording off, the buffer unfrozen and every entry empty. */
static void ctr_test_reset_state(struct kunit *test)
{
	struct ctr_test_entry e;
	unsigned long flags;
	unsigned int i, dirty = 0;

	local_irq_save(flags);
	riscv_ctr_reset();
	KUNIT_EXPECT_EQ(test, csr_read(CSR_SCTRCTL), 0);
	KUNIT_EXPECT_EQ(test, csr_read(CSR_SCTRSTATUS) & SCTRSTATUS_FROZEN, 0);
	for (i = 0; i < riscv_ctr_num_branches(); i++) {
		ctr_test_read(i, &e);
		if (e.source | e.target | e.data)
			dirty++;
	}
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, dirty, 0);
}

/* SCTRCLR wipes every entry, including the oldest, while frozen or not. */
static void ctr_test_clear(struct kunit *test)
{
	unsigned int last = riscv_ctr_num_branches() - 1;
	struct ctr_test_entry in = {
		.source = 0xffffffff80001234ULL | CTRSOURCE_VALID,
		.target = 0xffffffff80005678ULL | CTRTARGET_MISP,
		.data = CTR_TYPE_DIRCALL,
	};
	struct ctr_test_entry out0, outn;
	unsigned long flags;

	local_irq_save(flags);
	ctr_test_write(0, &in);
	ctr_test_write(last, &in);
	ctr_test_read(0, &out0);
	riscv_ctr_clear();
	ctr_test_read(last, &outn);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, out0.source, in.source);
	KUNIT_EXPECT_EQ(test, out0.target & CTR_PC_MASK, in.target & CTR_PC_MASK);
	KUNIT_EXPECT_EQ(test, out0.data & CTRDATA_TYPE, in.data);
	KUNIT_EXPECT_EQ(test, outn.source, 0);
	KUNIT_EXPECT_EQ(test, outn.target, 0);
	KUNIT_EXPECT_EQ(test, outn.data, 0);
}

/* Entries at and beyond a smaller depth read zero and ignore writes. */
static void ctr_test_shallow(struct kunit *test)
{
	struct ctr_test_entry in = {
		.source = 0x10000ULL | CTRSOURCE_VALID,
		.target = 0x20000ULL,
		.data = CTR_TYPE_BRANCH_T,
	};
	struct ctr_test_entry out;
	unsigned long flags;

	if (riscv_ctr_num_branches() == CTR_DEPTH_ENTRIES(0))
		kunit_skip(test, "the hart only has the smallest depth");

	local_irq_save(flags);
	csr_write(CSR_SCTRDEPTH, 0);
	riscv_ctr_clear();
	ctr_test_write(CTR_DEPTH_ENTRIES(0), &in);
	ctr_test_read(CTR_DEPTH_ENTRIES(0), &out);
	riscv_ctr_reset();
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, out.source, 0);
	KUNIT_EXPECT_EQ(test, out.data, 0);
}

static struct kunit_case ctr_buffer_cases[] = {
	KUNIT_CASE(ctr_test_depth),
	KUNIT_CASE(ctr_test_reset_state),
	KUNIT_CASE(ctr_test_clear),
	KUNIT_CASE(ctr_test_shallow),
	{}
};

static struct kunit_suite ctr_buffer_suite = {
	.name = "riscv_ctr_buffer",
	.init = ctr_test_init,
	.exit = ctr_test_exit,
	.test_cases = ctr_buffer_cases,
};

kunit_test_suites(&ctr_buffer_suite);

MODULE_DESCRIPTION("KUnit tests of the RISC-V CTR driver");
MODULE_LICENSE("GPL");

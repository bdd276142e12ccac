// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the RISC-V Control Transfer Records driver.
 *
 * riscv_ctr_decode checks the pure parts: the filter translation, the
 * type table and the cycle count decoding. riscv_ctr_buffer runs on the
 * hart: the buffer operations the driver relies on, and its read path on
 * synthetic records, with the cycle counts and mispredict bits QEMU never
 * records. Those tests run with interrupts off and leave the hart as
 * riscv_ctr_reset() does: deepest buffer, recording off, no records.
 */
#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/cpufeature.h>
#include <linux/irqflags.h>
#include <linux/perf_event.h>
#include <asm/csr.h>
#include <asm/ctr.h>

#include "riscv_ctr.h"

static void ctr_test_read(unsigned int idx, struct riscv_ctr_entry *e)
{
	csr_write(CSR_SISELECT, CTR_ENTRY_SISELECT + idx);
	e->source = csr_read(CSR_SIREG);
	e->target = csr_read(CSR_SIREG2);
	e->data = csr_read(CSR_SIREG3);
}

static void ctr_test_write(unsigned int idx, const struct riscv_ctr_entry *e)
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
	unsigned long flags;

	/* A per-CPU operation, as in the CPU hotplug callbacks. */
	if (riscv_ctr_num_branches()) {
		local_irq_save(flags);
		riscv_ctr_reset();
		local_irq_restore(flags);
	}
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
	struct riscv_ctr_entry e;
	unsigned long flags;
	unsigned int i, dirty = 0;

	local_irq_save(flags);
	/* Stale guest enables, as firmware or a previous kernel may leave. */
	if (riscv_has_extension_unlikely(RISCV_ISA_EXT_H))
		csr_write(CSR_VSCTRCTL, CTRCTL_U | CTRCTL_S);
	riscv_ctr_reset();
	KUNIT_EXPECT_EQ(test, csr_read(CSR_SCTRCTL), 0);
	if (riscv_has_extension_unlikely(RISCV_ISA_EXT_H))
		KUNIT_EXPECT_EQ(test, csr_read(CSR_VSCTRCTL), 0);
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
	struct riscv_ctr_entry in = {
		.source = 0xffffffff80001234ULL | CTRSOURCE_VALID,
		.target = 0xffffffff80005678ULL | CTRTARGET_MISP,
		.data = CTR_TYPE_DIRCALL,
	};
	struct riscv_ctr_entry out0, outn;
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
	struct riscv_ctr_entry in = {
		.source = 0x10000ULL | CTRSOURCE_VALID,
		.target = 0x20000ULL,
		.data = CTR_TYPE_BRANCH_T,
	};
	struct riscv_ctr_entry out;
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

#define T(t)	BIT(CTR_TYPE_##t)

/*
 * What each perf filter must record, written out again here so that a
 * change to the driver's table shows up as a failure.
 */
static u32 ctr_test_expected_types(u64 bst)
{
	u32 types = 0;

	if (bst & PERF_SAMPLE_BRANCH_ANY)
		types |= T(EXCEPTION) | T(INTERRUPT) | T(TRAP_RETURN) |
			 T(BRANCH_T) | T(INDCALL) | T(DIRCALL) | T(INDJUMP) |
			 T(DIRJUMP) | T(CORSWAP) | T(RETURN) | T(INDLJUMP) |
			 T(DIRLJUMP);
	if (bst & PERF_SAMPLE_BRANCH_ANY_CALL)
		types |= T(EXCEPTION) | T(INTERRUPT) | T(INDCALL) |
			 T(DIRCALL) | T(CORSWAP);
	if (bst & PERF_SAMPLE_BRANCH_ANY_RETURN)
		types |= T(TRAP_RETURN) | T(RETURN) | T(CORSWAP);
	if (bst & PERF_SAMPLE_BRANCH_IND_CALL)
		types |= T(INDCALL);
	if (bst & PERF_SAMPLE_BRANCH_CALL)
		types |= T(DIRCALL);
	if (bst & PERF_SAMPLE_BRANCH_IND_JUMP)
		types |= T(INDJUMP) | T(INDLJUMP);
	if (bst & PERF_SAMPLE_BRANCH_COND)
		types |= T(BRANCH_T);
	return types;
}

/*
 * Every branch_sample_type perf can send (all the bits below MAX), with
 * and without the not_taken format attribute.
 */
static void ctr_test_request_all(struct kunit *test)
{
	const u64 unsupported = PERF_SAMPLE_BRANCH_ABORT_TX |
		PERF_SAMPLE_BRANCH_IN_TX | PERF_SAMPLE_BRANCH_NO_TX |
		PERF_SAMPLE_BRANCH_COUNTERS;
	const u64 conds = PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_ANY;
	const u32 calls = BIT(8) | BIT(9) | BIT(12);
	unsigned int bad = 0, accepted = 0;
	u64 bst;
	int nt;

	for (nt = 0; nt < 2; nt++) {
		for (bst = 0; bst < PERF_SAMPLE_BRANCH_MAX; bst++) {
			u32 types = ctr_test_expected_types(bst), priv = 0, req = 0;
			int want = 0, ret;

			if (bst & PERF_SAMPLE_BRANCH_USER)
				priv |= CTR_REQ_U;
			if (bst & (PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV))
				priv |= CTR_REQ_S;
			if (bst & unsupported) {
				want = -EOPNOTSUPP;
			} else if (bst & PERF_SAMPLE_BRANCH_CALL_STACK) {
				/* A user call stack, without type filters. */
				if (types || nt)
					want = -EINVAL;
				else if (priv & CTR_REQ_S)
					want = -EOPNOTSUPP;
				else if (!priv)
					want = -EINVAL;
				types = calls | CTR_REQ_CALLSTACK;
			} else if (nt && !(bst & conds)) {
				want = -EINVAL;
			} else if (!types || !priv) {
				want = -EINVAL;
			}
			/* Not-taken branches only when asked for. */
			if (nt)
				types |= T(BRANCH_NT);

			ret = riscv_ctr_request(bst, nt, &req);
			if (ret != want || (!ret && req != (types | priv))) {
				if (!bad++)
					kunit_err(test, "bst %#llx nt %d: %d %#x, want %d %#x\n",
						  bst, nt, ret, req, want, types | priv);
			}
			accepted += !ret;
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	kunit_info(test, "%u of %llu filter combinations accepted\n",
		   accepted, 2 * (u64)PERF_SAMPLE_BRANCH_MAX);
}

/* The inhibit bit of each type, again written out independently. */
static const u64 ctr_test_inhibit[CTR_NR_TYPES] = {
	[1] = BIT_ULL(33), [2] = BIT_ULL(34), [3] = BIT_ULL(35),
	[5] = BIT_ULL(37), [8] = BIT_ULL(40), [9] = BIT_ULL(41),
	[10] = BIT_ULL(42), [11] = BIT_ULL(43), [12] = BIT_ULL(44),
	[13] = BIT_ULL(45), [14] = BIT_ULL(46), [15] = BIT_ULL(47),
};

static void ctr_test_ctl(struct kunit *test)
{
	u64 all = CTRCTL_U | CTRCTL_S | CTRCTL_LCOFIFRZ | CTRCTL_NTBREN;
	unsigned int t, bad = 0;
	unsigned long flags;
	u64 writable;
	u32 types;

	if (!riscv_ctr_num_branches())
		kunit_skip(test, "the writable sctrctl bits are probed on CTR harts");

	for (t = 0; t < CTR_NR_TYPES; t++)
		all |= ctr_test_inhibit[t];

	/* The optional fields this hart implements: they read back. */
	local_irq_save(flags);
	csr_write(CSR_SCTRCTL, all & ~(CTRCTL_U | CTRCTL_S));
	writable = csr_read(CSR_SCTRCTL) | CTRCTL_U | CTRCTL_S;
	csr_write(CSR_SCTRCTL, 0);
	local_irq_restore(flags);

	for (types = 0; types <= CTR_REQ_TYPES; types++) {
		u32 req = types | ((types & 1) ? CTR_REQ_U : CTR_REQ_S);
		u64 ctl = riscv_ctr_ctl(req), want;

		want = CTRCTL_LCOFIFRZ | ((types & 1) ? CTRCTL_U : CTRCTL_S);
		for (t = 0; t < CTR_NR_TYPES; t++)
			if (!(types & BIT(t)))
				want |= ctr_test_inhibit[t];
		/* With kernel branches, interrupts are always recorded. */
		if (!(types & 1))
			want &= ~ctr_test_inhibit[CTR_TYPE_INTERRUPT];
		if (types & T(BRANCH_NT))
			want |= CTRCTL_NTBREN;
		/* Bits the hart lacks read 0: the driver must not set them. */
		want &= writable;
		if ((ctl & all) != want || (ctl & ~all)) {
			if (!bad++)
				kunit_err(test, "types %#x: ctl %#llx, want %#llx\n",
					  types, ctl, want);
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
}

/* A user call stack: RASEMU and U, whatever types the request holds. */
static void ctr_test_ctl_callstack(struct kunit *test)
{
	const u64 want = CTRCTL_LCOFIFRZ | CTRCTL_RASEMU | CTRCTL_U;
	unsigned long flags;
	u64 writable;

	if (!riscv_ctr_num_branches())
		kunit_skip(test, "the writable sctrctl bits are probed on CTR harts");

	local_irq_save(flags);
	csr_write(CSR_SCTRCTL, CTRCTL_LCOFIFRZ | CTRCTL_RASEMU);
	writable = csr_read(CSR_SCTRCTL) | CTRCTL_U;
	csr_write(CSR_SCTRCTL, 0);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, riscv_ctr_ctl(CTR_REQ_CALLSTACK | CTR_REQ_U |
					    T(INDCALL) | T(DIRCALL) | T(CORSWAP)),
			want & writable);
	KUNIT_EXPECT_EQ(test, riscv_ctr_ctl(CTR_REQ_CALLSTACK | CTR_REQ_U |
					    CTR_REQ_TYPES),
			want & writable);
}

static void ctr_test_cycles(struct kunit *test)
{
	static const u32 ccms[] = { 0, 1, 2047, 4095 };
	unsigned int cce, i;

	for (cce = 0; cce < 16; cce++) {
		for (i = 0; i < ARRAY_SIZE(ccms); i++) {
			u64 data = CTRDATA_CCV | FIELD_PREP(CTRDATA_CCE, cce) |
				   FIELD_PREP(CTRDATA_CCM, ccms[i]);
			u64 want = cce ? (4096ULL + ccms[i]) * (1ULL << (cce - 1)) :
				   ccms[i];

			KUNIT_EXPECT_EQ_MSG(test, riscv_ctr_cycles(data), want,
					    "CCE %u CCM %u", cce, ccms[i]);
			/* Without CCV the count is not to be trusted. */
			KUNIT_EXPECT_EQ(test, riscv_ctr_cycles(data & ~CTRDATA_CCV), 0);
		}
	}
	/* The largest value: every bit of the field set. */
	KUNIT_EXPECT_EQ(test, riscv_ctr_cycles(CTRDATA_CCV | CTRDATA_CC), 134201344);
}

static void ctr_test_decode_one(struct kunit *test, unsigned int type,
				struct perf_branch_entry *e)
{
	struct riscv_ctr_entry raw = {
		.source = 0x1000 | CTRSOURCE_VALID,
		.target = 0x2000,
		.data = type,
	};

	KUNIT_ASSERT_EQ(test, riscv_ctr_decode(&raw, 1, CTR_REQ_TYPES | CTR_REQ_U,
					       PERF_SAMPLE_BRANCH_TYPE_SAVE, e), 1);
}

static void ctr_test_types(struct kunit *test)
{
	static const struct { u8 type, new_type; } want[CTR_NR_TYPES] = {
		[0] = { PERF_BR_UNKNOWN },	[1] = { PERF_BR_SYSCALL },
		[2] = { PERF_BR_IRQ },		[3] = { PERF_BR_ERET },
		[4] = { PERF_BR_COND },		[5] = { PERF_BR_COND },
		[6] = { PERF_BR_UNKNOWN },	[7] = { PERF_BR_UNKNOWN },
		[8] = { PERF_BR_IND_CALL },	[9] = { PERF_BR_CALL },
		[10] = { PERF_BR_IND },		[11] = { PERF_BR_UNCOND },
		[12] = { PERF_BR_EXTEND_ABI, PERF_BR_NEW_ARCH_1 },
		[13] = { PERF_BR_RET },
		[14] = { PERF_BR_EXTEND_ABI, PERF_BR_NEW_ARCH_2 },
		[15] = { PERF_BR_EXTEND_ABI, PERF_BR_NEW_ARCH_3 },
	};
	struct perf_branch_entry e;
	unsigned int t;

	for (t = 0; t < CTR_NR_TYPES; t++) {
		ctr_test_decode_one(test, t, &e);
		KUNIT_EXPECT_EQ_MSG(test, (u32)e.type, want[t].type, "type %u", t);
		KUNIT_EXPECT_EQ_MSG(test, (u32)e.new_type, want[t].new_type, "type %u", t);
	}
}

/* Which records an event gets, by type and by the privilege of each end. */
static void ctr_test_filter(struct kunit *test)
{
	const u64 k = 0xffffffff80000000ULL;
	const struct riscv_ctr_entry raw[] = {
		{ 0x1000 | CTRSOURCE_VALID, 0x2000, CTR_TYPE_DIRCALL },
		{ 0x1000 | CTRSOURCE_VALID, k | 0x100, CTR_TYPE_EXCEPTION },
		{ k | 0x200 | CTRSOURCE_VALID, k | 0x300, CTR_TYPE_RETURN },
		{ k | 0x400 | CTRSOURCE_VALID, 0x1004, CTR_TYPE_TRAP_RETURN },
		{ 0 | CTRSOURCE_VALID, k | 0x500, CTR_TYPE_INTERRUPT },
		{ k | 0x600 | CTRSOURCE_VALID, 0, CTR_TYPE_TRAP_RETURN },
	};
	struct perf_branch_entry out[ARRAY_SIZE(raw)];
	unsigned int n, i;

	n = riscv_ctr_decode(raw, ARRAY_SIZE(raw), CTR_REQ_TYPES | CTR_REQ_U, 0, out);
	KUNIT_EXPECT_EQ(test, n, 1);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_GE(test, (s64)out[i].from, 0);
		KUNIT_EXPECT_GE(test, (s64)out[i].to, 0);
	}
	n = riscv_ctr_decode(raw, ARRAY_SIZE(raw), CTR_REQ_TYPES | CTR_REQ_S, 0, out);
	KUNIT_EXPECT_EQ(test, n, 3);
	n = riscv_ctr_decode(raw, ARRAY_SIZE(raw),
			     CTR_REQ_TYPES | CTR_REQ_U | CTR_REQ_S, 0, out);
	KUNIT_EXPECT_EQ(test, n, ARRAY_SIZE(raw));
	n = riscv_ctr_decode(raw, ARRAY_SIZE(raw),
			     T(TRAP_RETURN) | CTR_REQ_U | CTR_REQ_S, 0, out);
	KUNIT_EXPECT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, out[0].from, k | 0x400);
	KUNIT_EXPECT_EQ(test, out[1].to, 0);
}

static struct kunit_case ctr_decode_cases[] = {
	KUNIT_CASE(ctr_test_request_all),
	KUNIT_CASE(ctr_test_ctl),
	KUNIT_CASE(ctr_test_ctl_callstack),
	KUNIT_CASE(ctr_test_cycles),
	KUNIT_CASE(ctr_test_types),
	KUNIT_CASE(ctr_test_filter),
	{}
};

static struct kunit_suite ctr_decode_suite = {
	.name = "riscv_ctr_decode",
	.test_cases = ctr_decode_cases,
};

/*
 * The hardware index of a sample: the place of its youngest record, when
 * its records are consecutive in the buffer, else -1.
 */
static void ctr_test_hw_idx(struct kunit *test)
{
	const u64 k = 0xffffffff80000000ULL;
	const struct riscv_ctr_entry raw[] = {
		{ k | 0x100 | CTRSOURCE_VALID, k | 0x200, CTR_TYPE_RETURN },
		{ 0x1000 | CTRSOURCE_VALID, 0x2000, CTR_TYPE_DIRCALL },
		{ 0x2000 | CTRSOURCE_VALID, 0x3000, CTR_TYPE_DIRCALL },
		{ k | 0x300 | CTRSOURCE_VALID, k | 0x400, CTR_TYPE_RETURN },
		{ 0x3000 | CTRSOURCE_VALID, 0x4000, CTR_TYPE_DIRCALL },
	};
	unsigned int mask = riscv_ctr_num_branches() - 1;
	const u32 u = CTR_REQ_TYPES | CTR_REQ_U, s = CTR_REQ_TYPES | CTR_REQ_S;

	/* Everything: the place of raw[0], also across the wrap. */
	KUNIT_EXPECT_EQ(test, riscv_ctr_hw_idx(raw, 5, u | s, 7), 7);
	KUNIT_EXPECT_EQ(test, riscv_ctr_hw_idx(raw, 5, u | s, 0), 0);
	/* User records 1 and 2 are consecutive; 4 is after a gap. */
	KUNIT_EXPECT_EQ(test, riscv_ctr_hw_idx(raw, 3, u, 7), 6);
	KUNIT_EXPECT_EQ(test, riscv_ctr_hw_idx(raw, 3, u, 0), mask);
	KUNIT_EXPECT_EQ(test, riscv_ctr_hw_idx(raw, 5, u, 7), -1ULL);
	/* Kernel records 0 and 3 are not consecutive either. */
	KUNIT_EXPECT_EQ(test, riscv_ctr_hw_idx(raw, 5, s, 7), -1ULL);
	KUNIT_EXPECT_EQ(test, riscv_ctr_hw_idx(raw, 1, s, 7), 7);
	/* No record taken, or none there: -1. */
	KUNIT_EXPECT_EQ(test, riscv_ctr_hw_idx(raw, 1, u, 7), -1ULL);
	KUNIT_EXPECT_EQ(test, riscv_ctr_hw_idx(raw, 0, u | s, 7), -1ULL);
}

/*
 * The read path on records written into the buffer, with what QEMU never
 * records itself: cycle counts and mispredict bits.
 */
static void ctr_test_read_synthetic(struct kunit *test)
{
	const u64 k = 0xffffffff80000000ULL;
	const struct riscv_ctr_entry in[] = {
		{ 0x10000 | CTRSOURCE_VALID, 0x20000 | CTRTARGET_MISP,
		  CTR_TYPE_DIRCALL | CTRDATA_CCV | FIELD_PREP(CTRDATA_CCE, 2) |
		  FIELD_PREP(CTRDATA_CCM, 5) },
		{ 0x20010 | CTRSOURCE_VALID, 0x10004,
		  CTR_TYPE_RETURN | CTRDATA_CCV | FIELD_PREP(CTRDATA_CCM, 100) },
		{ k | 0x1000 | CTRSOURCE_VALID, k | 0x2000,
		  CTR_TYPE_BRANCH_T | FIELD_PREP(CTRDATA_CCM, 7) },
		{ 0x30000 | CTRSOURCE_VALID, 0x30004,
		  CTR_TYPE_CORSWAP | CTRDATA_CCV | CTRDATA_CC },
	};
	struct riscv_ctr_entry *raw;
	struct perf_branch_entry *out;
	unsigned long flags;
	unsigned int i, nr, n;

	raw = kunit_kcalloc(test, riscv_ctr_num_branches(), sizeof(*raw), GFP_KERNEL);
	out = kunit_kcalloc(test, riscv_ctr_num_branches(), sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, raw);
	KUNIT_ASSERT_NOT_NULL(test, out);

	local_irq_save(flags);
	riscv_ctr_clear();
	for (i = 0; i < ARRAY_SIZE(in); i++)
		ctr_test_write(i, &in[i]);
	nr = riscv_ctr_read_entries(raw);
	riscv_ctr_clear();
	local_irq_restore(flags);

	KUNIT_ASSERT_EQ(test, nr, ARRAY_SIZE(in));

	n = riscv_ctr_decode(raw, nr, CTR_REQ_TYPES | CTR_REQ_U,
			     PERF_SAMPLE_BRANCH_TYPE_SAVE |
			     PERF_SAMPLE_BRANCH_PRIV_SAVE, out);
	KUNIT_ASSERT_EQ(test, n, 3);	/* the kernel record is left out */
	KUNIT_EXPECT_EQ(test, out[0].from, 0x10000);
	KUNIT_EXPECT_EQ(test, out[0].to, 0x20000);
	KUNIT_EXPECT_EQ(test, (u32)out[0].mispred, 1);
	KUNIT_EXPECT_EQ(test, (u32)out[0].predicted, 0);
	KUNIT_EXPECT_EQ(test, (u32)out[0].cycles, (4096 + 5) << 1);
	KUNIT_EXPECT_EQ(test, (u32)out[0].type, PERF_BR_CALL);
	KUNIT_EXPECT_EQ(test, (u32)out[0].priv, PERF_BR_PRIV_USER);
	KUNIT_EXPECT_EQ(test, out[1].from, 0x20010);
	KUNIT_EXPECT_EQ(test, (u32)out[1].mispred, 0);
	KUNIT_EXPECT_EQ(test, (u32)out[1].predicted, 1);
	KUNIT_EXPECT_EQ(test, (u32)out[1].cycles, 100);
	KUNIT_EXPECT_EQ(test, (u32)out[1].type, PERF_BR_RET);
	/* 134201344 cycles do not fit the 16-bit field: saturate. */
	KUNIT_EXPECT_EQ(test, (u32)out[2].cycles, 0xffff);
	KUNIT_EXPECT_EQ(test, (u32)out[2].type, PERF_BR_EXTEND_ABI);
	KUNIT_EXPECT_EQ(test, (u32)out[2].new_type, PERF_BR_NEW_ARCH_1);

	n = riscv_ctr_decode(raw, nr, CTR_REQ_TYPES | CTR_REQ_U | CTR_REQ_S,
			     PERF_SAMPLE_BRANCH_NO_FLAGS |
			     PERF_SAMPLE_BRANCH_NO_CYCLES |
			     PERF_SAMPLE_BRANCH_PRIV_SAVE, out);
	KUNIT_ASSERT_EQ(test, n, 4);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, (u32)out[i].mispred, 0);
		KUNIT_EXPECT_EQ(test, (u32)out[i].predicted, 0);
		KUNIT_EXPECT_EQ(test, (u32)out[i].cycles, 0);
		KUNIT_EXPECT_EQ(test, (u32)out[i].type, 0);
	}
	KUNIT_EXPECT_EQ(test, (u32)out[2].priv, PERF_BR_PRIV_KERNEL);
	/* CCV clear: no cycle count even when asked for. */
	n = riscv_ctr_decode(raw + 2, 1, CTR_REQ_TYPES | CTR_REQ_S, 0, out);
	KUNIT_ASSERT_EQ(test, n, 1);
	KUNIT_EXPECT_EQ(test, (u32)out[0].cycles, 0);
}

/*
 * A call stack saved from one place of the buffer comes back exactly:
 * the same records at the same logical entries, the same write pointer.
 */
static void ctr_test_save_restore(struct kunit *test)
{
	const struct riscv_ctr_entry in[] = {
		{ 0x10040 | CTRSOURCE_VALID, 0x10100, CTR_TYPE_DIRCALL },
		{ 0x10020 | CTRSOURCE_VALID, 0x10040, CTR_TYPE_INDCALL },
		{ 0x10000 | CTRSOURCE_VALID, 0x10020, CTR_TYPE_DIRCALL },
	};
	unsigned int depth = riscv_ctr_num_branches(), i, nr;
	struct riscv_ctr_entry *saved, *back;
	unsigned long flags;
	u32 status, wrptr;

	saved = kunit_kcalloc(test, depth, sizeof(*saved), GFP_KERNEL);
	back = kunit_kcalloc(test, depth, sizeof(*back), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, saved);
	KUNIT_ASSERT_NOT_NULL(test, back);

	local_irq_save(flags);
	riscv_ctr_clear();
	csr_write(CSR_SCTRSTATUS, 5);
	for (i = 0; i < ARRAY_SIZE(in); i++)
		ctr_test_write(i, &in[i]);
	nr = riscv_ctr_save(saved, &status);
	/* Another task's stack in between. */
	riscv_ctr_clear();
	csr_write(CSR_SCTRSTATUS, 1);
	ctr_test_write(0, &in[2]);
	riscv_ctr_restore(saved, nr, status);
	wrptr = csr_read(CSR_SCTRSTATUS) & SCTRSTATUS_WRPTR;
	KUNIT_EXPECT_EQ(test, riscv_ctr_read_entries(back), ARRAY_SIZE(in));
	riscv_ctr_clear();
	csr_write(CSR_SCTRSTATUS, 0);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, nr, ARRAY_SIZE(in));
	KUNIT_EXPECT_EQ(test, status & SCTRSTATUS_WRPTR, 5);
	KUNIT_EXPECT_EQ(test, wrptr, 5);
	for (i = 0; i < ARRAY_SIZE(in); i++) {
		KUNIT_EXPECT_EQ(test, back[i].source, in[i].source);
		KUNIT_EXPECT_EQ(test, back[i].target, in[i].target);
		KUNIT_EXPECT_EQ(test, back[i].data & CTRDATA_TYPE, in[i].data);
	}
}

static struct kunit_case ctr_buffer_cases[] = {
	KUNIT_CASE(ctr_test_depth),
	KUNIT_CASE(ctr_test_reset_state),
	KUNIT_CASE(ctr_test_clear),
	KUNIT_CASE(ctr_test_shallow),
	KUNIT_CASE(ctr_test_hw_idx),
	KUNIT_CASE(ctr_test_read_synthetic),
	KUNIT_CASE(ctr_test_save_restore),
	{}
};

static struct kunit_suite ctr_buffer_suite = {
	.name = "riscv_ctr_buffer",
	.init = ctr_test_init,
	.exit = ctr_test_exit,
	.test_cases = ctr_buffer_cases,
};

kunit_test_suites(&ctr_decode_suite, &ctr_buffer_suite);

MODULE_DESCRIPTION("KUnit tests of the RISC-V CTR driver");
MODULE_LICENSE("GPL");

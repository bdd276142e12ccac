// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the RISC-V Control Transfer Records driver.
 *
 * riscv_ctr_decode checks the pure parts: the filter translation, the
 * type table, the cycle count decoding and the hardware index.
 * riscv_ctr_buffer runs on the hart: the buffer operations the driver
 * relies on, its read path on synthetic records, with the cycle counts
 * and mispredict bits QEMU never records, and CPU power management.
 * Those tests run with interrupts off and leave the hart as
 * riscv_ssctr_reset() does: deepest buffer, recording off, no records.
 * riscv_ctr_model runs the probe and the read path against a software
 * model of harts that lack what QEMU has.
 */
#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/cpu_pm.h>
#include <linux/cpufeature.h>
#include <linux/irqflags.h>
#include <linux/kallsyms.h>
#include <linux/perf/riscv_pmu.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <asm/csr.h>

#include "riscv_ctr.h"

static void ssctr_test_read(unsigned int idx, struct riscv_ssctr_entry *e)
{
	lockdep_assert_irqs_disabled();
	csr_write(CSR_SISELECT, CTR_ENTRY_SISELECT + idx);
	e->source = csr_read(CSR_SIREG);
	e->target = csr_read(CSR_SIREG2);
	e->data = csr_read(CSR_SIREG3);
}

static void ssctr_test_write(unsigned int idx, const struct riscv_ssctr_entry *e)
{
	lockdep_assert_irqs_disabled();
	csr_write(CSR_SISELECT, CTR_ENTRY_SISELECT + idx);
	csr_write(CSR_SIREG, e->source);
	csr_write(CSR_SIREG2, e->target);
	csr_write(CSR_SIREG3, e->data);
}

/* A hart with every optional part of CTR, for the pure parts. */
static const struct riscv_ssctr_caps ssctr_test_full = {
	.entries = SSCTR_MAX_ENTRIES,
	.depth = SCTRDEPTH_MAX,
	.depths = GENMASK(SCTRDEPTH_MAX, 0),
	.ctl = ~0ULL,
	.type = true,
	.misp = true,
	.cycles = true,
	.frozen_writable = true,
};

static unsigned int ssctr_test_decode(const struct riscv_ssctr_caps *caps,
				      const struct riscv_ssctr_entry *raw,
				      unsigned int nr, u32 request, u64 bst,
				      struct perf_branch_entry *out,
				      int *youngest);
static unsigned int ssctr_test_decode_all(const struct riscv_ssctr_entry *raw,
					  unsigned int nr, u64 bst,
					  struct perf_branch_entry *out);
static unsigned int ssctr_test_after_irq_on(bool type,
					    const struct riscv_ssctr_entry *raw,
					    unsigned int nr, u64 ctl,
					    unsigned long irq_pc);

static int ssctr_test_init(struct kunit *test)
{
	if (!riscv_ssctr_num_branches())
		kunit_skip(test, "no control transfer records on this hart");
	return 0;
}

static void ssctr_test_exit(struct kunit *test)
{
	unsigned long flags;

	/* A per-CPU operation, as in the CPU hotplug callbacks. */
	if (riscv_ssctr_num_branches()) {
		local_irq_save(flags);
		riscv_ssctr_reset();
		local_irq_restore(flags);
	}
}

static void ssctr_test_depth(struct kunit *test)
{
	unsigned int n = riscv_ssctr_num_branches();
	unsigned long depth = FIELD_GET(SCTRDEPTH_DEPTH, csr_read(CSR_SCTRDEPTH));

	KUNIT_EXPECT_TRUE(test, is_power_of_2(n));
	KUNIT_EXPECT_GE(test, n, SSCTR_DEPTH_ENTRIES(0));
	KUNIT_EXPECT_LE(test, n, SSCTR_MAX_ENTRIES);
	KUNIT_EXPECT_EQ(test, SSCTR_DEPTH_ENTRIES(depth), n);
}

/* Reset leaves recording off, the buffer unfrozen and every entry empty. */
static void ssctr_test_reset_state(struct kunit *test)
{
	struct riscv_ssctr_entry e;
	unsigned long flags;
	unsigned int i, dirty = 0;

	local_irq_save(flags);
	/* Stale guest enables, as firmware or a previous kernel may leave. */
	if (riscv_has_extension_unlikely(RISCV_ISA_EXT_H))
		csr_write(CSR_VSCTRCTL, CTRCTL_U | CTRCTL_S);
	riscv_ssctr_reset();
	KUNIT_EXPECT_EQ(test, csr_read(CSR_SCTRCTL), 0);
	if (riscv_has_extension_unlikely(RISCV_ISA_EXT_H))
		KUNIT_EXPECT_EQ(test, csr_read(CSR_VSCTRCTL), 0);
	KUNIT_EXPECT_EQ(test, csr_read(CSR_SCTRSTATUS) & SCTRSTATUS_FROZEN, 0);
	for (i = 0; i < riscv_ssctr_num_branches(); i++) {
		ssctr_test_read(i, &e);
		if (e.source | e.target | e.data)
			dirty++;
	}
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, dirty, 0);
}

/* Does this hart record transfer types? Without TYPE the field reads 0. */
static bool ssctr_test_hart_type(void)
{
	struct riscv_ssctr_caps hart;
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	ret = riscv_ssctr_probe_caps(riscv_ssctr_num_branches(), &hart);
	local_irq_restore(flags);
	return !ret && hart.type;
}

/* SCTRCLR wipes every entry, including the oldest, while frozen or not. */
static void ssctr_test_clear(struct kunit *test)
{
	unsigned int last = riscv_ssctr_num_branches() - 1;
	struct riscv_ssctr_entry in = {
		.source = 0xffffffff80001234ULL | CTRSOURCE_VALID,
		.target = 0xffffffff80005678ULL | CTRTARGET_MISP,
		.data = CTR_TYPE_DIRCALL,
	};
	const u64 type = ssctr_test_hart_type() ? in.data : 0;
	struct riscv_ssctr_entry out0, outn;
	unsigned long flags;

	local_irq_save(flags);
	ssctr_test_write(0, &in);
	ssctr_test_write(last, &in);
	ssctr_test_read(0, &out0);
	riscv_ssctr_clear();
	ssctr_test_read(last, &outn);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, out0.source, in.source);
	KUNIT_EXPECT_EQ(test, out0.target & SSCTR_PC_MASK, in.target & SSCTR_PC_MASK);
	KUNIT_EXPECT_EQ(test, out0.data & CTRDATA_TYPE, type);
	KUNIT_EXPECT_EQ(test, outn.source, 0);
	KUNIT_EXPECT_EQ(test, outn.target, 0);
	KUNIT_EXPECT_EQ(test, outn.data, 0);
}

/* Entries at and beyond a smaller depth read zero and ignore writes. */
static void ssctr_test_shallow(struct kunit *test)
{
	struct riscv_ssctr_entry in = {
		.source = 0x10000ULL | CTRSOURCE_VALID,
		.target = 0x20000ULL,
		.data = CTR_TYPE_BRANCH_T,
	};
	struct riscv_ssctr_entry out;
	unsigned long flags;

	if (riscv_ssctr_num_branches() == SSCTR_DEPTH_ENTRIES(0))
		kunit_skip(test, "the hart only has the smallest depth");

	local_irq_save(flags);
	csr_write(CSR_SCTRDEPTH, 0);
	riscv_ssctr_clear();
	ssctr_test_write(SSCTR_DEPTH_ENTRIES(0), &in);
	ssctr_test_read(SSCTR_DEPTH_ENTRIES(0), &out);
	riscv_ssctr_reset();
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, out.source, 0);
	KUNIT_EXPECT_EQ(test, out.data, 0);
}

#define T(t)	BIT(CTR_TYPE_##t)

/*
 * What each perf filter must record, written out again here so that a
 * change to the driver's table shows up as a failure.
 */
static u32 ssctr_test_expected_types(u64 bst)
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
static void ssctr_test_request_all(struct kunit *test)
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
			u32 types = ssctr_test_expected_types(bst), priv = 0, req = 0;
			int want = 0, ret;

			if (bst & PERF_SAMPLE_BRANCH_USER)
				priv |= SSCTR_REQ_U;
			if (bst & (PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV))
				priv |= SSCTR_REQ_S;
			if (bst & unsupported) {
				want = -EOPNOTSUPP;
			} else if (bst & PERF_SAMPLE_BRANCH_CALL_STACK) {
				/* A user call stack, without type filters. */
				if (types || nt)
					want = -EINVAL;
				else if (priv & SSCTR_REQ_S)
					want = -EOPNOTSUPP;
				else if (!priv)
					want = -EINVAL;
				types = calls | SSCTR_REQ_CALLSTACK;
			} else if (nt && !(bst & conds)) {
				want = -EINVAL;
			} else if (!types || !priv) {
				want = -EINVAL;
			}
			/* Not-taken branches only when asked for. */
			if (nt)
				types |= T(BRANCH_NT);

			ret = riscv_ssctr_request(bst, nt, &req);
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
static const u64 ssctr_test_inhibit[SSCTR_NR_TYPES] = {
	[1] = BIT_ULL(33), [2] = BIT_ULL(34), [3] = BIT_ULL(35),
	[5] = BIT_ULL(37), [8] = BIT_ULL(40), [9] = BIT_ULL(41),
	[10] = BIT_ULL(42), [11] = BIT_ULL(43), [12] = BIT_ULL(44),
	[13] = BIT_ULL(45), [14] = BIT_ULL(46), [15] = BIT_ULL(47),
};

static void ssctr_test_ctl(struct kunit *test)
{
	u64 all = CTRCTL_U | CTRCTL_S | CTRCTL_LCOFIFRZ | CTRCTL_NTBREN;
	unsigned int t, bad = 0;
	unsigned long flags;
	struct riscv_ssctr_caps caps = ssctr_test_full;
	u32 types;

	if (!riscv_ssctr_num_branches())
		kunit_skip(test, "the writable sctrctl bits are probed on CTR harts");

	for (t = 0; t < SSCTR_NR_TYPES; t++)
		all |= ssctr_test_inhibit[t];

	/* The optional fields this hart implements: they read back. */
	local_irq_save(flags);
	csr_write(CSR_SCTRCTL, all & ~(CTRCTL_U | CTRCTL_S));
	caps.ctl = csr_read(CSR_SCTRCTL) | CTRCTL_U | CTRCTL_S;
	csr_write(CSR_SCTRCTL, 0);
	local_irq_restore(flags);

	for (types = 0; types <= SSCTR_REQ_TYPES; types++) {
		u32 req = types | ((types & 1) ? SSCTR_REQ_U : SSCTR_REQ_S);
		u64 ctl = riscv_ssctr_ctl(&caps, req), want;

		want = CTRCTL_LCOFIFRZ | ((types & 1) ? CTRCTL_U : CTRCTL_S);
		for (t = 0; t < SSCTR_NR_TYPES; t++)
			if (!(types & BIT(t)))
				want |= ssctr_test_inhibit[t];
		/* With kernel branches, interrupts are always recorded. */
		if (!(types & 1))
			want &= ~ssctr_test_inhibit[CTR_TYPE_INTERRUPT];
		if (types & T(BRANCH_NT))
			want |= CTRCTL_NTBREN;
		/* Bits the hart lacks read 0: the driver must not set them. */
		want &= caps.ctl;
		if ((ctl & all) != want || (ctl & ~all)) {
			if (!bad++)
				kunit_err(test, "types %#x: ctl %#llx, want %#llx\n",
					  types, ctl, want);
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
}

/* A user call stack: RASEMU and U, whatever types the request holds. */
static void ssctr_test_ctl_callstack(struct kunit *test)
{
	const u64 want = CTRCTL_LCOFIFRZ | CTRCTL_RASEMU | CTRCTL_U;
	struct riscv_ssctr_caps caps = ssctr_test_full;
	unsigned long flags;

	if (!riscv_ssctr_num_branches())
		kunit_skip(test, "the writable sctrctl bits are probed on CTR harts");

	local_irq_save(flags);
	csr_write(CSR_SCTRCTL, CTRCTL_LCOFIFRZ | CTRCTL_RASEMU);
	caps.ctl = csr_read(CSR_SCTRCTL) | CTRCTL_U;
	csr_write(CSR_SCTRCTL, 0);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, riscv_ssctr_ctl(&caps, SSCTR_REQ_CALLSTACK | SSCTR_REQ_U |
					      T(INDCALL) | T(DIRCALL) | T(CORSWAP)),
			want & caps.ctl);
	KUNIT_EXPECT_EQ(test, riscv_ssctr_ctl(&caps, SSCTR_REQ_CALLSTACK | SSCTR_REQ_U |
					      SSCTR_REQ_TYPES),
			want & caps.ctl);
}

static void ssctr_test_cycles(struct kunit *test)
{
	static const u32 ccms[] = { 0, 1, 2047, 4095 };
	unsigned int cce, i;

	for (cce = 0; cce < 16; cce++) {
		for (i = 0; i < ARRAY_SIZE(ccms); i++) {
			u64 data = CTRDATA_CCV | FIELD_PREP(CTRDATA_CCE, cce) |
				   FIELD_PREP(CTRDATA_CCM, ccms[i]);
			u64 want = cce ? (4096ULL + ccms[i]) * (1ULL << (cce - 1)) :
				   ccms[i];

			KUNIT_EXPECT_EQ_MSG(test, riscv_ssctr_cycles(data), want,
					    "CCE %u CCM %u", cce, ccms[i]);
			/* Without CCV the count is not to be trusted. */
			KUNIT_EXPECT_EQ(test, riscv_ssctr_cycles(data & ~CTRDATA_CCV), 0);
		}
	}
	/* The largest value: every bit of the field set. */
	KUNIT_EXPECT_EQ(test, riscv_ssctr_cycles(CTRDATA_CCV | CTRDATA_CC), 134201344);
}

/* The flags word of a perf branch entry with these fields, as the ABI lays it out. */
static u64 ssctr_test_word(bool mispred, bool predicted, u16 cycles)
{
	struct perf_branch_entry e = {
		.mispred = mispred, .predicted = predicted, .cycles = cycles,
	};
	u64 w[3];

	BUILD_BUG_ON(sizeof(e) != sizeof(w));
	memcpy(w, &e, sizeof(w));
	return w[2];
}

/*
 * Every CC value, with CCV set and clear, the reserved bits between
 * CCV and TYPE clear and set, MISP set and clear, the record's other
 * fields set, and each of the mispredict bits and the cycle count asked
 * for or not, as the read loops store them: the decoded count saturated
 * at 16 bits in the cycles field, mispred or predicted from MISP, abort
 * and in_tx never set.
 */
static void ssctr_test_flags_word(struct kunit *test)
{
	static const u64 reserved[] = { 0, GENMASK_ULL(14, 12), BIT_ULL(12) };
	unsigned int cc, ccv, v, bad = 0;

	for (cc = 0; cc <= 0xffff; cc++) {
		for (ccv = 0; ccv < 2; ccv++) {
			u64 data = FIELD_PREP(CTRDATA_CC, cc) | CTRDATA_TYPE |
				   (ccv ? CTRDATA_CCV : 0);
			u64 cce = cc >> 12, ccm = cc & 0xfff;
			u64 count = cce ? (4096 + ccm) << (cce - 1) : ccm;

			count = ccv ? min(count, 0xffffULL) : 0;
			/* Bit 0 MISP, bit 1 flags, bit 2 cycles, the rest reserved[]. */
			for (v = 0; v < 8 * ARRAY_SIZE(reserved); v++) {
				bool misp = v & 1, fl = v & 2, cy = v & 4;
				u64 res = reserved[v / 8];
				u64 to = 0x2000 | (misp ? CTRTARGET_MISP : 0);
				u64 want = ssctr_test_word(fl && misp, fl && !misp,
							   cy ? count : 0);
				u64 got = riscv_ssctr_flags_word(to, data | res, fl, cy);

				if (got == want)
					continue;
				if (!bad++)
					KUNIT_FAIL(test,
						   "CC %#x CCV %u reserved %#llx MISP %u flags %u cycles %u: %#llx, not %#llx",
						   cc, ccv, res, misp, fl, cy, got, want);
			}
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
}

static void ssctr_test_decode_one(struct kunit *test, unsigned int type,
				  struct perf_branch_entry *e)
{
	struct riscv_ssctr_entry raw = {
		.source = 0x1000 | CTRSOURCE_VALID,
		.target = 0x2000,
		.data = type,
	};

	int youngest;

	KUNIT_ASSERT_EQ(test, ssctr_test_decode(&ssctr_test_full, &raw, 1,
					       SSCTR_REQ_TYPES | SSCTR_REQ_U,
					       PERF_SAMPLE_BRANCH_TYPE_SAVE, e,
					       &youngest), 1);
}

static void ssctr_test_types(struct kunit *test)
{
	static const struct { u8 type, new_type; } want[SSCTR_NR_TYPES] = {
		/* The source, 0x1000, cannot be read: see exception_types. */
		[0] = { PERF_BR_UNKNOWN },
		[1] = { PERF_BR_EXTEND_ABI, PERF_BR_NEW_FAULT_INST },
		[2] = { PERF_BR_IRQ },		[3] = { PERF_BR_ERET },
		[4] = { PERF_BR_EXTEND_ABI, PERF_BR_RISCV_NOT_TAKEN },
		[5] = { PERF_BR_COND },
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

	for (t = 0; t < SSCTR_NR_TYPES; t++) {
		ssctr_test_decode_one(test, t, &e);
		KUNIT_EXPECT_EQ_MSG(test, (u32)e.type, want[t].type, "type %u", t);
		KUNIT_EXPECT_EQ_MSG(test, (u32)e.new_type, want[t].new_type, "type %u", t);
	}
}

/* Instructions that take exceptions, as a record's source points at them. */
static const u16 ssctr_test_exc_insns[] __aligned(4) = {
	0x0073, 0x0000,		/* ecall */
	0xb503, 0x0005,		/* ld a0, 0(a1) */
	0xa023, 0x00a5,		/* sw a0, 0(a1) */
	0x0073, 0x0010,		/* ebreak */
	0x4188,			/* c.lw a0, 0(a1) */
	0x9002,			/* c.ebreak */
	0x0000,			/* illegal */
};

/*
 * An exception is a system call only when it is an ecall: the others are
 * told by the instruction at the source, or by its being unreadable.
 */
static void ssctr_test_exception_types(struct kunit *test)
{
	const u64 base = (u64)(uintptr_t)ssctr_test_exc_insns;
	/* An offset past the instructions: an unmapped source instead. */
	const unsigned int unmapped = sizeof(ssctr_test_exc_insns);
	static const struct {
		unsigned int offset;
		u8 type, new_type;
	} want[] = {
		{ 0, PERF_BR_SYSCALL },
		{ 4, PERF_BR_EXTEND_ABI, PERF_BR_NEW_FAULT_DATA },
		{ 8, PERF_BR_EXTEND_ABI, PERF_BR_NEW_FAULT_DATA },
		{ 12, PERF_BR_EXTEND_ABI, PERF_BR_RISCV_EXCEPTION },
		{ 16, PERF_BR_EXTEND_ABI, PERF_BR_NEW_FAULT_DATA },
		{ 18, PERF_BR_EXTEND_ABI, PERF_BR_RISCV_EXCEPTION },
		{ 20, PERF_BR_EXTEND_ABI, PERF_BR_RISCV_EXCEPTION },
		/* The fetch itself faulted. */
		{ sizeof(ssctr_test_exc_insns), PERF_BR_EXTEND_ABI,
		  PERF_BR_NEW_FAULT_INST },
	};
	struct perf_branch_entry e;
	unsigned int i;
	int y;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		u64 source = want[i].offset == unmapped ? (u64)-PAGE_SIZE :
			     base + want[i].offset;
		struct riscv_ssctr_entry raw = {
			.source = source | CTRSOURCE_VALID,
			.target = 0xffffffff80001000ULL,
			.data = CTR_TYPE_EXCEPTION,
		};

		KUNIT_ASSERT_EQ(test, ssctr_test_decode(&ssctr_test_full, &raw, 1,
						       SSCTR_REQ_TYPES | SSCTR_REQ_S,
						       PERF_SAMPLE_BRANCH_TYPE_SAVE,
						       &e, &y), 1);
		KUNIT_EXPECT_EQ_MSG(test, (u32)e.type, want[i].type,
				    "offset %u", want[i].offset);
		KUNIT_EXPECT_EQ_MSG(test, (u32)e.new_type, want[i].new_type,
				    "offset %u", want[i].offset);
	}
}

/* Which records an event gets, by type and by the privilege of each end. */
static void ssctr_test_filter(struct kunit *test)
{
	const u64 k = 0xffffffff80000000ULL;
	const struct riscv_ssctr_entry raw[] = {
		{ 0x1000 | CTRSOURCE_VALID, 0x2000, CTR_TYPE_DIRCALL },
		{ 0x1000 | CTRSOURCE_VALID, k | 0x100, CTR_TYPE_EXCEPTION },
		{ k | 0x200 | CTRSOURCE_VALID, k | 0x300, CTR_TYPE_RETURN },
		{ k | 0x400 | CTRSOURCE_VALID, 0x1004, CTR_TYPE_TRAP_RETURN },
		{ 0 | CTRSOURCE_VALID, k | 0x500, CTR_TYPE_INTERRUPT },
		{ k | 0x600 | CTRSOURCE_VALID, 0, CTR_TYPE_TRAP_RETURN },
	};
	const struct riscv_ssctr_caps *caps = &ssctr_test_full;
	struct perf_branch_entry out[ARRAY_SIZE(raw)];
	unsigned int n, i;
	int y;

	n = ssctr_test_decode(caps, raw, ARRAY_SIZE(raw), SSCTR_REQ_TYPES | SSCTR_REQ_U,
			     0, out, &y);
	KUNIT_EXPECT_EQ(test, n, 1);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_GE(test, (s64)out[i].from, 0);
		KUNIT_EXPECT_GE(test, (s64)out[i].to, 0);
	}
	/* Kernel only: a user end reads 0, as it would for S alone. */
	n = ssctr_test_decode(caps, raw, ARRAY_SIZE(raw), SSCTR_REQ_TYPES | SSCTR_REQ_S,
			     0, out, &y);
	KUNIT_EXPECT_EQ(test, n, 5);
	KUNIT_EXPECT_EQ(test, out[0].from, 0);
	KUNIT_EXPECT_EQ(test, out[0].to, k | 0x100);
	KUNIT_EXPECT_EQ(test, out[2].from, k | 0x400);
	KUNIT_EXPECT_EQ(test, out[2].to, 0);
	n = ssctr_test_decode(caps, raw, ARRAY_SIZE(raw),
			     SSCTR_REQ_TYPES | SSCTR_REQ_U | SSCTR_REQ_S, 0, out, &y);
	KUNIT_EXPECT_EQ(test, n, ARRAY_SIZE(raw));
	n = ssctr_test_decode(caps, raw, ARRAY_SIZE(raw),
			     T(TRAP_RETURN) | SSCTR_REQ_U | SSCTR_REQ_S, 0, out, &y);
	KUNIT_EXPECT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, out[0].from, k | 0x400);
	KUNIT_EXPECT_EQ(test, out[1].to, 0);
}

/*
 * Events of one mode beside events of the other, which make the hart
 * record both: each event gets exactly the records the hart would have
 * made for it alone, under every type filter. For S alone the spec
 * records a trap from U with source 0 and a trap return to U with target
 * 0; for U alone (no STE) neither.
 */
static void ssctr_test_merged_priv(struct kunit *test)
{
	const u64 k = 0xffffffff80000000ULL;
	/* Each transfer, and what S alone and U alone record of it. */
	static const struct {
		u64 from, to;
		u8 type;
		u64 alone[2][2];	/* [S, U][from, to]; 0, 0: not recorded */
	} x[] = {
		{ 0x1000, 0x2000, CTR_TYPE_DIRCALL, { { 0, 0 }, { 0x1000, 0x2000 } } },
		{ 0x2004, k | 0x100, CTR_TYPE_EXCEPTION, { { 0, k | 0x100 } } },
		{ k | 0x200, k | 0x300, CTR_TYPE_DIRCALL, { { k | 0x200, k | 0x300 } } },
		{ k | 0x304, k | 0x204, CTR_TYPE_RETURN, { { k | 0x304, k | 0x204 } } },
		{ k | 0x400, 0x2008, CTR_TYPE_TRAP_RETURN, { { k | 0x400, 0 } } },
		{ 0x3000, k | 0x500, CTR_TYPE_INTERRUPT, { { 0, k | 0x500 } } },
		{ k | 0x600, 0x3000, CTR_TYPE_TRAP_RETURN, { { k | 0x600, 0 } } },
		{ 0x3004, 0x1000, CTR_TYPE_RETURN, { { 0, 0 }, { 0x3004, 0x1000 } } },
	};
	static const u32 filters[] = {
		SSCTR_REQ_TYPES,
		T(EXCEPTION) | T(INTERRUPT) | T(INDCALL) | T(DIRCALL),
		T(TRAP_RETURN) | T(RETURN),
		T(DIRCALL),
	};
	static const u32 modes[2] = { SSCTR_REQ_S, SSCTR_REQ_U };
	struct riscv_ssctr_entry raw[ARRAY_SIZE(x)];
	struct perf_branch_entry out[ARRAY_SIZE(x)];
	unsigned int i, f, m, n, want;
	int y;

	/* The buffer holds them youngest first, as U and S recorded them. */
	for (i = 0; i < ARRAY_SIZE(x); i++) {
		const unsigned int j = ARRAY_SIZE(x) - 1 - i;

		raw[i] = (struct riscv_ssctr_entry){ x[j].from | CTRSOURCE_VALID,
						   x[j].to, x[j].type };
	}
	for (f = 0; f < ARRAY_SIZE(filters); f++) {
		for (m = 0; m < ARRAY_SIZE(modes); m++) {
			n = ssctr_test_decode(&ssctr_test_full, raw, ARRAY_SIZE(raw),
					      filters[f] | modes[m], 0, out, &y);
			want = 0;
			for (i = ARRAY_SIZE(x); i-- > 0; ) {
				const u64 *e = x[i].alone[m];

				if (!(filters[f] & BIT(x[i].type)) || !(e[0] | e[1]))
					continue;
				if (want < n) {
					KUNIT_EXPECT_EQ_MSG(test, out[want].from, e[0],
							    "mode %u, filter %u, transfer %u",
							    m, f, i);
					KUNIT_EXPECT_EQ_MSG(test, out[want].to, e[1],
							    "mode %u, filter %u, transfer %u",
							    m, f, i);
				}
				want++;
			}
			KUNIT_EXPECT_EQ_MSG(test, n, want, "mode %u, filter %u", m, f);
		}
	}
}

/*
 * The hardware index of a sample comes from the index of its youngest
 * record, when its records are consecutive in the buffer, else -1.
 */
static int ssctr_test_youngest(const struct riscv_ssctr_entry *raw,
			       unsigned int nr, u32 request)
{
	struct perf_branch_entry out[8];
	int youngest;

	ssctr_test_decode(&ssctr_test_full, raw, nr, request, 0, out, &youngest);
	return youngest;
}

static void ssctr_test_hw_idx(struct kunit *test)
{
	const u64 k = 0xffffffff80000000ULL;
	const struct riscv_ssctr_entry raw[] = {
		{ k | 0x100 | CTRSOURCE_VALID, k | 0x200, CTR_TYPE_RETURN },
		{ 0x1000 | CTRSOURCE_VALID, 0x2000, CTR_TYPE_DIRCALL },
		{ 0x2000 | CTRSOURCE_VALID, 0x3000, CTR_TYPE_DIRCALL },
		{ k | 0x300 | CTRSOURCE_VALID, k | 0x400, CTR_TYPE_RETURN },
		{ 0x3000 | CTRSOURCE_VALID, 0x4000, CTR_TYPE_DIRCALL },
	};
	const u32 u = SSCTR_REQ_TYPES | SSCTR_REQ_U, s = SSCTR_REQ_TYPES | SSCTR_REQ_S;

	/* Everything: raw[0]. */
	KUNIT_EXPECT_EQ(test, ssctr_test_youngest(raw, 5, u | s), 0);
	/* User records 1 and 2 are consecutive; 4 is after a gap. */
	KUNIT_EXPECT_EQ(test, ssctr_test_youngest(raw, 3, u), 1);
	KUNIT_EXPECT_EQ(test, ssctr_test_youngest(raw, 5, u), -1);
	/* Kernel records 0 and 3 are not consecutive either. */
	KUNIT_EXPECT_EQ(test, ssctr_test_youngest(raw, 5, s), -1);
	KUNIT_EXPECT_EQ(test, ssctr_test_youngest(raw, 1, s), 0);
	/* Only calls: 1, 2 and 4 with a return between. */
	KUNIT_EXPECT_EQ(test, ssctr_test_youngest(raw, 5, T(DIRCALL) | SSCTR_REQ_U), -1);
	KUNIT_EXPECT_EQ(test, ssctr_test_youngest(raw, 4, T(DIRCALL) | SSCTR_REQ_U), 1);
	/* No record taken, or none there: -1. */
	KUNIT_EXPECT_EQ(test, ssctr_test_youngest(raw, 1, u), -1);
	KUNIT_EXPECT_EQ(test, ssctr_test_youngest(raw, 0, u | s), -1);
}

/*
 * A copy of the buffer from logical entry 3 on, as a sample makes it
 * beside other events after an unfrozen overflow: the records and the
 * hardware index are those of the same entries read from the hart.
 */
static void ssctr_test_decode_raw(struct kunit *test)
{
	const u64 k = 0xffffffff80000000ULL, v = CTRSOURCE_VALID;
	const struct riscv_ssctr_entry raw[] = {
		{ 0x1000 | v, 0x2000, CTR_TYPE_DIRCALL },
		{ k | 0x300 | v, k | 0x400, CTR_TYPE_RETURN },
		{ 0x3000 | v, 0x4000 | CTRTARGET_MISP, CTR_TYPE_DIRCALL },
	};
	const u32 all = SSCTR_REQ_TYPES | SSCTR_REQ_U | SSCTR_REQ_S;
	struct perf_branch_entry out[4];
	int youngest;

	/* Copied as they come. */
	KUNIT_ASSERT_EQ(test, riscv_ssctr_decode_raw(&ssctr_test_full, all, raw, 3,
						     3, 4, all, 0, out, &youngest), 3);
	KUNIT_EXPECT_EQ(test, youngest, 3);
	KUNIT_EXPECT_EQ(test, out[0].from, 0x1000);
	KUNIT_EXPECT_EQ(test, out[1].to, k | 0x400);
	KUNIT_EXPECT_EQ(test, out[2].to, 0x4000);
	KUNIT_EXPECT_TRUE(test, out[2].mispred);
	KUNIT_EXPECT_FALSE(test, out[0].mispred);
	/* At most @max. */
	KUNIT_EXPECT_EQ(test, riscv_ssctr_decode_raw(&ssctr_test_full, all, raw, 3,
						     3, 2, all, 0, out, &youngest), 2);
	/* User calls only: entries 3 and 5, with a gap: no hardware index. */
	KUNIT_ASSERT_EQ(test, riscv_ssctr_decode_raw(&ssctr_test_full, all, raw, 3, 3, 4,
						     T(DIRCALL) | SSCTR_REQ_U,
						     PERF_SAMPLE_BRANCH_TYPE_SAVE,
						     out, &youngest), 2);
	KUNIT_EXPECT_EQ(test, youngest, -1);
	KUNIT_EXPECT_EQ(test, out[1].from, 0x3000);
	KUNIT_EXPECT_TRUE(test, out[1].type == PERF_BR_CALL);
	/* Nothing copied (the handler's records filled the buffer). */
	KUNIT_EXPECT_EQ(test, riscv_ssctr_decode_raw(&ssctr_test_full, all, raw, 0,
						     SSCTR_MAX_ENTRIES, 4, all, 0, out,
						     &youngest), 0);
	KUNIT_EXPECT_EQ(test, youngest, -1);
}

/*
 * An event that wants every record the buffer may hold and their types
 * (perf record -j any,save_type alone on a CPU) takes the copy loop; its
 * entries are the filtering loop's but for the privilege, which it does
 * not ask for: every type, with and without MISP, short, long and no
 * cycle counts, read from the hart's registers and from a copy of them.
 */
static void ssctr_test_type_copy(struct kunit *test)
{
	const u32 all = SSCTR_REQ_PICKED;
	const u64 bst = PERF_SAMPLE_BRANCH_TYPE_SAVE;
	static const u16 cc[] = { 0, 7, 0x1fff, 0x2000, 0xffff };
	struct riscv_ssctr_entry raw[3 * SSCTR_NR_TYPES];
	struct perf_branch_entry *copy, *filtered;
	unsigned int i, n, from_raw;
	int y;

	copy = kunit_kcalloc(test, ARRAY_SIZE(raw), sizeof(*copy), GFP_KERNEL);
	filtered = kunit_kcalloc(test, ARRAY_SIZE(raw), sizeof(*filtered),
				 GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, copy);
	KUNIT_ASSERT_NOT_NULL(test, filtered);
	for (i = 0; i < ARRAY_SIZE(raw); i++) {
		raw[i].source = (0x10000 + 0x10 * i) | CTRSOURCE_VALID;
		raw[i].target = (0x20000 + 0x10 * i) | (i & 1 ? CTRTARGET_MISP : 0);
		raw[i].data = (i % SSCTR_NR_TYPES) |
			      FIELD_PREP(CTRDATA_CC, cc[i % ARRAY_SIZE(cc)]) |
			      (i % 7 ? CTRDATA_CCV : 0);
	}

	n = ssctr_test_decode_all(raw, ARRAY_SIZE(raw), bst, copy);
	KUNIT_EXPECT_EQ(test, ssctr_test_decode_all(raw, ARRAY_SIZE(raw),
						    bst | PERF_SAMPLE_BRANCH_PRIV_SAVE,
						    filtered), n);
	KUNIT_ASSERT_EQ(test, n, ARRAY_SIZE(raw));

	for (i = 0; i < n; i++) {
		filtered[i].priv = 0;
		KUNIT_EXPECT_TRUE_MSG(test, !memcmp(&copy[i], &filtered[i],
						    sizeof(copy[i])),
				      "record %u: type %u new_type %u cycles %u mispred %u, not %u %u %u %u",
				      i, copy[i].type, copy[i].new_type,
				      copy[i].cycles, copy[i].mispred,
				      filtered[i].type, filtered[i].new_type,
				      filtered[i].cycles, filtered[i].mispred);
	}

	/* From a copy of the hart's registers: the same entries. */
	from_raw = riscv_ssctr_decode_raw(&ssctr_test_full, all, raw, n, 0, n,
					  all, bst, filtered, &y);
	KUNIT_ASSERT_EQ(test, from_raw, n);
	KUNIT_EXPECT_TRUE(test, !memcmp(copy, filtered, n * sizeof(copy[0])));
}

/*
 * An overflow that arrived unfrozen, with kernel branches recorded: the
 * handler's records end with the interrupt that led to it. Its source is
 * the interrupted PC, or 0 when the interrupted mode was not recorded.
 */
static void ssctr_test_after_irq(struct kunit *test)
{
	const u64 k = 0xffffffff80000000ULL, v = CTRSOURCE_VALID;
	const unsigned long upc = 0x10200, kpc = k | 0x4000;
	const u64 s_only = CTRCTL_S, both = CTRCTL_U | CTRCTL_S;
	/* Youngest first: the handler, the interrupt, then the task's own. */
	const struct riscv_ssctr_entry from_user[] = {
		{ k | 0x900 | v, k | 0x940, CTR_TYPE_DIRCALL },
		{ k | 0x800 | v, k | 0x880, CTR_TYPE_BRANCH_T },
		{ 0 | v, k | 0x100, CTR_TYPE_INTERRUPT },
		{ k | 0x700 | v, 0, CTR_TYPE_TRAP_RETURN },
		{ k | 0x600 | v, k | 0x640, CTR_TYPE_DIRCALL },
	};
	const struct riscv_ssctr_entry at_pc[] = {
		{ k | 0x900 | v, k | 0x940, CTR_TYPE_DIRCALL },
		{ upc | v, k | 0x100, CTR_TYPE_INTERRUPT },
		{ 0x10100 | v, upc, CTR_TYPE_BRANCH_T },
	};
	const struct riscv_ssctr_entry in_kernel[] = {
		{ k | 0x900 | v, k | 0x940, CTR_TYPE_DIRCALL },
		{ kpc | v, k | 0x100, CTR_TYPE_INTERRUPT },
		{ k | 0x3000 | v, kpc, CTR_TYPE_DIRJUMP },
	};
	const struct riscv_ssctr_entry other_pc[] = {
		{ k | 0x900 | v, k | 0x940, CTR_TYPE_DIRCALL },
		{ 0x10300 | v, k | 0x100, CTR_TYPE_INTERRUPT },
		{ 0x10100 | v, 0x10300, CTR_TYPE_BRANCH_T },
	};

	/* User space interrupted while only kernel branches are recorded. */
	KUNIT_EXPECT_EQ(test, ssctr_test_after_irq_on(true, from_user, 5, s_only, upc), 3);
	/* Recording user space too, the interrupt's source is the PC. */
	KUNIT_EXPECT_EQ(test, ssctr_test_after_irq_on(true, at_pc, 3, both, upc), 2);
	KUNIT_EXPECT_EQ(test, ssctr_test_after_irq_on(true, from_user, 5, both, upc),
			SSCTR_MAX_ENTRIES);
	KUNIT_EXPECT_EQ(test, ssctr_test_after_irq_on(true, in_kernel, 3, s_only, kpc), 2);
	/* An interrupt taken elsewhere is not the one: none of them is kept. */
	KUNIT_EXPECT_EQ(test, ssctr_test_after_irq_on(true, other_pc, 3, both, upc),
			SSCTR_MAX_ENTRIES);
	/* Without TYPE the source alone decides. */
	KUNIT_EXPECT_EQ(test, ssctr_test_after_irq_on(false, from_user, 5, s_only, upc), 3);
	KUNIT_EXPECT_EQ(test, ssctr_test_after_irq_on(false, at_pc, 3, both, upc), 2);
	/*
	 * Interrupts inhibited (a type filter without TYPE): entry 2 is an
	 * exception from user space, which looks the same. None is kept.
	 */
	KUNIT_EXPECT_EQ(test, ssctr_test_after_irq_on(false, from_user, 5,
						      s_only | CTRCTL_INTRINH, upc),
			SSCTR_MAX_ENTRIES);
}

/*
 * A hart without TYPE but with the inhibit bits records the types of a
 * filter alone: it takes the filter, records no interrupt it was not
 * asked for, and lets only events of the same types share a CPU.
 */
static void ssctr_test_no_type_filters(struct kunit *test)
{
	const u64 call_u = PERF_SAMPLE_BRANCH_CALL | PERF_SAMPLE_BRANCH_USER;
	const u64 call_k = PERF_SAMPLE_BRANCH_CALL | PERF_SAMPLE_BRANCH_KERNEL;
	const u64 any_u = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	const u64 cond_u = PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_USER;
	struct riscv_ssctr_caps caps = ssctr_test_full;
	u32 call, kcall, any, req;
	u64 ctl;

	caps.type = false;
	KUNIT_ASSERT_EQ(test, riscv_ssctr_check(&caps, call_u, false, &call), 0);
	KUNIT_EXPECT_EQ(test, call & SSCTR_REQ_TYPES, T(DIRCALL));
	KUNIT_ASSERT_EQ(test, riscv_ssctr_check(&caps, any_u, false, &any), 0);
	KUNIT_ASSERT_EQ(test, riscv_ssctr_check(&caps, call_k, false, &kcall), 0);
	/* Not-taken branches still need TYPE to tell them from taken ones. */
	KUNIT_EXPECT_EQ(test, riscv_ssctr_check(&caps, cond_u, true, &req),
			-EOPNOTSUPP);

	/* Kernel calls: interrupts stay out, as every other type. */
	ctl = riscv_ssctr_ctl(&caps, kcall);
	KUNIT_EXPECT_EQ(test, ctl & CTRCTL_DIRCALLINH, 0);
	KUNIT_EXPECT_NE(test, ctl & CTRCTL_INTRINH, 0);
	KUNIT_EXPECT_NE(test, ctl & CTRCTL_RETINH, 0);

	/* Events share a CPU when they ask for the same types only. */
	KUNIT_EXPECT_TRUE(test, riscv_ssctr_types_share(&caps, call, call, kcall));
	KUNIT_EXPECT_FALSE(test, riscv_ssctr_types_share(&caps, call, call, any));
	KUNIT_EXPECT_FALSE(test, riscv_ssctr_types_share(&caps, any, any, call));
	KUNIT_EXPECT_FALSE(test, riscv_ssctr_types_share(&caps, call, any, call));
	KUNIT_EXPECT_TRUE(test, riscv_ssctr_types_share(&caps, any, any, any));

	/* Without the inhibit bit of one other type, the filter is refused. */
	caps.ctl &= ~CTRCTL_RETINH;
	KUNIT_EXPECT_EQ(test, riscv_ssctr_check(&caps, call_u, false, &req),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, riscv_ssctr_check(&caps, any_u, false, &req), 0);

	/* With TYPE, software keeps each event's types: any events share. */
	caps = ssctr_test_full;
	KUNIT_EXPECT_TRUE(test, riscv_ssctr_types_share(&caps, call, any, call));
	KUNIT_EXPECT_TRUE(test, riscv_ssctr_types_share(&caps, any, any, call));
	ctl = riscv_ssctr_ctl(&caps, kcall);
	KUNIT_EXPECT_EQ(test, ctl & CTRCTL_INTRINH, 0);
}

static struct kunit_case ssctr_decode_cases[] = {
	KUNIT_CASE(ssctr_test_request_all),
	KUNIT_CASE(ssctr_test_ctl),
	KUNIT_CASE(ssctr_test_ctl_callstack),
	KUNIT_CASE(ssctr_test_cycles),
	KUNIT_CASE(ssctr_test_flags_word),
	KUNIT_CASE(ssctr_test_types),
	KUNIT_CASE(ssctr_test_exception_types),
	KUNIT_CASE(ssctr_test_filter),
	KUNIT_CASE(ssctr_test_merged_priv),
	KUNIT_CASE(ssctr_test_hw_idx),
	KUNIT_CASE(ssctr_test_after_irq),
	KUNIT_CASE(ssctr_test_decode_raw),
	KUNIT_CASE(ssctr_test_type_copy),
	KUNIT_CASE(ssctr_test_no_type_filters),
	{}
};

static struct kunit_suite ssctr_decode_suite = {
	.name = "riscv_ctr_decode",
	.test_cases = ssctr_decode_cases,
};

/*
 * The read path on records written into the buffer, with cycle counts
 * and mispredict bits of known values. A hart without them keeps neither
 * in what software writes: its records come out without them (the
 * riscv_ctr_model suite checks that).
 */
static void ssctr_test_read_synthetic(struct kunit *test)
{
	const u64 k = 0xffffffff80000000ULL;
	const struct riscv_ssctr_entry in[] = {
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
	struct riscv_ssctr_caps caps = ssctr_test_full, hart;
	struct perf_branch_entry *out, *all, *one, *fast;
	unsigned int i, n, nall, none, nfast;
	unsigned long flags;
	int y, yfast, ret;

	caps.entries = riscv_ssctr_num_branches();
	local_irq_save(flags);
	ret = riscv_ssctr_probe_caps(caps.entries, &hart);
	local_irq_restore(flags);
	KUNIT_ASSERT_EQ(test, ret, 0);
	if (!hart.misp || !hart.cycles || !hart.type)
		kunit_skip(test, "the hart has no mispredict bit, cycle count or TYPE");
	out = kunit_kcalloc(test, caps.entries, sizeof(*out), GFP_KERNEL);
	all = kunit_kcalloc(test, caps.entries, sizeof(*all), GFP_KERNEL);
	one = kunit_kcalloc(test, caps.entries, sizeof(*one), GFP_KERNEL);
	fast = kunit_kcalloc(test, caps.entries, sizeof(*fast), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fast);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_NOT_NULL(test, all);
	KUNIT_ASSERT_NOT_NULL(test, one);

	/* Decoded from the hart's own registers, as a sample is. */
	local_irq_save(flags);
	riscv_ssctr_clear();
	for (i = 0; i < ARRAY_SIZE(in); i++)
		ssctr_test_write(i, &in[i]);
	n = riscv_ssctr_decode(&caps, SSCTR_REQ_PICKED, 0, caps.entries,
			       SSCTR_REQ_TYPES | SSCTR_REQ_U,
			       PERF_SAMPLE_BRANCH_TYPE_SAVE |
			       PERF_SAMPLE_BRANCH_PRIV_SAVE, out, &y);
	nall = riscv_ssctr_decode(&caps, SSCTR_REQ_PICKED, 0, caps.entries,
				  SSCTR_REQ_PICKED, PERF_SAMPLE_BRANCH_NO_FLAGS |
				  PERF_SAMPLE_BRANCH_NO_CYCLES |
				  PERF_SAMPLE_BRANCH_PRIV_SAVE, all, &y);
	/* From logical entry 2 on, at most one record. */
	none = riscv_ssctr_decode(&caps, SSCTR_REQ_PICKED, 2, 1,
				  SSCTR_REQ_TYPES | SSCTR_REQ_S, 0, one, &y);
	/* Everything wanted, flags and cycles: copied as they come. */
	nfast = riscv_ssctr_decode(&caps, SSCTR_REQ_U | SSCTR_REQ_S, 0, caps.entries,
				   SSCTR_REQ_PICKED, 0, fast, &yfast);
	riscv_ssctr_clear();
	local_irq_restore(flags);

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

	KUNIT_ASSERT_EQ(test, nall, 4);
	for (i = 0; i < nall; i++) {
		KUNIT_EXPECT_EQ(test, (u32)all[i].mispred, 0);
		KUNIT_EXPECT_EQ(test, (u32)all[i].predicted, 0);
		KUNIT_EXPECT_EQ(test, (u32)all[i].cycles, 0);
		KUNIT_EXPECT_EQ(test, (u32)all[i].type, 0);
	}
	KUNIT_EXPECT_EQ(test, (u32)all[2].priv, PERF_BR_PRIV_KERNEL);
	/* CCV clear: no cycle count even when asked for. */
	KUNIT_ASSERT_EQ(test, none, 1);
	KUNIT_EXPECT_EQ(test, one[0].from, k | 0x1000);
	KUNIT_EXPECT_EQ(test, (u32)one[0].cycles, 0);
	KUNIT_EXPECT_EQ(test, y, 2);

	KUNIT_ASSERT_EQ(test, nfast, 4);
	KUNIT_EXPECT_EQ(test, yfast, 0);
	for (i = 0; i < nfast; i++) {
		KUNIT_EXPECT_EQ(test, fast[i].from, in[i].source & SSCTR_PC_MASK);
		KUNIT_EXPECT_EQ(test, fast[i].to, in[i].target & SSCTR_PC_MASK);
		KUNIT_EXPECT_EQ(test, (u32)fast[i].mispred,
				(u32)(in[i].target & CTRTARGET_MISP));
		KUNIT_EXPECT_EQ(test, (u32)fast[i].predicted,
				(u32)!(in[i].target & CTRTARGET_MISP));
		KUNIT_EXPECT_EQ(test, (u32)fast[i].type, 0);
		KUNIT_EXPECT_EQ(test, (u32)fast[i].priv, 0);
	}
	KUNIT_EXPECT_EQ(test, (u32)fast[0].cycles, (4096 + 5) << 1);
	KUNIT_EXPECT_EQ(test, (u32)fast[1].cycles, 100);
	KUNIT_EXPECT_EQ(test, (u32)fast[2].cycles, 0);
	KUNIT_EXPECT_EQ(test, (u32)fast[3].cycles, 0xffff);
}

/* The record the read_full test writes at logical entry @i. */
static void ssctr_test_full_entry(unsigned int i, struct riscv_ssctr_entry *e)
{
	e->source = (0x100000 + 0x40 * i) | CTRSOURCE_VALID;
	e->target = (0x200000 + 0x10 * i) | (i % 3 ? 0 : CTRTARGET_MISP);
	/* Short counts, long counts and counts without CCV, all types. */
	e->data = (i % 16) | (i % 5 ? CTRDATA_CCV : 0) |
		  FIELD_PREP(CTRDATA_CCE, i % 7 == 1 ? 3 : 0) |
		  FIELD_PREP(CTRDATA_CCM, i * 13);
}

/*
 * A full buffer is copied four entries a turn with no valid bit tested:
 * it must give what the copy of the entries (decoded record by record)
 * gives, from logical entry 0 or from one that is not a multiple of
 * four, for all of the buffer or a part, and for a buffer one short of
 * full, whose last entry sends the read back to testing each.
 */
static void ssctr_test_read_full(struct kunit *test)
{
	static const struct {
		unsigned int first, less, missing;
	} cases[] = {
		{ 0, 0, 0 }, { 0, 1, 0 }, { 0, 6, 0 }, { 1, 0, 0 },
		{ 4, 3, 0 }, { 0, 0, 1 }, { 0, 0, 5 }, { 8, 0, 3 },
	};
	static const u64 bsts[] = {
		0, PERF_SAMPLE_BRANCH_TYPE_SAVE,
		PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES,
	};
	struct riscv_ssctr_caps caps = ssctr_test_full;
	struct perf_branch_entry *got, *want;
	struct riscv_ssctr_entry *raw, e;
	unsigned int c, b, i, n, nw, nraw, fill, max, x = 0;
	unsigned long flags;
	int y, yw;

	caps.entries = riscv_ssctr_num_branches();
	got = kunit_kcalloc(test, caps.entries, sizeof(*got), GFP_KERNEL);
	want = kunit_kcalloc(test, caps.entries, sizeof(*want), GFP_KERNEL);
	raw = kunit_kcalloc(test, caps.entries, sizeof(*raw), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, raw);

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		fill = caps.entries - cases[c].missing;
		max = caps.entries - cases[c].less;
		for (b = 0; b < ARRAY_SIZE(bsts); b++) {
			memset(got, 0, caps.entries * sizeof(*got));
			local_irq_save(flags);
			riscv_ssctr_clear();
			for (i = 0; i < fill; i++) {
				ssctr_test_full_entry(i, &e);
				ssctr_test_write(i, &e);
			}
			n = riscv_ssctr_decode(&caps, SSCTR_REQ_PICKED,
					       cases[c].first, max,
					       SSCTR_REQ_PICKED, bsts[b], got, &y);
			nraw = riscv_ssctr_read_entries(raw, caps.entries);
			riscv_ssctr_clear();
			local_irq_restore(flags);
			/* The copy starts at @first, as ssctr_copy_more() makes it. */
			nw = riscv_ssctr_decode_raw(&caps, SSCTR_REQ_PICKED,
						    raw + cases[c].first,
						    nraw - cases[c].first,
						    cases[c].first, max,
						    SSCTR_REQ_PICKED, bsts[b],
						    want, &yw);

			KUNIT_EXPECT_EQ_MSG(test, nraw, fill, "case %u", c);
			KUNIT_EXPECT_EQ_MSG(test, n, min(max, fill - cases[c].first),
					    "case %u, fields %llx", c, bsts[b]);
			KUNIT_EXPECT_EQ_MSG(test, n, nw, "case %u", c);
			KUNIT_EXPECT_EQ_MSG(test, y, yw, "case %u", c);
			for (i = 0; i < min(n, nw); i++) {
				ssctr_test_full_entry(cases[c].first + i, &e);
				if (got[i].from == (e.source & SSCTR_PC_MASK) &&
				    !memcmp(&got[i], &want[i], sizeof(got[i])))
					continue;
				KUNIT_FAIL(test, "case %u, fields %llx, record %u:",
					   c, bsts[b], i);
				KUNIT_FAIL(test, "got %#llx %#llx %#llx, want %#llx %#llx %#llx",
					   got[i].from, got[i].to,
					   ((u64 *)&got[i])[2], want[i].from,
					   want[i].to, ((u64 *)&want[i])[2]);
				break;
			}
			x += n;
		}
	}
	KUNIT_EXPECT_GT(test, x, 0);
}

/*
 * A call stack saved from one place of the buffer comes back exactly:
 * the same records at the same logical entries, the same write pointer.
 */
static void ssctr_test_save_restore(struct kunit *test)
{
	const struct riscv_ssctr_entry in[] = {
		{ 0x10040 | CTRSOURCE_VALID, 0x10100, CTR_TYPE_DIRCALL },
		{ 0x10020 | CTRSOURCE_VALID, 0x10040, CTR_TYPE_INDCALL },
		{ 0x10000 | CTRSOURCE_VALID, 0x10020, CTR_TYPE_DIRCALL },
	};
	unsigned int depth = riscv_ssctr_num_branches(), i, nr;
	const bool type = ssctr_test_hart_type();
	struct riscv_ssctr_entry *saved, *back;
	unsigned long flags;
	u32 status, wrptr;

	saved = kunit_kcalloc(test, depth, sizeof(*saved), GFP_KERNEL);
	back = kunit_kcalloc(test, depth, sizeof(*back), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, saved);
	KUNIT_ASSERT_NOT_NULL(test, back);

	local_irq_save(flags);
	riscv_ssctr_clear();
	csr_write(CSR_SCTRSTATUS, 5);
	for (i = 0; i < ARRAY_SIZE(in); i++)
		ssctr_test_write(i, &in[i]);
	nr = riscv_ssctr_save(saved, &status);
	/* Another task's stack in between. */
	riscv_ssctr_clear();
	csr_write(CSR_SCTRSTATUS, 1);
	ssctr_test_write(0, &in[2]);
	riscv_ssctr_restore(saved, nr, status);
	wrptr = csr_read(CSR_SCTRSTATUS) & SCTRSTATUS_WRPTR;
	KUNIT_EXPECT_EQ(test, riscv_ssctr_read_entries(back, depth), ARRAY_SIZE(in));
	riscv_ssctr_clear();
	csr_write(CSR_SCTRSTATUS, 0);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, nr, ARRAY_SIZE(in));
	KUNIT_EXPECT_EQ(test, status & SCTRSTATUS_WRPTR, 5);
	KUNIT_EXPECT_EQ(test, wrptr, 5);
	for (i = 0; i < ARRAY_SIZE(in); i++) {
		KUNIT_EXPECT_EQ(test, back[i].source, in[i].source);
		KUNIT_EXPECT_EQ(test, back[i].target, in[i].target);
		KUNIT_EXPECT_EQ(test, back[i].data & CTRDATA_TYPE,
				type ? in[i].data : 0);
	}
}

/*
 * A branch event on this CPU that never overflows, so that the CPU records
 * @branch_type branches of any type: the caller stays on this CPU until
 * ssctr_test_event_put().
 */
static struct perf_event *ssctr_test_event_get(struct kunit *test,
					       u64 branch_type)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.sample_period = 1ULL << 40,
		.sample_type = PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | branch_type,
		.pinned = 1,
	};
	struct perf_event *event;

	migrate_disable();
	event = perf_event_create_kernel_counter(&attr, smp_processor_id(),
						 NULL, NULL, NULL);
	if (IS_ERR(event)) {
		migrate_enable();
		KUNIT_FAIL(test, "branch event: %ld", PTR_ERR(event));
		return NULL;
	}
	return event;
}

static void ssctr_test_event_put(struct perf_event *event)
{
	perf_event_release_kernel(event);
	migrate_enable();
}

/*
 * A CPU power-management transition that loses the hart's CTR state (a
 * non-retentive suspend): with a branch event on the CPU, recording comes
 * back as it was, at the depth the driver chose.
 */
static void ssctr_test_pm(struct kunit *test)
{
	unsigned long flags, depth, before, after;
	struct perf_event *event;
	int ret;

	if (!IS_ENABLED(CONFIG_CPU_PM))
		kunit_skip(test, "the kernel has no CPU power management");

	event = ssctr_test_event_get(test, PERF_SAMPLE_BRANCH_USER);
	if (!event)
		return;

	local_irq_save(flags);
	before = csr_read(CSR_SCTRCTL);
	depth = csr_read(CSR_SCTRDEPTH);
	ret = cpu_pm_enter();
	/* What a hart that lost its state comes back with. */
	csr_write(CSR_SCTRCTL, 0);
	csr_write(CSR_SCTRDEPTH, depth ? 0 : 1);
	if (!ret)
		cpu_pm_exit();
	after = csr_read(CSR_SCTRCTL);
	KUNIT_EXPECT_EQ(test, csr_read(CSR_SCTRDEPTH), depth);
	local_irq_restore(flags);

	ssctr_test_event_put(event);

	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_NE(test, before & CTRCTL_U, 0);
	KUNIT_EXPECT_EQ(test, after, before);
}

/*
 * The counter overflow interrupt's priority number in the AIA's iprio
 * array, or -1 on a hart without Ssaia. Interrupts off: the IMSIC's
 * handler selects registers in siselect too.
 */
static int ssctr_test_lcofi_prio(bool set, u8 prio)
{
	const unsigned int per_reg = BITS_PER_LONG / 8;
	unsigned int shift = (RV_IRQ_PMU % per_reg) * 8;
	unsigned long flags, v;

	if (!riscv_isa_extension_available(NULL, SSAIA))
		return -1;
	local_irq_save(flags);
	csr_write(CSR_SISELECT, ISELECT_IPRIO0 +
		  RV_IRQ_PMU / per_reg * (BITS_PER_LONG / 32));
	v = csr_read(CSR_SIREG);
	if (set) {
		v = (v & ~(0xffUL << shift)) | (unsigned long)prio << shift;
		csr_write(CSR_SIREG, v);
		v = csr_read(CSR_SIREG);
	}
	local_irq_restore(flags);
	return (v >> shift) & 0xff;
}

/*
 * On a hart with the AIA the counter overflow interrupt goes before the
 * other local interrupts, so that its trap freezes the buffer: priority
 * number 1, set as the CPU came up and again after a CPU power
 * transition, which may lose it.
 */
static void ssctr_test_overflow_first(struct kunit *test)
{
	unsigned long flags;
	int prio, ret;

	if (!riscv_isa_extension_available(NULL, SSCOFPMF))
		kunit_skip(test, "no counter overflow interrupt (Sscofpmf)");
	prio = ssctr_test_lcofi_prio(false, 0);
	if (prio < 0)
		kunit_skip(test, "no AIA (Ssaia): interrupts have fixed priorities");
	migrate_disable();
	if (ssctr_test_lcofi_prio(true, 2) != 2) {
		ssctr_test_lcofi_prio(true, prio);
		migrate_enable();
		kunit_skip(test, "the hart keeps the overflow interrupt's priority fixed");
	}
	ssctr_test_lcofi_prio(true, prio);
	KUNIT_EXPECT_EQ(test, prio, 1);

	if (IS_ENABLED(CONFIG_CPU_PM)) {
		local_irq_save(flags);
		ret = cpu_pm_enter();
		/* What a hart that lost its state comes back with. */
		ssctr_test_lcofi_prio(true, 0);
		if (!ret)
			cpu_pm_exit();
		prio = ssctr_test_lcofi_prio(false, 0);
		local_irq_restore(flags);
		KUNIT_EXPECT_EQ(test, ret, 0);
		KUNIT_EXPECT_EQ(test, prio, 1);
	}
	migrate_enable();
}

/* A call and a return of known addresses for the snapshot test. */
static noinline int ssctr_test_snap_callee(int x)
{
	barrier();
	return x + 1;
}

/* The function a record's address @addr lies in, by kallsyms. */
static unsigned long ssctr_test_func_of(u64 addr)
{
	unsigned long size, off;

	if (!kallsyms_lookup_size_offset(addr, &size, &off))
		return 0;
	return addr - off;
}

/*
 * bpf_get_branch_snapshot(): nothing without a branch event on the CPU;
 * with one, this thread's last call and return, youngest first, and the
 * buffer recording on as it was before (frozen or not).
 */
static void ssctr_test_snapshot(struct kunit *test)
{
	unsigned long callee = (unsigned long)ssctr_test_snap_callee;
	unsigned int depth = riscv_ssctr_num_branches();
	int none, nr, frozen_nr, i, call = -1, ret = -1;
	const bool type = ssctr_test_hart_type();
	struct perf_branch_entry *e;
	struct perf_event *event;
	u32 status, frozen_status;
	unsigned long flags;

	/* Room for two whole buffers: the first snapshot may fill one. */
	e = kunit_kcalloc(test, 2 * depth, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);

	none = static_call(perf_snapshot_branch_stack)(e, depth);
	event = ssctr_test_event_get(test, PERF_SAMPLE_BRANCH_KERNEL);
	if (!event)
		return;
	/*
	 * Nothing between the call and the snapshot: an interrupt's records
	 * could push the call and the return out of the buffer, and a
	 * migration would read another CPU's (both absent once in 14 boots
	 * of the clang kernel, on four harts without -icount).
	 */
	local_irq_save(flags);
	ssctr_test_snap_callee(1);
	nr = static_call(perf_snapshot_branch_stack)(e, depth);
	status = csr_read(CSR_SCTRSTATUS);

	csr_set(CSR_SCTRSTATUS, SCTRSTATUS_FROZEN);
	frozen_nr = static_call(perf_snapshot_branch_stack)(e + nr, depth);
	frozen_status = csr_read(CSR_SCTRSTATUS);
	csr_clear(CSR_SCTRSTATUS, SCTRSTATUS_FROZEN);
	local_irq_restore(flags);

	ssctr_test_event_put(event);

	KUNIT_EXPECT_EQ(test, none, 0);
	KUNIT_EXPECT_EQ(test, status & SCTRSTATUS_FROZEN, 0);
	KUNIT_EXPECT_NE(test, frozen_status & SCTRSTATUS_FROZEN, 0);
	KUNIT_EXPECT_GT(test, frozen_nr, 0);
	KUNIT_ASSERT_GT(test, nr, 0);
	for (i = 0; i < nr; i++) {
		KUNIT_EXPECT_EQ(test, (u32)e[i].priv, PERF_BR_PRIV_KERNEL);
		/* Without TYPE, the ends alone tell the call and the return. */
		if (call < 0 && (!type || e[i].type == PERF_BR_CALL) &&
		    e[i].to == callee)
			call = i;
		if (ret < 0 && ssctr_test_func_of(e[i].from) == callee &&
		    (type ? e[i].type == PERF_BR_RET :
			    ssctr_test_func_of(e[i].to) == (unsigned long)ssctr_test_snapshot))
			ret = i;
	}
	/* The return is younger than the call, and both are there. */
	KUNIT_EXPECT_GE(test, ret, 0);
	KUNIT_EXPECT_GT(test, call, ret);
	if (ret >= 0)
		KUNIT_EXPECT_EQ(test, ssctr_test_func_of(e[ret].to),
				(unsigned long)ssctr_test_snapshot);
}

/*
 * The buffer lent to KVM and back, as its vcpu_load and vcpu_put do: a
 * vCPU's buffer goes in and comes out whole, invalid entries between
 * valid ones and the targets of invalid entries too, at the deepest
 * depth of the hardware whatever riscv_ctr.depth= says; taken back, the
 * buffer is the host's again: its depth, empty, not frozen.
 */
static void ssctr_test_lend(struct kunit *test)
{
	u8 depths = riscv_ssctr_guest_depths();
	struct riscv_ssctr_entry *in, *out;
	unsigned long flags, status, host_depth;
	struct riscv_ssctr_caps hart;
	unsigned int n, i;

	if (!depths)
		kunit_skip(test, "no CTR for KVM guests here (no H extension)");
	KUNIT_ASSERT_EQ(test, riscv_ssctr_probe_caps(SSCTR_MAX_ENTRIES, &hart), 0);
	KUNIT_EXPECT_EQ(test, depths, hart.depths);
	n = SSCTR_DEPTH_ENTRIES(fls(depths) - 1);
	in = kunit_kcalloc(test, n, sizeof(*in), GFP_KERNEL);
	out = kunit_kcalloc(test, n, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	/* Entry 0 invalid, entry 2 valid, entry 3 invalid with a target. */
	in[0].target = 0x40;
	in[2].source = 0x1000 | CTRSOURCE_VALID;
	in[2].target = 0x2000;
	in[2].data = 1;
	in[3].target = 0x3000;

	host_depth = csr_read(CSR_SCTRDEPTH);
	local_irq_save(flags);
	riscv_ssctr_lend();
	csr_write(CSR_SCTRDEPTH, fls(depths) - 1);
	riscv_ssctr_lent_write(in, n, 5 | SCTRSTATUS_FROZEN);
	riscv_ssctr_lent_read(out, n, &status);
	riscv_ssctr_reclaim();
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, status, 5 | SCTRSTATUS_FROZEN);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ_MSG(test, out[i].source, in[i].source, "entry %u", i);
		KUNIT_EXPECT_EQ_MSG(test, out[i].target, in[i].target, "entry %u", i);
		KUNIT_EXPECT_EQ_MSG(test, out[i].data, in[i].data, "entry %u", i);
	}
	/* The host's again: its depth, nothing frozen, nothing recorded. */
	KUNIT_EXPECT_EQ(test, csr_read(CSR_SCTRDEPTH), host_depth);
	KUNIT_EXPECT_EQ(test, csr_read(CSR_SCTRSTATUS), 0);
	local_irq_save(flags);
	csr_write(CSR_SISELECT, CTR_ENTRY_SISELECT + 2);
	KUNIT_EXPECT_EQ(test, csr_read(CSR_SIREG), 0);
	local_irq_restore(flags);
}

static struct kunit_case ssctr_buffer_cases[] = {
	KUNIT_CASE(ssctr_test_depth),
	KUNIT_CASE(ssctr_test_reset_state),
	KUNIT_CASE(ssctr_test_clear),
	KUNIT_CASE(ssctr_test_shallow),
	KUNIT_CASE(ssctr_test_read_synthetic),
	KUNIT_CASE(ssctr_test_read_full),
	KUNIT_CASE(ssctr_test_save_restore),
	KUNIT_CASE(ssctr_test_pm),
	KUNIT_CASE(ssctr_test_overflow_first),
	KUNIT_CASE(ssctr_test_snapshot),
	KUNIT_CASE(ssctr_test_lend),
	{}
};

static struct kunit_suite ssctr_buffer_suite = {
	.name = "riscv_ctr_buffer",
	.init = ssctr_test_init,
	.exit = ssctr_test_exit,
	.test_cases = ssctr_buffer_cases,
};

/*
 * riscv_ctr_model: the probe, the attribute checks and the read path on
 * harts that lack what QEMU has. The spec lets a hart support some depths
 * only and leave out types, mispredict bits, cycle counts, every filter,
 * RASEMU and the freeze, each on its own, and firmware may keep the
 * registers from S-mode. A software model of the CSR interface stands in
 * for such a hart: the driver uses it instead of the hart in this test's
 * thread (riscv_ssctr_test_model).
 */

/* A hart: which of the optional parts it has. */
struct ssctr_model_hart {
	const char *name;
	u8 depths;		/* the DEPTH values that stick */
	u64 ctl;		/* the optional sctrctl bits that stick */
	bool type, misp, cycles, frozen;
	bool csrs, window;	/* reachable from S-mode */
};

#define SSCTR_MODEL_FILTERS	(GENMASK_ULL(37, 33) | GENMASK_ULL(47, 40))
#define SSCTR_MODEL_CTL_ALL	(CTRCTL_RASEMU | CTRCTL_LCOFIFRZ | SSCTR_MODEL_FILTERS)
#define CTL_ALL			SSCTR_MODEL_CTL_ALL

/* Every field, for each hart: 1 has the part, 0 lacks it. */
#define SSCTR_MODEL_HART(n, d, c, t, m, cy, f, cs, w)			\
	{ .name = n, .depths = d, .ctl = c, .type = t, .misp = m,	\
	  .cycles = cy, .frozen = f, .csrs = cs, .window = w }

static const struct ssctr_model_hart ssctr_model_harts[] = {
	/* name, depths, ctl, then 1/0: type, misp, cycles, frozen, csrs, window */
	SSCTR_MODEL_HART("full", 0x1f, CTL_ALL, 1, 1, 1, 1, 1, 1),
	SSCTR_MODEL_HART("depth16_only", 0x01, CTL_ALL, 1, 1, 1, 1, 1, 1),
	SSCTR_MODEL_HART("depths_16_to_64", 0x07, CTL_ALL, 1, 1, 1, 1, 1, 1),
	SSCTR_MODEL_HART("depths_64_to_256", 0x1c, CTL_ALL, 1, 1, 1, 1, 1, 1),
	SSCTR_MODEL_HART("no_type", 0x1f, CTL_ALL, 0, 1, 1, 1, 1, 1),
	SSCTR_MODEL_HART("no_misp", 0x1f, CTL_ALL, 1, 0, 1, 1, 1, 1),
	SSCTR_MODEL_HART("no_cycles", 0x1f, CTL_ALL, 1, 1, 0, 1, 1, 1),
	SSCTR_MODEL_HART("no_rasemu", 0x1f, CTL_ALL & ~CTRCTL_RASEMU, 1, 1, 1, 1, 1, 1),
	SSCTR_MODEL_HART("no_lcofifrz", 0x1f, CTL_ALL & ~CTRCTL_LCOFIFRZ, 1, 1, 1, 1, 1, 1),
	SSCTR_MODEL_HART("no_ntbren", 0x1f, CTL_ALL & ~CTRCTL_NTBREN, 1, 1, 1, 1, 1, 1),
	SSCTR_MODEL_HART("no_filters", 0x1f, CTL_ALL & ~SSCTR_MODEL_FILTERS, 1, 1, 1, 1, 1, 1),
	SSCTR_MODEL_HART("no_frozen_write", 0x1f, CTL_ALL, 1, 1, 1, 0, 1, 1),
	SSCTR_MODEL_HART("no_window", 0x1f, CTL_ALL, 1, 1, 1, 1, 1, 0),
	SSCTR_MODEL_HART("no_csrs", 0x1f, CTL_ALL, 1, 1, 1, 1, 0, 1),
	SSCTR_MODEL_HART("minimal", 0x01, 0, 0, 0, 0, 0, 1, 1),
};

/* A hart with every part but TYPE, for the tests outside the model suite. */
static const struct ssctr_model_hart ssctr_model_no_type =
	SSCTR_MODEL_HART("no_type", 0x1f, CTL_ALL, 0, 1, 1, 1, 1, 1);

static void ssctr_model_desc(const struct ssctr_model_hart *h, char *desc)
{
	strscpy(desc, h->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ssctr_model, ssctr_model_harts, ssctr_model_desc);

/*
 * Window selections made with interrupts on, which the AIA's interrupt
 * handler could redirect; every test of the model expects none.
 */
static unsigned int ssctr_model_irqs_on;
/* Every window selection: what reads the buffer. */
static unsigned int ssctr_model_selects;

/* The model's state: one test runs at a time. */
static struct {
	const struct ssctr_model_hart *hart;
	u64 ctl;
	u32 status;
	unsigned int depth;
	unsigned long siselect;
	struct riscv_ssctr_entry e[SSCTR_MAX_ENTRIES];	/* physical entries */
} ssctr_model;

static unsigned int ssctr_model_entries(void)
{
	return SSCTR_DEPTH_ENTRIES(ssctr_model.depth);
}

/* The physical entry of the selected logical one, or NULL past the depth. */
static struct riscv_ssctr_entry *ssctr_model_entry(void)
{
	unsigned long n = ssctr_model.siselect - CTR_ENTRY_SISELECT;
	unsigned int mask = ssctr_model_entries() - 1;

	if (n >= ssctr_model_entries())
		return NULL;
	return &ssctr_model.e[(ssctr_model.status - 1 - n) & mask];
}

static unsigned long ssctr_model_read(unsigned int csr)
{
	struct riscv_ssctr_entry *e = ssctr_model_entry();

	switch (csr) {
	case CSR_SCTRCTL:
		return ssctr_model.ctl;
	case CSR_SCTRSTATUS:
		return ssctr_model.status;
	case CSR_SCTRDEPTH:
		return ssctr_model.depth;
	case CSR_SISELECT:
		return ssctr_model.siselect;
	case CSR_SIREG:
		return e ? e->source : 0;
	case CSR_SIREG2:
		return e ? e->target : 0;
	case CSR_SIREG3:
		return e ? e->data : 0;
	}
	return 0;
}

/* What the hart keeps of a record's fields. */
static u64 ssctr_model_target(u64 target)
{
	return ssctr_model.hart->misp ? target : target & SSCTR_PC_MASK;
}

static u64 ssctr_model_data(u64 data)
{
	u64 keep = 0;

	if (ssctr_model.hart->type)
		keep |= CTRDATA_TYPE;
	if (ssctr_model.hart->cycles)
		keep |= CTRDATA_CCV | CTRDATA_CC;
	return data & keep;
}

static void ssctr_model_write(unsigned int csr, unsigned long val)
{
	const struct ssctr_model_hart *h = ssctr_model.hart;
	struct riscv_ssctr_entry *e = ssctr_model_entry();

	switch (csr) {
	case CSR_SCTRCTL:
		ssctr_model.ctl = val & (h->ctl | CTRCTL_U | CTRCTL_S);
		break;
	case CSR_SCTRSTATUS:
		ssctr_model.status = val & (ssctr_model_entries() - 1);
		if (h->frozen)
			ssctr_model.status |= val & SCTRSTATUS_FROZEN;
		break;
	case CSR_SCTRDEPTH:
		/* WARL: a value the hart lacks gives its least depth. */
		val = FIELD_GET(SCTRDEPTH_DEPTH, val);
		ssctr_model.depth = (h->depths & BIT(val)) ? val : __ffs(h->depths);
		break;
	case CSR_SISELECT:
		/* An interrupt here could select an IMSIC register instead. */
		if (!irqs_disabled())
			ssctr_model_irqs_on++;
		ssctr_model_selects++;
		ssctr_model.siselect = val;
		break;
	case CSR_SIREG:
		if (e)
			e->source = val;
		break;
	case CSR_SIREG2:
		if (e)
			e->target = ssctr_model_target(val);
		break;
	case CSR_SIREG3:
		if (e)
			e->data = ssctr_model_data(val);
		break;
	}
}

static void ssctr_model_clear(void)
{
	memset(ssctr_model.e, 0, sizeof(ssctr_model.e));
}

static bool ssctr_model_accessible(unsigned int csr)
{
	return csr == CSR_SCTRDEPTH ? ssctr_model.hart->csrs : ssctr_model.hart->window;
}

static const struct riscv_ssctr_csr_model ssctr_model_ops = {
	.read = ssctr_model_read,
	.write = ssctr_model_write,
	.clear = ssctr_model_clear,
	.accessible = ssctr_model_accessible,
};

/*
 * Stand the model of @hart in for the hart, holding @raw, raw[0] the
 * youngest, at the deepest buffer; return the model it replaces.
 */
static const struct riscv_ssctr_csr_model *
ssctr_test_load(const struct ssctr_model_hart *hart,
		const struct riscv_ssctr_entry *raw, unsigned int nr)
{
	const struct riscv_ssctr_csr_model *saved = riscv_ssctr_test_model;
	unsigned int i;

	memset(&ssctr_model, 0, sizeof(ssctr_model));
	ssctr_model.hart = hart;
	ssctr_model.depth = SCTRDEPTH_MAX;
	ssctr_model.status = nr & (SSCTR_MAX_ENTRIES - 1);
	for (i = 0; i < nr; i++) {
		ssctr_model.e[(nr - 1 - i) & (SSCTR_MAX_ENTRIES - 1)] = raw[i];
		ssctr_model.e[(nr - 1 - i) & (SSCTR_MAX_ENTRIES - 1)].data =
			ssctr_model_data(raw[i].data);
	}
	WRITE_ONCE(riscv_ssctr_test_model, &ssctr_model_ops);
	return saved;
}

/*
 * Decode @raw as a sample would read it from a hart with every part that
 * holds it, raw[0] the youngest, through the model.
 */
static unsigned int ssctr_test_decode(const struct riscv_ssctr_caps *caps,
				      const struct riscv_ssctr_entry *raw,
				      unsigned int nr, u32 request, u64 bst,
				      struct perf_branch_entry *out,
				      int *youngest)
{
	const struct riscv_ssctr_csr_model *saved;
	unsigned long flags;
	unsigned int n;

	saved = ssctr_test_load(&ssctr_model_harts[0], raw, nr);
	local_irq_save(flags);
	n = riscv_ssctr_decode(caps, SSCTR_REQ_PICKED, 0, caps->entries, request,
			       bst, out, youngest);
	local_irq_restore(flags);
	WRITE_ONCE(riscv_ssctr_test_model, saved);
	return n;
}

/*
 * Decode @nr records with the full hart's model holding them, for an
 * event that wants every record the buffer may hold.
 */
static unsigned int ssctr_test_decode_all(const struct riscv_ssctr_entry *raw,
					  unsigned int nr, u64 bst,
					  struct perf_branch_entry *out)
{
	const struct riscv_ssctr_csr_model *saved;
	unsigned long flags;
	unsigned int n;
	int youngest;

	saved = ssctr_test_load(&ssctr_model_harts[0], raw, nr);
	local_irq_save(flags);
	n = riscv_ssctr_decode(&ssctr_test_full, SSCTR_REQ_PICKED, 0, nr,
			       SSCTR_REQ_PICKED, bst, out, &youngest);
	local_irq_restore(flags);
	WRITE_ONCE(riscv_ssctr_test_model, saved);
	return n;
}

/* Where an overflow's records start, on a full hart or one without TYPE. */
static unsigned int ssctr_test_after_irq_on(bool type,
					    const struct riscv_ssctr_entry *raw,
					    unsigned int nr, u64 ctl,
					    unsigned long irq_pc)
{
	struct riscv_ssctr_caps caps = ssctr_test_full;
	const struct riscv_ssctr_csr_model *saved;
	unsigned long flags;
	unsigned int first;

	caps.type = type;
	saved = ssctr_test_load(type ? &ssctr_model_harts[0] : &ssctr_model_no_type,
				raw, nr);
	local_irq_save(flags);
	first = riscv_ssctr_after_irq(&caps, ctl, irq_pc);
	local_irq_restore(flags);
	WRITE_ONCE(riscv_ssctr_test_model, saved);
	return first;
}

/* A transfer of the known workload. */
struct ssctr_model_xfer {
	u64 from, to;
	u8 type;
	bool misp;
	u16 ccm;
};

#define K(a)	(0xffffffff80000000ULL | (a))

/*
 * The known workload: calls, returns, taken and not-taken branches, a
 * jump, kernel transfers in between, then more taken branches than the
 * least depth holds.
 */
static const struct ssctr_model_xfer ssctr_model_head[] = {
	{ 0x10000, 0x10400, CTR_TYPE_DIRCALL, false, 3 },
	{ 0x10404, 0x10410, CTR_TYPE_BRANCH_T, true, 5 },
	{ 0x10414, 0x10418, CTR_TYPE_BRANCH_NT, false, 1 },
	{ 0x10420, 0x10800, CTR_TYPE_INDCALL, false, 7 },
	{ K(0x100), K(0x200), CTR_TYPE_DIRCALL, false, 2 },
	{ K(0x204), K(0x104), CTR_TYPE_RETURN, false, 2 },
	{ 0x10810, 0x10424, CTR_TYPE_RETURN, true, 4 },
	{ 0x10430, 0x10440, CTR_TYPE_DIRJUMP, false, 6 },
	{ 0x10444, 0x10004, CTR_TYPE_RETURN, false, 8 },
	{ 0x10008, 0x10c00, CTR_TYPE_DIRCALL, false, 9 },
};

#define SSCTR_MODEL_LOOP	20

static void ssctr_model_xfer(unsigned int i, struct ssctr_model_xfer *x)
{
	if (i < ARRAY_SIZE(ssctr_model_head)) {
		*x = ssctr_model_head[i];
		return;
	}
	/* A loop: its branch taken back, SSCTR_MODEL_LOOP times. */
	i -= ARRAY_SIZE(ssctr_model_head);
	*x = (struct ssctr_model_xfer){ 0x10c40, 0x10c00, CTR_TYPE_BRANCH_T,
				      i & 1, 10 + i };
}

#define SSCTR_MODEL_XFERS	(ARRAY_SIZE(ssctr_model_head) + SSCTR_MODEL_LOOP)

/* The inhibit bit of each type, as the spec numbers them (0: none). */
static u64 ssctr_model_inhibit(unsigned int type)
{
	switch (type) {
	case CTR_TYPE_BRANCH_NT:
		return 0;
	case CTR_TYPE_EXCEPTION ... CTR_TYPE_TRAP_RETURN:
		return BIT_ULL(33 + type - CTR_TYPE_EXCEPTION);
	case CTR_TYPE_BRANCH_T:
		return BIT_ULL(37);
	default:
		return BIT_ULL(40 + type - CTR_TYPE_INDCALL);
	}
}

/* Does the hart, as sctrctl says, record @x? */
static bool ssctr_model_records(const struct ssctr_model_xfer *x)
{
	u64 ctl = ssctr_model.ctl;

	if (!(ctl & ((s64)x->from < 0 ? CTRCTL_S : CTRCTL_U)))
		return false;
	if (x->type == CTR_TYPE_BRANCH_NT)
		return ctl & CTRCTL_NTBREN;
	return !(ctl & ssctr_model_inhibit(x->type));
}

/* The hart records @x (RASEMU: calls push, returns pop). */
static void ssctr_model_run(const struct ssctr_model_xfer *x)
{
	unsigned int mask = ssctr_model_entries() - 1;
	struct riscv_ssctr_entry *e;
	u32 wrptr = ssctr_model.status & mask;

	if (!ssctr_model_records(x))
		return;
	if (ssctr_model.ctl & CTRCTL_RASEMU) {
		if (x->type == CTR_TYPE_RETURN) {
			wrptr = (wrptr - 1) & mask;
			ssctr_model.e[wrptr] = (struct riscv_ssctr_entry){ };
			ssctr_model.status = wrptr;
			return;
		}
		if (x->type != CTR_TYPE_DIRCALL && x->type != CTR_TYPE_INDCALL)
			return;
	}
	e = &ssctr_model.e[wrptr];
	e->source = x->from | CTRSOURCE_VALID;
	e->target = ssctr_model_target(x->to | (x->misp ? CTRTARGET_MISP : 0));
	e->data = ssctr_model_data(x->type | CTRDATA_CCV |
				   FIELD_PREP(CTRDATA_CCM, x->ccm));
	ssctr_model.status = (wrptr + 1) & mask;
}

static int ssctr_model_init(struct kunit *test)
{
	ssctr_model_irqs_on = 0;
	memset(&ssctr_model, 0, sizeof(ssctr_model));
	ssctr_model.hart = test->param_value;
	WRITE_ONCE(riscv_ssctr_test_model, &ssctr_model_ops);
	return 0;
}

static void ssctr_model_exit(struct kunit *test)
{
	WRITE_ONCE(riscv_ssctr_test_model, NULL);
	KUNIT_EXPECT_EQ_MSG(test, ssctr_model_irqs_on, 0,
			    "siselect written with interrupts on");
}

/* The deepest depth the hart has, at most @max entries, else its least. */
static unsigned int ssctr_model_want_entries(u8 depths, unsigned int max)
{
	unsigned int best = 0;
	int d;

	for (d = 0; d <= SCTRDEPTH_MAX; d++)
		if ((depths & BIT(d)) && (!best || SSCTR_DEPTH_ENTRIES(d) <= max))
			best = SSCTR_DEPTH_ENTRIES(d);
	return best;
}

static void ssctr_model_probe(struct kunit *test)
{
	const struct ssctr_model_hart *h = test->param_value;
	struct riscv_ssctr_caps caps;
	int ret;

	/* With interrupts on, as the PMU driver's probe runs. */
	ret = riscv_ssctr_probe_caps(SSCTR_MAX_ENTRIES, &caps);
	if (!h->csrs || !h->window) {
		KUNIT_EXPECT_EQ(test, ret, -EACCES);
		KUNIT_EXPECT_EQ(test, caps.entries, 0);
		return;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, caps.depths, h->depths);
	KUNIT_EXPECT_EQ(test, caps.entries,
			ssctr_model_want_entries(h->depths, SSCTR_MAX_ENTRIES));
	KUNIT_EXPECT_EQ(test, caps.ctl, h->ctl | CTRCTL_U | CTRCTL_S);
	KUNIT_EXPECT_EQ(test, caps.type, h->type);
	KUNIT_EXPECT_EQ(test, caps.misp, h->misp);
	KUNIT_EXPECT_EQ(test, caps.cycles, h->cycles);
	KUNIT_EXPECT_EQ(test, caps.frozen_writable, h->frozen);
	/* Left as riscv_ssctr_reset() leaves a hart: idle, empty, that depth. */
	KUNIT_EXPECT_EQ(test, ssctr_model.ctl, 0);
	KUNIT_EXPECT_EQ(test, ssctr_model.status, 0);
	KUNIT_EXPECT_EQ(test, ssctr_model_entries(), caps.entries);
	KUNIT_EXPECT_EQ(test, ssctr_model.e[0].source, 0);

	/* riscv_ctr.depth=16, 128: the deepest allowed, else the least. */
	KUNIT_ASSERT_EQ(test, riscv_ssctr_probe_caps(16, &caps), 0);
	KUNIT_EXPECT_EQ(test, caps.entries, ssctr_model_want_entries(h->depths, 16));
	KUNIT_ASSERT_EQ(test, riscv_ssctr_probe_caps(128, &caps), 0);
	KUNIT_EXPECT_EQ(test, caps.entries, ssctr_model_want_entries(h->depths, 128));
	KUNIT_EXPECT_EQ(test, ssctr_model_entries(), caps.entries);
}

/* perf attributes, and whether a hart with the model's parts takes them. */
static const struct ssctr_model_attr {
	const char *what;
	u64 bst;
	bool not_taken;
	bool needs_type, needs_ntbren, needs_rasemu;
} ssctr_model_attrs[] = {
	{ "-j any,u", PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER },
	{ "-j any,u,k", PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
			PERF_SAMPLE_BRANCH_KERNEL },
	{ "-j any,any_call,u", PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_ANY_CALL |
			       PERF_SAMPLE_BRANCH_USER },
	{ "-j call,u", PERF_SAMPLE_BRANCH_CALL | PERF_SAMPLE_BRANCH_USER,
	  .needs_type = true },
	{ "-j any_ret,u", PERF_SAMPLE_BRANCH_ANY_RETURN | PERF_SAMPLE_BRANCH_USER,
	  .needs_type = true },
	{ "-j cond,u", PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_USER,
	  .needs_type = true },
	{ "-j cond,u not_taken=1", PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_USER,
	  true, .needs_type = true, .needs_ntbren = true },
	{ "-j any,u not_taken=1", PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER,
	  true, .needs_type = true, .needs_ntbren = true },
	{ "--call-graph lbr", PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_USER,
	  .needs_rasemu = true },
};

/*
 * A type filter takes TYPE, or every inhibit bit (the hart then records
 * the filter's types alone); a not-taken branch takes TYPE.
 */
static bool ssctr_model_takes(const struct ssctr_model_hart *h,
			      const struct ssctr_model_attr *a)
{
	bool filters = (h->ctl & SSCTR_MODEL_FILTERS) == SSCTR_MODEL_FILTERS;

	return (!a->needs_type || h->type || (filters && !a->not_taken)) &&
	       (!a->needs_ntbren || (h->ctl & CTRCTL_NTBREN)) &&
	       (!a->needs_rasemu || (h->ctl & CTRCTL_RASEMU));
}

static void ssctr_model_attrs_check(struct kunit *test)
{
	const struct ssctr_model_hart *h = test->param_value;
	struct riscv_ssctr_caps caps;
	unsigned int i;
	u32 req;

	if (riscv_ssctr_probe_caps(SSCTR_MAX_ENTRIES, &caps))
		kunit_skip(test, "%s: the driver stays idle (probe test)", h->name);

	for (i = 0; i < ARRAY_SIZE(ssctr_model_attrs); i++) {
		const struct ssctr_model_attr *a = &ssctr_model_attrs[i];
		int ret = riscv_ssctr_check(&caps, a->bst, a->not_taken, &req);

		KUNIT_EXPECT_EQ_MSG(test, ret, ssctr_model_takes(h, a) ? 0 : -EOPNOTSUPP,
				    "%s", a->what);
	}
}

/* What perf should say of each transfer type, written out on its own. */
static u8 ssctr_model_perf_type(unsigned int type)
{
	switch (type) {
	case CTR_TYPE_DIRCALL:		return PERF_BR_CALL;
	case CTR_TYPE_INDCALL:		return PERF_BR_IND_CALL;
	case CTR_TYPE_RETURN:		return PERF_BR_RET;
	case CTR_TYPE_BRANCH_T:		return PERF_BR_COND;
	case CTR_TYPE_BRANCH_NT:	return PERF_BR_EXTEND_ABI;
	case CTR_TYPE_DIRJUMP:		return PERF_BR_UNCOND;
	}
	return PERF_BR_UNKNOWN;
}

/* Does the event of @a want @x (its privilege and the types it names)? */
static bool ssctr_model_wants(const struct ssctr_model_attr *a,
			      const struct ssctr_model_xfer *x)
{
	u64 bst = a->bst;

	if ((s64)x->from < 0 ? !(bst & PERF_SAMPLE_BRANCH_KERNEL) :
			       !(bst & PERF_SAMPLE_BRANCH_USER))
		return false;
	if (x->type == CTR_TYPE_BRANCH_NT)
		return a->not_taken;
	if (bst & (PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_CALL_STACK))
		return true;
	if (bst & PERF_SAMPLE_BRANCH_CALL)
		return x->type == CTR_TYPE_DIRCALL;
	if (bst & PERF_SAMPLE_BRANCH_ANY_RETURN)
		return x->type == CTR_TYPE_RETURN;
	if (bst & PERF_SAMPLE_BRANCH_COND)
		return x->type == CTR_TYPE_BRANCH_T;
	return false;
}

/*
 * What a sample of the event of @a holds, youngest first, as perf should
 * show it: the transfers the hart kept (the youngest the buffer holds of
 * those it recorded) that the event wants, with the fields the hart has.
 * A call stack holds the calls not returned from, the innermost that fit.
 */
static unsigned int ssctr_model_expect(const struct ssctr_model_hart *h,
				       const struct ssctr_model_attr *a,
				       unsigned int entries,
				       struct perf_branch_entry *out)
{
	bool callstack = a->bst & PERF_SAMPLE_BRANCH_CALL_STACK;
	struct ssctr_model_xfer *kept;
	unsigned int i, nk = 0, n = 0;

	kept = kcalloc(SSCTR_MODEL_XFERS, sizeof(*kept), GFP_KERNEL);
	if (!kept)
		return 0;
	for (i = 0; i < SSCTR_MODEL_XFERS; i++) {
		struct ssctr_model_xfer x;

		ssctr_model_xfer(i, &x);
		if (!ssctr_model_records(&x))
			continue;
		if (callstack && x.type == CTR_TYPE_RETURN) {
			if (nk)
				nk--;
			continue;
		}
		if (callstack && x.type != CTR_TYPE_DIRCALL &&
		    x.type != CTR_TYPE_INDCALL)
			continue;
		kept[nk++] = x;
	}
	for (i = nk; i-- > 0 && nk - i <= entries; ) {
		const struct ssctr_model_xfer *x = &kept[i];

		if (!ssctr_model_wants(a, x))
			continue;
		out[n] = (struct perf_branch_entry){ .from = x->from, .to = x->to };
		if (h->misp) {
			out[n].mispred = x->misp;
			out[n].predicted = !x->misp;
		}
		if (h->cycles)
			out[n].cycles = x->ccm;
		out[n].type = h->type ? ssctr_model_perf_type(x->type) : PERF_BR_UNKNOWN;
		if (h->type && x->type == CTR_TYPE_BRANCH_NT)
			out[n].new_type = PERF_BR_RISCV_NOT_TAKEN;
		out[n].priv = (s64)x->from < 0 ? PERF_BR_PRIV_KERNEL : PERF_BR_PRIV_USER;
		n++;
	}
	kfree(kept);
	return n;
}

/* Are @n records in @got those of @want, field by field? */
static void ssctr_model_compare(struct kunit *test, const char *what,
				const struct perf_branch_entry *got,
				unsigned int n,
				const struct perf_branch_entry *want,
				unsigned int nwant)
{
	unsigned int j;

	KUNIT_EXPECT_EQ_MSG(test, n, nwant, "%s", what);
	KUNIT_EXPECT_GT_MSG(test, n, 0, "%s", what);
	for (j = 0; j < min(n, nwant); j++) {
		if (!memcmp(&got[j], &want[j], sizeof(got[j])))
			continue;
		KUNIT_FAIL(test, "%s, record %u: %#llx -> %#llx %s",
			   what, j, got[j].from, got[j].to,
			   "(type, mispred, predicted, cycles, priv):");
		KUNIT_FAIL(test, "got %u %u %u %u %u, want %#llx -> %#llx %u %u %u %u %u",
			   got[j].type, got[j].mispred, got[j].predicted,
			   got[j].cycles, got[j].priv, want[j].from, want[j].to,
			   want[j].type, want[j].mispred, want[j].predicted,
			   want[j].cycles, want[j].priv);
		break;
	}
}

/*
 * Run the known workload on the model hart as each event the hart takes
 * would have it record, then read and decode as a sample does: with the
 * type and privilege fields, and without them, where an event that wants
 * everything the hart recorded takes the records as they come.
 */
static void ssctr_model_records_check(struct kunit *test)
{
	const struct ssctr_model_hart *h = test->param_value;
	const u64 fields = PERF_SAMPLE_BRANCH_TYPE_SAVE | PERF_SAMPLE_BRANCH_PRIV_SAVE;
	struct perf_branch_entry *got, *want;
	struct riscv_ssctr_entry *raw;
	struct riscv_ssctr_caps caps;
	unsigned int i, j, x, n, nwant, nraw, checked = 0, whole = 0;
	unsigned long flags;
	int youngest;
	u32 req, rec;
	u64 ctl;

	if (riscv_ssctr_probe_caps(SSCTR_MAX_ENTRIES, &caps))
		kunit_skip(test, "%s: the driver stays idle (probe test)", h->name);

	got = kunit_kcalloc(test, SSCTR_MAX_ENTRIES, sizeof(*got), GFP_KERNEL);
	want = kunit_kcalloc(test, SSCTR_MAX_ENTRIES, sizeof(*want), GFP_KERNEL);
	raw = kunit_kcalloc(test, SSCTR_MAX_ENTRIES, sizeof(*raw), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, raw);

	for (i = 0; i < ARRAY_SIZE(ssctr_model_attrs); i++) {
		const struct ssctr_model_attr *a = &ssctr_model_attrs[i];

		if (riscv_ssctr_check(&caps, a->bst, a->not_taken, &req))
			continue;
		/* As riscv_ssctr_add() programs the hart, and a switch wipes it. */
		ctl = riscv_ssctr_ctl(&caps, req);
		rec = riscv_ssctr_recorded(&caps, ctl);
		ssctr_model_write(CSR_SCTRCTL, ctl);
		ssctr_model_clear();
		ssctr_model.status = 0;
		for (x = 0; x < SSCTR_MODEL_XFERS; x++) {
			struct ssctr_model_xfer xf;

			ssctr_model_xfer(x, &xf);
			ssctr_model_run(&xf);
		}
		nwant = ssctr_model_expect(h, a, caps.entries, want);
		ssctr_model_write(CSR_SCTRCTL, 0);

		/* With interrupts off, as in the overflow handler. */
		local_irq_save(flags);
		n = riscv_ssctr_decode(&caps, rec, 0, caps.entries, req,
				       a->bst | fields, got, &youngest);
		local_irq_restore(flags);
		ssctr_model_compare(test, a->what, got, n, want, nwant);

		/*
		 * As with several events on a CPU: the buffer read once, each
		 * sample decoded from the copy without a window access.
		 */
		local_irq_save(flags);
		nraw = riscv_ssctr_read_entries(raw, caps.entries);
		local_irq_restore(flags);
		x = ssctr_model_selects;
		n = riscv_ssctr_decode_raw(&caps, rec, raw, nraw, 0, caps.entries,
					   req, a->bst | fields, got, &youngest);
		KUNIT_EXPECT_EQ_MSG(test, ssctr_model_selects, x, "%s", a->what);
		ssctr_model_compare(test, a->what, got, n, want, nwant);

		for (j = 0; j < nwant; j++) {
			want[j].type = 0;
			want[j].new_type = 0;
			want[j].priv = 0;
		}
		local_irq_save(flags);
		n = riscv_ssctr_decode(&caps, rec, 0, caps.entries, req, a->bst,
				       got, &youngest);
		local_irq_restore(flags);
		ssctr_model_compare(test, a->what, got, n, want, nwant);
		n = riscv_ssctr_decode_raw(&caps, rec, raw, nraw, 0, caps.entries,
					   req, a->bst, got, &youngest);
		ssctr_model_compare(test, a->what, got, n, want, nwant);
		if (!(rec & ~req & SSCTR_REQ_PICKED)) {
			/* Nothing left out: the youngest record is logical 0. */
			KUNIT_EXPECT_EQ_MSG(test, youngest, 0, "%s", a->what);
			whole++;
		}
		checked++;
	}
	/* Every hart takes at least -j any, which wants all it records. */
	KUNIT_EXPECT_GE(test, checked, 3);
	KUNIT_EXPECT_GE(test, whole, 1);
}

static struct kunit_case ssctr_model_cases[] = {
	KUNIT_CASE_PARAM(ssctr_model_probe, ssctr_model_gen_params),
	KUNIT_CASE_PARAM(ssctr_model_attrs_check, ssctr_model_gen_params),
	KUNIT_CASE_PARAM(ssctr_model_records_check, ssctr_model_gen_params),
	{}
};

static struct kunit_suite ssctr_model_suite = {
	.name = "riscv_ctr_model",
	.init = ssctr_model_init,
	.exit = ssctr_model_exit,
	.test_cases = ssctr_model_cases,
};

kunit_test_suites(&ssctr_decode_suite, &ssctr_buffer_suite, &ssctr_model_suite);

MODULE_DESCRIPTION("KUnit tests of the RISC-V CTR driver");
MODULE_LICENSE("GPL");

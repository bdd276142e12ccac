// SPDX-License-Identifier: GPL-2.0-only
/*
 * RISC-V Control Transfer Records (Smctr/Ssctr) for perf branch stacks.
 *
 * CTR keeps the hart's most recent qualified control transfers in a
 * circular buffer of 16 to 256 entries. Software reads logical entry N
 * (0 is the youngest) through the indirect CSR window: siselect
 * 0x200 + N, then sireg, sireg2 and sireg3. The window is shared with
 * the AIA interrupt files, so it is only used with interrupts disabled.
 *
 * While a CPU has branch stack events, sctrctl records the union of what
 * they ask for: the privilege modes and the transfer types. Each sample
 * then gets the records its own event asked for, picked in software, so
 * that events with different filters can share the buffer, and a filter
 * the hart does not implement still holds. A record goes to an event when
 * its type is one the event asked for and each of its ends is either in
 * a privilege mode the event samples or 0: a user-only event never sees a
 * kernel address, whatever else the hart records.
 *
 * Records are not tagged with the task or the address space they came
 * from, so the buffer only ever holds the records of the task running on
 * the CPU, made since it came in or since recording started: it is wiped
 * at every context switch while the CPU records, whenever an event is
 * added while the buffer holds what another task (or another image of
 * this one, before exec) left, and at a sample that finds it so.
 *
 * In call-stack mode (RASEMU) the buffer is instead a stack of the calls
 * the code has not returned from yet. Such a stack belongs to one task:
 * the driver saves it when the task leaves a CPU and restores it when the
 * task comes back, on whichever CPU, if it is still the task's stack. A
 * CPU records in one mode at a time.
 */
#define pr_fmt(fmt) "riscv-ctr: " fmt

#include <linux/bitfield.h>
#include <linux/bug.h>
#include <linux/cpu_pm.h>
#include <linux/cpufeature.h>
#include <linux/device.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/kvm_types.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/perf/riscv_pmu.h>
#include <linux/perf_event.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/static_call.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#include <kunit/test-bug.h>
#include <kunit/visibility.h>
#include <asm/asm-extable.h>
#include <asm/csr.h>
#include <asm/insn-def.h>

#include "riscv_ctr.h"

#define SSCTR_T(t)		BIT(CTR_TYPE_##t)

/* Every transfer but a not-taken branch: what ANY records. */
#define SSCTR_TYPES_ANY		(SSCTR_T(EXCEPTION) | SSCTR_T(INTERRUPT) |	\
				 SSCTR_T(TRAP_RETURN) | SSCTR_T(BRANCH_T) |	\
				 SSCTR_T(INDCALL) | SSCTR_T(DIRCALL) |	\
				 SSCTR_T(INDJUMP) | SSCTR_T(DIRJUMP) |	\
				 SSCTR_T(CORSWAP) | SSCTR_T(RETURN) |	\
				 SSCTR_T(INDLJUMP) | SSCTR_T(DIRLJUMP))

/*
 * The transfers each perf branch type filter selects. The perf ABI counts
 * traps into a more privileged mode as calls and trap returns as returns.
 * A co-routine swap is both a return and a call.
 */
static const struct {
	u64 filter;
	u16 types;
	const char *name;	/* in caps/branch_hw_filters, as perf -j says it */
} ssctr_filter_types[] = {
	{ PERF_SAMPLE_BRANCH_ANY,	 SSCTR_TYPES_ANY },
	{ PERF_SAMPLE_BRANCH_ANY_CALL,	 SSCTR_T(EXCEPTION) | SSCTR_T(INTERRUPT) |
					 SSCTR_T(INDCALL) | SSCTR_T(DIRCALL) |
					 SSCTR_T(CORSWAP), "any_call" },
	{ PERF_SAMPLE_BRANCH_ANY_RETURN, SSCTR_T(TRAP_RETURN) | SSCTR_T(RETURN) |
					 SSCTR_T(CORSWAP), "any_ret" },
	{ PERF_SAMPLE_BRANCH_IND_CALL,	 SSCTR_T(INDCALL), "ind_call" },
	{ PERF_SAMPLE_BRANCH_CALL,	 SSCTR_T(DIRCALL), "call" },
	{ PERF_SAMPLE_BRANCH_IND_JUMP,	 SSCTR_T(INDJUMP) | SSCTR_T(INDLJUMP),
					 "ind_jmp" },
	{ PERF_SAMPLE_BRANCH_COND,	 SSCTR_T(BRANCH_T), "cond" },
};

#define SSCTR_BRANCH_PRIV		(PERF_SAMPLE_BRANCH_USER |		\
					 PERF_SAMPLE_BRANCH_KERNEL |		\
					 PERF_SAMPLE_BRANCH_HV)
#define SSCTR_BRANCH_TYPES	(PERF_SAMPLE_BRANCH_ANY |		\
				 PERF_SAMPLE_BRANCH_ANY_CALL |		\
				 PERF_SAMPLE_BRANCH_ANY_RETURN |	\
				 PERF_SAMPLE_BRANCH_IND_CALL |		\
				 PERF_SAMPLE_BRANCH_CALL |		\
				 PERF_SAMPLE_BRANCH_IND_JUMP |		\
				 PERF_SAMPLE_BRANCH_COND)
#define SSCTR_BRANCH_FLAGS	(PERF_SAMPLE_BRANCH_NO_FLAGS |		\
				 PERF_SAMPLE_BRANCH_NO_CYCLES |		\
				 PERF_SAMPLE_BRANCH_TYPE_SAVE |		\
				 PERF_SAMPLE_BRANCH_HW_INDEX |		\
				 PERF_SAMPLE_BRANCH_PRIV_SAVE)
/* No transactional memory, no counters on branches. */
#define SSCTR_BRANCH_UNSUPPORTED	(PERF_SAMPLE_BRANCH_ABORT_TX |		\
					 PERF_SAMPLE_BRANCH_IN_TX |		\
					 PERF_SAMPLE_BRANCH_NO_TX |		\
					 PERF_SAMPLE_BRANCH_COUNTERS)

/* What a call stack holds: the calls not yet returned from. */
#define SSCTR_TYPES_CALLSTACK	(SSCTR_T(INDCALL) | SSCTR_T(DIRCALL) | SSCTR_T(CORSWAP))

/*
 * The sctrctl bit that inhibits each transfer type; NTBREN instead enables
 * not-taken branches. Types without a bit (0, 6, 7) are never recorded.
 */
static const u64 ssctr_type_inhibit[SSCTR_NR_TYPES] = {
	[CTR_TYPE_EXCEPTION]	= CTRCTL_EXCINH,
	[CTR_TYPE_INTERRUPT]	= CTRCTL_INTRINH,
	[CTR_TYPE_TRAP_RETURN]	= CTRCTL_TRETINH,
	[CTR_TYPE_BRANCH_T]	= CTRCTL_TKBRINH,
	[CTR_TYPE_INDCALL]	= CTRCTL_INDCALLINH,
	[CTR_TYPE_DIRCALL]	= CTRCTL_DIRCALLINH,
	[CTR_TYPE_INDJUMP]	= CTRCTL_INDJMPINH,
	[CTR_TYPE_DIRJUMP]	= CTRCTL_DIRJMPINH,
	[CTR_TYPE_CORSWAP]	= CTRCTL_CORSWAPINH,
	[CTR_TYPE_RETURN]	= CTRCTL_RETINH,
	[CTR_TYPE_INDLJUMP]	= CTRCTL_INDLJMPINH,
	[CTR_TYPE_DIRLJUMP]	= CTRCTL_DIRLJMPINH,
};

#define CTRCTL_FILTERS		(CTRCTL_EXCINH | CTRCTL_INTRINH |		\
				 CTRCTL_TRETINH | CTRCTL_NTBREN |		\
				 CTRCTL_TKBRINH | CTRCTL_INDCALLINH |		\
				 CTRCTL_DIRCALLINH | CTRCTL_INDJMPINH |		\
				 CTRCTL_DIRJMPINH | CTRCTL_CORSWAPINH |		\
				 CTRCTL_RETINH | CTRCTL_INDLJMPINH |		\
				 CTRCTL_DIRLJMPINH)

/* A perf branch entry, and its words: the flags word is built whole. */
union ssctr_branch {
	struct perf_branch_entry e;
	u64 w[3];
};

/*
 * The flags word of a perf branch entry, in parts the decoder ORs
 * together instead of storing bit fields one by one: the type fields of
 * each transfer type, mispred or predicted, the privilege of each half
 * of the address space, and where the cycle count goes. Filled in from
 * the structure itself, at probe time.
 */
/* What ssctr_exception_word() tells an exception apart as. */
enum {
	SSCTR_EXC_SYSCALL,	/* ecall */
	SSCTR_EXC_DATA,		/* a load, store or AMO faulted */
	SSCTR_EXC_INST,		/* the instruction cannot be read */
	SSCTR_EXC_OTHER,		/* breakpoint, illegal instruction, ... */
	SSCTR_NR_EXC
};

static struct {
	u64 type[SSCTR_NR_TYPES];
	u64 exc[SSCTR_NR_EXC];
	u64 pred[2];		/* [0] predicted, [1] mispredicted */
	u64 priv[2];		/* [0] user, [1] kernel */
	u64 type_mask;		/* type and new_type */
} ssctr_words __read_mostly;

/* How each transfer type appears in a perf branch entry. */
static const struct {
	u8 type;
	u8 new_type;
} ssctr_perf_types[SSCTR_NR_TYPES] = {
	[CTR_TYPE_NONE]		= { PERF_BR_UNKNOWN },
	/* Told apart by the instruction: see ssctr_exception_word(). */
	[CTR_TYPE_EXCEPTION]	= { PERF_BR_SYSCALL },
	[CTR_TYPE_INTERRUPT]	= { PERF_BR_IRQ },
	[CTR_TYPE_TRAP_RETURN]	= { PERF_BR_ERET },
	/* Not a transfer: no tool may take it for a taken branch. */
	[CTR_TYPE_BRANCH_NT]	= { PERF_BR_EXTEND_ABI, PERF_BR_RISCV_NOT_TAKEN },
	[CTR_TYPE_BRANCH_T]	= { PERF_BR_COND },
	[6]			= { PERF_BR_UNKNOWN },
	[7]			= { PERF_BR_UNKNOWN },
	[CTR_TYPE_INDCALL]	= { PERF_BR_IND_CALL },
	[CTR_TYPE_DIRCALL]	= { PERF_BR_CALL },
	[CTR_TYPE_INDJUMP]	= { PERF_BR_IND },
	[CTR_TYPE_DIRJUMP]	= { PERF_BR_UNCOND },
	[CTR_TYPE_CORSWAP]	= { PERF_BR_EXTEND_ABI, PERF_BR_RISCV_CO_SWAP },
	[CTR_TYPE_RETURN]	= { PERF_BR_RET },
	[CTR_TYPE_INDLJUMP]	= { PERF_BR_EXTEND_ABI, PERF_BR_RISCV_IND_LINK_JUMP },
	[CTR_TYPE_DIRLJUMP]	= { PERF_BR_EXTEND_ABI, PERF_BR_RISCV_DIR_LINK_JUMP },
};

/*
 * A task's call stack while it is off the CPU (call-stack mode only):
 * sctrstatus and the valid records, youngest first. Sized at probe time
 * for the buffer's depth.
 *
 * The stack is only the task's own if every call and return it made was
 * recorded: from a restore (or an empty start) to the save, in one image.
 * @valid says the save was made so; @switches and @mm then name the
 * moment. A task that ran anywhere unrecorded after the save has switched
 * out since, and its count of context switches has moved on; one that
 * called exec has another mm. Either way the stack is not restored.
 */
struct ssctr_task_ctx {
	bool valid;
	unsigned long switches;
	struct mm_struct *mm;
	u32 status;
	unsigned int nr;
	struct riscv_ssctr_entry raw[];
};

/* The state of a CPU's buffer, and the records of the current overflow. */
struct ssctr_cpu {
	/* Branch events added on this CPU. */
	unsigned int users;
	/* How many of the events ask for each request bit. */
	unsigned int wants[SSCTR_REQ_BITS];
	/* sctrctl while recording. */
	u64 ctl;
	/*
	 * What the buffer may hold, as request bits (riscv_ssctr_recorded()):
	 * what @ctl records, and what every sctrctl since the last wipe
	 * recorded. A sample of an event that asks for all of it takes
	 * every record as it comes (see riscv_ssctr_decode()).
	 */
	u32 recorded;
	u32 ctl_recorded;
	/*
	 * While recording: the task, and its mm, whose records alone the
	 * buffer holds since it was last wiped or restored; NULL when that is
	 * not known.
	 */
	struct task_struct *owner;
	struct mm_struct *owner_mm;

	/*
	 * The buffer is lent to a vCPU KVM has loaded on this CPU
	 * (riscv_ssctr_lend()): the host records nothing then, and touches
	 * neither the buffer nor FROZEN.
	 */
	bool lent;

	/* Recording was stopped in software at this overflow, not frozen. */
	bool stopped;
	/* The PC the overflow interrupt interrupted. */
	unsigned long irq_pc;
	/*
	 * Set at the first sample of this overflow: the records of interest
	 * start at logical entry @first (those before it are the handler's
	 * own), and @wrptr says where logical entry 0 is.
	 */
	bool ready;
	unsigned int first;
	u32 wrptr;
	/*
	 * With several branch events on the CPU, the samples of an overflow
	 * decode from a copy of the records from @first on (@raw_nr of them,
	 * after the stack's entries), which each extends as far as it needs
	 * (@raw_all: to the last record): the buffer is read once however
	 * many events overflow together.
	 */
	bool raw_all;
	unsigned int raw_nr;
	/* The last member: a sample's branch stack, its entries after it. */
	struct perf_branch_stack stack;
};

/*
 * The most records to keep: every sample reads the whole buffer, so a
 * shallower one costs less per sample (riscv_ctr.depth=16 on the command
 * line). The hart may offer less.
 */
static unsigned int ssctr_depth_param = SSCTR_MAX_ENTRIES;
module_param_named(depth, ssctr_depth_param, uint, 0444);
MODULE_PARM_DESC(depth, "most records per hart: 16, 32, 64, 128 or 256 (default 256)");

/* What the harts implement; .entries is 0 when they have no usable CTR. */
static struct riscv_ssctr_caps ssctr_caps __read_mostly;
static struct ssctr_cpu __percpu *ssctr_cpus;

/* The copy of the buffer, after the stack's entries. */
static struct riscv_ssctr_entry *ssctr_raw(struct ssctr_cpu *cc)
{
	return (struct riscv_ssctr_entry *)(cc->stack.entries + ssctr_caps.entries);
}

static void ssctr_pm_register(void);
static void ssctr_pm_unregister(void);
static void ssctr_hw_reset(void);
static int riscv_ssctr_snapshot(struct perf_branch_entry *entries,
				unsigned int cnt);
static void ssctr_init_words(void);

#if IS_ENABLED(CONFIG_RISCV_CTR_KUNIT_TEST)
/*
 * A KUnit test may stand a software model of the CSR interface in for the
 * hart, for its own thread only: the probe and read paths then run
 * against a hart that lacks what QEMU has. Nothing else can see it.
 */
const struct riscv_ssctr_csr_model *riscv_ssctr_test_model;

/* The static key keeps this to a nop while no KUnit test runs. */
static __always_inline const struct riscv_ssctr_csr_model *ssctr_model(void)
{
	if (!static_branch_unlikely(&kunit_running) || !current->kunit_test)
		return NULL;
	return READ_ONCE(riscv_ssctr_test_model);
}
#else
static __always_inline const struct riscv_ssctr_csr_model *ssctr_model(void)
{
	return NULL;
}
#endif

/*
 * The CSRs the driver uses. csr_read() and csr_write() need the CSR
 * number at build time: every caller passes a constant, which folds the
 * switch away.
 */
static __always_inline unsigned long
__ssctr_csr_read(const struct riscv_ssctr_csr_model *m, unsigned int csr)
{
	if (m)
		return m->read(csr);
	switch (csr) {
	case CSR_SCTRCTL:
		return csr_read(CSR_SCTRCTL);
	case CSR_SCTRSTATUS:
		return csr_read(CSR_SCTRSTATUS);
	case CSR_SCTRDEPTH:
		return csr_read(CSR_SCTRDEPTH);
	case CSR_VSCTRCTL:
		return csr_read(CSR_VSCTRCTL);
	case CSR_SIREG:
		return csr_read(CSR_SIREG);
	case CSR_SIREG2:
		return csr_read(CSR_SIREG2);
	case CSR_SIREG3:
		return csr_read(CSR_SIREG3);
	default:
		BUILD_BUG();
	}
	return 0;
}

static __always_inline void
__ssctr_csr_write(const struct riscv_ssctr_csr_model *m, unsigned int csr,
		  unsigned long val)
{
	if (m)
		return m->write(csr, val);
	switch (csr) {
	case CSR_SCTRCTL:
		csr_write(CSR_SCTRCTL, val);
		break;
	case CSR_SCTRSTATUS:
		csr_write(CSR_SCTRSTATUS, val);
		break;
	case CSR_SCTRDEPTH:
		csr_write(CSR_SCTRDEPTH, val);
		break;
	case CSR_VSCTRCTL:
		csr_write(CSR_VSCTRCTL, val);
		break;
	case CSR_SISELECT:
		/*
		 * The AIA's IMSIC driver selects its own registers from its
		 * interrupt handler: between this and the sireg accesses
		 * that follow, an interrupt would redirect them.
		 */
		lockdep_assert_irqs_disabled();
		csr_write(CSR_SISELECT, val);
		break;
	case CSR_SIREG:
		csr_write(CSR_SIREG, val);
		break;
	case CSR_SIREG2:
		csr_write(CSR_SIREG2, val);
		break;
	case CSR_SIREG3:
		csr_write(CSR_SIREG3, val);
		break;
	default:
		BUILD_BUG();
	}
}

/*
 * siselect's low bits set or cleared (csrs, csrc with an immediate): the
 * next entry selected by one instruction with no register to count in.
 */
static __always_inline void
__ssctr_select_set(const struct riscv_ssctr_csr_model *m, unsigned long bits)
{
	if (m)
		return m->write(CSR_SISELECT, m->read(CSR_SISELECT) | bits);
	lockdep_assert_irqs_disabled();
	csr_set(CSR_SISELECT, bits);
}

static __always_inline void
__ssctr_select_clear(const struct riscv_ssctr_csr_model *m, unsigned long bits)
{
	if (m)
		return m->write(CSR_SISELECT, m->read(CSR_SISELECT) & ~bits);
	lockdep_assert_irqs_disabled();
	csr_clear(CSR_SISELECT, bits);
}

static __always_inline unsigned long ssctr_csr_read(unsigned int csr)
{
	return __ssctr_csr_read(ssctr_model(), csr);
}

static __always_inline void ssctr_csr_write(unsigned int csr, unsigned long val)
{
	__ssctr_csr_write(ssctr_model(), csr, val);
}

/* sctrstatus bits, set atomically (csrrs); return the old value. */
static __always_inline unsigned long ssctr_status_read_set(unsigned long bits)
{
	const struct riscv_ssctr_csr_model *m = ssctr_model();
	unsigned long old;

	if (m) {
		old = m->read(CSR_SCTRSTATUS);
		m->write(CSR_SCTRSTATUS, old | bits);
		return old;
	}
	return csr_read_set(CSR_SCTRSTATUS, bits);
}

/* sctrstatus bits, cleared atomically (csrc): WRPTR cannot move under it. */
static __always_inline void ssctr_status_clear(unsigned long bits)
{
	const struct riscv_ssctr_csr_model *m = ssctr_model();

	if (m)
		return m->write(CSR_SCTRSTATUS, m->read(CSR_SCTRSTATUS) & ~bits);
	csr_clear(CSR_SCTRSTATUS, bits);
}

/* SCTRCLR: every entry and the cycle counter to 0. */
VISIBLE_IF_KUNIT void riscv_ssctr_clear(void)
{
	const struct riscv_ssctr_csr_model *m = ssctr_model();

	if (m)
		return m->clear();
	asm volatile(SCTRCLR() ::: "memory");
}

/*
 * Firmware that predates Smctr can leave mstateen0.CTR clear, which makes
 * every CTR CSR an illegal instruction in S-mode although the ISA string
 * lists the extension; mstateen0.CSRIND gates the siselect/sireg window on
 * its own. Find out with accesses that survive the trap.
 */
static bool ssctr_accessible(unsigned int csr)
{
	const struct riscv_ssctr_csr_model *m = ssctr_model();
	unsigned long val = 0;
	int err = 0;

	if (m)
		return m->accessible(csr);
	if (csr == CSR_SCTRDEPTH) {
		asm volatile("1:	csrr	%[val], " __stringify(CSR_SCTRDEPTH) "\n"
			     "2:\n"
			     _ASM_EXTABLE_UACCESS_ERR(1b, 2b, %[err])
			     : [val] "+r" (val), [err] "+r" (err));
		return !err;
	}
	/* The entry window: select logical entry 0 and read its source. */
	lockdep_assert_irqs_disabled();
	val = CTR_ENTRY_SISELECT;
	asm volatile("1:	csrw	" __stringify(CSR_SISELECT) ", %[val]\n"
		     "	csrr	%[val], " __stringify(CSR_SIREG) "\n"
		     "2:\n"
		     _ASM_EXTABLE_UACCESS_ERR(1b, 2b, %[err])
		     : [val] "+r" (val), [err] "+r" (err));
	return !err;
}

/*
 * DEPTH is WARL and may read back any legal value, whatever was written:
 * try each one and keep those that stick. The spec makes them a
 * contiguous range; nothing here relies on it.
 */
static u8 ssctr_probe_depths(void)
{
	u8 depths = 0;
	int d;

	for (d = 0; d <= SCTRDEPTH_MAX; d++) {
		ssctr_csr_write(CSR_SCTRDEPTH, d);
		if (FIELD_GET(SCTRDEPTH_DEPTH, ssctr_csr_read(CSR_SCTRDEPTH)) == d)
			depths |= BIT(d);
	}
	return depths;
}

/* The deepest DEPTH of @depths that keeps at most @max entries, else the least. */
static int ssctr_pick_depth(u8 depths, unsigned int max)
{
	int d;

	for (d = SCTRDEPTH_MAX; d >= 0; d--)
		if ((depths & BIT(d)) && SSCTR_DEPTH_ENTRIES(d) <= max)
			return d;
	return depths ? __ffs(depths) : -1;
}

/*
 * Which sctrctl fields the hart implements: all but U, S, M and BPFRZ are
 * optional and read 0 when absent. They are written with U and S clear,
 * so nothing is recorded meanwhile.
 */
static u64 ssctr_probe_ctl(void)
{
	u64 ctl;

	ssctr_csr_write(CSR_SCTRCTL, CTRCTL_FILTERS | CTRCTL_LCOFIFRZ | CTRCTL_RASEMU);
	ctl = ssctr_csr_read(CSR_SCTRCTL);
	ssctr_csr_write(CSR_SCTRCTL, 0);

	return (ctl & (CTRCTL_FILTERS | CTRCTL_LCOFIFRZ | CTRCTL_RASEMU)) |
	       CTRCTL_U | CTRCTL_S;
}

/*
 * The vsctrctl fields a guest can set, against which KVM checks what a VMM
 * restores: the standard ones that stick. Nothing runs in a guest here.
 */
static u64 ssctr_probe_guest_ctl(void)
{
	const u64 fields = CTRCTL_U | CTRCTL_S | CTRCTL_RASEMU | CTRCTL_STE |
			   CTRCTL_BPFRZ | CTRCTL_LCOFIFRZ | CTRCTL_FILTERS;
	u64 ctl;

	ssctr_csr_write(CSR_VSCTRCTL, fields);
	ctl = ssctr_csr_read(CSR_VSCTRCTL);
	ssctr_csr_write(CSR_VSCTRCTL, 0);
	return ctl & fields;
}

/*
 * The optional fields of a record (TYPE, MISP, CCV and CC) read 0 where
 * the hart lacks them, and software can write the entries (that is how a
 * call stack is restored): write logical entry 0 with each field set and
 * see what stays. Recording is off.
 */
static void ssctr_probe_entry(struct riscv_ssctr_caps *caps)
{
	u64 target, data;

	riscv_ssctr_clear();
	ssctr_csr_write(CSR_SISELECT, CTR_ENTRY_SISELECT);
	ssctr_csr_write(CSR_SIREG, CTRSOURCE_VALID);
	ssctr_csr_write(CSR_SIREG2, CTRTARGET_MISP);
	ssctr_csr_write(CSR_SIREG3, FIELD_PREP(CTRDATA_TYPE, CTR_TYPE_BRANCH_T) |
				  CTRDATA_CCV | CTRDATA_CC);
	target = ssctr_csr_read(CSR_SIREG2);
	data = ssctr_csr_read(CSR_SIREG3);
	riscv_ssctr_clear();

	caps->type = FIELD_GET(CTRDATA_TYPE, data) == CTR_TYPE_BRANCH_T;
	caps->misp = target & CTRTARGET_MISP;
	caps->cycles = (data & CTRDATA_CCV) && (data & CTRDATA_CC);
}

/* riscv_ssctr_probe_caps(), interrupts off. */
static int __ssctr_probe_caps(unsigned int max, struct riscv_ssctr_caps *caps)
{
	*caps = (struct riscv_ssctr_caps){ };
	if (!ssctr_accessible(CSR_SCTRDEPTH) || !ssctr_accessible(CSR_SIREG))
		return -EACCES;

	ssctr_csr_write(CSR_SCTRCTL, 0);
	caps->depths = ssctr_probe_depths();
	caps->depth = ssctr_pick_depth(caps->depths, max);
	if (caps->depth < 0)
		return -ENODEV;
	ssctr_csr_write(CSR_SCTRDEPTH, caps->depth);
	caps->entries = SSCTR_DEPTH_ENTRIES(caps->depth);

	caps->ctl = ssctr_probe_ctl();
	if (riscv_has_extension_unlikely(RISCV_ISA_EXT_H))
		caps->guest_ctl = ssctr_probe_guest_ctl();
	/* Nothing records (sctrctl is 0): FROZEN can be tried. */
	ssctr_status_read_set(SCTRSTATUS_FROZEN);
	caps->frozen_writable = ssctr_csr_read(CSR_SCTRSTATUS) & SCTRSTATUS_FROZEN;
	ssctr_csr_write(CSR_SCTRSTATUS, 0);
	ssctr_probe_entry(caps);
	return 0;
}

/**
 * riscv_ssctr_probe_caps() - find out what this hart implements of CTR
 * @max: the most entries to use
 * @caps: what was found
 *
 * Probes the hart it runs on, with interrupts off for the whole of it:
 * siselect is shared with the AIA, whose interrupt handler selects its own
 * registers. Leaves the hart with the chosen depth, recording off and no
 * records.
 *
 * Return: 0, or -EACCES when firmware keeps the CSRs or the entry window
 * from S-mode, or -ENODEV when no depth sticks.
 */
VISIBLE_IF_KUNIT int riscv_ssctr_probe_caps(unsigned int max,
					    struct riscv_ssctr_caps *caps)
{
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	ret = __ssctr_probe_caps(max, caps);
	local_irq_restore(flags);
	return ret;
}

static void ssctr_print_caps(const struct riscv_ssctr_caps *caps)
{
	pr_info("%u entries (depths %#x), filters %#llx, %s types, %s mispredicts, %s cycles, %s freeze, %s call stacks\n",
		caps->entries, caps->depths, caps->ctl & CTRCTL_FILTERS,
		caps->type ? "with" : "no", caps->misp ? "with" : "no",
		caps->cycles ? "with" : "no",
		caps->ctl & CTRCTL_LCOFIFRZ ? "with" : "no",
		caps->ctl & CTRCTL_RASEMU ? "with" : "no");
}

/**
 * riscv_ssctr_probe() - find out whether the harts record control transfers
 * @pmu: the PMU that will take branch stack events
 *
 * Called once, before @pmu is registered and after its capabilities are
 * known, on the CPU that probes it. The harts are assumed to share one CTR
 * implementation, as they share one PMU. With call-stack mode, @pmu gets
 * the cache perf allocates each task's saved call stack from.
 */
void riscv_ssctr_probe(struct pmu *pmu)
{
	struct riscv_ssctr_caps caps;
	unsigned int max;
	int ret;

	/* The words follow perf's ABI, not the hart: set them up in any case. */
	ssctr_init_words();
	if (!riscv_isa_extension_available(NULL, SSCTR))
		return;
	/* Records are read out when a counter overflows, or never. */
	if (pmu->capabilities & PERF_PMU_CAP_NO_INTERRUPT) {
		pr_info("not used: the counters cannot interrupt on overflow (no Sscofpmf)\n");
		return;
	}

	max = clamp(ssctr_depth_param, SSCTR_DEPTH_ENTRIES(0), SSCTR_MAX_ENTRIES);
	preempt_disable();
	ret = riscv_ssctr_probe_caps(max, &caps);
	preempt_enable();
	if (ret == -EACCES) {
		pr_warn("CTR registers are not accessible: firmware leaves mstateen0.CTR or .CSRIND clear\n");
		return;
	}
	if (ret) {
		pr_warn("no CTR depth can be selected\n");
		return;
	}

	/* Once: a second probe would register the notifier twice. */
	if (WARN_ON_ONCE(ssctr_cpus))
		return;
	ssctr_cpus = __alloc_percpu(sizeof(struct ssctr_cpu) +
				    caps.entries * (sizeof(struct perf_branch_entry) +
						    sizeof(struct riscv_ssctr_entry)),
				  __alignof__(struct ssctr_cpu));
	if (!ssctr_cpus)
		return;

	if (caps.ctl & CTRCTL_RASEMU) {
		pmu->task_ctx_cache =
			kmem_cache_create("riscv_ctr_task_ctx",
					  struct_size_t(struct ssctr_task_ctx, raw, caps.entries),
					  0, 0, NULL);
		if (!pmu->task_ctx_cache)
			caps.ctl &= ~CTRCTL_RASEMU;
	}

	ssctr_caps = caps;
	ssctr_print_caps(&ssctr_caps);
	ssctr_pm_register();
	/* Before any BPF program can be verified: the JIT inlines the call. */
	static_call_update(perf_snapshot_branch_stack, riscv_ssctr_snapshot);
}

/**
 * riscv_ssctr_remove() - undo riscv_ssctr_probe()
 * @pmu: the PMU riscv_ssctr_probe() was given
 *
 * For the PMU driver's probe when it fails after riscv_ssctr_probe(): @pmu
 * was never registered, or was unregistered, so no event uses CTR. Does
 * nothing when riscv_ssctr_probe() found none; afterwards the driver is as
 * before riscv_ssctr_probe(), which may run again.
 */
void riscv_ssctr_remove(struct pmu *pmu)
{
	if (!ssctr_cpus)
		return;
	static_call_update(perf_snapshot_branch_stack,
			   (void *)&__static_call_return0);
	ssctr_pm_unregister();
	kmem_cache_destroy(pmu->task_ctx_cache);
	pmu->task_ctx_cache = NULL;
	ssctr_caps = (struct riscv_ssctr_caps){ };
	free_percpu(ssctr_cpus);
	ssctr_cpus = NULL;
}

/* Stop recording, select the depth and wipe the buffer. */
static void ssctr_hw_reset(void)
{
	ssctr_csr_write(CSR_SCTRCTL, 0);
	/*
	 * Guest enables left by firmware or a previous kernel would record
	 * a guest's branches into this buffer: no guest records until KVM
	 * says so.
	 */
	if (riscv_has_extension_unlikely(RISCV_ISA_EXT_H))
		ssctr_csr_write(CSR_VSCTRCTL, 0);
	ssctr_csr_write(CSR_SCTRDEPTH, ssctr_caps.depth);
	ssctr_csr_write(CSR_SCTRSTATUS, 0);
	riscv_ssctr_clear();
}

/**
 * riscv_ssctr_reset() - put this hart's CTR into a known, idle state
 *
 * Called on every hart as it comes online or goes offline: select the
 * depth, stop recording, host and guest (vsctrctl), and wipe whatever
 * firmware, a previous kernel or the last user of this hart left in it.
 */
void riscv_ssctr_reset(void)
{
	struct ssctr_cpu *cc;

	if (!ssctr_caps.entries)
		return;

	ssctr_hw_reset();
	WARN_ONCE(FIELD_GET(SCTRDEPTH_DEPTH, ssctr_csr_read(CSR_SCTRDEPTH)) !=
		  ssctr_caps.depth, "CPU%d cannot select CTR depth %u\n",
		  smp_processor_id(), ssctr_caps.entries);
	cc = this_cpu_ptr(ssctr_cpus);
	cc->ctl = 0;
	cc->recorded = 0;
	cc->ctl_recorded = 0;
	cc->owner = NULL;
}

/**
 * riscv_ssctr_num_branches() - the number of records a branch stack can hold
 *
 * Return: the depth of the CTR buffer, or 0 when there is none.
 */
unsigned int riscv_ssctr_num_branches(void)
{
	return ssctr_caps.entries;
}

/*
 * What the harts implement, in the PMU's caps/ directory where perf users
 * look: branches is the depth perf itself reads; the others say 1 or 0,
 * and which depths and sctrctl filter bits the hart has.
 */
static ssize_t branches_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%u\n", ssctr_caps.entries);
}
static DEVICE_ATTR_RO(branches);

static ssize_t branch_depths_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	unsigned long depths = ssctr_caps.depths;
	int len = 0, d;

	for_each_set_bit(d, &depths, SCTRDEPTH_MAX + 1)
		len += sysfs_emit_at(buf, len, "%s%u", len ? " " : "",
				     SSCTR_DEPTH_ENTRIES(d));
	return len + sysfs_emit_at(buf, len, "\n");
}
static DEVICE_ATTR_RO(branch_depths);

/* Can the hart record @types without the other types of ANY? */
static bool ssctr_hw_filters(const struct riscv_ssctr_caps *caps, u16 types)
{
	unsigned long others = SSCTR_TYPES_ANY & ~types;
	int t;

	for_each_set_bit(t, &others, SSCTR_NR_TYPES)
		if (!(caps->ctl & ssctr_type_inhibit[t]))
			return false;
	return true;
}

/*
 * The branch filters the hart applies itself, by the names perf's -j
 * takes: those whose transfers it can record without the others (every
 * other type has its inhibit bit), and not_taken with NTBREN. The rest
 * are met by leaving records out in software, for a cost per record.
 */
static ssize_t branch_hw_filters_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	int len = 0, i;

	for (i = 0; i < ARRAY_SIZE(ssctr_filter_types); i++)
		if (ssctr_filter_types[i].name &&
		    ssctr_hw_filters(&ssctr_caps, ssctr_filter_types[i].types))
			len += sysfs_emit_at(buf, len, "%s%s", len ? " " : "",
					     ssctr_filter_types[i].name);
	if (ssctr_caps.ctl & CTRCTL_NTBREN)
		len += sysfs_emit_at(buf, len, "%snot_taken", len ? " " : "");
	return len + sysfs_emit_at(buf, len, "\n");
}
static DEVICE_ATTR_RO(branch_hw_filters);

#define SSCTR_CAP_ATTR(name, expr)					\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%d\n", !!(expr));			\
}									\
static DEVICE_ATTR_RO(name)

SSCTR_CAP_ATTR(branch_types, ssctr_caps.type);
SSCTR_CAP_ATTR(branch_mispred, ssctr_caps.misp);
SSCTR_CAP_ATTR(branch_cycles, ssctr_caps.cycles);
SSCTR_CAP_ATTR(branch_call_stack, ssctr_caps.ctl & CTRCTL_RASEMU);
SSCTR_CAP_ATTR(branch_freeze, ssctr_caps.ctl & CTRCTL_LCOFIFRZ);

static struct attribute *ssctr_caps_attrs[] = {
	&dev_attr_branches.attr,
	&dev_attr_branch_depths.attr,
	&dev_attr_branch_types.attr,
	&dev_attr_branch_mispred.attr,
	&dev_attr_branch_cycles.attr,
	&dev_attr_branch_call_stack.attr,
	&dev_attr_branch_freeze.attr,
	&dev_attr_branch_hw_filters.attr,
	NULL,
};

static umode_t ssctr_caps_is_visible(struct kobject *kobj, struct attribute *attr,
				     int i)
{
	return ssctr_caps.entries ? attr->mode : 0;
}

const struct attribute_group riscv_ssctr_caps_group = {
	.name = "caps",
	.attrs = ssctr_caps_attrs,
	.is_visible = ssctr_caps_is_visible,
};

/*
 * Translate a perf branch_sample_type into what the hardware must record.
 * HV counts as the kernel: a Linux host runs in HS-mode, which is its own
 * hypervisor, and M-mode firmware can never be recorded from S-mode.
 *
 * A call stack is user space's only: the kernel's own calls would unbalance
 * it on every trap (the overflow handler returns from calls it entered
 * frozen), and perf takes kernel call chains from the kernel's unwinder. It
 * replaces the type filters, so asking for both is a contradiction.
 *
 * Every record is a taken transfer in perf's ABI: COND means taken
 * conditional branches, as on x86 and arm64, and tools that build ranges
 * from consecutive records rely on it. Not-taken branches come only with
 * @not_taken (the PMU's not_taken format attribute), beside COND or ANY.
 */
VISIBLE_IF_KUNIT int riscv_ssctr_request(u64 branch_sample_type, bool not_taken,
					 u32 *request)
{
	u64 bst = branch_sample_type;
	u32 req = 0;
	int i;

	BUILD_BUG_ON((SSCTR_BRANCH_PRIV | SSCTR_BRANCH_TYPES | SSCTR_BRANCH_FLAGS |
		      SSCTR_BRANCH_UNSUPPORTED | PERF_SAMPLE_BRANCH_CALL_STACK) !=
		     PERF_SAMPLE_BRANCH_MAX - 1);
	BUILD_BUG_ON(SSCTR_BRANCH_PRIV & SSCTR_BRANCH_TYPES);
	BUILD_BUG_ON((SSCTR_BRANCH_PRIV | SSCTR_BRANCH_TYPES) & SSCTR_BRANCH_FLAGS);
	BUILD_BUG_ON(SSCTR_REQ_BITS > 32);

	if (bst & SSCTR_BRANCH_UNSUPPORTED)
		return -EOPNOTSUPP;

	if (bst & PERF_SAMPLE_BRANCH_CALL_STACK) {
		if ((bst & SSCTR_BRANCH_TYPES) || not_taken)
			return -EINVAL;
		if (bst & (PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV))
			return -EOPNOTSUPP;
		if (!(bst & PERF_SAMPLE_BRANCH_USER))
			return -EINVAL;
		*request = SSCTR_REQ_CALLSTACK | SSCTR_REQ_U | SSCTR_TYPES_CALLSTACK;
		return 0;
	}

	for (i = 0; i < ARRAY_SIZE(ssctr_filter_types); i++)
		if (bst & ssctr_filter_types[i].filter)
			req |= ssctr_filter_types[i].types;
	/* A not-taken branch (NTBREN) has the next instruction as target. */
	if (not_taken) {
		if (!(bst & (PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_ANY)))
			return -EINVAL;
		req |= SSCTR_T(BRANCH_NT);
	}

	if (bst & PERF_SAMPLE_BRANCH_USER)
		req |= SSCTR_REQ_U;
	if (bst & (PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV))
		req |= SSCTR_REQ_S;

	if (!(req & SSCTR_REQ_TYPES) || !(req & (SSCTR_REQ_U | SSCTR_REQ_S)))
		return -EINVAL;

	*request = req;
	return 0;
}

/*
 * What a hart with @caps can record of it: -EOPNOTSUPP for what it lacks.
 * Without TYPE every record reads type 0 and software cannot pick types,
 * so only requests for every type (any), for types the hart can record
 * alone (its inhibit bits leave out every other type), or for a call
 * stack, which RASEMU keeps to calls by itself, can be met. Not-taken
 * branches need NTBREN, and TYPE to tell them from taken ones.
 */
VISIBLE_IF_KUNIT int riscv_ssctr_check(const struct riscv_ssctr_caps *caps,
				       u64 branch_sample_type, bool not_taken,
				       u32 *request)
{
	u32 req;
	int ret;

	ret = riscv_ssctr_request(branch_sample_type, not_taken, &req);
	if (ret)
		return ret;
	if (req & SSCTR_REQ_CALLSTACK) {
		if (!(caps->ctl & CTRCTL_RASEMU))
			return -EOPNOTSUPP;
	} else if (req & SSCTR_T(BRANCH_NT)) {
		if (!(caps->ctl & CTRCTL_NTBREN) || !caps->type)
			return -EOPNOTSUPP;
	} else if (!caps->type && (req & SSCTR_REQ_TYPES) != SSCTR_TYPES_ANY &&
		   !ssctr_hw_filters(caps, req & SSCTR_REQ_TYPES)) {
		return -EOPNOTSUPP;
	}

	*request = req;
	return 0;
}

/* The sctrctl value that records what @request asks for on a hart with @caps. */
VISIBLE_IF_KUNIT u64 riscv_ssctr_ctl(const struct riscv_ssctr_caps *caps,
				     u32 request)
{
	u64 ctl = CTRCTL_LCOFIFRZ;
	int t;

	/*
	 * RASEMU ignores the type filters. The freeze stays: only user calls
	 * are recorded, and none happen while the overflow is handled.
	 */
	if (request & SSCTR_REQ_CALLSTACK)
		return (ctl | CTRCTL_RASEMU | CTRCTL_U) & caps->ctl;

	/*
	 * With kernel branches recorded, the records of an overflow handler
	 * that was entered unfrozen are told apart by the interrupt that led
	 * to it (see ssctr_first()): record interrupts then, whatever the
	 * events asked for. Their samples leave them out, which takes TYPE;
	 * without it, such an overflow finds no interrupt and gives no
	 * records.
	 */
	if ((request & SSCTR_REQ_S) && caps->type)
		request |= SSCTR_T(INTERRUPT);

	if (request & SSCTR_REQ_U)
		ctl |= CTRCTL_U;
	if (request & SSCTR_REQ_S)
		ctl |= CTRCTL_S;
	for (t = 0; t < SSCTR_NR_TYPES; t++)
		if (!(request & BIT(t)))
			ctl |= ssctr_type_inhibit[t];
	if (request & SSCTR_T(BRANCH_NT))
		ctl |= CTRCTL_NTBREN;

	return ctl & caps->ctl;
}

/*
 * What a hart with @caps records under @ctl, as request bits: the modes,
 * and the transfer types. Without TYPE every record reads type 0 and
 * software picks none, so only the modes count; RASEMU keeps calls only.
 * Per the spec, a record never holds an address of a mode @ctl does not
 * record: the end in such a mode reads 0.
 */
VISIBLE_IF_KUNIT u32 riscv_ssctr_recorded(const struct riscv_ssctr_caps *caps,
					  u64 ctl)
{
	u32 rec = 0;
	int t;

	if (ctl & CTRCTL_U)
		rec |= SSCTR_REQ_U;
	if (ctl & CTRCTL_S)
		rec |= SSCTR_REQ_S;
	if (!rec || !caps->type)
		return rec;
	if (ctl & CTRCTL_RASEMU)
		return rec | SSCTR_TYPES_CALLSTACK;
	for (t = 0; t < SSCTR_NR_TYPES; t++)
		if (ssctr_type_inhibit[t] && !(ctl & ssctr_type_inhibit[t]))
			rec |= BIT(t);
	if (ctl & CTRCTL_NTBREN)
		rec |= SSCTR_T(BRANCH_NT);
	return rec;
}

/* The decoded value of a record's cycle count, 0 when it is not valid. */
static __always_inline u32 ssctr_cycles(u64 data)
{
	u32 ccm = FIELD_GET(CTRDATA_CCM, data);
	u32 cce = FIELD_GET(CTRDATA_CCE, data);

	if (!(data & CTRDATA_CCV))
		return 0;
	return cce ? (4096 + ccm) << (cce - 1) : ccm;
}

#if IS_ENABLED(CONFIG_RISCV_CTR_KUNIT_TEST)
VISIBLE_IF_KUNIT u32 riscv_ssctr_cycles(u64 data)
{
	return ssctr_cycles(data);
}
#endif

/*
 * A perf branch entry's flags word keeps mispred in bit 0, predicted in
 * bit 1, abort in bit 3 and the cycle count in its 16 bits from bit 4 on:
 * the ABI's bitfields on a little-endian machine (ssctr_init_words()
 * checks them).
 */
#define SSCTR_WORD_ABORT	BIT_ULL(3)
#define SSCTR_WORD_CYCLES_SHIFT	4

/*
 * A count below 8192 cycles (CCE 0 or 1: CCM, or 4096 + CCM unshifted)
 * is the CC field as it stands, and that is nearly every count between
 * two transfers. Shifted right by 12, ctrdata then has the count where
 * the flags word keeps it, and CCV (bit 15) on abort; bits 14:12 are
 * reserved, and the shortcut is taken only when they are 0.
 */
#define SSCTR_CC_FAST_MASK	(CTRDATA_CCV | GENMASK_ULL(31, 29) | \
				 GENMASK_ULL(14, 12))
#define SSCTR_CC_FAST_SHIFT	(16 - SSCTR_WORD_CYCLES_SHIFT)

/*
 * The other valid counts: decoded, saturated at 16 bits. Inline, a few
 * instructions off the loop's path: a call there would have the loop
 * keep its values where a call leaves them, on the stack.
 */
static __always_inline u64 ssctr_cycles_word_slow(u64 data)
{
	return (u64)umin(ssctr_cycles(data), U16_MAX) << SSCTR_WORD_CYCLES_SHIFT;
}

/*
 * The flags word of a record whose ctrtarget is @to and ctrdata @data:
 * predicted or mispredicted (with @flags) and the cycle count (with
 * @cycles; 0 when it is not valid). @pred is ssctr_words.pred[0], read
 * once by the caller's loop. This runs for every record of every sample.
 * Mispred is the bit below predicted: MISP shifts one into the other. A
 * short count costs a mask, a compare and one shift, and an exclusive or
 * then takes CCV off abort as it sets the prediction: (abort | predicted)
 * - MISP is abort | predicted, or abort | mispred.
 */
static __always_inline u64 ssctr_flags_word(u64 to, u64 data, u64 pred,
					    bool flags, bool cycles)
{
	const u64 misp = flags ? to & CTRTARGET_MISP : 0;

	pred = flags ? pred : 0;

	if (cycles && likely((data & SSCTR_CC_FAST_MASK) == CTRDATA_CCV))
		return ((u32)data >> SSCTR_CC_FAST_SHIFT) ^
		       ((SSCTR_WORD_ABORT | pred) - misp);
	/* A hart whose counter does not run has CCV clear throughout. */
	if (cycles && (data & CTRDATA_CCV))
		return (pred >> misp) | ssctr_cycles_word_slow(data);
	return pred >> misp;
}

#if IS_ENABLED(CONFIG_RISCV_CTR_KUNIT_TEST)
VISIBLE_IF_KUNIT u64 riscv_ssctr_flags_word(u64 to, u64 data, bool flags,
					    bool cycles)
{
	return ssctr_flags_word(to, data, ssctr_words.pred[0], flags, cycles);
}
#endif

static void ssctr_init_words(void)
{
	union ssctr_branch b;
	int t;

	for (t = 0; t < SSCTR_NR_TYPES; t++) {
		b = (union ssctr_branch){ .e.type = ssctr_perf_types[t].type,
					.e.new_type = ssctr_perf_types[t].new_type };
		ssctr_words.type[t] = b.w[2];
	}
	for (t = 0; t < SSCTR_NR_EXC; t++) {
		static const u8 exc_new_type[SSCTR_NR_EXC] = {
			[SSCTR_EXC_DATA]	= PERF_BR_NEW_FAULT_DATA,
			[SSCTR_EXC_INST]	= PERF_BR_NEW_FAULT_INST,
			[SSCTR_EXC_OTHER]	= PERF_BR_RISCV_EXCEPTION,
		};

		b = (union ssctr_branch){ .e.type = t == SSCTR_EXC_SYSCALL ?
					PERF_BR_SYSCALL : PERF_BR_EXTEND_ABI,
					.e.new_type = exc_new_type[t] };
		ssctr_words.exc[t] = b.w[2];
	}
	/* Both are 4 bits wide in the ABI. */
	b = (union ssctr_branch){ .e.type = 0xf, .e.new_type = 0xf };
	ssctr_words.type_mask = b.w[2];
	b = (union ssctr_branch){ .e.predicted = 1 };
	ssctr_words.pred[0] = b.w[2];
	b = (union ssctr_branch){ .e.mispred = 1 };
	ssctr_words.pred[1] = b.w[2];
	b = (union ssctr_branch){ .e.priv = PERF_BR_PRIV_USER };
	ssctr_words.priv[0] = b.w[2];
	b = (union ssctr_branch){ .e.priv = PERF_BR_PRIV_KERNEL };
	ssctr_words.priv[1] = b.w[2];
	/* Where ssctr_flags_word() puts what it decodes. */
	WARN_ON(ssctr_words.pred[0] >> 1 != ssctr_words.pred[1]);
	b = (union ssctr_branch){ .e.abort = 1 };
	WARN_ON(b.w[2] != SSCTR_WORD_ABORT);
	b = (union ssctr_branch){ .e.cycles = U16_MAX };
	WARN_ON(b.w[2] != (u64)U16_MAX << SSCTR_WORD_CYCLES_SHIFT);
}

/*
 * On RV64 user space is the lower and the kernel the upper half of the
 * address space, whatever the paging mode.
 */
static inline bool ssctr_kernel_addr(u64 addr)
{
	return (s64)addr < 0;
}

/*
 * TYPE 1 is any synchronous exception, its source the instruction that
 * took it: an ecall is a system call, anything else is not. The
 * instruction tells which, read without faulting (this runs in the
 * overflow interrupt, on the task that made the record): an ecall, a
 * memory access that faulted (a page fault or a misaligned access), an
 * instruction that cannot be read (an instruction fault, or a source of
 * 0 from an unrecorded mode), or another exception.
 */
#define SSCTR_INSN_ECALL		0x00000073

/* 16 bits of the instruction at @addr, kernel or user, without faulting. */
static int ssctr_read_parcel(u64 addr, u16 *parcel)
{
	if (ssctr_kernel_addr(addr))
		return copy_from_kernel_nofault(parcel, (void *)addr,
						sizeof(*parcel));
	return copy_from_user_nofault(parcel, (void __user *)addr,
				      sizeof(*parcel));
}

static noinline u64 ssctr_exception_word(u64 from)
{
	u16 lo, hi;
	u32 insn;

	if (!from)
		return ssctr_words.exc[SSCTR_EXC_OTHER];
	if (ssctr_read_parcel(from, &lo))
		return ssctr_words.exc[SSCTR_EXC_INST];

	if ((lo & 3) != 3) {
		/* Compressed: the loads and stores of quadrants 0 and 2. */
		unsigned int funct3 = lo >> 13;

		if ((lo & 3) == 0 && funct3)
			return ssctr_words.exc[SSCTR_EXC_DATA];
		if ((lo & 3) == 2 && funct3 && funct3 != 4)
			return ssctr_words.exc[SSCTR_EXC_DATA];
		return ssctr_words.exc[SSCTR_EXC_OTHER];
	}
	/* The second half may be on the next page: read it on its own. */
	if (ssctr_read_parcel(from + 2, &hi))
		return ssctr_words.exc[SSCTR_EXC_INST];
	insn = lo | (u32)hi << 16;
	if (insn == SSCTR_INSN_ECALL)
		return ssctr_words.exc[SSCTR_EXC_SYSCALL];
	switch (insn & 0x7f) {
	case 0x03:	/* LOAD */
	case 0x07:	/* LOAD-FP, vector loads */
	case 0x23:	/* STORE */
	case 0x27:	/* STORE-FP, vector stores */
	case 0x2f:	/* AMO */
		return ssctr_words.exc[SSCTR_EXC_DATA];
	}
	return ssctr_words.exc[SSCTR_EXC_OTHER];
}

/*
 * The exceptions among the records from @e up to @end, typed as TYPE 1 is
 * (PERF_BR_SYSCALL, which no other type gives), typed by their source.
 * After the loop that stored them, so that it makes no call.
 */
static noinline void ssctr_type_exceptions(union ssctr_branch *e,
					   const union ssctr_branch *end)
{
	const u64 mask = ssctr_words.type_mask;

	for (; e < end; e++)
		if ((e->w[2] & mask) == ssctr_words.type[CTR_TYPE_EXCEPTION])
			e->w[2] = (e->w[2] & ~mask) | ssctr_exception_word(e->w[0]);
}

/*
 * The privilege of the records from @e up to @end, after the loop that
 * stored them (PERF_SAMPLE_BRANCH_PRIV_SAVE). An event of one privilege
 * mode takes records whose ends are all in that mode (or 0); else a
 * record's is that of its first non-zero end.
 */
static noinline void ssctr_priv_words(union ssctr_branch *e,
				      const union ssctr_branch *end,
				      bool user_only, bool kernel_only)
{
	u64 first;

	for (; e < end; e++) {
		first = e->w[0] ?: e->w[1];
		if (user_only)
			e->w[2] |= ssctr_words.priv[0];
		else if (kernel_only)
			e->w[2] |= ssctr_words.priv[1];
		else if (first)
			e->w[2] |= ssctr_words.priv[ssctr_kernel_addr(first)];
	}
}

/* The valid records from logical entry @first on, at most @max of them. */
static unsigned int ssctr_read_raw(struct riscv_ssctr_entry *raw,
				   unsigned int first, unsigned int max)
{
	unsigned int i;

	for (i = 0; i < max; i++) {
		ssctr_csr_write(CSR_SISELECT, CTR_ENTRY_SISELECT + first + i);
		raw[i].source = ssctr_csr_read(CSR_SIREG);
		if (!(raw[i].source & CTRSOURCE_VALID))
			break;
		raw[i].target = ssctr_csr_read(CSR_SIREG2);
		raw[i].data = ssctr_csr_read(CSR_SIREG3);
	}

	return i;
}

/*
 * Read the valid records, youngest first, into @raw, at most @max of
 * them; return how many. Interrupts are off: siselect is shared with the
 * AIA.
 */
VISIBLE_IF_KUNIT unsigned int riscv_ssctr_read_entries(struct riscv_ssctr_entry *raw,
						       unsigned int max)
{
	return ssctr_read_raw(raw, 0, max);
}

/*
 * The records come from the hart (or the model @m), or, with @copy, from
 * @raw, the copy of the @limit logical entries from @first on that
 * ssctr_read_raw() made. @flags and @cycles are constants in each copy
 * (ssctr_decode_fields()), the rest of what is fixed for the sample is
 * worked out before the loop, and the loop makes no call (exceptions
 * are typed after it, privileges given after it): it keeps what it needs
 * in registers and tests per record only what the record decides.
 */
static __always_inline unsigned int
__ssctr_decode(const struct riscv_ssctr_csr_model *m,
	       const struct riscv_ssctr_entry *raw, const bool copy,
	       unsigned int limit,
	       const struct riscv_ssctr_caps *caps, unsigned int first,
	       unsigned int max, u32 request, u64 branch_sample_type,
	       const bool flags, const bool cycles,
	       struct perf_branch_entry *out, int *youngest)
{
	const bool save_type = branch_sample_type & PERF_SAMPLE_BRANCH_TYPE_SAVE;
	const bool save_priv = branch_sample_type & PERF_SAMPLE_BRANCH_PRIV_SAVE;
	/* The types taken; a hart without TYPE reads 0, taken as any. */
	const u64 types = caps->type ? request & SSCTR_REQ_TYPES : ~0ULL;
	/*
	 * Each record is what the hart would have recorded for @request
	 * alone, when the buffer recorded more modes for other events on the
	 * CPU: an event's records must not depend on the events beside it.
	 * Per the spec, with S alone a trap from U is recorded with source 0
	 * and a trap return to U with target 0, and with U alone neither is
	 * recorded (the driver sets no STE): a transfer whose every end lies
	 * in U is the only one U alone records.
	 */
	const bool user_only = !(request & SSCTR_REQ_S);
	const bool kernel_only = !(request & SSCTR_REQ_U);
	union ssctr_branch *e = (union ssctr_branch *)out, *end = e + max;
	/* Where records were first left out after one was taken. */
	union ssctr_branch *gap = NULL;
	const u64 pred = ssctr_words.pred[0];
	unsigned long sel = CTR_ENTRY_SISELECT + first;
	const unsigned long sel_end = CTR_ENTRY_SISELECT + limit;
	unsigned int lead = 0;
	bool exceptions = false;

	BUILD_BUG_ON(CTRSOURCE_VALID != ~SSCTR_PC_MASK);

	*youngest = -1;
	if (first >= limit || !max)
		return 0;
	for (; sel != sel_end; sel++) {
		u64 from, pc, to, target, data, word;
		unsigned int type;

		if (copy) {
			pc = raw->source & SSCTR_PC_MASK;
			target = raw->target;
			data = raw->data;
			raw++;
		} else {
			__ssctr_csr_write(m, CSR_SISELECT, sel);
			from = __ssctr_csr_read(m, CSR_SIREG);
			pc = from & SSCTR_PC_MASK;
			/* The valid bit is the one bit the mask takes off. */
			OPTIMIZER_HIDE_VAR(pc);
			if (pc == from)
				break;
			target = __ssctr_csr_read(m, CSR_SIREG2);
			data = __ssctr_csr_read(m, CSR_SIREG3);
		}
		/* Without TYPE the field reads 0: PERF_BR_UNKNOWN. */
		type = FIELD_GET(CTRDATA_TYPE, data);
		to = target & SSCTR_PC_MASK;

		if (!((types >> type) & 1))
			goto skip;
		if (user_only) {
			if (ssctr_kernel_addr(pc | to))
				goto skip;
		} else if (kernel_only && !ssctr_kernel_addr(pc & to)) {
			/* An end in user mode reads 0, as the hart gives it. */
			pc &= (s64)pc >> 63;
			to &= (s64)to >> 63;
			if (!(pc | to))
				goto skip;
		}

		word = ssctr_flags_word(target, data, pred, flags, cycles);
		/* An exception's type comes after the loop. */
		if (save_type) {
			word |= ssctr_words.type[type];
			exceptions |= type == CTR_TYPE_EXCEPTION;
		}
		e->w[0] = pc;
		e->w[1] = to;
		e->w[2] = word;
		if (++e == end)
			break;
		continue;
skip:
		/* Taken records are consecutive when no gap falls between two. */
		if (e == (union ssctr_branch *)out)
			lead++;
		else if (!gap)
			gap = e;
	}
	if (e != (union ssctr_branch *)out && (!gap || gap == e))
		*youngest = first + lead;
	if (unlikely(exceptions))
		ssctr_type_exceptions((union ssctr_branch *)out, e);
	if (save_priv)
		ssctr_priv_words((union ssctr_branch *)out, e, user_only,
				 kernel_only);

	return e - (union ssctr_branch *)out;
}

/* __ssctr_decode(), one copy for each pair of the fields it decodes. */
static __always_inline unsigned int
ssctr_decode_fields(const struct riscv_ssctr_csr_model *m,
		    const struct riscv_ssctr_entry *raw, const bool copy,
		    unsigned int limit,
		    const struct riscv_ssctr_caps *caps, unsigned int first,
		    unsigned int max, u32 request, u64 bst,
		    struct perf_branch_entry *out, int *youngest)
{
	const bool flags = caps->misp && !(bst & PERF_SAMPLE_BRANCH_NO_FLAGS);
	const bool cycles = caps->cycles && !(bst & PERF_SAMPLE_BRANCH_NO_CYCLES);

	if (flags && cycles)
		return __ssctr_decode(m, raw, copy, limit, caps, first, max,
				      request, bst, true, true, out, youngest);
	if (flags)
		return __ssctr_decode(m, raw, copy, limit, caps, first, max,
				      request, bst, true, false, out, youngest);
	if (cycles)
		return __ssctr_decode(m, raw, copy, limit, caps, first, max,
				      request, bst, false, true, out, youngest);
	return __ssctr_decode(m, raw, copy, limit, caps, first, max, request,
			      bst, false, false, out, youngest);
}

/*
 * ssctr_decode_fields() from the hart and from a copy: each a function
 * of its own, whose loops have the registers to themselves.
 */
static noinline unsigned int
ssctr_decode_hart(unsigned int limit, const struct riscv_ssctr_caps *caps,
		  unsigned int first, unsigned int max, u32 request, u64 bst,
		  struct perf_branch_entry *out, int *youngest)
{
	return ssctr_decode_fields(NULL, NULL, false, limit, caps, first, max,
				   request, bst, out, youngest);
}

static noinline unsigned int
ssctr_decode_copy(const struct riscv_ssctr_entry *raw, unsigned int limit,
		  const struct riscv_ssctr_caps *caps, unsigned int first,
		  unsigned int max, u32 request, u64 bst,
		  struct perf_branch_entry *out, int *youngest)
{
	return ssctr_decode_fields(NULL, raw, true, limit, caps, first, max,
				   request, bst, out, youngest);
}

/* What ssctr_read_all() fills in besides the addresses. */
enum {
	SSCTR_F_FLAGS	= BIT(0),	/* mispred or predicted */
	SSCTR_F_CYCLES	= BIT(1),	/* the cycle count */
	SSCTR_F_TYPE	= BIT(2),	/* type and new_type */
};

/*
 * The record of the selected entry, valid and from @pc, into @e: the rest
 * of ssctr_read_all()'s loop, for a constant @fields.
 */
static __always_inline void
ssctr_copy_entry(const struct riscv_ssctr_csr_model *m, u64 pc,
		 const unsigned int fields, u64 pred, union ssctr_branch *e)
{
	u64 to, data = 0, word;
	unsigned int type;

	to = __ssctr_csr_read(m, CSR_SIREG2);
	if (fields & (SSCTR_F_CYCLES | SSCTR_F_TYPE))
		data = __ssctr_csr_read(m, CSR_SIREG3);
	word = ssctr_flags_word(to, data, pred, fields & SSCTR_F_FLAGS,
				fields & SSCTR_F_CYCLES);
	if (fields & SSCTR_F_TYPE) {
		/* Without TYPE the field reads 0: PERF_BR_UNKNOWN. */
		type = FIELD_GET(CTRDATA_TYPE, data);
		word |= likely(type != CTR_TYPE_EXCEPTION) ?
			ssctr_words.type[type] : ssctr_exception_word(pc);
	}
	e->w[0] = pc;
	e->w[1] = to & SSCTR_PC_MASK;
	e->w[2] = word;
}

/*
 * The records of entries @sel on, at most @nr of them, when all are
 * wanted and the flags word asks for no privilege: the common sample.
 * Nothing is left out, so each record is stored as it is read, and
 * ctrdata is only read for the cycle count or the type. @fields is a
 * constant in every copy of the loop (ssctr_read_all_hart()).
 *
 * Records enter at logical entry 0 and leave together (SCTRCLR) or from
 * entry 0 (a RASEMU return, which makes the freed entry the last): the
 * valid entries come first. When the last entry asked for is valid, as
 * in every sample but those of a buffer not yet filled, so is each
 * before it: they are copied four a turn with no valid bit tested, the
 * next entry selected by setting or clearing a bit of siselect (0, 1, 3,
 * 2). Otherwise the valid bit, the one bit of ctrsource that is not the
 * address, is tested for each: a source that masking leaves unchanged
 * ends the records.
 */
static __always_inline unsigned int
ssctr_read_all(const struct riscv_ssctr_csr_model *m, unsigned long sel,
	       unsigned int nr, const unsigned int fields,
	       struct perf_branch_entry *out)
{
	union ssctr_branch *e = (union ssctr_branch *)out, *end = e + nr;
	const u64 pred = ssctr_words.pred[0];
	u64 from, pc;

	BUILD_BUG_ON(CTRSOURCE_VALID != ~SSCTR_PC_MASK);
	BUILD_BUG_ON(CTR_ENTRY_SISELECT & 3);

	if (!nr)
		return 0;
	if (nr >= 4 && !(sel & 3)) {
		__ssctr_csr_write(m, CSR_SISELECT, sel + nr - 1);
		if (__ssctr_csr_read(m, CSR_SIREG) & CTRSOURCE_VALID) {
			union ssctr_branch *end4 = e + (nr & ~3U);

			do {
				__ssctr_csr_write(m, CSR_SISELECT, sel);
				pc = __ssctr_csr_read(m, CSR_SIREG) &
				     SSCTR_PC_MASK;
				ssctr_copy_entry(m, pc, fields, pred, e);
				__ssctr_select_set(m, 1);
				pc = __ssctr_csr_read(m, CSR_SIREG) &
				     SSCTR_PC_MASK;
				ssctr_copy_entry(m, pc, fields, pred, e + 1);
				__ssctr_select_set(m, 2);
				pc = __ssctr_csr_read(m, CSR_SIREG) &
				     SSCTR_PC_MASK;
				ssctr_copy_entry(m, pc, fields, pred, e + 3);
				__ssctr_select_clear(m, 1);
				pc = __ssctr_csr_read(m, CSR_SIREG) &
				     SSCTR_PC_MASK;
				ssctr_copy_entry(m, pc, fields, pred, e + 2);
				sel += 4;
				e += 4;
			} while (e < end4);
			if (e == end)
				return nr;
		}
	}
	do {
		__ssctr_csr_write(m, CSR_SISELECT, sel++);
		from = __ssctr_csr_read(m, CSR_SIREG);
		pc = from & SSCTR_PC_MASK;
		/* One compare for the valid bit, the mask being needed anyway. */
		OPTIMIZER_HIDE_VAR(pc);
		if (pc == from)
			break;
		ssctr_copy_entry(m, pc, fields, pred, e);
	} while (++e < end);
	return e - (union ssctr_branch *)out;
}

/* ssctr_read_all() from the copy ssctr_read_raw() made. */
static unsigned int ssctr_copy_raw(const struct riscv_ssctr_entry *raw,
				   unsigned int nr, unsigned int fields,
				   struct perf_branch_entry *out)
{
	union ssctr_branch *e = (union ssctr_branch *)out;
	const u64 pred = ssctr_words.pred[0];
	unsigned int i, type;
	u64 word;

	for (i = 0; i < nr; i++, e++) {
		word = ssctr_flags_word(raw[i].target, raw[i].data, pred,
					fields & SSCTR_F_FLAGS,
					fields & SSCTR_F_CYCLES);
		if (fields & SSCTR_F_TYPE) {
			type = FIELD_GET(CTRDATA_TYPE, raw[i].data);
			word |= type != CTR_TYPE_EXCEPTION ? ssctr_words.type[type] :
				ssctr_exception_word(raw[i].source & SSCTR_PC_MASK);
		}
		e->w[0] = raw[i].source & SSCTR_PC_MASK;
		e->w[1] = raw[i].target & SSCTR_PC_MASK;
		e->w[2] = word;
	}
	return nr;
}

/* ssctr_read_all() on the hart, one copy for each set of fields. */
static unsigned int ssctr_read_all_hart(unsigned long sel, unsigned int nr,
					unsigned int fields,
					struct perf_branch_entry *out)
{
	const unsigned int f = SSCTR_F_FLAGS, c = SSCTR_F_CYCLES, t = SSCTR_F_TYPE;

	switch (fields) {
	case f | c:
		return ssctr_read_all(NULL, sel, nr, f | c, out);
	case f:
		return ssctr_read_all(NULL, sel, nr, f, out);
	case c:
		return ssctr_read_all(NULL, sel, nr, c, out);
	case 0:
		return ssctr_read_all(NULL, sel, nr, 0, out);
	case f | c | t:
		return ssctr_read_all(NULL, sel, nr, f | c | t, out);
	case f | t:
		return ssctr_read_all(NULL, sel, nr, f | t, out);
	case c | t:
		return ssctr_read_all(NULL, sel, nr, c | t, out);
	default:
		return ssctr_read_all(NULL, sel, nr, t, out);
	}
}

/*
 * Turn the records an event asked for into perf branch entries in @out,
 * from logical entry @first on and at most @max of them; return how many.
 * They come from the hart (or the model @m), or, with @raw, from a copy
 * of the logical entries from @first up to @limit. @request is the
 * event's, @recorded what the buffer may hold (riscv_ssctr_recorded()),
 * @branch_sample_type says which fields to fill in, @caps which of them
 * the hart records. *@youngest becomes the logical entry of the first
 * record taken when those taken are consecutive in the buffer, else -1:
 * only then does a sample have a hardware index (see riscv_ssctr_sample()).
 *
 * This runs for every record of every sample: one pass over the hart's
 * registers, each entry built in registers and stored once. When the
 * event wants everything the buffer may hold, the usual case of one
 * branch event on a CPU, no record is left out and none is looked at
 * but for its type, when asked for: they are copied as they come.
 * Interrupts are off: siselect is shared with the AIA.
 */
static __always_inline unsigned int
ssctr_decode(const struct riscv_ssctr_csr_model *m, const struct riscv_ssctr_entry *raw,
	     unsigned int limit, const struct riscv_ssctr_caps *caps, u32 recorded,
	     unsigned int first, unsigned int max, u32 request,
	     u64 branch_sample_type, struct perf_branch_entry *out, int *youngest)
{
	const u64 bst = branch_sample_type;
	unsigned int nr, fields = 0;

	BUILD_BUG_ON(sizeof(union ssctr_branch) != sizeof(struct perf_branch_entry));

	if (!(recorded & ~request & SSCTR_REQ_PICKED) &&
	    !(bst & PERF_SAMPLE_BRANCH_PRIV_SAVE)) {
		if (caps->misp && !(bst & PERF_SAMPLE_BRANCH_NO_FLAGS))
			fields |= SSCTR_F_FLAGS;
		if (caps->cycles && !(bst & PERF_SAMPLE_BRANCH_NO_CYCLES))
			fields |= SSCTR_F_CYCLES;
		if (bst & PERF_SAMPLE_BRANCH_TYPE_SAVE)
			fields |= SSCTR_F_TYPE;
		nr = first < limit ? min(max, limit - first) : 0;
		if (raw)
			nr = ssctr_copy_raw(raw, nr, fields, out);
		else if (m)
			nr = ssctr_read_all(m, CTR_ENTRY_SISELECT + first, nr,
					    fields, out);
		else
			nr = ssctr_read_all_hart(CTR_ENTRY_SISELECT + first, nr,
						 fields, out);
		*youngest = nr ? first : -1;
		return nr;
	}

	/*
	 * Copies of their own: the hart's has no test of the model left in it;
	 * the model's (KUnit's only) are inline here.
	 */
	if (raw)
		return ssctr_decode_copy(raw, limit, caps, first, max, request,
					 bst, out, youngest);
	if (m)
		return ssctr_decode_fields(m, NULL, false, limit, caps, first,
					   max, request, bst, out, youngest);
	return ssctr_decode_hart(limit, caps, first, max, request, bst, out,
				 youngest);
}

/* ssctr_decode() from the hart's buffer. */
VISIBLE_IF_KUNIT unsigned int
riscv_ssctr_decode(const struct riscv_ssctr_caps *caps, u32 recorded,
		   unsigned int first, unsigned int max, u32 request,
		   u64 branch_sample_type, struct perf_branch_entry *out,
		   int *youngest)
{
	return ssctr_decode(ssctr_model(), NULL, caps->entries, caps, recorded,
			    first, max, request, branch_sample_type, out, youngest);
}

/* ssctr_decode() from @nr records read by ssctr_read_raw() from @first on. */
VISIBLE_IF_KUNIT unsigned int
riscv_ssctr_decode_raw(const struct riscv_ssctr_caps *caps, u32 recorded,
		       const struct riscv_ssctr_entry *raw, unsigned int nr,
		       unsigned int first, unsigned int max, u32 request,
		       u64 branch_sample_type, struct perf_branch_entry *out,
		       int *youngest)
{
	return ssctr_decode(NULL, raw, first + nr, caps, recorded, first, max,
			    request, branch_sample_type, out, youngest);
}

/**
 * riscv_ssctr_event_init() - check and translate an event's branch filters
 * @event: an event with PERF_SAMPLE_BRANCH_STACK
 *
 * The PMU's event_init must call it last, when nothing else can fail: for
 * a call stack it sets PERF_ATTACH_TASK_DATA, and perf frees an event
 * with that flag as if it held the task's save area, even when event_init
 * failed afterwards and perf never attached one.
 *
 * Return: 0, -EOPNOTSUPP when the harts have no CTR or the filters ask for
 * what CTR cannot record, or -EINVAL when they ask for nothing at all, for
 * not-taken branches without cond or any, or the event does not sample.
 */
int riscv_ssctr_event_init(struct perf_event *event)
{
	u32 request;
	int ret;

	if (!ssctr_caps.entries)
		return -EOPNOTSUPP;
	if (!is_sampling_event(event))
		return -EINVAL;
	/*
	 * The host records none of a guest's transfers, whatever
	 * exclude_guest says: an event of guests only would get none.
	 */
	if (event->attr.exclude_host)
		return -EOPNOTSUPP;

	ret = riscv_ssctr_check(&ssctr_caps, event->attr.branch_sample_type,
				event->attr.config2 & RISCV_SSCTR_CONFIG2_NOT_TAKEN,
				&request);
	if (ret)
		return ret;
	/* perf core allocates the task's save area (or every task's). */
	if (request & SSCTR_REQ_CALLSTACK)
		event->attach_state |= PERF_ATTACH_TASK_DATA;

	event->hw.branch_reg.config = request;
	return 0;
}

/* Does the buffer hold records of the current task and image only? */
static bool ssctr_owned(const struct ssctr_cpu *cc)
{
	return cc->owner == current && cc->owner_mm == current->mm;
}

/* The buffer now holds the current task's records only. */
static void ssctr_set_owner(struct ssctr_cpu *cc)
{
	cc->owner = current;
	cc->owner_mm = current->mm;
}

/* Start the buffer afresh for the task now on this CPU. */
static void ssctr_start_afresh(struct ssctr_cpu *cc)
{
	if (cc->lent)
		return;
	riscv_ssctr_clear();
	ssctr_set_owner(cc);
	cc->recorded = cc->ctl_recorded;
}

/* Record what the CPU's events ask for, or nothing when it has none. */
static void ssctr_program(struct ssctr_cpu *cc)
{
	u32 request = 0;
	u64 ctl = 0;
	int i;

	for (i = 0; i < SSCTR_REQ_BITS; i++)
		if (cc->wants[i])
			request |= BIT(i);
	if (request)
		ctl = riscv_ssctr_ctl(&ssctr_caps, request);
	if (ctl == cc->ctl)
		return;

	if (!cc->lent)
		ssctr_csr_write(CSR_SCTRCTL, ctl);
	cc->ctl = ctl;
	cc->ctl_recorded = riscv_ssctr_recorded(&ssctr_caps, ctl);
	cc->recorded |= cc->ctl_recorded;
	/* What runs while nothing is recorded leaves a gap: forget the owner. */
	if (!ctl)
		cc->owner = NULL;
}

static void ssctr_account(struct ssctr_cpu *cc, struct perf_event *event, int delta)
{
	unsigned long request = event->hw.branch_reg.config;
	int bit;

	for_each_set_bit(bit, &request, SSCTR_REQ_BITS)
		cc->wants[bit] += delta;
	cc->users += delta;
}

/*
 * Can an event of @request share a CPU whose events all ask for the types
 * @common and together for @any? With TYPE each sample keeps its event's
 * types. Without it every record reads type 0: only events that ask for
 * the same types can share, which the hart then records alone.
 */
VISIBLE_IF_KUNIT bool riscv_ssctr_types_share(const struct riscv_ssctr_caps *caps,
					      u32 common, u32 any, u32 request)
{
	request &= SSCTR_REQ_TYPES;
	return caps->type || ((common & SSCTR_REQ_TYPES) == request &&
			      (any & SSCTR_REQ_TYPES) == request);
}

/* May @event join the branch events already on this CPU? */
static bool ssctr_shares(const struct ssctr_cpu *cc, u32 request)
{
	u32 common = 0, any = 0;
	int i;

	if (!cc->users)
		return true;
	if (!!cc->wants[SSCTR_REQ_CALLSTACK_BIT] != !!(request & SSCTR_REQ_CALLSTACK))
		return false;
	for (i = 0; i < SSCTR_NR_TYPES; i++) {
		if (cc->wants[i])
			any |= BIT(i);
		if (cc->wants[i] == cc->users)
			common |= BIT(i);
	}
	return riscv_ssctr_types_share(&ssctr_caps, common, any, request);
}

/**
 * riscv_ssctr_add() - start recording for a branch event added to this CPU
 * @event: the event
 *
 * perf adds events when their task comes in, but also in the middle of a
 * time slice: PERF_EVENT_IOC_ENABLE, enable_on_exec, attaching to a
 * running task, multiplexing. Unless the CPU has been recording the
 * current task alone since it came in, the buffer is wiped: it may hold
 * another task's records, or a gap. A task's saved call stack comes back
 * in the context switch callback that follows an add at sched-in.
 *
 * Return: 0, or -EBUSY when the events already there keep the CPU from
 * recording what @event needs: the other mode (call stack or branches),
 * or, on a hart without TYPE, other types. perf then tries again later.
 */
int riscv_ssctr_add(struct perf_event *event)
{
	struct ssctr_cpu *cc = this_cpu_ptr(ssctr_cpus);

	if (!ssctr_shares(cc, event->hw.branch_reg.config))
		return -EBUSY;

	if (!cc->users)
		perf_sched_cb_inc(event->pmu);
	ssctr_account(cc, event, 1);
	ssctr_program(cc);
	if (!ssctr_owned(cc))
		ssctr_start_afresh(cc);
	return 0;
}

/**
 * riscv_ssctr_del() - stop recording for a branch event leaving this CPU
 * @event: the event
 */
void riscv_ssctr_del(struct perf_event *event)
{
	struct ssctr_cpu *cc = this_cpu_ptr(ssctr_cpus);

	ssctr_account(cc, event, -1);
	ssctr_program(cc);
	if (!cc->users)
		perf_sched_cb_dec(event->pmu);
}

/* @task's save area for its call stack, if perf gave it one. */
static struct ssctr_task_ctx *ssctr_task_ctx(struct task_struct *task)
{
	struct perf_ctx_data *cd;

	cd = rcu_dereference_sched(task->perf_ctx_data);
	return cd ? cd->data : NULL;
}

/* The context switches @task has made: one more each time it leaves a CPU. */
static unsigned long ssctr_task_switches(const struct task_struct *task)
{
	return READ_ONCE(task->nvcsw) + READ_ONCE(task->nivcsw);
}

/* Save a call stack: the valid records, youngest first, and sctrstatus. */
VISIBLE_IF_KUNIT unsigned int riscv_ssctr_save(struct riscv_ssctr_entry *raw,
					       u32 *status)
{
	*status = ssctr_csr_read(CSR_SCTRSTATUS);
	return riscv_ssctr_read_entries(raw, ssctr_caps.entries);
}

/*
 * Put a saved call stack back. Only user calls are recorded and this runs
 * in the kernel, so nothing moves meanwhile. sctrstatus goes first, as the
 * spec asks: it decides where logical entry 0 is.
 */
VISIBLE_IF_KUNIT void riscv_ssctr_restore(const struct riscv_ssctr_entry *raw,
					  unsigned int nr, u32 status)
{
	unsigned int i;

	riscv_ssctr_clear();
	ssctr_csr_write(CSR_SCTRSTATUS, status & SCTRSTATUS_WRPTR);
	for (i = 0; i < nr; i++) {
		ssctr_csr_write(CSR_SISELECT, CTR_ENTRY_SISELECT + i);
		ssctr_csr_write(CSR_SIREG, raw[i].source);
		ssctr_csr_write(CSR_SIREG2, raw[i].target);
		ssctr_csr_write(CSR_SIREG3, raw[i].data);
	}
}

/* Keep @task's call stack as it leaves the CPU, if it is the task's own. */
static void ssctr_save_stack(struct ssctr_cpu *cc, struct task_struct *task)
{
	struct ssctr_task_ctx *tc = ssctr_task_ctx(task);

	if (!tc)
		return;
	tc->valid = ssctr_owned(cc);
	if (!tc->valid)
		return;
	tc->nr = riscv_ssctr_save(tc->raw, &tc->status);
	tc->switches = ssctr_task_switches(task);
	tc->mm = task->mm;
}

/*
 * Give @task, coming in, its own call stack if it has one, else none;
 * @wiped: the buffer holds nothing since @task came in (an add at this
 * sched-in wiped it): no stack to restore needs no second wipe.
 */
static void ssctr_restore_stack(struct ssctr_cpu *cc, struct task_struct *task,
				bool wiped)
{
	struct ssctr_task_ctx *tc = ssctr_task_ctx(task);

	if (tc && tc->valid && tc->switches == ssctr_task_switches(task) &&
	    tc->mm == task->mm) {
		/* riscv_ssctr_restore() wipes what was there first. */
		riscv_ssctr_restore(tc->raw, tc->nr, tc->status);
		ssctr_set_owner(cc);
	} else if (!wiped) {
		ssctr_start_afresh(cc);
	}
	/* It is used once: what the task does next is in the buffer. */
	if (tc)
		tc->valid = false;
}

#ifdef CONFIG_CPU_PM
/*
 * A CPU power-management transition may lose the hart's CTR state, a
 * non-retentive suspend for one, and perf keeps the CPU's events through
 * it: program the hart again on the way back, as the events on the CPU
 * need. A call stack leaves and comes back with the task, as at a context
 * switch; any other record the task made before is gone.
 */
static int ssctr_pm_notify(struct notifier_block *nb, unsigned long cmd,
			   void *v)
{
	struct ssctr_cpu *cc = this_cpu_ptr(ssctr_cpus);

	switch (cmd) {
	case CPU_PM_ENTER:
		if (cc->ctl & CTRCTL_RASEMU)
			ssctr_save_stack(cc, current);
		break;
	case CPU_PM_EXIT:
	case CPU_PM_ENTER_FAILED:
		ssctr_hw_reset();
		if (!cc->ctl)
			break;
		ssctr_csr_write(CSR_SCTRCTL, cc->ctl);
		/* The reset wiped the buffer: it is the current task's. */
		if (cc->ctl & CTRCTL_RASEMU)
			ssctr_restore_stack(cc, current, false);
		else
			ssctr_set_owner(cc);
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block ssctr_pm_nb = {
	.notifier_call = ssctr_pm_notify,
};

static void ssctr_pm_register(void)
{
	cpu_pm_register_notifier(&ssctr_pm_nb);
}

static void ssctr_pm_unregister(void)
{
	cpu_pm_unregister_notifier(&ssctr_pm_nb);
}
#else
static void ssctr_pm_register(void) { }
static void ssctr_pm_unregister(void) { }
#endif

/**
 * riscv_ssctr_sched_task() - the PMU's context switch callback
 * @pmu_ctx: unused
 * @task: the task that leaves (@sched_in false) or comes in
 * @sched_in: true when @task is scheduled in
 *
 * Called with interrupts off, and only while the CPU has branch events,
 * for every context switch: after the events of the task coming in were
 * added, and before those of the task leaving are deleted. The buffer is
 * wiped for the task that comes in, whatever the events: nothing in it is
 * that task's, and a CPU-wide event must not hand one task's records to
 * another's samples. In call-stack mode a task's stack instead leaves
 * with it and comes back with it, when nothing it did went unrecorded in
 * between; otherwise it starts empty. Empty is better than wrong.
 */
void riscv_ssctr_sched_task(struct perf_event_pmu_context *pmu_ctx,
			    struct task_struct *task, bool sched_in)
{
	struct ssctr_cpu *cc = this_cpu_ptr(ssctr_cpus);

	lockdep_assert_irqs_disabled();

	/* A vCPU's buffer goes with KVM's vcpu_put, right after this. */
	if (!cc->ctl || cc->lent)
		return;
	/*
	 * An event added at this sched-in wiped the buffer already and made
	 * it the incoming task's (riscv_ssctr_add()): once is enough. Without
	 * such an add the buffer is still the task's that left.
	 */
	if (!(cc->ctl & CTRCTL_RASEMU)) {
		if (sched_in && !ssctr_owned(cc))
			ssctr_start_afresh(cc);
		return;
	}
	if (sched_in)
		ssctr_restore_stack(cc, task, ssctr_owned(cc));
	else
		ssctr_save_stack(cc, task);
}

/* This CPU's state when it records for branch events, else NULL. */
static struct ssctr_cpu *ssctr_recording_cpu(void)
{
	struct ssctr_cpu *cc;

	if (!ssctr_caps.entries)
		return NULL;
	cc = this_cpu_ptr(ssctr_cpus);
	return cc->users && !cc->lent ? cc : NULL;
}

/**
 * riscv_ssctr_freeze() - stop recording at a counter overflow interrupt
 *
 * The first act of the overflow handler. The overflow interrupt normally
 * freezes the buffer (LCOFIFRZ) as it is taken. When it was serviced
 * inside another trap, the timer's with AIA, or the hart cannot freeze,
 * the buffer is still recording: stop it at once, and remember where the
 * interrupt hit, to leave the handler's own records out. Setting FROZEN
 * stops it without touching the cycle counter, which a write of sctrctl
 * would reset; a hart whose FROZEN cannot be set has recording turned off
 * in sctrctl instead.
 */
void riscv_ssctr_freeze(void)
{
	struct ssctr_cpu *cc = ssctr_recording_cpu();

	if (!cc)
		return;

	cc->ready = false;
	if (ssctr_caps.frozen_writable) {
		/* csrrs: freeze, and learn whether the interrupt had, at once. */
		cc->stopped = !(ssctr_status_read_set(SCTRSTATUS_FROZEN) &
				SCTRSTATUS_FROZEN);
	} else {
		cc->stopped = !(ssctr_csr_read(CSR_SCTRSTATUS) & SCTRSTATUS_FROZEN);
		if (cc->stopped)
			ssctr_csr_write(CSR_SCTRCTL, 0);
	}
	if (cc->stopped)
		cc->irq_pc = instruction_pointer(get_irq_regs());
}

/*
 * Is this the record of the interrupt the overflow handler came in by? Its
 * source is the interrupted PC, or 0 when the interrupted mode was not
 * recorded (user space while only kernel branches are).
 */
static bool ssctr_irq_entry(const struct riscv_ssctr_caps *caps, u64 ctl,
			    unsigned long irq_pc, u64 source, u64 data)
{
	u64 src = source & SSCTR_PC_MASK;
	u64 mode = ssctr_kernel_addr(irq_pc) ? CTRCTL_S : CTRCTL_U;

	/* Without TYPE every record reads type 0: go by the source alone. */
	if (caps->type && FIELD_GET(CTRDATA_TYPE, data) != CTR_TYPE_INTERRUPT)
		return false;
	return src == irq_pc || (!src && !(ctl & mode));
}

/*
 * Where the records of an overflow start when it was stopped in software
 * with kernel recording on (@ctl): the buffer also holds the trap that
 * led to the handler and what the kernel did since, which end with the
 * youngest interrupt taken at the interrupted PC, @irq_pc. Return the
 * logical entry after it; if it is gone, the handler's records filled
 * the buffer and there are none: return the depth.
 */
VISIBLE_IF_KUNIT unsigned int riscv_ssctr_after_irq(const struct riscv_ssctr_caps *caps,
						    u64 ctl, unsigned long irq_pc)
{
	unsigned int i;
	u64 src;

	/* Not recorded: a record that matches would be another transfer. */
	if (ctl & CTRCTL_INTRINH)
		return caps->entries;
	for (i = 0; i < caps->entries; i++) {
		ssctr_csr_write(CSR_SISELECT, CTR_ENTRY_SISELECT + i);
		src = ssctr_csr_read(CSR_SIREG);
		if (!(src & CTRSOURCE_VALID))
			break;
		if (ssctr_irq_entry(caps, ctl, irq_pc, src,
				    ssctr_csr_read(CSR_SIREG3)))
			return i + 1;
	}
	return caps->entries;
}

/* Where the records of this overflow start. */
static unsigned int ssctr_first(const struct ssctr_cpu *cc)
{
	if (!cc->stopped || !(cc->ctl & CTRCTL_S))
		return 0;
	return riscv_ssctr_after_irq(&ssctr_caps, cc->ctl, cc->irq_pc);
}

/*
 * The most records a sample of @event can carry: perf cuts every branch
 * stack at sample_max_stack entries (kernel.perf_event_max_stack, 127,
 * unless the event asks otherwise), so reading the rest of a deeper
 * buffer would be for nothing.
 */
static unsigned int ssctr_sample_max(const struct perf_event *event)
{
	unsigned int max = event->attr.sample_max_stack;

	return max ? min(max, ssctr_caps.entries) : ssctr_caps.entries;
}

/*
 * Extend the copy of this overflow's records as far as a sample of
 * @request, at most @max records, may look: @max records when it takes
 * every record, else to the last one.
 */
static void ssctr_copy_more(struct ssctr_cpu *cc, u32 request, unsigned int max)
{
	unsigned int need, n;

	need = cc->first < ssctr_caps.entries ? ssctr_caps.entries - cc->first : 0;
	if (!(cc->recorded & ~request & SSCTR_REQ_PICKED))
		need = min(need, max);
	if (cc->raw_all || cc->raw_nr >= need)
		return;
	n = ssctr_read_raw(ssctr_raw(cc) + cc->raw_nr, cc->first + cc->raw_nr,
			   need - cc->raw_nr);
	cc->raw_all = n < need - cc->raw_nr;
	cc->raw_nr += n;
}

/**
 * riscv_ssctr_sample() - add the branch stack to a sample of @event
 * @event: a branch event that overflowed
 * @data: its sample
 *
 * Each sample reads the frozen buffer as far as it can carry, and only
 * the first of an overflow finds out where its records start. With more
 * than one branch event on the CPU, several may overflow at once: their
 * samples then decode from a copy, so that no record is read twice.
 */
void riscv_ssctr_sample(struct perf_event *event, struct perf_sample_data *data)
{
	struct ssctr_cpu *cc = this_cpu_ptr(ssctr_cpus);
	unsigned int max = ssctr_sample_max(event);
	int youngest;

	/* The buffer is a guest's: the host's task recorded nothing. */
	if (cc->lent) {
		cc->stack.nr = 0;
		cc->stack.hw_idx = -1ULL;
		perf_sample_save_brstack(data, event, &cc->stack, NULL);
		return;
	}

	/*
	 * The buffer may hold what another task or image left when a path
	 * perf takes added no event and switched no task, exec for one: give
	 * no records, and start afresh.
	 */
	if (!cc->ready) {
		if (ssctr_owned(cc)) {
			cc->first = ssctr_first(cc);
		} else {
			ssctr_start_afresh(cc);
			cc->first = ssctr_caps.entries;
		}
		cc->wrptr = FIELD_GET(SCTRSTATUS_WRPTR,
				      ssctr_csr_read(CSR_SCTRSTATUS));
		cc->raw_nr = 0;
		cc->raw_all = false;
		cc->ready = true;
	}

	if (cc->users > 1) {
		ssctr_copy_more(cc, event->hw.branch_reg.config, max);
		cc->stack.nr = riscv_ssctr_decode_raw(&ssctr_caps, cc->recorded,
						      ssctr_raw(cc), cc->raw_nr,
						      cc->first, max,
						      event->hw.branch_reg.config,
						      event->attr.branch_sample_type,
						      cc->stack.entries, &youngest);
	} else {
		cc->stack.nr = riscv_ssctr_decode(&ssctr_caps, cc->recorded,
						  cc->first, max,
						  event->hw.branch_reg.config,
						  event->attr.branch_sample_type,
						  cc->stack.entries, &youngest);
	}
	/*
	 * The hardware index (PERF_SAMPLE_BRANCH_HW_INDEX) is the place in the
	 * circular buffer of the youngest record the sample holds. perf report
	 * --stitch-lbr joins the stacks of consecutive samples by it, which
	 * only works when the sample's records are consecutive in the buffer:
	 * where the event's filter left a gap between them, or kept none, it
	 * cannot be known and is -1, as on x86.
	 */
	cc->stack.hw_idx = youngest < 0 ? -1ULL :
			   (cc->wrptr - 1 - youngest) & (ssctr_caps.entries - 1);
	perf_sample_save_brstack(data, event, &cc->stack, NULL);
}

/**
 * riscv_ssctr_unfreeze() - let recording go on after an overflow interrupt
 */
void riscv_ssctr_unfreeze(void)
{
	struct ssctr_cpu *cc = ssctr_recording_cpu();

	if (!cc)
		return;

	/* csrc is atomic: WRPTR cannot change under a read-modify-write. */
	ssctr_status_clear(SCTRSTATUS_FROZEN);
	if (cc->stopped && !ssctr_caps.frozen_writable)
		ssctr_csr_write(CSR_SCTRCTL, cc->ctl);
}

/*
 * bpf_get_branch_snapshot(): the records of the current task up to now,
 * youngest first, while a branch event records on this CPU. The first act
 * is to stop recording, so that the snapshot holds as few of its own
 * transfers as it can (the BPF helper call and this function's entry);
 * the buffer goes on afterwards as it was, frozen or not, and an overflow
 * interrupt that comes meanwhile waits for interrupts to be on again.
 * FROZEN leaves the cycle counter alone; a hart whose FROZEN cannot be set
 * stops in sctrctl instead, which resets it.
 *
 * Empty, never stale or another task's: with no branch event on the CPU
 * (the buffer is not kept then), or when the buffer may hold another
 * task's records, where a sample would get none either.
 */
static int riscv_ssctr_snapshot(struct perf_branch_entry *entries,
				unsigned int cnt)
{
	unsigned long flags, status = SCTRSTATUS_FROZEN;
	struct ssctr_cpu *cc;
	unsigned int nr = 0;
	int youngest;

	/*
	 * Stop before interrupts go off: with their tracing on (lockdep),
	 * local_irq_save() alone takes hundreds of branches, which push the
	 * caller's out of the buffer. Preemption goes off first, untraced,
	 * so that the buffer thawed below is the one frozen here. An overflow
	 * interrupt in between finds the buffer frozen, samples it and lets
	 * it go on: the snapshot then holds the handler's records too.
	 */
	preempt_disable_notrace();
	cc = this_cpu_ptr(ssctr_cpus);
	/*
	 * While a vCPU holds the buffer, FROZEN is the guest's: setting and
	 * clearing it here would undo a freeze that the guest's overflow
	 * made in between (KVM sets it). Only a context switch changes
	 * cc->lent, and preemption is off.
	 */
	if (READ_ONCE(cc->lent) || !READ_ONCE(cc->ctl)) {
		preempt_enable_notrace();
		return 0;
	}
	if (ssctr_caps.frozen_writable)
		status = ssctr_status_read_set(SCTRSTATUS_FROZEN);
	local_irq_save(flags);
	/* An event may have gone meanwhile, in an IPI. */
	if (!cc->ctl)
		goto out;
	if (!ssctr_caps.frozen_writable)
		ssctr_csr_write(CSR_SCTRCTL, 0);

	if (ssctr_owned(cc))
		nr = riscv_ssctr_decode(&ssctr_caps, cc->recorded, 0,
					min(cnt, ssctr_caps.entries),
					SSCTR_REQ_PICKED, PERF_SAMPLE_BRANCH_TYPE_SAVE |
					PERF_SAMPLE_BRANCH_PRIV_SAVE,
					entries, &youngest);
	else
		ssctr_start_afresh(cc);

	if (!ssctr_caps.frozen_writable)
		ssctr_csr_write(CSR_SCTRCTL, cc->ctl);
out:
	if (!(status & SCTRSTATUS_FROZEN))
		ssctr_status_clear(SCTRSTATUS_FROZEN);
	local_irq_restore(flags);
	preempt_enable_notrace();
	return nr;
}

/*
 * A guest that KVM offers Ssctr records into the one buffer of the hart
 * it runs on, through vsctrctl (its sctrctl), sctrstatus and the entry
 * window, all without exits. KVM keeps each vCPU's state and lends it
 * the buffer while the vCPU is loaded: riscv_ssctr_lend() stops the host's
 * recording on this CPU and leaves the buffer, sctrdepth, sctrstatus and
 * vsctrctl to KVM, which moves the vCPU's records in and out with
 * riscv_ssctr_lent_write() and riscv_ssctr_lent_read(); riscv_ssctr_reclaim()
 * wipes the buffer and lets the host record again. Host samples taken
 * meanwhile carry no records (the vCPU thread's host side is not
 * recorded), as the host's records are never the guest's to read.
 */

/**
 * riscv_ssctr_guest_depths() - the buffer depths a vCPU may select
 *
 * Return: bit N set when sctrdepth.DEPTH N (16 << N entries) can be
 * selected, whatever riscv_ctr.depth= keeps the host to: a vCPU's state,
 * and the registers a VMM migrates it by, follow the hardware alone. 0
 * when the buffer cannot be lent: no CTR, no TYPE (a guest could not
 * tell its records apart) or no H extension.
 */
u8 riscv_ssctr_guest_depths(void)
{
	if (!ssctr_caps.entries || !ssctr_caps.type ||
	    !riscv_has_extension_unlikely(RISCV_ISA_EXT_H))
		return 0;
	return ssctr_caps.depths;
}
EXPORT_SYMBOL_FOR_KVM(riscv_ssctr_guest_depths);

/**
 * riscv_ssctr_guest_ctl() - the vsctrctl bits a guest can set
 *
 * Return: the standard sctrctl fields that stick in vsctrctl, against
 * which KVM checks what a VMM restores.
 */
u64 riscv_ssctr_guest_ctl(void)
{
	return ssctr_caps.guest_ctl;
}
EXPORT_SYMBOL_FOR_KVM(riscv_ssctr_guest_ctl);

/**
 * riscv_ssctr_lend() - lend this CPU's buffer to a vCPU
 *
 * Called by KVM with interrupts off as it loads a vCPU with Ssctr on this
 * CPU. The host's recording stops, a call stack leaving as at a context
 * switch. Until riscv_ssctr_reclaim() the buffer, sctrdepth, sctrstatus and
 * vsctrctl are KVM's: the host touches neither the buffer nor FROZEN.
 */
void riscv_ssctr_lend(void)
{
	struct ssctr_cpu *cc = this_cpu_ptr(ssctr_cpus);

	lockdep_assert_irqs_disabled();
	if (WARN_ON_ONCE(cc->lent))
		return;
	if (cc->ctl) {
		if (cc->ctl & CTRCTL_RASEMU)
			ssctr_save_stack(cc, current);
		ssctr_csr_write(CSR_SCTRCTL, 0);
	}
	cc->lent = true;
}
EXPORT_SYMBOL_FOR_KVM(riscv_ssctr_lend);

/**
 * riscv_ssctr_reclaim() - take this CPU's buffer back from a vCPU
 *
 * Called by KVM with interrupts off as it puts the vCPU, once it has
 * taken the vCPU's state out and cleared vsctrctl. The buffer is wiped
 * at the host's depth and the host records again, afresh.
 */
void riscv_ssctr_reclaim(void)
{
	struct ssctr_cpu *cc = this_cpu_ptr(ssctr_cpus);

	lockdep_assert_irqs_disabled();
	if (WARN_ON_ONCE(!cc->lent))
		return;
	/* The spec asks for a clear after a change of depth, not before. */
	ssctr_csr_write(CSR_SCTRDEPTH, ssctr_caps.depth);
	ssctr_csr_write(CSR_SCTRSTATUS, 0);
	riscv_ssctr_clear();
	cc->lent = false;
	if (cc->ctl) {
		ssctr_csr_write(CSR_SCTRCTL, cc->ctl);
		cc->recorded = cc->ctl_recorded;
		if (cc->ctl & CTRCTL_RASEMU)
			ssctr_restore_stack(cc, current, false);
		else
			ssctr_set_owner(cc);
	}
}
EXPORT_SYMBOL_FOR_KVM(riscv_ssctr_reclaim);

/**
 * riscv_ssctr_lent_read() - read the buffer lent to a vCPU
 * @raw: the entries, logical entry 0 (the youngest) first
 * @nr: how many: every entry of the depth the vCPU selected
 * @status: sctrstatus (WRPTR and FROZEN)
 *
 * Called by KVM with interrupts off, between riscv_ssctr_lend() and
 * riscv_ssctr_reclaim(). Every entry, valid or not: a guest, or the VMM
 * that restored its state, may leave invalid entries between valid ones,
 * and reads back the targets and data of invalid entries it wrote.
 */
void riscv_ssctr_lent_read(struct riscv_ssctr_entry *raw, unsigned int nr,
			   unsigned long *status)
{
	unsigned int i;

	lockdep_assert_irqs_disabled();
	if (WARN_ON_ONCE(!this_cpu_ptr(ssctr_cpus)->lent))
		return;
	*status = ssctr_csr_read(CSR_SCTRSTATUS);
	for (i = 0; i < nr; i++) {
		ssctr_csr_write(CSR_SISELECT, CTR_ENTRY_SISELECT + i);
		raw[i].source = ssctr_csr_read(CSR_SIREG);
		raw[i].target = ssctr_csr_read(CSR_SIREG2);
		raw[i].data = ssctr_csr_read(CSR_SIREG3);
	}
}
EXPORT_SYMBOL_FOR_KVM(riscv_ssctr_lent_read);

/**
 * riscv_ssctr_lent_write() - fill the buffer lent to a vCPU
 * @raw: the entries, logical entry 0 (the youngest) first
 * @nr: how many: every entry of the depth KVM selected
 * @status: sctrstatus (WRPTR and FROZEN)
 *
 * Called by KVM with interrupts off, between riscv_ssctr_lend() and
 * riscv_ssctr_reclaim(), with sctrdepth selected and nothing recording.
 * What the buffer held goes first.
 */
void riscv_ssctr_lent_write(const struct riscv_ssctr_entry *raw, unsigned int nr,
			    unsigned long status)
{
	lockdep_assert_irqs_disabled();
	if (WARN_ON_ONCE(!this_cpu_ptr(ssctr_cpus)->lent))
		return;
	riscv_ssctr_restore(raw, nr, status);
	if (status & SCTRSTATUS_FROZEN)
		ssctr_status_read_set(SCTRSTATUS_FROZEN);
}
EXPORT_SYMBOL_FOR_KVM(riscv_ssctr_lent_write);

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
#include <linux/cpufeature.h>
#include <linux/hardirq.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <kunit/visibility.h>
#include <asm/asm-extable.h>
#include <asm/csr.h>
#include <asm/ctr.h>

#include "riscv_ctr.h"

#define CTR_T(t)		BIT(CTR_TYPE_##t)

/* Every transfer but a not-taken branch: what ANY records. */
#define CTR_TYPES_ANY		(CTR_T(EXCEPTION) | CTR_T(INTERRUPT) |	\
				 CTR_T(TRAP_RETURN) | CTR_T(BRANCH_T) |	\
				 CTR_T(INDCALL) | CTR_T(DIRCALL) |	\
				 CTR_T(INDJUMP) | CTR_T(DIRJUMP) |	\
				 CTR_T(CORSWAP) | CTR_T(RETURN) |	\
				 CTR_T(INDLJUMP) | CTR_T(DIRLJUMP))

/*
 * The transfers each perf branch type filter selects. The perf ABI counts
 * traps into a more privileged mode as calls and trap returns as returns.
 * A co-routine swap is both a return and a call.
 */
static const struct {
	u64 filter;
	u16 types;
} ctr_filter_types[] = {
	{ PERF_SAMPLE_BRANCH_ANY,	 CTR_TYPES_ANY },
	{ PERF_SAMPLE_BRANCH_ANY_CALL,	 CTR_T(EXCEPTION) | CTR_T(INTERRUPT) |
					 CTR_T(INDCALL) | CTR_T(DIRCALL) |
					 CTR_T(CORSWAP) },
	{ PERF_SAMPLE_BRANCH_ANY_RETURN, CTR_T(TRAP_RETURN) | CTR_T(RETURN) |
					 CTR_T(CORSWAP) },
	{ PERF_SAMPLE_BRANCH_IND_CALL,	 CTR_T(INDCALL) },
	{ PERF_SAMPLE_BRANCH_CALL,	 CTR_T(DIRCALL) },
	{ PERF_SAMPLE_BRANCH_IND_JUMP,	 CTR_T(INDJUMP) | CTR_T(INDLJUMP) },
	{ PERF_SAMPLE_BRANCH_COND,	 CTR_T(BRANCH_T) },
};

#define CTR_BRANCH_PRIV		(PERF_SAMPLE_BRANCH_USER |		\
				 PERF_SAMPLE_BRANCH_KERNEL |		\
				 PERF_SAMPLE_BRANCH_HV)
#define CTR_BRANCH_TYPES	(PERF_SAMPLE_BRANCH_ANY |		\
				 PERF_SAMPLE_BRANCH_ANY_CALL |		\
				 PERF_SAMPLE_BRANCH_ANY_RETURN |	\
				 PERF_SAMPLE_BRANCH_IND_CALL |		\
				 PERF_SAMPLE_BRANCH_CALL |		\
				 PERF_SAMPLE_BRANCH_IND_JUMP |		\
				 PERF_SAMPLE_BRANCH_COND)
#define CTR_BRANCH_FLAGS	(PERF_SAMPLE_BRANCH_NO_FLAGS |		\
				 PERF_SAMPLE_BRANCH_NO_CYCLES |		\
				 PERF_SAMPLE_BRANCH_TYPE_SAVE |		\
				 PERF_SAMPLE_BRANCH_HW_INDEX |		\
				 PERF_SAMPLE_BRANCH_PRIV_SAVE)
/* No transactional memory, no counters on branches. */
#define CTR_BRANCH_UNSUPPORTED	(PERF_SAMPLE_BRANCH_ABORT_TX |		\
				 PERF_SAMPLE_BRANCH_IN_TX |		\
				 PERF_SAMPLE_BRANCH_NO_TX |		\
				 PERF_SAMPLE_BRANCH_COUNTERS)

/* What a call stack holds: the calls not yet returned from. */
#define CTR_TYPES_CALLSTACK	(CTR_T(INDCALL) | CTR_T(DIRCALL) | CTR_T(CORSWAP))

/*
 * The sctrctl bit that inhibits each transfer type; NTBREN instead enables
 * not-taken branches. Types without a bit (0, 6, 7) are never recorded.
 */
static const u64 ctr_type_inhibit[CTR_NR_TYPES] = {
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

/* How each transfer type appears in a perf branch entry. */
static const struct {
	u8 type;
	u8 new_type;
} ctr_perf_types[CTR_NR_TYPES] = {
	[CTR_TYPE_NONE]		= { PERF_BR_UNKNOWN },
	[CTR_TYPE_EXCEPTION]	= { PERF_BR_SYSCALL },
	[CTR_TYPE_INTERRUPT]	= { PERF_BR_IRQ },
	[CTR_TYPE_TRAP_RETURN]	= { PERF_BR_ERET },
	[CTR_TYPE_BRANCH_NT]	= { PERF_BR_COND },
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
struct ctr_task_ctx {
	bool valid;
	unsigned long switches;
	struct mm_struct *mm;
	u32 status;
	unsigned int nr;
	struct riscv_ctr_entry raw[];
};

/* The state of a CPU's buffer, and the records of the current overflow. */
struct ctr_cpu {
	/* Branch events added on this CPU. */
	unsigned int users;
	/* How many of the events ask for each request bit. */
	unsigned int wants[CTR_REQ_BITS];
	/* sctrctl while recording. */
	u64 ctl;
	/*
	 * While recording: the task, and its mm, whose records alone the
	 * buffer holds since it was last wiped or restored; NULL when that is
	 * not known.
	 */
	struct task_struct *owner;
	struct mm_struct *owner_mm;

	/* Recording was stopped in software at this overflow, not frozen. */
	bool stopped;
	/* The PC the overflow interrupt interrupted. */
	unsigned long irq_pc;
	/*
	 * Records read at this overflow: raw[first..nr), or -1 before, and
	 * the place of raw[first] in the circular buffer.
	 */
	int nr;
	unsigned int first;
	unsigned int pos;
	struct riscv_ctr_entry raw[CTR_MAX_ENTRIES];
	/* The last member: a sample's branch stack, its entries after it. */
	struct perf_branch_stack stack;
};

/*
 * The most records to keep: every sample reads the whole buffer, so a
 * shallower one costs less per sample (riscv_ctr.depth=16 on the command
 * line). The hart may offer less.
 */
static unsigned int ctr_depth_param = CTR_MAX_ENTRIES;
module_param_named(depth, ctr_depth_param, uint, 0444);
MODULE_PARM_DESC(depth, "most records per hart: 16, 32, 64, 128 or 256 (default 256)");

/* Entries of the buffer on every hart; 0 when the harts have no CTR. */
static unsigned int ctr_nr_entries;
/* The sctrctl bits the harts implement. */
static u64 ctr_ctl_writable;
/* Software can set sctrstatus.FROZEN to stop recording. */
static bool ctr_frozen_writable;
static struct ctr_cpu __percpu *ctr_cpus;

VISIBLE_IF_KUNIT void riscv_ctr_clear(void)
{
	asm volatile(SCTRCLR_INSN ::: "memory");
}

/* Select the deepest buffer allowed that the hart has; return its size. */
static unsigned int ctr_set_max_depth(void)
{
	unsigned int want = clamp(ctr_depth_param, CTR_DEPTH_ENTRIES(0),
				  CTR_MAX_ENTRIES);
	unsigned long depth;

	/* DEPTH is WARL: write the wish, read back what the hart kept. */
	csr_write(CSR_SCTRDEPTH, ilog2(want / CTR_DEPTH_ENTRIES(0)));
	depth = FIELD_GET(SCTRDEPTH_DEPTH, csr_read(CSR_SCTRDEPTH));

	/* Values above the maximum are reserved: do not trust them. */
	return CTR_DEPTH_ENTRIES(umin(depth, SCTRDEPTH_MAX));
}

/*
 * Firmware that predates Smctr can leave mstateen0.CTR clear, which makes
 * every CTR CSR an illegal instruction in S-mode even though the ISA
 * string lists the extension. Find out with a read that survives it.
 */
static bool ctr_csrs_accessible(void)
{
	unsigned long val = 0;
	int err = 0;

	asm volatile("1:	csrr	%[val], " __stringify(CSR_SCTRDEPTH) "\n"
		     "2:\n"
		     _ASM_EXTABLE_UACCESS_ERR(1b, 2b, %[err])
		     : [val] "+r" (val), [err] "+r" (err));

	return !err;
}

/*
 * Which sctrctl fields the hart implements: all but U, S, M and BPFRZ are
 * optional and read 0 when absent. The probe writes them with U and S
 * clear, so nothing is recorded meanwhile.
 */
static u64 ctr_probe_ctl(void)
{
	u64 ctl;

	csr_write(CSR_SCTRCTL, CTRCTL_FILTERS | CTRCTL_LCOFIFRZ | CTRCTL_RASEMU);
	ctl = csr_read(CSR_SCTRCTL);
	csr_write(CSR_SCTRCTL, 0);

	return ctl | CTRCTL_U | CTRCTL_S;
}

/**
 * riscv_ctr_probe() - find out whether the harts record control transfers
 * @pmu: the PMU that will take branch stack events
 *
 * Called once, before @pmu is registered, on the CPU that probes it. The
 * harts are assumed to share one CTR implementation, as they share one
 * PMU. With call-stack mode, @pmu gets the cache perf allocates each
 * task's saved call stack from.
 */
void riscv_ctr_probe(struct pmu *pmu)
{
	unsigned int entries = 0;

	if (!riscv_isa_extension_available(NULL, SSCTR))
		return;

	preempt_disable();
	if (ctr_csrs_accessible()) {
		entries = ctr_set_max_depth();
		ctr_ctl_writable = ctr_probe_ctl();
		/* Nothing records (sctrctl is 0): FROZEN can be tried. */
		csr_set(CSR_SCTRSTATUS, SCTRSTATUS_FROZEN);
		ctr_frozen_writable = csr_read(CSR_SCTRSTATUS) & SCTRSTATUS_FROZEN;
		csr_clear(CSR_SCTRSTATUS, SCTRSTATUS_FROZEN);
	}
	preempt_enable();

	if (!entries) {
		pr_warn("CTR CSRs are not accessible: firmware left mstateen0.CTR clear\n");
		return;
	}

	ctr_cpus = __alloc_percpu(sizeof(struct ctr_cpu) +
				  entries * sizeof(struct perf_branch_entry),
				  __alignof__(struct ctr_cpu));
	if (!ctr_cpus)
		return;

	if (ctr_ctl_writable & CTRCTL_RASEMU) {
		pmu->task_ctx_cache =
			kmem_cache_create("riscv_ctr_task_ctx",
					  struct_size_t(struct ctr_task_ctx, raw, entries),
					  0, 0, NULL);
		if (!pmu->task_ctx_cache)
			ctr_ctl_writable &= ~CTRCTL_RASEMU;
	}

	ctr_nr_entries = entries;
	pr_info("%u-entry control transfer records, filters %#llx%s%s\n",
		entries, ctr_ctl_writable & CTRCTL_FILTERS,
		ctr_ctl_writable & CTRCTL_LCOFIFRZ ? "" : ", no freeze on overflow",
		ctr_ctl_writable & CTRCTL_RASEMU ? ", call stacks" : "");
}

/**
 * riscv_ctr_reset() - put this hart's CTR into a known, idle state
 *
 * Called on every hart as it comes online or goes offline: select the
 * deepest buffer, stop recording, host and guest (vsctrctl), and wipe
 * whatever firmware, a previous kernel or the last user of this hart left
 * in it.
 */
void riscv_ctr_reset(void)
{
	unsigned int entries;

	if (!ctr_nr_entries)
		return;

	csr_write(CSR_SCTRCTL, 0);
	/*
	 * Guest enables left by firmware or a previous kernel would record
	 * a guest's branches into this buffer: no guest records until KVM
	 * says so.
	 */
	if (riscv_has_extension_unlikely(RISCV_ISA_EXT_H))
		csr_write(CSR_VSCTRCTL, 0);
	entries = ctr_set_max_depth();
	WARN_ONCE(entries != ctr_nr_entries,
		  "CPU%d has %u CTR entries, not %u\n",
		  smp_processor_id(), entries, ctr_nr_entries);
	csr_write(CSR_SCTRSTATUS, 0);
	riscv_ctr_clear();
	this_cpu_ptr(ctr_cpus)->ctl = 0;
	this_cpu_ptr(ctr_cpus)->owner = NULL;
}

/**
 * riscv_ctr_num_branches() - the number of records a branch stack can hold
 *
 * Return: the depth of the CTR buffer, or 0 when there is none.
 */
unsigned int riscv_ctr_num_branches(void)
{
	return ctr_nr_entries;
}

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
VISIBLE_IF_KUNIT int riscv_ctr_request(u64 branch_sample_type, bool not_taken,
				       u32 *request)
{
	u64 bst = branch_sample_type;
	u32 req = 0;
	int i;

	BUILD_BUG_ON((CTR_BRANCH_PRIV | CTR_BRANCH_TYPES | CTR_BRANCH_FLAGS |
		      CTR_BRANCH_UNSUPPORTED | PERF_SAMPLE_BRANCH_CALL_STACK) !=
		     PERF_SAMPLE_BRANCH_MAX - 1);
	BUILD_BUG_ON(CTR_BRANCH_PRIV & CTR_BRANCH_TYPES);
	BUILD_BUG_ON((CTR_BRANCH_PRIV | CTR_BRANCH_TYPES) & CTR_BRANCH_FLAGS);
	BUILD_BUG_ON(CTR_REQ_BITS > 32);

	if (bst & CTR_BRANCH_UNSUPPORTED)
		return -EOPNOTSUPP;

	if (bst & PERF_SAMPLE_BRANCH_CALL_STACK) {
		if ((bst & CTR_BRANCH_TYPES) || not_taken)
			return -EINVAL;
		if (bst & (PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV))
			return -EOPNOTSUPP;
		if (!(bst & PERF_SAMPLE_BRANCH_USER))
			return -EINVAL;
		*request = CTR_REQ_CALLSTACK | CTR_REQ_U | CTR_TYPES_CALLSTACK;
		return 0;
	}

	for (i = 0; i < ARRAY_SIZE(ctr_filter_types); i++)
		if (bst & ctr_filter_types[i].filter)
			req |= ctr_filter_types[i].types;
	/* A not-taken branch (NTBREN) has the next instruction as target. */
	if (not_taken) {
		if (!(bst & (PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_ANY)))
			return -EINVAL;
		req |= CTR_T(BRANCH_NT);
	}

	if (bst & PERF_SAMPLE_BRANCH_USER)
		req |= CTR_REQ_U;
	if (bst & (PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV))
		req |= CTR_REQ_S;

	if (!(req & CTR_REQ_TYPES) || !(req & (CTR_REQ_U | CTR_REQ_S)))
		return -EINVAL;

	*request = req;
	return 0;
}

/* The sctrctl value that records what @request asks for. */
VISIBLE_IF_KUNIT u64 riscv_ctr_ctl(u32 request)
{
	u64 ctl = CTRCTL_LCOFIFRZ;
	int t;

	/*
	 * RASEMU ignores the type filters. The freeze stays: only user calls
	 * are recorded, and none happen while the overflow is handled.
	 */
	if (request & CTR_REQ_CALLSTACK)
		return (ctl | CTRCTL_RASEMU | CTRCTL_U) & ctr_ctl_writable;

	/*
	 * With kernel branches recorded, the records of an overflow handler
	 * that was entered unfrozen are told apart by the interrupt that led
	 * to it (see ctr_read()): record interrupts then, whatever the
	 * events asked for. Their samples leave them out.
	 */
	if (request & CTR_REQ_S)
		request |= CTR_T(INTERRUPT);

	if (request & CTR_REQ_U)
		ctl |= CTRCTL_U;
	if (request & CTR_REQ_S)
		ctl |= CTRCTL_S;
	for (t = 0; t < CTR_NR_TYPES; t++)
		if (!(request & BIT(t)))
			ctl |= ctr_type_inhibit[t];
	if (request & CTR_T(BRANCH_NT))
		ctl |= CTRCTL_NTBREN;

	return ctl & ctr_ctl_writable;
}

/* The decoded value of a record's cycle count, 0 when it is not valid. */
VISIBLE_IF_KUNIT u32 riscv_ctr_cycles(u64 data)
{
	u32 ccm = FIELD_GET(CTRDATA_CCM, data);
	u32 cce = FIELD_GET(CTRDATA_CCE, data);

	if (!(data & CTRDATA_CCV))
		return 0;
	return cce ? (4096 + ccm) << (cce - 1) : ccm;
}

/*
 * On RV64 user space is the lower and the kernel the upper half of the
 * address space, whatever the paging mode.
 */
static inline bool ctr_kernel_addr(u64 addr)
{
	return (s64)addr < 0;
}

/* Does each end of a transfer lie in a mode @request samples, or is it 0? */
static bool ctr_priv_allowed(u32 request, u64 from, u64 to)
{
	u32 need = 0;

	if (from)
		need |= ctr_kernel_addr(from) ? CTR_REQ_S : CTR_REQ_U;
	if (to)
		need |= ctr_kernel_addr(to) ? CTR_REQ_S : CTR_REQ_U;

	return (need & request) == need;
}

static u8 ctr_priv(u64 from, u64 to)
{
	u64 addr = from ?: to;

	if (!addr)
		return PERF_BR_PRIV_UNKNOWN;
	return ctr_kernel_addr(addr) ? PERF_BR_PRIV_KERNEL : PERF_BR_PRIV_USER;
}

/*
 * Read the valid records, youngest first, into @raw; return how many.
 * Interrupts are off: siselect is shared with the AIA.
 */
VISIBLE_IF_KUNIT unsigned int riscv_ctr_read_entries(struct riscv_ctr_entry *raw)
{
	unsigned int i;

	for (i = 0; i < ctr_nr_entries; i++) {
		csr_write(CSR_SISELECT, CTR_ENTRY_SISELECT + i);
		raw[i].source = csr_read(CSR_SIREG);
		if (!(raw[i].source & CTRSOURCE_VALID))
			break;
		raw[i].target = csr_read(CSR_SIREG2);
		raw[i].data = csr_read(CSR_SIREG3);
	}

	return i;
}

/* Does an event that made @request take this record? */
static bool ctr_wanted(u32 request, const struct riscv_ctr_entry *r)
{
	unsigned int type = FIELD_GET(CTRDATA_TYPE, r->data);

	return (request & BIT(type)) &&
	       ctr_priv_allowed(request, r->source & CTR_PC_MASK,
				r->target & CTR_PC_MASK);
}

/*
 * The hardware index of a sample (PERF_SAMPLE_BRANCH_HW_INDEX): the place
 * in the circular buffer of the youngest record the sample holds, @pos0
 * being the place of raw[0]. perf report --stitch-lbr joins the stacks of
 * consecutive samples by it, which only works when the sample's records
 * are consecutive in the buffer: where the event's filter left a gap
 * between them, or kept none, the index cannot be known and is -1, as on
 * x86.
 */
VISIBLE_IF_KUNIT u64 riscv_ctr_hw_idx(const struct riscv_ctr_entry *raw,
				      unsigned int nr, u32 request,
				      unsigned int pos0)
{
	unsigned int i = 0, youngest;

	while (i < nr && !ctr_wanted(request, &raw[i]))
		i++;
	if (i == nr)
		return -1ULL;
	youngest = i;
	while (i < nr && ctr_wanted(request, &raw[i]))
		i++;
	for (; i < nr; i++)
		if (ctr_wanted(request, &raw[i]))
			return -1ULL;

	return (pos0 - youngest) & (ctr_nr_entries - 1);
}

/*
 * Turn the records an event asked for into perf branch entries; return
 * how many. @request is the event's, @branch_sample_type says which
 * fields to fill in.
 */
VISIBLE_IF_KUNIT unsigned int
riscv_ctr_decode(const struct riscv_ctr_entry *raw, unsigned int nr,
		 u32 request, u64 branch_sample_type,
		 struct perf_branch_entry *out)
{
	unsigned int i, n = 0;

	for (i = 0; i < nr; i++) {
		u64 from = raw[i].source & CTR_PC_MASK;
		u64 to = raw[i].target & CTR_PC_MASK;
		unsigned int type = FIELD_GET(CTRDATA_TYPE, raw[i].data);
		struct perf_branch_entry *e = &out[n];

		if (!ctr_wanted(request, &raw[i]))
			continue;

		*e = (struct perf_branch_entry){ .from = from, .to = to };
		if (!(branch_sample_type & PERF_SAMPLE_BRANCH_NO_FLAGS)) {
			e->mispred = !!(raw[i].target & CTRTARGET_MISP);
			e->predicted = !e->mispred;
		}
		if (!(branch_sample_type & PERF_SAMPLE_BRANCH_NO_CYCLES))
			e->cycles = umin(riscv_ctr_cycles(raw[i].data), U16_MAX);
		if (branch_sample_type & PERF_SAMPLE_BRANCH_TYPE_SAVE) {
			e->type = ctr_perf_types[type].type;
			e->new_type = ctr_perf_types[type].new_type;
		}
		if (branch_sample_type & PERF_SAMPLE_BRANCH_PRIV_SAVE)
			e->priv = ctr_priv(from, to);
		n++;
	}

	return n;
}

/**
 * riscv_ctr_event_init() - check and translate an event's branch filters
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
int riscv_ctr_event_init(struct perf_event *event)
{
	u32 request;
	int ret;

	if (!ctr_nr_entries)
		return -EOPNOTSUPP;
	if (!is_sampling_event(event))
		return -EINVAL;

	ret = riscv_ctr_request(event->attr.branch_sample_type,
				event->attr.config2 & RISCV_CTR_CONFIG2_NOT_TAKEN,
				&request);
	if (ret)
		return ret;
	if (request & CTR_REQ_CALLSTACK) {
		if (!(ctr_ctl_writable & CTRCTL_RASEMU))
			return -EOPNOTSUPP;
		/* perf core allocates the task's save area (or every task's). */
		event->attach_state |= PERF_ATTACH_TASK_DATA;
	}

	event->hw.branch_reg.config = request;
	return 0;
}

/* Does the buffer hold records of the current task and image only? */
static bool ctr_owned(const struct ctr_cpu *cc)
{
	return cc->owner == current && cc->owner_mm == current->mm;
}

/* The buffer now holds the current task's records only. */
static void ctr_set_owner(struct ctr_cpu *cc)
{
	cc->owner = current;
	cc->owner_mm = current->mm;
}

/* Start the buffer afresh for the task now on this CPU. */
static void ctr_start_afresh(struct ctr_cpu *cc)
{
	riscv_ctr_clear();
	ctr_set_owner(cc);
}

/* Record what the CPU's events ask for, or nothing when it has none. */
static void ctr_program(struct ctr_cpu *cc)
{
	u32 request = 0;
	u64 ctl = 0;
	int i;

	for (i = 0; i < CTR_REQ_BITS; i++)
		if (cc->wants[i])
			request |= BIT(i);
	if (request)
		ctl = riscv_ctr_ctl(request);
	if (ctl == cc->ctl)
		return;

	csr_write(CSR_SCTRCTL, ctl);
	cc->ctl = ctl;
	/* What runs while nothing is recorded leaves a gap: forget the owner. */
	if (!ctl)
		cc->owner = NULL;
}

static void ctr_account(struct ctr_cpu *cc, struct perf_event *event, int delta)
{
	unsigned long request = event->hw.branch_reg.config;
	int bit;

	for_each_set_bit(bit, &request, CTR_REQ_BITS)
		cc->wants[bit] += delta;
	cc->users += delta;
}

/**
 * riscv_ctr_add() - start recording for a branch event added to this CPU
 * @event: the event
 *
 * perf adds events when their task comes in, but also in the middle of a
 * time slice: PERF_EVENT_IOC_ENABLE, enable_on_exec, attaching to a
 * running task, multiplexing. Unless the CPU has been recording the
 * current task alone since it came in, the buffer is wiped: it may hold
 * another task's records, or a gap. A task's saved call stack comes back
 * in the context switch callback that follows an add at sched-in.
 *
 * Return: 0, or -EBUSY when the CPU records in the other mode (call stack
 * or branches) for events already there; perf then tries again later.
 */
int riscv_ctr_add(struct perf_event *event)
{
	struct ctr_cpu *cc = this_cpu_ptr(ctr_cpus);
	bool callstack = event->hw.branch_reg.config & CTR_REQ_CALLSTACK;

	if (cc->users && !!cc->wants[CTR_REQ_CALLSTACK_BIT] != callstack)
		return -EBUSY;

	if (!cc->users)
		perf_sched_cb_inc(event->pmu);
	ctr_account(cc, event, 1);
	ctr_program(cc);
	if (!ctr_owned(cc))
		ctr_start_afresh(cc);
	return 0;
}

/**
 * riscv_ctr_del() - stop recording for a branch event leaving this CPU
 * @event: the event
 */
void riscv_ctr_del(struct perf_event *event)
{
	struct ctr_cpu *cc = this_cpu_ptr(ctr_cpus);

	ctr_account(cc, event, -1);
	ctr_program(cc);
	if (!cc->users)
		perf_sched_cb_dec(event->pmu);
}

/* @task's save area for its call stack, if perf gave it one. */
static struct ctr_task_ctx *ctr_task_ctx(struct task_struct *task)
{
	struct perf_ctx_data *cd;

	cd = rcu_dereference_sched(task->perf_ctx_data);
	return cd ? cd->data : NULL;
}

/* The context switches @task has made: one more each time it leaves a CPU. */
static unsigned long ctr_task_switches(const struct task_struct *task)
{
	return READ_ONCE(task->nvcsw) + READ_ONCE(task->nivcsw);
}

/* Save a call stack: the valid records, youngest first, and sctrstatus. */
VISIBLE_IF_KUNIT unsigned int riscv_ctr_save(struct riscv_ctr_entry *raw,
					     u32 *status)
{
	*status = csr_read(CSR_SCTRSTATUS);
	return riscv_ctr_read_entries(raw);
}

/*
 * Put a saved call stack back. Only user calls are recorded and this runs
 * in the kernel, so nothing moves meanwhile. sctrstatus goes first, as the
 * spec asks: it decides where logical entry 0 is.
 */
VISIBLE_IF_KUNIT void riscv_ctr_restore(const struct riscv_ctr_entry *raw,
					unsigned int nr, u32 status)
{
	unsigned int i;

	riscv_ctr_clear();
	csr_write(CSR_SCTRSTATUS, status & SCTRSTATUS_WRPTR);
	for (i = 0; i < nr; i++) {
		csr_write(CSR_SISELECT, CTR_ENTRY_SISELECT + i);
		csr_write(CSR_SIREG, raw[i].source);
		csr_write(CSR_SIREG2, raw[i].target);
		csr_write(CSR_SIREG3, raw[i].data);
	}
}

/* Keep @task's call stack as it leaves the CPU, if it is the task's own. */
static void ctr_save_stack(struct ctr_cpu *cc, struct task_struct *task)
{
	struct ctr_task_ctx *tc = ctr_task_ctx(task);

	if (!tc)
		return;
	tc->valid = ctr_owned(cc);
	if (!tc->valid)
		return;
	tc->nr = riscv_ctr_save(tc->raw, &tc->status);
	tc->switches = ctr_task_switches(task);
	tc->mm = task->mm;
}

/* Give @task, coming in, its own call stack if it has one, else none. */
static void ctr_restore_stack(struct ctr_cpu *cc, struct task_struct *task)
{
	struct ctr_task_ctx *tc = ctr_task_ctx(task);

	if (tc && tc->valid && tc->switches == ctr_task_switches(task) &&
	    tc->mm == task->mm) {
		/* riscv_ctr_restore() wipes what was there first. */
		riscv_ctr_restore(tc->raw, tc->nr, tc->status);
		ctr_set_owner(cc);
	} else {
		ctr_start_afresh(cc);
	}
	/* It is used once: what the task does next is in the buffer. */
	if (tc)
		tc->valid = false;
}

/**
 * riscv_ctr_sched_task() - the PMU's context switch callback
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
void riscv_ctr_sched_task(struct perf_event_pmu_context *pmu_ctx,
			  struct task_struct *task, bool sched_in)
{
	struct ctr_cpu *cc = this_cpu_ptr(ctr_cpus);

	lockdep_assert_irqs_disabled();

	if (!cc->ctl)
		return;
	if (!(cc->ctl & CTRCTL_RASEMU)) {
		if (sched_in)
			ctr_start_afresh(cc);
		return;
	}
	if (sched_in)
		ctr_restore_stack(cc, task);
	else
		ctr_save_stack(cc, task);
}

/* This CPU's state when it records for branch events, else NULL. */
static struct ctr_cpu *ctr_recording_cpu(void)
{
	struct ctr_cpu *cc;

	if (!ctr_nr_entries)
		return NULL;
	cc = this_cpu_ptr(ctr_cpus);
	return cc->users ? cc : NULL;
}

/**
 * riscv_ctr_freeze() - stop recording at a counter overflow interrupt
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
void riscv_ctr_freeze(void)
{
	struct ctr_cpu *cc = ctr_recording_cpu();

	if (!cc)
		return;

	cc->nr = -1;
	if (ctr_frozen_writable) {
		/* csrrs: freeze, and learn whether the interrupt had, at once. */
		cc->stopped = !(csr_read_set(CSR_SCTRSTATUS, SCTRSTATUS_FROZEN) &
				SCTRSTATUS_FROZEN);
	} else {
		cc->stopped = !(csr_read(CSR_SCTRSTATUS) & SCTRSTATUS_FROZEN);
		if (cc->stopped)
			csr_clear(CSR_SCTRCTL, CTRCTL_U | CTRCTL_S);
	}
	if (cc->stopped)
		cc->irq_pc = instruction_pointer(get_irq_regs());
}

/*
 * Is this the record of the interrupt the overflow handler came in by? Its
 * source is the interrupted PC, or 0 when the interrupted mode was not
 * recorded (user space while only kernel branches are).
 */
static bool ctr_irq_entry(const struct ctr_cpu *cc,
			  const struct riscv_ctr_entry *r)
{
	u64 src = r->source & CTR_PC_MASK;
	u64 mode = ctr_kernel_addr(cc->irq_pc) ? CTRCTL_S : CTRCTL_U;

	if (FIELD_GET(CTRDATA_TYPE, r->data) != CTR_TYPE_INTERRUPT)
		return false;
	return src == cc->irq_pc || (!src && !(cc->ctl & mode));
}

static void ctr_read(struct ctr_cpu *cc)
{
	unsigned int nr = riscv_ctr_read_entries(cc->raw), first = 0;
	u32 wrptr = FIELD_GET(SCTRSTATUS_WRPTR, csr_read(CSR_SCTRSTATUS));

	/*
	 * Stopped in software with kernel recording on, the buffer also holds
	 * the trap that led here and what the kernel did since: drop the
	 * records up to the youngest interrupt taken at the interrupted PC. If
	 * it is gone, the handler's records filled the buffer: keep none.
	 */
	if (cc->stopped && (cc->ctl & CTRCTL_S)) {
		while (first < nr && !ctr_irq_entry(cc, &cc->raw[first]))
			first++;
		first = min(first + 1, nr);
	}

	cc->first = first;
	cc->nr = nr;
	/* Logical entry 0 is the physical entry before WRPTR. */
	cc->pos = (wrptr - 1 - first) & (ctr_nr_entries - 1);
}

/**
 * riscv_ctr_sample() - add the branch stack to a sample of @event
 * @event: a branch event that overflowed
 * @data: its sample
 *
 * The buffer is read once per overflow interrupt, at the first sample.
 */
void riscv_ctr_sample(struct perf_event *event, struct perf_sample_data *data)
{
	struct ctr_cpu *cc = this_cpu_ptr(ctr_cpus);

	/*
	 * The buffer may hold what another task or image left when a path
	 * perf takes added no event and switched no task, exec for one: give
	 * no records, and start afresh.
	 */
	if (cc->nr < 0 && !ctr_owned(cc)) {
		cc->first = 0;
		cc->nr = 0;
		ctr_start_afresh(cc);
	}
	if (cc->nr < 0)
		ctr_read(cc);

	cc->stack.nr = riscv_ctr_decode(cc->raw + cc->first, cc->nr - cc->first,
					event->hw.branch_reg.config,
					event->attr.branch_sample_type,
					cc->stack.entries);
	/* perf writes the index out only for events that ask for it. */
	cc->stack.hw_idx = -1ULL;
	if (event->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
		cc->stack.hw_idx = riscv_ctr_hw_idx(cc->raw + cc->first,
						    cc->nr - cc->first,
						    event->hw.branch_reg.config,
						    cc->pos);
	perf_sample_save_brstack(data, event, &cc->stack, NULL);
}

/**
 * riscv_ctr_unfreeze() - let recording go on after an overflow interrupt
 */
void riscv_ctr_unfreeze(void)
{
	struct ctr_cpu *cc = ctr_recording_cpu();

	if (!cc)
		return;

	/* csrc is atomic: WRPTR cannot change under a read-modify-write. */
	csr_clear(CSR_SCTRSTATUS, SCTRSTATUS_FROZEN);
	if (cc->stopped && !ctr_frozen_writable)
		csr_write(CSR_SCTRCTL, cc->ctl);
}

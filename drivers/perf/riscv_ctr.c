// SPDX-License-Identifier: GPL-2.0-only
/*
 * RISC-V Control Transfer Records (Smctr/Ssctr) for perf branch stacks.
 *
 * CTR keeps the hart's most recent qualified control transfers in a
 * circular buffer of 16 to 256 entries. Software reads logical entry N
 * (0 is the youngest) through the indirect CSR window: siselect
 * 0x200 + N, then sireg, sireg2 and sireg3. The window is shared with
 * the AIA interrupt files, so it is only used with interrupts disabled.
 */
#define pr_fmt(fmt) "riscv-ctr: " fmt

#include <linux/bitfield.h>
#include <linux/bug.h>
#include <linux/cpufeature.h>
#include <linux/minmax.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/smp.h>
#include <kunit/visibility.h>
#include <asm/asm-extable.h>
#include <asm/csr.h>
#include <asm/ctr.h>

#include "riscv_ctr.h"

/* Entries of the buffer on every hart; 0 when the harts have no CTR. */
static unsigned int ctr_nr_entries;

VISIBLE_IF_KUNIT void riscv_ctr_clear(void)
{
	asm volatile(SCTRCLR_INSN ::: "memory");
}

/* Select the deepest buffer the hart implements and return its size. */
static unsigned int ctr_set_max_depth(void)
{
	unsigned long depth;

	csr_write(CSR_SCTRDEPTH, SCTRDEPTH_MAX);
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

/**
 * riscv_ctr_probe() - find out whether the harts record control transfers
 *
 * Called once, before the PMU is registered, on the CPU that probes the
 * PMU. The harts are assumed to share one CTR implementation, as they
 * share one PMU.
 */
void riscv_ctr_probe(void)
{
	if (!riscv_isa_extension_available(NULL, SSCTR))
		return;

	preempt_disable();
	if (!ctr_csrs_accessible())
		pr_warn("CTR CSRs are not accessible: firmware left mstateen0.CTR clear\n");
	else
		ctr_nr_entries = ctr_set_max_depth();
	preempt_enable();

	if (ctr_nr_entries)
		pr_info("%u-entry control transfer records\n", ctr_nr_entries);
}

/**
 * riscv_ctr_reset() - put this hart's CTR into a known, idle state
 *
 * Called on every hart as it comes online: select the deepest buffer,
 * stop recording and wipe whatever firmware, a previous kernel or the
 * last user of this hart left in it.
 */
void riscv_ctr_reset(void)
{
	unsigned int entries;

	if (!ctr_nr_entries)
		return;

	csr_write(CSR_SCTRCTL, 0);
	entries = ctr_set_max_depth();
	WARN_ONCE(entries != ctr_nr_entries,
		  "CPU%d has %u CTR entries, not %u\n",
		  smp_processor_id(), entries, ctr_nr_entries);
	csr_write(CSR_SCTRSTATUS, 0);
	riscv_ctr_clear();
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

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Smctr/Ssctr: Control Transfer Records.
 *
 * CSR numbers and fields of the ratified Smctr/Ssctr 1.0 extensions. Kept
 * out of asm/csr.h so that only the CTR driver depends on them.
 */
#ifndef _ASM_RISCV_CTR_H
#define _ASM_RISCV_CTR_H

#include <linux/bits.h>

#define CSR_SCTRCTL		0x14e
#define CSR_SCTRSTATUS		0x14f
#define CSR_SCTRDEPTH		0x15f
#define CSR_VSCTRCTL		0x24e
#define CSR_MCTRCTL		0x34e

/* xctrctl: only U, S, M and BPFRZ are mandatory, the rest may read 0. */
#define CTRCTL_U		BIT_ULL(0)
#define CTRCTL_S		BIT_ULL(1)
#define CTRCTL_M		BIT_ULL(2)
#define CTRCTL_RASEMU		BIT_ULL(7)
#define CTRCTL_STE		BIT_ULL(8)
#define CTRCTL_MTE		BIT_ULL(9)
#define CTRCTL_BPFRZ		BIT_ULL(11)
#define CTRCTL_LCOFIFRZ		BIT_ULL(12)
#define CTRCTL_EXCINH		BIT_ULL(33)
#define CTRCTL_INTRINH		BIT_ULL(34)
#define CTRCTL_TRETINH		BIT_ULL(35)
#define CTRCTL_NTBREN		BIT_ULL(36)
#define CTRCTL_TKBRINH		BIT_ULL(37)
#define CTRCTL_INDCALLINH	BIT_ULL(40)
#define CTRCTL_DIRCALLINH	BIT_ULL(41)
#define CTRCTL_INDJMPINH	BIT_ULL(42)
#define CTRCTL_DIRJMPINH	BIT_ULL(43)
#define CTRCTL_CORSWAPINH	BIT_ULL(44)
#define CTRCTL_RETINH		BIT_ULL(45)
#define CTRCTL_INDLJMPINH	BIT_ULL(46)
#define CTRCTL_DIRLJMPINH	BIT_ULL(47)
#define CTRCTL_CUSTOM		GENMASK_ULL(63, 60)

#define SCTRSTATUS_WRPTR	GENMASK(7, 0)
#define SCTRSTATUS_FROZEN	BIT(31)

/* DEPTH is WARL: 0..4 select 16..256 entries, 5..7 are reserved. */
#define SCTRDEPTH_DEPTH		GENMASK(2, 0)
#define SCTRDEPTH_MAX		4
#define CTR_DEPTH_ENTRIES(d)	(16U << (d))
#define CTR_MAX_ENTRIES		CTR_DEPTH_ENTRIES(SCTRDEPTH_MAX)

/*
 * Logical entry N (0 is the youngest record) is selected by writing
 * CTR_ENTRY_SISELECT + N to siselect; sireg, sireg2 and sireg3 then hold
 * its ctrsource, ctrtarget and ctrdata.
 */
#define CTR_ENTRY_SISELECT	0x200

#define CTRSOURCE_VALID		BIT_ULL(0)
#define CTRTARGET_MISP		BIT_ULL(0)
#define CTR_PC_MASK		(~BIT_ULL(0))

#define CTRDATA_TYPE		GENMASK_ULL(3, 0)
#define CTRDATA_CCV		BIT_ULL(15)
#define CTRDATA_CC		GENMASK_ULL(31, 16)
#define CTRDATA_CCM		GENMASK_ULL(27, 16)
#define CTRDATA_CCE		GENMASK_ULL(31, 28)

/* ctrdata.TYPE uses the E-Trace itype encodings. */
#define CTR_TYPE_NONE		0
#define CTR_TYPE_EXCEPTION	1
#define CTR_TYPE_INTERRUPT	2
#define CTR_TYPE_TRAP_RETURN	3
#define CTR_TYPE_BRANCH_NT	4
#define CTR_TYPE_BRANCH_T	5
#define CTR_TYPE_INDCALL	8
#define CTR_TYPE_DIRCALL	9
#define CTR_TYPE_INDJUMP	10
#define CTR_TYPE_DIRJUMP	11
#define CTR_TYPE_CORSWAP	12
#define CTR_TYPE_RETURN		13
#define CTR_TYPE_INDLJUMP	14
#define CTR_TYPE_DIRLJUMP	15
#define CTR_NR_TYPES		16

/* SCTRCLR: SYSTEM, funct12 0x104. Older assemblers lack the mnemonic. */
#define SCTRCLR_INSN		".4byte 0x10400073"

#endif /* _ASM_RISCV_CTR_H */

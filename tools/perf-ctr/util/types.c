// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: branch type names and CTR field decoding.
 *
 * perf names PERF_BR_NEW_ARCH_* after the architecture perf was built for,
 * so one file reads differently on x86 and arm64. These tables are fixed:
 * a file prints the same everywhere. Generic names match perf's spelling,
 * so `script` output stays comparable with `perf script -F brstack`.
 */
#include <string.h>

#include "perf-ctr.h"

static const char *const perf_type_names[16] = {
	[PERF_BR_UNKNOWN]	= "",	/* perf prints nothing for it */
	[PERF_BR_COND]		= "COND",
	[PERF_BR_UNCOND]	= "UNCOND",
	[PERF_BR_IND]		= "IND",
	[PERF_BR_CALL]		= "CALL",
	[PERF_BR_IND_CALL]	= "IND_CALL",
	[PERF_BR_RET]		= "RET",
	[PERF_BR_SYSCALL]	= "SYSCALL",
	[PERF_BR_SYSRET]	= "SYSRET",
	[PERF_BR_COND_CALL]	= "COND_CALL",
	[PERF_BR_COND_RET]	= "COND_RET",
	[PERF_BR_ERET]		= "ERET",
	[PERF_BR_IRQ]		= "IRQ",
	[PERF_BR_SERROR]	= "SERROR",
	[PERF_BR_NO_TX]		= "NO_TX",
	[PERF_BR_EXTEND_ABI]	= "",	/* never used: new_type names it */
};

/*
 * new_type: the generic faults, then the RISC-V CTR classes: ARCH_1..3
 * of 0006, ARCH_4 (a not-taken conditional branch, CTR TYPE 4) and
 * ARCH_5 (an exception other than an ecall or a fault, CTR TYPE 1).
 */
static const char *const perf_new_type_names[16] = {
	[0] = "FAULT_ALGN",
	[1] = "FAULT_DATA",
	[2] = "FAULT_INST",
	[PC_BR_RISCV_CO_SWAP]		= "RISCV_CO_SWAP",
	[PC_BR_RISCV_IND_LINK_JUMP]	= "RISCV_IND_LINK_JUMP",
	[PC_BR_RISCV_DIR_LINK_JUMP]	= "RISCV_DIR_LINK_JUMP",
	[PC_BR_RISCV_NOT_TAKEN]		= "RISCV_NOT_TAKEN",
	[PC_BR_RISCV_EXCEPTION]		= "RISCV_EXCEPTION",
};

const char *pc_branch_type_name(const struct perf_branch_entry *e)
{
	const char *n;

	if (e->type == PERF_BR_EXTEND_ABI)
		n = perf_new_type_names[e->new_type & 15];
	else
		n = perf_type_names[e->type & 15];
	return n ? n : "";
}

bool pc_branch_type_parse(const char *name, size_t len,
			  struct perf_branch_entry *e)
{
	unsigned int i;

	if (!len)
		return false;
	for (i = 0; i < 16; i++) {
		const char *n = perf_new_type_names[i];

		if (n && strlen(n) == len && !strncmp(n, name, len)) {
			e->type = PERF_BR_EXTEND_ABI;
			e->new_type = i;
			return true;
		}
		n = perf_type_names[i];
		if (n && strlen(n) == len && !strncmp(n, name, len)) {
			e->type = i;
			e->new_type = 0;
			return true;
		}
	}
	return false;
}

static const char *const ctr_type_names[16] = {
	[0]  = "NONE",
	[1]  = "EXCEPTION",
	[2]  = "INTERRUPT",
	[3]  = "TRAP_RETURN",
	[4]  = "NOT_TAKEN",
	[5]  = "TAKEN",
	[6]  = "",
	[7]  = "",
	[8]  = "IND_CALL",
	[9]  = "DIR_CALL",
	[10] = "IND_JUMP",
	[11] = "DIR_JUMP",
	[12] = "CO_SWAP",
	[13] = "RETURN",
	[14] = "IND_LINK_JUMP",
	[15] = "DIR_LINK_JUMP",
};

const char *pc_ctr_type_name(unsigned int ctr_type)
{
	return ctr_type_names[ctr_type & 15];
}

/*
 * As drivers/perf/riscv_ctr.c maps them; keep the two in step. The
 * driver types an exception (TYPE 1) by the trapping instruction: an
 * ecall is SYSCALL, a load/store/AMO FAULT_DATA, an unreadable one
 * FAULT_INST, anything else RISCV_EXCEPTION. A raw ctrdata value does
 * not say which instruction trapped and this table cannot read it, so
 * TYPE 1 stays SYSCALL here.
 */
static const unsigned char ctr_to_perf[16][2] = {
	/* 0: none, exception, interrupt, trap return */
	{ PERF_BR_UNKNOWN, 0 }, { PERF_BR_SYSCALL, 0 }, { PERF_BR_IRQ, 0 },
	{ PERF_BR_ERET, 0 },
	/* 4: not taken, taken, reserved, reserved */
	{ PERF_BR_EXTEND_ABI, PC_BR_RISCV_NOT_TAKEN }, { PERF_BR_COND, 0 },
	{ PERF_BR_UNKNOWN, 0 }, { PERF_BR_UNKNOWN, 0 },
	/* 8: indirect call, direct call, indirect jump, direct jump */
	{ PERF_BR_IND_CALL, 0 }, { PERF_BR_CALL, 0 }, { PERF_BR_IND, 0 },
	{ PERF_BR_UNCOND, 0 },
	/* 12: co-routine swap, return, other indirect and direct linking jumps */
	{ PERF_BR_EXTEND_ABI, PC_BR_RISCV_CO_SWAP }, { PERF_BR_RET, 0 },
	{ PERF_BR_EXTEND_ABI, PC_BR_RISCV_IND_LINK_JUMP },
	{ PERF_BR_EXTEND_ABI, PC_BR_RISCV_DIR_LINK_JUMP },
};

void pc_ctr_type_to_perf(unsigned int ctr_type, unsigned int *type,
			 unsigned int *new_type)
{
	*type = ctr_to_perf[ctr_type & 15][0];
	*new_type = ctr_to_perf[ctr_type & 15][1];
}

/*
 * ctrdata: CCV is bit 15, CC is bits 31:16 = CCE[15:12]:CCM[11:0]. The
 * count is CCM below 4096, else a 13-bit mantissa 4096 + CCM shifted by
 * CCE - 1.
 */
uint64_t pc_ctr_cycles(uint64_t ctrdata)
{
	uint64_t ccm = (ctrdata >> 16) & 0xfff;
	unsigned int cce = (ctrdata >> 28) & 0xf;

	if (!(ctrdata & (1ULL << 15)))
		return 0;
	return cce ? (4096 + ccm) << (cce - 1) : ccm;
}

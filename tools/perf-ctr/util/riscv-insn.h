/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr: the one RISC-V instruction decoder (riscv-insn.c), as far as
 * control flow goes: how long an instruction is, whether it transfers
 * control, of which kind, and where a direct transfer goes. The kinds
 * are the CTR driver's: a jump that links x1 (ra) or x5 (t0) is a call,
 * one through them without linking a return, both a co-routine swap.
 */
#ifndef PERF_CTR_RISCV_INSN_H
#define PERF_CTR_RISCV_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pc_rv_kind {
	PC_RV_OTHER,		/* no transfer of control */
	PC_RV_COND,		/* beq..bgeu, c.beqz, c.bnez */
	PC_RV_JUMP,		/* jal x0, c.j */
	PC_RV_CALL,		/* jal ra|t0, c.jal (RV32) */
	PC_RV_IND_CALL,		/* jalr ra|t0, c.jalr */
	PC_RV_RET,		/* jalr x0 through ra|t0, c.jr ra|t0 */
	PC_RV_IND_JUMP,		/* jalr x0, c.jr through another register */
	PC_RV_CO_SWAP,		/* jalr ra, t0 / jalr t0, ra, c.jalr t0 */
	PC_RV_IND_LINK,		/* jalr linking another register */
	PC_RV_DIR_LINK,		/* jal linking another register */
};

struct pc_rv_insn {
	unsigned int len;	/* 2 or 4; 0: reserved (48 bits and longer) or cut */
	uint32_t bits;
	enum pc_rv_kind kind;
	bool direct;		/* the target is pc + offset */
	int64_t offset;
};

/*
 * Decode the instruction whose LEFT bytes start at P (RV64 when RV64,
 * else RV32). Returns its length, 0 when there is none: LEFT is too
 * short, or it is a reserved longer encoding.
 */
unsigned int pc_rv_decode(const uint8_t *p, size_t left, bool rv64,
			  struct pc_rv_insn *in);

/* A call: it links ra or t0 (a co-routine swap too). */
static inline bool pc_rv_is_call(enum pc_rv_kind k)
{
	return k == PC_RV_CALL || k == PC_RV_IND_CALL || k == PC_RV_CO_SWAP;
}

/*
 * A trap return (sret, mret): no transfer in the sense above (its target
 * is a CSR's), but it retires as one; any other instruction that a
 * record starts at without transferring control trapped there.
 */
static inline bool pc_rv_is_xret(const struct pc_rv_insn *in)
{
	return in->len == 4 && (in->bits == 0x10200073 || in->bits == 0x30200073);
}

/*
 * Straight-line code never runs through it: it always transfers
 * control (a jump, a call, a return), unlike a conditional branch.
 */
static inline bool pc_rv_is_uncond(enum pc_rv_kind k)
{
	return k != PC_RV_OTHER && k != PC_RV_COND;
}

#endif

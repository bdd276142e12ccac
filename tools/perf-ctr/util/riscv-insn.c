// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: RISC-V instructions, decoded as far as control flow goes
 * (riscv-insn.h). The base encodings of the unprivileged spec: 16-bit
 * compressed ones (low bits not 11), 32-bit ones (low bits 11, bits
 * 4..2 not 111); longer ones are reserved here.
 */
#include <string.h>

#include "riscv-insn.h"

static int64_t sext(uint64_t v, int bits)
{
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

/* x1 (ra) and x5 (t0) are the link registers. */
static bool is_link(unsigned int r)
{
	return r == 1 || r == 5;
}

static void direct(struct pc_rv_insn *in, enum pc_rv_kind k, int64_t off)
{
	in->kind = k;
	in->direct = true;
	in->offset = off;
}

/* The compressed jump offset of c.j and c.jal. */
static int64_t cj_offset(uint32_t i)
{
	return sext(((i >> 12) & 1) << 11 | ((i >> 11) & 1) << 4 |
		    ((i >> 9) & 3) << 8 | ((i >> 8) & 1) << 10 |
		    ((i >> 7) & 1) << 6 | ((i >> 6) & 1) << 7 |
		    ((i >> 3) & 7) << 1 | ((i >> 2) & 1) << 5, 12);
}

static void decode16(uint32_t i, bool rv64, struct pc_rv_insn *in)
{
	unsigned int f3 = i >> 13, q = i & 3, rs1 = (i >> 7) & 31;

	if (q == 1 && f3 == 5) {
		direct(in, PC_RV_JUMP, cj_offset(i));			/* c.j */
	} else if (q == 1 && f3 == 1 && !rv64) {
		direct(in, PC_RV_CALL, cj_offset(i));			/* c.jal */
	} else if (q == 1 && (f3 == 6 || f3 == 7)) {		/* c.beqz, c.bnez */
		direct(in, PC_RV_COND,
		       sext(((i >> 12) & 1) << 8 | ((i >> 10) & 3) << 3 |
			    ((i >> 5) & 3) << 6 | ((i >> 3) & 3) << 1 |
			    ((i >> 2) & 1) << 5, 9));
	} else if (q == 2 && f3 == 4 && !((i >> 2) & 31) && rs1) {
		if ((i >> 12) & 1)					/* c.jalr */
			in->kind = rs1 == 5 ? PC_RV_CO_SWAP : PC_RV_IND_CALL;
		else							/* c.jr */
			in->kind = is_link(rs1) ? PC_RV_RET : PC_RV_IND_JUMP;
	}
}

static void decode32(uint32_t i, struct pc_rv_insn *in)
{
	unsigned int rd = (i >> 7) & 31, rs1 = (i >> 15) & 31;

	switch (i & 0x7f) {
	case 0x63:						/* branches */
		direct(in, PC_RV_COND,
		       sext(((i >> 31) & 1) << 12 | ((i >> 25) & 0x3f) << 5 |
			    ((i >> 8) & 0xf) << 1 | ((i >> 7) & 1) << 11, 13));
		break;
	case 0x6f:						/* jal */
		direct(in, !rd ? PC_RV_JUMP : is_link(rd) ? PC_RV_CALL : PC_RV_DIR_LINK,
		       sext(((i >> 31) & 1) << 20 | ((i >> 21) & 0x3ff) << 1 |
			    ((i >> 20) & 1) << 11 | ((i >> 12) & 0xff) << 12, 21));
		break;
	case 0x67:						/* jalr */
		if ((i >> 12) & 7)
			break;
		if (is_link(rd) && is_link(rs1) && rd != rs1)
			in->kind = PC_RV_CO_SWAP;
		else if (is_link(rd))
			in->kind = PC_RV_IND_CALL;
		else if (is_link(rs1))
			in->kind = PC_RV_RET;
		else
			in->kind = rd ? PC_RV_IND_LINK : PC_RV_IND_JUMP;
		break;
	}
}

unsigned int pc_rv_decode(const uint8_t *p, size_t left, bool rv64,
			  struct pc_rv_insn *in)
{
	uint32_t i;

	memset(in, 0, sizeof(*in));
	if (left < 2)
		return 0;
	i = p[0] | (uint32_t)p[1] << 8;
	if ((i & 3) != 3) {
		in->len = 2;
		in->bits = i;
		decode16(i, rv64, in);
		return 2;
	}
	if ((i & 0x1c) == 0x1c || left < 4)
		return 0;
	i |= (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	in->len = 4;
	in->bits = i;
	decode32(i, in);
	return 4;
}

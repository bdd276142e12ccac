/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A ladder of CS_STUBS functions of CS_STUB_SIZE bytes each, for the
 * call-stack test: stub i saves ra, calls stub i + 1 from offset
 * CS_CALL_OFFSET, restores ra and returns. The last stub calls cs_leaf,
 * which counts a0 down to 0 and returns. Entering the ladder at stub
 * CS_STUBS - n gives a chain of exactly n calls whose every source and
 * target is known.
 */
#include "callstack.h"

	.text
	.option	push
	.option	norvc
	.balign	64
	.globl	cs_ladder, cs_leaf, cs_leaf_end
cs_ladder:
	.rept	CS_STUBS
	addi	sp, sp, -16
	sd	ra, 8(sp)
	jal	ra, . + CS_STUB_SIZE - CS_CALL_OFFSET
	ld	ra, 8(sp)
	addi	sp, sp, 16
	ret
	.endr
cs_leaf:
	addi	a0, a0, -1
	bnez	a0, cs_leaf
	ret
cs_leaf_end:
	.option	pop

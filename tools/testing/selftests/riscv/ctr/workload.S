/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A workload whose control flow is known to the instruction: one of each
 * kind of transfer that control transfer records classify. Every transfer
 * instruction and every target has a global label, so that the tests can
 * check each record's exact source, target and type.
 *
 * Compressed instructions are off, so a not-taken branch's target (its
 * fall-through) is the branch address + 4.
 *
 * void ctr_workload(long iterations)
 */
#include <asm/unistd.h>

	.text
	.option	push
	.option	norvc
	.balign	64

#define L(name)	.globl name; name:

L(ctr_workload)
	addi	sp, sp, -16
	sd	ra, 8(sp)
	sd	s0, 0(sp)
	mv	s0, a0

L(ctr_wl_begin)
L(ctr_wl_loop)
L(ctr_wl_dircall)
	jal	ra, ctr_wl_leaf			/* direct call */
	la	t1, ctr_wl_leaf
L(ctr_wl_indcall)
	jalr	ra, 0(t1)			/* indirect call (rd = x1, rs = x6) */
L(ctr_wl_taken)
	beq	zero, zero, ctr_wl_taken_to	/* taken conditional branch */
	nop
L(ctr_wl_taken_to)
L(ctr_wl_nottaken)
	bne	zero, zero, ctr_wl_taken	/* not-taken conditional branch */
L(ctr_wl_dirjump)
	j	ctr_wl_dirjump_to		/* direct jump, no link (jal x0) */
	nop
L(ctr_wl_dirjump_to)
	la	t1, ctr_wl_indjump_to
L(ctr_wl_indjump)
	jr	t1				/* indirect jump, no link */
	nop
L(ctr_wl_indjump_to)
	la	t0, ctr_wl_coroutine
L(ctr_wl_swap)
	jalr	ra, 0(t0)			/* co-routine swap (jalr x1, x5) */
L(ctr_wl_dirlink)
	jal	t2, ctr_wl_other		/* other direct jump with link (x7) */
	la	t1, ctr_wl_other
L(ctr_wl_indlink)
	jalr	t2, 0(t1)			/* other indirect jump with link */
	li	a7, __NR_getppid
L(ctr_wl_ecall)
	ecall					/* exception, then trap return */
	addi	s0, s0, -1
L(ctr_wl_loopbr)
	bnez	s0, ctr_wl_loop			/* loop: taken, then not taken */

	ld	s0, 0(sp)
	ld	ra, 8(sp)
	addi	sp, sp, 16
L(ctr_wl_ret)
	ret					/* return to the C caller */

L(ctr_wl_leaf)
	nop
L(ctr_wl_leaf_ret)
	ret					/* return (jalr x0, 0(x1)) */

L(ctr_wl_coroutine)
	nop
L(ctr_wl_coroutine_swap)
	jalr	t0, 0(ra)			/* co-routine swap (jalr x5, x1) */

L(ctr_wl_other)
	nop
L(ctr_wl_other_ret)
	jr	t2				/* indirect jump through x7: no link */
L(ctr_wl_end)

	.option	pop

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Two loops, each in its own section, for the isolation test: one task
 * runs only leak_a_spin(), the other only leak_b_spin(). Neither leaves
 * its section but to return, so a branch record with an end in one
 * section belongs to the task that runs that loop.
 *
 * void leak_a_spin(long iterations), void leak_b_spin(long iterations)
 */
	.macro	spin x
	.section .text.leak_\x, "ax"
	.balign	64
	.globl	leak_\x\()_begin, leak_\x\()_spin, leak_\x\()_end
leak_\x\()_begin:
leak_\x\()_spin:
	addi	sp, sp, -16
	sd	ra, 8(sp)
1:	jal	ra, 2f			/* a call, then a return */
	addi	a0, a0, -1
	bnez	a0, 1b			/* a taken branch */
	ld	ra, 8(sp)
	addi	sp, sp, 16
	ret
2:	addi	t0, zero, 3
3:	addi	t0, t0, -1
	bnez	t0, 3b
	ret
leak_\x\()_end:
	.endm

	.option	push
	.option	norvc
	spin	a
	spin	b
	.option	pop

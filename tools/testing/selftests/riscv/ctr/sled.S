/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sled [forever]: a program without a C library that runs a sled of
 * 262144 instructions with no transfer but its return, 4 times, or
 * without end when given an argument: it adds three records per quarter
 * million instructions to the branch buffer, from its first instruction
 * on. The tests that check whose records a sample holds run it beside a
 * process full of branches, or exec it.
 */
	.option	push
	.option	norvc
	.text
	.globl	_start
_start:
	ld	s0, 0(sp)		/* argc */
	li	s1, 4
1:	jal	ra, sled
	li	t0, 1
	bgt	s0, t0, 1b		/* an argument: forever */
	addi	s1, s1, -1
	bnez	s1, 1b
	li	a0, 0
	li	a7, 93			/* exit */
	ecall

	.balign	64
sled:
	.rept	262143
	addi	zero, zero, 0
	.endr
	ret
	.option	pop

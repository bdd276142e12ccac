/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A program whose control flow is known, for the golden tests of
 * perf-ctr aggregate. Linked at 0x10000 with -nostdlib -static; the
 * mix of 16- and 32-bit instructions is spelled out.
 *
 *   _start: a loop of 3 iterations, a call to leaf, a jump back.
 *   tail: a tail call of leaf.
 */
	.text
	.option norelax
	.globl	_start
	.type	_start, @function
_start:
	.option	rvc
	c.li	a0, 3			/* 0x10000, 2 bytes */
1:
	.option	norvc
	addi	a1, a1, 1		/* 0x10002, 4 */
	.option	rvc
	c.addi	a0, -1			/* 0x10006, 2 */
	.option	norvc
	bnez	a0, 1b			/* 0x10008, 4: the loop */
	jal	ra, leaf		/* 0x1000c, 4: the call */
	.option	rvc
	c.j	_start			/* 0x10010, 2 */
	.size	_start, . - _start

	.globl	leaf
	.type	leaf, @function
leaf:
	.option	norvc
	addi	a2, a2, 2		/* 0x10012, 4 */
	.option	rvc
	c.nop				/* 0x10016, 2 */
	c.jr	ra			/* 0x10018, 2: the return */
	.size	leaf, . - leaf

	.globl	tail
	.type	tail, @function
tail:
	c.j	leaf			/* 0x1001a, 2: the tail call */
	.size	tail, . - tail

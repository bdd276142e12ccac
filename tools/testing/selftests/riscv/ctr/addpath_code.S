/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Code for the add-path tests, each piece in its own section:
 *
 * void addpath_sled(void): 4096 instructions and no transfer but the
 * return, so that the task running it adds almost nothing to the branch
 * buffer and what was there before stays visible.
 *
 * void addpath_dive(long n, void (*fn)(void)): n nested calls of itself,
 * then a call of fn at the bottom: a call stack of known depth whose
 * frames all lie between addpath_dive_begin and addpath_dive_end.
 */
	.option	push
	.option	norvc

	.section .text.addpath_sled, "ax"
	.balign	64
	.globl	addpath_sled
addpath_sled:
	.rept	4095
	addi	zero, zero, 0
	.endr
	ret

	.section .text.addpath_dive, "ax"
	.balign	64
	.globl	addpath_dive_begin, addpath_dive, addpath_dive_end
addpath_dive_begin:
addpath_dive:
	addi	sp, sp, -16
	sd	ra, 8(sp)
	beqz	a0, 1f
	addi	a0, a0, -1
	jal	ra, addpath_dive
	j	2f
1:	jalr	ra, 0(a1)
2:	ld	ra, 8(sp)
	addi	sp, sp, 16
	ret
addpath_dive_end:

	.option	pop

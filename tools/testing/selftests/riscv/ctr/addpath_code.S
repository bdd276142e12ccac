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
 * frames all lie between addpath_dive_begin and addpath_dive_end. The
 * calls are at addpath_dive_call (to addpath_dive) and addpath_dive_fn
 * (to fn).
 *
 * void addpath_leaf(void): a loop of 10000 iterations without a call,
 * between addpath_leaf_begin and addpath_leaf_end, for a fn of
 * addpath_dive() to spin in.
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
	.globl	addpath_dive_call, addpath_dive_fn
addpath_dive_begin:
addpath_dive:
	addi	sp, sp, -16
	sd	ra, 8(sp)
	beqz	a0, 1f
	addi	a0, a0, -1
addpath_dive_call:
	jal	ra, addpath_dive
	j	2f
1:
addpath_dive_fn:
	jalr	ra, 0(a1)
2:	ld	ra, 8(sp)
	addi	sp, sp, 16
	ret
addpath_dive_end:

	.section .text.addpath_leaf, "ax"
	.balign	64
	.globl	addpath_leaf_begin, addpath_leaf, addpath_leaf_end
addpath_leaf_begin:
addpath_leaf:
	li	t0, 10000
1:	addi	t0, t0, -1
	bnez	t0, 1b
	ret
addpath_leaf_end:

	.option	pop

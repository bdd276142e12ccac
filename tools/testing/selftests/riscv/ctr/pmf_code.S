/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Loops whose user instruction counts are known, for the mode filtering
 * test. Compressed instructions are off, so each is one instruction.
 *
 * void pmf_syscalls(long n): n getppid() system calls, 4 instructions
 * each. The ISA says an ecall does not retire (3 a call); QEMU 11.1
 * counts it (4): the test does not count this loop exactly.
 *
 * void pmf_touch(const char *p, long n, long stride): one load from each
 * of n addresses stride bytes apart, 4 instructions each: a load that
 * faults runs again when the kernel returns, and retires once.
 */
#include <asm/unistd.h>

	.text
	.option	push
	.option	norvc
	.balign	64
	.globl	pmf_syscalls, pmf_touch
pmf_syscalls:
	mv	t1, a0
1:	li	a7, __NR_getppid
	ecall
	addi	t1, t1, -1
	bnez	t1, 1b
	ret

pmf_touch:
1:	ld	t0, 0(a0)
	add	a0, a0, a2
	addi	a1, a1, -1
	bnez	a1, 1b
	ret
	.option	pop

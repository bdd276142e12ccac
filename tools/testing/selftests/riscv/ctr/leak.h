/* SPDX-License-Identifier: GPL-2.0-only */
/* The two loops of leak_code.S and the bounds of their sections. */
#ifndef __CTR_LEAK_H
#define __CTR_LEAK_H

void leak_a_spin(long iterations);
void leak_b_spin(long iterations);

extern char leak_a_begin[], leak_a_end[], leak_b_begin[], leak_b_end[];

#endif

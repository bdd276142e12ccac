/* SPDX-License-Identifier: GPL-2.0-only */
/* The loops of pmf_code.S. */
#ifndef __CTR_PMF_H
#define __CTR_PMF_H

void pmf_syscalls(long n);
void pmf_touch(const char *p, long n, long stride);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/* The code of addpath_code.S. */
#ifndef __CTR_ADDPATH_H
#define __CTR_ADDPATH_H

void addpath_sled(void);
void addpath_dive(long n, void (*fn)(void));

extern char addpath_dive_begin[], addpath_dive_end[];

#endif

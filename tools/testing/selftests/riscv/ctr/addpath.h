/* SPDX-License-Identifier: GPL-2.0-only */
/* The code of addpath_code.S. */
#ifndef __CTR_ADDPATH_H
#define __CTR_ADDPATH_H

void addpath_sled(void);
void addpath_dive(long n, void (*fn)(void));
void addpath_leaf(void);

extern char addpath_dive_begin[], addpath_dive_end[];
extern char addpath_dive_call[], addpath_dive_fn[];
extern char addpath_leaf_begin[], addpath_leaf_end[];

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The labels of workload.S: every transfer instruction of the workload
 * and every target has one.
 */
#ifndef __CTR_WORKLOAD_H
#define __CTR_WORKLOAD_H

void ctr_workload(long iterations);

extern char ctr_wl_begin[], ctr_wl_end[], ctr_wl_loop[], ctr_wl_dircall[],
	ctr_wl_indcall[], ctr_wl_taken[], ctr_wl_taken_to[], ctr_wl_nottaken[],
	ctr_wl_dirjump[], ctr_wl_dirjump_to[], ctr_wl_indjump[],
	ctr_wl_indjump_to[], ctr_wl_swap[], ctr_wl_dirlink[], ctr_wl_indlink[],
	ctr_wl_ecall[], ctr_wl_loopbr[], ctr_wl_ret[], ctr_wl_leaf[],
	ctr_wl_leaf_ret[], ctr_wl_coroutine[], ctr_wl_coroutine_swap[],
	ctr_wl_other[], ctr_wl_other_ret[];

#endif

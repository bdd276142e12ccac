/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RISC-V Control Transfer Records (Smctr/Ssctr) for perf branch stacks:
 * the interface the SBI PMU driver calls.
 */
#ifndef __RISCV_CTR_H
#define __RISCV_CTR_H

#ifdef CONFIG_RISCV_CTR
void riscv_ctr_probe(void);
void riscv_ctr_reset(void);
unsigned int riscv_ctr_num_branches(void);
#else
static inline void riscv_ctr_probe(void) { }
static inline void riscv_ctr_reset(void) { }
static inline unsigned int riscv_ctr_num_branches(void)
{
	return 0;
}
#endif

#if IS_ENABLED(CONFIG_RISCV_CTR_KUNIT_TEST)
void riscv_ctr_clear(void);
#endif

#endif /* __RISCV_CTR_H */

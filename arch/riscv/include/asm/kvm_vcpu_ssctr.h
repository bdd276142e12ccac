/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A vCPU's control transfer records (Ssctr), in the CTR buffer of the CPU
 * it is loaded on.
 */

#ifndef __KVM_VCPU_RISCV_SSCTR_H
#define __KVM_VCPU_RISCV_SSCTR_H

#include <linux/perf/riscv_pmu.h>
#include <linux/types.h>
#include <asm/kvm_vcpu_insn.h>

struct kvm_vcpu;

/**
 * struct kvm_vcpu_ssctr - a vCPU's CTR state while it is not loaded
 * @vsctrctl: its sctrctl
 * @status: its sctrstatus: WRPTR and FROZEN
 * @depth: the sctrdepth.DEPTH it selected
 * @loaded: its state is in the buffer of the CPU it is loaded on
 * @raw: its records, logical entry 0 (the youngest) first, as many as the
 *	deepest buffer of the host's harts holds; those at or beyond @depth
 *	are 0
 */
struct kvm_vcpu_ssctr {
	unsigned long vsctrctl;
	unsigned long status;
	unsigned long depth;
	bool loaded;
	struct riscv_ssctr_entry raw[];
};

bool kvm_riscv_ssctr_available(void);
int kvm_riscv_vcpu_ssctr_init(struct kvm_vcpu *vcpu);
void kvm_riscv_vcpu_ssctr_deinit(struct kvm_vcpu *vcpu);
void kvm_riscv_vcpu_ssctr_reset(struct kvm_vcpu *vcpu);
void kvm_riscv_vcpu_ssctr_load(struct kvm_vcpu *vcpu);
void kvm_riscv_vcpu_ssctr_put(struct kvm_vcpu *vcpu);
void kvm_riscv_vcpu_ssctr_overflow(struct kvm_vcpu *vcpu);
unsigned long kvm_riscv_vcpu_ssctr_num_regs(void);
int kvm_riscv_vcpu_ssctr_get_reg(struct kvm_vcpu *vcpu,
				 unsigned long reg_subtype,
				 unsigned long reg_num, unsigned long *val);
int kvm_riscv_vcpu_ssctr_set_reg(struct kvm_vcpu *vcpu,
				 unsigned long reg_subtype,
				 unsigned long reg_num, unsigned long val);
int kvm_riscv_vcpu_ssctr_depth_rmw(struct kvm_vcpu *vcpu, unsigned int csr_num,
				   unsigned long *val, unsigned long new_val,
				   unsigned long wr_mask);

#define KVM_RISCV_VCPU_SSCTR_CSR_FUNCS \
{ .base = CSR_SCTRDEPTH, .count = 1, .func = kvm_riscv_vcpu_ssctr_depth_rmw },

#endif /* __KVM_VCPU_RISCV_SSCTR_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Control transfer records (Ssctr) for KVM guests.
 *
 * A guest with Ssctr records into the one CTR buffer of the hart it runs
 * on, and reads it through vsctrctl (its sctrctl), sctrstatus and the
 * entry window of siselect/sireg*, all without exits: hstateen0.CTR lets
 * it. The buffer is the host's otherwise, so the CTR driver lends it to
 * the vCPU for as long as the vCPU is loaded on a CPU: its records,
 * status, depth and vsctrctl go in at every load, even on the same CPU
 * (the host may have recorded in between), and come out at every put.
 * sctrdepth always traps from VS-mode and is emulated here.
 */

#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/irqflags.h>
#include <linux/kvm_host.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/csr.h>
#include <asm/kvm_vcpu_ssctr.h>

/* The deepest depth a vCPU can select, that of the deepest hart. */
static unsigned long kvm_riscv_ssctr_max_depth(void)
{
	return fls(riscv_ssctr_guest_depths()) - 1;
}

/* The entries of the buffer at sctrdepth.DEPTH @depth. */
static unsigned int kvm_riscv_ssctr_entries(unsigned long depth)
{
	return 16U << depth;
}

/**
 * kvm_riscv_ssctr_available() - can a vCPU have Ssctr on this host
 *
 * Return: true when the harts have CTR and the H extension, and the CTR
 * driver can lend the buffer.
 */
bool kvm_riscv_ssctr_available(void)
{
	return riscv_ssctr_guest_depths();
}

/**
 * kvm_riscv_vcpu_ssctr_init() - give a vCPU with Ssctr its CTR state
 * @vcpu: the vCPU, not loaded
 *
 * At its first run, or at the first KVM_SET_ONE_REG or KVM_GET_ONE_REG of
 * its CTR registers, as a VMM restoring it may come first. The state is
 * that of a hart at reset: recording off, no records, the deepest depth.
 *
 * Return: 0, or -ENOMEM.
 */
int kvm_riscv_vcpu_ssctr_init(struct kvm_vcpu *vcpu)
{
	unsigned long depth = kvm_riscv_ssctr_max_depth();
	struct kvm_vcpu_ssctr *s;

	if (vcpu->arch.ssctr)
		return 0;
	s = kzalloc(struct_size(s, raw, kvm_riscv_ssctr_entries(depth)),
		    GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	s->depth = depth;
	vcpu->arch.ssctr = s;
	return 0;
}

/**
 * kvm_riscv_vcpu_ssctr_deinit() - free a vCPU's CTR state
 * @vcpu: the vCPU, not loaded
 */
void kvm_riscv_vcpu_ssctr_deinit(struct kvm_vcpu *vcpu)
{
	kfree(vcpu->arch.ssctr);
	vcpu->arch.ssctr = NULL;
}

/**
 * kvm_riscv_vcpu_ssctr_reset() - reset a vCPU's CTR state with the vCPU
 * @vcpu: the vCPU, not loaded
 *
 * As a hart's at reset: recording off, no records, not frozen, the
 * deepest depth.
 */
void kvm_riscv_vcpu_ssctr_reset(struct kvm_vcpu *vcpu)
{
	struct kvm_vcpu_ssctr *s = vcpu->arch.ssctr;

	if (!s)
		return;
	s->vsctrctl = 0;
	s->status = 0;
	s->depth = kvm_riscv_ssctr_max_depth();
	memset(s->raw, 0, kvm_riscv_ssctr_entries(s->depth) * sizeof(s->raw[0]));
}

/**
 * kvm_riscv_vcpu_ssctr_load() - put a vCPU's CTR state into this CPU's buffer
 * @vcpu: the vCPU KVM loads on this CPU, with preemption off
 *
 * The host stops recording on this CPU until the put.
 */
void kvm_riscv_vcpu_ssctr_load(struct kvm_vcpu *vcpu)
{
	struct kvm_vcpu_ssctr *s = vcpu->arch.ssctr;
	unsigned long flags;

	if (!s)
		return;
	/* The guest's overflow freeze waits until its state is in. */
	local_irq_save(flags);
	riscv_ssctr_lend();
	csr_write(CSR_SCTRDEPTH, s->depth);
	riscv_ssctr_lent_write(s->raw, kvm_riscv_ssctr_entries(s->depth),
			       s->status);
	csr_write(CSR_VSCTRCTL, s->vsctrctl);
	s->loaded = true;
	local_irq_restore(flags);
}

/**
 * kvm_riscv_vcpu_ssctr_put() - take a vCPU's CTR state out of this CPU's buffer
 * @vcpu: the vCPU KVM puts, with preemption off
 *
 * Every entry of its depth, valid or not, as the guest may read back
 * invalid ones. The buffer is wiped and the host records again.
 */
void kvm_riscv_vcpu_ssctr_put(struct kvm_vcpu *vcpu)
{
	struct kvm_vcpu_ssctr *s = vcpu->arch.ssctr;
	unsigned int nr, max;
	unsigned long flags;

	if (!s || !s->loaded)
		return;
	nr = kvm_riscv_ssctr_entries(s->depth);
	max = kvm_riscv_ssctr_entries(kvm_riscv_ssctr_max_depth());
	local_irq_save(flags);
	s->loaded = false;
	s->vsctrctl = csr_read(CSR_VSCTRCTL);
	csr_write(CSR_VSCTRCTL, 0);
	riscv_ssctr_lent_read(s->raw, nr, &s->status);
	riscv_ssctr_reclaim();
	local_irq_restore(flags);
	memset(&s->raw[nr], 0, (max - nr) * sizeof(s->raw[0]));
}

/**
 * kvm_riscv_vcpu_ssctr_overflow() - a counter of the guest overflowed
 * @vcpu: the vCPU
 *
 * Called as KVM raises the guest's counter overflow interrupt, from the
 * host's overflow interrupt on the CPU the vCPU runs on. The hart freezes
 * the buffer at the host's own overflows only: the guest's freeze (its
 * sctrctl.LCOFIFRZ) is done here, before the guest runs again.
 */
void kvm_riscv_vcpu_ssctr_overflow(struct kvm_vcpu *vcpu)
{
	struct kvm_vcpu_ssctr *s = vcpu->arch.ssctr;

	if (s && s->loaded && (csr_read(CSR_VSCTRCTL) & CTRCTL_LCOFIFRZ))
		csr_set(CSR_SCTRSTATUS, SCTRSTATUS_FROZEN);
}

/**
 * kvm_riscv_vcpu_ssctr_depth_rmw() - sctrdepth, as the guest sees it
 * @vcpu: the vCPU, loaded on this CPU
 * @csr_num: CSR_SCTRDEPTH
 * @val: the value before the write
 * @new_val: the value the guest writes, under @wr_mask
 * @wr_mask: the bits written, 0 for a read
 *
 * sctrdepth traps from VS-mode whatever hstateen0 says. DEPTH is WARL: a
 * depth the harts do not have keeps the one before. As on a hart, the
 * buffer's contents are the guest's to clear after a change.
 *
 * Return: KVM_INSN_CONTINUE_NEXT_SEPC, or KVM_INSN_ILLEGAL_TRAP for a
 * vCPU without Ssctr.
 */
int kvm_riscv_vcpu_ssctr_depth_rmw(struct kvm_vcpu *vcpu, unsigned int csr_num,
				   unsigned long *val, unsigned long new_val,
				   unsigned long wr_mask)
{
	struct kvm_vcpu_ssctr *s = vcpu->arch.ssctr;
	unsigned long depth;

	if (!s)
		return KVM_INSN_ILLEGAL_TRAP;

	*val = s->depth;
	depth = FIELD_GET(SCTRDEPTH_DEPTH, (s->depth & ~wr_mask) |
					   (new_val & wr_mask));
	if (depth == s->depth || !(riscv_ssctr_guest_depths() & BIT(depth)))
		return KVM_INSN_CONTINUE_NEXT_SEPC;

	/* No put in between: the state stays on this CPU while it changes. */
	preempt_disable();
	s->depth = depth;
	if (s->loaded)
		csr_write(CSR_SCTRDEPTH, depth);
	preempt_enable();
	return KVM_INSN_CONTINUE_NEXT_SEPC;
}

/*
 * KVM_GET_ONE_REG and KVM_SET_ONE_REG reach a vCPU's CTR state while the
 * vCPU is not loaded: a VMM saves it, and puts it into the same or
 * another vCPU, exactly. Values a hart would not keep are refused rather
 * than changed, so that what a VMM puts in is what it reads back and what
 * the guest sees. The registers follow the hardware alone: every entry of
 * the deepest buffer of the host's harts, whatever depth the host uses.
 */

#define KVM_RISCV_SSCTR_CSRS \
	(sizeof(struct kvm_riscv_ssctr_csr) / sizeof(unsigned long))
#define KVM_RISCV_SSCTR_FIELDS \
	(sizeof(struct kvm_riscv_ssctr_entry) / sizeof(unsigned long))

/**
 * kvm_riscv_vcpu_ssctr_num_regs() - the ONE_REG registers of a vCPU's CTR
 *
 * Return: those of struct kvm_riscv_ssctr_csr, then one of struct
 * kvm_riscv_ssctr_entry for every entry of the deepest buffer.
 */
unsigned long kvm_riscv_vcpu_ssctr_num_regs(void)
{
	return KVM_RISCV_SSCTR_CSRS + KVM_RISCV_SSCTR_FIELDS *
	       kvm_riscv_ssctr_entries(kvm_riscv_ssctr_max_depth());
}

/* The field of a record that register @field of an entry is. */
static u64 *kvm_riscv_ssctr_field(struct riscv_ssctr_entry *e,
				  unsigned long field)
{
	switch (field) {
	case KVM_REG_RISCV_CSR_SSCTR_ENTRY_REG(0, ctrsource):
		return &e->source;
	case KVM_REG_RISCV_CSR_SSCTR_ENTRY_REG(0, ctrtarget):
		return &e->target;
	default:
		return &e->data;
	}
}

/*
 * The field of the records that ONE_REG register @reg_num of
 * KVM_REG_RISCV_CSR_SSCTR_ENTRY is, or NULL beyond the deepest buffer.
 */
static u64 *kvm_riscv_ssctr_entry_reg(struct kvm_vcpu_ssctr *s,
				      unsigned long reg_num)
{
	unsigned long regs = kvm_riscv_vcpu_ssctr_num_regs() -
			     KVM_RISCV_SSCTR_CSRS;

	if (reg_num >= regs)
		return NULL;
	reg_num = array_index_nospec(reg_num, regs);
	return kvm_riscv_ssctr_field(&s->raw[reg_num / KVM_RISCV_SSCTR_FIELDS],
				     reg_num % KVM_RISCV_SSCTR_FIELDS);
}

/* The vCPU's state, allocated at its first access, or NULL. */
static struct kvm_vcpu_ssctr *kvm_riscv_vcpu_ssctr_state(struct kvm_vcpu *vcpu,
							  int *err)
{
	*err = -ENOENT;
	if (!riscv_isa_extension_available(vcpu->arch.isa, SSCTR))
		return NULL;
	*err = kvm_riscv_vcpu_ssctr_init(vcpu);
	return *err ? NULL : vcpu->arch.ssctr;
}

/**
 * kvm_riscv_vcpu_ssctr_get_reg() - read a CTR register of a vCPU
 * @vcpu: the vCPU, not loaded
 * @reg_subtype: KVM_REG_RISCV_CSR_SSCTR or KVM_REG_RISCV_CSR_SSCTR_ENTRY
 * @reg_num: the register within it
 * @val: its value; an entry at or beyond the vCPU's depth reads 0
 *
 * Return: 0, -ENOENT for a vCPU without Ssctr or no such register, or
 * -ENOMEM.
 */
int kvm_riscv_vcpu_ssctr_get_reg(struct kvm_vcpu *vcpu,
				 unsigned long reg_subtype,
				 unsigned long reg_num, unsigned long *val)
{
	struct kvm_vcpu_ssctr *s;
	u64 *field;
	int err;

	s = kvm_riscv_vcpu_ssctr_state(vcpu, &err);
	if (!s)
		return err;

	if (reg_subtype == KVM_REG_RISCV_CSR_SSCTR) {
		switch (reg_num) {
		case KVM_REG_RISCV_CSR_SSCTR_REG(sctrctl):
			*val = s->vsctrctl;
			return 0;
		case KVM_REG_RISCV_CSR_SSCTR_REG(sctrdepth):
			*val = s->depth;
			return 0;
		case KVM_REG_RISCV_CSR_SSCTR_REG(sctrstatus):
			*val = s->status;
			return 0;
		default:
			return -ENOENT;
		}
	}

	field = kvm_riscv_ssctr_entry_reg(s, reg_num);
	if (!field)
		return -ENOENT;
	*val = *field;
	return 0;
}

/* A new depth drops the records beyond it and the bits of WRPTR it lacks. */
static int kvm_riscv_ssctr_set_depth(struct kvm_vcpu_ssctr *s,
				     unsigned long depth)
{
	unsigned int nr, max;

	if (depth > SCTRDEPTH_MAX || !(riscv_ssctr_guest_depths() & BIT(depth)))
		return -EINVAL;
	nr = kvm_riscv_ssctr_entries(depth);
	max = kvm_riscv_ssctr_entries(kvm_riscv_ssctr_max_depth());
	memset(&s->raw[nr], 0, (max - nr) * sizeof(s->raw[0]));
	s->status &= SCTRSTATUS_FROZEN | (nr - 1);
	s->depth = depth;
	return 0;
}

/**
 * kvm_riscv_vcpu_ssctr_set_reg() - write a CTR register of a vCPU
 * @vcpu: the vCPU, not loaded
 * @reg_subtype: KVM_REG_RISCV_CSR_SSCTR or KVM_REG_RISCV_CSR_SSCTR_ENTRY
 * @reg_num: the register within it
 * @val: the value
 *
 * sctrdepth decides which values of sctrstatus and which entries are
 * valid: a VMM restoring the state writes it first.
 *
 * Return: 0; -ENOENT for a vCPU without Ssctr or no such register;
 * -EINVAL for a value the harts would not keep: an sctrctl bit they
 * lack, a depth they do not have, a WRPTR beyond the depth, anything but
 * 0 in an entry at or beyond the depth; or -ENOMEM.
 */
int kvm_riscv_vcpu_ssctr_set_reg(struct kvm_vcpu *vcpu,
				 unsigned long reg_subtype,
				 unsigned long reg_num, unsigned long val)
{
	struct kvm_vcpu_ssctr *s;
	unsigned int nr;
	u64 *field;
	int err;

	s = kvm_riscv_vcpu_ssctr_state(vcpu, &err);
	if (!s)
		return err;
	nr = kvm_riscv_ssctr_entries(s->depth);

	if (reg_subtype == KVM_REG_RISCV_CSR_SSCTR) {
		switch (reg_num) {
		case KVM_REG_RISCV_CSR_SSCTR_REG(sctrctl):
			if (val & ~riscv_ssctr_guest_ctl())
				return -EINVAL;
			s->vsctrctl = val;
			return 0;
		case KVM_REG_RISCV_CSR_SSCTR_REG(sctrdepth):
			return kvm_riscv_ssctr_set_depth(s, val);
		case KVM_REG_RISCV_CSR_SSCTR_REG(sctrstatus):
			if (val & ~(SCTRSTATUS_FROZEN | (nr - 1)))
				return -EINVAL;
			s->status = val;
			return 0;
		default:
			return -ENOENT;
		}
	}

	field = kvm_riscv_ssctr_entry_reg(s, reg_num);
	if (!field)
		return -ENOENT;
	/* A hart ignores writes beyond its depth: only 0 reads back. */
	if (reg_num >= nr * KVM_RISCV_SSCTR_FIELDS)
		return val ? -EINVAL : 0;
	*field = val;
	return 0;
}

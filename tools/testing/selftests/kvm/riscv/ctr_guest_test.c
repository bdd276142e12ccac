// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctr_guest_test: a guest's own control transfer records (Ssctr).
 *
 * With KVM_RISCV_ISA_EXT_SSCTR enabled, the guest records in VS-mode
 * through its sctrctl and reads its records through the entry window of
 * siselect/sireg*, without exits; sctrdepth is emulated by KVM.
 * - One vCPU, while the host samples this thread's branches (user and
 *   kernel, exclude_guest): every round, the guest records a known
 *   sequence (a direct call, its return, a direct jump, a taken branch)
 *   and must read exactly those four records back, youngest first, and
 *   nothing older; no host sample may carry an address of the sequence.
 * - Two vCPUs whose threads share one host CPU and take turns, each with a
 *   sequence of its own: after the other vCPU has run (and recorded) in
 *   between, each must still read exactly its own four records.
 * - Save and restore: the state a guest left reads back through
 *   KVM_GET_ONE_REG as the guest saw it, values a hart would not keep are
 *   refused, a new vCPU given it through KVM_SET_ONE_REG sees exactly
 *   it, and records written into a vCPU that ran are what its guest
 *   reads next.
 * - Freeze: a guest counter overflow freezes the guest's records when its
 *   sctrctl.LCOFIFRZ asks for it, before the guest takes the interrupt,
 *   and not otherwise.
 * "ctr_guest_test bench N" prints the time of a KVM_RUN round trip (a
 * vCPU load and put each) with a full buffer moved, and without Ssctr.
 */
#include <errno.h>
#include <pthread.h>
#include <linux/perf_event.h>
#include <linux/stringify.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kvm_util.h"
#include "processor.h"
#include "sbi.h"
#include "ucall_common.h"
#include "../../riscv/ctr/ring.h"

#define ROUNDS		20
#define CSR_SIREG2	0x152
#define CSR_SIREG3	0x153
#define CSR_SCTRDEPTH	0x15f
#define CSR_SCTRCTL	0x14e
#define CSR_SCTRSTATUS	0x14f
#define SCTRCTL_U	BIT(0)
#define SCTRCTL_S	BIT(1)
#define SCTRCTL_M	BIT(2)
#define SCTRCTL_BPFRZ	BIT(11)
#define SCTRCTL_LCOFIFRZ	BIT(12)
#define SCTRSTATUS_FROZEN	BIT(31)
#define CTR_VALID	1UL

/*
 * A known sequence, recorded between the two writes of sctrctl. Its
 * records, youngest first: the taken branch (type 5), the direct jump
 * (11), the return from the leaf (13), the direct call (9).
 */
#define CTR_SEQ(n)							\
	asm(".pushsection .text\n"					\
	    ".option push\n"						\
	    ".option norvc\n"						\
	    ".global ctr_" #n "\n"					\
	    "ctr_" #n ":\n"						\
	    "	mv	t0, ra\n"					\
	    "	csrw	0x14e, a0\n"					\
	    ".global ctr_" #n "_call\n"					\
	    "ctr_" #n "_call:\n"					\
	    "	jal	ra, ctr_" #n "_leaf\n"				\
	    ".global ctr_" #n "_back\n"					\
	    "ctr_" #n "_back:\n"					\
	    "	j	ctr_" #n "_jump_to\n"				\
	    "	nop\n"							\
	    ".global ctr_" #n "_jump_to\n"				\
	    "ctr_" #n "_jump_to:\n"					\
	    "	beq	zero, zero, ctr_" #n "_branch_to\n"		\
	    "	nop\n"							\
	    ".global ctr_" #n "_branch_to\n"				\
	    "ctr_" #n "_branch_to:\n"					\
	    "	csrw	0x14e, zero\n"					\
	    "	mv	ra, t0\n"					\
	    "	ret\n"							\
	    ".global ctr_" #n "_leaf\n"					\
	    "ctr_" #n "_leaf:\n"					\
	    "	ret\n"							\
	    ".global ctr_" #n "_end\n"					\
	    "ctr_" #n "_end:\n"						\
	    ".option pop\n"						\
	    ".popsection\n")

CTR_SEQ(a);
CTR_SEQ(b);

/* The freeze test's loop: @rounds of a call, its return, a taken branch. */
static noinline void ctr_loop(unsigned long rounds)
{
	asm volatile("	mv	t0, ra\n"
		     "1:	jal	ra, 2f\n"
		     "	addi	%0, %0, -1\n"
		     "	bnez	%0, 1b\n"
		     "	mv	ra, t0\n"
		     "	j	3f\n"
		     "2:	ret\n"
		     "3:\n"
		     : "+r" (rounds) : : "t0", "ra", "memory");
}

/* The sequence's labels, as functions: only their addresses are used. */
#define CTR_SEQ_DECL(n)							\
	void ctr_##n(unsigned long sctrctl), ctr_##n##_call(void),	\
	     ctr_##n##_back(void), ctr_##n##_jump_to(void),		\
	     ctr_##n##_branch_to(void), ctr_##n##_leaf(void),		\
	     ctr_##n##_end(void)

CTR_SEQ_DECL(a);
CTR_SEQ_DECL(b);

/* The vCPUs take turns, by this counter in guest memory. */
static unsigned long turn;

static unsigned long guest_csr_read_entry(unsigned int i, unsigned long *to,
					  unsigned long *data)
{
	unsigned long from;

	csr_write(CSR_SISELECT, 0x200 + i);
	from = csr_read(CSR_SIREG);
	*to = csr_read(CSR_SIREG2);
	*data = csr_read(CSR_SIREG3);
	return from;
}

/*
 * The four records of sequence @id, youngest first: source, target, type.
 * Guest and host code alike: the guest runs at the addresses of the host.
 */
static void seq_want(int id, unsigned long want[4][3])
{
	const unsigned long w[4][3] = {
		{ (unsigned long)(id ? ctr_b_jump_to : ctr_a_jump_to),
		  (unsigned long)(id ? ctr_b_branch_to : ctr_a_branch_to), 5 },
		{ (unsigned long)(id ? ctr_b_back : ctr_a_back),
		  (unsigned long)(id ? ctr_b_jump_to : ctr_a_jump_to), 11 },
		{ (unsigned long)(id ? ctr_b_leaf : ctr_a_leaf),
		  (unsigned long)(id ? ctr_b_back : ctr_a_back), 13 },
		{ (unsigned long)(id ? ctr_b_call : ctr_a_call),
		  (unsigned long)(id ? ctr_b_leaf : ctr_a_leaf), 9 },
	};

	memcpy(want, w, sizeof(w));
}

/* Exactly the four records of sequence @id, youngest first, and no more. */
static void guest_check(int id, int round)
{
	unsigned long from, to, data, want[4][3];
	int i;

	seq_want(id, want);
	for (i = 0; i < 4; i++) {
		from = guest_csr_read_entry(i, &to, &data);
		__GUEST_ASSERT(from == (want[i][0] | CTR_VALID) &&
			       (to & ~1UL) == want[i][1] &&
			       (data & 0xf) == want[i][2],
			       "vCPU %d, round %d, record %d: %lx -> %lx type %lu, want %lx -> %lx type %lu",
			       id, round, i, from, to, data & 0xf,
			       want[i][0] | CTR_VALID, want[i][1], want[i][2]);
	}
	from = guest_csr_read_entry(4, &to, &data);
	__GUEST_ASSERT(!(from & CTR_VALID),
		       "vCPU %d, round %d: a fifth record %lx -> %lx",
		       id, round, from, to);
}

static void guest_code(int id, int vcpus)
{
	unsigned long depth;
	int round;

	/* sctrdepth, emulated by KVM: WARL, 16 entries always there. */
	depth = csr_read(CSR_SCTRDEPTH);
	GUEST_ASSERT(depth <= 4);
	csr_write(CSR_SCTRDEPTH, 0);
	GUEST_ASSERT_EQ(csr_read(CSR_SCTRDEPTH), 0);
	csr_write(CSR_SCTRDEPTH, depth);
	GUEST_ASSERT_EQ(csr_read(CSR_SCTRDEPTH), depth);

	for (round = 0; round < ROUNDS; round++) {
		while (READ_ONCE(turn) % vcpus != id)
			cpu_relax();
		asm volatile(".4byte 0x10400073" : : : "memory");	/* SCTRCLR */
		if (id)
			ctr_b(SCTRCTL_S);
		else
			ctr_a(SCTRCTL_S);
		guest_check(id, round);
		WRITE_ONCE(turn, READ_ONCE(turn) + 1);
		/* The other vCPU runs and records; ours must come back. */
		while (vcpus > 1 && READ_ONCE(turn) % vcpus != id)
			cpu_relax();
		guest_check(id, round);
		if (vcpus > 1 && round == ROUNDS - 1)
			WRITE_ONCE(turn, READ_ONCE(turn) + 1);
		GUEST_SYNC(round);
	}
	GUEST_DONE();
}

/*
 * The state test: sctrctl, sctrdepth and sctrstatus as the guest read
 * them before it stopped, in the order of struct kvm_riscv_ssctr_csr.
 */
static unsigned long state_csrs[3];
/*
 * The depth the guest chooses: 32 entries, not the 16 a reset gives,
 * where the hart offers 32; a hart with one depth only gets 16.
 */
static unsigned long state_depth;
static int state_entries;

static void pick_state_depth(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/cpu/caps/branch_depths", "r");
	char buf[64] = "";

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	state_depth = strstr(buf, "32") ? 1 : 0;
	state_entries = 16 << state_depth;
}

static void guest_state_read(unsigned long *csrs)
{
	csrs[0] = csr_read(CSR_SCTRCTL);
	csrs[1] = csr_read(CSR_SCTRDEPTH);
	csrs[2] = csr_read(CSR_SCTRSTATUS);
}

static void guest_state_code(int restored)
{
	unsigned long now[3];
	int i;

	if (!restored) {
		csr_write(CSR_SCTRDEPTH, state_depth);
		asm volatile(".4byte 0x10400073" : : : "memory");	/* SCTRCLR */
		ctr_a(SCTRCTL_S);
		guest_check(0, 0);
		/*
		 * Recording VU-mode (which never runs here), frozen, and
		 * BPFRZ, which every hart has.
		 */
		csr_write(CSR_SCTRCTL,
			  SCTRCTL_U | SCTRCTL_BPFRZ | SCTRCTL_LCOFIFRZ);
		csr_write(CSR_SCTRSTATUS,
			  csr_read(CSR_SCTRSTATUS) | SCTRSTATUS_FROZEN);
		guest_state_read(state_csrs);
		GUEST_SYNC(0);
		/* The host put sequence b's records in instead. */
		guest_check(1, 0);
	} else {
		/* Another vCPU, given the first one's state. */
		guest_check(0, 0);
	}
	guest_state_read(now);
	for (i = 0; i < 3; i++)
		GUEST_ASSERT_EQ(now[i], state_csrs[i]);
	GUEST_DONE();
}

/*
 * The freeze test: the guest records its loop until an instructions
 * counter it started overflows, with sctrctl.LCOFIFRZ set every other
 * round. With it, the interrupt handler must find the records frozen and
 * holding no interrupt: the hart would have recorded the interrupt (and
 * the handler's way in) had nothing frozen them. Without it, they must
 * not be frozen and end with the jump into the handler. No other
 * interrupt is enabled.
 * QEMU 11.1 itself freezes at the overflow interrupt KVM injects, so on
 * QEMU the first half passes without KVM's freeze too.
 */
#define FREEZE_ROUNDS	6
#define FREEZE_PERIOD	20000
#define CTR_TYPE_INTR	2

static unsigned long freeze_counter, freeze_irqs, freeze_frozen, freeze_want;
/* sctrstatus, the youngest record, the records and interrupts among them */
static unsigned long freeze_bad[6];

static void guest_freeze_irq(struct pt_regs *regs)
{
	unsigned long status = csr_read(CSR_SCTRSTATUS), from, to, data;
	unsigned long y_from, y_to, y_data, n, intr = 0;
	bool into, ok;

	y_from = guest_csr_read_entry(0, &y_to, &y_data);
	for (n = 0; n < 256; n++) {
		from = guest_csr_read_entry(n, &to, &data);
		if (!(from & CTR_VALID))
			break;
		if ((data & 0xf) == CTR_TYPE_INTR)
			intr++;
	}
	GUEST_ASSERT_EQ(regs->cause & ~CAUSE_IRQ_FLAG, IRQ_PMU_OVF);
	/* Unfrozen, the youngest record is the jump into this handler. */
	into = (y_to & ~1UL) == (unsigned long)guest_freeze_irq;
	if (freeze_want)
		ok = (status & SCTRSTATUS_FROZEN) && n && !intr && !into;
	else
		ok = !(status & SCTRSTATUS_FROZEN) && into;
	if (ok) {
		freeze_frozen++;
	} else {
		freeze_bad[0] = status;
		freeze_bad[1] = y_from;
		freeze_bad[2] = y_to;
		freeze_bad[3] = y_data;
		freeze_bad[4] = n;
		freeze_bad[5] = intr;
	}
	sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_COUNTER_STOP, freeze_counter, 1, 0,
		  0, 0, 0);
	csr_clear(CSR_SIP, BIT(IRQ_PMU_OVF));
	WRITE_ONCE(freeze_irqs, freeze_irqs + 1);
}

static void guest_freeze_code(void)
{
	unsigned long ctl;
	struct sbiret ret;
	int round;

	ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_NUM_COUNTERS, 0, 0, 0, 0, 0, 0);
	GUEST_ASSERT(!ret.error && ret.value);
	ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_COUNTER_CFG_MATCH, 0,
			BIT(ret.value) - 1, 0, SBI_PMU_HW_INSTRUCTIONS, 0, 0);
	GUEST_ASSERT(!ret.error);
	freeze_counter = ret.value;
	csr_set(CSR_IE, BIT(IRQ_PMU_OVF));
	local_irq_enable();

	for (round = 0; round < FREEZE_ROUNDS; round++) {
		freeze_want = !(round & 1);
		ctl = SCTRCTL_S | (freeze_want ? SCTRCTL_LCOFIFRZ : 0);
		asm volatile(".4byte 0x10400073" : : : "memory");	/* SCTRCLR */
		csr_write(CSR_SCTRSTATUS, 0);
		csr_write(CSR_SCTRCTL, ctl);
		GUEST_ASSERT_EQ(csr_read(CSR_SCTRCTL), ctl);
		ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_COUNTER_START,
				freeze_counter, 1,
				SBI_PMU_START_FLAG_SET_INIT_VALUE,
				-(unsigned long)FREEZE_PERIOD, 0, 0);
		GUEST_ASSERT(!ret.error);
		while (READ_ONCE(freeze_irqs) == round)
			ctr_loop(100000);
		csr_write(CSR_SCTRCTL, 0);
		__GUEST_ASSERT(freeze_frozen == round + 1,
			       "overflow %d, LCOFIFRZ %lu: sctrstatus %lx, youngest record %lx -> %lx type %lu, %lu records, %lu interrupts",
			       round, freeze_want, freeze_bad[0], freeze_bad[1], freeze_bad[2],
			       freeze_bad[3] & 0xf, freeze_bad[4], freeze_bad[5]);
	}
	GUEST_DONE();
}

static bool in_seq(unsigned long a)
{
	return (a >= (unsigned long)ctr_a && a < (unsigned long)ctr_a_end) ||
	       (a >= (unsigned long)ctr_b && a < (unsigned long)ctr_b_end);
}

/* Host records with an end in the guest's sequences. */
static void count_guest(void *arg, const struct ctr_sample *s)
{
	unsigned long *n = arg;

	for (__u64 i = 0; i < s->nr; i++)
		if (in_seq(s->br[i].from) || in_seq(s->br[i].to))
			(*n)++;
}

/* One KVM_RUN to the guest's next GUEST_SYNC or GUEST_DONE. */
static int run_once(struct kvm_vcpu *vcpu)
{
	struct ucall uc;
	int cmd;

	vcpu_run(vcpu);
	cmd = get_ucall(vcpu, &uc);
	if (cmd == UCALL_ABORT)
		REPORT_GUEST_ASSERT(uc);
	TEST_ASSERT(cmd == UCALL_SYNC || cmd == UCALL_DONE,
		    "unexpected exit %s", exit_reason_str(vcpu->run->exit_reason));
	return cmd;
}

static void run_vcpu(struct kvm_vcpu *vcpu, struct ctr_ring *ring,
		     unsigned long *leaks)
{
	while (run_once(vcpu) == UCALL_SYNC) {
		if (ring)
			ctr_ring_drain(ring, count_guest, leaks);
	}
}

static struct kvm_vm *create_vm(int n, struct kvm_vcpu **vcpus)
{
	struct kvm_vm *vm = vm_create_with_vcpus(n, guest_code, vcpus);
	int i, r;

	for (i = 0; i < n; i++) {
		r = __vcpu_set_reg(vcpus[i],
				   RISCV_ISA_EXT_REG(KVM_RISCV_ISA_EXT_SSCTR), 1);
		__TEST_REQUIRE(!r, "KVM offers no Ssctr: %s", strerror(errno));
		vcpu_args_set(vcpus[i], 2, i, n);
	}
	return vm;
}

/*
 * One vCPU, and the host sampling its thread's branches meanwhile: new
 * VMs run the same rounds until the host has taken a sample, for at most
 * two seconds. One VM's rounds take a few milliseconds, and QEMU without
 * -icount raises its overflow interrupts from its main-loop thread, which
 * a loaded host can stop for 100 ms: the samples of a whole VM can come
 * too late.
 */
static void test_one(void)
{
	unsigned long leaks = 0;
	struct timespec start;
	struct kvm_vcpu *vcpu;
	struct ctr_ring ring;
	struct kvm_vm *vm;
	__u64 count = 0;
	int fd, vms = 0;

	/*
	 * Without -icount QEMU counts instructions in host clock ticks and
	 * raises an overflow from a timer: at 2000 (2 us) one run in five
	 * of this test got at most 22 samples in 17 million counted, and
	 * some none at all; at 20000 every run gets hundreds.
	 */
	fd = ctr_ring_open_thread(&ring, 20000);
	TEST_ASSERT(fd >= 0, "branch event: %s", strerror(errno));
	/* Sampling only while a guest runs: no sample of making a VM counts. */
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		vm = create_vm(1, &vcpu);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		run_vcpu(vcpu, &ring, &leaks);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		ctr_ring_drain(&ring, count_guest, &leaks);
		kvm_vm_free(vm);
		vms++;
	} while (!ring.samples &&
		 timespec_to_ns(timespec_elapsed(start)) < 2 * NSEC_PER_SEC);
	TEST_ASSERT(read(fd, &count, sizeof(count)) == sizeof(count),
		    "reading the branch event: %s", strerror(errno));
	pr_info("one vCPU: %d rounds of exact records in %d VMs, %lu host samples (%lu lost) in %llu instructions\n",
		ROUNDS, vms, ring.samples, ring.lost, (unsigned long long)count);
	TEST_ASSERT(ring.samples, "the host took no sample in %llu instructions",
		    (unsigned long long)count);
	TEST_ASSERT(!leaks, "%lu host records are the guest's", leaks);
	ctr_ring_unmap(&ring);
	close(fd);
}

static struct kvm_vcpu *shared_vcpus[2];

static void *vcpu_thread(void *arg)
{
	struct kvm_vcpu *vcpu = arg;

	pin_self_to_cpu(0);
	run_vcpu(vcpu, NULL, NULL);
	return NULL;
}

/* Two vCPUs taking turns on one host CPU. */
static void test_two(void)
{
	pthread_t threads[2];
	struct kvm_vm *vm;
	int i;

	vm = create_vm(2, shared_vcpus);
	for (i = 0; i < 2; i++)
		pthread_create(&threads[i], NULL, vcpu_thread, shared_vcpus[i]);
	for (i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	pr_info("two vCPUs on one CPU: %d rounds each, own records only\n",
		ROUNDS);
	kvm_vm_free(vm);
}

#define CTR_REG(sub, n) \
	(KVM_REG_RISCV | KVM_REG_SIZE_ULONG | KVM_REG_RISCV_CSR | (sub) | (n))
#define CTR_CSR(name) \
	CTR_REG(KVM_REG_RISCV_CSR_SSCTR, KVM_REG_RISCV_CSR_SSCTR_REG(name))
#define CTR_ENTRY(n, name) \
	CTR_REG(KVM_REG_RISCV_CSR_SSCTR_ENTRY, \
		KVM_REG_RISCV_CSR_SSCTR_ENTRY_REG(n, name))

static bool is_ctr_reg(__u64 id)
{
	__u64 class = id & (KVM_REG_RISCV_TYPE_MASK | KVM_REG_RISCV_SUBTYPE_MASK);

	return class == (KVM_REG_RISCV_CSR | KVM_REG_RISCV_CSR_SSCTR) ||
	       class == (KVM_REG_RISCV_CSR | KVM_REG_RISCV_CSR_SSCTR_ENTRY);
}

static void check_refused(struct kvm_vcpu *vcpu, __u64 id, unsigned long val,
			  int err)
{
	int r = __vcpu_set_reg(vcpu, id, val);

	TEST_ASSERT(r == -1 && errno == err,
		    "setting reg %llx to %lx: %d, errno %d, want errno %d",
		    id, val, r, errno, err);
}

static struct kvm_vm *create_state_vm(struct kvm_vcpu **vcpu, bool ssctr,
				      int restored)
{
	struct kvm_vm *vm = vm_create_with_one_vcpu(vcpu, guest_state_code);

	sync_global_to_guest(vm, state_depth);
	if (ssctr)
		vcpu_set_reg(*vcpu, RISCV_ISA_EXT_REG(KVM_RISCV_ISA_EXT_SSCTR), 1);
	vcpu_args_set(*vcpu, 1, restored);
	return vm;
}

/*
 * Save and restore through KVM_GET_ONE_REG and KVM_SET_ONE_REG: the state
 * a guest left (records, sctrctl, sctrstatus, the depth it chose) reads
 * back as the guest saw it, goes into a new vCPU that then sees exactly
 * that, and records a VMM writes into a vCPU that ran are what its guest
 * reads next.
 */
static void test_state(void)
{
	struct kvm_vm *vm, *vm_new, *vm_without;
	struct kvm_vcpu *vcpu, *vcpu_new, *vcpu_without;
	unsigned long want[4][3], *saved, val, reset_depth;
	struct kvm_reg_list *list;
	int i, n = 0, entries;
	__u64 *ids;

	pick_state_depth();
	vm = create_state_vm(&vcpu, true, 0);
	TEST_ASSERT(run_once(vcpu) == UCALL_SYNC, "the guest ended early");
	sync_global_from_guest(vm, state_csrs);

	/* Every CTR register, in the order KVM_GET_REG_LIST gives. */
	list = vcpu_get_reg_list(vcpu);
	ids = calloc(list->n, sizeof(*ids));
	saved = calloc(list->n, sizeof(*saved));
	TEST_ASSERT(ids && saved, "out of memory");
	for (i = 0; i < list->n; i++) {
		if (!is_ctr_reg(list->reg[i]))
			continue;
		ids[n] = list->reg[i];
		saved[n++] = vcpu_get_reg(vcpu, list->reg[i]);
	}
	entries = (n - 3) / 3;
	TEST_ASSERT(n > 3 && (n - 3) % 3 == 0 && entries >= state_entries,
		    "%d CTR registers listed", n);
	TEST_ASSERT(ids[0] == CTR_CSR(sctrctl) &&
		    ids[1] == CTR_CSR(sctrdepth) &&
		    ids[2] == CTR_CSR(sctrstatus) &&
		    ids[3] == CTR_ENTRY(0, ctrsource) &&
		    ids[n - 1] == CTR_ENTRY(entries - 1, ctrdata),
		    "CTR registers listed out of order");

	/* As the guest read them, its four records, nothing else. */
	for (i = 0; i < 3; i++)
		TEST_ASSERT(saved[i] == state_csrs[i],
			    "CTR CSR %d: %lx, the guest read %lx", i, saved[i],
			    state_csrs[i]);
	TEST_ASSERT_EQ(saved[1], state_depth);
	TEST_ASSERT(saved[2] & SCTRSTATUS_FROZEN, "sctrstatus %lx", saved[2]);
	TEST_ASSERT(saved[0] & SCTRCTL_BPFRZ, "sctrctl %lx", saved[0]);
	seq_want(0, want);
	for (i = 0; i < 4; i++) {
		unsigned long *e = &saved[3 + 3 * i];

		TEST_ASSERT(e[0] == (want[i][0] | CTR_VALID) &&
			    (e[1] & ~1UL) == want[i][1] &&
			    (e[2] & 0xf) == want[i][2],
			    "record %d: %lx -> %lx type %lu, want %lx -> %lx type %lu",
			    i, e[0], e[1], e[2] & 0xf, want[i][0] | CTR_VALID,
			    want[i][1], want[i][2]);
	}
	TEST_ASSERT(!(saved[3 + 3 * 4] & CTR_VALID), "a fifth record");
	for (i = 3 + 3 * state_entries; i < n; i++)
		TEST_ASSERT(!saved[i], "reg %llx beyond the depth: %lx", ids[i],
			    saved[i]);

	/* What a hart would not keep is refused, not changed. */
	check_refused(vcpu, CTR_CSR(sctrctl), saved[0] | SCTRCTL_M, EINVAL);
	check_refused(vcpu, CTR_CSR(sctrdepth), 7, EINVAL);
	check_refused(vcpu, CTR_CSR(sctrstatus), state_entries, EINVAL);
	if (state_entries < entries)
		check_refused(vcpu, CTR_ENTRY(state_entries, ctrsource),
			      CTR_VALID, EINVAL);
	check_refused(vcpu, CTR_ENTRY(entries, ctrsource), 0, ENOENT);
	check_refused(vcpu, CTR_REG(KVM_REG_RISCV_CSR_SSCTR, 3), 0, ENOENT);
	for (i = 0; i < n; i++)
		TEST_ASSERT(vcpu_get_reg(vcpu, ids[i]) == saved[i],
			    "reg %llx changed by a refused write", ids[i]);

	/* A vCPU without Ssctr has none of them. */
	vm_without = create_state_vm(&vcpu_without, false, 0);
	TEST_ASSERT(__vcpu_get_reg(vcpu_without, CTR_CSR(sctrctl), &val) == -1 &&
		    errno == ENOENT, "sctrctl of a vCPU without Ssctr");
	kvm_vm_free(vm_without);

	/* Into a new vCPU before its first run: all reads back, the guest sees it. */
	vm_new = create_state_vm(&vcpu_new, true, 1);
	reset_depth = vcpu_get_reg(vcpu_new, CTR_CSR(sctrdepth));
	for (i = 0; i < n; i++)
		TEST_ASSERT(i == 1 || !vcpu_get_reg(vcpu_new, ids[i]),
			    "reg %llx of a new vCPU is not 0", ids[i]);
	for (i = 0; i < n; i++)
		vcpu_set_reg(vcpu_new, ids[i], saved[i]);
	for (i = 0; i < n; i++)
		TEST_ASSERT(vcpu_get_reg(vcpu_new, ids[i]) == saved[i],
			    "reg %llx: %lx written, %lx read", ids[i], saved[i],
			    vcpu_get_reg(vcpu_new, ids[i]));
	sync_global_to_guest(vm_new, state_csrs);
	run_vcpu(vcpu_new, NULL, NULL);
	kvm_vm_free(vm_new);

	/*
	 * Into the vCPU that ran: sequence b's records instead of a's, then
	 * an invalid entry that keeps a target and a valid one after it,
	 * which the guest only finds invalid and does not read: both come
	 * back out of the hart exactly, as the VMM left them.
	 */
	seq_want(1, want);
	for (i = 0; i < 4; i++) {
		vcpu_set_reg(vcpu, CTR_ENTRY(i, ctrsource), want[i][0] | CTR_VALID);
		vcpu_set_reg(vcpu, CTR_ENTRY(i, ctrtarget), want[i][1]);
		vcpu_set_reg(vcpu, CTR_ENTRY(i, ctrdata), want[i][2]);
	}
	vcpu_set_reg(vcpu, CTR_ENTRY(4, ctrtarget), 0x3000);
	vcpu_set_reg(vcpu, CTR_ENTRY(5, ctrsource), 0x5000 | CTR_VALID);
	vcpu_set_reg(vcpu, CTR_ENTRY(5, ctrdata), 1);
	run_vcpu(vcpu, NULL, NULL);
	TEST_ASSERT(vcpu_get_reg(vcpu, CTR_ENTRY(4, ctrsource)) == 0 &&
		    vcpu_get_reg(vcpu, CTR_ENTRY(4, ctrtarget)) == 0x3000 &&
		    vcpu_get_reg(vcpu, CTR_ENTRY(5, ctrsource)) ==
		    (0x5000 | CTR_VALID) &&
		    vcpu_get_reg(vcpu, CTR_ENTRY(5, ctrdata)) == 1,
		    "entries 4 and 5 after a run: %lx -> %lx, %lx (data %lx)",
		    vcpu_get_reg(vcpu, CTR_ENTRY(4, ctrsource)),
		    vcpu_get_reg(vcpu, CTR_ENTRY(4, ctrtarget)),
		    vcpu_get_reg(vcpu, CTR_ENTRY(5, ctrsource)),
		    vcpu_get_reg(vcpu, CTR_ENTRY(5, ctrdata)));
	pr_info("state: %d CTR registers (%d records) saved, refused where a hart would not keep them, restored into a new vCPU and changed in the old one, as the guests saw, invalid entries among valid ones kept\n",
		n, entries);

	/*
	 * A reset the VMM asks for resets the state, as a hart's. KVM does
	 * not list the capability that allows it; enabling it tells.
	 */
	if (!__vm_enable_cap(vm, KVM_CAP_RISCV_MP_STATE_RESET, 1)) {
		struct kvm_mp_state mp = {
			.mp_state = KVM_MP_STATE_INIT_RECEIVED,
		};

		vcpu_mp_state_set(vcpu, &mp);
		for (i = 0; i < n; i++) {
			val = vcpu_get_reg(vcpu, ids[i]);
			TEST_ASSERT(val == (i == 1 ? reset_depth : 0),
				    "reg %llx after a reset: %lx", ids[i], val);
		}
		pr_info("state: as new after a vCPU reset\n");
	} else {
		pr_info("state: no reset on request (KVM_CAP_RISCV_MP_STATE_RESET: %s)\n",
			strerror(errno));
	}
	free(ids);
	free(saved);
	free(list);
	kvm_vm_free(vm);
}

/* A guest counter overflow freezes the guest's records, as it asked. */
static void test_freeze(void)
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;

	vm = vm_create_with_one_vcpu(&vcpu, guest_freeze_code);
	if (!__vcpu_has_sbi_ext(vcpu, KVM_RISCV_SBI_EXT_PMU) ||
	    !__vcpu_has_isa_ext(vcpu, KVM_RISCV_ISA_EXT_SSCOFPMF)) {
		pr_info("freeze: skipped, no SBI PMU or no Sscofpmf for guests\n");
		kvm_vm_free(vm);
		return;
	}
	vcpu_set_reg(vcpu, RISCV_ISA_EXT_REG(KVM_RISCV_ISA_EXT_SSCTR), 1);
	vm_init_vector_tables(vm);
	vm_install_interrupt_handler(vm, guest_freeze_irq);
	vcpu_init_vector_tables(vcpu);
	run_vcpu(vcpu, NULL, NULL);
	pr_info("freeze: %d counter overflows, the guest's records frozen before the interrupt with LCOFIFRZ, recording into the handler without\n",
		FREEZE_ROUNDS);
	kvm_vm_free(vm);
}

/*
 * ctr_guest_test bench N: with Ssctr the guest fills its buffer (@fill)
 * or never records, then only exits.
 */
static void guest_bench_code(int fill)
{
	int i;

	if (fill) {
		csr_write(CSR_SCTRCTL, SCTRCTL_S);
		for (i = 0; i < 1000; i++)
			asm volatile("" : : : "memory");
		csr_write(CSR_SCTRCTL, 0);
	}
	for (;;)
		GUEST_SYNC(0);
}

/* Nanoseconds per KVM_RUN round trip (a vCPU load and put each). */
static double bench_runs(bool ssctr, bool fill, int n)
{
	struct timespec start;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	s64 ns;
	int i;

	vm = vm_create_with_one_vcpu(&vcpu, guest_bench_code);
	if (ssctr)
		vcpu_set_reg(vcpu, RISCV_ISA_EXT_REG(KVM_RISCV_ISA_EXT_SSCTR), 1);
	vcpu_args_set(vcpu, 1, fill);
	vcpu_run(vcpu);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < n; i++)
		vcpu_run(vcpu);
	ns = timespec_to_ns(timespec_elapsed(start));
	kvm_vm_free(vm);
	return (double)ns / n;
}

int main(int argc, char *argv[])
{
	TEST_REQUIRE(!access("/sys/bus/event_source/devices/cpu/caps/branches",
			     F_OK));
	if (argc == 3 && !strcmp(argv[1], "bench")) {
		int n = atoi(argv[2]);
		double without = bench_runs(false, false, n);
		double idle = bench_runs(true, false, n);
		double full = bench_runs(true, true, n);

		printf("kvm_run: %.0f ns without Ssctr, ", without);
		printf("%.0f ns with it and no record, %.0f ns with a full buffer (%d runs)\n",
		       idle, full, n);
		return 0;
	}
	test_one();
	test_two();
	test_state();
	test_freeze();
	return 0;
}

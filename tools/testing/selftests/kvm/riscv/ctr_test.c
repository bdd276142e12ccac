// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctr_test: a guest never sees the host's control transfer records.
 *
 * KVM offers guests no CTR (Smctr/Ssctr). While the host samples its own
 * branches, user and kernel, with a branch event on this thread, the
 * guest:
 * - reads and writes sctrctl, sctrstatus and sctrdepth, reads vsctrctl
 *   and runs SCTRCLR: each must raise an illegal-instruction exception
 *   in the guest, not exit to this VMM;
 * - reads all 256 entries of the CTR window (vsiselect 0x200 to 0x2ff,
 *   sireg to sireg3) ROUNDS times (or as often as the first argument
 *   says), between exits to the host: it must
 *   find nothing, and each read must trap, as hstateen0.CTR is clear
 *   (KVM gives an illegal instruction). A hart that lets the guest reach
 *   the buffer there (QEMU 11.1 does) fails: KVM does nothing about the
 *   buffer at guest entry and exit;
 * - writes a record of its own through the window each round: no sample
 *   of the host may carry it.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <linux/stringify.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kvm_util.h"
#include "processor.h"
#include "ucall_common.h"
#include "../../riscv/ctr/ring.h"

#define ROUNDS		100
#define WINDOW		256
/* The guest's own record, written through the window. */
#define MARK_FROM	0x5a5a0000UL
#define MARK_TO		0x5a5a0100UL

/* Illegal-instruction exceptions the guest took; its handler skips them. */
static unsigned long illegal;
/*
 * Rounds over the window: the host cuts them to one where siselect
 * itself exits to the VMM (no AIA, so KVM leaves vsiselect trapping):
 * then the window cannot reach the buffer, and every access is an exit.
 */
static unsigned long rounds = ROUNDS;

static void guest_illegal(struct pt_regs *regs)
{
	illegal++;
	regs->epc += 4;
}

/* CSR accesses that may trap: a read that traps reads 0. */
#define guest_read(csr) ({						\
	unsigned long __v = 0;						\
	asm volatile("csrr %0, " __stringify(csr) : "+r" (__v) : : "memory"); \
	__v;								\
})
#define guest_write(csr, v) ({					\
	asm volatile("csrw " __stringify(csr) ", %0" : : "r" (v) : "memory"); \
})

/* siselect, sireg, sireg2, sireg3 and the CTR registers, by number. */
#define SISELECT	0x150
#define SIREG		0x151
#define SIREG2		0x152
#define SIREG3		0x153
#define SCTRCTL		0x14e
#define SCTRSTATUS	0x14f
#define SCTRDEPTH	0x15f
#define VSCTRCTL	0x24e
#define CTR_REG_ACCESSES	8

static void guest_code(void)
{
	unsigned long before, valid, nonzero, first;
	int round, i;

	before = illegal;
	guest_read(SCTRCTL);
	guest_write(SCTRCTL, -1UL);
	guest_read(SCTRSTATUS);
	guest_write(SCTRSTATUS, 0);
	guest_read(SCTRDEPTH);
	guest_write(SCTRDEPTH, 4);
	guest_read(VSCTRCTL);
	asm volatile(".4byte 0x10400073" : : : "memory");	/* SCTRCLR */
	GUEST_SYNC_ARGS(1, illegal - before, 0, 0, 0);

	for (round = 0; round < READ_ONCE(rounds); round++) {
		valid = 0;
		nonzero = 0;
		first = 0;
		before = illegal;
		for (i = 0; i < WINDOW; i++) {
			unsigned long src, dst, data;

			guest_write(SISELECT, 0x200 + i);
			src = guest_read(SIREG);
			dst = guest_read(SIREG2);
			data = guest_read(SIREG3);
			valid += src & 1;
			if (src | dst | data) {
				nonzero++;
				if (!first)
					first = src ? src : dst ? dst : data;
			}
		}
		GUEST_SYNC_ARGS(2, valid, nonzero, first, illegal - before);

		guest_write(SISELECT, 0x200);
		guest_write(SIREG, MARK_FROM | 1);
		guest_write(SIREG2, MARK_TO);
		guest_write(SIREG3, 9);		/* a direct call */
		GUEST_SYNC_ARGS(3, 0, 0, 0, 0);
	}
	GUEST_DONE();
}

/* The host's samples that carry the guest's record. */
static void count_mark(void *arg, const struct ctr_sample *s)
{
	unsigned long *marks = arg;

	for (__u64 i = 0; i < s->nr; i++)
		if (s->br[i].from == MARK_FROM || s->br[i].to == MARK_TO)
			(*marks)++;
}

static bool host_has_ctr(void)
{
	return !access("/sys/bus/event_source/devices/cpu/caps/branches",
		       F_OK);
}

int main(int argc, char *argv[])
{
	unsigned long marks = 0, csr_exits = 0, round = 0;
	struct kvm_vcpu *vcpu;
	struct ctr_ring ring;
	struct kvm_vm *vm;
	struct ucall uc;
	bool done = false;
	int fd;

	TEST_REQUIRE(host_has_ctr());

	/* The host samples this thread's branches, kernel ones included. */
	fd = ctr_ring_open_thread(&ring, 2000);
	TEST_ASSERT(fd >= 0, "branch event: %s", strerror(errno));

	vm = vm_create_with_one_vcpu(&vcpu, guest_code);
	vm_init_vector_tables(vm);
	vcpu_init_vector_tables(vcpu);
	vm_install_exception_handler(vm, EXC_INST_ILLEGAL, guest_illegal);
	if (argc > 1) {
		rounds = strtoul(argv[1], NULL, 0);
		TEST_ASSERT(rounds, "rounds: %s", argv[1]);
		sync_global_to_guest(vm, rounds);
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);

	while (!done) {
		vcpu_run(vcpu);
		/*
		 * Without the AIA the guest's siselect traps too, and KVM
		 * asks the VMM: reads give 0, writes do nothing.
		 */
		if (vcpu->run->exit_reason == KVM_EXIT_RISCV_CSR) {
			__u64 csr = vcpu->run->riscv_csr.csr_num;

			TEST_ASSERT(csr < SCTRCTL || csr > SCTRDEPTH,
				    "CTR register %#llx exited to the VMM", csr);
			TEST_ASSERT(csr != VSCTRCTL,
				    "vsctrctl exited to the VMM");
			vcpu->run->riscv_csr.ret_value = 0;
			csr_exits++;
			continue;
		}
		switch (get_ucall(vcpu, &uc)) {
		case UCALL_SYNC:
			if (uc.args[1] == 1) {
				TEST_ASSERT(uc.args[2] == CTR_REG_ACCESSES,
					    "%lu of %d CTR register accesses were illegal",
					    uc.args[2], CTR_REG_ACCESSES);
			} else if (uc.args[1] == 2) {
				TEST_ASSERT(!uc.args[2] && !uc.args[3],
					    "round %lu: the guest read %lu valid records, %lu non-zero entries (%#lx first)",
					    round, uc.args[2], uc.args[3],
					    uc.args[4]);
				/* Where vsiselect is the guest's, the gate traps. */
				TEST_ASSERT(csr_exits || uc.args[5] == 3 * WINDOW,
					    "round %lu: %lu of %d reads of the window trapped",
					    round, uc.args[5], 3 * WINDOW);
				if (csr_exits && rounds != 1) {
					rounds = 1;
					sync_global_to_guest(vm, rounds);
				}
			} else {
				round++;
			}
			break;
		case UCALL_DONE:
			done = true;
			break;
		case UCALL_ABORT:
			REPORT_GUEST_ASSERT(uc);
			break;
		default:
			TEST_FAIL("unexpected exit %s",
				  exit_reason_str(vcpu->run->exit_reason));
		}
		ctr_ring_drain(&ring, count_mark, &marks);
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ctr_ring_drain(&ring, count_mark, &marks);

	pr_info("%lu rounds, %lu host samples, %lu VMM exits for siselect/sireg*\n",
		round, ring.samples, csr_exits);
	TEST_ASSERT(ring.samples, "the host took no sample");
	TEST_ASSERT(!marks, "%lu host records are the guest's", marks);

	ctr_ring_unmap(&ring);
	close(fd);
	kvm_vm_free(vm);
	return 0;
}

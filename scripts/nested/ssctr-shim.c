// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for a VMM that knows Ssctr: preloaded into a VMM that does
 * not, it turns KVM_RISCV_ISA_EXT_SSCTR on for every vCPU the VMM
 * creates, before the vCPU first runs, as such a VMM would.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <linux/kvm.h>

int ioctl(int fd, unsigned long req, ...)
{
	static int (*next)(int, unsigned long, ...);
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!next)
		next = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	ret = next(fd, req, arg);
	if (req == KVM_CREATE_VCPU && ret >= 0) {
		uint64_t on = 1;
		struct kvm_one_reg reg = {
			.id = KVM_REG_RISCV | KVM_REG_SIZE_U64 |
			      KVM_REG_RISCV_ISA_EXT | KVM_REG_RISCV_ISA_SINGLE |
			      KVM_RISCV_ISA_EXT_SSCTR,
			.addr = (uintptr_t)&on,
		};

		if (next(ret, KVM_SET_ONE_REG, &reg))
			perror("ssctr-shim: KVM_SET_ONE_REG(ISA_EXT_SSCTR)");
		else
			fprintf(stderr, "ssctr-shim: Ssctr on for vCPU fd %d\n", ret);
	}
	return ret;
}

# SPDX-License-Identifier: GPL-2.0
#
# RISC-V Control Transfer Records for Linux perf: build, boot and test.
# make demo and make check install what they need (see scripts/setup.sh);
# downloads and builds are cached in $(CTR_CACHE), by default
# ~/.cache/riscv-ctr. KSRC=/path/to/linux-7.3 uses an existing tree.

S := scripts

.PHONY: help setup kernel kernel-debug kernel-clang kernel-autofdo kernel-autofdo-speed guest run demo check check-debug stress bench bench-perf-ctr autofdo nested patches lint clean

help:
	@echo "make demo     boot QEMU with CTR and show perf record -b / perf report -b"
	@echo "make check    run every test; ends with 'N passed, N failed, N skipped'"
	@echo "make run      interactive shell in the guest (RUN_ARGS='--cpu ...')"
	@echo "make check-debug  make check's -cpu max guest under the debug kernel (KASAN, lockdep)"
	@echo "make stress   the stress test under the debug kernel (KASAN, lockdep)"
	@echo "make bench    what branch stacks cost per sample, as ratios"
	@echo "make bench-perf-ctr  perf-ctr aggregate vs perf script and llvm-profgen"
	@echo "make autofdo  AutoFDO via perf-ctr vs FDO on bzip2 and lua (out/autofdo/table.md)"
	@echo "make kernel-autofdo  the kernel made faster by its own CTR profile (perf-ctr vs llvm-profgen)"
	@echo "make kernel-autofdo-speed  kernel profile generation timed: perf-ctr vs perf script + llvm-profgen"
	@echo "make nested   perf record -b in a nested Linux guest (Debian QEMU under KVM)"
	@echo "make patches  write the five kernel series to out/patches/NAME (git format-patch, cover letters)"
	@echo "make kernel   build the kernel (kernel-debug: KASAN, lockdep; kernel-clang: clang 19, AutoFDO-ready)"
	@echo "make setup    install and fetch everything (done by the targets above)"

setup:
	$(S)/setup.sh

kernel: setup
	$(S)/kernel.sh ctr

kernel-debug: setup
	$(S)/kernel.sh debug

# The ctr kernel built by clang 19 (LLVM=1) with CONFIG_AUTOFDO_CLANG,
# booted with its KUnit suites.
kernel-clang: guest
	$(S)/kernel.sh clang
	$(S)/run.sh --config clang --run check \
		--append "ctr.isa=yes ctr.depth=256 ctr.part=kernel" \
		--timeout 1200 --log out/clang.log
	python3 $(S)/results.py clang out/clang.log | tee out/clang.results
	! grep -q '^FAIL' out/clang.results

# Kernel AutoFDO, whole: training recordings of the clang kernel, a
# kernel built with each one's profile (perf-ctr's and llvm-profgen's),
# all measured on held-out kernel workloads under -icount; prints the
# table. make check runs the small round trip (kernel-autofdo.sh
# roundtrip).
kernel-autofdo: guest
	$(S)/setup-afdo.sh
	$(S)/kernel-autofdo.sh full

# The round trip, then profile generation timed on its recording:
# perf-ctr against perf script + llvm-profgen --kernel.
kernel-autofdo-speed: guest
	$(S)/setup-afdo.sh
	$(S)/kernel-autofdo.sh speed

guest: kernel
	$(S)/guest-bins.sh
	$(S)/perf73.sh

run: guest
	$(S)/run.sh $(RUN_ARGS)

demo: guest
	$(S)/run.sh --run demo --timeout 300 $(RUN_ARGS)

check:
	$(S)/check.sh

# make check's -cpu max guest (both halves) under the debug kernel.
check-debug: guest
	$(S)/check-debug.sh

# The stress test under the debug kernel (KASAN, lockdep): STRESS=N rounds.
stress: guest
	$(S)/kernel.sh debug
	$(S)/run.sh --config debug --run stress --append "ctr.stress=$(or $(STRESS),3)" \
		--timeout 3600 --log out/stress-debug.log
	python3 $(S)/results.py stress-debug out/stress-debug.log | tee out/stress-debug.results
	! grep -q '^FAIL' out/stress-debug.results

bench: guest
	$(S)/bench.sh

bench-perf-ctr: setup
	tools/perf-ctr/tests/bench.sh

# AutoFDO through perf-ctr against -O2 and instrumented FDO, on bzip2 and
# lua5.4 from their Debian sources, measured in the -icount guest.
autofdo: guest
	$(S)/autofdo.sh

nested: guest
	$(S)/nested.sh

patches: setup
	$(S)/lint.sh patches

lint: setup
	$(S)/lint.sh checkpatch
	$(S)/lint.sh apply
	$(S)/lint.sh build-warnings

clean:
	rm -rf out

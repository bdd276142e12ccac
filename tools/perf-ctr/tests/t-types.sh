#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf-ctr on the RISC-V branch types of the CTR driver: a not-taken
# conditional branch (PERF_BR_EXTEND_ABI + PERF_BR_RISCV_NOT_TAKEN, CTR
# TYPE 4) is a record but no transfer. Between two taken records of the
# golden program (tests/afdo/golden.S), youngest first:
#   0x1000c -> 0x10012  CALL             (jal leaf)
#   0x10008 -> 0x1000c  RISCV_NOT_TAKEN  (bnez falls through)
#   0x10008 -> 0x10002  COND             (bnez taken)
# script names it; aggregate counts no edge 0x10008 -> 0x1000c and one
# range 0x10002..0x1000c through it; check finds nothing wrong. The same
# record as PERF_BR_COND (what older kernels wrote) is a taken branch.
# Prints PASS/FAIL/SKIP lines; exits non-zero on any FAIL.
. "$(dirname "$0")/lib.sh"
. "$top/scripts/lib.sh"
PC=${PERF_CTR:-$top/out/perf-ctr/perf-ctr}
cross_setup types

"$CROSS_CC" -nostdlib -static -Wl,-Ttext=0x10000 -Wl,--build-id=none \
	-o golden "$here/afdo/golden.S" || { fail types-golden-build; exit 1; }
# A template of the layout mk-branch-stack.py rewrites.
"$PC" synth -o tmpl.data --samples 1 --depth 3 --no-hw-idx >/dev/null ||
	{ fail types-synth; exit 1; }
# perf_branch_entry types: 1 COND, 4 CALL, 15 EXTEND_ABI; new_type 6
# RISCV_NOT_TAKEN, 7 RISCV_EXCEPTION, 1 FAULT_DATA.
mk() { python3 "$here/mk-branch-stack.py" tmpl.data "$@"; }
mk nt.data 10006 1000c/10012/4 10008/1000c/15/6 10008/10002/1 &&
mk old.data 10006 1000c/10012/4 10008/1000c/1 10008/10002/1 &&
mk back.data 10006 1000c/10012/4 10010/10014/15/6 10008/10002/1 &&
mk exc.data 10006 10012/10000/15/7 10016/10000/15/1 ||
	{ fail types-mk-branch-stack; exit 1; }

# --- script names the new types ----------------------------------------------
want=' 0x1000c/0x10012/P/-/-/1/CALL/-  0x10008/0x1000c/P/-/-/1/RISCV_NOT_TAKEN/-  0x10008/0x10002/P/-/-/1/COND/- '
want_exc=' 0x10012/0x10000/P/-/-/1/RISCV_EXCEPTION/-  0x10016/0x10000/P/-/-/1/FAULT_DATA/- '
if [ "$("$PC" script -i nt.data)" = "$want" ] &&
   [ "$("$PC" script -i exc.data)" = "$want_exc" ]; then
	pass types-script-names
else
	"$PC" script -i nt.data >&2
	"$PC" script -i exc.data >&2
	fail types-script-names
fi

# --- aggregate: no edge for it, one range through it -------------------------
# autofdo-text: ranges, sample addresses, branches, in hex from the first
# load (0x10000), as is llvm-unsym from the first executable page.
printf '1\n1002-100c:1\n1\n1006:1\n2\n1008->1002:1\n100c->1012:1\n' >nt.want
printf '2\n1002-1008:1\n100c-100c:1\n1\n1006:1\n3\n1008->1002:1\n1008->100c:1\n100c->1012:1\n' >old.want
agg() { "$PC" aggregate --binary golden -o - "$@" 2>/dev/null; }
if agg -i nt.data -f autofdo-text >nt.out && diff -u nt.want nt.out >&2 &&
   agg -i nt.data -f llvm-unsym | grep -qx '1002-100c:1' &&
   ! agg -i nt.data -f llvm-unsym | grep -q '^1008->100c:'; then
	pass types-not-taken-aggregate
else
	fail types-not-taken-aggregate
fi
# the same through the text of `perf script -F ip,brstack`
if "$PC" script -F ip,brstack -i nt.data >nt.brstack &&
   agg --input-format brstack -i nt.brstack -f autofdo-text >nt-text.out &&
   diff -u nt.want nt-text.out >&2; then
	pass types-not-taken-brstack-text
else
	fail types-not-taken-brstack-text
fi
# older kernels: PERF_BR_COND, a taken branch to the next instruction
if agg -i old.data -f autofdo-text >old.out && diff -u old.want old.out >&2; then
	pass types-old-cond-unchanged
else
	fail types-old-cond-unchanged
fi

# --- check: nothing impossible about it --------------------------------------
if "$PC" check -i nt.data >check.out &&
   [ "$(grep -c ' 0$' check.out)" = 4 ]; then
	pass types-not-taken-check
else
	cat check.out >&2
	fail types-not-taken-check
fi

# ...but a not-taken branch after the younger record's source is
if ! "$PC" check -i back.data >back.out &&
   grep -q '^backward-range: .*record 1: range 0x10010\.\.0x1000c runs backwards$' back.out &&
   grep -q '^backward-range   1$' back.out; then
	pass types-not-taken-check-backward
else
	cat back.out >&2
	fail types-not-taken-check-backward
fi

exit $rc

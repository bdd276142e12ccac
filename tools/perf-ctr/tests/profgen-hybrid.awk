# SPDX-License-Identifier: GPL-2.0
#
# perf script --show-mmap-events --no-inline -F ip,brstack of samples
# with call chains, made ready for llvm-profgen --perfscript: a sample
# without branch records is left out, as llvm-profgen reads the text
# without its blank lines and would take that sample's chain for the
# start of the next one's. (t-cs.sh, scripts/autofdo.sh)
/^PERF_RECORD_/ { print; next }
/^$/ { if (s ~ / 0x/) printf "%s", s; s = "\n"; next }
{ s = s $0 "\n" }
END { if (s ~ / 0x/) printf "%s", s }

/* SPDX-License-Identifier: GPL-2.0-only */
/* What the snapshot test's BPF program and its user side share. */
#ifndef __CTR_SNAPSHOT_H
#define __CTR_SNAPSHOT_H

#include <linux/perf_event.h>
#include <linux/types.h>

/* As deep as CTR goes. */
#define SNAP_ENTRIES	256

/* The array map's one value. */
struct snap {
	/* Set by user space: the task, the return value that takes a snapshot. */
	__u32 tgid;
	__u32 skip;		/* count the calls only, take no snapshot */
	__s64 want_rc;
	/* Set by the program. */
	__u64 calls;
	__s64 ret;		/* what bpf_get_branch_snapshot() returned */
	struct perf_branch_entry entries[SNAP_ENTRIES];
};

#endif

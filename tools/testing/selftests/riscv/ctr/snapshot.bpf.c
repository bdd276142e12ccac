// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF side of the snapshot test: a kretprobe program that takes
 * bpf_get_branch_snapshot() when the task under test leaves the probed
 * system call with the error it expects, and leaves the records in an
 * array map for user space. Built with clang -target bpf; snapshot.c
 * loads it without libbpf, so it uses no BTF, no libbpf macros and no
 * sections of its own: the program is .text, the map is snap_map.
 */
#include <linux/bpf.h>
#include <asm/ptrace.h>
#include "snapshot.h"

static void *(*bpf_map_lookup_elem)(void *map, const void *key) =
	(void *)BPF_FUNC_map_lookup_elem;
static __u64 (*bpf_get_current_pid_tgid)(void) =
	(void *)BPF_FUNC_get_current_pid_tgid;
static long (*bpf_get_branch_snapshot)(void *entries, __u32 size,
				       __u64 flags) =
	(void *)BPF_FUNC_get_branch_snapshot;

/*
 * The one map: snapshot.c creates it from this description, the first
 * fields of union bpf_attr for BPF_MAP_CREATE, and points the program's
 * references to snap_map at it.
 */
struct snap_map_def {
	__u32 type, key_size, value_size, max_entries;
};

struct snap_map_def snap_map = {
	.type = BPF_MAP_TYPE_ARRAY,
	.key_size = sizeof(__u32),
	.value_size = sizeof(struct snap),
	.max_entries = 1,
};

/*
 * The kretprobe, the object's only function: as few transfers as possible
 * before the snapshot, one helper call to tell the task and a check of the
 * return value. snapshot.c declares the license.
 */
int snap_ret(struct user_regs_struct *regs)
{
	__u32 key = 0;
	struct snap *s;
	long ret;

	s = bpf_map_lookup_elem(&snap_map, &key);
	if (!s || (bpf_get_current_pid_tgid() >> 32) != s->tgid)
		return 0;
	if (s->skip) {
		s->calls++;
		return 0;
	}
	if ((long)regs->a0 != s->want_rc)
		return 0;
	ret = bpf_get_branch_snapshot(s->entries, sizeof(s->entries), 0);
	s->ret = ret;
	s->calls++;
	return 0;
}

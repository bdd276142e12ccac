// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_get_branch_snapshot() on CTR, the way retsnoop uses it: a CPU-wide
 * branch event arms the buffer, a BPF program on the return of a system
 * call takes the snapshot when the call fails. The program
 * (snapshot.bpf.o, beside this binary) is loaded here without libbpf.
 *
 * The error path is close(-1): __riscv_sys_close() asks file_close_fd()
 * for the file, gets none and returns -EBADF. The snapshot must hold that
 * path's call and return records in order, and of user space only what
 * this process ran, while a busy loop shares the CPU. With no branch
 * event the program gets no records at all.
 *
 * snapshot bench N: instructions per snapshot, from N calls with and
 * without it (exact under QEMU -icount).
 * snapshot busy FILE: until FILE exists, every CPU armed as retsnoop arms
 * them and a snapshot every millisecond, for sampling tests to run beside.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../../kselftest_harness.h"
#include "cpus.h"
#include "snapshot.h"

#define PROBED		"__riscv_sys_close"
#define CALLEE		"file_close_fd"
#define ROUNDS		200

struct ksym {
	uint64_t addr;
	char name[128];
};

static struct ksym *ksyms;
static size_t nr_ksyms;

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The kernel's text symbols, sorted; false when kallsyms hides them. */
static bool load_ksyms(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t cap = 0;
	char line[256];

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[128];

		if (sscanf(line, "%llx %c %127s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (nr_ksyms == cap) {
			cap = cap ? 2 * cap : 4096;
			ksyms = realloc(ksyms, cap * sizeof(*ksyms));
			if (!ksyms)
				return false;
		}
		ksyms[nr_ksyms].addr = addr;
		snprintf(ksyms[nr_ksyms].name, sizeof(ksyms->name), "%s", name);
		nr_ksyms++;
	}
	fclose(f);
	qsort(ksyms, nr_ksyms, sizeof(*ksyms), cmp_ksym);
	return nr_ksyms && ksyms[nr_ksyms - 1].addr;
}

/* The kernel function @addr lies in, or "" for none. */
static const char *ksym_of(uint64_t addr)
{
	size_t lo = 0, hi = nr_ksyms;

	if ((int64_t)addr >= 0)
		return "";
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (ksyms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return nr_ksyms && ksyms[lo].addr <= addr ? ksyms[lo].name : "";
}

static uint64_t ksym_addr(const char *name)
{
	for (size_t i = 0; i < nr_ksyms; i++)
		if (!strcmp(ksyms[i].name, name))
			return ksyms[i].addr;
	return 0;
}

/* The executable mappings of a process, to tell whose user address it is. */
struct span {
	uint64_t start, end;
};

static int exec_spans(pid_t pid, struct span *s, int max)
{
	char path[64], line[512];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long long a, b;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s", &a, &b, perms) == 3 &&
		    perms[2] == 'x') {
			s[n].start = a;
			s[n].end = b;
			n++;
		}
	}
	fclose(f);
	return n;
}

static bool in_spans(const struct span *s, int n, uint64_t addr)
{
	for (int i = 0; i < n; i++)
		if (addr >= s[i].start && addr < s[i].end)
			return true;
	return false;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, -1, 0);
}

/* The program and its map, loaded; the kretprobe that runs it. */
struct loaded {
	int map_fd, prog_fd, probe_fd;
	char log[65536];
};

/* The object file as it is: read whole, sections by name. */
struct obj {
	unsigned char *data;
	size_t size;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;
};

static Elf64_Shdr *obj_section(struct obj *o, const char *name)
{
	const char *names;

	if (o->eh->e_shstrndx >= o->eh->e_shnum)
		return NULL;
	names = (char *)o->data + o->sh[o->eh->e_shstrndx].sh_offset;
	for (int i = 0; i < o->eh->e_shnum; i++)
		if (!strcmp(names + o->sh[i].sh_name, name))
			return &o->sh[i];
	return NULL;
}

/* The symbol @name of the symbol table @symtab. */
static Elf64_Sym *obj_symbol(struct obj *o, Elf64_Shdr *symtab,
			     const char *name)
{
	Elf64_Sym *sym = (Elf64_Sym *)(o->data + symtab->sh_offset);
	size_t n = symtab->sh_size / sizeof(*sym);
	const char *names;

	if (symtab->sh_link >= o->eh->e_shnum)
		return NULL;
	names = (char *)o->data + o->sh[symtab->sh_link].sh_offset;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names + sym[i].st_name, name))
			return &sym[i];
	return NULL;
}

static bool obj_read(struct obj *o, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		return false;
	o->size = st.st_size;
	o->data = malloc(o->size);
	if (!o->data || read(fd, o->data, o->size) != (ssize_t)o->size) {
		close(fd);
		return false;
	}
	close(fd);
	o->eh = (Elf64_Ehdr *)o->data;
	if (o->size < sizeof(*o->eh) || memcmp(o->eh->e_ident, ELFMAG, SELFMAG) ||
	    o->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    o->eh->e_machine != EM_BPF ||
	    o->eh->e_shoff + o->eh->e_shnum * sizeof(Elf64_Shdr) > o->size)
		return false;
	o->sh = (Elf64_Shdr *)(o->data + o->eh->e_shoff);
	return true;
}

/* @name, in the directory of this program. */
static bool beside_me(char *path, size_t size, const char *name)
{
	ssize_t n = readlink("/proc/self/exe", path, size);
	char *slash;

	if (n <= 0 || n >= (ssize_t)size)
		return false;
	path[n] = 0;
	slash = strrchr(path, '/');
	n = slash ? slash + 1 - path : 0;
	return snprintf(path + n, size - n, "%s", name) < (int)(size - n);
}

/*
 * Load the program: create the map snapshot.bpf.c describes, point the
 * program's references to it at the map, load it as a kprobe program and
 * attach it to the return of @func. 0, or -1 with a message in @l->log.
 */
static int load(struct loaded *l, const char *func)
{
	union bpf_attr attr;
	struct perf_event_attr pa = { .size = sizeof(pa) };
	Elf64_Shdr *text, *rel, *symtab;
	int map_i;
	Elf64_Sym *map;
	char path[PATH_MAX], buf[64];
	struct bpf_insn *insns;
	struct obj o;
	Elf64_Sym *syms;
	int type, bit, fd;

	l->log[0] = 0;
	l->map_fd = l->prog_fd = l->probe_fd = -1;
	if (!beside_me(path, sizeof(path), "snapshot.bpf.o") ||
	    !obj_read(&o, path)) {
		snprintf(l->log, sizeof(l->log), "cannot read %s", path);
		return -1;
	}
	text = obj_section(&o, ".text");
	rel = obj_section(&o, ".rel.text");
	symtab = obj_section(&o, ".symtab");
	map = symtab ? obj_symbol(&o, symtab, "snap_map") : NULL;
	if (!text || !rel || !map || map->st_size < 16 ||
	    map->st_shndx >= o.eh->e_shnum) {
		snprintf(l->log, sizeof(l->log), "%s: no program or no snap_map",
			 path);
		return -1;
	}
	map_i = map->st_shndx;

	memset(&attr, 0, sizeof(attr));
	memcpy(&attr.map_type,
	       o.data + o.sh[map_i].sh_offset + map->st_value, 16);
	l->map_fd = sys_bpf(BPF_MAP_CREATE, &attr);
	if (l->map_fd < 0) {
		snprintf(l->log, sizeof(l->log), "BPF_MAP_CREATE: %s",
			 strerror(errno));
		return -1;
	}

	insns = (struct bpf_insn *)(o.data + text->sh_offset);
	syms = (Elf64_Sym *)(o.data + symtab->sh_offset);
	for (size_t i = 0; i < rel->sh_size / sizeof(Elf64_Rel); i++) {
		Elf64_Rel *r = (Elf64_Rel *)(o.data + rel->sh_offset) + i;
		struct bpf_insn *insn = &insns[r->r_offset / sizeof(*insn)];

		if (&syms[ELF64_R_SYM(r->r_info)] != map ||
		    insn->code != (BPF_LD | BPF_IMM | BPF_DW)) {
			snprintf(l->log, sizeof(l->log),
				 "%s: a relocation other than the map's", path);
			return -1;
		}
		insn->src_reg = BPF_PSEUDO_MAP_FD;
		insn->imm = l->map_fd;
	}

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_KPROBE;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = text->sh_size / sizeof(*insns);
	attr.license = (uintptr_t)"GPL";
	attr.log_buf = (uintptr_t)l->log;
	attr.log_size = sizeof(l->log);
	attr.log_level = 1;
	l->prog_fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (l->prog_fd < 0) {
		size_t n = strlen(l->log);

		snprintf(l->log + n, sizeof(l->log) - n, "\nBPF_PROG_LOAD: %s",
			 strerror(errno));
		return -1;
	}
	free(o.data);

	/* The kprobe PMU's type and the bit of its retprobe format. */
	fd = open("/sys/bus/event_source/devices/kprobe/type", O_RDONLY);
	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0) {
		snprintf(l->log, sizeof(l->log), "no kprobe PMU");
		return -1;
	}
	close(fd);
	type = atoi(buf);
	memset(buf, 0, sizeof(buf));
	fd = open("/sys/bus/event_source/devices/kprobe/format/retprobe",
		  O_RDONLY);
	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0 ||
	    sscanf(buf, "config:%d", &bit) != 1) {
		snprintf(l->log, sizeof(l->log), "no kprobe retprobe format");
		return -1;
	}
	close(fd);

	pa.type = type;
	pa.config = 1ULL << bit;
	pa.config1 = (uintptr_t)func;
	l->probe_fd = perf_open(&pa, -1, 0);
	if (l->probe_fd < 0 ||
	    ioctl(l->probe_fd, PERF_EVENT_IOC_SET_BPF, l->prog_fd) ||
	    ioctl(l->probe_fd, PERF_EVENT_IOC_ENABLE, 0)) {
		snprintf(l->log, sizeof(l->log), "kretprobe on %s: %s", func,
			 strerror(errno));
		return -1;
	}
	return 0;
}

static void unload(struct loaded *l)
{
	if (l->probe_fd >= 0)
		close(l->probe_fd);
	if (l->prog_fd >= 0)
		close(l->prog_fd);
	if (l->map_fd >= 0)
		close(l->map_fd);
}

static int map_rw(struct loaded *l, struct snap *s, bool write)
{
	union bpf_attr attr;
	__u32 key = 0;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = l->map_fd;
	attr.key = (uintptr_t)&key;
	attr.value = (uintptr_t)s;
	return sys_bpf(write ? BPF_MAP_UPDATE_ELEM : BPF_MAP_LOOKUP_ELEM, &attr);
}

/* The branch types of a CPU-wide event on @cpu, in both modes. */
static int arm_types(int cpu, uint64_t types)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.sample_period = 1ULL << 40,
		.sample_type = PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = types | PERF_SAMPLE_BRANCH_KERNEL |
				      PERF_SAMPLE_BRANCH_USER,
	};

	return perf_open(&attr, -1, cpu);
}

/* The way retsnoop and the BPF selftests arm it: any branch, both modes. */
static int arm(int cpu)
{
	return arm_types(cpu, PERF_SAMPLE_BRANCH_ANY);
}

/* The depth of the buffer perf reads, 0 without CTR. */
static int ctr_depth(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/cpu/caps/branches", "r");
	int n = 0;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n;
}

/* Does @pid execute code of libc? Then ld.so has set up its image. */
static bool runs_libc(pid_t pid)
{
	char path[64], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char perms[8];

		found = sscanf(line, "%*[0-9a-f]-%*[0-9a-f] %7s", perms) == 1 &&
			perms[2] == 'x' && strstr(line, "/libc.so");
	}
	fclose(f);
	return found;
}

/*
 * A busy loop of another program on @cpu, to be switched with; returned
 * once its own image is mapped. Until then its mappings are a copy of
 * this program's, and taking them for its own would make every address
 * of this program foreign: the exec closes a pipe, then ld.so maps libc.
 */
static pid_t competitor(int cpu)
{
	char path[PATH_MAX], c;
	int ready[2];
	pid_t pid;

	if (!beside_me(path, sizeof(path), "spin") || pipe2(ready, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		/* It goes when the test goes, however the test ends. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin(0, cpu);
		execl(path, path, "4000000000", (char *)NULL);
		c = 1;
		if (write(ready[1], &c, 1) != 1)
			_exit(126);
		_exit(127);
	}
	close(ready[1]);
	if (pid > 0 && read(ready[0], &c, 1) != 0) {
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(ready[0]);
	for (int ms = 0; pid > 0 && ms < 5000 && !runs_libc(pid); ms++)
		usleep(1000);
	return pid;
}

/* Print one snapshot as a user reads it: youngest first, by symbol. */
static void show(const struct snap *s, int nr)
{
	for (int i = 0; i < nr; i++) {
		const struct perf_branch_entry *e = &s->entries[i];

		printf("# %3d  %016llx %-28s -> %016llx %s\n", i,
		       (unsigned long long)e->from, ksym_of(e->from),
		       (unsigned long long)e->to, ksym_of(e->to));
	}
}

/*
 * The call is missing when an interrupt inside CALLEE pushed it out of a
 * full buffer, or a context switch there wiped it: a cut path, not a
 * wrong one.
 */
static const char CUT[] = "no call of " CALLEE " where " PROBED " returns to";
/*
 * The return too, when that happens on the way from it to the snapshot
 * (an interrupt in the kretprobe trampoline that preempts the task).
 */
static const char NO_RETURN[] = "no return from " PROBED;
/*
 * Or an interrupt inside PROBED after CALLEE returned: the handler's
 * records, and its return into PROBED, sit inside the path.
 */
static const char INTERRUPTED[] = "an interrupt inside " PROBED;

/* Did the task go through the scheduler, where a switch wipes the buffer? */
static bool rescheduled(const struct snap *s, int nr)
{
	for (int i = 0; i < nr; i++)
		if (!strcmp(ksym_of(s->entries[i].from), "__schedule"))
			return true;
	return false;
}

/*
 * The error path in the snapshot, youngest first: the return from PROBED
 * (into the kretprobe trampoline), before it nothing but transfers inside
 * PROBED, before those the return from CALLEE to the instruction after
 * the call, and, older, that call. NULL when it is all there, else what
 * is missing; *@ret_i says where the path ends.
 */
static const char *find_error_path(const struct snap *s, int nr, int *ret_i)
{
	const struct perf_branch_entry *e = s->entries, *back;
	uint64_t callee = ksym_addr(CALLEE);
	int i;

	for (i = 0; i < nr; i++)
		if (e[i].type == PERF_BR_RET && !strcmp(ksym_of(e[i].from), PROBED))
			break;
	*ret_i = i;
	if (i == nr)
		return NO_RETURN;
	for (i++; i < nr; i++)
		if (strcmp(ksym_of(e[i].from), PROBED) ||
		    strcmp(ksym_of(e[i].to), PROBED))
			break;
	if (i < nr && e[i].type == PERF_BR_ERET &&
	    !strcmp(ksym_of(e[i].to), PROBED))
		return INTERRUPTED;
	if (i == nr || e[i].type != PERF_BR_RET ||
	    strcmp(ksym_of(e[i].from), CALLEE) || strcmp(ksym_of(e[i].to), PROBED))
		return "before the return from " PROBED
		       ", not only its own branches and the return from " CALLEE;
	back = &e[i];
	for (i++; i < nr; i++)
		if (e[i].type == PERF_BR_CALL && e[i].to == callee &&
		    e[i].from + 4 == back->to)
			return NULL;
	return CUT;
}

/*
 * ROUNDS failing close() calls on this CPU while a CPU-wide event of
 * branch @types records it: every snapshot holds the error path, and
 * nothing of another program.
 */
static void check_error_path(struct __test_metadata *_metadata,
			     uint64_t types)
{
	struct span mine[64], its[64];
	int nmine, nits, cpu = sched_getcpu(), armed, shown = 0;
	int bad_path = 0, cut = 0, foreign = 0, empty = 0, deep = 0;
	/* lockdep's checks inside CALLEE alone fill the buffer. */
	bool lockdep = !access("/proc/lockdep", F_OK);
	struct loaded *l = calloc(1, sizeof(*l));
	struct snap *s = calloc(1, sizeof(*s));
	const char *why = NULL;
	pid_t spin;

	ASSERT_NE(NULL, l);
	ASSERT_NE(NULL, s);
	if (!ctr_depth())
		SKIP(return, "no control transfer records on this hart");
	/* On QEMU the kretprobe and the program take 30 records or so. */
	if (ctr_depth() < 64)
		SKIP(return, "%d records: no room for the error path",
		     ctr_depth());
	if (!load_ksyms())
		SKIP(return, "/proc/kallsyms shows no addresses");
	ASSERT_EQ(0, pin(0, cpu));
	armed = arm_types(cpu, types);
	ASSERT_LE(0, armed) TH_LOG("branch event: %s", strerror(errno));
	ASSERT_EQ(0, load(l, PROBED)) TH_LOG("%s", l->log);
	s->tgid = getpid();
	s->want_rc = -EBADF;
	ASSERT_EQ(0, map_rw(l, s, true));
	nmine = exec_spans(getpid(), mine, 64);
	spin = competitor(cpu);
	ASSERT_LT(0, spin);
	nits = exec_spans(spin, its, 64);
	ASSERT_TRUE(runs_libc(spin)) TH_LOG("spin never mapped libc");

	for (int round = 0; round < ROUNDS; round++) {
		int nr, ret_i;

		/* Let the loop run in between, every other time. */
		if (round & 1)
			sched_yield();
		ASSERT_EQ(-1, close(-1));
		ASSERT_EQ(0, map_rw(l, s, false));
		ASSERT_EQ(round + 1, s->calls);
		if (s->ret <= 0) {
			empty++;
			continue;
		}
		nr = s->ret / sizeof(struct perf_branch_entry);
		why = find_error_path(s, nr, &ret_i);
		if (why == CUT && nr == SNAP_ENTRIES && lockdep) {
			deep++;
			why = NULL;
		}
		if (why == INTERRUPTED ||
		    ((why == CUT || why == NO_RETURN) &&
		     (nr == SNAP_ENTRIES || rescheduled(s, nr)))) {
			cut++;
			why = NULL;
		}
		if (why && !bad_path++) {
			TH_LOG("round %d: %s", round, why);
			show(s, nr);
			shown = 1;
		}
		for (int i = 0; i < nr; i++) {
			const struct perf_branch_entry *e = &s->entries[i];
			uint64_t end[2] = { e->from, e->to };

			for (int j = 0; j < 2; j++) {
				if (!end[j] || (int64_t)end[j] < 0)
					continue;
				if (in_spans(mine, nmine, end[j]) &&
				    !in_spans(its, nits, end[j]))
					continue;
				if (!foreign++)
					TH_LOG("round %d, record %d: %#llx is not ours",
					       round, i, (unsigned long long)end[j]);
			}
		}
		if (round == ROUNDS - 1 && !shown) {
			/* One snapshot as a user would read it. */
			printf("# snapshot of round %d: %d records, youngest first;",
			       round, nr);
			printf(" the error path from %d on\n", ret_i);
			show(s, nr);
		}
	}
	kill(spin, SIGKILL);
	waitpid(spin, NULL, 0);
	close(armed);
	unload(l);
	EXPECT_EQ(0, empty);
	EXPECT_EQ(0, bad_path);
	/* A cut path is rare: an interrupt in a few hundred instructions. */
	EXPECT_GE(ROUNDS / 10, cut);
	if (cut)
		printf("# %d of %d snapshots cut by an interrupt or a switch\n",
		       cut, ROUNDS);
	if (deep)
		printf("# %d of %d snapshots full before the call of %s (lockdep)\n",
		       deep, ROUNDS, CALLEE);
	EXPECT_EQ(0, foreign);
}

/* Armed as retsnoop and the BPF selftests arm it: -j any,u,k. */
TEST(error_path)
{
	/*
	 * With lockdep, the way into a BPF program alone (rcu_read_lock()
	 * and its checks in trace_call_bpf()) is more than 256 transfers:
	 * none of the 200 snapshots of a debug kernel reached the error path.
	 * Calls and returns only, it is about 200 (error_path_calls).
	 */
	if (!access("/proc/lockdep", F_OK))
		SKIP(return, "lockdep: the way into the program fills the buffer");
	check_error_path(_metadata, PERF_SAMPLE_BRANCH_ANY);
}

/* Calls and returns only (-j any_call,any_return,u,k): room for more. */
TEST(error_path_calls)
{
	check_error_path(_metadata, PERF_SAMPLE_BRANCH_ANY_CALL |
				    PERF_SAMPLE_BRANCH_ANY_RETURN);
}

/* No branch event on the CPU: the program gets nothing, not stale records. */
TEST(unarmed)
{
	struct loaded *l = calloc(1, sizeof(*l));
	struct snap *s = calloc(1, sizeof(*s));
	int cpu = sched_getcpu(), armed;

	ASSERT_NE(NULL, l);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, pin(0, cpu));
	/* Records in the buffer, then no event. */
	armed = arm(cpu);
	if (armed >= 0)
		close(armed);
	ASSERT_EQ(0, load(l, PROBED)) TH_LOG("%s", l->log);
	s->tgid = getpid();
	s->want_rc = -EBADF;
	ASSERT_EQ(0, map_rw(l, s, true));
	ASSERT_EQ(-1, close(-1));
	ASSERT_EQ(0, map_rw(l, s, false));
	unload(l);
	ASSERT_EQ(1, s->calls);
	/* The helper turns 0 entries into -ENOENT. */
	EXPECT_EQ(-ENOENT, s->ret);
	for (int i = 0; i < SNAP_ENTRIES; i++)
		ASSERT_EQ(0, s->entries[i].from);
}

/* Instructions of @n failing close() calls, kernel included. */
static long long count_calls(int n)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.disabled = 1,
	};
	long long count = -1;
	int fd = perf_open(&attr, 0, -1);

	if (fd < 0)
		return -1;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < n; i++)
		close(-1);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = -1;
	close(fd);
	return count;
}

/* snapshot bench N: what a snapshot costs, in instructions per call. */
static int run_bench(int n)
{
	struct loaded *l = calloc(1, sizeof(*l));
	struct snap *s = calloc(1, sizeof(*s));
	long long with, without;
	int armed, cpu = sched_getcpu();

	if (!l || !s || pin(0, cpu))
		return 1;
	armed = arm(cpu);
	if (armed < 0 || load(l, PROBED)) {
		fprintf(stderr, "bench: %s\n", armed < 0 ? strerror(errno) : l->log);
		return 1;
	}
	s->tgid = getpid();
	s->want_rc = -EBADF;
	s->skip = 1;
	map_rw(l, s, true);
	count_calls(n / 10);
	without = count_calls(n);
	s->skip = 0;
	map_rw(l, s, true);
	count_calls(n / 10);
	with = count_calls(n);
	map_rw(l, s, false);
	unload(l);
	close(armed);
	if (with < 0 || without < 0 || s->ret <= 0) {
		fprintf(stderr, "bench: no count or no snapshot\n");
		return 1;
	}
	printf("snapshot: %lld instructions per call ", (with - without) / n);
	printf("(%d calls: %lld with, %lld without; %lld records)\n", n, with,
	       without, s->ret / (long long)sizeof(struct perf_branch_entry));
	return 0;
}

/* snapshot busy FILE: snapshots while other tests sample, until FILE exists. */
static int run_busy(const char *stop)
{
	struct loaded *l = calloc(1, sizeof(*l));
	struct snap *s = calloc(1, sizeof(*s));
	long long taken = 0, full = 0;
	int cpus[64], n = allowed_cpus(cpus, 64), armed[64];

	if (!l || !s)
		return 1;
	for (int i = 0; i < n; i++) {
		armed[i] = arm(cpus[i]);
		if (armed[i] < 0) {
			fprintf(stderr, "busy: CPU %d: %s\n", cpus[i],
				strerror(errno));
			return 1;
		}
	}
	if (load(l, PROBED)) {
		fprintf(stderr, "busy: %s\n", l->log);
		return 1;
	}
	s->tgid = getpid();
	s->want_rc = -EBADF;
	map_rw(l, s, true);
	while (access(stop, F_OK)) {
		close(-1);
		if (map_rw(l, s, false))
			break;
		taken++;
		full += s->ret > 0;
		usleep(1000);
	}
	unload(l);
	for (int i = 0; i < n; i++)
		close(armed[i]);
	printf("# snapshot busy: %lld snapshots, %lld with records\n", taken,
	       full);
	return taken && full == taken ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "bench"))
		return run_bench(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "busy"))
		return run_busy(argv[2]);
	return test_harness_run(argc, argv);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf adds a task's events to a CPU in the middle of a time slice on
 * several paths that are no context switch: PERF_EVENT_IOC_ENABLE,
 * enable_on_exec, attaching to a running task, multiplexing (rotation of
 * event groups that do not fit the counters together). A CPU-wide branch
 * event on
 * that CPU (a fleet's perf record -a -b) keeps the hart recording all the
 * while, so the buffer holds whatever ran there before. The first samples
 * of the new event must still hold records of its own task only.
 *
 * B spins in leak_b_spin() on the CPU. The task sampled, A, runs there
 * too, mostly in addpath_sled(), which records next to nothing: without
 * a wipe, its samples would be full of B's records. Each path is taken
 * at least MIN_FIRST times, each giving a sample, beside a CPU-wide event
 * recording user branches, and one recording user and kernel branches.
 * Not one record of A's samples may have an end in B's loop; on the exec
 * path, where A becomes another program, none in the test program's text
 * either: that is B's, and the image A had before exec.
 *
 * Then exec with an event already recording, plain and in call-stack
 * mode (from 40 frames deep): no sample after exec may hold a record of
 * the old image. And a task that sleeps 40 frames deep, returns from them
 * with its call-stack event disabled and then comes in on a CPU where a
 * CPU-wide call-stack event records: its stale stack must not come back.
 * And a call-stack event multiplexed in and out: exact frames, a correct
 * innermost part of them, or none.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#include "../../kselftest_harness.h"
#include "addpath.h"
#include "cpus.h"
#include "leak.h"
#include "ring.h"
#include "sysctl.h"

#define CAPS_BRANCHES	"/sys/bus/event_source/devices/cpu/caps/branches"
#define MUX_FILE	"/sys/bus/event_source/devices/cpu/perf_event_mux_interval_ms"
#define MIN_FIRST	200	/* first samples per path */
/*
 * QEMU without -icount counts host time, and how often a round gives a
 * sample varies by host: 200 took 216 to 2,000+ rounds (178 in 2,000
 * once, on CI). Rounds stop at MAX_ROUNDS or FIRST_MS, whichever first.
 */
#define MAX_ROUNDS	10000
#define FIRST_MS	120000
#define PERIOD_A	3001	/* A's event: instructions:u */
#define PERIOD_CPU	200003	/* the CPU-wide event: cycles */
#define SLEDS		4	/* per round: 16384 instructions */
#define PAGES		64
#define DIVE		40	/* frames of the call-stack tests */

#define A(p)		((__u64)(uintptr_t)(p))

/* The executable mapping of this program: B's and the image before exec. */
static __u64 text_lo, text_hi;

static void find_text(void)
{
	char line[512], exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");

	if (n < 0 || !f) {
		if (f)
			fclose(f);
		return;
	}
	exe[n] = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perm[5], *path = strchr(line, '/');

		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perm) != 3 || !path)
			continue;
		path[strcspn(path, "\n")] = 0;
		if (perm[2] == 'x' && !strcmp(path, exe)) {
			text_lo = lo;
			text_hi = hi;
		}
	}
	fclose(f);
}

/* The path of program @name beside this one in @buf; 0 if it runs. */
static int sibling(char *buf, size_t len, const char *name)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n < 0)
		return -1;
	buf[n] = 0;
	slash = strrchr(buf, '/');
	if (!slash || strlen(name) >= len - (slash + 1 - buf))
		return -1;
	strcpy(slash + 1, name);
	return access(buf, X_OK);
}

static bool in_text(__u64 x)
{
	return x >= text_lo && x < text_hi;
}

static bool in_b(__u64 x)
{
	return x >= A(leak_b_begin) && x < A(leak_b_end);
}

static bool in_dive(__u64 x)
{
	return x >= A(addpath_dive_begin) && x < A(addpath_dive_end);
}

struct tally {
	pid_t pid;			/* the task sampled */
	bool exec;			/* it runs another program */
	bool after_exec;		/* only samples after its exec count */
	unsigned long samples, records, foreign, kernel, other_pid;
	unsigned long dive;		/* records with an end in addpath_dive */
	bool dump_done;
};

static void count_sample(void *arg, const struct ctr_sample *s)
{
	struct tally *t = arg;
	unsigned long foreign = 0;

	if (t->pid && s->pid != (__u32)t->pid) {
		t->other_pid++;
		return;
	}
	if (t->after_exec && !s->execs)
		return;
	t->samples++;
	for (__u64 i = 0; i < s->nr; i++) {
		const struct perf_branch_entry *e = &s->br[i];

		t->records++;
		if (ctr_kernel_addr(e->from) || ctr_kernel_addr(e->to))
			t->kernel++;
		if (in_b(e->from) || in_b(e->to) ||
		    (t->exec && (in_text(e->from) || in_text(e->to))))
			foreign++;
		if (in_dive(e->from) || in_dive(e->to))
			t->dive++;
	}
	t->foreign += foreign;
	if (foreign && !t->dump_done) {
		t->dump_done = true;
		fprintf(stderr, "# pid %u at %#llx: %lu foreign records, first ones:\n",
			s->pid, (unsigned long long)s->ip, foreign);
		for (__u64 i = 0; i < s->nr && i < 4; i++)
			fprintf(stderr, "#   %#llx -> %#llx\n",
				(unsigned long long)s->br[i].from,
				(unsigned long long)s->br[i].to);
	}
}

static int open_event(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, -1, 0);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

static __u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* A child that dies with its parent and runs @fn on @cpu. */
static pid_t spawn(int cpu, void (*fn)(void))
{
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (pin(0, cpu))
		_exit(1);
	fn();
	_exit(0);
}

static void run_b(void)
{
	for (;;)
		leak_b_spin(1000000);
}

/*
 * A for the attach path: wait for request n (B runs meanwhile), answer
 * it and run a long sled until round n is over, so that an event
 * attached right after the answer finds A running with B's records still
 * in the buffer, unless it was wiped.
 */
static int attach_req = -1, attach_ack = -1;
static unsigned long *attach_over;	/* the last round over */

/*
 * A sled of BIG_SLED instructions, written at run time: attaching takes
 * a while, and A must not push B's records out meanwhile.
 */
#define BIG_SLED	262144
static void (*big_sled)(void);

static int make_big_sled(void)
{
	__u32 *p = mmap(NULL, BIG_SLED * 4, PROT_READ | PROT_WRITE | PROT_EXEC,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	for (int i = 0; i < BIG_SLED - 1; i++)
		p[i] = 0x00000013;	/* addi zero, zero, 0 */
	p[BIG_SLED - 1] = 0x00008067;	/* ret */
	__builtin___clear_cache((char *)p, (char *)(p + BIG_SLED));
	big_sled = (void (*)(void))p;
	return 0;
}

static void run_sleds(void)
{
	char c;

	for (unsigned long n = 1; read(attach_req, &c, 1) == 1; n++) {
		if (write(attach_ack, &c, 1) != 1)
			break;
		while (__atomic_load_n(attach_over, __ATOMIC_RELAXED) < n)
			big_sled();
	}
}

enum path {
	IOCTL_ENABLE,	/* A enables its own event right after a sleep */
	ENABLE_ON_EXEC,	/* A execs with an enable_on_exec event */
	ATTACH,		/* an event opened on A while it runs */
	ROTATION,	/* A's branch event multiplexed with another group */
};

FIXTURE(addpath) {
	int cpu, home;
	pid_t b;
	int cpu_fd;
	char sled[PATH_MAX];
	struct tally tally;
	unsigned long rounds, firsts, lost;
	__u64 start_ms;
};

FIXTURE_VARIANT(addpath) {
	enum path path;
	bool kernel;	/* the CPU-wide event records kernel branches too */
};

FIXTURE_VARIANT_ADD(addpath, ioctl_enable) { .path = IOCTL_ENABLE };

FIXTURE_VARIANT_ADD(addpath, ioctl_enable_beside_kernel) {
	.path = IOCTL_ENABLE, .kernel = true,
};

FIXTURE_VARIANT_ADD(addpath, enable_on_exec) { .path = ENABLE_ON_EXEC };

FIXTURE_VARIANT_ADD(addpath, enable_on_exec_beside_kernel) {
	.path = ENABLE_ON_EXEC, .kernel = true,
};

FIXTURE_VARIANT_ADD(addpath, attach) { .path = ATTACH };

FIXTURE_VARIANT_ADD(addpath, attach_beside_kernel) {
	.path = ATTACH, .kernel = true,
};

FIXTURE_VARIANT_ADD(addpath, rotation) { .path = ROTATION };

FIXTURE_VARIANT_ADD(addpath, rotation_beside_kernel) {
	.path = ROTATION, .kernel = true,
};

FIXTURE_SETUP(addpath)
{
	struct perf_event_attr attr;
	int cpus[64], n = allowed_cpus(cpus, 64);

	memset(self, 0, sizeof(*self));
	self->cpu_fd = -1;
	self->b = -1;
	if (access(CAPS_BRANCHES, F_OK))
		SKIP(return, "no %s: no CTR", CAPS_BRANCHES);
	if (n < 2)
		SKIP(return, "needs two CPUs");
	self->cpu = cpus[n - 1];
	self->home = cpus[0];
	find_text();
	ASSERT_NE(0, text_hi) TH_LOG("no executable mapping of this program");
	ASSERT_EQ(0, sibling(self->sled, sizeof(self->sled), "sled"))
		TH_LOG("no sled beside this program");

	self->b = spawn(self->cpu, run_b);
	ASSERT_LT(0, self->b);

	/*
	 * For rotation, A's event counts cycles and this one instructions,
	 * pinned: it keeps recording while A's groups take turns. (QEMU
	 * counts only one counter per event on a hart.)
	 */
	ctr_ring_attr(&attr, variant->path == ROTATION ?
		      PERF_COUNT_HW_INSTRUCTIONS : PERF_COUNT_HW_CPU_CYCLES,
		      PERIOD_CPU,
		      PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
		      (variant->kernel ? PERF_SAMPLE_BRANCH_KERNEL : 0));
	attr.exclude_kernel = !variant->kernel;
	attr.disabled = 0;
	attr.pinned = variant->path == ROTATION;
	self->cpu_fd = open_event(&attr, -1, self->cpu);
	if (self->cpu_fd < 0 && (errno == EACCES || errno == EPERM))
		SKIP(return, "CPU-wide events need CAP_PERFMON or paranoid <= 0");
	ASSERT_LE(0, self->cpu_fd) TH_LOG("perf_event_open: %s", strerror(errno));
	/* B fills the buffer with its records. */
	sleep_ms(20);
}

FIXTURE_TEARDOWN(addpath)
{
	if (self->cpu_fd >= 0)
		close(self->cpu_fd);
	if (self->b > 0) {
		kill(self->b, SIGKILL);
		waitpid(self->b, NULL, 0);
	}
}

static void a_attr(struct perf_event_attr *attr)
{
	ctr_ring_attr(attr, PERF_COUNT_HW_INSTRUCTIONS, PERIOD_A,
		      PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER);
}

/*
 * First samples a path must give: under a kernel with KASAN and lockdep
 * an exec takes one to three seconds: FIRST_MS held 37 to 143 of them,
 * every one with its sample (2026-12-05). A tenth of the rounds then.
 */
static unsigned long min_first(void)
{
	static int debug = -1;

	if (debug < 0)
		debug = !access("/proc/lockdep", F_OK);
	return debug ? MIN_FIRST / 10 : MIN_FIRST;
}

/* Until min_first() rounds sampled, within MAX_ROUNDS and FIRST_MS. */
static bool more_rounds(struct _test_data_addpath *self)
{
	if (!self->start_ms)
		self->start_ms = now_ms();
	return self->firsts < min_first() && self->rounds < MAX_ROUNDS &&
	       now_ms() - self->start_ms < FIRST_MS;
}

/* Drain @fd's ring into the tally; count the round if it sampled. */
static void drain_round(struct _test_data_addpath *self, struct ctr_ring *r)
{
	unsigned long before = self->tally.samples;

	ctr_ring_drain(r, count_sample, &self->tally);
	self->rounds++;
	self->firsts += self->tally.samples > before;
}

/* A is this task: sleep, so that B runs, then enable and run. */
static void path_ioctl(struct __test_metadata *_metadata,
		       struct _test_data_addpath *self)
{
	struct perf_event_attr attr;
	struct ctr_ring r;
	int fd;

	ASSERT_EQ(0, pin(0, self->cpu));
	a_attr(&attr);
	fd = open_event(&attr, 0, -1);
	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, ctr_ring_map(&r, fd, PAGES, &attr));
	self->tally.pid = getpid();
	while (more_rounds(self)) {
		sleep_ms(2);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		for (int i = 0; i < SLEDS; i++)
			addpath_sled();
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		drain_round(self, &r);
	}
	self->lost = r.lost;
	ctr_ring_unmap(&r);
	close(fd);
}

/*
 * A is a child that execs sled, with an enable_on_exec event: from its
 * first user instruction the new image records almost nothing.
 */
static void path_exec(struct __test_metadata *_metadata,
		      struct _test_data_addpath *self)
{
	struct perf_event_attr attr;
	struct ctr_ring r;

	a_attr(&attr);
	attr.enable_on_exec = 1;
	self->tally.exec = true;
	while (more_rounds(self)) {
		int go[2], fd, status;
		pid_t a;
		char c;

		ASSERT_EQ(0, pipe(go));
		a = fork();
		ASSERT_LE(0, a);
		if (!a) {
			close(go[1]);
			if (pin(0, self->cpu) || read(go[0], &c, 1) != 1)
				_exit(1);
			execl(self->sled, "sled", (char *)NULL);
			_exit(1);
		}
		close(go[0]);
		fd = open_event(&attr, a, -1);
		ASSERT_LE(0, fd) TH_LOG("perf_event_open: %s", strerror(errno));
		ASSERT_EQ(0, ctr_ring_map(&r, fd, PAGES, &attr));
		/* Let B run before A wakes up. */
		sleep_ms(2);
		ASSERT_EQ(1, write(go[1], "x", 1));
		close(go[1]);
		ASSERT_EQ(a, waitpid(a, &status, 0));
		ASSERT_EQ(0, status);
		self->tally.pid = a;
		drain_round(self, &r);
		self->lost += r.lost;
		ctr_ring_unmap(&r);
		close(fd);
	}
}

/* A is a child running sleds; events are opened on it from another CPU. */
static void path_attach(struct __test_metadata *_metadata,
			struct _test_data_addpath *self)
{
	struct perf_event_attr attr;
	int req[2], ack[2];
	struct ctr_ring r;
	pid_t a;

	ASSERT_EQ(0, pin(0, self->home));
	ASSERT_EQ(0, pipe(req));
	ASSERT_EQ(0, pipe(ack));
	attach_req = req[0];
	attach_ack = ack[1];
	attach_over = mmap(NULL, sizeof(*attach_over), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, attach_over);
	ASSERT_EQ(0, make_big_sled()) TH_LOG("mmap: %s", strerror(errno));
	a = spawn(self->cpu, run_sleds);
	ASSERT_LT(0, a);
	close(req[0]);
	close(ack[1]);
	self->tally.pid = a;
	a_attr(&attr);
	attr.disabled = 0;
	while (more_rounds(self)) {
		char c = 'x';
		int fd;

		/* Let B run, then attach while A runs its sleds. */
		sleep_ms(1);
		ASSERT_EQ(1, write(req[1], &c, 1));
		ASSERT_EQ(1, read(ack[0], &c, 1));
		fd = open_event(&attr, a, -1);
		ASSERT_LE(0, fd) TH_LOG("perf_event_open: %s", strerror(errno));
		ASSERT_EQ(0, ctr_ring_map(&r, fd, 8, &attr));
		/* Until the first sample, for up to 50 ms. */
		for (int i = 0; i < 50 && !r.pg->data_head; i++)
			sleep_ms(1);
		__atomic_store_n(attach_over, self->rounds + 1, __ATOMIC_RELAXED);
		close(fd);
		drain_round(self, &r);
		self->lost += r.lost;
		ctr_ring_unmap(&r);
	}
	close(req[1]);
	close(ack[0]);
	kill(a, SIGKILL);
	waitpid(a, NULL, 0);
	munmap(attach_over, sizeof(*attach_over));
	munmap(big_sled, BIG_SLED * 4);
}

/* Open a counting TLB miss event on this task, in @group; -1 and errno. */
static int open_filler(int group, int i)
{
	static const __u64 tlb[] = {
		PERF_COUNT_HW_CACHE_DTLB |
			(PERF_COUNT_HW_CACHE_OP_READ << 8) |
			(PERF_COUNT_HW_CACHE_RESULT_MISS << 16),
		PERF_COUNT_HW_CACHE_DTLB |
			(PERF_COUNT_HW_CACHE_OP_WRITE << 8) |
			(PERF_COUNT_HW_CACHE_RESULT_MISS << 16),
		PERF_COUNT_HW_CACHE_ITLB |
			(PERF_COUNT_HW_CACHE_OP_READ << 8) |
			(PERF_COUNT_HW_CACHE_RESULT_MISS << 16),
	};
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HW_CACHE,
		.config = tlb[i % 3],
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = group < 0,
	};

	return syscall(__NR_perf_event_open, &attr, 0, -1, group, 0);
}

/*
 * Two groups of this task that do not fit the counters together: a lead
 * event with FILLERS TLB miss events, and FILLERS + 1 TLB miss events
 * alone. perf multiplexes them: the lead is added every other rotation,
 * in the middle of the task's time slice.
 */
#define FILLERS		8
struct rotation {
	int fds[2 * FILLERS + 2], nfds;
	long mux;	/* perf_event_mux_interval_ms to put back, or -1 */
};

/* Open the groups around @lead, and rotate every millisecond if allowed. */
static int rotation_open(struct rotation *rot, int lead)
{
	int other;

	rot->nfds = 0;
	rot->mux = -1;
	rot->fds[rot->nfds++] = lead;
	other = open_filler(-1, 0);
	if (other < 0)
		return errno;
	rot->fds[rot->nfds++] = other;
	for (int i = 0; i < FILLERS; i++) {
		int fd = open_filler(lead, i);

		if (fd < 0)
			return errno;
		rot->fds[rot->nfds++] = fd;
		fd = open_filler(other, i + 1);
		if (fd < 0)
			return errno;
		rot->fds[rot->nfds++] = fd;
	}
	rot->mux = read_long(MUX_FILE);
	if (rot->mux > 1 && write_long(MUX_FILE, 1))
		rot->mux = -1;
	return 0;
}

static int rotation_enable(struct rotation *rot, bool on)
{
	unsigned long op = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;

	return ioctl(rot->fds[0], op, 0) || ioctl(rot->fds[1], op, 0);
}

/* Close every event, the lead too. */
static void rotation_close(struct rotation *rot)
{
	while (rot->nfds)
		close(rot->fds[--rot->nfds]);
	if (rot->mux > 1)
		write_long(MUX_FILE, rot->mux);
}

struct gaps {
	struct tally *t;
	__u64 last;
	unsigned long firsts;
};

/* A sample after a gap of 1 ms or more is the first of a turn. */
static void count_turn(void *arg, const struct ctr_sample *s)
{
	struct gaps *g = arg;

	if (s->pid == (__u32)g->t->pid) {
		g->firsts += !g->last || s->time - g->last >= 1000000;
		g->last = s->time;
	}
	count_sample(g->t, s);
}

/* A, this task, has its branch event (cycles) lead the rotation groups. */
static void path_rotation(struct __test_metadata *_metadata,
			  struct _test_data_addpath *self)
{
	struct perf_event_attr attr;
	struct gaps g = { .t = &self->tally };
	struct rotation rot;
	struct ctr_ring r;
	__u64 start;
	int lead, err;

	ASSERT_EQ(0, pin(0, self->cpu));
	ctr_ring_attr(&attr, PERF_COUNT_HW_CPU_CYCLES, PERIOD_A,
		      PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER);
	attr.sample_type |= PERF_SAMPLE_TIME;
	/*
	 * Count the kernel's cycles too: QEMU without -icount let a
	 * user-only lead overflow about once a second (24 to 59 turns with
	 * a sample in 60 s; CI failed the test once); counting in
	 * every mode, 200 turns took 227 to 1,022 rounds (nine runs). Its
	 * records stay user-only, as the branch filter says.
	 */
	attr.exclude_kernel = 0;
	lead = open_event(&attr, 0, -1);
	ASSERT_LE(0, lead) TH_LOG("perf_event_open: %s", strerror(errno));
	err = rotation_open(&rot, lead);
	if (err) {
		rotation_close(&rot);
		SKIP(return, "no TLB miss events to fill the counters with: %s",
		     strerror(err));
	}
	ASSERT_EQ(0, ctr_ring_map(&r, lead, PAGES, &attr));
	self->tally.pid = getpid();
	start = now_ms();
	ASSERT_EQ(0, rotation_enable(&rot, true));
	while (g.firsts < min_first() && now_ms() - start <= 60000) {
		/* Short turns: most of A's time is early in its slice. */
		for (int i = 0; i < 32; i++)
			addpath_sled();
		ctr_ring_drain(&r, count_turn, &g);
		sleep_ms(1);
		self->rounds++;
	}
	rotation_enable(&rot, false);
	ctr_ring_drain(&r, count_turn, &g);
	self->firsts = g.firsts;
	self->lost = r.lost;
	ctr_ring_unmap(&r);
	rotation_close(&rot);
}

/* A kernel with KASAN and lockdep takes its time. */
TEST_F_TIMEOUT(addpath, first_samples, 300)
{
	static const char * const names[] = {
		[IOCTL_ENABLE] = "PERF_EVENT_IOC_ENABLE after a sleep",
		[ENABLE_ON_EXEC] = "enable_on_exec",
		[ATTACH] = "attach to a running task",
		[ROTATION] = "rotation of groups",
	};
	struct tally *t = &self->tally;

	switch (variant->path) {
	case IOCTL_ENABLE:
		path_ioctl(_metadata, self);
		break;
	case ENABLE_ON_EXEC:
		path_exec(_metadata, self);
		break;
	case ATTACH:
		path_attach(_metadata, self);
		break;
	case ROTATION:
		path_rotation(_metadata, self);
		break;
	}
	if (_metadata->exit_code == KSFT_SKIP)
		return;
	ksft_print_msg("%s on CPU%d beside a CPU-wide %s event: %lu rounds, %lu with a sample\n",
		       names[variant->path], self->cpu,
		       variant->kernel ? "any,u,k" : "any,u",
		       self->rounds, self->firsts);
	ksft_print_msg("%lu samples, %lu records, %lu foreign, %lu kernel, %lu lost\n",
		       t->samples, t->records, t->foreign, t->kernel, self->lost);
	EXPECT_LE(min_first(), self->firsts);
	EXPECT_EQ(0, t->foreign);
	EXPECT_EQ(0, t->kernel);
	EXPECT_EQ(0, t->other_pid);
}

#define BRANCH_LBR	(PERF_SAMPLE_BRANCH_CALL_STACK |		\
			 PERF_SAMPLE_BRANCH_USER |			\
			 PERF_SAMPLE_BRANCH_NO_CYCLES |			\
			 PERF_SAMPLE_BRANCH_NO_FLAGS)

static char exec_target[PATH_MAX];

/*
 * sled, for ever: its code makes no call and hardly a branch from its
 * first instruction on.
 */
static void exec_sled(void)
{
	execl(exec_target, "sled", "forever", (char *)NULL);
	_exit(1);
}

#define MIN_AFTER	20	/* samples after exec, or in the stale test */
#define MAX_MS		20000

/*
 * A child runs this program, then execs sled, while an event of
 * @branch_sample_type records it from the start: in call-stack mode from
 * DIVE frames deep, otherwise after a loop of branches. The samples after
 * exec (the event marks it with a COMM record) may hold no record in the
 * old image's text: the new image starts with an empty buffer.
 */
static void exec_test(struct __test_metadata *_metadata, __u64 branch_sample_type)
{
	bool call_stack = branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK;
	struct perf_event_attr attr;
	struct tally t = { .exec = true, .after_exec = true };
	struct ctr_ring r;
	int go[2], fd, status, cpus[64];
	pid_t a;
	char c;

	if (access(CAPS_BRANCHES, F_OK))
		SKIP(return, "no %s: no CTR", CAPS_BRANCHES);
	find_text();
	ASSERT_NE(0, text_hi);
	ASSERT_EQ(0, sibling(exec_target, sizeof(exec_target), "sled"))
		TH_LOG("no sled beside this program");
	ASSERT_LE(1, allowed_cpus(cpus, 64));
	ASSERT_EQ(0, pipe(go));
	a = fork();
	ASSERT_LE(0, a);
	if (!a) {
		close(go[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (pin(0, cpus[0]) || read(go[0], &c, 1) != 1)
			_exit(1);
		if (call_stack) {
			addpath_dive(DIVE, exec_sled);
		} else {
			leak_a_spin(20000);
			exec_sled();
		}
		_exit(1);
	}
	close(go[0]);
	ctr_ring_attr(&attr, PERF_COUNT_HW_INSTRUCTIONS, 2003, branch_sample_type);
	attr.disabled = 0;
	attr.comm = 1;
	attr.comm_exec = 1;
	fd = open_event(&attr, a, -1);
	if (fd < 0 && errno == EOPNOTSUPP)
		SKIP(return, "branch stack mode refused (EOPNOTSUPP)");
	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, ctr_ring_map(&r, fd, 256, &attr));
	ASSERT_EQ(1, write(go[1], "x", 1));
	close(go[1]);
	t.pid = a;
	/* sled runs until it has given enough samples. */
	for (__u64 start = now_ms(); t.samples < MIN_AFTER &&
	     now_ms() - start < MAX_MS && !waitpid(a, &status, WNOHANG);) {
		sleep_ms(2);
		ctr_ring_drain(&r, count_sample, &t);
	}
	kill(a, SIGKILL);
	waitpid(a, &status, 0);
	ctr_ring_drain(&r, count_sample, &t);
	ksft_print_msg("%lu samples after exec, %lu records, %lu of the old image, %lu lost\n",
		       t.samples, t.records, t.foreign, r.lost);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_EQ(1, r.execs);
	EXPECT_LE(MIN_AFTER, t.samples);
	EXPECT_EQ(0, t.foreign);
	EXPECT_EQ(0, t.kernel);
	ctr_ring_unmap(&r);
	close(fd);
}

TEST(branches_after_exec)
{
	exec_test(_metadata, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER);
}

TEST(call_stack_after_exec)
{
	exec_test(_metadata, BRANCH_LBR);
}

static int stale_fd = -1;

/* At the bottom of the dive: be switched out, then stop recording. */
static void sleep_then_disable(void)
{
	sleep_ms(5);
	ioctl(stale_fd, PERF_EVENT_IOC_DISABLE, 0);
}

/*
 * A task's stack, saved DIVE frames deep, goes stale once the task runs
 * on without recording: here it returns from every frame with its own
 * call-stack event disabled, then moves to a CPU where a CPU-wide
 * call-stack event records. That event's samples of the task must not
 * hold the frames it left.
 */
TEST(call_stack_unknown_after_unrecorded_run)
{
	struct perf_event_attr attr;
	struct tally t = { 0 };
	struct ctr_ring r;
	int cpus[64], n = allowed_cpus(cpus, 64), cpu_fd;

	if (access(CAPS_BRANCHES, F_OK))
		SKIP(return, "no %s: no CTR", CAPS_BRANCHES);
	if (n < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, pin(0, cpus[0]));
	ctr_ring_attr(&attr, PERF_COUNT_HW_INSTRUCTIONS, 100003, BRANCH_LBR);
	stale_fd = open_event(&attr, 0, -1);
	if (stale_fd < 0 && errno == EOPNOTSUPP)
		SKIP(return, "call-stack mode refused (EOPNOTSUPP)");
	ASSERT_LE(0, stale_fd) TH_LOG("perf_event_open: %s", strerror(errno));

	ctr_ring_attr(&attr, PERF_COUNT_HW_INSTRUCTIONS, 20011, BRANCH_LBR);
	attr.disabled = 0;
	cpu_fd = open_event(&attr, -1, cpus[n - 1]);
	if (cpu_fd < 0 && (errno == EACCES || errno == EPERM))
		SKIP(return, "CPU-wide events need CAP_PERFMON or paranoid <= 0");
	ASSERT_LE(0, cpu_fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, ctr_ring_map(&r, cpu_fd, 256, &attr));
	t.pid = getpid();

	for (__u64 start = now_ms(); t.samples < MIN_AFTER &&
	     now_ms() - start < MAX_MS;) {
		ASSERT_EQ(0, pin(0, cpus[0]));
		ASSERT_EQ(0, ioctl(stale_fd, PERF_EVENT_IOC_ENABLE, 0));
		addpath_dive(DIVE, sleep_then_disable);
		/* Unrecorded from here: the stack saved above is stale. */
		ASSERT_EQ(0, pin(0, cpus[n - 1]));
		for (int i = 0; i < 50; i++)
			addpath_sled();
		ctr_ring_drain(&r, count_sample, &t);
	}
	ksft_print_msg("%lu samples of this task, %lu records, %lu in the frames it left\n",
		       t.samples, t.records, t.dive);
	EXPECT_LE(MIN_AFTER, t.samples);
	EXPECT_EQ(0, t.dive);
	EXPECT_EQ(0, t.kernel);
	ctr_ring_unmap(&r);
	close(cpu_fd);
	close(stale_fd);
}

/* What the call stacks of samples in addpath_leaf() held. */
struct frames {
	unsigned long leaf, exact, partial, empty, wrong;
};

/*
 * Youngest first: the call of the leaf, DIVE calls within addpath_dive()
 * and the call into it.
 */
static bool frame_ok(const struct perf_branch_entry *e, int k)
{
	if (k == 0)
		return e->from == A(addpath_dive_fn) && e->to == A(addpath_leaf);
	if (k <= DIVE)
		return e->from == A(addpath_dive_call) && e->to == A(addpath_dive);
	return e->to == A(addpath_dive);
}

static void check_frames(void *arg, const struct ctr_sample *s)
{
	struct frames *f = arg;
	int k;

	if (s->ip < A(addpath_leaf_begin) || s->ip >= A(addpath_leaf_end))
		return;
	f->leaf++;
	if (!s->nr) {
		f->empty++;
		return;
	}
	for (k = 0; k < (int)s->nr && k <= DIVE + 1; k++)
		if (!frame_ok(&s->br[k], k))
			break;
	if (k < (int)s->nr && k <= DIVE + 1) {
		if (!f->wrong++)
			fprintf(stderr, "# %llu entries, entry %d wrong: %#llx -> %#llx\n",
				(unsigned long long)s->nr, k,
				(unsigned long long)s->br[k].from,
				(unsigned long long)s->br[k].to);
		return;
	}
	if (k == DIVE + 2)
		f->exact++;
	else
		f->partial++;
}

/*
 * A call-stack event multiplexed with another group (the groups of the
 * rotation path): each time it comes back in the middle of a slice, the
 * task's stack is unknown and starts empty. Samples in the leaf hold the
 * exact frames, a correct innermost part of them (the stack refilled
 * after a return to a shallower frame), or none: never a wrong frame.
 */
TEST(call_stack_rotation)
{
	struct perf_event_attr attr;
	struct frames f = { 0 };
	struct rotation rot;
	struct ctr_ring r;
	int lead, err, cpus[64];

	if (access(CAPS_BRANCHES, F_OK))
		SKIP(return, "no %s: no CTR", CAPS_BRANCHES);
	ASSERT_LE(1, allowed_cpus(cpus, 64));
	ASSERT_EQ(0, pin(0, cpus[0]));
	ctr_ring_attr(&attr, PERF_COUNT_HW_CPU_CYCLES, 20011, BRANCH_LBR);
	/* As in first_samples' rotation: count every mode's cycles. */
	attr.exclude_kernel = 0;
	lead = open_event(&attr, 0, -1);
	if (lead < 0 && errno == EOPNOTSUPP)
		SKIP(return, "call-stack mode refused (EOPNOTSUPP)");
	ASSERT_LE(0, lead) TH_LOG("perf_event_open: %s", strerror(errno));
	err = rotation_open(&rot, lead);
	if (err) {
		rotation_close(&rot);
		SKIP(return, "no TLB miss events to fill the counters with: %s",
		     strerror(err));
	}
	ASSERT_EQ(0, ctr_ring_map(&r, lead, PAGES, &attr));
	ASSERT_EQ(0, rotation_enable(&rot, true));
	/*
	 * Without -icount, on a busy host, a dive and its leaf can outlast
	 * the 1 ms slice, and a group that comes back starts with an empty
	 * stack: few stacks may be exact, so go on until one is.
	 */
	for (__u64 start = now_ms(); (f.leaf < 400 || !f.exact) &&
	     now_ms() - start < MAX_MS;) {
		addpath_dive(DIVE, addpath_leaf);
		ctr_ring_drain(&r, check_frames, &f);
	}
	rotation_enable(&rot, false);
	ctr_ring_drain(&r, check_frames, &f);
	ksft_print_msg("%lu in the leaf: %lu exact, %lu partial, %lu empty, %lu wrong; %lu lost\n",
		       f.leaf, f.exact, f.partial, f.empty, f.wrong, r.lost);
	EXPECT_LE(100, f.leaf);
	EXPECT_LT(0, f.exact);
	EXPECT_EQ(0, f.wrong);
	ctr_ring_unmap(&r);
	rotation_close(&rot);
}

TEST_HARNESS_MAIN

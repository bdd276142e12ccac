// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: the processes of a recording and their mappings over time.
 *
 * A recording's records are not in time order: each CPU's buffer is
 * written in turn, and a system-wide recording interleaves many processes
 * that map different files at the same addresses. So the side-band
 * records are collected in a first pass over the file, sorted by their
 * time (file order among equal times) and applied in that order:
 *
 *   MMAP, MMAP2   a new executable mapping of the process; it replaces
 *                 whatever part of an older one it overlaps
 *   COMM          a thread's new name; after an exec, the process starts
 *                 over with no mapping and one thread
 *   FORK          a new process starts with a copy of its parent's
 *                 mappings and the name of the thread that forked it
 *   EXIT          nothing: samples may still follow
 *
 * Nothing is thrown away: each mapping and each name keeps the time from
 * which it was in use, so a sample looks its addresses up in its own
 * process's mappings, and its thread's name, as they were at the
 * sample's time, whatever the order in which the samples come. No other
 * process's mappings are ever used, except for samples that carry no pid.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "machine.h"

enum sb_kind { SB_MMAP, SB_COMM, SB_FORK };

/* One side-band record, as much of it as the model needs. */
struct pc_sb {
	uint64_t time, seq;
	uint64_t start, len, pgoff;
	uint32_t pid, ppid, tid, ptid;
	enum sb_kind kind;
	bool exec;
	struct pc_dso *dso;
	const char *comm;
};

/*
 * A thread's name from TIME on. A new process (FORK) or program (exec)
 * starts over: names given before it are no longer any thread's.
 */
struct pc_name {
	uint64_t time;
	uint32_t tid;
	bool start;
	const char *comm;	/* in the machine's string pool, or NULL */
};

/*
 * A process. Its live maps are the ones in use from their start on; a
 * map that a newer mapping, an exec or a new process with its pid ended
 * is retired to DEAD, where only a sample older than that end looks.
 */
struct pc_proc {
	uint32_t pid;
	struct pc_map *maps;	/* live */
	size_t nr, cap;
	struct pc_map *dead;	/* retired */
	size_t nr_dead, cap_dead;
	uint64_t changed;	/* the time of the latest change to them */
	struct pc_name *names;	/* in time order */
	size_t nr_names, cap_names;
};

/* The strings of the names, allocated in blocks, freed with the machine. */
struct pc_strings {
	struct pc_strings *next;
	size_t used, size;
	char buf[];
};

void pc_machine_init(struct pc_machine *mc)
{
	memset(mc, 0, sizeof(*mc));
}

void pc_machine_free(struct pc_machine *mc)
{
	struct pc_dso *d, *n;
	size_t i;

	for (d = mc->dsos; d; d = n) {
		n = d->next;
		pc_dso_free(d);
	}
	for (i = 0; i < mc->nr_procs; i++) {
		free(mc->procs[i].maps);
		free(mc->procs[i].dead);
		free(mc->procs[i].names);
	}
	while (mc->strings) {
		struct pc_strings *next = mc->strings->next;

		free(mc->strings);
		mc->strings = next;
	}
	while (mc->fbids) {
		struct pc_fbid *f = mc->fbids->next;

		free(mc->fbids);
		mc->fbids = f;
	}
	free(mc->procs);
	pc_index_free(&mc->pids);
	free(mc->sb);
	memset(mc, 0, sizeof(*mc));
}

/*
 * The build id the header's HEADER_BUILD_ID feature gives the file D
 * names, when no MMAP2 gave it one: an MMAP2's comes first.
 */
static void feature_build_id(struct pc_machine *mc, struct pc_dso *d)
{
	const struct pc_fbid *f;

	for (f = mc->fbids; f; f = f->next)
		if (!strcmp(f->name, d->name) && !d->build_id_size) {
			memcpy(d->build_id, f->id, f->size);
			d->build_id_size = f->size;
			d->build_id_feature = true;
			return;
		}
}

static struct pc_dso *dso_get(struct pc_machine *mc, const char *name)
{
	struct pc_dso *d;

	for (d = mc->dsos; d; d = d->next)
		if (!strcmp(d->name, name))
			return d;
	d = pc_dso_new(name);
	if (!d)
		return NULL;
	d->next = mc->dsos;
	mc->dsos = d;
	feature_build_id(mc, d);
	return d;
}

/* S, kept until the machine is freed (names repeat: the last is shared). */
static const char *string_keep(struct pc_machine *mc, const char *s)
{
	struct pc_strings *b = mc->strings;
	size_t len = strlen(s) + 1;

	if (mc->last_string && !strcmp(mc->last_string, s))
		return mc->last_string;
	if (!b || b->size - b->used < len) {
		size_t size = len > 4096 ? len : 4096;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = size;
		b->next = mc->strings;
		mc->strings = b;
	}
	memcpy(b->buf + b->used, s, len);
	mc->last_string = b->buf + b->used;
	b->used += len;
	return mc->last_string;
}

static bool proc_is(const void *ctx, size_t pos, const void *key)
{
	return ((const struct pc_proc *)ctx)[pos].pid == *(const uint32_t *)key;
}

static struct pc_proc *proc_find(const struct pc_machine *mc, uint32_t pid)
{
	size_t i = pc_index_find(&mc->pids, pc_hash(pid, 0, 0), proc_is,
				 mc->procs, &pid);

	return i == PC_INDEX_NONE ? NULL : &mc->procs[i];
}

static struct pc_proc *proc_get(struct pc_machine *mc, uint32_t pid)
{
	bool added;
	size_t i = pc_index_get(&mc->pids, (void **)&mc->procs, &mc->nr_procs,
				&mc->cap_procs, sizeof(*mc->procs),
				pc_hash(pid, 0, 0), proc_is, &pid, &added);

	if (i == PC_INDEX_NONE)
		return NULL;
	mc->procs[i].pid = pid;
	return &mc->procs[i];
}

static struct pc_map *map_add(struct pc_proc *p)
{
	struct pc_map *v = pc_grow(p->maps, &p->cap, p->nr, sizeof(*p->maps), 16);

	if (!v)
		return NULL;
	p->maps = v;
	return &p->maps[p->nr++];
}

/* Retire live map I of P at time T (the last live map takes its place). */
static int map_retire(struct pc_proc *p, size_t i, uint64_t t)
{
	struct pc_map *v = pc_grow(p->dead, &p->cap_dead, p->nr_dead,
				   sizeof(*p->dead), 16);

	if (!v)
		return -1;
	p->dead = v;
	v[p->nr_dead] = p->maps[i];
	v[p->nr_dead++].t_end = t;
	p->maps[i] = p->maps[--p->nr];
	return 0;
}

static int name_add(struct pc_proc *p, uint64_t time, uint32_t tid,
		    bool start, const char *comm)
{
	struct pc_name *n;

	n = pc_grow(p->names, &p->cap_names, p->nr_names, sizeof(*p->names), 4);
	if (!n)
		return -1;
	p->names = n;
	n = &p->names[p->nr_names++];
	n->time = time;
	n->tid = tid;
	n->start = start;
	n->comm = comm;
	return 0;
}

/*
 * The name of thread TID of P at TIME: its own newest since the process
 * or its program started, else the main thread's (a thread that was
 * never renamed has the name of the program that created it). A sample
 * older than every name gets the oldest: it can only be the first.
 */
static const char *proc_name(const struct pc_proc *p, uint32_t tid,
			     uint64_t time)
{
	size_t i, main = SIZE_MAX;

	for (i = p->nr_names; i-- > 0;) {
		const struct pc_name *n = &p->names[i];

		if (n->time > time)
			continue;
		if (n->tid == tid)
			return n->comm;
		if (n->tid == p->pid && main == SIZE_MAX)
			main = i;
		if (n->start)
			break;
	}
	if (main != SIZE_MAX)
		return p->names[main].comm;
	return p->nr_names ? p->names[0].comm : NULL;
}

/* A side-band record of KIND, process PID and time TIME; one more in *NR. */
static struct pc_sb *sb_add(struct pc_machine *mc, enum sb_kind kind,
			    uint32_t pid, uint64_t time, uint64_t *nr)
{
	struct pc_sb *e;

	mc->sorted = false;
	e = pc_grow(mc->sb, &mc->cap_sb, mc->nr_sb, sizeof(*mc->sb), 256);
	if (!e)
		return NULL;
	mc->sb = e;
	e = &mc->sb[mc->nr_sb++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->pid = pid;
	e->time = time;
	e->seq = mc->sb_seq++;
	*nr += 1;
	return e;
}

int pc_machine_mmap(struct pc_machine *mc, const struct pc_mmap *m)
{
	struct pc_sb *e;

	/* Data mappings (perf record -d) hold no branch. */
	if (!(m->prot & PROT_EXEC) || !m->len)
		return 0;
	e = sb_add(mc, SB_MMAP, m->pid, m->time, &mc->nr_mmaps);
	if (e)
		e->dso = dso_get(mc, m->filename);
	if (!e || !e->dso)
		return -1;
	e->start = m->start;
	e->len = m->len;
	e->pgoff = m->pgoff;
	if (m->build_id_size &&
	    (!e->dso->build_id_size || e->dso->build_id_feature)) {
		memcpy(e->dso->build_id, m->build_id, m->build_id_size);
		e->dso->build_id_size = m->build_id_size;
		e->dso->build_id_feature = false;
	}
	return 0;
}

int pc_machine_comm(struct pc_machine *mc, const struct pc_comm *c)
{
	uint64_t renames = 0;
	struct pc_sb *e = sb_add(mc, SB_COMM, c->pid, c->time,
				 c->exec ? &mc->nr_execs : &renames);

	if (!e)
		return -1;
	e->tid = c->tid;
	e->exec = c->exec;
	e->comm = string_keep(mc, c->comm);
	return e->comm ? 0 : -1;
}

int pc_machine_task(struct pc_machine *mc, const struct pc_task *t)
{
	struct pc_sb *e;

	/* A new thread shares its process's maps; an exit changes nothing. */
	if (t->exit || t->pid == t->ppid)
		return 0;
	e = sb_add(mc, SB_FORK, t->pid, t->time, &mc->nr_forks);
	if (e) {
		e->ppid = t->ppid;
		e->ptid = t->ptid;
	}
	return e ? 0 : -1;
}

int pc_machine_build_id(struct pc_machine *mc, const struct pc_mmap *b)
{
	struct pc_fbid *f;
	struct pc_dso *d;

	if (!b->filename || !b->build_id_size)
		return 0;
	f = malloc(sizeof(*f) + strlen(b->filename) + 1);
	if (!f)
		return -1;
	strcpy(f->name, b->filename);
	memcpy(f->id, b->build_id, b->build_id_size);
	f->size = b->build_id_size;
	f->next = mc->fbids;
	mc->fbids = f;
	for (d = mc->dsos; d; d = d->next)
		feature_build_id(mc, d);
	return 0;
}

static int cmp_sb(const void *a, const void *b)
{
	const struct pc_sb *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* End, at time T, the live maps of P that overlap [START, END). */
static int maps_cut(struct pc_proc *p, uint64_t start, uint64_t end,
		    uint64_t t)
{
	size_t i = 0;

	if (t > p->changed)
		p->changed = t;
	while (i < p->nr) {
		struct pc_map old = p->maps[i], *m;

		if (old.end <= start || old.start >= end) {
			i++;
			continue;
		}
		if (map_retire(p, i, t))
			return -1;
		/* What the new mapping leaves of the old one stays in use. */
		if (old.start < start) {
			m = map_add(p);
			if (!m)
				return -1;
			*m = old;
			m->end = start;
			m->t_begin = t;
		}
		if (old.end > end) {
			m = map_add(p);
			if (!m)
				return -1;
			*m = old;
			m->pgoff += end - old.start;
			m->start = end;
			m->t_begin = t;
		}
	}
	return 0;
}

static int apply(struct pc_machine *mc, const struct pc_sb *e)
{
	struct pc_proc *p, *parent;
	const char *comm;
	struct pc_map *m;
	size_t i, nr;

	/* Every map pointer and region kept is stale now. */
	mc->gen++;
	p = proc_get(mc, e->pid);
	if (!p)
		return -1;
	switch (e->kind) {
	case SB_MMAP:
		if (maps_cut(p, e->start, e->start + e->len, e->time))
			return -1;
		m = map_add(p);
		if (!m)
			return -1;
		m->pid = e->pid;
		m->start = e->start;
		m->end = e->start + e->len;
		m->pgoff = e->pgoff;
		m->t_begin = e->time;
		m->t_end = UINT64_MAX;
		m->dso = e->dso;
		return 0;
	case SB_COMM:
		if (name_add(p, e->time, e->tid, e->exec, e->comm))
			return -1;
		if (!e->exec)
			return 0;
		return maps_cut(p, 0, UINT64_MAX, e->time);
	case SB_FORK:
		/* A reused pid: the old process's maps end here. */
		if (maps_cut(p, 0, UINT64_MAX, e->time))
			return -1;
		parent = proc_find(mc, e->ppid);
		/* Its forking thread's name, or none known: not the old one's. */
		comm = parent ? proc_name(parent, e->ptid, e->time) : NULL;
		if (name_add(p, e->time, e->pid, true, comm))
			return -1;
		if (!parent)
			return 0;
		nr = parent->nr;
		for (i = 0; i < nr; i++) {
			m = map_add(p);
			if (!m)
				return -1;
			*m = parent->maps[i];	/* P != PARENT: no move */
			m->pid = e->pid;
			m->t_begin = e->time;
		}
		return 0;
	}
	return 0;
}

/*
 * Apply the side-band records up to time UPTO, in time order (file order
 * among equal times). One that comes later than records already applied
 * (a recording that breaks perf's rounds) takes effect from the newest
 * applied time on, as perf, which processes it when it comes, has it.
 */
int pc_machine_flush(struct pc_machine *mc, uint64_t upto)
{
	size_t n;

	if (mc->nr_sb > 1 && !mc->sorted)
		qsort(mc->sb, mc->nr_sb, sizeof(*mc->sb), cmp_sb);
	mc->sorted = true;
	for (n = 0; n < mc->nr_sb && mc->sb[n].time <= upto; n++) {
		struct pc_sb *e = &mc->sb[n];

		if (e->time < mc->applied)
			e->time = mc->applied;
		mc->applied = e->time;
		if (apply(mc, e))
			return -1;
	}
	if (n) {
		mc->nr_sb -= n;
		memmove(mc->sb, mc->sb + n, mc->nr_sb * sizeof(*mc->sb));
	}
	return 0;
}

int pc_machine_finish(struct pc_machine *mc)
{
	if (pc_machine_flush(mc, UINT64_MAX))
		return -1;
	free(mc->sb);
	mc->sb = NULL;
	mc->nr_sb = mc->cap_sb = 0;
	return 0;
}

size_t pc_machine_count_maps(const struct pc_machine *mc,
			     const struct pc_dso *dso)
{
	size_t i, j, n = 0;

	for (i = 0; i < mc->nr_procs; i++) {
		const struct pc_proc *p = &mc->procs[i];

		for (j = 0; j < p->nr; j++)
			n += p->maps[j].dso == dso;
		for (j = 0; j < p->nr_dead; j++)
			n += p->dead[j].dso == dso &&
			     p->dead[j].t_begin != p->dead[j].t_end;
	}
	return n;
}

static inline bool covers(const struct pc_map *m, uint64_t time, uint64_t addr)
{
	return addr - m->start < m->end - m->start &&
	       time >= m->t_begin && time < m->t_end;
}

/*
 * The map of P in use at TIME that holds ADDR: at most one is. From the
 * time of its latest change on, only live maps are in use.
 */
static const struct pc_map *proc_lookup(const struct pc_proc *p,
					uint64_t time, uint64_t addr)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		if (covers(&p->maps[i], time, addr))
			return &p->maps[i];
	if (time >= p->changed)
		return NULL;
	for (i = 0; i < p->nr_dead; i++)
		if (covers(&p->dead[i], time, addr))
			return &p->dead[i];
	return NULL;
}

/*
 * The gap around ADDR between the live maps of P, into [*LO, *HI):
 * where, from P's latest change on, no map of P is.
 */
static void live_gap(const struct pc_proc *p, uint64_t addr, uint64_t *lo,
		     uint64_t *hi)
{
	size_t i;

	for (i = 0; p && i < p->nr; i++) {
		if (p->maps[i].end <= addr && p->maps[i].end > *lo)
			*lo = p->maps[i].end;
		if (p->maps[i].start > addr && p->maps[i].start < *hi)
			*hi = p->maps[i].start;
	}
}

/* What the lookups of the region hold. */
static void region_set(struct pc_region *r, const struct pc_machine *mc,
		       uint32_t pid, const struct pc_map *m, uint64_t lo,
		       uint64_t hi, uint64_t t_lo, uint64_t t_hi)
{
	r->map = m;
	r->pid = pid;
	r->gen = mc->gen;
	r->lo = lo;
	r->hi = hi;
	r->t_lo = t_lo;
	r->t_hi = t_hi;
}

const struct pc_map *pc_machine_region(struct pc_machine *mc, uint32_t pid,
				       uint64_t time, uint64_t addr,
				       struct pc_region *r)
{
	const struct pc_proc *p = NULL, *k = NULL;
	const struct pc_map *m = NULL;
	uint64_t lo = 0, hi = UINT64_MAX, since;
	size_t i;

	if (pc_region_has(&mc->hit, mc, pid, time, addr)) {
		*r = mc->hit;
		return r->map;
	}
	if (pc_region_has(&mc->miss, mc, pid, time, addr)) {
		*r = mc->miss;
		return NULL;
	}
	/* Only this address, unless more is known below. */
	region_set(r, mc, pid, NULL, addr, addr + 1, time, time + 1);
	if (pid == PC_PID_ANY) {
		for (i = 0; i < mc->nr_procs && !m; i++)
			m = proc_lookup(&mc->procs[i], time, addr);
		r->map = m;
		return m;
	}
	p = proc_find(mc, pid);
	if (p)
		m = proc_lookup(p, time, addr);
	if (m) {
		/* At most one map of a process holds an address at a time. */
		region_set(r, mc, pid, m, m->start, m->end, m->t_begin, m->t_end);
		mc->hit = *r;
		return m;
	}
	k = pid != PC_PID_KERNEL ? proc_find(mc, PC_PID_KERNEL) : NULL;
	if (k)
		m = proc_lookup(k, time, addr);
	/* From P's latest change on, its live maps are all it has. */
	if (p && time < p->changed) {
		r->map = m;
		return m;
	}
	since = p ? p->changed : 0;
	live_gap(p, addr, &lo, &hi);
	if (m) {
		/* The kernel's, where the process has none of its own. */
		region_set(r, mc, pid, m, m->start > lo ? m->start : lo,
			   m->end < hi ? m->end : hi,
			   m->t_begin > since ? m->t_begin : since, m->t_end);
		mc->hit = *r;
		return m;
	}
	if (k && time < k->changed)
		return NULL;
	live_gap(k, addr, &lo, &hi);
	if (k && k->changed > since)
		since = k->changed;
	region_set(r, mc, pid, NULL, lo, hi, since, UINT64_MAX);
	mc->miss = *r;
	return NULL;
}

const struct pc_map *pc_machine_find(struct pc_machine *mc, uint32_t pid,
				     uint64_t time, uint64_t addr)
{
	struct pc_region r;

	return pc_machine_region(mc, pid, time, addr, &r);
}

const char *pc_machine_comm_at(struct pc_machine *mc, uint32_t pid,
			       uint32_t tid, uint64_t time)
{
	const struct pc_proc *p = proc_find(mc, pid);

	return p ? proc_name(p, tid, time) : NULL;
}

bool pc_resolve_map(struct pc_machine *mc, uint32_t pid, uint64_t time,
		    uint64_t addr, struct pc_loc *loc)
{
	memset(loc, 0, sizeof(*loc));
	loc->map = pc_machine_find(mc, pid, time, addr);
	if (!loc->map)
		return false;
	loc->dso = loc->map->dso;
	loc->off = addr - loc->map->start + loc->map->pgoff;
	return true;
}

bool pc_resolve(struct pc_machine *mc, uint32_t pid, uint64_t time,
		uint64_t addr, struct pc_loc *loc)
{
	if (!pc_resolve_map(mc, pid, time, addr, loc))
		return false;
	loc->in_image = pc_dso_vaddr(loc->dso, loc->off, &loc->vaddr);
	if (!loc->in_image)
		loc->vaddr = loc->off;
	loc->sym = pc_dso_sym(loc->dso, loc->vaddr);
	return true;
}

uint32_t pc_sample_pid(const struct pc_sample *s)
{
	return s->attr && (s->attr->sample_type & PERF_SAMPLE_TID) ?
	       s->pid : PC_PID_ANY;
}

uint64_t pc_sample_time(const struct pc_sample *s)
{
	return s->attr && (s->attr->sample_type & PERF_SAMPLE_TIME) ?
	       s->time : PC_TIME_END;
}

/*
 * A walk of a recording for a command: the machine takes the side-band
 * records, then the command's handlers get them and its samples.
 */
struct walk {
	struct pc_machine *mc;
	const struct pc_handlers *h;
	void *ctx;
	bool ordered;		/* samples wait for their side-band records */
	uint64_t limit;		/* the side-band records up to it are in */
};

/*
 * A side-band record of time T came: one that is no younger than what
 * the walk handed out already came late (the recording breaks perf's
 * rounds) and takes effect at once, as in perf, which processes it when
 * it comes.
 */
static int w_came(struct walk *w, uint64_t t)
{
	return w->ordered && t <= w->limit ? pc_machine_flush(w->mc, w->limit) : 0;
}

static int w_sample(void *ctx, const struct pc_sample *s)
{
	struct walk *w = ctx;

	return w->h->sample(w->ctx, s);
}

/*
 * A side-band record goes to the machine (when the walk has one), then
 * to the command's handler NAME (when the walk has one and it is set).
 */
#define WALK_SIDE_BAND(name, type, take, time)				\
static int w_##name(void *ctx, const struct type *x)			\
{									\
	struct walk *w = ctx;						\
									\
	if (w->mc && (take(w->mc, x) || w_came(w, time)))		\
		return -1;						\
	return w->h && w->h->name ? w->h->name(w->ctx, x) : 0;		\
}

WALK_SIDE_BAND(mmap, pc_mmap, pc_machine_mmap, x->time)
WALK_SIDE_BAND(comm, pc_comm, pc_machine_comm, x->time)
WALK_SIDE_BAND(task, pc_task, pc_machine_task, x->time)
/* the header's: never late */
WALK_SIDE_BAND(build_id, pc_mmap, pc_machine_build_id, UINT64_MAX)

static int w_attr(void *ctx, const struct perf_event_attr *a,
		  const uint64_t *ids, size_t nr)
{
	struct walk *w = ctx;

	return w->h->attr ? w->h->attr(w->ctx, a, ids, nr) : 0;
}

static int w_lost(void *ctx, const struct pc_lost *l)
{
	struct walk *w = ctx;

	return w->h->lost ? w->h->lost(w->ctx, l) : 0;
}

static int w_flush(void *ctx, uint64_t upto)
{
	struct walk *w = ctx;

	w->limit = upto;
	return pc_machine_flush(w->mc, upto);
}

static int w_end(void *ctx)
{
	struct walk *w = ctx;

	if (w->mc && pc_machine_finish(w->mc))
		return -1;
	return w->h && w->h->end ? w->h->end(w->ctx) : 0;
}

/*
 * One pass in perf's order (FINISHED_ROUND); a recording without rounds
 * that would hold too much back is read in two instead, the first for
 * the side-band records only (samples are not even decoded), the second
 * for the command. The command's handlers see the other records in file
 * order either way.
 */
int pc_machine_read(struct pc_machine *mc, const char *file,
		    const struct pc_handlers *h, void *ctx,
		    struct pc_error *err)
{
	struct walk w = { .mc = mc, .h = h, .ctx = ctx, .ordered = true };
	struct walk sb_only = { .mc = mc };
	struct walk cmd_only = { .h = h, .ctx = ctx };
	const struct pc_handlers one = {
		.sample = h->sample ? w_sample : NULL, .mmap = w_mmap,
		.comm = w_comm, .attr = w_attr, .build_id = w_build_id,
		.task = w_task, .lost = w_lost, .end = w_end, .flush = w_flush,
	};
	const struct pc_handlers sb = {
		.mmap = w_mmap, .comm = w_comm, .task = w_task,
		.build_id = w_build_id, .end = w_end,
	};
	const struct pc_handlers cmd = {
		.sample = h->sample ? w_sample : NULL, .mmap = w_mmap,
		.comm = w_comm, .attr = w_attr, .build_id = w_build_id,
		.task = w_task, .lost = w_lost, .end = w_end,
	};
	const struct pc_handlers *hs[2] = { &sb, &cmd };
	void *ctxs[2] = { &sb_only, &cmd_only };
	int ret;

	memset(err, 0, sizeof(*err));
	ret = pc_read_file(file, &one, &w, err);
	if (ret == PC_READ_UNORDERED) {
		pc_machine_free(mc);
		pc_machine_init(mc);
		if (h->restart)
			h->restart(ctx);
		memset(err, 0, sizeof(*err));
		ret = pc_read_file_passes(file, 2, hs, ctxs, err);
	}
	if (ret == -1 && !err->msg[0])
		return pc_err(err, 0, "out of memory");
	return ret;
}

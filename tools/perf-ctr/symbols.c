// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: address spaces (from MMAP/MMAP2 records) and ELF symbols.
 *
 * Maps are kept per pid. A sample whose pid has no map at all (a child
 * that forked without exec: perf-ctr does not follow FORK records) looks
 * in every pid's maps. Symbols come from .symtab, else .dynsym, of the
 * mapped file under --symfs, loaded once per file.
 */
#include <fcntl.h>
#ifndef PC_NO_ELF
#include <gelf.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf-ctr.h"
#include "symbols.h"

static int cmp_map(const void *a, const void *b)
{
	const struct pc_map *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* Same start: the later record replaces the earlier one. */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct pc_dso *dso_get(struct pc_maps *ms, const char *name)
{
	struct pc_dso *d;

	for (d = ms->dsos; d; d = d->next)
		if (!strcmp(d->name, name))
			return d;
	d = calloc(1, sizeof(*d) + strlen(name) + 1);
	if (!d)
		return NULL;
	strcpy(d->name, name);
	d->next = ms->dsos;
	ms->dsos = d;
	return d;
}

int pc_maps_add(struct pc_maps *ms, const struct pc_mmap *m)
{
	struct pc_map *e;

	if (ms->nr == ms->cap) {
		size_t cap = ms->cap ? ms->cap * 2 : 64;
		void *p = realloc(ms->maps, cap * sizeof(*ms->maps));

		if (!p)
			return -1;
		ms->maps = p;
		ms->cap = cap;
	}
	e = &ms->maps[ms->nr];
	memset(e, 0, sizeof(*e));
	e->pid = m->pid;
	e->start = m->start;
	e->end = m->start + m->len;
	e->pgoff = m->pgoff;
	e->seq = ms->nr;
	e->dso = dso_get(ms, m->filename);
	if (!e->dso)
		return -1;
	if (m->build_id_size && !e->dso->build_id_size) {
		memcpy(e->dso->build_id, m->build_id, m->build_id_size);
		e->dso->build_id_size = m->build_id_size;
	}
	ms->nr++;
	ms->sorted = false;
	return 0;
}

static const struct pc_map *find_in(const struct pc_maps *ms, size_t lo,
				    size_t hi, uint64_t addr)
{
	const struct pc_map *best = NULL;

	/* Last map of the range that starts at or below ADDR. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ms->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo) {
		best = &ms->maps[lo - 1];
		if (addr >= best->end)
			best = NULL;
	}
	return best;
}

const struct pc_map *pc_maps_find(struct pc_maps *ms, uint32_t pid, uint64_t addr)
{
	size_t lo = 0, hi, i;
	const struct pc_map *m;

	if (!ms->nr)
		return NULL;
	if (!ms->sorted) {
		qsort(ms->maps, ms->nr, sizeof(*ms->maps), cmp_map);
		ms->sorted = true;
	}
	/* The pid's run of maps. */
	hi = ms->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ms->maps[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hi = lo; hi < ms->nr && ms->maps[hi].pid == pid; hi++)
		;
	if (hi > lo) {
		m = find_in(ms, lo, hi, addr);
		if (m)
			return m;
		/* The kernel's maps belong to pid -1. */
		if (pid != (uint32_t)-1)
			return pc_maps_find(ms, (uint32_t)-1, addr);
		return NULL;
	}
	/* No map for this pid: any process's. */
	for (i = 0; i < ms->nr; i++)
		if (addr >= ms->maps[i].start && addr < ms->maps[i].end)
			return &ms->maps[i];
	return NULL;
}

#ifndef PC_NO_ELF
static int cmp_sym(const void *a, const void *b)
{
	const struct pc_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* Prefer global over local and weak names at the same address. */
	return y->global - x->global;
}

/*
 * Functions, and the global labels of hand-written assembly, which carry
 * no type: a global NOTYPE symbol in an executable section names code.
 */
static bool code_sym(Elf *e, const GElf_Sym *s)
{
	GElf_Shdr sh;

	if (GELF_ST_TYPE(s->st_info) == STT_FUNC)
		return true;
	if (GELF_ST_TYPE(s->st_info) != STT_NOTYPE ||
	    GELF_ST_BIND(s->st_info) != STB_GLOBAL)
		return false;
	return gelf_getshdr(elf_getscn(e, s->st_shndx), &sh) &&
	       (sh.sh_flags & SHF_EXECINSTR);
}

static void load_syms_from(struct pc_dso *d, Elf *e, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0, k = 0;
	struct pc_sym *syms;

	if (!data || !n)
		return;
	syms = calloc(n, sizeof(*syms));
	if (!syms)
		return;
	for (i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(data, i, &s) || s.st_shndx == SHN_UNDEF ||
		    s.st_shndx >= SHN_LORESERVE || !code_sym(e, &s))
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		syms[k].start = s.st_value;
		syms[k].end = s.st_value + s.st_size;
		syms[k].global = GELF_ST_BIND(s.st_info) == STB_GLOBAL;
		syms[k].name = strdup(name);
		if (syms[k].name)
			k++;
	}
	qsort(syms, k, sizeof(*syms), cmp_sym);
	/* Keep one symbol per address; size-0 symbols reach the next one. */
	n = 0;
	for (i = 0; i < k; i++) {
		if (n && syms[n - 1].start == syms[i].start) {
			free(syms[i].name);
			continue;
		}
		syms[n++] = syms[i];
	}
	for (i = 0; i < n; i++)
		if (syms[i].end == syms[i].start)
			syms[i].end = i + 1 < n ? syms[i + 1].start : syms[i].start + 1;
	d->syms = syms;
	d->nr_syms = n;
}

static void dso_load(struct pc_dso *d)
{
	char path[4096];
	Elf_Scn *scn = NULL, *dyn = NULL, *tab = NULL;
	GElf_Shdr sh, dsh, tsh;
	GElf_Ehdr eh;
	size_t i, nph;
	Elf *e;

	d->loaded = true;
	if (d->name[0] != '/')
		return;		/* [vdso], [kernel.kallsyms], //anon ... */
	snprintf(path, sizeof(path), "%s%s", pc_symfs, d->name);
	d->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0)
		return;
	elf_version(EV_CURRENT);
	e = elf_begin(d->fd, ELF_C_READ_MMAP, NULL);
	if (!e || !gelf_getehdr(e, &eh)) {
		if (e)
			elf_end(e);
		close(d->fd);
		d->fd = -1;
		return;
	}
	d->elf = e;
	d->et_dyn = eh.e_type == ET_DYN;
	d->machine = eh.e_machine;
	if (!elf_getphdrnum(e, &nph)) {
		for (i = 0; i < nph && d->nr_loads < PC_MAX_LOADS; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD)
				continue;
			d->loads[d->nr_loads].vaddr = ph.p_vaddr;
			d->loads[d->nr_loads].offset = ph.p_offset;
			d->loads[d->nr_loads++].size = ph.p_filesz;
		}
	}
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			tab = scn;
			tsh = sh;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dyn = scn;
			dsh = sh;
		}
	}
	if (tab)
		load_syms_from(d, e, tab, &tsh);
	else if (dyn)
		load_syms_from(d, e, dyn, &dsh);
}
#else
/* The minimal cross build has no libelf: addresses stay unsymbolized. */
static void dso_load(struct pc_dso *d)
{
	d->loaded = true;
}
#endif

uint64_t pc_map_to_dso(const struct pc_map *m, uint64_t addr)
{
	struct pc_dso *d = m->dso;
	uint64_t off = addr - m->start + m->pgoff;
	int i;

	if (!d->loaded)
		dso_load(d);
	/* File offset to link-time address, through the segment holding it. */
	for (i = 0; i < d->nr_loads; i++)
		if (off >= d->loads[i].offset &&
		    off < d->loads[i].offset + d->loads[i].size)
			return off - d->loads[i].offset + d->loads[i].vaddr;
	return off;
}

const struct pc_sym *pc_dso_sym(struct pc_dso *d, uint64_t vaddr)
{
	size_t lo = 0, hi;

	if (!d->loaded)
		dso_load(d);
	hi = d->nr_syms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && vaddr < d->syms[lo - 1].end)
		return &d->syms[lo - 1];
	return NULL;
}

bool pc_resolve(struct pc_maps *ms, uint32_t pid, uint64_t addr,
		struct pc_loc *loc)
{
	memset(loc, 0, sizeof(*loc));
	loc->map = pc_maps_find(ms, pid, addr);
	if (!loc->map)
		return false;
	loc->dso = loc->map->dso;
	loc->vaddr = pc_map_to_dso(loc->map, addr);
	loc->sym = pc_dso_sym(loc->dso, loc->vaddr);
	return true;
}

#ifndef PC_NO_ELF
#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

uint8_t pc_elf_build_id(void *elf, uint8_t id[20])
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;
		uint8_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && off < d->d_size &&
		       (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + noff, "GNU", 4))
				continue;
			n = nh.n_descsz > 20 ? 20 : nh.n_descsz;
			memcpy(id, (char *)d->d_buf + doff, n);
			return n;
		}
	}
	return 0;
}
#endif

void pc_maps_free(struct pc_maps *ms)
{
	struct pc_dso *d, *n;
	size_t i;

	for (d = ms->dsos; d; d = n) {
		n = d->next;
		for (i = 0; i < d->nr_syms; i++)
			free(d->syms[i].name);
		free(d->syms);
		if (d->cleanup)
			d->cleanup(d);
#ifndef PC_NO_ELF
		if (d->elf)
			elf_end(d->elf);
#endif
		if (d->fd > 0)
			close(d->fd);
		free(d);
	}
	free(ms->maps);
	memset(ms, 0, sizeof(*ms));
}

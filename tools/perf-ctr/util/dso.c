// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: the one model of a binary (dso.h). A DSO is loaded once, on
 * first use: its ELF header, its PT_LOAD segments, its executable
 * sections, its build id, its symbols (.symtab, else its separate debug
 * file's, else .dynsym) and where its separate debug file is. Its DWARF
 * is opened at the first lookup. machine.c maps a process's addresses
 * to a DSO and a file offset; everything else about the file is here.
 */
#include <fcntl.h>
#ifndef PC_NO_ELF
#include <gelf.h>
#include <zlib.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf-ctr.h"
#include "dso.h"
#include "dwarf-info.h"
#include "probe.h"
#include "search.h"


struct pc_dso *pc_dso_new(const char *name)
{
	struct pc_dso *d = calloc(1, sizeof(*d) + strlen(name) + 1);

	if (d) {
		strcpy(d->name, name);
		d->fd = -1;
		d->dbg_fd = -1;
	}
	return d;
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

/*
 * The symbols that say D is a kernel image, and where its _text is, and
 * that its discriminators are flow-sensitive.
 */
static void kernel_sym(struct pc_dso *d, const char *name, uint64_t value)
{
	if (!strcmp(name, "linux_banner")) {
		d->linux_banner = true;
	} else if (!strcmp(name, "__llvm_fs_discriminator__")) {
		/* what llvm-profgen takes for flow-sensitive discriminators */
		d->llvm_fs_discr = true;
	} else if (!strcmp(name, "_text")) {
		d->ktext = value;
		d->ktext_sym = 2;
	} else if (!strcmp(name, "_stext") && d->ktext_sym < 2) {
		d->ktext = value;
		d->ktext_sym = 1;
	}
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

		if (!gelf_getsym(data, i, &s) || s.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (name[0] == '_' || name[0] == 'l')
			kernel_sym(d, name, s.st_value);
		if (s.st_shndx >= SHN_LORESERVE || !code_sym(e, &s))
			continue;
		syms[k].start = s.st_value;
		syms[k].end = s.st_value + s.st_size;
		syms[k].global = GELF_ST_BIND(s.st_info) == STB_GLOBAL;
		syms[k].sized = s.st_size != 0;
		syms[k].func = GELF_ST_TYPE(s.st_info) == STT_FUNC;
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

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

static uint8_t elf_build_id(Elf *elf, uint8_t id[20])
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

/* A section of E by name, or NULL. */
static Elf_Scn *scn_named(Elf *e, const char *name, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, out))
			continue;
		n = elf_strptr(e, shstrndx, out->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

bool pc_elf_has_debug(void *elf)
{
	GElf_Shdr sh;

	return scn_named(elf, ".debug_info", &sh) && sh.sh_type != SHT_NOBITS;
}

static uint32_t file_crc(int fd)
{
	unsigned char buf[65536];
	uint32_t crc = crc32(0, NULL, 0);
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)n);
	return crc;
}

/*
 * Is PATH the debug file of the binary with build id ID (or, without one,
 * the file .gnu_debuglink names with CRC)? It must hold DWARF.
 */
static bool debug_file_ok(const char *path, const uint8_t *id, uint8_t id_size,
			  bool check_crc, uint32_t crc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t did[20];
	bool ok = false;
	Elf *e;

	if (fd < 0)
		return false;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && pc_elf_has_debug(e)) {
		uint8_t n = elf_build_id(e, did);

		if (id_size && n)
			ok = n == id_size && !memcmp(did, id, n);
		else if (check_crc)
			ok = lseek(fd, 0, SEEK_SET) == 0 && file_crc(fd) == crc;
		else
			ok = true;
	}
	if (e)
		elf_end(e);
	close(fd);
	return ok;
}

/*
 * The separate debug file of D, into OUT: in SYMFS/usr/lib/debug/.build-id/,
 * then where its .gnu_debuglink says (beside it, in .debug/ beside it,
 * under SYMFS/usr/lib/debug/). 0 if found, -1 if not.
 */
static int find_debug(const struct pc_dso *d, const char *path,
		      const char *symfs, char *out, size_t outlen)
{
	Elf *elf = d->elf;
	const uint8_t *id = d->elf_build_id;
	uint8_t n = d->elf_build_id_size;
	char dir[4096], hex[41];
	const char *slash = strrchr(path, '/'), *rel;
	size_t sl = strlen(symfs);
	GElf_Shdr sh;
	Elf_Scn *scn;
	int i;

	/* /usr/lib/debug/.build-id/ab/cdef....debug, the distributions' way */
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	if (n >= 2) {
		snprintf(out, outlen, "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
			 symfs, hex, hex + 2);
		if (debug_file_ok(out, id, n, false, 0))
			return 0;
	}
	/* .gnu_debuglink: a name and a CRC, looked for beside the binary */
	scn = scn_named(elf, ".gnu_debuglink", &sh);
	if (scn) {
		static const char *const fmts[] = {
			"%s%s/%.*s", "%s%s/.debug/%.*s", "%s/usr/lib/debug%s/%.*s",
		};
		Elf_Data *d = elf_getdata(scn, NULL);
		const char *name = d ? d->d_buf : NULL;
		size_t nl = name ? strnlen(name, d->d_size) : 0;
		uint32_t crc;

		/* the name, NUL, padding to 4 bytes, then the CRC */
		if (!nl || ((nl + 4) & ~(size_t)3) + 4 > d->d_size)
			return -1;
		memcpy(&crc, (const char *)d->d_buf + ((nl + 4) & ~(size_t)3), 4);
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1,
			 slash ? path : ".");
		/* the binary's own directory, inside the symfs if it is in it */
		rel = sl && !strncmp(dir, symfs, sl) ? dir + sl : dir;
		for (i = 0; i < 3; i++) {
			snprintf(out, outlen, fmts[i], i < 2 ? "" : symfs,
				 i < 2 ? dir : rel, (int)nl, name);
			if (strcmp(out, path) && debug_file_ok(out, id, n, true, crc))
				return 0;
		}
	}
	return -1;
}

/* The PT_LOAD segments and the executable sections with contents. */
static void load_layout(struct pc_dso *d, Elf *e)
{
	Elf_Scn *scn = NULL;
	size_t i, nph;

	if (elf_getphdrnum(e, &nph))
		nph = 0;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		struct pc_seg *s;

		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!d->nr_segs)
			d->first_load = ph.p_vaddr;
		if ((ph.p_flags & PF_X) && !d->has_exec) {
			d->first_exec_page = ph.p_vaddr & ~0xfffULL;
			d->has_exec = true;
		}
		if (d->nr_segs == PC_MAX_SEGS)
			continue;
		s = &d->segs[d->nr_segs++];
		s->vaddr = ph.p_vaddr;
		s->offset = ph.p_offset;
		s->filesz = ph.p_filesz;
		s->memsz = ph.p_memsz;
		s->flags = ph.p_flags;
	}
	d->text_lo = UINT64_MAX;
	while ((scn = elf_nextscn(e, scn)) && d->nr_text < PC_MAX_TEXT) {
		GElf_Shdr sh;
		Elf_Data *data;
		struct pc_text *t;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size < sh.sh_size)
			continue;
		t = &d->text[d->nr_text++];
		t->addr = sh.sh_addr;
		t->size = sh.sh_size;
		t->data = data->d_buf;
		if (t->addr < d->text_lo)
			d->text_lo = t->addr;
		if (t->addr + t->size > d->text_hi)
			d->text_hi = t->addr + t->size;
	}
}

static void dso_load(struct pc_dso *d)
{
	char path[4096], dbg[4096];
	Elf_Scn *scn = NULL, *dyn = NULL, *tab = NULL;
	GElf_Shdr sh, dsh, tsh;
	GElf_Ehdr eh;
	Elf *e;

	d->loaded = true;
	if (d->name[0] != '/' && !d->as_is)
		return;		/* [vdso], [kernel.kallsyms], //anon ... */
	snprintf(path, sizeof(path), "%s%s", d->as_is ? "" : pc_symfs, d->name);
	d->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0)
		return;
	elf_version(EV_CURRENT);
	e = elf_begin(d->fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		if (e)
			elf_end(e);
		close(d->fd);
		d->fd = -1;
		return;
	}
	d->elf = e;
	d->et_dyn = eh.e_type == ET_DYN;
	d->rv64 = gelf_getclass(e) == ELFCLASS64;
	d->machine = eh.e_machine;
	load_layout(d, e);
	d->elf_build_id_size = elf_build_id(e, d->elf_build_id);
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
	/*
	 * Stripped (of its symbols or its DWARF): its separate debug file has
	 * them, kept open for its DWARF.
	 */
	if (!d->dbg_elf && (!tab || !pc_elf_has_debug(e)) &&
	    !find_debug(d, path, pc_symfs, dbg, sizeof(dbg))) {
		d->dbg_fd = open(dbg, O_RDONLY | O_CLOEXEC);
		if (d->dbg_fd >= 0)
			d->dbg_elf = elf_begin(d->dbg_fd, ELF_C_READ_MMAP, NULL);
		if (d->dbg_elf)
			d->dbg_path = strdup(dbg);
	}
	if (tab) {
		load_syms_from(d, e, tab, &tsh);
		return;
	}
	scn = NULL;
	while (d->dbg_elf && (scn = elf_nextscn(d->dbg_elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			load_syms_from(d, d->dbg_elf, scn, &sh);
			break;
		}
	if (!d->nr_syms && dyn)
		load_syms_from(d, e, dyn, &dsh);
}

const void *pc_dso_section(struct pc_dso *d, const char *name, size_t *size)
{
	Elf_Data *data;
	Elf_Scn *scn;
	GElf_Shdr sh;

	pc_dso_load(d);
	if (!d->elf)
		return NULL;
	scn = scn_named(d->elf, name, &sh);
	if (!scn || sh.sh_type == SHT_NOBITS)
		return NULL;
	data = elf_getdata(scn, NULL);
	if (!data)
		return NULL;
	*size = data->d_size;
	/* an empty section is there all the same */
	return data->d_buf ? data->d_buf : "";
}

struct pc_dwarf *pc_dso_dwarf(struct pc_dso *d, char *err, size_t errlen)
{
	char msg[512];

	if (!d->dwarf_tried) {
		d->dwarf_tried = true;
		pc_dso_load(d);
		if (d->elf)
			d->dwarf = pc_dwarf_open(d->dbg_elf ? d->dbg_elf : d->elf,
						 d->dbg_path ? d->dbg_path : d->name,
						 msg, sizeof(msg));
		else
			snprintf(msg, sizeof(msg), "%s: not an ELF file", d->name);
		if (!d->dwarf)
			d->dwarf_err = strdup(msg);
	}
	if (!d->dwarf && err)
		snprintf(err, errlen, "%s", d->dwarf_err ? d->dwarf_err : "out of memory");
	return d->dwarf;
}

bool pc_dso_srcinfo(struct pc_dso *d, uint64_t vaddr, struct pc_srcinfo *si)
{
	struct pc_frame f[PC_MAX_FRAMES];
	struct pc_dwarf *s;
	const char *file, *base;
	int line, nf, i;

	memset(si, 0, sizeof(*si));
	s = pc_dso_dwarf(d, NULL, 0);
	if (!s)
		return false;
	if (pc_dwarf_line(s, vaddr, &file, &line)) {
		base = strrchr(file, '/');
		snprintf(si->file, sizeof(si->file), "%s", base ? base + 1 : file);
		si->line = line;
	}
	/* pc_dwarf_frames() gives the outermost first, srcinfo the innermost */
	nf = pc_dwarf_frames(s, vaddr, f, PC_MAX_FRAMES);
	for (i = nf - 1; i >= 0 && si->nr_frames < PC_MAX_INLINE; i--)
		snprintf(si->frames[si->nr_frames++], sizeof(si->frames[0]),
			 "%s", f[i].name);
	return si->line || si->nr_frames;
}

static void dso_unload(struct pc_dso *d)
{
	pc_probes_free(d->probes);
	pc_dwarf_close(d->dwarf);
	if (d->dbg_elf)
		elf_end(d->dbg_elf);
	if (d->elf)
		elf_end(d->elf);
}
#else
/* The minimal cross build has no libelf: addresses stay unsymbolized. */
static void dso_load(struct pc_dso *d)
{
	d->loaded = true;
}

const void *pc_dso_section(struct pc_dso *d, const char *name, size_t *size)
{
	(void)d;
	(void)name;
	(void)size;
	return NULL;
}

struct pc_dwarf *pc_dso_dwarf(struct pc_dso *d, char *err, size_t errlen)
{
	(void)d;
	if (err)
		snprintf(err, errlen, "no DWARF in this build");
	return NULL;
}

bool pc_dso_srcinfo(struct pc_dso *d, uint64_t vaddr, struct pc_srcinfo *si)
{
	(void)d;
	(void)vaddr;
	memset(si, 0, sizeof(*si));
	return false;
}

static void dso_unload(struct pc_dso *d)
{
	(void)d;
}
#endif

struct pc_dso *pc_dso_open(const char *path, const char *debug)
{
	struct pc_dso *d = pc_dso_new(path);

	if (!d)
		return NULL;
	d->as_is = true;
#ifndef PC_NO_ELF
	if (debug) {
		elf_version(EV_CURRENT);
		d->dbg_fd = open(debug, O_RDONLY | O_CLOEXEC);
		if (d->dbg_fd >= 0)
			d->dbg_elf = elf_begin(d->dbg_fd, ELF_C_READ_MMAP, NULL);
		d->dbg_path = strdup(debug);
	}
#else
	(void)debug;
#endif
	pc_dso_load(d);
	return d;
}

void pc_dso_load(struct pc_dso *d)
{
	if (!d->loaded)
		dso_load(d);
}

const struct pc_seg *pc_dso_seg(struct pc_dso *d, uint64_t off)
{
	unsigned int i;

	if (!d->loaded)
		dso_load(d);
	for (i = 0; i < d->nr_segs; i++)
		if (off - d->segs[i].offset < d->segs[i].filesz)
			return &d->segs[i];
	return NULL;
}

bool pc_dso_vaddr(struct pc_dso *d, uint64_t off, uint64_t *vaddr)
{
	const struct pc_seg *s = pc_dso_seg(d, off);

	if (s)
		*vaddr = off - s->offset + s->vaddr;
	return s != NULL;
}

const struct pc_sym *pc_dso_sym(struct pc_dso *d, uint64_t vaddr)
{
	size_t lo;

	if (!d->loaded)
		dso_load(d);
	lo = pc_count_upto(d->syms, d->nr_syms, sizeof(*d->syms),
			   offsetof(struct pc_sym, start), vaddr);
	if (lo && vaddr < d->syms[lo - 1].end)
		return &d->syms[lo - 1];
	return NULL;
}

unsigned int pc_dso_insn(const struct pc_dso *d, uint64_t addr,
			 struct pc_rv_insn *in)
{
	const struct pc_text *t = pc_dso_text_at(d, addr);
	uint64_t off;

	if (!t) {
		in->len = 0;
		return 0;
	}
	off = addr - t->addr;
	return pc_rv_decode(t->data + off, t->size - off, d->rv64, in);
}

uint64_t pc_dso_count_insns(const struct pc_dso *d, uint64_t lo, uint64_t hi)
{
	const struct pc_text *t = pc_dso_text_at(d, lo);
	uint64_t off, end, n = 0;

	if (!t || hi < lo || hi - t->addr >= t->size)
		return 0;
	/*
	 * Only the two low bits of the first parcel say the length: 16
	 * bits unless both are set (longer encodings are reserved).
	 */
	end = hi - t->addr;
	for (off = lo - t->addr; off <= end && off + 1 < t->size; n++)
		off += (t->data[off] & 3) == 3 ? 4 : 2;
	return n;
}

void pc_dso_free(struct pc_dso *d)
{
	size_t i;

	for (i = 0; i < d->nr_syms; i++)
		free(d->syms[i].name);
	free(d->syms);
	dso_unload(d);
	if (d->dbg_fd >= 0)
		close(d->dbg_fd);
	free(d->dbg_path);
	free(d->dwarf_err);
	free(d->probes_err);
	if (d->fd >= 0)
		close(d->fd);
	free(d);
}

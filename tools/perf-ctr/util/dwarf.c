// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: DWARF with libdw, for every command. An address becomes its
 * inline stack: the function it belongs to, the functions inlined into
 * it down to the one holding the instruction, and for each the line
 * (aggregate's writers make line offsets of them from DW_AT_decl_line);
 * report gets file:line and the inlined frames of a DSO's address from
 * the same lookups (pc_dw_lookup).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "perf-ctr.h"
#include "dwarf-info.h"
#include "search.h"

/* elfutils' dwarf.h has no name for it: GCC's and LLVM's own extension */
#define PC_DW_AT_discriminator	0x2136

struct cu_range {
	uint64_t lo, hi;
	Dwarf_Off die;			/* of the CU DIE */
	size_t cu;			/* the CU's number, in file order */
};

/*
 * Which function-like DIE (subprogram, inlined instance) holds each
 * address of a CU: what dwarf_getscopes() finds by walking the CU's
 * tree from its root, once per address, which made every instruction
 * of a range cost a walk of its whole CU. Built at the first lookup in
 * the CU, from one walk.
 */
/* What a frame needs of a function-like DIE. */
struct frame_die {
	const char *name;		/* linkage name, else name */
	const char *decl_file;
	int decl_line;
	int call_line, discr;		/* of an inlined instance: its call site */
};

struct fn_node {
	Dwarf_Off die;
	int parent;			/* the function-like DIE around it, or -1 */
	bool subprogram;
	/*
	 * Its frame_die, read at its first lookup: every instruction of a
	 * function asks for the same few DIEs, and the attribute walks
	 * (abstract origins, specifications) cost more than the rest of the
	 * lookup.
	 */
	bool read, readable;
	struct frame_die fd;
};

struct fn_seg {
	uint64_t lo, hi;
	int node;			/* the innermost one over [lo, hi) */
};

struct cu_index {
	uint64_t *row;			/* address of each line table row */
	size_t nrow;
	bool rows_built;
	bool built;
	struct fn_node *node;
	size_t nnode, capnode;
	struct fn_seg *seg;		/* sorted, disjoint */
	size_t nseg, capseg;
	bool lines_bad;			/* libdw refused its line table */
};

struct pc_dwarf {
	Dwarf *dbg;
	struct cu_range *cr;		/* sorted by lo */
	size_t ncr;
	struct cu_index *cux;		/* by CU number */
	size_t ncu;
	/* CUs whose line table libdw refused, and the first one's why */
	size_t bad_line_cus;
	char bad_line_cu[256], bad_line_why[128];
};

static int cmp_cr(const void *x, const void *y)
{
	const struct cu_range *p = x, *q = y;

	return p->lo < q->lo ? -1 : p->lo > q->lo;
}

/*
 * Address ranges of every CU, from DW_AT_low_pc/high_pc/ranges: clang
 * writes no .debug_aranges, which dwarf_addrdie() needs.
 */
static void load_cu_ranges(struct pc_dwarf *s)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;

	for (; !dwarf_nextcu(s->dbg, off, &next, &hsize, NULL, NULL, NULL);
	     s->ncu++) {
		Dwarf_Die cu;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t it = 0;
		struct cu_range *v;

		if (dwarf_offdie(s->dbg, off + hsize, &cu)) {
			while ((it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0) {
				if (lo >= hi)
					continue;
				v = pc_grow(s->cr, &cap, s->ncr, sizeof(*s->cr), 64);
				if (!v)
					return;
				s->cr = v;
				s->cr[s->ncr].lo = lo;
				s->cr[s->ncr].hi = hi;
				s->cr[s->ncr].die = dwarf_dieoffset(&cu);
				s->cr[s->ncr].cu = s->ncu;
				s->ncr++;
			}
		}
		off = next;
	}
	if (s->cr)
		qsort(s->cr, s->ncr, sizeof(*s->cr), cmp_cr);
	s->cux = calloc(s->ncu ? s->ncu : 1, sizeof(*s->cux));
}

/* The CU of ADDR, and its number in *NO (-1 when found another way). */
static bool cu_of_no(struct pc_dwarf *s, uint64_t addr, Dwarf_Die *cu,
		     long *no)
{
	size_t lo = pc_count_upto(s->cr, s->ncr, sizeof(*s->cr),
				  offsetof(struct cu_range, lo), addr);

	/* ranges of CUs may nest or overlap: look back a little */
	while (lo > 0) {
		const struct cu_range *r = &s->cr[--lo];

		if (addr < r->hi) {
			*no = (long)r->cu;
			return dwarf_offdie(s->dbg, r->die, cu) != NULL;
		}
		if (s->cr[lo].lo + (1ULL << 24) < addr)
			break;
	}
	*no = -1;
	return dwarf_addrdie(s->dbg, addr, cu) != NULL;
}

static bool cu_of(struct pc_dwarf *s, uint64_t addr, Dwarf_Die *cu)
{
	long no;

	return cu_of_no(s, addr, cu, &no);
}

struct pc_dwarf *pc_dwarf_open(void *elf, const char *path, char *err,
			       size_t errlen)
{
	struct pc_dwarf *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->dbg = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!s->dbg) {
		snprintf(err, errlen, "%s: no DWARF debug information (%s): build it with -g, or name its debug file with --debug-binary",
			 path, dwarf_errmsg(-1));
		free(s);
		return NULL;
	}
	load_cu_ranges(s);
	return s;
}

void pc_dwarf_close(struct pc_dwarf *s)
{
	size_t i;

	if (!s)
		return;
	dwarf_end(s->dbg);
	for (i = 0; s->cux && i < s->ncu; i++) {
		free(s->cux[i].node);
		free(s->cux[i].seg);
		free(s->cux[i].row);
	}
	free(s->cux);
	free(s->cr);
	free(s);
}

bool pc_dwarf_line(struct pc_dwarf *s, uint64_t addr, const char **file,
		   int *line)
{
	Dwarf_Die cu;
	Dwarf_Line *ln;

	if (!cu_of(s, addr, &cu))
		return false;
	ln = dwarf_getsrc_die(&cu, addr);
	if (!ln || dwarf_lineno(ln, line))
		return false;
	*file = dwarf_linesrc(ln, NULL, NULL);
	return *file != NULL;
}

/*
 * The address of every row of CU's line table (libdw keeps them sorted
 * by address), for a binary search: kept in the CU's index when it has
 * one (NO >= 0), else in *TMP for the caller to free.
 */
static const uint64_t *row_addrs(struct pc_dwarf *s, long no, Dwarf_Lines *ls,
				 size_t nl, uint64_t **tmp)
{
	struct cu_index *x = s->cux && no >= 0 ? &s->cux[no] : NULL;
	uint64_t *v;
	size_t i;

	*tmp = NULL;
	if (x && x->rows_built)
		return x->row;
	v = malloc((nl ? nl : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < nl; i++) {
		Dwarf_Addr a = 0;

		dwarf_lineaddr(dwarf_onesrcline(ls, i), &a);
		v[i] = a;
	}
	if (!x) {
		*tmp = v;
		return v;
	}
	x->rows_built = true;
	x->row = v;
	x->nrow = nl;
	return v;
}

/*
 * No line at an address of a CU: say so when libdw cannot read the CU's
 * line table at all (an elfutils older than the DWARF it is given), once
 * a CU, instead of giving its every instruction line 0 unseen.
 */
static void note_bad_lines(struct pc_dwarf *s, struct cu_index *x,
			   Dwarf_Die *cu)
{
	Dwarf_Lines *ls;
	size_t nl;
	const char *name;

	if ((x && x->lines_bad) || !dwarf_getsrclines(cu, &ls, &nl))
		return;
	if (x)
		x->lines_bad = true;
	if (!s->bad_line_cus++) {
		name = dwarf_diename(cu);
		snprintf(s->bad_line_cu, sizeof(s->bad_line_cu), "%s",
			 name ? name : "?");
		snprintf(s->bad_line_why, sizeof(s->bad_line_why), "%s",
			 dwarf_errmsg(-1));
	}
}

size_t pc_dwarf_bad_lines(const struct pc_dwarf *s, const char **cu,
			  const char **why)
{
	*cu = s->bad_line_cu;
	*why = s->bad_line_why;
	return s->bad_line_cus;
}

int pc_dwarf_lines(struct pc_dwarf *s, uint64_t addr, const char **files,
		   int *lines, int max)
{
	const uint64_t *row;
	uint64_t *tmp = NULL;
	size_t nl, lo, i;
	Dwarf_Lines *ls;
	Dwarf_Die cu;
	int k = 0;
	long no;

	if (!cu_of_no(s, addr, &cu, &no))
		return 0;
	if (!dwarf_getsrclines(&cu, &ls, &nl) &&
	    (row = row_addrs(s, no, ls, nl, &tmp))) {
		lo = pc_count_below(row, nl, sizeof(*row), 0, addr);
		for (i = lo; i < nl && k < max; i++) {
			Dwarf_Line *l = dwarf_onesrcline(ls, i);
			Dwarf_Addr a = 0;
			bool end = false;
			int line = 0, j;
			const char *f;

			dwarf_lineaddr(l, &a);
			if (a != addr)
				break;
			dwarf_lineendsequence(l, &end);
			f = dwarf_linesrc(l, NULL, NULL);
			if (end || dwarf_lineno(l, &line) || !line || !f)
				continue;
			for (j = 0; j < k && (lines[j] != line || strcmp(files[j], f)); j++)
				;
			if (j < k)
				continue;
			files[k] = f;
			lines[k++] = line;
		}
		free(tmp);
	}
	/* no row starts here: the line in effect */
	if (!k && pc_dwarf_line(s, addr, &files[0], &lines[0]) && lines[0])
		k = 1;
	return k;
}

int pc_dwarf_gcc_major(struct pc_dwarf *s)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int major = 0;

	/* DW_AT_producer: "GNU C17 14.2.0 -mabi=lp64d ..." */
	while (!major &&
	       !dwarf_nextcu(s->dbg, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Attribute a;
		Dwarf_Die cu;
		const char *p = NULL;

		if (dwarf_offdie(s->dbg, off + hsize, &cu) &&
		    dwarf_attr(&cu, DW_AT_producer, &a))
			p = dwarf_formstring(&a);
		off = next;
		if (!p || strncmp(p, "GNU ", 4))
			continue;
		for (p += 4; *p && !(*p >= '0' && *p <= '9' && p[-1] == ' '); p++)
			;
		major = atoi(p);
	}
	return major;
}

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *n = NULL;

	if (dwarf_attr_integrate(d, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n && dwarf_attr_integrate(d, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	return n;
}

static int die_udata(Dwarf_Die *d, unsigned int at)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr(d, at, &a) || dwarf_formudata(&a, &w))
		return 0;
	return (int)w;
}

/* DIEs whose children may be functions with addresses, or hold some. */
static bool may_hold_functions(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_entry_point:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_with_stmt:
	case DW_TAG_module:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
		return true;
	}
	return false;
}

struct fn_iv {
	uint64_t lo, hi;
	int node, depth;
};

struct fn_ivs {
	struct fn_iv *v;
	size_t n, cap;
};

/* Every function-like DIE under DIE, and the address ranges of each. */
static bool index_children(struct cu_index *x, struct fn_ivs *iv, Dwarf_Die *die,
			   int parent, int depth)
{
	Dwarf_Die c;

	if (dwarf_child(die, &c))
		return true;
	do {
		int tag = dwarf_tag(&c), me = parent;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t it = 0;
			void *v;

			v = pc_grow(x->node, &x->capnode, x->nnode, sizeof(*x->node), 64);
			if (!v)
				return false;
			x->node = v;
			me = (int)x->nnode++;
			x->node[me] = (struct fn_node){
				.die = dwarf_dieoffset(&c),
				.parent = parent,
				.subprogram = tag == DW_TAG_subprogram,
			};
			while ((it = dwarf_ranges(&c, it, &base, &lo, &hi)) > 0) {
				if (lo >= hi)
					continue;
				v = pc_grow(iv->v, &iv->cap, iv->n, sizeof(*iv->v), 64);
				if (!v)
					return false;
				iv->v = v;
				iv->v[iv->n++] = (struct fn_iv){ lo, hi, me, depth };
			}
		}
		if (tag == DW_TAG_imported_unit && depth < 64) {
			/* a partial unit (dwz) whose DIEs belong here */
			Dwarf_Attribute a;
			Dwarf_Die u;

			if (dwarf_attr(&c, DW_AT_import, &a) &&
			    dwarf_formref_die(&a, &u) &&
			    !index_children(x, iv, &u, me, depth + 1))
				return false;
		} else if (may_hold_functions(tag) &&
			   !index_children(x, iv, &c, me, depth + 1)) {
			return false;
		}
	} while (!dwarf_siblingof(&c, &c));
	return true;
}

/* Outer ones first where ranges start together. */
static int cmp_iv(const void *a, const void *b)
{
	const struct fn_iv *p = a, *q = b;

	if (p->lo != q->lo)
		return p->lo < q->lo ? -1 : 1;
	if (p->hi != q->hi)
		return p->hi > q->hi ? -1 : 1;
	return p->depth - q->depth;
}

static bool add_seg(struct cu_index *x, uint64_t lo, uint64_t hi, int node)
{
	void *v;

	if (lo >= hi)
		return true;
	v = pc_grow(x->seg, &x->capseg, x->nseg, sizeof(*x->seg), 64);
	if (!v)
		return false;
	x->seg = v;
	x->seg[x->nseg++] = (struct fn_seg){ lo, hi, node };
	return true;
}

/*
 * Nested ranges become disjoint segments, each with its innermost DIE. A
 * range that sticks out of the one around it is cut to it.
 */
static bool flatten(struct cu_index *x, struct fn_ivs *iv)
{
	struct fn_iv *st = malloc((iv->n ? iv->n : 1) * sizeof(*st));
	size_t sp = 0, i;
	uint64_t cur = 0;
	bool ok = st != NULL;

	qsort(iv->v, iv->n, sizeof(*iv->v), cmp_iv);
	for (i = 0; ok && i < iv->n; i++) {
		struct fn_iv v = iv->v[i];

		while (ok && sp && st[sp - 1].hi <= v.lo) {
			sp--;
			ok = add_seg(x, cur, st[sp].hi, st[sp].node);
			if (cur < st[sp].hi)
				cur = st[sp].hi;
		}
		if (sp) {
			ok = ok && add_seg(x, cur, v.lo, st[sp - 1].node);
			if (v.hi > st[sp - 1].hi)
				v.hi = st[sp - 1].hi;
		}
		cur = v.lo;
		if (v.lo < v.hi)
			st[sp++] = v;
	}
	while (ok && sp) {
		sp--;
		ok = add_seg(x, cur, st[sp].hi, st[sp].node);
		if (cur < st[sp].hi)
			cur = st[sp].hi;
	}
	free(st);
	return ok;
}

/* CU number NO's index (CU its DIE), or NULL when it cannot be built. */
static struct cu_index *cu_index(struct pc_dwarf *s, long no, Dwarf_Die *cu)
{
	struct cu_index *x;
	struct fn_ivs iv = { 0 };
	bool ok;

	if (!s->cux || no < 0 || (size_t)no >= s->ncu)
		return NULL;
	x = &s->cux[no];
	if (x->built)
		return x->seg ? x : NULL;
	x->built = true;
	ok = index_children(x, &iv, cu, -1, 0) && flatten(x, &iv);
	free(iv.v);
	if (!ok || !x->seg) {
		free(x->node);
		free(x->seg);
		x->node = NULL;
		x->seg = NULL;
		x->nnode = x->nseg = 0;
		return NULL;
	}
	return x;
}

/* The innermost function-like DIE at ADDR in X, or -1. */
static int node_at(const struct cu_index *x, uint64_t addr)
{
	size_t lo = pc_count_upto(x->seg, x->nseg, sizeof(*x->seg),
				  offsetof(struct fn_seg, lo), addr);

	return lo && addr < x->seg[lo - 1].hi ? x->seg[lo - 1].node : -1;
}

static void die_frame(Dwarf_Die *d, struct frame_die *o)
{
	o->name = die_name(d);
	o->decl_file = dwarf_decl_file(d);
	o->decl_line = 0;
	dwarf_decl_line(d, &o->decl_line);
	o->call_line = die_udata(d, DW_AT_call_line);
	o->discr = die_udata(d, PC_DW_AT_discriminator);
}

/* Node I of X with its frame_die read; NULL if its DIE cannot be. */
static const struct fn_node *node_info(struct pc_dwarf *s, struct cu_index *x,
				       int i)
{
	struct fn_node *nd = &x->node[i];
	Dwarf_Die d;

	if (!nd->read) {
		nd->read = true;
		nd->readable = dwarf_offdie(s->dbg, nd->die, &d) != NULL;
		if (nd->readable)
			die_frame(&d, &nd->fd);
	}
	return nd->readable ? nd : NULL;
}

/*
 * F from the K function-like DIEs of CHAIN, innermost first: outermost
 * first, each frame at the line where it called the next inner one, the
 * innermost at LINE. A line of another file than the function's (a
 * macro, an #include inside it) still counts at its line's distance from
 * the function's: that is what GCC and LLVM look the profile up with.
 */
static int chain_frames(const struct frame_die *const *chain, int k, int line,
			unsigned int discr, struct pc_frame *f, int max)
{
	int i, nf = 0;

	for (i = k - 1; i >= 0 && nf < max; i--) {
		if (!chain[i]->name)
			break;
		f[nf].name = chain[i]->name;
		f[nf].decl_file = chain[i]->decl_file;
		f[nf].decl_line = chain[i]->decl_line;
		f[nf].line = i > 0 ? chain[i - 1]->call_line : line;
		f[nf].discr = i > 0 ? (unsigned int)chain[i - 1]->discr : discr;
		nf++;
	}
	return nf;
}

/* The frames of ADDR from X's chain of nodes, outermost first. */
static int index_frames(struct pc_dwarf *s, struct cu_index *x, uint64_t addr,
			int line, unsigned int discr, struct pc_frame *f,
			int max)
{
	const struct frame_die *chain[PC_MAX_FRAMES];
	const struct fn_node *nd;
	int i, k = 0;

	/* innermost first, up to the function that holds them */
	for (i = node_at(x, addr); i >= 0 && k < PC_MAX_FRAMES;
	     i = x->node[i].parent) {
		nd = node_info(s, x, i);
		if (!nd)
			break;
		chain[k++] = &nd->fd;
		if (nd->subprogram)
			break;
	}
	return chain_frames(chain, k, line, discr, f, max);
}

/*
 * The index of the CU gives the chain of function-like DIEs at ADDR.
 * Without one, dwarf_getscopes(), which follows an inlined instance into
 * its abstract definition; the callers are found with
 * dwarf_getscopes_die() on the instance, as addr2line -i does.
 */
int pc_dwarf_frames(struct pc_dwarf *s, uint64_t addr, struct pc_frame *f,
		    int max)
{
	Dwarf_Die cu, chain[PC_MAX_FRAMES], *scopes = NULL;
	struct frame_die fds[PC_MAX_FRAMES];
	const struct frame_die *fdp[PC_MAX_FRAMES];
	struct cu_index *x;
	Dwarf_Line *ln;
	int line = 0, n, i, k = 0;
	unsigned int discr = 0;
	bool done = false;
	long no;

	if (!cu_of_no(s, addr, &cu, &no))
		return 0;
	ln = dwarf_getsrc_die(&cu, addr);
	if (ln) {
		dwarf_lineno(ln, &line);
		dwarf_linediscriminator(ln, &discr);
	}
	x = cu_index(s, no, &cu);
	if (!ln)
		note_bad_lines(s, x, &cu);
	if (x)
		return index_frames(s, x, addr, line, discr, f, max);
	n = dwarf_getscopes(&cu, addr, &scopes);
	/* chain[] gets the function-like scopes, innermost first */
	while (n > 0 && !done && k < PC_MAX_FRAMES) {
		Dwarf_Die *next = NULL;
		int tag = 0;

		for (i = k ? 1 : 0; i < n; i++) {
			tag = dwarf_tag(&scopes[i]);
			if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
				break;
		}
		if (i == n)
			break;
		chain[k++] = scopes[i];
		if (tag == DW_TAG_subprogram) {
			done = true;
			break;
		}
		/* the instance's own containing scopes; [0] is itself */
		n = dwarf_getscopes_die(&chain[k - 1], &next);
		free(scopes);
		scopes = next;
	}
	free(scopes);
	for (i = 0; i < k; i++) {
		die_frame(&chain[i], &fds[i]);
		fdp[i] = &fds[i];
	}
	return chain_frames(fdp, k, line, discr, f, max);
}

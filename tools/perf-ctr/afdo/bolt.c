// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate -f bolt: llvm-bolt's pre-aggregated profile
 * (perf2bolt -pa, llvm-bolt -pa), straight from the counts:
 *
 *   B FROM TO COUNT MISPREDICTS	a taken branch
 *   F BEGIN END COUNT			a fall-through trace
 *   f BEGIN END COUNT			one entered from another function
 *
 * Addresses are hex offsets from the binary's load address, which are
 * its link-time addresses for an executable (0 based when it is a PIE);
 * X:0 is an end outside the binary (another file, or a privilege not
 * recorded): BOLT takes such branches for entries and exits.
 * END is the trace's last instruction: the source of the branch that
 * ended it, or the instruction before a trap's. BOLT checks each trace
 * against the blocks it finds: only ranges that stay in one function
 * and run through no jump, call or return are written (the counts drop
 * the others, as they drop them for every format). "f" tells BOLT that
 * the trace began with a return or a call from elsewhere, so that a
 * trace beginning just after a call is the call's fall-through.
 */
#include <stdlib.h>

#include "afdo.h"
#include "writers.h"

/* B lines of the sorted branches BR, with the mispredicts of MISP */
static void write_branches(FILE *f, const struct afdo_cnt *br, size_t nbr,
			   const struct afdo_cnt *misp, size_t nmisp)
{
	size_t i, j = 0;

	for (i = 0; i < nbr; i++) {
		uint64_t m = 0;

		/* both sorted by (from, to): one walk pairs them */
		while (j < nmisp && (misp[j].a < br[i].a ||
				     (misp[j].a == br[i].a && misp[j].b < br[i].b)))
			j++;
		if (j < nmisp && misp[j].a == br[i].a && misp[j].b == br[i].b)
			m = misp[j].n;
		fprintf(f, "B %s%llx %s%llx %llu %llu\n", br[i].a ? "" : "X:",
			(unsigned long long)br[i].a, br[i].b ? "" : "X:",
			(unsigned long long)br[i].b, (unsigned long long)br[i].n,
			(unsigned long long)m);
	}
}

int afdo_write_bolt(FILE *f, const struct afdo_input *in,
		    struct afdo_notes *notes)
{
	const struct afdo_counts *g = in->counts;
	struct afdo_cnt *br, *out = NULL, *misp = NULL, *tr = NULL;
	size_t nbr, nout = 0, nmisp = 0, ntr = 0, i;
	int rc = -1;

	snprintf(notes->err, sizeof(notes->err), "out of memory");
	br = afdo_map_sorted(&g->branches, &nbr);
	if (!br)
		return -1;
	out = afdo_map_sorted(&g->outer, &nout);
	misp = afdo_map_sorted(&g->misp, &nmisp);
	tr = afdo_map_sorted(&g->traces, &ntr);
	if (!out || !misp || !tr)
		goto out;
	write_branches(f, br, nbr, misp, nmisp);
	write_branches(f, out, nout, misp, nmisp);
	for (i = 0; i < ntr; i++)
		fprintf(f, "%c %llx %llx %llu\n", tr[i].c ? 'f' : 'F',
			(unsigned long long)tr[i].a, (unsigned long long)tr[i].b,
			(unsigned long long)tr[i].n);
	notes->err[0] = 0;
	rc = 0;
out:
	free(br);
	free(out);
	free(misp);
	free(tr);
	return rc;
}

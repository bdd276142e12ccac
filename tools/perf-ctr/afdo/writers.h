/* SPDX-License-Identifier: GPL-2.0 */
/* perf-ctr aggregate: the writers of the formats, for format.c's table. */
#ifndef PERF_CTR_AFDO_WRITERS_H
#define PERF_CTR_AFDO_WRITERS_H

#include "afdo.h"

int afdo_write_autofdo_text(FILE *f, const struct afdo_input *in,
			    struct afdo_notes *notes);
int afdo_write_llvm_unsym(FILE *f, const struct afdo_input *in,
			  struct afdo_notes *notes);
int afdo_write_llvm_text(FILE *f, const struct afdo_input *in,
			 struct afdo_notes *notes);
int afdo_write_llvm_probe(FILE *f, const struct afdo_input *in,
			  struct afdo_notes *notes);
int afdo_write_llvm_cs(FILE *f, const struct afdo_input *in,
		       struct afdo_notes *notes);
int afdo_write_gcov(FILE *f, const struct afdo_input *in,
		    struct afdo_notes *notes);
int afdo_write_lines(FILE *f, const struct afdo_input *in,
		     struct afdo_notes *notes);
int afdo_write_bolt(FILE *f, const struct afdo_input *in,
		    struct afdo_notes *notes);

#endif

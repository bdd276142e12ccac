// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of the perf.data reader, walking in perf's order as
 * every command does (samples wait for their rounds). The callbacks
 * touch every byte the reader hands out (branch entries, callchains,
 * names), so that ASan sees any pointer that leads outside the input.
 */
#include <stdlib.h>
#include <string.h>

#include "perf-ctr.h"

static volatile uint64_t sink;

static int on_sample(void *ctx, const struct pc_sample *s)
{
	uint64_t i, x = s->ip ^ s->attr->sample_type;

	(void)ctx;
	for (i = 0; i < s->nr; i++)
		x += s->br[i].from ^ s->br[i].to ^ s->br[i].cycles ^
		     (uint64_t)strlen(pc_branch_type_name(&s->br[i]));
	for (i = 0; i < s->callchain_nr; i++)
		x ^= s->callchain[i];
	if (s->br_counters)
		for (i = 0; i < s->nr; i++)
			x ^= s->br_counters[i];
	sink += x;
	return 0;
}

static int on_mmap(void *ctx, const struct pc_mmap *m)
{
	(void)ctx;
	sink += strlen(m->filename) + m->build_id[m->build_id_size ? m->build_id_size - 1 : 0];
	return 0;
}

static int on_comm(void *ctx, const struct pc_comm *c)
{
	(void)ctx;
	sink += strlen(c->comm);
	return 0;
}

static int on_attr(void *ctx, const struct perf_event_attr *a, const uint64_t *ids,
		   size_t nr)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < nr; i++)
		sink += ids[i];
	sink += a->sample_type;
	return 0;
}

/* Samples wait for rounds (FINISHED_ROUND), as every command's walk. */
static int on_flush(void *ctx, uint64_t upto)
{
	(void)ctx;
	sink += upto;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pc_handlers h = {
		.sample = on_sample, .mmap = on_mmap, .comm = on_comm,
		.attr = on_attr, .build_id = on_mmap, .flush = on_flush,
	};
	struct pc_error err;
	/* The reader wants an 8-byte aligned buffer, as mmap gives it. */
	void *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (pc_read_buffer(buf, size, &h, NULL, &err) < 0 &&
	    !memchr(err.msg, 0, sizeof(err.msg)))
		abort();	/* an unterminated message would be a bug */
	free(buf);
	return 0;
}

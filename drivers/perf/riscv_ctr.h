/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RISC-V Control Transfer Records (Smctr/Ssctr) for perf branch stacks:
 * the interface the RISC-V PMU drivers call.
 */
#ifndef __RISCV_CTR_H
#define __RISCV_CTR_H

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/types.h>
#include <asm/ctr.h>

struct perf_branch_entry;
struct perf_event;
struct perf_event_pmu_context;
struct perf_sample_data;
struct pmu;
struct task_struct;

/* One record as the hart holds it: ctrsource, ctrtarget and ctrdata. */
struct riscv_ctr_entry {
	u64 source;
	u64 target;
	u64 data;
};

/*
 * What an event asks the hardware to record, kept in the event's
 * hw.branch_reg.config: a bit per transfer type (ctrdata.TYPE), a bit per
 * privilege mode and one for call-stack mode.
 */
#define CTR_REQ_TYPES		GENMASK(CTR_NR_TYPES - 1, 0)
#define CTR_REQ_U		BIT(CTR_NR_TYPES)
#define CTR_REQ_S		BIT(CTR_NR_TYPES + 1)
#define CTR_REQ_CALLSTACK_BIT	(CTR_NR_TYPES + 2)
#define CTR_REQ_CALLSTACK	BIT(CTR_REQ_CALLSTACK_BIT)
#define CTR_REQ_BITS		(CTR_NR_TYPES + 3)

/*
 * perf_event_attr.config2 of the core PMU: record not-taken conditional
 * branches too (the not_taken format attribute), beside cond or any.
 */
#define RISCV_CTR_CONFIG2_NOT_TAKEN	BIT_ULL(0)

#ifdef CONFIG_RISCV_CTR
void riscv_ctr_probe(struct pmu *pmu);
void riscv_ctr_reset(void);
unsigned int riscv_ctr_num_branches(void);

int riscv_ctr_event_init(struct perf_event *event);
int riscv_ctr_add(struct perf_event *event);
void riscv_ctr_del(struct perf_event *event);
void riscv_ctr_sched_task(struct perf_event_pmu_context *pmu_ctx,
			  struct task_struct *task, bool sched_in);

void riscv_ctr_freeze(void);
void riscv_ctr_sample(struct perf_event *event, struct perf_sample_data *data);
void riscv_ctr_unfreeze(void);
#else
static inline void riscv_ctr_probe(struct pmu *pmu) { }
static inline void riscv_ctr_reset(void) { }
static inline unsigned int riscv_ctr_num_branches(void)
{
	return 0;
}

static inline int riscv_ctr_event_init(struct perf_event *event)
{
	return -EOPNOTSUPP;
}

static inline int riscv_ctr_add(struct perf_event *event)
{
	return -EOPNOTSUPP;
}

static inline void riscv_ctr_del(struct perf_event *event) { }
static inline void riscv_ctr_sched_task(struct perf_event_pmu_context *pmu_ctx,
					struct task_struct *task, bool sched_in) { }

static inline void riscv_ctr_freeze(void) { }
static inline void riscv_ctr_sample(struct perf_event *event,
				    struct perf_sample_data *data) { }
static inline void riscv_ctr_unfreeze(void) { }
#endif

#if IS_ENABLED(CONFIG_RISCV_CTR_KUNIT_TEST)
void riscv_ctr_clear(void);
u32 riscv_ctr_cycles(u64 data);
int riscv_ctr_request(u64 branch_sample_type, bool not_taken, u32 *request);
u64 riscv_ctr_ctl(u32 request);
unsigned int riscv_ctr_read_entries(struct riscv_ctr_entry *raw);
unsigned int riscv_ctr_save(struct riscv_ctr_entry *raw, u32 *status);
void riscv_ctr_restore(const struct riscv_ctr_entry *raw, unsigned int nr,
		       u32 status);
u64 riscv_ctr_hw_idx(const struct riscv_ctr_entry *raw, unsigned int nr,
		     u32 request, unsigned int pos0);
unsigned int riscv_ctr_decode(const struct riscv_ctr_entry *raw,
			      unsigned int nr, u32 request, u64 branch_sample_type,
			      struct perf_branch_entry *out);
#endif

#endif /* __RISCV_CTR_H */

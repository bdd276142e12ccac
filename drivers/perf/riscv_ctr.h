/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RISC-V Control Transfer Records (Smctr/Ssctr) for perf branch stacks:
 * the interface the RISC-V PMU drivers call.
 */
#ifndef __RISCV_CTR_H
#define __RISCV_CTR_H

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/perf/riscv_pmu.h>
#include <linux/types.h>
#include <asm/csr.h>

struct attribute_group;
struct perf_branch_entry;
struct perf_event;
struct perf_event_pmu_context;
struct perf_sample_data;
struct pmu;
struct task_struct;

/* Buffer sizes: sctrdepth.DEPTH D selects 16 << D entries. */
#define SSCTR_DEPTH_ENTRIES(d)	(16U << (d))
#define SSCTR_MAX_ENTRIES		SSCTR_DEPTH_ENTRIES(SCTRDEPTH_MAX)

/* The address in ctrsource and ctrtarget: bit 0 is V or MISP. */
#define SSCTR_PC_MASK		(~BIT_ULL(0))

/* ctrdata.TYPE has four bits. */
#define SSCTR_NR_TYPES		16

/**
 * struct riscv_ssctr_caps - what a hart implements of CTR's optional parts
 * @entries: entries of the buffer at the selected depth; 0 without CTR
 * @depth: the selected sctrdepth.DEPTH
 * @depths: bit N set when DEPTH N (16 << N entries) can be selected
 * @ctl: the sctrctl bits that can be set (filters, LCOFIFRZ, RASEMU, U, S)
 * @guest_ctl: the vsctrctl bits a guest can set; 0 without the H extension
 * @type: records say their transfer type (ctrdata.TYPE)
 * @misp: records say whether the transfer was mispredicted (ctrtarget.MISP)
 * @cycles: records count cycles (ctrdata.CCV and CC)
 * @frozen_writable: software can set sctrstatus.FROZEN to stop recording
 */
struct riscv_ssctr_caps {
	unsigned int entries;
	int depth;
	u8 depths;
	u64 ctl;
	u64 guest_ctl;
	bool type;
	bool misp;
	bool cycles;
	bool frozen_writable;
};

/*
 * What an event asks the hardware to record, kept in the event's
 * hw.branch_reg.config: a bit per transfer type (ctrdata.TYPE), a bit per
 * privilege mode and one for call-stack mode.
 */
#define SSCTR_REQ_TYPES		GENMASK(SSCTR_NR_TYPES - 1, 0)
#define SSCTR_REQ_U		BIT(SSCTR_NR_TYPES)
#define SSCTR_REQ_S		BIT(SSCTR_NR_TYPES + 1)
#define SSCTR_REQ_CALLSTACK_BIT	(SSCTR_NR_TYPES + 2)
#define SSCTR_REQ_CALLSTACK	BIT(SSCTR_REQ_CALLSTACK_BIT)
#define SSCTR_REQ_BITS		(SSCTR_NR_TYPES + 3)
/* What software picks records by: their type and the modes of their ends. */
#define SSCTR_REQ_PICKED		(SSCTR_REQ_TYPES | SSCTR_REQ_U | SSCTR_REQ_S)

/*
 * perf_event_attr.config2 of the core PMU: record not-taken conditional
 * branches too (the not_taken format attribute), beside cond or any.
 */
#define RISCV_SSCTR_CONFIG2_NOT_TAKEN	BIT_ULL(0)

#ifdef CONFIG_RISCV_CTR
extern const struct attribute_group riscv_ssctr_caps_group;

void riscv_ssctr_probe(struct pmu *pmu);
void riscv_ssctr_remove(struct pmu *pmu);
void riscv_ssctr_reset(void);
unsigned int riscv_ssctr_num_branches(void);

int riscv_ssctr_event_init(struct perf_event *event);
int riscv_ssctr_add(struct perf_event *event);
void riscv_ssctr_del(struct perf_event *event);
void riscv_ssctr_sched_task(struct perf_event_pmu_context *pmu_ctx,
			    struct task_struct *task, bool sched_in);

void riscv_ssctr_freeze(void);
void riscv_ssctr_sample(struct perf_event *event, struct perf_sample_data *data);
void riscv_ssctr_unfreeze(void);
#else
static inline void riscv_ssctr_probe(struct pmu *pmu) { }
static inline void riscv_ssctr_remove(struct pmu *pmu) { }
static inline void riscv_ssctr_reset(void) { }
static inline unsigned int riscv_ssctr_num_branches(void)
{
	return 0;
}

static inline int riscv_ssctr_event_init(struct perf_event *event)
{
	return -EOPNOTSUPP;
}

static inline int riscv_ssctr_add(struct perf_event *event)
{
	return -EOPNOTSUPP;
}

static inline void riscv_ssctr_del(struct perf_event *event) { }
static inline void riscv_ssctr_sched_task(struct perf_event_pmu_context *pmu_ctx,
					  struct task_struct *task, bool sched_in) { }

static inline void riscv_ssctr_freeze(void) { }
static inline void riscv_ssctr_sample(struct perf_event *event,
				      struct perf_sample_data *data) { }
static inline void riscv_ssctr_unfreeze(void) { }
#endif

/*
 * A software model of the hart's CSR interface (sctr*, siselect and
 * sireg*, SCTRCLR) that the driver uses instead of the hart in the KUnit
 * test thread that sets riscv_ssctr_test_model. The driver's CSR
 * accessors take one, NULL for the hart, with the tests built or not.
 */
struct riscv_ssctr_csr_model {
	unsigned long (*read)(unsigned int csr);
	void (*write)(unsigned int csr, unsigned long val);
	void (*clear)(void);
	bool (*accessible)(unsigned int csr);
};

/* What the KUnit tests reach: VISIBLE_IF_KUNIT follows CONFIG_KUNIT. */
#if IS_ENABLED(CONFIG_KUNIT)
extern const struct riscv_ssctr_csr_model *riscv_ssctr_test_model;

void riscv_ssctr_clear(void);
int riscv_ssctr_probe_caps(unsigned int max, struct riscv_ssctr_caps *caps);
u32 riscv_ssctr_cycles(u64 data);
u64 riscv_ssctr_flags_word(u64 to, u64 data, bool flags, bool cycles);
int riscv_ssctr_request(u64 branch_sample_type, bool not_taken, u32 *request);
int riscv_ssctr_check(const struct riscv_ssctr_caps *caps, u64 branch_sample_type,
		      bool not_taken, u32 *request);
u64 riscv_ssctr_ctl(const struct riscv_ssctr_caps *caps, u32 request);
unsigned int riscv_ssctr_read_entries(struct riscv_ssctr_entry *raw,
				      unsigned int max);
unsigned int riscv_ssctr_after_irq(const struct riscv_ssctr_caps *caps, u64 ctl,
				   unsigned long irq_pc);
unsigned int riscv_ssctr_save(struct riscv_ssctr_entry *raw, u32 *status);
void riscv_ssctr_restore(const struct riscv_ssctr_entry *raw, unsigned int nr,
			 u32 status);
u32 riscv_ssctr_recorded(const struct riscv_ssctr_caps *caps, u64 ctl);
unsigned int riscv_ssctr_decode_raw(const struct riscv_ssctr_caps *caps,
				    u32 recorded, const struct riscv_ssctr_entry *raw,
				    unsigned int nr, unsigned int first,
				    unsigned int max, u32 request,
				    u64 branch_sample_type,
				    struct perf_branch_entry *out, int *youngest);
bool riscv_ssctr_types_share(const struct riscv_ssctr_caps *caps, u32 common,
			     u32 any, u32 request);
unsigned int riscv_ssctr_decode(const struct riscv_ssctr_caps *caps, u32 recorded,
				unsigned int first, unsigned int max,
				u32 request, u64 branch_sample_type,
				struct perf_branch_entry *out, int *youngest);
#endif

#endif /* __RISCV_CTR_H */

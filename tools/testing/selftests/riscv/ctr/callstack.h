/* SPDX-License-Identifier: GPL-2.0-only */
/* The ladder of callstack_code.S. */
#ifndef __CTR_CALLSTACK_H
#define __CTR_CALLSTACK_H

#define CS_STUBS	320	/* more than the deepest CTR buffer */
#define CS_STUB_SIZE	24
#define CS_CALL_OFFSET	8	/* of the call in a stub */

#ifndef __ASSEMBLER__
extern char cs_ladder[], cs_leaf[], cs_leaf_end[];
#endif

#endif

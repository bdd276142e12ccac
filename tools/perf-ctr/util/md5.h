/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr: MD5 (RFC 1321), for what LLVM names by it: a function's GUID
 * in its pseudo probes is the first 8 bytes of the MD5 digest of its
 * name, read little-endian (md5.c).
 */
#ifndef PERF_CTR_MD5_H
#define PERF_CTR_MD5_H

#include <stddef.h>
#include <stdint.h>

/* The 16-byte MD5 digest of the LEN bytes at DATA. */
void pc_md5(const void *data, size_t len, uint8_t digest[16]);

/* LLVM's GUID of a function called NAME (LEN bytes, no NUL needed). */
uint64_t pc_md5_guid(const char *name, size_t len);

#endif

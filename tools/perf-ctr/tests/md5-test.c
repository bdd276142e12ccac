// SPDX-License-Identifier: GPL-2.0
/*
 * util/md5.c against known digests: RFC 1321's test suite, and the GUID
 * LLVM gives main (in the .pseudo_probe_desc of any probed program).
 * With arguments, prints the digest of each, for a comparison with
 * md5sum at the lengths where the padding takes another block.
 */
#include <stdio.h>
#include <string.h>

#include "md5.h"

static const struct {
	const char *in, *md5;
} rfc1321[] = {
	{ "", "d41d8cd98f00b204e9800998ecf8427e" },
	{ "a", "0cc175b9c0f1b6a831c399e269772661" },
	{ "abc", "900150983cd24fb0d6963f7d28e17f72" },
	{ "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
	{ "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b" },
	{ "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
	  "d174ab98d277d9f5a5611c2c9f419d9f" },
	{ "1234567890123456789012345678901234567890"
	  "1234567890123456789012345678901234567890",
	  "57edf4a22be3c955ac49da2e2107b67a" },
};

static void hex(const char *s, char out[33])
{
	uint8_t d[16];
	int i;

	pc_md5(s, strlen(s), d);
	for (i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

int main(int argc, char **argv)
{
	char h[33];
	size_t i;
	int bad = 0;

	if (argc > 1) {
		for (i = 1; i < (size_t)argc; i++) {
			hex(argv[i], h);
			printf("%s\n", h);
		}
		return 0;
	}
	for (i = 0; i < sizeof(rfc1321) / sizeof(rfc1321[0]); i++) {
		hex(rfc1321[i].in, h);
		if (strcmp(h, rfc1321[i].md5)) {
			printf("MD5(\"%s\") = %s, not %s\n", rfc1321[i].in, h,
			       rfc1321[i].md5);
			bad = 1;
		}
	}
	if (pc_md5_guid("main", 4) != 15822663052811949562ULL) {
		printf("GUID of main: %llu, not 15822663052811949562\n",
		       (unsigned long long)pc_md5_guid("main", 4));
		bad = 1;
	}
	return bad;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The program BOLT's profiles are tested on: a bytecode loop whose switch
 * becomes a jump table, a comparison called back from libc's qsort, a
 * recursive walk, and a cold error path. Linked static with
 * --emit-relocs, as llvm-bolt rewrites RISC-V binaries.
 *
 *   boltprog [ROUNDS]	(default 200)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_ADD, OP_SUB, OP_MUL, OP_XOR, OP_SHL, OP_JNZ, OP_DUP, OP_END };

static const unsigned char code[] = {
	OP_DUP, OP_ADD, OP_XOR, OP_SHL, OP_SUB, OP_MUL, OP_DUP, OP_XOR,
	OP_ADD, OP_JNZ, OP_END,
};

__attribute__((noinline)) static long run(long acc, int loops)
{
	long x = acc;
	int pc = 0;

	for (;;) {
		switch (code[pc++]) {
		case OP_ADD: acc += x; break;
		case OP_SUB: acc -= x >> 1; break;
		case OP_MUL: acc *= 3; break;
		case OP_XOR: acc ^= x << 2; break;
		case OP_SHL: acc = (acc << 1) | (acc < 0); break;
		case OP_DUP: x = acc + pc; break;
		case OP_JNZ:
			if (--loops > 0)
				pc = 0;
			break;
		case OP_END:
			return acc;
		default:
			fprintf(stderr, "boltprog: bad opcode at %d\n", pc - 1);
			exit(2);
		}
	}
}

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}

struct node {
	struct node *l, *r;
	unsigned int v;
};

__attribute__((noinline)) static unsigned long walk(const struct node *n)
{
	if (!n)
		return 0;
	return n->v + walk(n->l) + 2 * walk(n->r);
}

static struct node *build(struct node *pool, int *used, int depth,
			  unsigned int seed)
{
	struct node *n = &pool[(*used)++];

	n->v = seed;
	n->l = depth ? build(pool, used, depth - 1, seed * 7 + 1) : NULL;
	n->r = depth > 1 ? build(pool, used, depth - 2, seed * 13 + 5) : NULL;
	return n;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200, used = 0, i, k;
	static struct node pool[1 << 12];
	static unsigned int v[512];
	unsigned long sum = 0;
	struct node *root;

	if (rounds <= 0) {
		fprintf(stderr, "usage: boltprog [ROUNDS > 0]\n");
		return 2;
	}
	root = build(pool, &used, 14, 1);
	for (k = 0; k < rounds; k++) {
		unsigned int s = (unsigned int)k * 2654435761u;

		for (i = 0; i < 512; i++) {
			s ^= s << 13;
			s ^= s >> 17;
			s ^= s << 5;
			v[i] = s;
		}
		qsort(v, 512, sizeof(v[0]), cmp);
		sum += v[k & 511] + (unsigned long)run(k, 40) + walk(root);
	}
	printf("%lu\n", sum);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A pool of table slots that always hands out the lowest free one, in
 * constant time on average: a bit per slot (set: free), a bit per word of
 * those (set: the word has a free slot) and the lowest word that may have
 * one. Tables whose listing follows slot order (tunnels, neighbours) keep
 * the order a scan for the first free slot gave them, without the scan;
 * next hops take their slots here too. Control side only.
 */
#ifndef FOU_IDPOOL_H
#define FOU_IDPOOL_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_malloc.h>

struct fou_idpool {
	uint32_t n;		/* slots 0 .. n-1 */
	uint32_t nb_free;
	uint32_t low;		/* no free slot in a word below this one */
	uint32_t words;
	uint64_t *sum;		/* bit w: word w of bits has a free slot */
	uint64_t bits[];	/* bit i: slot i is free */
};

static inline struct fou_idpool *
fou_idpool_create(const char *name, uint32_t n, int socket_id)
{
	const uint32_t words = (n + 63) / 64, sum_words = (words + 63) / 64;
	struct fou_idpool *p;
	uint32_t i;

	p = rte_zmalloc_socket(name, sizeof(*p) + sizeof(uint64_t) * (words + sum_words),
			       RTE_CACHE_LINE_SIZE, socket_id);
	if (p == NULL)
		return NULL;
	p->n = n;
	p->nb_free = n;
	p->words = words;
	p->sum = p->bits + words;
	for (i = 0; i < n; i++) {
		p->bits[i / 64] |= UINT64_C(1) << (i % 64);
		p->sum[i / 4096] |= UINT64_C(1) << (i / 64 % 64);
	}
	return p;
}

static inline void
fou_idpool_free(struct fou_idpool *p)
{
	rte_free(p);
}

/* The lowest free slot, now taken; -1 when none is free. */
static inline int64_t
fou_idpool_get(struct fou_idpool *p)
{
	uint32_t s, w, b;

	if (p->nb_free == 0)
		return -1;
	for (s = p->low / 64; p->sum[s] == 0; s++)
		;
	w = s * 64 + (uint32_t)__builtin_ctzll(p->sum[s]);
	b = (uint32_t)__builtin_ctzll(p->bits[w]);
	p->low = w;
	p->bits[w] &= ~(UINT64_C(1) << b);
	if (p->bits[w] == 0)
		p->sum[s] &= ~(UINT64_C(1) << (w % 64));
	p->nb_free--;
	return (int64_t)w * 64 + b;
}

/* Slot i, taken by fou_idpool_get(), is free again. */
static inline void
fou_idpool_put(struct fou_idpool *p, uint32_t i)
{
	const uint32_t w = i / 64;

	p->bits[w] |= UINT64_C(1) << (i % 64);
	p->sum[w / 64] |= UINT64_C(1) << (w % 64);
	if (w < p->low)
		p->low = w;
	p->nb_free++;
}

#endif /* FOU_IDPOOL_H */

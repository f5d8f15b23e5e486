/* SPDX-License-Identifier: MIT */
/*
 * hpusim_list.h - the model's intrusive doubly linked list (part of the
 * private interface hpusim.h, which includes it).
 */
#ifndef HPUSIM_LIST_H
#define HPUSIM_LIST_H

#include <stdbool.h>
#include <stddef.h>

/**
 * struct hpusim_list - intrusive doubly linked list node or head
 * @next: next node (the head itself when last)
 * @prev: previous node
 */
struct hpusim_list {
	struct hpusim_list *next;
	struct hpusim_list *prev;
};

static inline void hpusim_list_init(struct hpusim_list *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool hpusim_list_empty(const struct hpusim_list *h)
{
	return h->next == h;
}

static inline void hpusim_list_add_tail(struct hpusim_list *n,
					struct hpusim_list *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void hpusim_list_del(struct hpusim_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	hpusim_list_init(n);
}

#define hpusim_container_of(ptr, type, member) \
	((type *)((char *)(ptr)-offsetof(type, member)))

#endif /* HPUSIM_LIST_H */

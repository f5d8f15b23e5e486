// SPDX-License-Identifier: MIT
/*
 * backend_hpu_replay.c - direct replay of a captured graph
 * (ht_graph_replay(), docs/training.md "Direct replay"): the captured
 * step's command buffers are submitted as they are, with only its
 * dynamic parameters patched in and its uploads' bytes copied again from
 * the host memory they were captured from (static inputs); the ops are
 * not issued again, so nothing is built, hashed or compared.
 *
 * A capture records, beside its ops, the host side of the step in order
 * (struct gev): each upload's staging offset and host source, each
 * fetch's staging offset and host destination, each segment submitted
 * and each wait. Staging is handed out from offset 0 after every wait,
 * so a replay finds the bytes at the offsets the capture used.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "backend_hpu.h"
#include "ht_error.h"

int ht_hb_graph_event(struct ht_backend *be, enum gev_kind kind, uint32_t seg,
		      size_t off, size_t n, const void *host)
{
	struct ht_hpu_be *hb = HB(be);
	struct graph *G = &hb->gr[hb->gi];
	struct gev *e;
	int ret;

	if (!hb->graph_step || !ht_hb_capturing(hb))
		return 0;
	ret = ht_hb_grow((void **)&G->evs, &G->evs_cap, G->nevs + 1,
			 sizeof(*G->evs));
	if (ret)
		return ret;
	e = &G->evs[G->nevs++];
	e->kind = kind;
	e->seg = seg;
	e->off = off;
	e->n = n;
	e->host = (void *)host; /* written back only for GEV_OUT */
	return 0;
}

void ht_hb_patch_dyn(struct graph *G, const struct gop *g,
		     const uint32_t *params, bool packed)
{
	struct seg *s = &G->ss.v[g->seg];
	uint8_t *pkt = (uint8_t *)hpu_cb_builder_data(s->cb[Q_TPC]) + g->off;
	unsigned int i, k = 0;

	/* the driver copies a CB at each submission: patch it here */
	for (i = 0; i < HPU_TPC_MAX_PARAMS; i++)
		if (g->dyn & (1U << i))
			memcpy(pkt +
				       offsetof(struct hpu_pkt_tpc_kernel,
						params) +
				       i * sizeof(uint32_t),
			       &params[packed ? k++ : i], sizeof(uint32_t));
}

/* Graph @gid can be replayed directly: 0, or why not (be->err says) */
static int replayable(struct ht_backend *be, unsigned int gid)
{
	struct ht_hpu_be *hb = HB(be);
	struct graph *G;

	if (be->mode != HT_EXEC_GRAPH) {
		ht_seterr(be->err, sizeof(be->err),
			  "graph replay: the backend is not in graph mode");
		return -EOPNOTSUPP;
	}
	if (gid >= HT_MAX_GRAPHS) {
		ht_seterr(be->err, sizeof(be->err),
			  "graph replay: no graph %u (0..%u)", gid,
			  HT_MAX_GRAPHS - 1);
		return -EINVAL;
	}
	G = &hb->gr[gid];
	if (G->state != G_READY) {
		ht_seterr(be->err, sizeof(be->err),
			  "graph replay: graph %u was not captured", gid);
		return -ENOENT;
	}
	if (G->no_direct) {
		ht_seterr(
			be->err, sizeof(be->err),
			"graph replay: graph %u waits for a prefetch; replay it step by step",
			gid);
		return -EOPNOTSUPP;
	}
	return 0;
}

int ht_hb_graph_info(struct ht_backend *be, unsigned int gid,
		     unsigned int *ndyn)
{
	int ret = replayable(be, gid);

	if (!ret)
		*ndyn = HB(be)->gr[gid].ndyn;
	return ret;
}

/* Patch every dynamic parameter of @G from @dyn (capture order) */
static void patch_all(struct graph *G, const uint32_t *dyn)
{
	unsigned int i;

	for (i = 0; i < G->ngops; i++) {
		const struct gop *g = &G->gops[i];

		if (g->dyn) {
			ht_hb_patch_dyn(G, g, dyn, true);
			dyn += __builtin_popcount(g->dyn);
		}
	}
}

int ht_hb_replay(struct ht_backend *be, unsigned int gid, const uint32_t *dyn,
		 unsigned int ndyn)
{
	struct ht_hpu_be *hb = HB(be);
	struct graph *G;
	const struct gev *e;
	unsigned int i;
	struct fetch *f;
	int ret;

	ret = replayable(be, gid);
	if (ret)
		return ret;
	G = &hb->gr[gid];
	if (ndyn != G->ndyn || (ndyn && !dyn)) {
		ht_seterr(
			be->err, sizeof(be->err),
			"graph replay: graph %u has %u dynamic parameters, %u given",
			gid, G->ndyn, dyn ? ndyn : 0);
		return -EINVAL;
	}
	/* the replay starts on an idle device, like a step */
	ret = be->ops->sync(be);
	if (ret)
		return ret;
	patch_all(G, dyn);
	for (i = 0; !ret && i < G->nevs; i++) {
		e = &G->evs[i];
		switch (e->kind) {
		case GEV_IN:
			memcpy(hb->stage + e->off, e->host, e->n);
			break;
		case GEV_OUT:
			ret = ht_hb_grow((void **)&hb->fetches, &hb->fetch_cap,
					 hb->nfetch + 1, sizeof(*hb->fetches));
			if (ret)
				break;
			f = &hb->fetches[hb->nfetch++];
			f->dst = e->host;
			f->src = hb->stage + e->off;
			f->n = e->n;
			break;
		case GEV_SUBMIT:
			ret = ht_hb_seg_submit(be, &G->ss.v[e->seg]);
			break;
		case GEV_WAIT:
			ret = ht_hb_wait_all(be);
			break;
		}
	}
	if (ret) {
		/* what was submitted has ended; its fetches are not done */
		hb->nfetch = 0;
		ht_hb_wait_all(be);
		return ret;
	}
	be->stats.replays++;
	return 0;
}

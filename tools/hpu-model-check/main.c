// SPDX-License-Identifier: MIT
/*
 * hpu-model-check - the timing model against the published figures it
 * must reproduce (docs/timing-model.md, "Checks"; make model-check).
 *
 *   hpu-model-check [--markdown] [--profiles]
 *
 * Prints one row per figure: chip, figure, published value, the model's
 * value, their difference and the tolerance. --markdown prints the same
 * rows as the table of docs/timing-model.md; --profiles prints the
 * profiles' figures instead.
 *
 * Exit status: 0 when every enforced figure is within its tolerance, 1
 * when one is not, 2 on a usage error or a figure the model cannot
 * compute.
 */
#include <stdio.h>
#include <string.h>

#include "hpusim_timing.h"

enum {
	OUT_TEXT,
	OUT_MARKDOWN
};

static const char *result_word(const struct hpusim_tm_check *c, bool within)
{
	if (!c->enforced)
		return "info";
	return within ? "ok" : "OUTSIDE";
}

static void print_row(int out, const struct hpusim_tm_check *c, double model,
		      bool within)
{
	double diff = (model - c->published) / c->published * 100.0;

	if (out == OUT_MARKDOWN) {
		printf("| %s | %s | %s | %.1f %s | %.1f | %+.1f%% | %s%.0f%% %s "
		       "| %s |\n",
		       c->profile, c->figure, c->source, c->published, c->unit,
		       model, diff, c->enforced ? "±" : "(±",
		       c->tolerance * 100,
		       c->enforced ? (within ? "ok" : "**outside**") : "info)",
		       c->note);
		return;
	}
	printf("%-7s %-40s %9.1f %9.1f %-8s %+6.1f%% %4.0f%%  %s\n", c->profile,
	       c->figure, c->published, model, c->unit, diff,
	       c->tolerance * 100, result_word(c, within));
}

static int check_all(int out)
{
	unsigned int i, n = hpusim_tm_check_count(), enforced = 0, bad = 0;

	if (out == OUT_MARKDOWN) {
		printf("| chip | figure | source | published | model | diff "
		       "| tolerance, result | note |\n");
		printf("|---|---|---|---|---|---|---|---|\n");
	} else {
		printf("%-7s %-40s %9s %9s %-8s %7s %5s  %s\n", "chip",
		       "figure", "published", "model", "unit", "diff", "tol",
		       "result");
	}
	for (i = 0; i < n; i++) {
		const struct hpusim_tm_check *c = hpusim_tm_check_at(i);
		double model;
		bool within;

		if (hpusim_tm_check_eval(c, &model)) {
			fprintf(stderr,
				"hpu-model-check: %s on %s: the model "
				"cannot compute it\n",
				c->figure, c->profile);
			return 2;
		}
		within = hpusim_tm_check_within(c, model);
		print_row(out, c, model, within);
		if (c->enforced) {
			enforced++;
			bad += !within;
		}
	}
	if (out == OUT_TEXT)
		printf("%u figures: %u enforced, %u within tolerance, %u "
		       "outside; %u for information\n",
		       n, enforced, enforced - bad, bad, n - enforced);
	return bad ? 1 : 0;
}

static void print_profiles(void)
{
	unsigned int i, d;

	for (i = 0; i < hpusim_tm_profile_count(); i++) {
		const struct hpusim_tm_profile *p = hpusim_tm_profile_at(i);

		printf("%s (%s)\n", p->name, p->card);
		printf("  MME        %u engines, tile %u, eff %.2f, fill %u k;"
		       " TFLOP/s:",
		       p->mme_count, p->mme_tile, p->mme_eff, p->mme_fill_k);
		for (d = 0; d < HPUSIM_TM_DTYPE_NR; d++)
			if (p->mme_tflops[d] > 0)
				printf(" %s %.1f", hpusim_tm_dtype_name(d),
				       p->mme_tflops[d]);
		printf("\n  TPC        %u x %u bit at %u MHz, eff %.2f\n",
		       p->tpc_count, p->tpc_vector_bits, p->clock_mhz,
		       p->tpc_eff);
		printf("  HBM        %u GiB, %.0f GB/s, eff %.2f\n", p->hbm_gib,
		       p->hbm_gbps, p->hbm_eff);
		printf("  DMA        %u engines x %.0f GB/s, latency %u ns "
		       "(device) %u ns (host)\n",
		       p->dma_count, p->dma_engine_gbps, p->dma_dev_latency_ns,
		       p->dma_host_latency_ns);
		printf("  PCIe       %.0f GB/s per direction, eff %.2f\n",
		       p->pcie_gbps, p->pcie_eff);
		printf("  NIC        %u x %u GbE (%u scale-up, %u scale-out), "
		       "%.2f GB/s payload per port, latency %u ns (+%u ns "
		       "switch)\n",
		       p->nic_ports, p->nic_gbit, p->nic_scaleup_ports,
		       p->nic_ports - p->nic_scaleup_ports,
		       hpusim_tm_nic_link_gbps(p), p->nic_latency_ns,
		       p->nic_switch_ns);
		printf("  server     %u cards; job launch %u ns\n",
		       p->server_cards, p->launch_ns);
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: hpu-model-check [--markdown] [--profiles]\n");
}

int main(int argc, char **argv)
{
	int out = OUT_TEXT, i;
	bool profiles = false;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--markdown")) {
			out = OUT_MARKDOWN;
		} else if (!strcmp(argv[i], "--profiles")) {
			profiles = true;
		} else if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (profiles) {
		print_profiles();
		return 0;
	}
	return check_all(out);
}

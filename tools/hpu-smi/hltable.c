// SPDX-License-Identifier: MIT
/*
 * hltable.c - the default output of hpu-smi invoked as hl-smi: hl-smi's
 * table (a block of two lines per AIP, then "Compute Processes"), every
 * device value read through libhlml as hl-smi reads it (docs/hpu-smi.md,
 * "The default table as hl-smi"). Under its own name hpu-smi keeps its
 * own table (table.c).
 */
#include <inttypes.h>
#include <string.h>

#include "hlml.h"
#include "smi.h"

#define MIB (1024ULL * 1024)

/* @buf receives a value of libhlml as text: N/A when not supported,
 * ERR! for another error */
static const char *val(char *buf, size_t len, hlml_return_t r, const char *fmt,
		       unsigned long long v)
{
	if (r == HLML_ERROR_NOT_SUPPORTED)
		snprintf(buf, len, "N/A");
	else if (r)
		snprintf(buf, len, "ERR!");
	else
		snprintf(buf, len, fmt, v);
	return buf;
}

static void print_header(FILE *f, const struct smi_sample *s)
{
	char line[128], ver[64];
	void *h;

	/* libhlml initialised (by the first handle) for the version */
	if (s->ndev)
		smi_hl_device(&s->devs[0], &h);
	if (hlml_get_driver_version(ver, sizeof(ver)))
		snprintf(ver, sizeof(ver), "%s", s->driver_version);
	smi_rule(f, '-', '+', false);
	snprintf(line, sizeof(line), " HL-SMI Version: %*s  ", SMI_WIDTH - 19,
		 "hl-" HPU_VERSION);
	smi_full_row(f, line);
	snprintf(line, sizeof(line), " Driver Version: %*s  ", SMI_WIDTH - 19,
		 ver);
	smi_full_row(f, line);
	smi_rule(f, '-', '|', true);
	smi_row(f, " AIP  Name       Persistence-M", " Bus-Id        Disp.A ",
		" Volatile Uncor-Events");
	smi_row(f, " Fan  Temp  Perf  Pwr:Usage/Cap", "         Memory-Usage ",
		" AIP-Util  Compute M. ");
	smi_rule(f, '=', '|', true);
}

/* One AIP: its two lines, each value through libhlml */
static int print_aip(FILE *f, const struct smi_dev *d)
{
	char a[128], b[128], c[128], pm_s[24], ecc[24], temp_s[24], perf[24];
	char pw[24], cap_s[24], used[24], total[24], util_s[24];
	hlml_enable_state_t pm = HLML_FEATURE_DISABLED;
	hlml_p_states_t ps = HLML_PSTATE_UNKNOWN;
	unsigned int temp = 0, mw = 0, cap = 0;
	hlml_utilization_t util = { 0 };
	unsigned long long n = 0;
	hlml_return_t r;
	hlml_memory_t mem;
	void *h;

	snprintf(a, sizeof(a), " %3d  %-15.15s", d->info.index, smi_name(d));
	if (smi_hl_device(d, &h)) {
		smi_row(f, a, " ERR!", " ERR!");
		smi_row(f, " ERR!", " ERR!", " ERR!");
		smi_rule(f, '-', '|', true);
		return SMI_EXIT_QUERY;
	}
	r = hlml_device_get_persistence_mode(h, &pm);
	val(pm_s, sizeof(pm_s), r, pm == HLML_FEATURE_ENABLED ? "On" : "Off",
	    0);
	snprintf(a + strlen(a), sizeof(a) - strlen(a), " %7s  ", pm_s);
	snprintf(b, sizeof(b), " %-13s %6s ", d->info.bus_id, "N/A");
	r = hlml_device_get_total_ecc_errors(
		h, HLML_MEMORY_ERROR_TYPE_UNCORRECTED, HLML_VOLATILE_ECC, &n);
	snprintf(c, sizeof(c), " %20s ", val(ecc, sizeof(ecc), r, "%llu", n));
	smi_row(f, a, b, c);

	r = hlml_device_get_temperature(h, HLML_TEMPERATURE_ON_AIP, &temp);
	val(temp_s, sizeof(temp_s), r, "%lluC", temp);
	r = hlml_device_get_performance_state(h, &ps);
	val(perf, sizeof(perf), r, ps == HLML_PSTATE_0 ? "P0" : "N/A", 0);
	r = hlml_device_get_power_usage(h, &mw);
	val(pw, sizeof(pw), r, "%lluW", mw / 1000u);
	r = hlml_device_get_power_management_default_limit(h, &cap);
	val(cap_s, sizeof(cap_s), r, "%lluW", cap / 1000u);
	snprintf(a, sizeof(a), " N/A  %4s  %4s  %5s / %5s", temp_s, perf, pw,
		 cap_s);
	memset(&mem, 0, sizeof(mem));
	r = hlml_device_get_memory_info(h, &mem);
	val(used, sizeof(used), r, "%lluMiB", mem.used / MIB);
	val(total, sizeof(total), r, "%lluMiB", mem.total / MIB);
	snprintf(b, sizeof(b), "%9s / %9s ", used, total);
	r = hlml_device_get_utilization_rates(h, &util);
	val(util_s, sizeof(util_s), r, "%llu%%", util.aip);
	snprintf(c, sizeof(c), " %7s  %10s ", util_s, "N/A");
	smi_row(f, a, b, c);
	smi_rule(f, '-', '|', true);
	return SMI_EXIT_OK;
}

#define PROC_ROW "  %3s %10s   %-4s   %-36.36s %13s"

/* Every compute context: AIP, PID, type C, command, device memory */
static void print_processes(FILE *f, const struct smi_sample *s)
{
	char line[128], idx[16], pid[16], mem[32];
	int i, j;

	smi_full_row(f, " Compute Processes:");
	snprintf(line, sizeof(line), PROC_ROW, "AIP", "PID", "Type",
		 "Process name", "AIP Memory");
	smi_full_row(f, line);
	smi_rule(f, '=', '|', false);
	for (i = 0; i < s->ndev; i++) {
		const struct smi_dev *d = &s->devs[i];

		snprintf(idx, sizeof(idx), "%d", d->info.index);
		/* a device nobody holds: a row of N/A, as hl-smi */
		if (!d->nprocs) {
			snprintf(line, sizeof(line), PROC_ROW, idx, "N/A",
				 "N/A", "N/A", "N/A");
			smi_full_row(f, line);
		}
		for (j = 0; j < d->nprocs; j++) {
			snprintf(pid, sizeof(pid), "%d", d->procs[j].pid);
			snprintf(mem, sizeof(mem), "%" PRIu64 "MiB",
				 (uint64_t)(d->procs[j].dram_bytes / MIB));
			snprintf(line, sizeof(line), PROC_ROW, idx, pid, "C",
				 d->procs[j].comm, mem);
			smi_full_row(f, line);
		}
	}
	smi_rule(f, '=', '+', false);
}

int smi_print_hl_table(FILE *f, const struct smi_sample *s)
{
	int i, status = SMI_EXIT_OK;

	fprintf(f, "%s\n", s->timestamp);
	print_header(f, s);
	for (i = 0; i < s->ndev; i++)
		if (print_aip(f, &s->devs[i]))
			status = SMI_EXIT_QUERY;
	print_processes(f, s);
	return status;
}

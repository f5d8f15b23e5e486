// SPDX-License-Identifier: MIT
/*
 * table.c - the human formats of hpu-smi: the default table, -L and -q.
 */
#include <inttypes.h>
#include <string.h>

#include "smi.h"

#define MIB ((uint64_t)1 << 20)

static void print_header(FILE *f, const struct smi_sample *s)
{
	char line[128];

	smi_rule(f, '-', '+', false);
	snprintf(line, sizeof(line), " HPU-SMI %-23s Driver Version: %s",
		 HPU_VERSION, s->driver_version);
	smi_full_row(f, line);
	smi_rule(f, '-', '|', true);
	smi_row(f, " HPU  Name                    ", " Bus-Id              ",
		" Status              ");
	smi_row(f, " Temp  Power:Usage/Cap        ", "         Memory-Usage ",
		" AIP-Util            ");
	smi_rule(f, '=', '|', true);
}

static void print_dev(FILE *f, const struct smi_dev *d)
{
	char a[64], b[64], c[64];

	snprintf(a, sizeof(a), " %3d  %-24s", d->info.index, smi_name(d));
	snprintf(b, sizeof(b), " %-20s", d->info.bus_id);
	snprintf(c, sizeof(c), " %-20s", smi_status(d));
	smi_row(f, a, b, c);
	if (d->kernel) {
		/* only the habanalabs driver could answer these */
		smi_row(f, "  N/A    N/A /   N/A", "     N/A /     N/A ",
			" N/A");
	} else if (d->err) {
		smi_row(f, " ERR!   ERR! /  ERR!", "  ERR!", " ERR!");
	} else {
		snprintf(a, sizeof(a), " %3dC  %5" PRIu64 "W / %5" PRIu64 "W",
			 d->thermal.temp_asic_mc / 1000,
			 (uint64_t)d->power.power_mw / 1000,
			 (uint64_t)d->power.power_cap_mw / 1000);
		snprintf(b, sizeof(b), "%6" PRIu64 "MiB / %6" PRIu64 "MiB ",
			 (uint64_t)d->dram.dram_used_mem / MIB,
			 (uint64_t)d->dram.dram_total_mem / MIB);
		snprintf(c, sizeof(c), " %3u%%", d->util.utilization);
		smi_row(f, a, b, c);
	}
	smi_rule(f, '-', '+', true);
}

static void print_processes(FILE *f, const struct smi_sample *s)
{
	char line[128];
	int i, j, n = 0;

	fputc('\n', f);
	smi_rule(f, '-', '+', false);
	smi_full_row(f, " Processes:");
	smi_full_row(
		f,
		"  HPU        PID  Process name                  HPU Memory Usage");
	smi_rule(f, '=', '|', false);
	for (i = 0; i < s->ndev; i++) {
		const struct smi_dev *d = &s->devs[i];

		for (j = 0; j < d->nprocs; j++, n++) {
			snprintf(line, sizeof(line),
				 "  %3d %10d  %-28.28s %13" PRIu64 "MiB",
				 d->info.index, d->procs[j].pid,
				 d->procs[j].comm,
				 (uint64_t)d->procs[j].dram_bytes / MIB);
			smi_full_row(f, line);
		}
	}
	if (!n)
		smi_full_row(f, "  No running processes found");
	smi_rule(f, '-', '+', false);
}

void smi_print_table(FILE *f, const struct smi_sample *s)
{
	int i;

	fprintf(f, "%s\n", s->timestamp);
	print_header(f, s);
	for (i = 0; i < s->ndev; i++)
		print_dev(f, &s->devs[i]);
	for (i = 0; i < s->ndev; i++)
		if (s->devs[i].model) {
			fprintf(f,
				"Pwr:Usage and AIP-Util: modeled by the timing "
				"model (hpu-fused --timing-model) on:");
			for (; i < s->ndev; i++)
				if (s->devs[i].model)
					fprintf(f, " %d",
						s->devs[i].info.index);
			fprintf(f, "\n");
		}
	print_processes(f, s);
}

void smi_print_list(FILE *f, const struct smi_sample *s)
{
	int i;

	for (i = 0; i < s->ndev; i++) {
		const struct hpu_device_info *in = &s->devs[i].info;
		char module[16] = "N/A";

		if (in->module_id >= 0)
			snprintf(module, sizeof(module), "%d", in->module_id);
		fprintf(f, "HPU %d: %s (bus %s, module %s, serial %s)\n",
			in->index, smi_name(&s->devs[i]),
			in->bus_id[0] ? in->bus_id : "N/A", module,
			in->serial[0] ? in->serial : "N/A");
	}
}

#define KV(indent, key, fmt, ...)                                          \
	fprintf(f, "%*s%-*s: " fmt "\n", (indent), "", 36 - (indent), key, \
		__VA_ARGS__)

static const char *na(const char *s)
{
	return s[0] ? s : "N/A";
}

/*
 * A kernel-backed device: the sysfs attributes libhpudrv read, and N/A
 * for everything only the device (through the habanalabs driver) knows.
 */
static void report_kernel_dev(FILE *f, const struct smi_dev *d)
{
	static const char *const sections[] = {
		"Firmware Version",
		"Memory Usage (HBM)",
		"Engines",
		"Utilization",
		"Temperature",
		"Power Readings",
		"Clocks",
		"Resets",
		"Command Submissions",
		"Contexts",
		"Per-Context Limits",
		"Processes",
	};
	size_t i;

	KV(4, "Driver Version", "%s", na(d->sys_driver));
	KV(4, "Device Node", "%s", na(d->info.node_path));
	fprintf(f, "    PCI\n");
	KV(8, "Bus Id", "%s", na(d->info.bus_id));
	KV(8, "Device Id", "0x%04x", d->info.device_id);
	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		KV(4, sections[i], "%s", "N/A");
}

static void report_dev(FILE *f, const struct smi_dev *d)
{
	double mc = 1000.0;
	int j;

	fprintf(f, "\nHPU %s\n", d->info.bus_id);
	KV(4, "Index", "%d", d->info.index);
	KV(4, "Kind", "%s", d->kernel ? "kernel (habanalabs)" : "simulated");
	KV(4, "Product Name", "%s", smi_name(d));
	KV(4, "Device Type", "%s", na(d->info.device_type));
	KV(4, "Serial Number", "%s", na(d->info.serial));
	if (d->info.module_id >= 0)
		KV(4, "Module ID", "%d", d->info.module_id);
	else
		KV(4, "Module ID", "%s", "N/A");
	KV(4, "Status", "%s", smi_status(d));
	if (d->kernel) {
		report_kernel_dev(f, d);
		return;
	}
	if (d->err) {
		KV(4, "Error", "%s", hpu_strerror(d->err));
		return;
	}
	KV(4, "Firmware Version", "%s", (const char *)d->hw.fw_version);
	KV(4, "Revision", "%u", d->hw.revision_id);
	fprintf(f, "    PCI\n");
	KV(8, "Bus Id", "%s", (const char *)d->pci.bus_id);
	KV(8, "Vendor Id", "0x%04x", d->pci.vendor_id);
	KV(8, "Device Id", "0x%04x", d->pci.device_id);
	KV(8, "Subsystem Id", "0x%04x%04x", d->pci.subsystem_device_id,
	   d->pci.subsystem_vendor_id);
	KV(8, "Link Speed", "%u MT/s", d->pci.link_speed_mts);
	KV(8, "Link Width", "x%u", d->pci.link_width);
	fprintf(f, "    Memory Usage (HBM)\n");
	KV(8, "Total", "%" PRIu64 " MiB",
	   (uint64_t)d->dram.dram_total_mem / MIB);
	KV(8, "Used", "%" PRIu64 " MiB", (uint64_t)d->dram.dram_used_mem / MIB);
	KV(8, "Free", "%" PRIu64 " MiB", (uint64_t)d->dram.dram_free_mem / MIB);
	KV(8, "SRAM", "%u KiB", d->hw.sram_size / 1024);
	fprintf(f, "    Engines\n");
	KV(8, "TPC", "%u", d->hw.num_tpc);
	KV(8, "MME", "%u", d->hw.num_mme);
	KV(8, "DMA", "%u", d->hw.num_dma);
	KV(8, "NIC Ports", "%u", d->hw.num_nic_ports);
	KV(8, "Queues", "%u", d->hw.num_queues);
	fprintf(f, "    Utilization\n");
	KV(8, "AIP", "%u %%", d->util.utilization);
	KV(8, "Source", "%s", smi_util_source(d));
	if (d->model) {
		KV(8, "Modeled DMA Busy", "%.3f ms", d->model_busy_ns[0] / 1e6);
		KV(8, "Modeled MME Busy", "%.3f ms", d->model_busy_ns[1] / 1e6);
		KV(8, "Modeled TPC Busy", "%.3f ms", d->model_busy_ns[2] / 1e6);
		KV(8, "Modeled NIC Busy", "%.3f ms", d->model_busy_ns[3] / 1e6);
		KV(8, "Modeled Jobs", "%llu",
		   (unsigned long long)d->model_jobs);
	}
	KV(8, "Idle", "%s", d->idle.is_idle ? "Yes" : "No");
	fprintf(f, "    Temperature\n");
	KV(8, "AIP Current Temp", "%.1f C", d->thermal.temp_asic_mc / mc);
	KV(8, "HBM Current Temp", "%.1f C", d->thermal.temp_hbm_mc / mc);
	KV(8, "AIP Slowdown Temp", "%.1f C", d->thermal.temp_slowdown_mc / mc);
	KV(8, "AIP Shutdown Temp", "%.1f C", d->thermal.temp_shutdown_mc / mc);
	fprintf(f, "    Power Readings\n");
	KV(8, "Power Draw", "%.2f W", (double)d->power.power_mw / mc);
	KV(8, "Source", "%s", smi_util_source(d));
	KV(8, "Power Limit", "%.2f W", (double)d->power.power_cap_mw / mc);
	KV(8, "Energy Consumption", "%.3f J", (double)d->power.energy_mj / mc);
	fprintf(f, "    Clocks\n");
	KV(8, "Current", "%u MHz", d->clk.cur_clk_rate_mhz);
	KV(8, "Max", "%u MHz", d->clk.max_clk_rate_mhz);
	fprintf(f, "    Resets\n");
	KV(8, "Hard", "%u", d->reset.hard_reset_cnt);
	KV(8, "Soft", "%u", d->reset.soft_reset_cnt);
	fprintf(f, "    Command Submissions\n");
	KV(8, "Submitted", "%" PRIu64, (uint64_t)d->cs.total_submitted);
	KV(8, "Completed", "%" PRIu64, (uint64_t)d->cs.total_completed);
	KV(8, "Timed Out", "%" PRIu64, (uint64_t)d->cs.total_timedout_cnt);
	KV(8, "Rejected (parsing)", "%" PRIu64,
	   (uint64_t)d->cs.total_parsing_drop_cnt);
	fprintf(f, "    Contexts\n");
	KV(8, "Compute Open", "%u", d->open.num_compute_ctx);
	KV(8, "Control Open", "%u", d->open.num_control_ctx);
	KV(8, "Opens Since Creation", "%" PRIu64,
	   (uint64_t)d->open.open_counter);
	fprintf(f, "    Per-Context Limits\n");
	if (!d->have_limits)
		fprintf(f, "        N/A\n");
	for (j = 0; d->have_limits && j < HPU_CTX_LIMIT_SLOTS &&
		    (uint32_t)j < d->limits.num_limits;
	     j++)
		if (hpu_ctx_limit_name((unsigned int)j))
			KV(8, hpu_ctx_limit_name((unsigned int)j), "%" PRIu64,
			   (uint64_t)d->limits.limits[j].limit);
	fprintf(f, "    Processes\n");
	if (!d->nprocs)
		fprintf(f, "        None\n");
	for (j = 0; j < d->nprocs; j++) {
		KV(8, "Process ID", "%d", d->procs[j].pid);
		KV(12, "Name", "%s", d->procs[j].comm);
		KV(12, "Used HBM", "%" PRIu64 " MiB",
		   (uint64_t)d->procs[j].dram_bytes / MIB);
	}
}

void smi_print_report(FILE *f, const struct smi_sample *s)
{
	int i;

	fprintf(f, "\n==============HPU-SMI LOG==============\n\n");
	KV(0, "Timestamp", "%s", s->timestamp);
	KV(0, "Driver Version", "%s", s->driver_version);
	KV(0, "HPU-SMI Version", "%s", HPU_VERSION);
	KV(0, "Attached HPUs", "%d", s->ndev);
	for (i = 0; i < s->ndev; i++)
		report_dev(f, &s->devs[i]);
}

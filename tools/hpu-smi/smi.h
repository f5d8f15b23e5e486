/* SPDX-License-Identifier: MIT */
/*
 * smi.h - what the files of hpu-smi share.
 */
#ifndef HPU_SMI_H
#define HPU_SMI_H

#include <stdbool.h>
#include <stdio.h>

#include "hpudrv.h"

/* Exit codes (docs/hpu-smi.md) */
#define SMI_EXIT_OK	    0
#define SMI_EXIT_ERROR	    1 /* enumeration or output failed */
#define SMI_EXIT_USAGE	    2 /* bad flag, field, format or id */
#define SMI_EXIT_QUERY	    3 /* a device could not be queried */
#define SMI_EXIT_NO_DEVICES 6 /* "No devices were found" */

/*
 * The name hpu-smi runs under: "hl-smi" when invoked as hl-smi (the compat
 * install's link), else "hpu-smi"; messages start with it
 */
extern const char *smi_prog;
extern bool smi_as_hl;

/* Averaging window of the utilization hpu-smi reports */
#define SMI_UTIL_PERIOD_MS 1000

/**
 * struct smi_dev - everything hpu-smi shows about one device, sampled
 * once per iteration through its control node
 * @info: enumeration data
 * @kernel: a kernel-backed (habanalabs) device: only what enumeration and
 *	its sysfs attributes give is known, the other values are N/A
 * @sys_status: kernel device: its sysfs "status", "" when absent
 * @sys_driver: kernel device: its sysfs "driver_version", "" when absent
 * @err: first -errno of the sample, 0 when every query succeeded
 * @procs: holders (compute contexts) of the device
 * @nprocs: entries of @procs
 * @have_limits: the driver answered HPU_INFO_CTX_LIMITS into @limits
 *	(the per-context limits; hpu-smi's own control context holds
 *	nothing, so only the limits are shown)
 * @model: the daemon counts modeled busy time (hpu-fused --timing-model;
 *	the model_busy attribute): @util and @power hold the modeled
 *	utilization and power, not the measured ones
 * @model_busy_ns: modeled busy ns since counting began, per engine class
 *	(DMA, MME, TPC, NIC)
 * @model_jobs: jobs counted
 * (the others are the INFO answers of the same names)
 */
struct smi_dev {
	struct hpu_device_info info;
	bool kernel;
	char sys_status[32];
	char sys_driver[64];
	int err;
	struct hpu_info_hw_ip_info hw;
	struct hpu_info_dram_usage dram;
	struct hpu_info_hw_idle idle;
	struct hpu_info_device_status status;
	struct hpu_info_device_utilization util;
	struct hpu_info_clk_rate clk;
	struct hpu_info_reset_count reset;
	struct hpu_info_power power;
	struct hpu_info_thermal thermal;
	struct hpu_info_pci pci;
	struct hpu_info_driver_version drv;
	struct hpu_info_open_stats open;
	struct hpu_info_cs_counters cs;
	struct hpu_process *procs;
	int nprocs;
	bool have_limits;
	struct hpu_info_ctx_limits limits;
	bool model;
	uint64_t model_busy_ns[4];
	uint64_t model_jobs;
};

/* "modeled" or "measured": where @d's utilization and power come from */
const char *smi_util_source(const struct smi_dev *d);

/**
 * struct smi_sample - one iteration's view of the selected devices
 * @devs: devices in index order
 * @ndev: entries of @devs
 * @driver_version: driver version string
 * @timestamp: local time of the sample, "YYYY/MM/DD HH:MM:SS.mmm"
 */
struct smi_sample {
	struct smi_dev *devs;
	int ndev;
	char driver_version[64];
	char timestamp[48];
};

/* Most items, and characters, of one comma-separated option value */
#define SMI_LIST_MAX 64
#define SMI_LIST_LEN 1024

/**
 * struct smi_list - the items of a comma-separated option value
 * @item: the items in order, blanks around them cut, none empty
 * @n: entries of @item, at least 1
 * @buf: storage of the items
 */
struct smi_list {
	const char *item[SMI_LIST_MAX];
	int n;
	char buf[SMI_LIST_LEN];
};

/**
 * smi_list_parse() - split the value of a list flag at its commas
 * @flag: the flag, for the message ("-i")
 * @value: its value
 * @l: receives the items
 *
 * An empty value, an empty (or blank) item - a leading, trailing or
 * doubled comma - too many items or a too long value are usage errors,
 * said on stderr.
 *
 * Return: 0 or -EINVAL.
 */
int smi_list_parse(const char *flag, const char *value, struct smi_list *l);

/* collect.c; without @query only enumeration data and versions */
int smi_sample(const struct hpu_device_info *sel, int nsel, bool query,
	       struct smi_sample *s);
void smi_sample_free(struct smi_sample *s);
const char *smi_status(const struct smi_dev *d);
const char *smi_name(const struct smi_dev *d);

/* frame.c: the tables' columns, | 31 | 22 | 22 | = 79 characters */
#define SMI_COL1  31
#define SMI_COL2  22
#define SMI_COL3  22
#define SMI_WIDTH (SMI_COL1 + SMI_COL2 + SMI_COL3 + 2)

/* @edge, then SMI_WIDTH @fill ('+' at the column bars when @cols), @edge */
void smi_rule(FILE *f, char fill, char edge, bool cols);
/* One line of three cells, each cut to its column */
void smi_row(FILE *f, const char *a, const char *b, const char *c);
/* One line of one cell across the table, cut to it */
void smi_full_row(FILE *f, const char *text);

/* table.c */
void smi_print_table(FILE *f, const struct smi_sample *s);
void smi_print_list(FILE *f, const struct smi_sample *s);
void smi_print_report(FILE *f, const struct smi_sample *s);

/* query.c */
struct smi_query;
int smi_query_parse(const struct smi_list *fields,
		    const struct smi_list *format, struct smi_query **qp);
void smi_query_print(FILE *f, const struct smi_query *q,
		     const struct smi_sample *s, bool first);
void smi_query_free(struct smi_query *q);
void smi_query_help(FILE *f);

/* query.c, hlquery.c: one value of a --query-aip field */
enum smi_val_type {
	SMI_V_INT,
	SMI_V_REAL,
	SMI_V_STR,
	SMI_V_ERR,
	SMI_V_NA /* the device (kind) has no such value */
};

struct smi_val {
	enum smi_val_type type;
	long long i;
	double r;
	char s[64];
};

/**
 * enum smi_hl_id - the query fields whose values come from libhlml, as
 * hl-smi's do (SMI_HL_NONE: from libhpudrv, hpu-smi's own fields)
 */
enum smi_hl_id {
	SMI_HL_NONE,
	SMI_HL_NAME,
	SMI_HL_BUS_ID,
	SMI_HL_UUID,
	SMI_HL_SERIAL,
	SMI_HL_MODULE_ID,
	SMI_HL_DRIVER_VERSION,
	SMI_HL_TEMP_AIP,
	SMI_HL_UTIL_AIP,
	SMI_HL_MEM_TOTAL,
	SMI_HL_MEM_USED,
	SMI_HL_MEM_FREE,
	SMI_HL_POWER_DRAW,
	SMI_HL_POWER_MAX,
	SMI_HL_ECC_MODE_CUR,
	SMI_HL_ECC_MODE_PEND,
	SMI_HL_VIOL_POWER,
	SMI_HL_VIOL_THERMAL,
	/* in the order of enum hlml_clock_type */
	SMI_HL_CLK_CUR_SOC,
	SMI_HL_CLK_CUR_IC,
	SMI_HL_CLK_CUR_MME,
	SMI_HL_CLK_CUR_TPC,
	SMI_HL_CLK_MAX_SOC,
	SMI_HL_CLK_MAX_IC,
	SMI_HL_CLK_MAX_MME,
	SMI_HL_CLK_MAX_TPC,
	SMI_HL_ECC_CORR_VOL,
	SMI_HL_ECC_CORR_AGG,
	SMI_HL_ECC_UNCORR_VOL,
	SMI_HL_ECC_UNCORR_AGG,
	SMI_HL_ECC_DRAM_VOL,
	SMI_HL_ECC_DRAM_AGG,
	SMI_HL_ECC_DRAM_CORR_VOL,
	SMI_HL_ECC_DRAM_CORR_AGG,
};

/**
 * smi_hl_value() - a device's value of an hl-smi field, through libhlml
 * @id: the field
 * @d: the device (found in libhlml by its bus id)
 * @v: receives the value; SMI_V_NA where libhlml answers
 *	HLML_ERROR_NOT_SUPPORTED, SMI_V_ERR for its other errors
 *
 * The first call initialises libhlml; smi_hl_close() shuts it down.
 */
void smi_hl_value(enum smi_hl_id id, const struct smi_dev *d,
		  struct smi_val *v);
void smi_hl_close(void);

/**
 * smi_hl_device() - libhlml's handle (an hlml_device_t) of a device
 * @d: the device, found by its bus id
 * @handle: receives the handle
 *
 * Return: 0, or -ENODEV when libhlml cannot be initialised or does not
 * know the device.
 */
int smi_hl_device(const struct smi_dev *d, void **handle);

/* hlsections.c: -q [-d SECTION[,SECTION...]] in hl-smi's layout */
#define SMI_HL_SECTIONS_ALL 0x7fu
int smi_hl_sections_parse(const struct smi_list *l, unsigned int *mask);
void smi_print_hl_sections(FILE *f, const struct smi_sample *s,
			   unsigned int mask);

/* hlnic.c: -n link|ports|stats, hl-smi's NIC port views */
enum smi_nic_view {
	SMI_NIC_LINK,
	SMI_NIC_PORTS,
	SMI_NIC_STATS,
};

/**
 * smi_nic_view_parse() - the view named by -n
 * @arg: "link", "ports" or "stats"
 * @v: receives it
 *
 * Return: 0, or -EINVAL (said on stderr) for another name.
 */
int smi_nic_view_parse(const char *arg, enum smi_nic_view *v);

/*
 * The printers of hl-smi's other outputs return SMI_EXIT_OK, or
 * SMI_EXIT_QUERY when a device could not be read (its error on stderr).
 */
int smi_print_nic(FILE *f, const struct smi_sample *s, enum smi_nic_view v);

/* hlfw.c: --fw-versions */
int smi_print_fw_versions(FILE *f, const struct smi_sample *s);

/* hltable.c: the default table when invoked as hl-smi */
int smi_print_hl_table(FILE *f, const struct smi_sample *s);

/**
 * smi_topo_main() - "topo [-m] [-c] [-N]": the connectivity matrix
 * @argc: arguments from "topo" on
 * @argv: their values, argv[0] "topo"
 *
 * Return: the exit code (SMI_EXIT_*).
 */
int smi_topo_main(int argc, char **argv);

/* hotplug.c: run the request, return the exit code */
int smi_hot_add(const char *type);
int smi_hot_remove(const char *arg);

/* reset.c: -r */
int smi_reset_kind(const char *arg);
int smi_reset(const struct hpu_device_info *sel, int nsel, unsigned int kind);

#endif /* HPU_SMI_H */

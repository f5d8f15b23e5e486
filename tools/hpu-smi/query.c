// SPDX-License-Identifier: MIT
/*
 * query.c - hpu-smi --query-hpu=FIELDS with --format=csv[,noheader]
 * [,nounits] or json.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "smi.h"

#define MIB ((uint64_t)1 << 20)

enum field_id {
	F_INDEX,
	F_NAME,
	F_BUS_ID,
	F_MODULE_ID,
	F_SERIAL,
	F_DEVICE_TYPE,
	F_DRIVER_VERSION,
	F_TEMPERATURE,
	F_POWER_DRAW,
	F_POWER_MAX,
	F_MEMORY_TOTAL,
	F_MEMORY_USED,
	F_MEMORY_FREE,
	F_UTILIZATION,
	F_STATUS,
	F_RESET_HARD,
	F_RESET_SOFT,
	F_CLOCKS_CURRENT,
	F_CLOCKS_MAX,
	F_TIMESTAMP,
};

/**
 * struct field - one --query-hpu field
 * @name: name on the command line and in headers
 * @alias: other accepted name, or NULL
 * @unit: unit of the value, or NULL
 * @id: enum field_id
 * @help: one-line description for --help-query
 */
struct field {
	const char *name;
	const char *alias;
	const char *unit;
	enum field_id id;
	const char *help;
};

static const struct field fields[] = {
	{ "index", NULL, NULL, F_INDEX, "N of the node hpuN" },
	{ "name", NULL, NULL, F_NAME, "marketing name, e.g. HL-225" },
	{ "bus_id", "pci.bus_id", NULL, F_BUS_ID, "PCI bus id DDDD:BB:DD.F" },
	{ "module_id", NULL, NULL, F_MODULE_ID, "OAM module id in the server" },
	{ "serial", NULL, NULL, F_SERIAL, "serial number" },
	{ "device_type", NULL, NULL, F_DEVICE_TYPE, "GAUDI, GAUDI2 or GAUDI3" },
	{ "driver_version", NULL, NULL, F_DRIVER_VERSION, "driver version" },
	{ "temperature.aip", "temperature.hpu", "C", F_TEMPERATURE,
	  "ASIC temperature, degrees Celsius" },
	{ "power.draw", NULL, "W", F_POWER_DRAW, "board power now, watts" },
	{ "power.max", "power.limit", "W", F_POWER_MAX, "power cap, watts" },
	{ "memory.total", NULL, "MiB", F_MEMORY_TOTAL, "HBM size, MiB" },
	{ "memory.used", NULL, "MiB", F_MEMORY_USED,
	  "HBM allocated by all contexts, MiB" },
	{ "memory.free", NULL, "MiB", F_MEMORY_FREE, "HBM free, MiB" },
	{ "utilization.aip", "utilization.hpu", "%", F_UTILIZATION,
	  "percent of the last second any engine was busy" },
	{ "status", NULL, NULL, F_STATUS,
	  "operational, in reset, malfunction, needs reset, removed" },
	{ "reset.hard", NULL, NULL, F_RESET_HARD, "hard resets" },
	{ "reset.soft", NULL, NULL, F_RESET_SOFT, "soft resets" },
	{ "clocks.current", NULL, "MHz", F_CLOCKS_CURRENT, "core clock, MHz" },
	{ "clocks.max", NULL, "MHz", F_CLOCKS_MAX, "maximum core clock, MHz" },
	{ "timestamp", NULL, NULL, F_TIMESTAMP,
	  "time of the sample, YYYY/MM/DD HH:MM:SS.mmm" },
};

#define NFIELDS	  (sizeof(fields) / sizeof(fields[0]))
#define MAX_QUERY SMI_LIST_MAX

/**
 * struct smi_query - a parsed --query-hpu/--format pair
 * @field: requested fields, in order
 * @label: names as the user spelled them (alias or name)
 * @n: entries of @field
 * @json: JSON output
 * @header: print the CSV header
 * @units: print units in CSV values and header
 */
struct smi_query {
	const struct field *field[MAX_QUERY];
	char label[MAX_QUERY][32];
	int n;
	bool json;
	bool header;
	bool units;
};

enum val_type {
	V_INT,
	V_REAL,
	V_STR,
	V_ERR,
	V_NA /* the device kind has no such value (kernel devices) */
};

struct val {
	enum val_type type;
	long long i;
	double r;
	char s[64];
};

static const struct field *field_find(const char *name)
{
	size_t i;

	for (i = 0; i < NFIELDS; i++)
		if (!strcmp(fields[i].name, name) ||
		    (fields[i].alias && !strcmp(fields[i].alias, name)))
			return &fields[i];
	return NULL;
}

/* @format: the -f items, NULL for the default csv */
static int parse_format(const struct smi_list *format, struct smi_query *q)
{
	bool csv = !format;
	int i;

	q->header = true;
	q->units = true;
	for (i = 0; format && i < format->n; i++) {
		const char *opt = format->item[i];

		if (!strcmp(opt, "csv"))
			csv = true;
		else if (!strcmp(opt, "json"))
			q->json = true;
		else if (!strcmp(opt, "noheader"))
			q->header = false;
		else if (!strcmp(opt, "nounits"))
			q->units = false;
		else
			goto err_bad;
	}
	if (q->json && (csv || !q->header || !q->units)) {
		fprintf(stderr,
			"hpu-smi: format json takes no other options\n");
		return -EINVAL;
	}
	if (!q->json && !csv)
		goto err_bad;
	return 0;

err_bad:
	fprintf(stderr,
		"hpu-smi: invalid format '%s' (use csv[,noheader][,nounits] or json)\n",
		format->item[i < format->n ? i : 0]);
	return -EINVAL;
}

int smi_query_parse(const struct smi_list *list, const struct smi_list *format,
		    struct smi_query **qp)
{
	const struct field *fld;
	struct smi_query *q;
	int i, ret;

	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	ret = parse_format(format, q);
	if (ret)
		goto err_free;
	ret = -EINVAL;
	for (i = 0; i < list->n; i++) {
		fld = field_find(list->item[i]);
		if (!fld) {
			fprintf(stderr,
				"hpu-smi: unknown field '%s' (see hpu-smi --help-query)\n",
				list->item[i]);
			goto err_free;
		}
		q->field[q->n] = fld;
		snprintf(q->label[q->n], sizeof(q->label[0]), "%s",
			 list->item[i]);
		q->n++;
	}
	*qp = q;
	return 0;

err_free:
	free(q);
	return ret;
}

void smi_query_free(struct smi_query *q)
{
	free(q);
}

static void set_str(struct val *v, const char *s)
{
	v->type = V_STR;
	snprintf(v->s, sizeof(v->s), "%s", s);
}

static void set_int(struct val *v, long long i)
{
	v->type = V_INT;
	v->i = i;
}

static void field_value(const struct field *fl, const struct smi_dev *d,
			const struct smi_sample *s, struct val *v)
{
	memset(v, 0, sizeof(*v));
	switch (fl->id) {
	case F_INDEX:
		set_int(v, d->info.index);
		return;
	case F_NAME:
		set_str(v, smi_name(d));
		return;
	case F_BUS_ID:
		set_str(v, d->info.bus_id);
		return;
	case F_MODULE_ID:
		if (d->info.module_id < 0)
			v->type = V_NA;
		else
			set_int(v, d->info.module_id);
		return;
	case F_SERIAL:
		set_str(v, d->info.serial);
		return;
	case F_DEVICE_TYPE:
		set_str(v, d->info.device_type);
		return;
	case F_DRIVER_VERSION:
		if (d->kernel && !d->sys_driver[0])
			v->type = V_NA;
		else
			set_str(v,
				d->kernel ? d->sys_driver : s->driver_version);
		return;
	case F_TIMESTAMP:
		set_str(v, s->timestamp);
		return;
	default:
		break;
	}
	/* a kernel device: its sysfs status, nothing the device answers */
	if (d->kernel) {
		if (fl->id == F_STATUS && d->sys_status[0])
			set_str(v, d->sys_status);
		else
			v->type = V_NA;
		return;
	}
	if (d->err) {
		v->type = V_ERR;
		return;
	}
	switch (fl->id) {
	case F_TEMPERATURE:
		set_int(v, d->thermal.temp_asic_mc / 1000);
		return;
	case F_POWER_DRAW:
		v->type = V_REAL;
		v->r = (double)d->power.power_mw / 1000.0;
		return;
	case F_POWER_MAX:
		v->type = V_REAL;
		v->r = (double)d->power.power_cap_mw / 1000.0;
		return;
	case F_MEMORY_TOTAL:
		set_int(v, (long long)(d->dram.dram_total_mem / MIB));
		return;
	case F_MEMORY_USED:
		set_int(v, (long long)(d->dram.dram_used_mem / MIB));
		return;
	case F_MEMORY_FREE:
		set_int(v, (long long)(d->dram.dram_free_mem / MIB));
		return;
	case F_UTILIZATION:
		set_int(v, d->util.utilization);
		return;
	case F_STATUS:
		set_str(v, smi_status(d));
		return;
	case F_RESET_HARD:
		set_int(v, d->reset.hard_reset_cnt);
		return;
	case F_RESET_SOFT:
		set_int(v, d->reset.soft_reset_cnt);
		return;
	case F_CLOCKS_CURRENT:
		set_int(v, d->clk.cur_clk_rate_mhz);
		return;
	case F_CLOCKS_MAX:
		set_int(v, d->clk.max_clk_rate_mhz);
		return;
	default:
		v->type = V_ERR;
	}
}

static void print_csv(FILE *f, const struct smi_query *q,
		      const struct smi_sample *s, bool first)
{
	struct val v;
	int i, k;

	if (first && q->header) {
		for (k = 0; k < q->n; k++) {
			fprintf(f, "%s%s", k ? ", " : "", q->label[k]);
			if (q->units && q->field[k]->unit)
				fprintf(f, " [%s]", q->field[k]->unit);
		}
		fputc('\n', f);
	}
	for (i = 0; i < s->ndev; i++) {
		for (k = 0; k < q->n; k++) {
			const char *unit = q->units ? q->field[k]->unit : NULL;

			field_value(q->field[k], &s->devs[i], s, &v);
			if (k)
				fputs(", ", f);
			if (v.type == V_STR)
				fputs(v.s, f);
			else if (v.type == V_ERR)
				fputs("[ERR!]", f);
			else if (v.type == V_NA)
				fputs("[N/A]", f);
			else if (v.type == V_INT)
				fprintf(f, "%lld", v.i);
			else
				fprintf(f, "%.2f", v.r);
			if (unit && (v.type == V_INT || v.type == V_REAL))
				fprintf(f, " %s", unit);
		}
		fputc('\n', f);
	}
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void print_json(FILE *f, const struct smi_query *q,
		       const struct smi_sample *s)
{
	struct val v;
	int i, k;

	fprintf(f, "{\n  \"hpus\": [");
	for (i = 0; i < s->ndev; i++) {
		fprintf(f, "%s\n    {", i ? "," : "");
		for (k = 0; k < q->n; k++) {
			field_value(q->field[k], &s->devs[i], s, &v);
			fprintf(f, "%s\n      ", k ? "," : "");
			json_string(f, q->label[k]);
			fputs(": ", f);
			if (v.type == V_STR)
				json_string(f, v.s);
			else if (v.type == V_ERR || v.type == V_NA)
				fputs("null", f);
			else if (v.type == V_INT)
				fprintf(f, "%lld", v.i);
			else
				fprintf(f, "%.2f", v.r);
		}
		fprintf(f, "\n    }");
	}
	fprintf(f, "%s]\n}\n", s->ndev ? "\n  " : "");
}

void smi_query_print(FILE *f, const struct smi_query *q,
		     const struct smi_sample *s, bool first)
{
	if (q->json)
		print_json(f, q, s);
	else
		print_csv(f, q, s, first);
}

void smi_query_help(FILE *f)
{
	size_t i;

	fprintf(f, "Fields of --query-hpu (units as printed with csv; json "
		   "values are bare numbers in the same units):\n\n");
	for (i = 0; i < NFIELDS; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%s%s%s", fields[i].name,
			 fields[i].alias ? " | " : "",
			 fields[i].alias ? fields[i].alias : "");
		fprintf(f, "  %-36s %s\n", name, fields[i].help);
	}
}

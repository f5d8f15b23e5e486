// SPDX-License-Identifier: MIT
/*
 * query.c - hpu-smi --query-aip=FIELDS (--query-hpu, -Q) with
 * --format=csv[,noheader][,nounits] or json; hl-smi's fields read
 * through libhlml (hlquery.c), hpu-smi's own through libhpudrv.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "smi.h"

enum field_id {
	F_INDEX,
	F_DEVICE_TYPE,
	F_STATUS,
	F_RESET_HARD,
	F_RESET_SOFT,
	F_CLOCKS_CURRENT,
	F_CLOCKS_MAX,
	F_TIMESTAMP,
	F_UTIL_SOURCE,
	F_MODEL_MME,
	F_HLML, /* value through libhlml: struct field's @hl */
};

/**
 * struct field - one --query-hpu field
 * @name: name on the command line and in headers
 * @alias: other accepted name, or NULL
 * @unit: unit of the value, or NULL
 * @id: enum field_id
 * @help: one-line description for --help-query
 * @hl: hl-smi's fields: where libhlml has the value (the field is
 *	then read through libhlml, as hl-smi reads it; @id is F_HLML)
 */
struct field {
	const char *name;
	const char *alias;
	const char *unit;
	enum field_id id;
	const char *help;
	enum smi_hl_id hl;
};

#define HL(name, unit, hl, help)                   \
	{                                          \
		name, NULL, unit, F_HLML, help, hl \
	}

static const struct field fields[] = {
	{ "index", NULL, NULL, F_INDEX, "N of the node hpuN", SMI_HL_NONE },
	{ "name", NULL, NULL, F_HLML, "marketing name, e.g. HL-225",
	  SMI_HL_NAME },
	{ "bus_id", "pci.bus_id", NULL, F_HLML, "PCI bus id DDDD:BB:DD.F",
	  SMI_HL_BUS_ID },
	HL("uuid", NULL, SMI_HL_UUID, "the device's stable UUID"),
	{ "module_id", NULL, NULL, F_HLML, "OAM module id in the server",
	  SMI_HL_MODULE_ID },
	HL("serial", NULL, SMI_HL_SERIAL, "serial number"),
	{ "device_type", NULL, NULL, F_DEVICE_TYPE, "GAUDI, GAUDI2 or GAUDI3",
	  SMI_HL_NONE },
	HL("driver_version", NULL, SMI_HL_DRIVER_VERSION, "driver version"),
	{ "temperature.aip", "temperature.hpu", "C", F_HLML,
	  "ASIC temperature, degrees Celsius", SMI_HL_TEMP_AIP },
	HL("power.draw", "W", SMI_HL_POWER_DRAW, "board power now, watts"),
	{ "power.max", "power.limit", "W", F_HLML, "power cap, watts",
	  SMI_HL_POWER_MAX },
	HL("memory.total", "MiB", SMI_HL_MEM_TOTAL, "HBM size, MiB"),
	HL("memory.used", "MiB", SMI_HL_MEM_USED,
	   "HBM allocated by all contexts, MiB"),
	HL("memory.free", "MiB", SMI_HL_MEM_FREE, "HBM free, MiB"),
	{ "utilization.aip", "utilization.hpu", "%", F_HLML,
	  "percent of the last second any engine was busy", SMI_HL_UTIL_AIP },
	{ "utilization.source", NULL, NULL, F_UTIL_SOURCE,
	  "modeled (hpu-fused --timing-model: utilization.aip and power.draw "
	  "by the timing model) or measured",
	  SMI_HL_NONE },
	{ "busy.modeled.mme", NULL, "ms", F_MODEL_MME,
	  "MME busy time by the timing model since counting began, ms (N/A: "
	  "not counting)",
	  SMI_HL_NONE },
	{ "status", NULL, NULL, F_STATUS,
	  "operational, in reset, malfunction, needs reset, removed",
	  SMI_HL_NONE },
	{ "reset.hard", NULL, NULL, F_RESET_HARD, "hard resets", SMI_HL_NONE },
	{ "reset.soft", NULL, NULL, F_RESET_SOFT, "soft resets", SMI_HL_NONE },
	{ "clocks.current", NULL, "MHz", F_CLOCKS_CURRENT, "core clock, MHz",
	  SMI_HL_NONE },
	{ "clocks.max", NULL, "MHz", F_CLOCKS_MAX, "maximum core clock, MHz",
	  SMI_HL_NONE },
	HL("clocks.current.soc", "MHz", SMI_HL_CLK_CUR_SOC, "SoC clock, MHz"),
	HL("clocks.current.ic", "MHz", SMI_HL_CLK_CUR_IC,
	   "interconnect clock, MHz"),
	HL("clocks.current.mme", "MHz", SMI_HL_CLK_CUR_MME,
	   "matrix engines' clock, MHz"),
	HL("clocks.current.tpc", "MHz", SMI_HL_CLK_CUR_TPC,
	   "tensor cores' clock, MHz"),
	HL("clocks.max.soc", "MHz", SMI_HL_CLK_MAX_SOC,
	   "maximum SoC clock, MHz"),
	HL("clocks.max.ic", "MHz", SMI_HL_CLK_MAX_IC,
	   "maximum interconnect clock, MHz"),
	HL("clocks.max.mme", "MHz", SMI_HL_CLK_MAX_MME,
	   "maximum matrix engines' clock, MHz"),
	HL("clocks.max.tpc", "MHz", SMI_HL_CLK_MAX_TPC,
	   "maximum tensor cores' clock, MHz"),
	HL("ecc.errors.corrected.volatile.total", NULL, SMI_HL_ECC_CORR_VOL,
	   "corrected ECC errors since the last reset"),
	HL("ecc.errors.corrected.aggregate.total", NULL, SMI_HL_ECC_CORR_AGG,
	   "corrected ECC errors over the device's life"),
	HL("ecc.errors.uncorrected.volatile.total", NULL, SMI_HL_ECC_UNCORR_VOL,
	   "uncorrected ECC errors since the last reset"),
	HL("ecc.errors.uncorrected.aggregate.total", NULL,
	   SMI_HL_ECC_UNCORR_AGG,
	   "uncorrected ECC errors over the device's life"),
	HL("ecc.errors.dram.volatile.total", NULL, SMI_HL_ECC_DRAM_VOL,
	   "uncorrected HBM ECC errors since the last reset"),
	HL("ecc.errors.dram.aggregate.total", NULL, SMI_HL_ECC_DRAM_AGG,
	   "uncorrected HBM ECC errors over the device's life"),
	HL("ecc.errors.dram-corrected.volatile.total", NULL,
	   SMI_HL_ECC_DRAM_CORR_VOL,
	   "corrected HBM ECC errors since the last reset"),
	HL("ecc.errors.dram-corrected.aggregate.total", NULL,
	   SMI_HL_ECC_DRAM_CORR_AGG,
	   "corrected HBM ECC errors over the device's life"),
	HL("ecc.mode.current", NULL, SMI_HL_ECC_MODE_CUR,
	   "ECC mode in force: Enabled or Disabled"),
	HL("ecc.mode.pending", NULL, SMI_HL_ECC_MODE_PEND,
	   "ECC mode after the next reset"),
	HL("stats.violation.power", NULL, SMI_HL_VIOL_POWER,
	   "time the power cap held the clock back (N/A: not accounted)"),
	HL("stats.violation.thermal", NULL, SMI_HL_VIOL_THERMAL,
	   "time the temperature held the clock back (N/A: not accounted)"),
	{ "timestamp", NULL, NULL, F_TIMESTAMP,
	  "time of the sample, YYYY/MM/DD HH:MM:SS.mmm", SMI_HL_NONE },
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
	char label[MAX_QUERY][48];
	int n;
	bool json;
	bool header;
	bool units;
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
		fprintf(stderr, "%s: format json takes no other options\n",
			smi_prog);
		return -EINVAL;
	}
	if (!q->json && !csv)
		goto err_bad;
	return 0;

err_bad:
	fprintf(stderr,
		"%s: invalid format '%s' (use csv[,noheader][,nounits] or json)\n",
		smi_prog, format->item[i < format->n ? i : 0]);
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
				"%s: unknown field '%s' (see %s --help-query)\n",
				smi_prog, list->item[i], smi_prog);
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

static void set_str(struct smi_val *v, const char *s)
{
	v->type = SMI_V_STR;
	snprintf(v->s, sizeof(v->s), "%s", s);
}

static void set_int(struct smi_val *v, long long i)
{
	v->type = SMI_V_INT;
	v->i = i;
}

static void field_value(const struct field *fl, const struct smi_dev *d,
			const struct smi_sample *s, struct smi_val *v)
{
	if (fl->id == F_HLML && d->model && !d->err &&
	    (fl->hl == SMI_HL_UTIL_AIP || fl->hl == SMI_HL_POWER_DRAW)) {
		/* the daemon's modeled figures (utilization.source) */
		memset(v, 0, sizeof(*v));
		if (fl->hl == SMI_HL_UTIL_AIP) {
			set_int(v, d->util.utilization);
		} else {
			v->type = SMI_V_REAL;
			v->r = (double)d->power.power_mw / 1000.0;
		}
		return;
	}
	if (fl->id == F_HLML) {
		smi_hl_value(fl->hl, d, v);
		/* a driver without the version attribute: the daemon's
		 * INFO answer, or a kernel device's sysfs driver_version */
		if (fl->hl == SMI_HL_DRIVER_VERSION && v->type == SMI_V_NA &&
		    strcmp(s->driver_version, "N/A"))
			set_str(v, s->driver_version);
		return;
	}
	memset(v, 0, sizeof(*v));
	switch (fl->id) {
	case F_INDEX:
		set_int(v, d->info.index);
		return;
	case F_DEVICE_TYPE:
		set_str(v, d->info.device_type);
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
			v->type = SMI_V_NA;
		return;
	}
	if (d->err) {
		v->type = SMI_V_ERR;
		return;
	}
	switch (fl->id) {
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
	case F_UTIL_SOURCE:
		set_str(v, smi_util_source(d));
		return;
	case F_MODEL_MME:
		if (!d->model) {
			v->type = SMI_V_NA;
			return;
		}
		v->type = SMI_V_REAL;
		v->r = (double)d->model_busy_ns[1] / 1e6;
		return;
	default:
		v->type = SMI_V_ERR;
	}
}

static void print_csv(FILE *f, const struct smi_query *q,
		      const struct smi_sample *s, bool first)
{
	struct smi_val v;
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
			if (v.type == SMI_V_STR)
				fputs(v.s, f);
			else if (v.type == SMI_V_ERR)
				fputs("[ERR!]", f);
			else if (v.type == SMI_V_NA)
				fputs("[N/A]", f);
			else if (v.type == SMI_V_INT)
				fprintf(f, "%lld", v.i);
			else
				fprintf(f, "%.2f", v.r);
			if (unit &&
			    (v.type == SMI_V_INT || v.type == SMI_V_REAL))
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
	struct smi_val v;
	int i, k;

	fprintf(f, "{\n  \"hpus\": [");
	for (i = 0; i < s->ndev; i++) {
		fprintf(f, "%s\n    {", i ? "," : "");
		for (k = 0; k < q->n; k++) {
			field_value(q->field[k], &s->devs[i], s, &v);
			fprintf(f, "%s\n      ", k ? "," : "");
			json_string(f, q->label[k]);
			fputs(": ", f);
			if (v.type == SMI_V_STR)
				json_string(f, v.s);
			else if (v.type == SMI_V_ERR || v.type == SMI_V_NA)
				fputs("null", f);
			else if (v.type == SMI_V_INT)
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

	fprintf(f, "Fields of --query-aip (units as printed with csv; json "
		   "values are bare numbers in the same units):\n\n");
	for (i = 0; i < NFIELDS; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%s%s%s", fields[i].name,
			 fields[i].alias ? " | " : "",
			 fields[i].alias ? fields[i].alias : "");
		fprintf(f, "  %-44s %s\n", name, fields[i].help);
	}
}

// SPDX-License-Identifier: MIT
/*
 * hlsections.c - hpu-smi -q -d PRODUCT|POWER|CLOCK|TEMPERATURE|MEMORY|
 * NET|ROW_REPLACEMENT: hl-smi's detailed report, section by section, in
 * its text layout ("key : value" lines under indented headings), every
 * value read through libhlml (docs/hpu-smi.md, "-q -d").
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

#include "hlml.h"
#include "smi.h"

#define MIB	 (1024ULL * 1024)
/* the column of the ':' of every "key : value" line */
#define KEY_COLS 42

enum {
	SEC_PRODUCT = 1u << 0,
	SEC_POWER = 1u << 1,
	SEC_CLOCK = 1u << 2,
	SEC_TEMPERATURE = 1u << 3,
	SEC_MEMORY = 1u << 4,
	SEC_NET = 1u << 5,
	SEC_ROW_REPLACEMENT = 1u << 6,
};

static const struct {
	const char *name;
	unsigned int bit;
} sections[] = {
	{ "PRODUCT", SEC_PRODUCT },
	{ "POWER", SEC_POWER },
	{ "CLOCK", SEC_CLOCK },
	{ "TEMPERATURE", SEC_TEMPERATURE },
	{ "MEMORY", SEC_MEMORY },
	{ "NET", SEC_NET },
	{ "ROW_REPLACEMENT", SEC_ROW_REPLACEMENT },
};

#define NSECTIONS (sizeof(sections) / sizeof(sections[0]))

int smi_hl_sections_parse(const struct smi_list *l, unsigned int *mask)
{
	unsigned int m = 0;
	size_t k;
	int i;

	for (i = 0; i < l->n; i++) {
		for (k = 0; k < NSECTIONS; k++)
			if (!strcasecmp(l->item[i], sections[k].name))
				break;
		if (k == NSECTIONS) {
			fprintf(stderr,
				"%s: -d: unknown section '%s' (PRODUCT, POWER, "
				"CLOCK, TEMPERATURE, MEMORY, NET, "
				"ROW_REPLACEMENT)\n",
				smi_prog, l->item[i]);
			return -EINVAL;
		}
		m |= sections[k].bit;
	}
	*mask = m;
	return 0;
}

/* "key : value" with @depth levels of four-space indent */
static void kv(FILE *f, int depth, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void kv(FILE *f, int depth, const char *key, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "%*s%-*s: ", depth * 4, "", KEY_COLS - depth * 4, key);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static void heading(FILE *f, int depth, const char *name)
{
	fprintf(f, "%*s%s\n", depth * 4, "", name);
}

#define NA "N/A"

/* A string from libhlml, N/A when it has none */
static void kv_str(FILE *f, int depth, const char *key, hlml_return_t r,
		   const char *s)
{
	kv(f, depth, key, "%s", r ? NA : s);
}

static void kv_uint(FILE *f, int depth, const char *key, hlml_return_t r,
		    unsigned long long v, const char *unit)
{
	if (r)
		kv(f, depth, key, NA);
	else
		kv(f, depth, key, "%llu%s%s", v, unit ? " " : "",
		   unit ? unit : "");
}

static void product(FILE *f, hlml_device_t h)
{
	char s[128];
	hlml_pcb_info_t pcb;
	unsigned int u = 0;
	hlml_return_t r;
	int rev = 0;

	r = hlml_device_get_name(h, s, sizeof(s));
	kv_str(f, 1, "Product Name", r, s);
	r = hlml_get_model_number(h, s, sizeof(s));
	kv_str(f, 1, "Model Number", r, s);
	r = hlml_device_get_serial(h, s, sizeof(s));
	kv_str(f, 1, "Serial Number", r, s);
	r = hlml_device_get_uuid(h, s, sizeof(s));
	kv_str(f, 1, "AIP UUID", r, s);
	r = hlml_device_get_module_id(h, &u);
	kv_uint(f, 1, "Module ID", r, u, NULL);
	r = hlml_device_get_minor_number(h, &u);
	kv_uint(f, 1, "Minor Number", r, u, NULL);
	r = hlml_device_get_hl_revision(h, &rev);
	kv_uint(f, 1, "HL Revision", r, (unsigned long long)rev, NULL);
	r = hlml_device_get_pcb_info(h, &pcb);
	kv_str(f, 1, "PCB Version", r, pcb.pcb_ver);
	kv_str(f, 1, "PCB Assembly Version", r, pcb.pcb_assembly_ver);
}

static void kv_watts(FILE *f, const char *key, hlml_return_t r, unsigned int mw)
{
	if (r)
		kv(f, 2, key, NA);
	else
		kv(f, 2, key, "%.2f W", mw / 1000.0);
}

static void power(FILE *f, hlml_device_t h)
{
	unsigned long long mj = 0;
	unsigned int mw = 0;
	hlml_return_t r;

	heading(f, 1, "Power Readings");
	r = hlml_device_get_power_usage(h, &mw);
	kv_watts(f, "Power Draw", r, mw);
	r = hlml_device_get_power_management_default_limit(h, &mw);
	kv_watts(f, "Power Limit", r, mw);
	r = hlml_device_get_total_energy_consumption(h, &mj);
	kv_uint(f, 2, "Energy Consumed", r, mj, "mJ");
}

static void clocks(FILE *f, hlml_device_t h)
{
	static const char *const dom[HLML_CLOCK_COUNT] = { "SOC", "IC", "MME",
							   "TPC" };
	unsigned long long why = 0;
	unsigned int mhz = 0, k;
	hlml_return_t r;

	heading(f, 1, "Clocks");
	for (k = 0; k < HLML_CLOCK_COUNT; k++) {
		r = hlml_device_get_clock_info(h, (hlml_clock_type_t)k, &mhz);
		kv_uint(f, 2, dom[k], r, mhz, "MHz");
	}
	heading(f, 1, "Max Clocks");
	for (k = 0; k < HLML_CLOCK_COUNT; k++) {
		r = hlml_device_get_max_clock_info(h, (hlml_clock_type_t)k,
						   &mhz);
		kv_uint(f, 2, dom[k], r, mhz, "MHz");
	}
	heading(f, 1, "Clocks Throttle Reasons");
	r = hlml_device_get_current_clocks_throttle_reasons(h, &why);
	kv(f, 2, "Power Cap", "%s",
	   r					   ? NA :
	   why & HLML_CLOCKS_THROTTLE_REASON_POWER ? "Active" :
						     "Not Active");
	kv(f, 2, "Thermal", "%s",
	   r					     ? NA :
	   why & HLML_CLOCKS_THROTTLE_REASON_THERMAL ? "Active" :
						       "Not Active");
}

static void temperature(FILE *f, hlml_device_t h)
{
	static const struct {
		const char *key;
		hlml_temperature_thresholds_t t;
	} limits[] = {
		{ "AIP Shutdown Temp", HLML_TEMPERATURE_THRESHOLD_SHUTDOWN },
		{ "AIP Slowdown Temp", HLML_TEMPERATURE_THRESHOLD_SLOWDOWN },
		{ "AIP Max Operating Temp",
		  HLML_TEMPERATURE_THRESHOLD_GPU_MAX },
		{ "Memory Max Operating Temp",
		  HLML_TEMPERATURE_THRESHOLD_MEM_MAX },
	};
	unsigned int c = 0;
	hlml_return_t r;
	size_t k;

	heading(f, 1, "Temperature");
	r = hlml_device_get_temperature(h, HLML_TEMPERATURE_ON_AIP, &c);
	kv_uint(f, 2, "AIP Current Temp", r, c, "C");
	r = hlml_device_get_temperature(h, HLML_TEMPERATURE_ON_BOARD, &c);
	kv_uint(f, 2, "Board Current Temp", r, c, "C");
	for (k = 0; k < sizeof(limits) / sizeof(limits[0]); k++) {
		r = hlml_device_get_temperature_threshold(h, limits[k].t, &c);
		kv_uint(f, 2, limits[k].key, r, c, "C");
	}
}

static const char *enabled(hlml_return_t r, hlml_enable_state_t s)
{
	return r ? NA : s == HLML_FEATURE_ENABLED ? "Enabled" : "Disabled";
}

static void memory(FILE *f, hlml_device_t h)
{
	static const struct {
		const char *key;
		hlml_ecc_counter_type_t counter;
		hlml_memory_error_type_t type;
	} ecc[] = {
		{ "Volatile Corrected", HLML_VOLATILE_ECC,
		  HLML_MEMORY_ERROR_TYPE_CORRECTED },
		{ "Volatile Uncorrected", HLML_VOLATILE_ECC,
		  HLML_MEMORY_ERROR_TYPE_UNCORRECTED },
		{ "Aggregate Corrected", HLML_AGGREGATE_ECC,
		  HLML_MEMORY_ERROR_TYPE_CORRECTED },
		{ "Aggregate Uncorrected", HLML_AGGREGATE_ECC,
		  HLML_MEMORY_ERROR_TYPE_UNCORRECTED },
	};
	hlml_enable_state_t cur = HLML_FEATURE_DISABLED, pend = cur;
	unsigned long long n = 0;
	hlml_memory_t mem;
	hlml_return_t r;
	size_t k;

	memset(&mem, 0, sizeof(mem));
	heading(f, 1, "Memory Usage");
	r = hlml_device_get_memory_info(h, &mem);
	kv_uint(f, 2, "Total", r, mem.total / MIB, "MiB");
	kv_uint(f, 2, "Used", r, mem.used / MIB, "MiB");
	kv_uint(f, 2, "Free", r, mem.free / MIB, "MiB");
	heading(f, 1, "ECC Mode");
	r = hlml_device_get_ecc_mode(h, &cur, &pend);
	kv(f, 2, "Current", "%s", enabled(r, cur));
	kv(f, 2, "Pending", "%s", enabled(r, pend));
	heading(f, 1, "ECC Errors");
	for (k = 0; k < sizeof(ecc) / sizeof(ecc[0]); k++) {
		r = hlml_device_get_total_ecc_errors(h, ecc[k].type,
						     ecc[k].counter, &n);
		kv_uint(f, 2, ecc[k].key, r, n, NULL);
	}
}

static void net(FILE *f, hlml_device_t h)
{
	hlml_mac_info_t mac[HLML_DEVICE_MAC_MAX_ADDRESSES];
	uint64_t mask[PORTS_ARR_SIZE], ext[PORTS_ARR_SIZE];
	unsigned int nmac = 0, port, k, nports = 0, nup = 0;
	char key[32];
	hlml_return_t r;
	bool up;

	heading(f, 1, "NIC Ports");
	r = hlml_get_mac_addr_info(h, mask, ext);
	if (r) {
		kv(f, 2, "Ports", NA);
		return;
	}
	if (hlml_device_get_mac_info(h, mac, HLML_DEVICE_MAC_MAX_ADDRESSES, 0,
				     &nmac))
		nmac = 0;
	for (port = 0; port < 64 * PORTS_ARR_SIZE; port++) {
		if (!(mask[port / 64] >> (port % 64) & 1))
			continue;
		nports++;
		if (!hlml_nic_get_link(h, port, &up) && up)
			nup++;
	}
	kv(f, 2, "Ports", "%u", nports);
	kv(f, 2, "Ports Up", "%u", nup);
	for (port = 0; port < 64 * PORTS_ARR_SIZE; port++) {
		if (!(mask[port / 64] >> (port % 64) & 1))
			continue;
		r = hlml_nic_get_link(h, port, &up);
		snprintf(key, sizeof(key), "Port %u", port);
		kv(f, 2, key, "%s", r ? NA : up ? "UP" : "DOWN");
		for (k = 0; k < nmac && mac[k].id != (int)port; k++)
			;
		if (k < nmac)
			kv(f, 3, "MAC Address", "%02x:%02x:%02x:%02x:%02x:%02x",
			   mac[k].addr[0], mac[k].addr[1], mac[k].addr[2],
			   mac[k].addr[3], mac[k].addr[4], mac[k].addr[5]);
		else
			kv(f, 3, "MAC Address", NA);
		kv(f, 3, "External", "%s",
		   ext[port / 64] >> (port % 64) & 1 ? "Yes" : "No");
	}
}

static void row_replacement(FILE *f, hlml_device_t h)
{
	hlml_enable_state_t pending = HLML_FEATURE_DISABLED;
	unsigned int n = 0;
	hlml_return_t r;

	heading(f, 1, "Row Replacement");
	r = hlml_device_get_replaced_rows(
		h, HLML_ROW_REPLACEMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS,
		&n, NULL);
	kv_uint(f, 2, "Single Bit ECC Rows", r, n, NULL);
	r = hlml_device_get_replaced_rows(
		h, HLML_ROW_REPLACEMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &n, NULL);
	kv_uint(f, 2, "Double Bit ECC Rows", r, n, NULL);
	r = hlml_device_get_replaced_rows_pending_status(h, &pending);
	kv(f, 2, "Pending", "%s",
	   r				   ? NA :
	   pending == HLML_FEATURE_ENABLED ? "Yes" :
					     "No");
}

void smi_print_hl_sections(FILE *f, const struct smi_sample *s,
			   unsigned int mask)
{
	static void (*const print[])(FILE *, hlml_device_t) = {
		product, power, clocks,		 temperature,
		memory,	 net,	row_replacement,
	};
	char ver[64];
	void *h;
	size_t k;
	int i;

	/* libhlml initialised (by the first handle) for the version */
	if (s->ndev)
		smi_hl_device(&s->devs[0], &h);
	fprintf(f, "================ HL-SMI LOG ================\n\n");
	kv(f, 0, "Timestamp", "%s", s->timestamp);
	if (hlml_get_driver_version(ver, sizeof(ver)))
		snprintf(ver, sizeof(ver), "%s", s->driver_version);
	kv(f, 0, "Driver Version", "%s", ver);
	kv(f, 0, "Attached AIPs", "%d", s->ndev);
	for (i = 0; i < s->ndev; i++) {
		fprintf(f, "\n[%d] AIP %s\n", s->devs[i].info.index,
			s->devs[i].info.bus_id);
		if (smi_hl_device(&s->devs[i], &h)) {
			kv(f, 1, "Status", "ERR! (unknown to libhlml)");
			continue;
		}
		/* operational, needs reset, malfunction, ... */
		kv(f, 1, "Status", "%s", smi_status(&s->devs[i]));
		for (k = 0; k < NSECTIONS; k++)
			if (mask & sections[k].bit)
				print[k](f, h);
	}
}

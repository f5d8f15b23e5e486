// SPDX-License-Identifier: MIT
/*
 * hlml_monitor.c - a device monitor written against hlml.h only, as
 * cluster tooling for Gaudi is: list every device with its metrics, then
 * watch all of them for critical errors.
 *
 *   hlml_monitor [INJECT_INDEX [WAIT_MS]]
 *
 * With INJECT_INDEX it raises HLML_ERR_INJECT_FATAL_EVENT on that device
 * (root or the device's owner) and waits at most WAIT_MS (default 10000)
 * for the HLML_EVENT_CRITICAL_ERR it causes, printing how long that took.
 * Build: cc hlml_monitor.c $(pkg-config --cflags --libs hlml)
 * Exit: 0 done (the event came), 1 an HLML call failed or no event, 2 usage.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime() under -std=c99 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hlml.h>

#define MAX_DEVICES 64

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int check(const char *what, hlml_return_t r)
{
	if (r != HLML_SUCCESS)
		fprintf(stderr, "hlml_monitor: %s: error %d\n", what, (int)r);
	return r != HLML_SUCCESS;
}

/* One line per device: index, name, bus id, UUID and its metrics */
static int print_device(unsigned int i, hlml_device_t *h)
{
	char name[64], uuid[64];
	hlml_pci_info_t pci;
	hlml_memory_t mem;
	hlml_utilization_t util;
	unsigned int temp, power;

	if (check("handle", hlml_device_get_handle_by_index(i, h)) ||
	    check("name", hlml_device_get_name(*h, name, sizeof(name))) ||
	    check("pci", hlml_device_get_pci_info(*h, &pci)) ||
	    check("uuid", hlml_device_get_uuid(*h, uuid, sizeof(uuid))) ||
	    check("memory", hlml_device_get_memory_info(*h, &mem)) ||
	    check("utilization",
		  hlml_device_get_utilization_rates(*h, &util)) ||
	    check("temperature", hlml_device_get_temperature(
					 *h, HLML_TEMPERATURE_ON_AIP, &temp)) ||
	    check("power", hlml_device_get_power_usage(*h, &power)))
		return 1;
	printf("device %u: %s %s %s temp=%uC power=%umW mem=%llu/%llu util=%u%%\n",
	       i, name, pci.bus_id, uuid, temp, power, mem.used, mem.total,
	       util.aip);
	return 0;
}

static int watch(hlml_device_t *h, unsigned int n, unsigned int inject,
		 unsigned int wait_ms)
{
	hlml_event_set_t set;
	hlml_event_data_t ev;
	unsigned int i;
	double t0;
	int ret = 1;

	if (check("event set", hlml_event_set_create(&set)))
		return 1;
	for (i = 0; i < n; i++)
		if (check("register",
			  hlml_device_register_events(
				  h[i], HLML_EVENT_CRITICAL_ERR, set)))
			goto out;
	t0 = now_ms();
	if (check("inject", hlml_device_err_inject(
				    h[inject], HLML_ERR_INJECT_FATAL_EVENT)))
		goto out;
	for (;;) {
		double left = wait_ms - (now_ms() - t0);

		if (left < 0 ||
		    hlml_event_set_wait(set, &ev, (unsigned int)left + 1) !=
			    HLML_SUCCESS) {
			printf("no critical error event within %u ms\n",
			       wait_ms);
			goto out;
		}
		if (ev.device == h[inject] &&
		    (ev.event_type & HLML_EVENT_CRITICAL_ERR))
			break;
	}
	printf("event: critical error on device %u after %.1f ms\n", inject,
	       now_ms() - t0);
	ret = 0;
out:
	hlml_event_set_free(set);
	return ret;
}

int main(int argc, char **argv)
{
	hlml_device_t h[MAX_DEVICES];
	unsigned int n, i, inject = 0, wait_ms = 10000;
	char *end;
	int ret = 1;

	if (argc > 3 || (argc > 1 && !strcmp(argv[1], "--help"))) {
		fprintf(stderr,
			"usage: hlml_monitor [INJECT_INDEX [WAIT_MS]]\n");
		return 2;
	}
	if (argc > 1) {
		inject = (unsigned int)strtoul(argv[1], &end, 10);
		if (*end || !*argv[1]) {
			fprintf(stderr, "hlml_monitor: bad index '%s'\n",
				argv[1]);
			return 2;
		}
	}
	if (argc > 2) {
		wait_ms = (unsigned int)strtoul(argv[2], &end, 10);
		if (*end || !*argv[2] || !wait_ms) {
			fprintf(stderr, "hlml_monitor: bad wait '%s'\n",
				argv[2]);
			return 2;
		}
	}
	if (check("init", hlml_init()))
		return 1;
	if (check("count", hlml_device_get_count(&n)))
		goto out;
	printf("devices: %u\n", n);
	if (n > MAX_DEVICES)
		n = MAX_DEVICES;
	for (i = 0; i < n; i++)
		if (print_device(i, &h[i]))
			goto out;
	if (argc > 1) {
		if (inject >= n) {
			fprintf(stderr, "hlml_monitor: no device %u\n", inject);
			ret = 2;
			goto out;
		}
		ret = watch(h, n, inject, wait_ms);
	} else {
		ret = 0;
	}
out:
	hlml_shutdown();
	return ret;
}

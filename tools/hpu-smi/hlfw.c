// SPDX-License-Identifier: MIT
/*
 * hlfw.c - hpu-smi --fw-versions: the versions of the firmware parts of
 * every selected device and of the driver, as hl-smi lists them, read
 * through libhlml (docs/hpu-smi.md, "--fw-versions"). A part the device
 * does not have (libhlml: NOT_SUPPORTED) is N/A.
 */
#include "hlml.h"
#include "smi.h"

typedef hlml_return_t (*fw_get_t)(hlml_device_t, char *, unsigned int);

static const struct {
	const char *part;
	fw_get_t get;
} parts[] = {
	{ "Firmware [FIT]", hlml_get_firmware_fit_version },
	{ "Firmware [SPI]", hlml_get_firmware_spi_version },
	{ "Firmware [UBOOT]", hlml_get_fw_boot_version },
	{ "Firmware [OS]", hlml_get_fw_os_version },
	{ "CPLD", hlml_get_cpld_version },
};

int smi_print_fw_versions(FILE *f, const struct smi_sample *s)
{
	char ver[256], drv[64];
	int i, status = SMI_EXIT_OK;
	hlml_return_t r;
	size_t k;
	void *h;

	for (i = 0; i < s->ndev; i++) {
		const struct smi_dev *d = &s->devs[i];

		fprintf(f, "%s[%d] AIP (%s) %s\n", i ? "\n" : "", d->info.index,
			d->info.bus_id, smi_name(d));
		if (smi_hl_device(d, &h)) {
			fprintf(f, "        ERR!\n");
			fprintf(stderr, "%s: hpu%d: unknown to libhlml\n",
				smi_prog, d->info.index);
			status = SMI_EXIT_QUERY;
			continue;
		}
		/* the daemon's; a kernel device's is its driver's */
		if (d->kernel || hlml_get_driver_version(drv, sizeof(drv)))
			snprintf(drv, sizeof(drv), "%s",
				 d->kernel && d->sys_driver[0] ?
					 d->sys_driver :
					 s->driver_version);
		fprintf(f, "        Driver version is: %s\n", drv);
		for (k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
			r = parts[k].get(h, ver, sizeof(ver));
			if (r && r != HLML_ERROR_NOT_SUPPORTED)
				status = SMI_EXIT_QUERY;
			fprintf(f, "        %s version is: %s\n", parts[k].part,
				!r			      ? ver :
				r == HLML_ERROR_NOT_SUPPORTED ? "N/A" :
								"ERR!");
		}
	}
	return status;
}

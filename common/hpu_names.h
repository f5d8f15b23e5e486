/* SPDX-License-Identifier: MIT */
/*
 * hpu_names.h - text names of ABI values, shared by the driver (sysfs-style
 * attributes) and the library (tools), so both always print the same words.
 */
#ifndef HPU_NAMES_H
#define HPU_NAMES_H

/**
 * hpu_status_name() - name of an HPU_DEVICE_STATUS_* value
 * @status: device status
 *
 * Return: "operational", "in reset", ... or "unknown".
 */
const char *hpu_status_name(unsigned int status);

#endif /* HPU_NAMES_H */

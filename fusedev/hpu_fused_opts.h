/* SPDX-License-Identifier: MIT */
/*
 * hpu_fused_opts.h - hpu-fused's command line (options.c), parsed for
 * main.c.
 */
#ifndef HPU_FUSED_OPTS_H
#define HPU_FUSED_OPTS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "hpu_fused.h"

/**
 * struct options - the command line
 * @ndev: --devices
 * @type: --type
 * @mount: --mount (absolute once resolved)
 * @foreground: --foreground
 * @dev_links: 1 --dev-links, 0 --no-dev-links, -1 default
 * @link_dir: --dev-link-dir: where the hpuN links go (default /dev)
 * @log_level: --log-level
 * @cs_timeout_ms: --cs-timeout-ms
 * @reset_on_lockup: --reset-on-lockup
 * @reset_on_fatal: --reset-on-fatal
 * @fatal_page_faults: --fatal-page-faults
 * @uaccess_timeout_ms: --uaccess-timeout-ms
 * @scaleout_addr: --scaleout-addr (HOST:PORT), or NULL
 * @group: --group resolved to a gid, or -1 for the daemon's own group
 * @node_mode: --mode
 * @control_mode: --control-mode
 * @module_map: --module-map (valid when @have_module_map)
 * @have_module_map: --module-map was given
 * @exclusive: --exclusive
 * @timing_model: --timing-model
 * @habanalabs: --personality habanalabs
 * @dram_size: --dram-size in bytes, 0 for the profile's
 * @blas_coretype: --blas-coretype: print the OPENBLAS_CORETYPE of hpu's
 *	processes and exit
 */
struct options {
	unsigned int ndev;
	const char *type;
	char mount[PATH_MAX];
	bool foreground;
	int dev_links;
	const char *link_dir;
	int log_level;
	uint32_t cs_timeout_ms;
	bool reset_on_lockup;
	bool reset_on_fatal;
	bool fatal_page_faults;
	uint32_t uaccess_timeout_ms;
	const char *scaleout_addr;
	long group;
	unsigned int node_mode;
	unsigned int control_mode;
	uint8_t module_map[HFD_MODULES_PER_SERVER];
	bool have_module_map;
	bool exclusive;
	bool timing_model;
	bool habanalabs;
	uint64_t dram_size;
	bool blas_coretype;
};
/**
 * hfd_parse_args() - parse hpu-fused's command line into @o
 * @argc: argument count
 * @argv: arguments
 * @o: receives the options (zeroed by the caller)
 *
 * Prints the help or version text, or what is wrong with an argument.
 *
 * Return: 0 to run, 1 when done (help, version), -1 on a usage error.
 */
int hfd_parse_args(int argc, char **argv, struct options *o);

#endif /* HPU_FUSED_OPTS_H */

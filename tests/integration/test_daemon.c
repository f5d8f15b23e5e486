// SPDX-License-Identifier: MIT
/*
 * test_daemon.c - the real hpu-fused on temporary mounts: device
 * directory layout, every INFO answer against the chip profile, the
 * attributes against INFO, every rejection path, holders that die, stale
 * mounts, signals and the command line.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "hpu_accel.h"
#include "hpu_fused.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_util.h"

#define WAIT_MS 10000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#define NEED_FUSE()                                          \
	do {                                                 \
		const char *why = hpu_test_have_fuse();      \
		if (why) {                                   \
			print_message("skipped: %s\n", why); \
			skip();                              \
		}                                            \
	} while (0)

static bool is_symlink(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISLNK(st.st_mode);
}

/* Read an attribute; returns a static buffer without the final newline */
static const char *attr(const struct hpu_test_daemon *d, const char *rel)
{
	static char buf[4096];
	char path[PATH_MAX + 64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", d->mount, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return buf;
}

static const char *dev_attr(const struct hpu_test_daemon *d, unsigned int i,
			    const char *name)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "class/hpu%u/%s", i, name);
	return attr(d, rel);
}

static int info(int fd, uint32_t op, void *buf, uint32_t size,
		uint32_t *full_size)
{
	struct hpu_info_args a = {
		.return_pointer = (uintptr_t)buf,
		.return_size = size,
		.op = op,
		.period_ms = op == HPU_INFO_DEVICE_UTILIZATION ? 100 : 0,
	};

	if (ioctl(fd, HPU_IOCTL_INFO, &a))
		return -errno;
	if (full_size)
		*full_size = a.full_size;
	return 0;
}

#define INFO_OK(fd, op, ans)                                                \
	do {                                                                \
		uint32_t _full = 0;                                         \
		memset(&(ans), 0xee, sizeof(ans));                          \
		assert_int_equal(info(fd, op, &(ans), sizeof(ans), &_full), \
				 0);                                        \
		assert_int_equal(_full, sizeof(ans));                       \
	} while (0)

static unsigned int popcount64(uint64_t v)
{
	return (unsigned int)__builtin_popcountll(v);
}

static const char *type_name(uint32_t t)
{
	return t == HPU_DEVICE_GAUDI  ? "GAUDI" :
	       t == HPU_DEVICE_GAUDI2 ? "GAUDI2" :
	       t == HPU_DEVICE_GAUDI3 ? "GAUDI3" :
					"?";
}

/*
 * The module id of device @i: an 8-device server is wired as the real
 * boards (0,4,1,5,2,6,3,7), any other counts modules as indices
 */
static unsigned int module_of(const struct hpu_test_daemon *d, unsigned int i)
{
	static const unsigned int oam8[8] = { 0, 4, 1, 5, 2, 6, 3, 7 };

	return d->ndev == 8 ? oam8[i % 8] : i % 8;
}

/* Every INFO op on @fd of device @i, checked against profile @p */
static void check_info(const struct hpu_test_daemon *d, int fd, unsigned int i,
		       const struct hpu_fw_profile *p, bool compute)
{
	struct hpu_info_hw_ip_info ip;
	struct hpu_info_dram_usage dram;
	struct hpu_info_hw_idle idle;
	struct hpu_info_device_status st;
	struct hpu_info_device_utilization util;
	struct hpu_info_clk_rate clk;
	struct hpu_info_reset_count rst;
	struct hpu_info_time_sync ts;
	struct hpu_info_cs_counters cs;
	struct hpu_info_power pw;
	struct hpu_info_thermal th;
	struct hpu_info_open_stats os;
	struct hpu_info_events ev;
	struct hpu_info_pci pci;
	struct hpu_info_driver_version ver;
	static const struct hpu_info_cs_counters zero_cs;
	char s[64];
	uint64_t t0, t1;

	INFO_OK(fd, HPU_INFO_HW_IP_INFO, ip);
	assert_int_equal(ip.dram_base_address, p->dram_base);
	assert_int_equal(ip.dram_size, p->dram_size);
	assert_int_equal(ip.sram_base_address, p->sram_base);
	assert_int_equal(ip.sram_size, p->sram_size);
	assert_int_equal(ip.dram_page_size, p->dram_page_size);
	assert_int_equal(ip.page_size_mask, p->page_size_mask);
	assert_int_equal(popcount64(ip.tpc_enabled_mask), p->num_tpc);
	assert_int_equal(popcount64(ip.nic_ports_mask), p->num_nic_ports);
	assert_int_equal(popcount64(ip.mme_enabled_mask), p->num_mme);
	assert_int_equal(popcount64(ip.dma_enabled_mask), p->num_dma);
	assert_int_equal(ip.device_id, p->pci_device_id);
	assert_int_equal(ip.device_type, p->device_type);
	assert_int_equal(ip.revision_id, p->revision_id);
	assert_int_equal(ip.module_id, module_of(d, i));
	assert_int_equal(ip.server_type, p->server_type);
	assert_int_equal(ip.num_tpc, p->num_tpc);
	assert_int_equal(ip.num_mme, p->num_mme);
	assert_int_equal(ip.num_dma, p->num_dma);
	assert_int_equal(ip.num_nic_ports, p->num_nic_ports);
	assert_int_equal(ip.num_queues, p->num_queues);
	assert_int_equal(ip.max_cs_chunks, HPU_MAX_JOBS_PER_CS);
	assert_int_equal(ip.max_power_mw, p->max_power_mw);
	assert_int_equal(ip.clk_max_mhz, p->clk_max_mhz);
	assert_int_equal(ip.pad, 0);
	assert_int_equal(ip.reserved, 0);
	assert_string_equal((char *)ip.card_name, p->card_name);
	assert_string_equal((char *)ip.fw_version, hpusim_model.version);

	INFO_OK(fd, HPU_INFO_DRAM_USAGE, dram);
	assert_int_equal(dram.dram_total_mem, p->dram_size);
	assert_int_equal(dram.dram_used_mem, 0);
	assert_int_equal(dram.dram_free_mem, p->dram_size);
	assert_int_equal(dram.ctx_dram_mem, 0);

	INFO_OK(fd, HPU_INFO_HW_IDLE, idle);
	assert_int_equal(idle.is_idle, 1);
	assert_int_equal(idle.pad, 0);
	assert_int_equal(idle.busy_engines_mask[0] | idle.busy_engines_mask[1] |
				 idle.busy_engines_mask[2] |
				 idle.busy_engines_mask[3],
			 0);

	INFO_OK(fd, HPU_INFO_DEVICE_STATUS, st);
	assert_int_equal(st.status, HPU_DEVICE_STATUS_OPERATIONAL);
	assert_int_equal(st.pad, 0);

	INFO_OK(fd, HPU_INFO_DEVICE_UTILIZATION, util);
	assert_int_equal(util.utilization, 0);
	assert_int_equal(util.pad, 0);

	INFO_OK(fd, HPU_INFO_CLK_RATE, clk);
	assert_int_equal(clk.max_clk_rate_mhz, p->clk_max_mhz);
	assert_true(clk.cur_clk_rate_mhz > 0);
	assert_true(clk.cur_clk_rate_mhz <= p->clk_max_mhz);

	INFO_OK(fd, HPU_INFO_RESET_COUNT, rst);
	assert_int_equal(rst.hard_reset_cnt, 0);
	assert_int_equal(rst.soft_reset_cnt, 0);

	t0 = now_ns();
	INFO_OK(fd, HPU_INFO_TIME_SYNC, ts);
	t1 = now_ns();
	assert_true(ts.host_time >= t0 && ts.host_time <= t1);
	assert_true(ts.device_time > 0);

	INFO_OK(fd, HPU_INFO_CS_COUNTERS, cs);
	assert_memory_equal(&cs, &zero_cs, sizeof(cs));

	INFO_OK(fd, HPU_INFO_POWER, pw);
	assert_int_equal(pw.power_cap_mw, p->max_power_mw);
	assert_true(pw.power_mw > 0 && pw.power_mw <= p->max_power_mw);

	INFO_OK(fd, HPU_INFO_THERMAL, th);
	assert_int_equal(th.temp_slowdown_mc, p->temp_slowdown_mc);
	assert_int_equal(th.temp_shutdown_mc, p->temp_shutdown_mc);
	assert_true(th.temp_asic_mc > 0 &&
		    th.temp_asic_mc < p->temp_slowdown_mc);
	assert_true(th.temp_hbm_mc > 0 && th.temp_hbm_mc < p->temp_slowdown_mc);

	INFO_OK(fd, HPU_INFO_OPEN_STATS, os);
	assert_true(os.num_control_ctx >= 1);
	assert_true(os.num_compute_ctx >= (compute ? 1 : 0));
	assert_true(os.open_counter >= os.num_compute_ctx);
	assert_int_equal(os.is_compute_ctx_active, os.num_compute_ctx > 0);
	assert_int_equal(os.compute_ctx_in_release, 0);

	INFO_OK(fd, HPU_INFO_GET_EVENTS, ev);
	assert_int_equal(ev.events_mask, 0);
	assert_int_equal(ev.pending, 0);

	INFO_OK(fd, HPU_INFO_PCI_INFO, pci);
	assert_int_equal(pci.vendor_id, HPU_PCI_VENDOR_ID);
	assert_int_equal(pci.device_id, p->pci_device_id);
	assert_int_equal(pci.subsystem_vendor_id, HPU_PCI_VENDOR_ID);
	assert_int_equal(pci.link_speed_mts, p->pcie_speed_mts);
	assert_int_equal(pci.link_width, p->pcie_width);
	assert_int_equal(pci.pad0, 0);
	snprintf(s, sizeof(s), "%04x:%02x:%02x.%x", pci.domain, pci.bus,
		 pci.device, pci.function);
	assert_string_equal((char *)pci.bus_id, s);

	INFO_OK(fd, HPU_INFO_DRIVER_VERSION, ver);
	assert_int_equal(ver.major, HPU_VERSION_MAJOR);
	assert_int_equal(ver.minor, HPU_VERSION_MINOR);
	assert_int_equal(ver.patch, HPU_VERSION_PATCH);
	assert_int_equal(ver.fw_if_major, HPU_FW_IF_MAJOR);
	assert_int_equal(ver.fw_if_minor, HPU_FW_IF_MINOR);
	/* NIC, NIC_PD and DEBUG come with a model of firmware interface 1.3 */
	assert_int_equal(
		ver.capabilities,
		HPU_CAP_INFO | HPU_CAP_MEMORY | HPU_CAP_CB | HPU_CAP_CS |
			HPU_CAP_EVENTS | HPU_CAP_RING | HPU_CAP_CTX_LIMITS |
			HPU_CAP_RESET | HPU_CAP_CTRL_EVENTS | HPU_CAP_TRACE |
			HPU_CAP_DMA_SWAP | HPU_CAP_LONG_SOB |
			(hfd_model_has_nic(&hpusim_model) ?
				 HPU_CAP_NIC | HPU_CAP_NIC_PD | HPU_CAP_DEBUG :
				 0));
	assert_int_equal(ver.pad, 0);
	assert_string_equal((char *)ver.version, HPU_VERSION);

	/* the attributes say what INFO says */
	assert_string_equal(dev_attr(d, i, "device_type"),
			    type_name(ip.device_type));
	assert_string_equal(dev_attr(d, i, "card_name"), (char *)ip.card_name);
	assert_string_equal(dev_attr(d, i, "pci_addr"), (char *)pci.bus_id);
	snprintf(s, sizeof(s), "%u", ip.module_id);
	assert_string_equal(dev_attr(d, i, "module_id"), s);
	assert_string_equal(dev_attr(d, i, "status"), "operational");
	assert_string_equal(dev_attr(d, i, "hard_reset_cnt"), "0");
	assert_string_equal(dev_attr(d, i, "soft_reset_cnt"), "0");
	snprintf(s, sizeof(s), "%llu", (unsigned long long)pw.power_cap_mw);
	assert_string_equal(dev_attr(d, i, "max_power"), s);
	snprintf(s, sizeof(s), "%u", clk.max_clk_rate_mhz);
	assert_string_equal(dev_attr(d, i, "clk_max_freq_mhz"), s);
	snprintf(s, sizeof(s), "%llu", (unsigned long long)dram.dram_total_mem);
	assert_string_equal(dev_attr(d, i, "memory_total"), s);
	assert_string_equal(dev_attr(d, i, "memory_used"), "0");
	assert_string_equal(dev_attr(d, i, "utilization"), "0");
	snprintf(s, sizeof(s), "hpusim %s", hpusim_model.version);
	assert_string_equal(dev_attr(d, i, "fw_version"), s);
	assert_true(strlen(dev_attr(d, i, "serial_number")) > 0);
	assert_true(atoi(dev_attr(d, i, "power_mw")) > 0);
	assert_true(atoi(dev_attr(d, i, "temperature_mc")) > 0);
	assert_true(atoi(dev_attr(d, i, "clk_cur_freq_mhz")) > 0);
}

/* Open every node of a running daemon and check everything it answers */
static void check_daemon(const struct hpu_test_daemon *d, const char *type)
{
	const struct hpu_fw_profile *p =
		hpu_fw_find_profile(&hpusim_model, type);
	char s[64], seen_bus[64][16];
	unsigned int i, j;
	int cfd, kfd;

	assert_non_null(p);
	snprintf(s, sizeof(s), "%d", d->ndev);
	assert_string_equal(attr(d, "driver/num_devices"), s);
	assert_string_equal(attr(d, "driver/version"), HPU_VERSION);
	assert_string_equal(attr(d, "driver/model"), hpusim_model.name);
	snprintf(s, sizeof(s), "%d", (int)d->pid);
	assert_string_equal(attr(d, "driver/pid"), s);

	for (i = 0; i < (unsigned int)d->ndev; i++) {
		cfd = hpu_test_open_node(d->mount, "hpu", i);
		assert_true(cfd >= 0);
		kfd = hpu_test_open_node(d->mount, "hpu_control", i);
		assert_true(kfd >= 0);
		check_info(d, cfd, i, p, true);
		check_info(d, kfd, i, p, true);
		snprintf(seen_bus[i], sizeof(seen_bus[i]), "%s",
			 dev_attr(d, i, "pci_addr"));
		for (j = 0; j < i; j++)
			assert_string_not_equal(seen_bus[i], seen_bus[j]);
		close(kfd);
		close(cfd);
	}
}

/* The daemon of the running test; stopped by cur_teardown if it fails */
static struct hpu_test_daemon cur;

static int cur_teardown(void **state)
{
	if (cur.pid > 0)
		hpu_test_daemon_stop(&cur);
	memset(&cur, 0, sizeof(cur));
	return 0;
}

static void run_type(const char *type, int ndev)
{
	NEED_FUSE();
	assert_int_equal(hpu_test_daemon_start(&cur, ndev, type, NULL), 0);
	check_daemon(&cur, type);
	assert_int_equal(hpu_test_daemon_stop(&cur), 0);
	assert_false(hpu_test_is_mounted(cur.mount));
}

static void test_info_gaudi(void **state)
{
	run_type("gaudi", 2);
}

static void test_info_gaudi2(void **state)
{
	run_type("gaudi2", 2);
}

static void test_info_gaudi3(void **state)
{
	run_type("gaudi3", 2);
}

static void test_default_eight_gaudi2(void **state)
{
	char dir[] = "/tmp/hpu-test-XXXXXX";
	const char *args[] = { "--foreground", "--mount", dir, NULL };

	NEED_FUSE();
	assert_non_null(mkdtemp(dir));
	assert_int_equal(hpu_test_daemon_spawn(&cur, dir, 8, args), 0);
	check_daemon(&cur, "gaudi2");
	assert_int_equal(hpu_test_daemon_stop(&cur), 0);
}

static void test_layout(void **state)
{
	static const char *const attrs[] = {
		"device_type",	    "card_name",      "pci_addr",
		"module_id",	    "serial_number",  "status",
		"hard_reset_cnt",   "soft_reset_cnt", "max_power",
		"power_mw",	    "temperature_mc", "clk_max_freq_mhz",
		"clk_cur_freq_mhz", "memory_total",   "memory_used",
		"utilization",	    "fw_version",     "clients",
		"export_dir",	    "uuid",	      "mac_addresses",
		"ecc_errors",
	};
	struct hpu_test_daemon *d = &cur;
	char path[3 * PATH_MAX];
	struct dirent *de;
	struct stat st;
	unsigned int i, n = 0;
	DIR *dir;

	NEED_FUSE();
	assert_int_equal(hpu_test_daemon_start(d, 3, "gaudi2", NULL), 0);
	dir = opendir(d->mount);
	assert_non_null(dir);
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.')
			n++;
	closedir(dir);
	assert_int_equal(n, 3 * 2 + 2); /* hpuN, hpu_controlN, class, driver */

	snprintf(path, sizeof(path), "%s/class", d->mount);
	dir = opendir(path);
	assert_non_null(dir);
	for (n = 0; (de = readdir(dir));)
		if (de->d_name[0] != '.')
			n++;
	closedir(dir);
	assert_int_equal(n, 3);

	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		snprintf(path, sizeof(path), "%s/class/hpu2/%s", d->mount,
			 attrs[i]);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode, S_IFREG | 0444);
		/* read-only even for root */
		assert_int_equal(open(path, O_WRONLY), -1);
		assert_int_equal(errno, EACCES);
	}
	snprintf(path, sizeof(path), "%s/hpu2", d->mount);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode, S_IFREG | 0660);
	assert_int_equal(st.st_uid, getuid());
	snprintf(path, sizeof(path), "%s/hpu3", d->mount);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	snprintf(path, sizeof(path), "%s/hpu01", d->mount);
	assert_int_equal(stat(path, &st), -1);
	/* the export directory exists before any export, one per device */
	snprintf(path, sizeof(path), "%s", attr(d, "class/hpu2/export_dir"));
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_string_not_equal(path, attr(d, "class/hpu1/export_dir"));
	assert_int_equal(hpu_test_daemon_stop(d), 0);
	/* and is gone with the daemon */
	assert_int_equal(stat(path, &st), -1);
}

/* One daemon shared by the rejection tests */
#define shared hpu_test_shared

static int group_setup(void **state)
{
	return hpu_test_group_start(2, "gaudi2");
}

static int shared_fd(const char *name)
{
	int fd = hpu_test_open_node(shared.mount, name, 0);

	assert_true(fd >= 0);
	return fd;
}

static struct hpu_info_args good_args(void *buf, uint32_t size)
{
	struct hpu_info_args a = {
		.return_pointer = (uintptr_t)buf,
		.return_size = size,
		.op = HPU_INFO_DEVICE_STATUS,
	};
	return a;
}

static void test_reject_unknown_nr(void **state)
{
	struct hpu_info_device_status st;
	struct hpu_info_args a = good_args(&st, sizeof(st));
	int fd;

	NEED_FUSE();
	fd = shared_fd("hpu");
	assert_int_equal(
		hpu_test_ioctl(fd,
			       DRM_IOWR(DRM_COMMAND_BASE + HPU_COMMAND_END,
					struct hpu_info_args),
			       &a),
		-ENOTTY);
	assert_int_equal(hpu_test_ioctl(fd,
					DRM_IOWR(DRM_COMMAND_BASE + 0x3f,
						 struct hpu_info_args),
					&a),
			 -ENOTTY);
	close(fd);
}

static void test_reject_wrong_type(void **state)
{
	struct hpu_info_device_status st;
	struct hpu_info_args a = good_args(&st, sizeof(st));
	int fd;

	NEED_FUSE();
	fd = shared_fd("hpu");
	assert_int_equal(hpu_test_ioctl(fd,
					_IOWR('H', DRM_COMMAND_BASE,
					      struct hpu_info_args),
					&a),
			 -ENOTTY);
	/* right type and number, wrong direction */
	assert_int_equal(
		hpu_test_ioctl(fd,
			       DRM_IOW(DRM_COMMAND_BASE, struct hpu_info_args),
			       &a),
		-ENOTTY);
	close(fd);
}

static void test_reject_bad_size(void **state)
{
	uint64_t small[2] = { 0 };
	int fd;

	NEED_FUSE();
	fd = shared_fd("hpu");
	assert_int_equal(hpu_test_ioctl(fd,
					DRM_IOWR(DRM_COMMAND_BASE, uint64_t[2]),
					small),
			 -EINVAL);
	close(fd);
}

static void test_reject_pad_flags_op(void **state)
{
	struct hpu_info_device_status st;
	struct hpu_info_args a;
	int fd;

	NEED_FUSE();
	fd = shared_fd("hpu");
	a = good_args(&st, sizeof(st));
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), 0);
	a = good_args(&st, sizeof(st));
	a.pad = 1;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), -EINVAL);
	a = good_args(&st, sizeof(st));
	a.flags = 0x80;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), -EINVAL);
	a = good_args(&st, sizeof(st));
	a.op = 99;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), -EINVAL);
	a = good_args(&st, sizeof(st));
	a.period_ms = 100; /* only for DEVICE_UTILIZATION */
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), -EINVAL);
	a = good_args(&st, sizeof(st));
	a.op = HPU_INFO_DEVICE_UTILIZATION;
	a.period_ms = 5000;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), -EINVAL);
	a = good_args(&st, 0);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), -EINVAL);
	close(fd);
}

static void test_reject_bad_pointer(void **state)
{
	struct hpu_info_args a;
	long page = sysconf(_SC_PAGESIZE);
	void *none;
	int fd;

	NEED_FUSE();
	fd = shared_fd("hpu");
	a = good_args((void *)(uintptr_t)0x10, 8);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), -EFAULT);
	none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(none != MAP_FAILED);
	a = good_args(none, 8);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), -EFAULT);
	munmap(none, page);
	a = good_args(NULL, 8);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), -EINVAL);
	close(fd);
}

static void test_reject_closed_fd(void **state)
{
	struct hpu_info_device_status st;
	struct hpu_info_args a = good_args(&st, sizeof(st));
	int fd;

	NEED_FUSE();
	fd = shared_fd("hpu");
	close(fd);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), -EBADF);
}

static void test_control_node_info_only(void **state)
{
	union hpu_cs_args cs;
	struct hpu_debug_args dbg;
	union hpu_mem_args mem;
	uint64_t handle;
	int kfd, cfd;

	NEED_FUSE();
	kfd = shared_fd("hpu_control");
	cfd = shared_fd("hpu");
	memset(&cs, 0, sizeof(cs));
	cs.in.chunks_execute = 4096;
	cs.in.num_chunks_execute = 1;
	memset(&dbg, 0, sizeof(dbg));
	dbg.op = HPU_DEBUG_OP_CLEAR_FAULTS;
	memset(&mem, 0, sizeof(mem));
	mem.in.size = 4096;
	assert_int_equal(hpu_test_ioctl(kfd, HPU_IOCTL_CS, &cs), -EPERM);
	assert_int_equal(hpu_test_ioctl(kfd, HPU_IOCTL_DEBUG, &dbg), -EPERM);
	assert_int_equal(hpu_test_ioctl(kfd, HPU_IOCTL_MEMORY, &mem), -EPERM);
	/* the same commands on a compute node get past the node check */
	assert_int_equal(hpu_test_ioctl(cfd, HPU_IOCTL_CS, &cs), -EFAULT);
	assert_int_equal(hpu_test_ioctl(cfd, HPU_IOCTL_DEBUG, &dbg),
			 hfd_model_has_nic(&hpusim_model) ? 0 : -EOPNOTSUPP);
	assert_int_equal(hpu_test_ioctl(cfd, HPU_IOCTL_MEMORY, &mem), 0);
	handle = mem.out.handle;
	/* the answer overlaps the input: FREE needs the rest 0 */
	memset(&mem, 0, sizeof(mem));
	mem.in.op = HPU_MEM_OP_FREE;
	mem.in.handle = handle;
	assert_int_equal(hpu_test_ioctl(cfd, HPU_IOCTL_MEMORY, &mem), 0);
	/* unknown flags go through the shared checker */
	cs.in.cs_flags = 1U << 31;
	assert_int_equal(hpu_test_ioctl(cfd, HPU_IOCTL_CS, &cs), -EINVAL);
	close(kfd);
	close(cfd);
}

static void test_info_snprintf(void **state)
{
	uint8_t buf[sizeof(struct hpu_info_hw_ip_info) + 16];
	struct hpu_info_hw_ip_info *ip = (void *)buf;
	struct hpu_info_args a;
	unsigned int i;
	int fd;

	NEED_FUSE();
	fd = shared_fd("hpu_control");
	memset(buf, 0x5a, sizeof(buf));
	a = good_args(buf, 12);
	a.op = HPU_INFO_HW_IP_INFO;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), 0);
	assert_int_equal(a.full_size, sizeof(*ip));
	for (i = 12; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0x5a);
	assert_int_equal(
		ip->dram_base_address,
		hpu_fw_find_profile(&hpusim_model, "gaudi2")->dram_base);

	a = good_args(buf, sizeof(buf));
	a.op = HPU_INFO_HW_IP_INFO;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), 0);
	assert_int_equal(a.full_size, sizeof(*ip));
	for (i = sizeof(*ip); i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0x5a);
	close(fd);
}

/* A forked child using its parent's file: the answer lands in the child */
static void test_info_from_other_process(void **state)
{
	int fd, status;
	pid_t pid;

	NEED_FUSE();
	fd = shared_fd("hpu");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct hpu_info_dram_usage du;
		struct hpu_info_args a = good_args(&du, sizeof(du));

		memset(&du, 0, sizeof(du));
		a.op = HPU_INFO_DRAM_USAGE;
		if (ioctl(fd, HPU_IOCTL_INFO, &a) ||
		    du.dram_total_mem !=
			    hpu_fw_find_profile(&hpusim_model, "gaudi2")
				    ->dram_size)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(fd);
}

static void test_read_and_poll(void **state)
{
	struct hpu_event ev[2];
	struct pollfd pfd;
	uint8_t small[8];
	int fd;

	NEED_FUSE();
	fd = shared_fd("hpu");
	assert_int_equal(read(fd, small, sizeof(small)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(read(fd, ev, sizeof(ev)), -1);
	assert_int_equal(errno, EAGAIN);
	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), -1);
	assert_int_equal(errno, ESPIPE);
	close(fd);
}

static bool clients_has(const struct hpu_test_daemon *d, pid_t pid)
{
	const char *text = dev_attr(d, 0, "clients");
	char needle[32];
	const char *p;

	snprintf(needle, sizeof(needle), "%d ", (int)pid);
	for (p = text; p && *p;
	     p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, needle, strlen(needle)))
			return true;
	return false;
}

static void test_killed_client_leaves_nothing(void **state)
{
	struct hpu_info_open_stats os;
	char path[PATH_MAX + 8];
	int waited, status, kfd;
	pid_t pid;

	NEED_FUSE();
	snprintf(path, sizeof(path), "%s/hpu0", shared.mount);
	pid = hpu_test_hold_open(path);
	assert_true(pid > 0);
	assert_true(clients_has(&shared, pid));

	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	for (waited = 0; waited < WAIT_MS && clients_has(&shared, pid);
	     waited += 10)
		hpu_test_sleep_ms(10);
	assert_false(clients_has(&shared, pid));

	kfd = shared_fd("hpu_control");
	assert_int_equal(info(kfd, HPU_INFO_OPEN_STATS, &os, sizeof(os), NULL),
			 0);
	assert_int_equal(os.num_compute_ctx, 0);
	assert_int_equal(os.is_compute_ctx_active, 0);
	close(kfd);
}

static void test_second_daemon_refused(void **state)
{
	char *const argv[] = { (char *)hpu_test_bin("hpu-fused"),
			       "--foreground",
			       "--devices",
			       "1",
			       "--mount",
			       shared.mount,
			       NULL };
	int status;

	NEED_FUSE();
	assert_int_equal(hpu_test_run(argv, NULL, &status), 0);
	assert_int_equal(status, 1);
	/* the first one still serves */
	assert_string_equal(attr(&shared, "driver/num_devices"), "2");
}

/* Directory of the stale-mount test, cleaned up even when it fails */
static char stale_dir[] = "/tmp/hpu-test-XXXXXX";
static struct hpu_test_daemon stale_d;

static int stale_teardown(void **state)
{
	char *const argv[] = { "/usr/bin/fusermount3", "-u", "-z", stale_dir,
			       NULL };
	int status;

	if (stale_d.pid > 0) {
		kill(stale_d.pid, SIGKILL);
		waitpid(stale_d.pid, &status, 0);
	}
	if (hpu_test_is_mounted(stale_dir))
		hpu_test_run(argv, NULL, &status);
	rmdir(stale_dir);
	return 0;
}

static void test_stale_mount_cleaned(void **state)
{
	char *dir = stale_dir;
	const char *args[] = { "--foreground", "--devices", "2",
			       "--mount",      dir,	    NULL };
	struct hpu_test_daemon *d = &stale_d;
	struct statfs sfs;
	int status;

	NEED_FUSE();
	assert_non_null(mkdtemp(dir));
	assert_int_equal(hpu_test_daemon_spawn(d, dir, 2, args), 0);
	kill(d->pid, SIGKILL);
	assert_int_equal(waitpid(d->pid, &status, 0), d->pid);
	d->pid = 0;
	/* stat() may answer from the attribute cache; statfs() cannot */
	assert_int_equal(statfs(dir, &sfs), -1);
	assert_int_equal(errno, ENOTCONN);
	assert_true(hpu_test_is_mounted(dir));

	assert_int_equal(hpu_test_daemon_spawn(d, dir, 2, args), 0);
	assert_string_equal(attr(d, "class/hpu1/status"), "operational");
	assert_int_equal(hpu_test_daemon_stop(d), 0);
	assert_false(hpu_test_is_mounted(dir));
}

/* Links made in --dev-link-dir work, a foreign file is left alone, and
 * stopping removes only the daemon's own links. */
static void test_dev_links(void **state)
{
	char linkdir[] = "/tmp/hpu-links-XXXXXX", link[PATH_MAX + 8];
	char want[PATH_MAX + 8], got[PATH_MAX + 8], foreign[PATH_MAX + 8];
	const char *extra[] = { "--dev-links", "--dev-link-dir", linkdir,
				NULL };
	struct hpu_info_device_status ds;
	struct hpu_test_daemon d;
	ssize_t n;
	int fd;

	NEED_FUSE();
	assert_non_null(mkdtemp(linkdir));
	snprintf(foreign, sizeof(foreign), "%s/hpu1", linkdir);
	fd = open(foreign, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);

	assert_int_equal(hpu_test_daemon_start(&d, 2, "gaudi2", extra), 0);
	snprintf(link, sizeof(link), "%s/hpu0", linkdir);
	snprintf(want, sizeof(want), "%s/hpu0", d.mount);
	n = readlink(link, got, sizeof(got) - 1);
	assert_true(n > 0);
	got[n] = '\0';
	assert_string_equal(got, want);
	fd = open(link, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(
		info(fd, HPU_INFO_DEVICE_STATUS, &ds, sizeof(ds), NULL), 0);
	assert_int_equal(ds.status, HPU_DEVICE_STATUS_OPERATIONAL);
	close(fd);
	assert_false(is_symlink(foreign));

	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	assert_int_equal(access(link, F_OK), -1);
	assert_int_equal(access(foreign, F_OK), 0);
	unlink(foreign);
	assert_int_equal(rmdir(linkdir), 0);
}

/*
 * The harness fails a test whose daemon logged an HPU_WARN_ON() report,
 * even when the daemon exits cleanly (tests/lib/hpu_test_daemon.c): a
 * line of that shape in the log turns a clean stop into -EPROTO.
 */
static void test_stop_fails_on_warning(void **state)
{
	static const char line[] =
		"hpu-fused: WARN_ON(x) at fusedev/cs.c:1 planted()\n";
	struct hpu_test_daemon d;
	int fd;

	(void)state;
	assert_int_equal(hpu_test_daemon_start(&d, 1, "gaudi2", NULL), 0);
	fd = open(d.log, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, line, sizeof(line) - 1),
			 (ssize_t)(sizeof(line) - 1));
	close(fd);
	assert_int_equal(hpu_test_daemon_stop(&d), -EPROTO);
	assert_false(hpu_test_is_mounted(d.mount));

	/* and a daemon that warned about nothing stops with 0 */
	assert_int_equal(hpu_test_daemon_start(&d, 1, "gaudi2", NULL), 0);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
}

static void test_bad_command_line(void **state)
{
	static const char *const bad[][4] = {
		{ "--bogus", NULL },
		{ "--devices", "0", NULL },
		{ "--devices", "65", NULL },
		{ "--devices", "two", NULL },
		{ "--type", "gaudi9", NULL },
		{ "--log-level", "loud", NULL },
		{ "--mount", NULL },
		{ "extra", NULL },
		{ "--dev-link-dir", "rel", NULL },
	};
	char *argv[6];
	unsigned int i, j;
	int status;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		argv[0] = (char *)hpu_test_bin("hpu-fused");
		for (j = 0; bad[i][j]; j++)
			argv[j + 1] = (char *)bad[i][j];
		argv[j + 1] = NULL;
		hpu_test_run_refused(argv, NULL);
	}
	argv[1] = "--help";
	argv[2] = NULL;
	assert_int_equal(hpu_test_run(argv, NULL, &status), 0);
	assert_int_equal(status, 0);
	argv[1] = "--version";
	assert_int_equal(hpu_test_run(argv, NULL, &status), 0);
	assert_int_equal(status, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_info_gaudi, cur_teardown),
		cmocka_unit_test_teardown(test_info_gaudi2, cur_teardown),
		cmocka_unit_test_teardown(test_info_gaudi3, cur_teardown),
		cmocka_unit_test_teardown(test_default_eight_gaudi2,
					  cur_teardown),
		cmocka_unit_test_teardown(test_layout, cur_teardown),
		cmocka_unit_test(test_reject_unknown_nr),
		cmocka_unit_test(test_reject_wrong_type),
		cmocka_unit_test(test_reject_bad_size),
		cmocka_unit_test(test_reject_pad_flags_op),
		cmocka_unit_test(test_reject_bad_pointer),
		cmocka_unit_test(test_reject_closed_fd),
		cmocka_unit_test(test_control_node_info_only),
		cmocka_unit_test(test_info_snprintf),
		cmocka_unit_test(test_info_from_other_process),
		cmocka_unit_test(test_read_and_poll),
		cmocka_unit_test(test_killed_client_leaves_nothing),
		cmocka_unit_test(test_second_daemon_refused),
		cmocka_unit_test_teardown(test_stale_mount_cleaned,
					  stale_teardown),
		cmocka_unit_test(test_dev_links),
		cmocka_unit_test(test_bad_command_line),
		cmocka_unit_test(test_stop_fails_on_warning),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}

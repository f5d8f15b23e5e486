// SPDX-License-Identifier: MIT
/*
 * device.c - the driver's devices: binding to the device model, identity
 * (module id, PCI bus id, serial number) and the daemon-wide state.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hpu_fused.h"

/* First PCI bus of a simulated server; device i sits on bus FIRST + i */
#define HFD_PCI_FIRST_BUS 0x19

/**
 * hfd_now_ns() - CLOCK_MONOTONIC in ns
 */
uint64_t hfd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/**
 * hfd_fw_if_minor_in_use() - firmware interface minor both sides speak
 * @model: device model
 */
uint32_t hfd_fw_if_minor_in_use(const struct hpu_fw_model *model)
{
	uint32_t mine = HPU_FW_IF_MINOR;

	return model->if_minor < mine ? model->if_minor : mine;
}

/**
 * hfd_device_has_cs() - whether the model implements firmware interface
 * 1.1 (memory, address spaces, submission): MEMORY, CB, CS and WAIT_CS
 * work only then
 * @dev: device
 */
bool hfd_device_has_cs(const struct hfd_device *dev)
{
	const struct hpu_fw_ops *o = dev->model->ops;

	return hfd_fw_if_minor_in_use(dev->model) >= 1 && o->mem_alloc &&
	       o->mem_free && o->mem_size && o->mem_usage && o->mem_export &&
	       o->as_create && o->as_destroy && o->map_mem && o->map_host &&
	       o->unmap && o->cs_submit && o->cs_abort && o->sob_write;
}

/* NIC ports of every device that link to other servers (docs/nic.md) */
#define HFD_SCALEOUT_PORTS 3

/**
 * hfd_model_has_nic() - whether the model implements firmware interface
 * 1.3 (fabric, registration, connections, links of 1.2 with the
 * protection domains of 1.3) on top of 1.1: the NIC and DEBUG families
 * work only then
 * @model: device model
 */
bool hfd_model_has_nic(const struct hpu_fw_model *model)
{
	const struct hpu_fw_ops *o = model->ops;

	return hfd_fw_if_minor_in_use(model) >= 3 && o->fabric_create &&
	       o->fabric_destroy && o->fabric_addr && o->nic_info &&
	       o->as_set_cookie && o->nic_reg_mr && o->nic_dereg_mr &&
	       o->nic_connect && o->nic_disconnect && o->nic_set_link &&
	       o->nic_accept;
}

/**
 * hfd_device_has_nic() - whether the NIC and DEBUG families work on @dev
 * @dev: device (its model implements 1.1 and 1.2)
 */
bool hfd_device_has_nic(const struct hfd_device *dev)
{
	return hfd_device_has_cs(dev) && hfd_model_has_nic(dev->model) &&
	       dev->fw;
}

/**
 * hfd_profile_max_server_devices() - most devices one server of @p can
 * wire all-to-all: one more than its scale-up ports (docs/nic.md)
 * @p: chip profile
 */
unsigned int hfd_profile_max_server_devices(const struct hpu_fw_profile *p)
{
	if (p->num_nic_ports <= HFD_SCALEOUT_PORTS)
		return 1;
	return p->num_nic_ports - HFD_SCALEOUT_PORTS + 1;
}

/**
 * hfd_driver_check_model() - refuse a model built for another interface
 * @model: device model
 *
 * Return: 0, or -EPROTO when the model's interface major differs from the
 * driver's or its minor is older than what the driver calls.
 */
int hfd_driver_check_model(const struct hpu_fw_model *model)
{
	if (!model || !model->ops || !model->profiles)
		return -EINVAL;
	if (model->if_major != HPU_FW_IF_MAJOR) {
		hfd_err("device model %s implements firmware interface %u.%u, driver needs %u.x",
			model->name, model->if_major, model->if_minor,
			HPU_FW_IF_MAJOR);
		return -EPROTO;
	}
	if (!model->ops->create || !model->ops->destroy ||
	    !model->ops->hw_ip_info || !model->ops->utilization ||
	    !model->ops->hw_idle || !model->ops->telemetry ||
	    !model->ops->device_time_ns) {
		hfd_err("device model %s lacks mandatory operations",
			model->name);
		return -EPROTO;
	}
	return 0;
}

/**
 * hfd_device_pci_bus_id() - synthesized PCI location of device @index
 * @index: device index
 * @bus: receives the bus number
 * @buf: receives "0000:BB:00.0"
 * @len: bytes at @buf (16 is enough)
 *
 * Every device of a daemon sits alone on its own bus, function 0 of
 * slot 0, in domain 0, buses counting up from 0x19.
 */
void hfd_device_pci_bus_id(unsigned int index, uint8_t *bus, char *buf,
			   size_t len)
{
	*bus = (uint8_t)(HFD_PCI_FIRST_BUS + index);
	snprintf(buf, len, "%04x:%02x:%02x.%x", 0, *bus, 0, 0);
}

/* --dram-size: HBM bytes of every device created from now on (0: the
 * profile's); set before the devices are made, read by device_init() */
static uint64_t dram_size_override;

/**
 * hfd_set_dram_size() - HBM bytes of the devices created from now on
 * @bytes: 0 for each profile's own size; else at most a profile's size
 *	and a multiple of its DRAM page size (a device whose profile is
 *	smaller, or not a multiple, keeps its own)
 *
 * hpu-fused's --dram-size: a simulated card with less HBM, so that a
 * client that uses all of it (hl-thunk's entire-DRAM DMA test maps a
 * quarter of it in host buffers) fits the host. Needs a model of
 * firmware interface 1.7.
 */
void hfd_set_dram_size(uint64_t bytes)
{
	dram_size_override = bytes;
}

/*
 * Creates the device of slot @index with chip @profile; it joins @fab
 * (wired for @server_devices) when not NULL. The slot must be free.
 */
static int device_init(struct hfd_driver *drv, struct hfd_device *dev,
		       unsigned int index, const struct hpu_fw_profile *profile,
		       struct hpu_fw_fabric *fab, unsigned int server_devices)
{
	uint32_t generation = dev->generation;
	struct hpu_fw_config cfg;
	int ret;

	memset(dev, 0, sizeof(*dev));
	dev->generation = generation;
	dev->index = index;
	dev->server_devices = server_devices;
	dev->module_id = drv->module_map[index % HFD_MODULES_PER_SERVER];
	dev->owner = drv->uid;
	dev->model = drv->model;
	dev->profile = profile;
	dev->pci_domain = 0;
	dev->status = HPU_DEVICE_STATUS_OPERATIONAL;
	hfd_device_pci_bus_id(index, &dev->pci_bus, dev->bus_id,
			      sizeof(dev->bus_id));
	hfd_identity_device(dev, drv->server_id, drv->server_hash);
	dev->cs_timeout_ms = drv->cs_timeout_ms;
	dev->exclusive = drv->exclusive;
	dev->reset_on_lockup = drv->reset_on_lockup;
	dev->reset_on_fatal = drv->reset_on_fatal;
	dev->fatal_page_faults = drv->fatal_page_faults;
	ret = pthread_mutex_init(&dev->ctx_lock, NULL);
	if (ret)
		return -ret;
	pthread_rwlock_init(&dev->reset_lock, NULL);
	pthread_mutex_init(&dev->fault_lock, NULL);

	memset(&cfg, 0, sizeof(cfg));
	cfg.profile = profile;
	cfg.index = index;
	cfg.module_id = dev->module_id;
	cfg.pci_domain = dev->pci_domain;
	cfg.pci_bus = dev->pci_bus;
	cfg.serial = dev->serial;
	cfg.cb.cs_done = hfd_cs_done_cb;
	cfg.cb.engine_reset = hfd_engine_reset_cb;
	cfg.cb.arg = dev;
	if (dram_size_override && dram_size_override <= profile->dram_size &&
	    !(dram_size_override % profile->dram_page_size) &&
	    hfd_fw_if_minor_in_use(drv->model) >= 7)
		cfg.dram_size = dram_size_override;
	if (fab) {
		cfg.cb.nic_event = hfd_nic_event_cb;
		cfg.fabric = fab;
	}
	ret = drv->model->ops->create(&cfg, &dev->fw);
	if (ret) {
		hfd_err("hpu%u: device model refused to create the device: %s",
			index, strerror(-ret));
		goto err_destroy_lock;
	}

	if (drv->timing_model && hfd_device_set_timing_model(dev, true))
		hfd_warn("hpu%u: no modeled busy time (--timing-model)", index);

	/* the model fills the chip's fields; the driver owns the rest */
	drv->model->ops->hw_ip_info(dev->fw, &dev->ip);
	dev->ip.module_id = dev->module_id;
	dev->ip.max_cs_chunks = HPU_MAX_JOBS_PER_CS;
	if (!dev->ip.server_type)
		dev->ip.server_type = profile->server_type;
	dev->ip.pad = 0;
	dev->ip.reserved = 0;
	if (!dev->ip.fw_version[0])
		snprintf((char *)dev->ip.fw_version, sizeof(dev->ip.fw_version),
			 "%s %s", drv->model->name, drv->model->version);
	dev->ip.card_name[sizeof(dev->ip.card_name) - 1] = 0;
	dev->ip.fw_version[sizeof(dev->ip.fw_version) - 1] = 0;
	__atomic_store_n(&dev->state, HFD_SLOT_PRESENT, __ATOMIC_RELEASE);
	return 0;

err_destroy_lock:
	pthread_mutex_destroy(&dev->fault_lock);
	pthread_rwlock_destroy(&dev->reset_lock);
	pthread_mutex_destroy(&dev->ctx_lock);
	return ret;
}

/* Destroys the model's device and frees the slot; no context is left. */
static void device_destroy(struct hfd_device *dev)
{
	dev->model->ops->destroy(dev->fw);
	dev->fw = NULL;
	pthread_mutex_destroy(&dev->fault_lock);
	pthread_rwlock_destroy(&dev->reset_lock);
	pthread_mutex_destroy(&dev->ctx_lock);
	__atomic_store_n(&dev->state, HFD_SLOT_FREE, __ATOMIC_RELEASE);
}

static void device_fini(struct hfd_driver *drv, struct hfd_device *dev)
{
	/* the releases below must not start a teardown of their own */
	pthread_mutex_lock(&dev->ctx_lock);
	dev->dying = true;
	pthread_mutex_unlock(&dev->ctx_lock);
	hfd_device_release_all(dev);
	device_destroy(dev);
}

/**
 * hfd_device_present() - whether @dev is in the device directory
 * @dev: a slot of the driver
 */
bool hfd_device_present(const struct hfd_device *dev)
{
	return __atomic_load_n(&dev->state, __ATOMIC_ACQUIRE) ==
	       HFD_SLOT_PRESENT;
}

/**
 * hfd_device_unplugged() - the last file of a hot-removed device was
 * released: free the model's device (its HBM) and the slot
 * @dev: device whose teardown the caller claimed (@dev->dying)
 */
void hfd_device_unplugged(struct hfd_device *dev)
{
	hfd_info("hpu%u: last file closed, device freed", dev->index);
	device_destroy(dev);
}

/**
 * hfd_driver_set_cs_timeout() - default per-CS timeout of every device
 * @drv: driver
 * @ms: milliseconds (> 0)
 */
void hfd_driver_set_cs_timeout(struct hfd_driver *drv, uint32_t ms)
{
	unsigned int i;

	drv->cs_timeout_ms = ms;
	for (i = 0; i < HFD_MAX_DEVICES; i++)
		if (hfd_device_present(&drv->devs[i]))
			drv->devs[i].cs_timeout_ms = ms;
}

/**
 * hfd_driver_set_exclusive() - exclusive mode of every device (--exclusive)
 * @drv: driver
 * @exclusive: one compute context per device at a time
 *
 * Called before the daemon serves: a context already open is not asked.
 */
void hfd_driver_set_exclusive(struct hfd_driver *drv, bool exclusive)
{
	unsigned int i;

	drv->exclusive = exclusive;
	for (i = 0; i < HFD_MAX_DEVICES; i++)
		if (hfd_device_present(&drv->devs[i]))
			drv->devs[i].exclusive = exclusive;
}

/**
 * hfd_device_set_timing_model() - a device counts its modeled busy time
 * (firmware interface 1.6), or stops
 * @dev: present device
 * @on: count
 *
 * Return: 0, -EOPNOTSUPP (a model before 1.6, a chip without figures).
 */
int hfd_device_set_timing_model(struct hfd_device *dev, bool on)
{
	const struct hpu_fw_ops *o = dev->model->ops;

	if (hfd_fw_if_minor_in_use(dev->model) < 6 || !o->model_busy_enable ||
	    !o->model_busy)
		return on ? -EOPNOTSUPP : 0;
	return o->model_busy_enable(dev->fw, on);
}

/**
 * hfd_driver_set_timing_model() - --timing-model: every device, and the
 * ones hot-added later, count their modeled busy time
 * @drv: driver
 * @on: count
 *
 * Return: 0, or the first device's error (the others are still set).
 */
int hfd_driver_set_timing_model(struct hfd_driver *drv, bool on)
{
	unsigned int i;
	int ret = 0, r;

	drv->timing_model = on;
	for (i = 0; i < HFD_MAX_DEVICES; i++) {
		if (!hfd_device_present(&drv->devs[i]))
			continue;
		r = hfd_device_set_timing_model(&drv->devs[i], on);
		if (r && !ret)
			ret = r;
	}
	return ret;
}

/*
 * The server of the devices (firmware interface 1.2): scale-up wiring for
 * @ndev devices and, with @scaleout_addr, a scale-out endpoint whose
 * bound address is published as driver/scaleout_addr.
 */
static int fabric_init(struct hfd_driver *drv, unsigned int ndev,
		       const char *scaleout_addr)
{
	const struct hpu_fw_ops *o = drv->model->ops;
	struct hpu_fw_fabric_config fc;
	char ip[INET_ADDRSTRLEN];
	struct in_addr in;
	uint32_t ipv4 = 0;
	uint16_t port = 0;
	int ret;

	if (!hfd_model_has_nic(drv->model)) {
		if (!scaleout_addr)
			return 0;
		hfd_err("device model %s has no NICs: --scaleout-addr cannot be served",
			drv->model->name);
		drv->fabric_err = true;
		return -EOPNOTSUPP;
	}
	if (ndev > hfd_profile_max_server_devices(drv->profile)) {
		hfd_err("%u %s devices cannot be wired all-to-all (at most %u)",
			ndev, drv->profile->name,
			hfd_profile_max_server_devices(drv->profile));
		return -EINVAL;
	}
	memset(&fc, 0, sizeof(fc));
	fc.scaleout_addr = scaleout_addr;
	fc.num_devices = ndev;
	ret = o->fabric_create(&fc, &drv->fabric);
	if (ret) {
		drv->fabric = NULL;
		drv->fabric_err = true;
		if (scaleout_addr)
			hfd_err("--scaleout-addr %s: %s", scaleout_addr,
				strerror(-ret));
		else
			hfd_err("cannot create the server's fabric: %s",
				strerror(-ret));
		return ret;
	}
	o->fabric_addr(drv->fabric, &ipv4, &port);
	if (ipv4 || port) {
		in.s_addr = ipv4;
		if (!inet_ntop(AF_INET, &in, ip, sizeof(ip)))
			snprintf(ip, sizeof(ip), "0.0.0.0");
		snprintf(drv->scaleout_addr, sizeof(drv->scaleout_addr),
			 "%s:%u", ip, (unsigned int)port);
	}
	return 0;
}

static void fabric_fini(struct hfd_driver *drv)
{
	if (!drv->fabric)
		return;
	drv->model->ops->fabric_destroy(drv->fabric);
	drv->fabric = NULL;
	drv->scaleout_addr[0] = '\0';
}

/**
 * hfd_driver_init() - create the daemon's devices, a server without
 * scale-out
 * @drv: driver state to fill in
 * @model: device model (checked with hfd_driver_check_model())
 * @type: profile name ("gaudi", "gaudi2", "gaudi3")
 * @ndev: number of devices, 1..HFD_MAX_DEVICES
 * @where: mount directory (names the simulated server), may be NULL
 *
 * Return: 0 or -errno (-ENOENT: no such profile).
 */
int hfd_driver_init(struct hfd_driver *drv, const struct hpu_fw_model *model,
		    const char *type, unsigned int ndev, const char *where)
{
	return hfd_driver_init_server(drv, model, type, ndev, where, NULL,
				      NULL);
}

/**
 * hfd_default_module_map() - the module ids of a server of @ndev devices
 * @ndev: devices at start
 * @map: receives the module id of device i % 8 at i % 8
 *
 * An 8-device server is wired as the real 8-OAM boards are: device
 * index i holds module 0, 4, 1, 5, 2, 6, 3, 7; any other size counts
 * modules as indices (device i is module i % 8).
 */
void hfd_default_module_map(unsigned int ndev,
			    uint8_t map[HFD_MODULES_PER_SERVER])
{
	static const uint8_t oam8[HFD_MODULES_PER_SERVER] = { 0, 4, 1, 5,
							      2, 6, 3, 7 };
	unsigned int i;

	for (i = 0; i < HFD_MODULES_PER_SERVER; i++)
		map[i] = ndev == HFD_MODULES_PER_SERVER ? oam8[i] : (uint8_t)i;
}

/**
 * hfd_driver_init_server() - create the daemon's server: its fabric (with
 * a model of firmware interface 1.2) and its devices
 * @drv: driver state to fill in
 * @model: device model (checked with hfd_driver_check_model())
 * @type: profile name ("gaudi", "gaudi2", "gaudi3")
 * @ndev: number of devices, 1..HFD_MAX_DEVICES (and no more than
 *	hfd_profile_max_server_devices() with a NIC model)
 * @where: mount directory (names the simulated server), may be NULL
 * @scaleout_addr: "HOST:PORT" to accept scale-out connections on, or NULL
 * @module_map: module id of device i at i % 8 (a permutation of 0..7), or
 *	NULL for hfd_default_module_map()
 *
 * Return: 0 or -errno (-ENOENT: no such profile; with @drv->fabric_err
 * set, the model refused the fabric, e.g. a bad @scaleout_addr).
 */
int hfd_driver_init_server(struct hfd_driver *drv,
			   const struct hpu_fw_model *model, const char *type,
			   unsigned int ndev, const char *where,
			   const char *scaleout_addr, const uint8_t *module_map)
{
	unsigned int i;
	int ret;

	memset(drv, 0, sizeof(*drv));
	if (ndev < 1 || ndev > HFD_MAX_DEVICES)
		return -EINVAL;
	ret = hfd_driver_check_model(model);
	if (ret)
		return ret;
	drv->model = model;
	drv->profile = hpu_fw_find_profile(model, type);
	if (!drv->profile)
		return -ENOENT;
	drv->ndev = ndev;
	drv->server_id = hfd_identity_server(where, &drv->server_hash);
	drv->uid = getuid();
	drv->gid = getgid();
	drv->node_mode = HFD_DEF_NODE_MODE;
	drv->control_mode = HFD_DEF_CONTROL_MODE;
	drv->start_ns = hfd_now_ns();
	drv->cs_timeout_ms = HFD_DEF_CS_TIMEOUT_MS;
	if (module_map)
		memcpy(drv->module_map, module_map, sizeof(drv->module_map));
	else
		hfd_default_module_map(ndev, drv->module_map);
	/* every slot up front: a hot-add never moves a device */
	drv->devs = calloc(HFD_MAX_DEVICES, sizeof(*drv->devs));
	if (!drv->devs)
		return -ENOMEM;
	pthread_rwlock_init(&drv->hotplug_lock, NULL);
	pthread_mutex_init(&drv->ev_lock, NULL);
	ret = fabric_init(drv, ndev, scaleout_addr);
	if (ret)
		goto err_free_devs;
	drv->fabric_devices = drv->fabric ? ndev : 0;
	ret = hfd_timer_start();
	if (ret)
		goto err_fini_fabric;

	for (i = 0; i < ndev; i++) {
		ret = device_init(drv, &drv->devs[i], i, drv->profile,
				  drv->fabric, ndev);
		if (ret)
			goto err_fini_devices;
	}
	hfd_dev_events_start(drv);
	return 0;

err_fini_devices:
	while (i--)
		device_fini(drv, &drv->devs[i]);
	hfd_timer_stop();
err_fini_fabric:
	fabric_fini(drv);
err_free_devs:
	pthread_mutex_destroy(&drv->ev_lock);
	pthread_rwlock_destroy(&drv->hotplug_lock);
	free(drv->devs);
	drv->devs = NULL;
	return ret;
}

/**
 * hfd_driver_hot_add() - create a device in the lowest free slot
 * @drv: driver
 * @type: chip profile name, or NULL for the daemon's --type
 * @index: receives the new device's index
 *
 * The device joins the server's fabric when it has the daemon's profile
 * and its index is one the fabric is wired for; otherwise its NICs have
 * no scale-up peers.
 *
 * Return: 0; -ENOENT for an unknown @type; -ENOSPC when every slot is
 * taken (hot-removed devices with open files keep theirs); -errno of the
 * model.
 */
int hfd_driver_hot_add(struct hfd_driver *drv, const char *type,
		       unsigned int *index)
{
	const struct hpu_fw_profile *profile = drv->profile;
	struct hpu_fw_fabric *fab = NULL;
	unsigned int i, server = 1;
	int ret;

	if (type) {
		profile = hpu_fw_find_profile(drv->model, type);
		if (!profile)
			return -ENOENT;
	}
	pthread_rwlock_wrlock(&drv->hotplug_lock);
	for (i = 0; i < HFD_MAX_DEVICES; i++)
		if (__atomic_load_n(&drv->devs[i].state, __ATOMIC_ACQUIRE) ==
		    HFD_SLOT_FREE)
			break;
	if (i == HFD_MAX_DEVICES) {
		ret = -ENOSPC;
		goto out_unlock;
	}
	if (drv->fabric && profile == drv->profile && i < drv->fabric_devices) {
		fab = drv->fabric;
		server = drv->fabric_devices;
	}
	drv->devs[i].generation++;
	ret = device_init(drv, &drv->devs[i], i, profile, fab, server);
	if (ret)
		goto out_unlock;
	drv->ndev++;
	*index = i;
	hfd_hotplug_log(drv, "add", i);
	hfd_info("hpu%u: hot-added (%s)", i, profile->name);
out_unlock:
	pthread_rwlock_unlock(&drv->hotplug_lock);
	return ret;
}

/* Wakes every poller of @dev's files: they will see POLLERR (-ENODEV). */
static void wake_pollers_locked(struct hfd_device *dev)
{
	struct hfd_ctx *ctx;

	HPU_ASSERT_HELD(&dev->ctx_lock);

	for (ctx = dev->ctx_list; ctx; ctx = ctx->next)
		hfd_ctx_wake_poller(ctx);
}

/**
 * hfd_driver_hot_remove() - take a device out of the directory
 * @drv: driver
 * @index: device index
 *
 * From here on every open file of the device gets -ENODEV (ioctl, read,
 * poll); the model's device and its memory go when the last file is
 * released, at once when none is open.
 *
 * Return: 0, or -ENODEV when no device has @index.
 */
int hfd_driver_hot_remove(struct hfd_driver *drv, unsigned int index)
{
	struct hfd_device *dev;
	struct hfd_ctx *ctx;
	uint32_t old;
	bool idle;

	if (index >= HFD_MAX_DEVICES)
		return -ENODEV;
	dev = &drv->devs[index];
	pthread_rwlock_wrlock(&drv->hotplug_lock);
	if (!hfd_device_present(dev)) {
		pthread_rwlock_unlock(&drv->hotplug_lock);
		return -ENODEV;
	}
	pthread_mutex_lock(&dev->ctx_lock);
	old = dev->status;
	__atomic_store_n(&dev->status, HPU_DEVICE_STATUS_REMOVED,
			 __ATOMIC_RELEASE);
	/* the control contexts read these before their files say ENODEV */
	for (ctx = dev->ctx_list; ctx; ctx = ctx->next) {
		if (!ctx->control)
			continue;
		hfd_ctx_queue_event(ctx, HPU_EVENT_STATUS_CHANGE, ~0U, 0, old,
				    HPU_DEVICE_STATUS_REMOVED);
		hfd_ctx_queue_event(ctx, HPU_EVENT_DEVICE_UNAVAILABLE, ~0U, 0,
				    0, HPU_DEVICE_STATUS_REMOVED);
	}
	__atomic_store_n(&dev->state, HFD_SLOT_REMOVED, __ATOMIC_RELEASE);
	/* a context leaves ctx_list before its teardown: count, not list */
	idle = !dev->num_compute && !dev->num_control;
	if (idle)
		dev->dying = true;
	else
		wake_pollers_locked(dev);
	pthread_mutex_unlock(&dev->ctx_lock);
	drv->ndev--;
	hfd_hotplug_log(drv, "remove", index);
	hfd_info("hpu%u: hot-removed%s", index,
		 idle ? "" : ", freed when its last file is closed");
	if (idle)
		device_destroy(dev);
	pthread_rwlock_unlock(&drv->hotplug_lock);
	return 0;
}

/**
 * hfd_driver_fini() - destroy every device and the contexts still open
 * @drv: driver state (no request may be running)
 */
void hfd_driver_fini(struct hfd_driver *drv)
{
	unsigned int i;

	if (!drv->devs)
		return;
	hfd_dev_events_stop(drv);
	for (i = 0; i < HFD_MAX_DEVICES; i++)
		if (__atomic_load_n(&drv->devs[i].state, __ATOMIC_ACQUIRE) !=
		    HFD_SLOT_FREE)
			device_fini(drv, &drv->devs[i]);
	hfd_timer_stop();
	/* the model wants every device of the fabric gone first */
	fabric_fini(drv);
	hfd_event_readers_fini(drv);
	pthread_mutex_destroy(&drv->ev_lock);
	pthread_rwlock_destroy(&drv->hotplug_lock);
	free(drv->devs);
	drv->devs = NULL;
}

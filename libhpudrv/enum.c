// SPDX-License-Identifier: MIT
/*
 * enum.c - the one device list of both kinds (kernel accel devices from
 * enum_udev.c, the simulator's device directory), filtered by the
 * selection variables of visible.c, attributes and holders of a device.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpu_devdir.h"
#include "hpudrv_internal.h"

int hpudrv_devdir(char *buf, size_t len)
{
	return hpu_devdir_default(buf, len);
}

/**
 * hpudrv_name_number() - N of a node name "@prefix N"
 * @name: node name, or NULL
 * @prefix: what precedes N ("hpu", "accel")
 *
 * Return: N (decimal, no sign, no leading zero, at most INT_MAX), or -1
 * when @name is not @prefix followed by such a number.
 */
int hpudrv_name_number(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);
	unsigned long v = 0;
	const char *p;

	if (!name || strncmp(name, prefix, len))
		return -1;
	p = name + len;
	if (!isdigit((unsigned char)*p) || (p[0] == '0' && p[1]))
		return -1;
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > INT_MAX)
			return -1;
	}
	return (int)v;
}

/**
 * hpudrv_module_id() - the value of a module_id attribute
 * @val: the attribute's text ("" when absent)
 *
 * Return: the id, or -1 when @val is not a decimal 0..INT_MAX.
 */
int hpudrv_module_id(const char *val)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(val, &end, 10);
	if (val[0] && !*end && !errno && v >= 0 && v <= INT_MAX)
		return (int)v;
	return -1;
}

int hpudrv_read_file(const char *path, char **data, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf, *nb;
	ssize_t r;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto err_close;
	}
	for (;;) {
		if (cap - n < 2) {
			if (cap >= HPUDRV_ATTR_MAX) {
				ret = -EFBIG;
				goto err_free;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				ret = -ENOMEM;
				goto err_free;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			goto err_free;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*data = buf;
	if (len)
		*len = n;
	return 0;

err_free:
	free(buf);
err_close:
	close(fd);
	return ret;
}

/* Reads a one-line attribute into @buf without its trailing newline. */
static int read_value(const char *path, char *buf, size_t len)
{
	char *data;
	size_t n;
	int ret;

	ret = hpudrv_read_file(path, &data, &n);
	if (ret)
		return ret;
	while (n && (data[n - 1] == '\n' || data[n - 1] == '\r'))
		data[--n] = '\0';
	if (n >= len) {
		ret = -ERANGE;
	} else {
		memcpy(buf, data, n + 1);
		ret = 0;
	}
	free(data);
	return ret;
}

static int attr_name_ok(const char *name)
{
	return name && name[0] && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..");
}

static void info_attr(const struct hpu_device_info *info, const char *name,
		      char *buf, size_t len)
{
	char path[HPU_PATH_LEN + 64];

	snprintf(path, sizeof(path), "%s/%s", info->attr_dir, name);
	if (read_value(path, buf, len))
		buf[0] = '\0';
}

/* PCI device id from the control node; 0 when the node does not answer */
static unsigned int probe_device_id(const struct hpu_device_info *info)
{
	struct hpu_info_hw_ip_info hw;
	struct hpu_device *dev;
	unsigned int id = 0;

	if (hpudrv_open_node(info, true, &dev))
		return 0;
	if (!hpudrv_info(dev->fd, HPU_INFO_HW_IP_INFO, 0, &hw, sizeof(hw)))
		id = hw.device_id;
	hpu_close(dev);
	return id;
}

/**
 * hpudrv_sim_info() - describe node hpu@num of @dir as device @index
 * @dir: device directory
 * @num: N of hpuN
 * @index: its index in the list
 * @full: read the attributes (best effort) and the PCI device id too
 * @info: receives the description
 *
 * Return: 0 or -ENAMETOOLONG.
 */
int hpudrv_sim_info(const char *dir, int num, int index, bool full,
		    struct hpu_device_info *info)
{
	char val[HPU_NAME_LEN];
	int n;

	memset(info, 0, sizeof(*info));
	info->index = index;
	info->kind = HPU_DEVICE_KIND_SIMULATED;
	info->module_id = -1;
	snprintf(info->node_name, sizeof(info->node_name), "hpu%d", num);
	n = snprintf(info->node_path, sizeof(info->node_path), "%s/hpu%d", dir,
		     num);
	if (n < 0 || (size_t)n >= sizeof(info->node_path))
		return -ENAMETOOLONG;
	n = snprintf(info->control_path, sizeof(info->control_path),
		     "%s/hpu_control%d", dir, num);
	if (n < 0 || (size_t)n >= sizeof(info->control_path))
		return -ENAMETOOLONG;
	n = snprintf(info->attr_dir, sizeof(info->attr_dir), "%s/class/hpu%d",
		     dir, num);
	if (n < 0 || (size_t)n >= sizeof(info->attr_dir))
		return -ENAMETOOLONG;
	if (!full)
		return 0;

	info_attr(info, "pci_addr", info->bus_id, sizeof(info->bus_id));
	info_attr(info, "device_type", info->device_type,
		  sizeof(info->device_type));
	info_attr(info, "card_name", info->card_name, sizeof(info->card_name));
	info_attr(info, "serial_number", info->serial, sizeof(info->serial));
	info_attr(info, "module_id", val, sizeof(val));
	info->module_id = hpudrv_module_id(val);
	info->device_id = probe_device_id(info);
	return 0;
}

static int cmp_index(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The hpuN numbers of @dir, sorted; a missing directory has none. */
static int scan_sim(const char *dir, int **nump, int *countp)
{
	int *num = NULL, *nn, n = 0, cap = 0, ret, i;
	struct dirent *de;
	DIR *d;

	*nump = NULL;
	*countp = 0;
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return -errno;
	}
	while ((de = readdir(d))) {
		i = hpudrv_name_number(de->d_name, "hpu");
		if (i < 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			nn = realloc(num, (size_t)cap * sizeof(*num));
			if (!nn) {
				ret = -ENOMEM;
				goto err_free;
			}
			num = nn;
		}
		num[n++] = i;
	}
	closedir(d);
	if (n)
		qsort(num, (size_t)n, sizeof(*num), cmp_index);
	*nump = num;
	*countp = n;
	return 0;

err_free:
	free(num);
	closedir(d);
	return ret;
}

/**
 * hpudrv_scan() - every device of both kinds, before the selection
 * variables (visible.c)
 * @s: receives the scan; release it with hpudrv_scan_free()
 *
 * Indices: kernel devices 0..nk-1 in accel minor order, then simulated
 * hpuN as nk + N.
 *
 * Every enumeration and open call starts here, so this is where the
 * thread's hpu_last_error() is cleared.
 *
 * Return: 0 or -errno (-EINVAL: a malformed selection variable).
 */
int hpudrv_scan(struct hpudrv_scan *s)
{
	int ret;

	memset(s, 0, sizeof(*s));
	hpudrv_clear_error();
	ret = hpudrv_visible_check();
	if (ret < 0)
		return ret;
	ret = hpudrv_devdir(s->dir, sizeof(s->dir));
	if (ret)
		return ret;
	ret = hpudrv_udev_scan(&s->kdevs, &s->nk);
	if (ret)
		return ret;
	ret = scan_sim(s->dir, &s->sim, &s->nsim);
	if (ret) {
		hpudrv_scan_free(s);
		return ret;
	}
	return 0;
}

void hpudrv_scan_free(struct hpudrv_scan *s)
{
	free(s->kdevs);
	free(s->sim);
	memset(s, 0, sizeof(*s));
}

/**
 * hpudrv_scan_info() - the device with @index in @s
 * @s: scan
 * @index: device index
 * @full: read the attributes too (else paths and identity only)
 * @info: receives the description
 *
 * Return: 0, or -ENODEV when @s has no such device.
 */
int hpudrv_scan_info(const struct hpudrv_scan *s, int index, bool full,
		     struct hpu_device_info *info)
{
	int num;

	if (index < 0)
		return -ENODEV;
	if (index < s->nk) {
		*info = s->kdevs[index];
		return 0;
	}
	num = index - s->nk;
	if (!s->nsim ||
	    !bsearch(&num, s->sim, (size_t)s->nsim, sizeof(*s->sim), cmp_index))
		return -ENODEV;
	return hpudrv_sim_info(s->dir, num, index, full, info);
}

/* Index of entry @i of @s (kernel ones first) */
static int scan_index(const struct hpudrv_scan *s, int i)
{
	return i < s->nk ? i : s->nk + s->sim[i - s->nk];
}

int hpu_device_list(struct hpu_device_info **list, int *count)
{
	struct hpu_device_info *l = NULL;
	struct hpudrv_scan s;
	int n = 0, i, idx, ret;

	if (!list || !count)
		return -EINVAL;
	*list = NULL;
	*count = 0;
	ret = hpudrv_scan(&s);
	if (ret)
		return ret;
	if (s.nk + s.nsim) {
		l = calloc((size_t)(s.nk + s.nsim), sizeof(*l));
		if (!l) {
			ret = -ENOMEM;
			goto out_free_scan;
		}
	}
	for (i = 0; i < s.nk + s.nsim; i++) {
		idx = scan_index(&s, i);
		if (hpudrv_visible_in(&s, idx) != 1)
			continue;
		ret = hpudrv_scan_info(&s, idx, true, &l[n]);
		if (ret) {
			free(l);
			goto out_free_scan;
		}
		n++;
	}
	if (!n) {
		free(l);
		l = NULL;
	}
	*list = l;
	*count = n;
out_free_scan:
	hpudrv_scan_free(&s);
	return ret;
}

void hpu_device_list_free(struct hpu_device_info *list)
{
	free(list);
}

int hpu_device_count(void)
{
	struct hpudrv_scan s;
	int i, n = 0, ret;

	ret = hpudrv_scan(&s);
	if (ret)
		return ret;
	for (i = 0; i < s.nk + s.nsim; i++)
		if (hpudrv_visible_in(&s, scan_index(&s, i)) == 1)
			n++;
	hpudrv_scan_free(&s);
	return n;
}

/**
 * hpudrv_lookup() - the visible device with @index
 * @index: device index
 * @full: read the attributes too
 * @info: receives the description
 *
 * Return: 0; -EINVAL for a negative index or a malformed selection
 * variable; -ENODEV when it is hidden or absent.
 */
int hpudrv_lookup(int index, bool full, struct hpu_device_info *info)
{
	struct hpudrv_scan s;
	int ret;

	if (index < 0)
		return -EINVAL;
	ret = hpudrv_scan(&s);
	if (ret)
		return ret;
	ret = hpudrv_visible_in(&s, index);
	if (ret == 1)
		ret = hpudrv_scan_info(&s, index, full, info);
	else if (!ret)
		ret = -ENODEV;
	hpudrv_scan_free(&s);
	return ret;
}

static int bus_id_equal(const char *a, const char *b)
{
	char full[HPU_BUS_ID_LEN + 8];

	/* "BB:DD.F" is domain 0 */
	if (strlen(b) == 7) {
		snprintf(full, sizeof(full), "0000:%s", b);
		b = full;
	}
	return a[0] && !strcasecmp(a, b);
}

int hpudrv_find(const struct hpu_device_info *want, int mode,
		struct hpu_device_info *info)
{
	struct hpu_device_info *list;
	int n, i, ret;

	if (mode == HPUDRV_FIND_INDEX)
		return hpudrv_lookup(want->index, true, info);
	ret = hpu_device_list(&list, &n);
	if (ret)
		return ret;
	ret = -ENODEV;
	for (i = 0; i < n; i++) {
		if ((mode == HPUDRV_FIND_BUS_ID &&
		     bus_id_equal(list[i].bus_id, want->bus_id)) ||
		    (mode == HPUDRV_FIND_MODULE_ID &&
		     list[i].module_id == want->module_id)) {
			*info = list[i];
			ret = 0;
			break;
		}
	}
	hpu_device_list_free(list);
	return ret;
}

int hpu_device_get_info(int index, struct hpu_device_info *info)
{
	struct hpu_device_info want = { .index = index };

	if (index < 0 || !info)
		return -EINVAL;
	return hpudrv_find(&want, HPUDRV_FIND_INDEX, info);
}

int hpu_device_read_attr(int index, const char *name, char *buf, size_t len)
{
	struct hpu_device_info info;
	char path[HPU_PATH_LEN + 64];
	int ret;

	if (index < 0 || !attr_name_ok(name) || !buf || !len)
		return -EINVAL;
	ret = hpudrv_lookup(index, false, &info);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s", info.attr_dir, name);
	return read_value(path, buf, len);
}

int hpu_driver_read_attr(const char *name, char *buf, size_t len)
{
	char dir[HPU_PATH_LEN - 32];
	char path[HPU_PATH_LEN + 64];
	int ret;

	if (!attr_name_ok(name) || !buf || !len)
		return -EINVAL;
	ret = hpudrv_devdir(dir, sizeof(dir));
	if (ret)
		return ret;
	if (access(dir, F_OK))
		return -ENODEV;
	snprintf(path, sizeof(path), "%s/driver/%s", dir, name);
	return read_value(path, buf, len);
}

/**
 * hpudrv_driver_open() - open a file of hpu-fused's driver/ directory
 * @name: file name in it
 * @flags: open(2) flags; O_CLOEXEC is added
 *
 * Return: the descriptor; -ENODEV when no daemon serves the device
 * directory; -errno.
 */
int hpudrv_driver_open(const char *name, int flags)
{
	char dir[HPU_PATH_LEN - 32], path[HPU_PATH_LEN];
	int fd, ret;

	ret = hpudrv_devdir(dir, sizeof(dir));
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/driver/%s", dir, name);
	fd = open(path, flags | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	ret = -errno;
	return ret == -ENOENT || ret == -ENOTDIR || ret == -ENOTCONN ? -ENODEV :
								       ret;
}

/* Decimal digits at *p into *v; advances *p. -EIO when none or overflow. */
static int parse_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (!isdigit((unsigned char)*s))
		return -EIO;
	for (; isdigit((unsigned char)*s); s++) {
		if (x > (UINT64_MAX - 9) / 10)
			return -EIO;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	*v = x;
	return 0;
}

static int skip_blanks(const char **p)
{
	const char *s = *p;

	while (*s == ' ' || *s == '\t')
		s++;
	if (s == *p)
		return -EIO;
	*p = s;
	return 0;
}

/* One "PID DRAM_BYTES COMM" line (without its newline) into @proc. */
static int parse_client(const char *line, size_t len, struct hpu_process *proc)
{
	const char *p = line, *end = line + len;
	uint64_t pid, dram;
	size_t n;

	if (memchr(line, '\0', len))
		return -EIO;
	if (parse_u64(&p, &pid) || pid == 0 || pid > INT_MAX)
		return -EIO;
	if (skip_blanks(&p) || parse_u64(&p, &dram) || skip_blanks(&p))
		return -EIO;
	if (p >= end)
		return -EIO;
	n = (size_t)(end - p);
	if (n >= sizeof(proc->comm))
		n = sizeof(proc->comm) - 1;
	proc->pid = (int)pid;
	proc->dram_bytes = dram;
	memcpy(proc->comm, p, n);
	proc->comm[n] = '\0';
	return 0;
}

int hpudrv_parse_clients(const char *text, size_t len,
			 struct hpu_process **list, int *count)
{
	struct hpu_process *l = NULL;
	const char *p = text, *end = text + len, *nl;
	int n = 0, lines = 0, i, ret;

	for (i = 0; (size_t)i < len; i++)
		if (text[i] == '\n')
			lines++;
	if (len && text[len - 1] != '\n')
		lines++;
	if (lines) {
		l = calloc((size_t)lines, sizeof(*l));
		if (!l)
			return -ENOMEM;
	}
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		ret = parse_client(p, (size_t)(nl - p), &l[n]);
		if (ret) {
			free(l);
			return ret;
		}
		n++;
		p = nl + 1;
	}
	if (!n) {
		free(l);
		l = NULL;
	}
	*list = l;
	*count = n;
	return 0;
}

int hpu_device_processes(int index, struct hpu_process **list, int *count)
{
	struct hpu_device_info info;
	char path[HPU_PATH_LEN + 64];
	char *text;
	size_t len;
	int ret;

	if (index < 0 || !list || !count)
		return -EINVAL;
	*list = NULL;
	*count = 0;
	ret = hpudrv_lookup(index, false, &info);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/clients", info.attr_dir);
	ret = hpudrv_read_file(path, &text, &len);
	if (ret)
		return ret;
	ret = hpudrv_parse_clients(text, len, list, count);
	free(text);
	return ret;
}

void hpu_process_list_free(struct hpu_process *list)
{
	free(list);
}

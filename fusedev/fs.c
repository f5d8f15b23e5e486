// SPDX-License-Identifier: MIT
/*
 * fs.c - the FUSE front end's namespace: inode numbering (hpu_fs.h),
 * lookup/getattr/readdir of the device directory, the entry
 * invalidations after a hot-plug, and the table of FUSE operations, whose
 * file operations (open, read, ioctl, poll, ...) are fs_files.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "hl_personality.h"
#include "hpu_fs.h"

/* Attribute files report this size (like sysfs) and are read with direct_io */
#define ATTR_FILE_SIZE	4096
/* The tree is static: the kernel may cache names and attributes */
#define ENTRY_TIMEOUT_S 10.0

static time_t mount_time;

/* Whether slot @index holds a device in the directory */
static bool slot_present(const struct hfd_driver *drv, unsigned long index)
{
	return index < HFD_MAX_DEVICES && hfd_device_present(&drv->devs[index]);
}

/* Whether slot @index has habanalabs nodes (docs/habanalabs.md) */
static bool hl_slot(const struct hfd_driver *drv, unsigned long index)
{
	return drv->habanalabs && slot_present(drv, index) &&
	       hfd_hl_device_ok(&drv->devs[index]);
}

/* Names of the habanalabs nodes, by kind and attr (hlN and accelN) */
static const char *const hl_names[2][2] = {
	{ "hl", "accel" },
	{ "hl_controlD", "accel_controlD" },
};

/**
 * hfd_fs_decode() - decode inode number @ino into @n
 * @drv: the driver
 * @ino: inode number
 * @n: the decoded inode
 *
 * Return: 0, or -ENOENT when @ino names nothing (now): a malformed number
 * or a device that is not present.
 */
int hfd_fs_decode(const struct hfd_driver *drv, fuse_ino_t ino, struct node *n)
{
	if (ino == FUSE_ROOT_ID) {
		n->kind = KIND_ROOT;
		n->dev = n->attr = 0;
		return 0;
	}
	n->kind = (unsigned int)(ino >> 32);
	n->dev = (unsigned int)((ino >> 16) & 0xffff);
	n->attr = (unsigned int)(ino & 0xffff);
	switch (n->kind) {
	case KIND_COMPUTE:
	case KIND_CONTROL:
	case KIND_DEV_DIR:
		return slot_present(drv, n->dev) && !n->attr ? 0 : -ENOENT;
	case KIND_HL_COMPUTE:
	case KIND_HL_CONTROL:
		return hl_slot(drv, n->dev) && n->attr <= 1 ? 0 : -ENOENT;
	case KIND_DEV_ATTR:
		return slot_present(drv, n->dev) &&
				       n->attr < hfd_num_dev_attrs ?
			       0 :
			       -ENOENT;
	case KIND_CLASS_DIR:
	case KIND_DRV_DIR:
	case KIND_HOTPLUG:
	case KIND_EVENTS:
		return !n->dev && !n->attr ? 0 : -ENOENT;
	case KIND_DRV_ATTR:
		return !n->dev && n->attr < hfd_num_drv_attrs ? 0 : -ENOENT;
	default:
		return -ENOENT;
	}
}

static void fill_stat(const struct hfd_driver *drv, fuse_ino_t ino,
		      const struct node *n, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = drv->uid;
	st->st_gid = drv->gid;
	st->st_atime = st->st_mtime = st->st_ctime = mount_time;
	st->st_blksize = 4096;
	if (is_dir(n->kind)) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
	} else if (n->kind == KIND_COMPUTE || n->kind == KIND_HL_COMPUTE) {
		st->st_mode = S_IFREG | drv->node_mode;
		st->st_nlink = 1;
		/* habanalabs: its kernel CBs are mapped at their handles,
		 * which the page cache takes for offsets below the size */
		if (n->kind == KIND_HL_COMPUTE)
			st->st_size = (off_t)HL_CB_FILE_SIZE;
	} else if (n->kind == KIND_CONTROL || n->kind == KIND_HL_CONTROL) {
		st->st_mode = S_IFREG | drv->control_mode;
		st->st_nlink = 1;
	} else if (n->kind == KIND_HOTPLUG) {
		/* like a root-only sysfs store: the daemon's user only */
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
	} else if (n->kind == KIND_EVENTS) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
	} else {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = ATTR_FILE_SIZE;
	}
}

/* "hpuN" with N the index of a present device, no sign, no leading zero */
static int parse_index(const struct hfd_driver *drv, const char *s,
		       const char *prefix)
{
	size_t plen = strlen(prefix);
	unsigned long v;
	char *end;

	if (strncmp(s, prefix, plen))
		return -1;
	s += plen;
	if (s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1]))
		return -1;
	v = strtoul(s, &end, 10);
	if (*end || !slot_present(drv, v))
		return -1;
	return (int)v;
}

/* hlN, hl_controlDN, accelN, accel_controlDN of a habanalabs device */
static int lookup_hl(const struct hfd_driver *drv, const char *name,
		     fuse_ino_t *ino)
{
	unsigned int k, a;
	int idx;

	for (k = 0; k < 2; k++) {
		for (a = 0; a < 2; a++) {
			idx = parse_index(drv, name, hl_names[k][a]);
			if (idx >= 0 && hl_slot(drv, (unsigned long)idx)) {
				*ino = INO(k ? KIND_HL_CONTROL :
					       KIND_HL_COMPUTE,
					   idx, a);
				return 0;
			}
		}
	}
	return -ENOENT;
}

static int lookup_child(const struct hfd_driver *drv, const struct node *p,
			const char *name, fuse_ino_t *ino)
{
	unsigned int i;
	int idx;

	switch (p->kind) {
	case KIND_ROOT:
		if (!strcmp(name, "class"))
			*ino = INO(KIND_CLASS_DIR, 0, 0);
		else if (!strcmp(name, "driver"))
			*ino = INO(KIND_DRV_DIR, 0, 0);
		else if ((idx = parse_index(drv, name, "hpu_control")) >= 0)
			*ino = INO(KIND_CONTROL, idx, 0);
		else if ((idx = parse_index(drv, name, "hpu")) >= 0)
			*ino = INO(KIND_COMPUTE, idx, 0);
		else
			return lookup_hl(drv, name, ino);
		return 0;
	case KIND_CLASS_DIR:
		idx = parse_index(drv, name, "hpu");
		if (idx < 0)
			return -ENOENT;
		*ino = INO(KIND_DEV_DIR, idx, 0);
		return 0;
	case KIND_DEV_DIR:
		for (i = 0; i < hfd_num_dev_attrs; i++) {
			if (!strcmp(name, hfd_dev_attrs[i].name)) {
				*ino = INO(KIND_DEV_ATTR, p->dev, i);
				return 0;
			}
		}
		return -ENOENT;
	case KIND_DRV_DIR:
		if (!strcmp(name, "hotplug")) {
			*ino = INO(KIND_HOTPLUG, 0, 0);
			return 0;
		}
		if (!strcmp(name, "events")) {
			*ino = INO(KIND_EVENTS, 0, 0);
			return 0;
		}
		for (i = 0; i < hfd_num_drv_attrs; i++) {
			if (!strcmp(name, hfd_drv_attrs[i].name)) {
				*ino = INO(KIND_DRV_ATTR, 0, i);
				return 0;
			}
		}
		return -ENOENT;
	default:
		return -ENOTDIR;
	}
}

static void fs_init(void *userdata, struct fuse_conn_info *conn)
{
	struct hfd_driver *drv = userdata;

	mount_time = time(NULL);
	hfd_info("serving %u %s device(s)", drv->ndev, drv->profile->name);
}

/* The kernel's answer to a FUSE_NOTIFY_RETRIEVE (hl_cb.c) */
static void fs_retrieve_reply(fuse_req_t req, void *cookie, fuse_ino_t ino,
			      off_t offset, struct fuse_bufvec *bufv)
{
	hfd_hl_cb_retrieve_reply(req, cookie, bufv);
}

static void fs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct hfd_driver *drv = req_drv(req);
	struct fuse_entry_param e;
	struct node p, n;
	int ret;

	memset(&e, 0, sizeof(e));
	ret = hfd_fs_decode(drv, parent, &p);
	if (!ret)
		ret = lookup_child(drv, &p, name, &e.ino);
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	hfd_fs_decode(drv, e.ino, &n);
	fill_stat(drv, e.ino, &n, &e.attr);
	e.generation = 1;
	if (n.kind == KIND_COMPUTE || n.kind == KIND_CONTROL ||
	    is_hl_node(n.kind) || n.kind == KIND_DEV_DIR ||
	    n.kind == KIND_DEV_ATTR)
		e.generation = drv->devs[n.dev].generation + 1;
	e.attr_timeout = ENTRY_TIMEOUT_S;
	e.entry_timeout = ENTRY_TIMEOUT_S;
	fuse_reply_entry(req, &e);
}

static void fs_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct hfd_driver *drv = req_drv(req);
	struct stat st;
	struct node n;

	if (hfd_fs_decode(drv, ino, &n)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fill_stat(drv, ino, &n, &st);
	fuse_reply_attr(req, &st, ENTRY_TIMEOUT_S);
}

/**
 * struct dirbuf - a directory listing being built
 * @req: request (fuse_add_direntry needs it)
 * @buf: entries
 * @size: bytes used
 * @err: -ENOMEM once an allocation failed
 */
struct dirbuf {
	fuse_req_t req;
	char *buf;
	size_t size;
	int err;
};

static void dirbuf_add(struct dirbuf *b, const char *name, fuse_ino_t ino)
{
	struct stat st = { .st_ino = ino };
	size_t old = b->size;
	char *nb;

	if (b->err)
		return;
	st.st_mode = is_dir(ino_kind(ino)) ? S_IFDIR : S_IFREG;
	b->size += fuse_add_direntry(b->req, NULL, 0, name, NULL, 0);
	nb = realloc(b->buf, b->size);
	if (!nb) {
		b->err = -ENOMEM;
		return;
	}
	b->buf = nb;
	fuse_add_direntry(b->req, b->buf + old, b->size - old, name, &st,
			  (off_t)b->size);
}

static void list_hl(const struct hfd_driver *drv, struct dirbuf *b)
{
	unsigned int i, k, a;
	char name[32];

	for (k = 0; k < 2; k++)
		for (a = 0; a < 2; a++)
			for (i = 0; i < HFD_MAX_DEVICES; i++) {
				if (!hl_slot(drv, i))
					continue;
				snprintf(name, sizeof(name), "%s%u",
					 hl_names[k][a], i);
				dirbuf_add(b, name,
					   INO(k ? KIND_HL_CONTROL :
						   KIND_HL_COMPUTE,
					       i, a));
			}
}

static void list_dir(const struct hfd_driver *drv, fuse_ino_t ino,
		     const struct node *n, struct dirbuf *b)
{
	char name[32];
	unsigned int i;

	dirbuf_add(b, ".", ino);
	dirbuf_add(b, "..",
		   n->kind == KIND_DEV_DIR ? INO(KIND_CLASS_DIR, 0, 0) :
					     FUSE_ROOT_ID);
	switch (n->kind) {
	case KIND_ROOT:
		for (i = 0; i < HFD_MAX_DEVICES; i++) {
			if (!slot_present(drv, i))
				continue;
			snprintf(name, sizeof(name), "hpu%u", i);
			dirbuf_add(b, name, INO(KIND_COMPUTE, i, 0));
		}
		for (i = 0; i < HFD_MAX_DEVICES; i++) {
			if (!slot_present(drv, i))
				continue;
			snprintf(name, sizeof(name), "hpu_control%u", i);
			dirbuf_add(b, name, INO(KIND_CONTROL, i, 0));
		}
		list_hl(drv, b);
		dirbuf_add(b, "class", INO(KIND_CLASS_DIR, 0, 0));
		dirbuf_add(b, "driver", INO(KIND_DRV_DIR, 0, 0));
		break;
	case KIND_CLASS_DIR:
		for (i = 0; i < HFD_MAX_DEVICES; i++) {
			if (!slot_present(drv, i))
				continue;
			snprintf(name, sizeof(name), "hpu%u", i);
			dirbuf_add(b, name, INO(KIND_DEV_DIR, i, 0));
		}
		break;
	case KIND_DEV_DIR:
		for (i = 0; i < hfd_num_dev_attrs; i++)
			dirbuf_add(b, hfd_dev_attrs[i].name,
				   INO(KIND_DEV_ATTR, n->dev, i));
		break;
	case KIND_DRV_DIR:
		for (i = 0; i < hfd_num_drv_attrs; i++)
			dirbuf_add(b, hfd_drv_attrs[i].name,
				   INO(KIND_DRV_ATTR, 0, i));
		dirbuf_add(b, "hotplug", INO(KIND_HOTPLUG, 0, 0));
		dirbuf_add(b, "events", INO(KIND_EVENTS, 0, 0));
		break;
	}
}

static void fs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct hfd_driver *drv = req_drv(req);
	struct dirbuf b = { .req = req };
	struct node n;

	if (hfd_fs_decode(drv, ino, &n)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (!is_dir(n.kind)) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	list_dir(drv, ino, &n, &b);
	if (b.err)
		fuse_reply_err(req, -b.err);
	else if (off < 0 || (size_t)off >= b.size)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(req, b.buf + off,
			       b.size - (size_t)off < size ?
				       b.size - (size_t)off :
				       size);
	free(b.buf);
}

/* After a hot-plug: drop what the kernel cached of device @index */
void hfd_fs_invalidate_device(struct hfd_driver *drv, unsigned int index)
{
	unsigned int k;
	char name[32];

	if (!drv->se)
		return;
	snprintf(name, sizeof(name), "hpu%u", index);
	fuse_lowlevel_notify_inval_entry(drv->se, FUSE_ROOT_ID, name,
					 strlen(name));
	fuse_lowlevel_notify_inval_entry(drv->se, INO(KIND_CLASS_DIR, 0, 0),
					 name, strlen(name));
	snprintf(name, sizeof(name), "hpu_control%u", index);
	fuse_lowlevel_notify_inval_entry(drv->se, FUSE_ROOT_ID, name,
					 strlen(name));
	for (k = 0; drv->habanalabs && k < 4; k++) {
		snprintf(name, sizeof(name), "%s%u", hl_names[k / 2][k % 2],
			 index);
		fuse_lowlevel_notify_inval_entry(drv->se, FUSE_ROOT_ID, name,
						 strlen(name));
	}
}

const struct fuse_lowlevel_ops hfd_fs_ops = {
	.init = fs_init,
	.lookup = fs_lookup,
	.getattr = fs_getattr,
	.readdir = fs_readdir,
	.open = hfd_fs_open,
	.release = hfd_fs_release,
	.read = hfd_fs_read,
	.write = hfd_fs_write,
	.ioctl = hfd_fs_ioctl,
	.poll = hfd_fs_poll,
	.retrieve_reply = fs_retrieve_reply,
};

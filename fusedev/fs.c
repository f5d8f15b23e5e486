// SPDX-License-Identifier: MIT
/*
 * fs.c - the FUSE front end: inode numbering, lookup/getattr/readdir of
 * the device directory, and open/release/read/ioctl/poll of its files,
 * which it hands to the driver core.
 *
 * An inode number encodes what it names:
 *	bits 32..39 kind, bits 16..31 device index, bits 0..15 attribute
 * The tree never changes while mounted, so nothing is allocated per inode
 * and forget needs no bookkeeping.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "hpu_fused.h"

enum ino_kind {
	KIND_ROOT = 0,	    /* FUSE_ROOT_ID */
	KIND_COMPUTE = 1,   /* hpuN */
	KIND_CONTROL = 2,   /* hpu_controlN */
	KIND_CLASS_DIR = 3, /* class/ */
	KIND_DEV_DIR = 4,   /* class/hpuN/ */
	KIND_DEV_ATTR = 5,  /* class/hpuN/<attr> */
	KIND_DRV_DIR = 6,   /* driver/ */
	KIND_DRV_ATTR = 7,  /* driver/<attr> */
};

#define INO(kind, dev, attr)                                      \
	(((fuse_ino_t)(kind) << 32) | ((fuse_ino_t)(dev) << 16) | \
	 (fuse_ino_t)(attr))

/* Attribute files report this size (like sysfs) and are read with direct_io */
#define ATTR_FILE_SIZE	4096
/* The tree is static: the kernel may cache names and attributes */
#define ENTRY_TIMEOUT_S 10.0

/**
 * struct node - a decoded inode number
 * @kind: enum ino_kind
 * @dev: device index (per-device kinds)
 * @attr: attribute index (attribute kinds)
 */
struct node {
	unsigned int kind;
	unsigned int dev;
	unsigned int attr;
};

/**
 * struct attr_snap - an attribute's text, taken at open
 * @len: bytes of @text
 * @text: the text (malloc'ed)
 * @next: next open snapshot (protected by snap_lock)
 * @prev: previous open snapshot (protected by snap_lock)
 */
struct attr_snap {
	size_t len;
	char *text;
	struct attr_snap *next;
	struct attr_snap *prev;
};

static time_t mount_time;
/* protects snap_list: open attribute files, freed at shutdown if unreleased */
static pthread_mutex_t snap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct attr_snap *snap_list;

static struct hpu_driver *req_drv(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static int decode(const struct hpu_driver *drv, fuse_ino_t ino, struct node *n)
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
		return n->dev < drv->ndev && !n->attr ? 0 : -ENOENT;
	case KIND_DEV_ATTR:
		return n->dev < drv->ndev && n->attr < hpu_num_dev_attrs ?
			       0 :
			       -ENOENT;
	case KIND_CLASS_DIR:
	case KIND_DRV_DIR:
		return !n->dev && !n->attr ? 0 : -ENOENT;
	case KIND_DRV_ATTR:
		return !n->dev && n->attr < hpu_num_drv_attrs ? 0 : -ENOENT;
	default:
		return -ENOENT;
	}
}

static bool is_dir(unsigned int kind)
{
	return kind == KIND_ROOT || kind == KIND_CLASS_DIR ||
	       kind == KIND_DEV_DIR || kind == KIND_DRV_DIR;
}

static void fill_stat(const struct hpu_driver *drv, fuse_ino_t ino,
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
	} else if (n->kind == KIND_COMPUTE || n->kind == KIND_CONTROL) {
		st->st_mode = S_IFREG | 0660;
		st->st_nlink = 1;
	} else {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = ATTR_FILE_SIZE;
	}
}

/* "hpuN" with N a device index, no sign and no leading zero */
static int parse_index(const char *s, const char *prefix, unsigned int ndev)
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
	if (*end || v >= ndev)
		return -1;
	return (int)v;
}

static int lookup_child(const struct hpu_driver *drv, const struct node *p,
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
		else if ((idx = parse_index(name, "hpu_control", drv->ndev)) >=
			 0)
			*ino = INO(KIND_CONTROL, idx, 0);
		else if ((idx = parse_index(name, "hpu", drv->ndev)) >= 0)
			*ino = INO(KIND_COMPUTE, idx, 0);
		else
			return -ENOENT;
		return 0;
	case KIND_CLASS_DIR:
		idx = parse_index(name, "hpu", drv->ndev);
		if (idx < 0)
			return -ENOENT;
		*ino = INO(KIND_DEV_DIR, idx, 0);
		return 0;
	case KIND_DEV_DIR:
		for (i = 0; i < hpu_num_dev_attrs; i++) {
			if (!strcmp(name, hpu_dev_attrs[i].name)) {
				*ino = INO(KIND_DEV_ATTR, p->dev, i);
				return 0;
			}
		}
		return -ENOENT;
	case KIND_DRV_DIR:
		for (i = 0; i < hpu_num_drv_attrs; i++) {
			if (!strcmp(name, hpu_drv_attrs[i].name)) {
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
	struct hpu_driver *drv = userdata;

	mount_time = time(NULL);
	hpu_info("serving %u %s device(s)", drv->ndev, drv->profile->name);
}

static void fs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct hpu_driver *drv = req_drv(req);
	struct fuse_entry_param e;
	struct node p, n;
	int ret;

	memset(&e, 0, sizeof(e));
	ret = decode(drv, parent, &p);
	if (!ret)
		ret = lookup_child(drv, &p, name, &e.ino);
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	decode(drv, e.ino, &n);
	fill_stat(drv, e.ino, &n, &e.attr);
	e.generation = 1;
	e.attr_timeout = ENTRY_TIMEOUT_S;
	e.entry_timeout = ENTRY_TIMEOUT_S;
	fuse_reply_entry(req, &e);
}

static void fs_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct hpu_driver *drv = req_drv(req);
	struct stat st;
	struct node n;

	if (decode(drv, ino, &n)) {
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
	st.st_mode =
		((ino >> 32) == KIND_COMPUTE || (ino >> 32) == KIND_CONTROL ||
		 (ino >> 32) == KIND_DEV_ATTR || (ino >> 32) == KIND_DRV_ATTR) ?
			S_IFREG :
			S_IFDIR;
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

static void list_dir(const struct hpu_driver *drv, fuse_ino_t ino,
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
		for (i = 0; i < drv->ndev; i++) {
			snprintf(name, sizeof(name), "hpu%u", i);
			dirbuf_add(b, name, INO(KIND_COMPUTE, i, 0));
		}
		for (i = 0; i < drv->ndev; i++) {
			snprintf(name, sizeof(name), "hpu_control%u", i);
			dirbuf_add(b, name, INO(KIND_CONTROL, i, 0));
		}
		dirbuf_add(b, "class", INO(KIND_CLASS_DIR, 0, 0));
		dirbuf_add(b, "driver", INO(KIND_DRV_DIR, 0, 0));
		break;
	case KIND_CLASS_DIR:
		for (i = 0; i < drv->ndev; i++) {
			snprintf(name, sizeof(name), "hpu%u", i);
			dirbuf_add(b, name, INO(KIND_DEV_DIR, i, 0));
		}
		break;
	case KIND_DEV_DIR:
		for (i = 0; i < hpu_num_dev_attrs; i++)
			dirbuf_add(b, hpu_dev_attrs[i].name,
				   INO(KIND_DEV_ATTR, n->dev, i));
		break;
	case KIND_DRV_DIR:
		for (i = 0; i < hpu_num_drv_attrs; i++)
			dirbuf_add(b, hpu_drv_attrs[i].name,
				   INO(KIND_DRV_ATTR, 0, i));
		break;
	}
}

static void fs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct hpu_driver *drv = req_drv(req);
	struct dirbuf b = { .req = req };
	struct node n;

	if (decode(drv, ino, &n)) {
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

static int open_attr(struct hpu_driver *drv, const struct node *n,
		     struct fuse_file_info *fi)
{
	struct attr_snap *snap;
	int ret;

	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EACCES;
	snap = calloc(1, sizeof(*snap));
	if (!snap)
		return -ENOMEM;
	if (n->kind == KIND_DEV_ATTR)
		ret = hpu_dev_attrs[n->attr].show(&drv->devs[n->dev],
						  &snap->text, &snap->len);
	else
		ret = hpu_drv_attrs[n->attr].show(drv, &snap->text, &snap->len);
	if (ret) {
		free(snap);
		return ret;
	}
	pthread_mutex_lock(&snap_lock);
	snap->next = snap_list;
	if (snap_list)
		snap_list->prev = snap;
	snap_list = snap;
	pthread_mutex_unlock(&snap_lock);
	fi->fh = (uintptr_t)snap;
	return 0;
}

static void free_snap(struct attr_snap *snap)
{
	pthread_mutex_lock(&snap_lock);
	if (snap->prev)
		snap->prev->next = snap->next;
	else
		snap_list = snap->next;
	if (snap->next)
		snap->next->prev = snap->prev;
	pthread_mutex_unlock(&snap_lock);
	free(snap->text);
	free(snap);
}

static void free_attr(struct fuse_file_info *fi)
{
	free_snap((struct attr_snap *)(uintptr_t)fi->fh);
}

/**
 * hpu_fs_release_all() - free the attribute snapshots of files whose
 * RELEASE never came (closed just before the unmount)
 */
void hpu_fs_release_all(void)
{
	while (snap_list)
		free_snap(snap_list);
}

static void fs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct hpu_driver *drv = req_drv(req);
	struct hpu_ctx *ctx;
	struct node n;
	int ret;

	ret = decode(drv, ino, &n);
	if (!ret && is_dir(n.kind))
		ret = -EISDIR;
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	fi->direct_io = 1;
	fi->keep_cache = 0;
	if (n.kind == KIND_COMPUTE || n.kind == KIND_CONTROL) {
		ret = hpu_ctx_open(&drv->devs[n.dev], n.kind == KIND_CONTROL,
				   fuse_req_ctx(req)->pid,
				   fuse_req_ctx(req)->uid,
				   fuse_req_ctx(req)->gid, &ctx);
		if (ret) {
			fuse_reply_err(req, -ret);
			return;
		}
		fi->fh = (uintptr_t)ctx;
		fi->nonseekable = 1;
		/* the opener gave up (interrupted): no release will come */
		if (fuse_reply_open(req, fi))
			hpu_ctx_release(ctx);
		return;
	}
	ret = open_attr(drv, &n, fi);
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	if (fuse_reply_open(req, fi))
		free_attr(fi);
}

static void fs_release(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct hpu_driver *drv = req_drv(req);
	struct node n;

	if (!decode(drv, ino, &n) && fi->fh) {
		if (n.kind == KIND_COMPUTE || n.kind == KIND_CONTROL)
			hpu_ctx_release((struct hpu_ctx *)(uintptr_t)fi->fh);
		else
			free_attr(fi);
	}
	fuse_reply_err(req, 0);
}

static void read_events(fuse_req_t req, struct hpu_ctx *ctx, size_t size)
{
	struct hpu_event evs[HPU_CTX_MAX_EVENTS];
	size_t max = size / sizeof(evs[0]);
	int n;

	if (!max) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (max > HPU_CTX_MAX_EVENTS)
		max = HPU_CTX_MAX_EVENTS;
	n = hpu_ctx_read_events(ctx, evs, (unsigned int)max);
	if (!n)
		fuse_reply_err(req, EAGAIN);
	else
		fuse_reply_buf(req, (const char *)evs, n * sizeof(evs[0]));
}

static void fs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct hpu_driver *drv = req_drv(req);
	struct attr_snap *snap;
	struct node n;
	char *copy;

	if (decode(drv, ino, &n) || !fi->fh) {
		fuse_reply_err(req, EBADF);
		return;
	}
	if (n.kind == KIND_COMPUTE || n.kind == KIND_CONTROL) {
		read_events(req, (struct hpu_ctx *)(uintptr_t)fi->fh, size);
		return;
	}
	snap = (struct attr_snap *)(uintptr_t)fi->fh;
	if (off < 0 || (size_t)off >= snap->len) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (size > snap->len - (size_t)off)
		size = snap->len - (size_t)off;
	/*
	 * Reply from a copy: once the reader has its data it may close the
	 * file, and another worker may free the snapshot while this one is
	 * still returning from the reply.
	 */
	copy = malloc(size);
	if (!copy) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	memcpy(copy, snap->text + off, size);
	fuse_reply_buf(req, copy, size);
	free(copy);
}

static bool req_interrupted(void *token)
{
	return fuse_req_interrupted(token);
}

static void req_interrupt_fn(fuse_req_t req, void *data)
{
	hpu_wait_interrupt((uint64_t)(uintptr_t)data);
}

static void req_on_interrupt(void *token, uint64_t id)
{
	fuse_req_interrupt_func(token, req_interrupt_fn, (void *)(uintptr_t)id);
}

static void req_reply(void *token, int err, const void *out, size_t size)
{
	if (err)
		fuse_reply_err(token, -err);
	else
		fuse_reply_ioctl(token, 0, out, size);
}

static void fs_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd,
		     void *arg, struct fuse_file_info *fi, unsigned int flags,
		     const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	struct hpu_driver *drv = req_drv(req);
	uint64_t out[HPU_IOCTL_MAX_SIZE / sizeof(uint64_t)];
	struct hpu_ioctl_defer defer = {
		.interrupted = req_interrupted,
		.on_interrupt = req_on_interrupt,
		.reply = req_reply,
	};
	struct hpu_ioctl_call call;
	size_t out_size = out_bufsz;
	struct node n;
	int ret;

	if (decode(drv, ino, &n) || !fi->fh ||
	    (n.kind != KIND_COMPUTE && n.kind != KIND_CONTROL)) {
		fuse_reply_err(req, ENOTTY);
		return;
	}
	if (out_size > sizeof(out))
		out_size = sizeof(out);
	call.ctx = (struct hpu_ctx *)(uintptr_t)fi->fh;
	call.pid = fuse_req_ctx(req)->pid;
	call.defer = &defer;
	defer.token = req;
	ret = hpu_ioctl_dispatch(&call, cmd, in_buf, in_bufsz, out, &out_size);
	if (ret == HPU_IOCTL_DEFERRED)
		return; /* answered later through defer */
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_ioctl(req, 0, out, out_size);
}

static void fs_poll(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		    struct fuse_pollhandle *ph)
{
	struct hpu_driver *drv = req_drv(req);
	struct node n;

	if (decode(drv, ino, &n) || !fi->fh ||
	    (n.kind != KIND_COMPUTE && n.kind != KIND_CONTROL)) {
		if (ph)
			fuse_pollhandle_destroy(ph);
		fuse_reply_poll(req, POLLIN | POLLRDNORM);
		return;
	}
	fuse_reply_poll(req,
			hpu_ctx_poll((struct hpu_ctx *)(uintptr_t)fi->fh, ph));
}

const struct fuse_lowlevel_ops hpu_fs_ops = {
	.init = fs_init,
	.lookup = fs_lookup,
	.getattr = fs_getattr,
	.readdir = fs_readdir,
	.open = fs_open,
	.release = fs_release,
	.read = fs_read,
	.ioctl = fs_ioctl,
	.poll = fs_poll,
};

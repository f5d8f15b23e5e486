// SPDX-License-Identifier: MIT
/*
 * fs_files.c - the files of the FUSE front end: open/release/read/write
 * of the attribute files, driver/hotplug and driver/events, and
 * open/release/read/ioctl/poll of the device nodes, which it hands to the
 * driver core (contexts, ioctl dispatch, the uaccess guard's request
 * hooks). The namespace (inode numbers, lookup, readdir) is fs.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl_personality.h"
#include "hpu_fs.h"

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

/* protects snap_list: open attribute files, freed at shutdown if unreleased */
static pthread_mutex_t snap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct attr_snap *snap_list;

static int open_attr(struct hfd_driver *drv, const struct node *n,
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
		ret = hfd_dev_attrs[n->attr].show(&drv->devs[n->dev],
						  &snap->text, &snap->len);
	else
		ret = hfd_drv_attrs[n->attr].show(drv, &snap->text, &snap->len);
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

/* Open driver/hotplug files, for the ones whose RELEASE never comes */
static pthread_mutex_t hotplug_files_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hfd_hotplug_file *hotplug_files;

static void hotplug_file_link(struct hfd_hotplug_file *hf)
{
	pthread_mutex_lock(&hotplug_files_lock);
	hf->next = hotplug_files;
	if (hotplug_files)
		hotplug_files->prev = hf;
	hotplug_files = hf;
	pthread_mutex_unlock(&hotplug_files_lock);
}

static void free_hotplug_file(struct hfd_hotplug_file *hf)
{
	pthread_mutex_lock(&hotplug_files_lock);
	if (hf->prev)
		hf->prev->next = hf->next;
	else
		hotplug_files = hf->next;
	if (hf->next)
		hf->next->prev = hf->prev;
	pthread_mutex_unlock(&hotplug_files_lock);
	pthread_mutex_destroy(&hf->lock);
	free(hf);
}

/**
 * hfd_fs_release_all() - free the attribute snapshots and driver/hotplug
 * files whose RELEASE never came (closed just before the unmount)
 */
void hfd_fs_release_all(void)
{
	while (snap_list)
		free_snap(snap_list);
	while (hotplug_files)
		free_hotplug_file(hotplug_files);
}

/* driver/hotplug (the daemon's user only) and driver/events */
static int open_special(struct hfd_driver *drv, const struct node *n,
			fuse_req_t req, struct fuse_file_info *fi)
{
	uid_t uid = fuse_req_ctx(req)->uid;
	struct hfd_hotplug_file *hf;
	struct hfd_event_reader *r;
	int ret;

	fi->nonseekable = 1;
	if (n->kind == KIND_EVENTS) {
		if ((fi->flags & O_ACCMODE) != O_RDONLY)
			return -EACCES;
		ret = hfd_event_reader_open(drv, &r);
		if (ret)
			return ret;
		fi->fh = (uintptr_t)r;
		return 0;
	}
	/* default_permissions checks the mode; root is checked here too */
	if (uid != 0 && uid != drv->uid)
		return -EACCES;
	hf = calloc(1, sizeof(*hf));
	if (!hf)
		return -ENOMEM;
	pthread_mutex_init(&hf->lock, NULL);
	hotplug_file_link(hf);
	fi->fh = (uintptr_t)hf;
	return 0;
}

/* Releases what open gave file @fi of an inode of @kind */
static void release_file(struct hfd_driver *drv, unsigned int kind,
			 struct fuse_file_info *fi)
{
	struct hfd_hotplug_file *hf;

	switch (kind) {
	case KIND_COMPUTE:
	case KIND_CONTROL:
	case KIND_HL_COMPUTE:
	case KIND_HL_CONTROL:
		hfd_ctx_release((struct hfd_ctx *)(uintptr_t)fi->fh);
		break;
	case KIND_HOTPLUG:
		hf = (struct hfd_hotplug_file *)(uintptr_t)fi->fh;
		free_hotplug_file(hf);
		break;
	case KIND_EVENTS:
		hfd_event_reader_close(
			drv, (struct hfd_event_reader *)(uintptr_t)fi->fh);
		break;
	default:
		free_attr(fi);
		break;
	}
}

void hfd_fs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct hfd_driver *drv = req_drv(req);
	struct hfd_ctx *ctx;
	struct node n;
	int ret;

	/* the device found stays present until its file is open */
	pthread_rwlock_rdlock(&drv->hotplug_lock);
	ret = hfd_fs_decode(drv, ino, &n);
	if (!ret && is_dir(n.kind))
		ret = -EISDIR;
	if (!ret) {
		fi->direct_io = 1;
		fi->keep_cache = 0;
		if (is_node(n.kind)) {
			/* habanalabs: one compute open per device */
			ret = hfd_ctx_open_exclusive(
				&drv->devs[n.dev], is_control(n.kind),
				is_hl_node(n.kind) ||
					drv->devs[n.dev].exclusive,
				fuse_req_ctx(req)->pid, fuse_req_ctx(req)->uid,
				fuse_req_ctx(req)->gid, &ctx);
			if (!ret) {
				fi->fh = (uintptr_t)ctx;
				fi->nonseekable = 1;
			}
			/*
			 * habanalabs compute: kernel CBs are mmap()ed, so
			 * the page cache serves the file (a direct_io file
			 * has no shared mappings before FUSE_DIRECT_IO_
			 * ALLOW_MMAP); its pages of an earlier context go
			 * at open (no keep_cache)
			 */
			if (!ret && n.kind == KIND_HL_COMPUTE) {
				fi->direct_io = 0;
				fi->nonseekable = 0;
				ret = hfd_hl_cb_attach(ctx, drv->se, ino);
				if (ret)
					hfd_ctx_release(ctx);
			}
		} else if (n.kind == KIND_HOTPLUG || n.kind == KIND_EVENTS) {
			ret = open_special(drv, &n, req, fi);
		} else {
			ret = open_attr(drv, &n, fi);
		}
	}
	pthread_rwlock_unlock(&drv->hotplug_lock);
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	/* the opener gave up (interrupted): no release will come */
	if (fuse_reply_open(req, fi))
		release_file(drv, n.kind, fi);
}

void hfd_fs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	unsigned int kind = ino_kind(ino);

	/* also the files of a hot-removed device: decode would refuse them */
	if (fi->fh && kind != KIND_ROOT && !is_dir(kind))
		release_file(req_drv(req), kind, fi);
	fuse_reply_err(req, 0);
}

/* read() of driver/hotplug: the answer to the last command written */
static void read_hotplug(fuse_req_t req, struct hfd_hotplug_file *hf,
			 size_t size)
{
	char msg[HFD_HOTPLUG_MSG_MAX];
	size_t n;

	pthread_mutex_lock(&hf->lock);
	n = hf->msg_len < size ? hf->msg_len : size;
	memcpy(msg, hf->msg, n);
	hf->msg_len = 0;
	pthread_mutex_unlock(&hf->lock);
	fuse_reply_buf(req, msg, n);
}

static void read_changes(fuse_req_t req, struct hfd_driver *drv,
			 struct hfd_event_reader *r, size_t size)
{
	char buf[4096];
	int n;

	n = hfd_event_reader_read(drv, r, buf,
				  size < sizeof(buf) ? size : sizeof(buf));
	if (n < 0)
		fuse_reply_err(req, -n);
	else
		fuse_reply_buf(req, buf, (size_t)n);
}

void hfd_fs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
		  off_t off, struct fuse_file_info *fi)
{
	struct hfd_driver *drv = req_drv(req);
	struct hfd_hotplug_file *hf;
	char msg[HFD_HOTPLUG_MSG_MAX];
	unsigned int index = 0;
	char action = 0;
	int ret;

	/* an hlN/accelN node: the kernel writes back a mapped CB's pages */
	if (ino_kind(ino) == KIND_HL_COMPUTE && fi->fh && off >= 0) {
		ret = hfd_hl_cb_fs_write((struct hfd_ctx *)(uintptr_t)fi->fh,
					 (uint64_t)off, size, buf);
		if (ret)
			fuse_reply_err(req, -ret);
		else
			fuse_reply_write(req, size);
		return;
	}
	if (ino_kind(ino) != KIND_HOTPLUG || !fi->fh) {
		fuse_reply_err(req, EBADF);
		return;
	}
	hf = (struct hfd_hotplug_file *)(uintptr_t)fi->fh;
	ret = hfd_hotplug_command(drv, buf, size, msg, sizeof(msg), &action,
				  &index);
	if (ret)
		hfd_log_ratelimited(HFD_LOG_WARN, "driver/hotplug: %.*s",
				    (int)strcspn(msg, "\n"), msg);
	pthread_mutex_lock(&hf->lock);
	hf->msg_len = strlen(msg);
	memcpy(hf->msg, msg, hf->msg_len);
	pthread_mutex_unlock(&hf->lock);
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	fuse_reply_write(req, size);
	/* after the reply: the kernel may need workers to invalidate */
	hfd_fs_invalidate_device(drv, index);
}

static void read_events(fuse_req_t req, struct hfd_ctx *ctx, size_t size)
{
	struct hpu_event evs[HFD_CTX_MAX_EVENTS];
	size_t max = size / sizeof(evs[0]);
	int n;

	if (!max) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (max > HFD_CTX_MAX_EVENTS)
		max = HFD_CTX_MAX_EVENTS;
	n = hfd_ctx_read_events(ctx, evs, (unsigned int)max);
	if (!n)
		fuse_reply_err(req, EAGAIN);
	else
		fuse_reply_buf(req, (const char *)evs, n * sizeof(evs[0]));
}

/* read of an hlN/accelN node: its page cache filled from the CBs */
static void read_hl_cbs(fuse_req_t req, struct hfd_ctx *ctx, size_t size,
			off_t off)
{
	char *buf;

	if (off < 0 || (uint64_t)off >= HL_CB_FILE_SIZE) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (size > HL_CB_FILE_SIZE - (uint64_t)off)
		size = HL_CB_FILE_SIZE - (uint64_t)off;
	buf = malloc(size ? size : 1);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	hfd_hl_cb_fs_read(ctx, (uint64_t)off, size, buf);
	fuse_reply_buf(req, buf, size);
	free(buf);
}

void hfd_fs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		 struct fuse_file_info *fi)
{
	struct hfd_driver *drv = req_drv(req);
	unsigned int kind = ino_kind(ino);
	struct attr_snap *snap;
	struct hfd_ctx *ctx;
	char *copy;

	if (!fi->fh || is_dir(kind)) {
		fuse_reply_err(req, EBADF);
		return;
	}
	if (kind == KIND_HL_COMPUTE) {
		read_hl_cbs(req, (struct hfd_ctx *)(uintptr_t)fi->fh, size,
			    off);
		return;
	}
	if (is_node(kind)) {
		ctx = (struct hfd_ctx *)(uintptr_t)fi->fh;
		/* a control context reads what the removal queued first */
		if (!hfd_device_present(ctx->dev) &&
		    !(ctx->control && hfd_ctx_has_events(ctx)))
			fuse_reply_err(req, ENODEV);
		else
			read_events(req, ctx, size);
		return;
	}
	if (kind == KIND_HOTPLUG) {
		read_hotplug(req, (struct hfd_hotplug_file *)(uintptr_t)fi->fh,
			     size);
		return;
	}
	if (kind == KIND_EVENTS) {
		read_changes(req, drv,
			     (struct hfd_event_reader *)(uintptr_t)fi->fh,
			     size);
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
	uint64_t id = (uint64_t)(uintptr_t)data;

	if (id & HFD_HL_IRQ_WAITER_ID)
		hfd_hl_irq_interrupt(id);
	else
		hfd_wait_interrupt(id);
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

/* The kernel copies @out back, then the call fails with @err */
static void req_reply_data(void *token, int err, const void *out, size_t size)
{
	fuse_reply_ioctl(token, err, out, size);
}

/*
 * The uaccess watchdog's answer to a request whose worker is stuck in
 * client memory (uaccess_guard.c): the worker sends none after it.
 */
static void req_abandon(void *token)
{
	fuse_reply_err(token, EFAULT);
}

/**
 * hfd_fs_guard_start() - start the bound on client memory accesses of
 * the ioctls served here
 * @timeout_ms: --uaccess-timeout-ms
 *
 * Return: 0 or -errno.
 */
int hfd_fs_guard_start(uint32_t timeout_ms)
{
	return hfd_uaccess_guard_start(timeout_ms, req_abandon);
}

void hfd_fs_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg,
		  struct fuse_file_info *fi, unsigned int flags,
		  const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	uint64_t out[HFD_IOCTL_MAX_SIZE / sizeof(uint64_t)];
	struct hfd_ioctl_defer defer = {
		.interrupted = req_interrupted,
		.on_interrupt = req_on_interrupt,
		.reply = req_reply,
		.reply_data = req_reply_data,
	};
	struct hfd_ioctl_call call;
	size_t out_size = out_bufsz;
	bool answered;
	int ret;

	/* a hot-removed device's files get -ENODEV from the dispatcher */
	if (!fi->fh || !is_node(ino_kind(ino))) {
		fuse_reply_err(req, ENOTTY);
		return;
	}
	if (out_size > sizeof(out))
		out_size = sizeof(out);
	call.ctx = (struct hfd_ctx *)(uintptr_t)fi->fh;
	call.pid = fuse_req_ctx(req)->pid;
	call.uid = fuse_req_ctx(req)->uid;
	call.defer = &defer;
	call.arg = (uint64_t)(uintptr_t)arg;
	defer.token = req;
	hfd_ctx_call_begin(call.ctx);
	hfd_uaccess_begin_request(req, call.pid, fuse_req_ctx(req)->uid);
	if (is_hl_node(ino_kind(ino)))
		ret = hfd_hl_ioctl_dispatch(&call, cmd, in_buf, in_bufsz, out,
					    &out_size);
	else
		ret = hfd_ioctl_dispatch(&call, cmd, in_buf, in_bufsz, out,
					 &out_size);
	/* answered by the watchdog: @req is gone, the call failed */
	answered = hfd_uaccess_end_request();
	hfd_ctx_call_end(call.ctx);
	if (answered) {
		if (ret == HFD_IOCTL_DEFERRED)
			hfd_err("an abandoned request was deferred");
		return;
	}
	if (ret == HFD_IOCTL_DEFERRED)
		return; /* answered later through defer */
	if (ret && is_hl_node(ino_kind(ino)) && out_size)
		fuse_reply_ioctl(req, ret, out, out_size); /* copied back */
	else if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_ioctl(req, 0, out, out_size);
}

void hfd_fs_poll(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		 struct fuse_pollhandle *ph)
{
	struct hfd_driver *drv = req_drv(req);
	unsigned int kind = ino_kind(ino);
	struct hfd_event_reader *r;
	struct hfd_ctx *ctx;

	if (fi->fh && kind == KIND_EVENTS) {
		r = (struct hfd_event_reader *)(uintptr_t)fi->fh;
		fuse_reply_poll(req, hfd_event_reader_poll(drv, r, ph));
		return;
	}
	if (!fi->fh || !is_node(kind)) {
		if (ph)
			fuse_pollhandle_destroy(ph);
		fuse_reply_poll(req, POLLIN | POLLRDNORM);
		return;
	}
	ctx = (struct hfd_ctx *)(uintptr_t)fi->fh;
	if (!hfd_device_present(ctx->dev) &&
	    !(ctx->control && hfd_ctx_has_events(ctx))) {
		/* the kernel turns an error into POLLERR */
		if (ph)
			fuse_pollhandle_destroy(ph);
		fuse_reply_err(req, ENODEV);
		return;
	}
	fuse_reply_poll(req, hfd_ctx_poll(ctx, ph));
}

/* SPDX-License-Identifier: MIT */
/*
 * hpu_fs.h - the FUSE front end's inode encoding, shared by fs.c (the
 * namespace: lookup, getattr, readdir) and fs_files.c (the files: open,
 * release, read, write, ioctl, poll).
 *
 * An inode number encodes what it names:
 *	bits 32..39 kind, bits 16..31 device index, bits 0..15 attribute
 * Nothing is allocated per inode and forget needs no bookkeeping. Devices
 * come and go (hotplug.c): a slot's inodes are valid while its device is
 * present, and each hot-add of the slot bumps the inode generation.
 */
#ifndef HPU_FS_H
#define HPU_FS_H

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
	KIND_HOTPLUG = 8,   /* driver/hotplug */
	KIND_EVENTS = 9,    /* driver/events */
	/* habanalabs: hlN (attr 0) and accelN (attr 1) */
	KIND_HL_COMPUTE = 10,
	/* habanalabs: hl_controlDN (attr 0) and accel_controlDN (attr 1) */
	KIND_HL_CONTROL = 11,
};

#define INO(kind, dev, attr)                                      \
	(((fuse_ino_t)(kind) << 32) | ((fuse_ino_t)(dev) << 16) | \
	 (fuse_ino_t)(attr))

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

static inline struct hfd_driver *req_drv(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static inline bool is_dir(unsigned int kind)
{
	return kind == KIND_ROOT || kind == KIND_CLASS_DIR ||
	       kind == KIND_DEV_DIR || kind == KIND_DRV_DIR;
}

/* The kind of @ino whether or not its device is still present */
static inline unsigned int ino_kind(fuse_ino_t ino)
{
	return ino == FUSE_ROOT_ID ? KIND_ROOT : (unsigned int)(ino >> 32);
}

/* A node of the habanalabs personality (docs/habanalabs.md) */
static inline bool is_hl_node(unsigned int kind)
{
	return kind == KIND_HL_COMPUTE || kind == KIND_HL_CONTROL;
}

/* A device node (hpuN, hpu_controlN or a habanalabs one), whose files are
 * contexts */
static inline bool is_node(unsigned int kind)
{
	return kind == KIND_COMPUTE || kind == KIND_CONTROL || is_hl_node(kind);
}

/* A control node of either personality */
static inline bool is_control(unsigned int kind)
{
	return kind == KIND_CONTROL || kind == KIND_HL_CONTROL;
}

/* fs.c: the namespace */
int hfd_fs_decode(const struct hfd_driver *drv, fuse_ino_t ino, struct node *n);
void hfd_fs_invalidate_device(struct hfd_driver *drv, unsigned int index);

/* fs_files.c: the files (the ops of struct fuse_lowlevel_ops) */
void hfd_fs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void hfd_fs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void hfd_fs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		 struct fuse_file_info *fi);
void hfd_fs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
		  off_t off, struct fuse_file_info *fi);
void hfd_fs_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg,
		  struct fuse_file_info *fi, unsigned int flags,
		  const void *in_buf, size_t in_bufsz, size_t out_bufsz);
void hfd_fs_poll(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		 struct fuse_pollhandle *ph);

#endif /* HPU_FS_H */

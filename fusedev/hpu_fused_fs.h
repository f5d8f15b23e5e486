/* SPDX-License-Identifier: MIT */
/*
 * hpu_fused_fs.h - what the directory serves: the text
 * attributes (attr.c), hot-plug control and its change log (hotplug.c),
 * the FUSE front end (fs.c, fs_files.c) and mount handling (mount.c).
 *
 * Part of hpu_fused.h (the driver core's internal interface), which
 * includes every part; a file may include just the parts it uses.
 */
#ifndef HPU_FUSED_FS_H
#define HPU_FUSED_FS_H

#include "hpu_fused_dev.h"

/* ------------------------------------------------------------------ */
/* Attributes (attr.c)                                                 */
/* ------------------------------------------------------------------ */

/**
 * struct hfd_attr_dev - one per-device text attribute (class/hpuN/NAME)
 * @name: file name
 * @show: writes the text (one line ending in '\n', or several for
 *	lists) to a malloc'ed buffer; 0 or -errno
 */
struct hfd_attr_dev {
	const char *name;
	int (*show)(struct hfd_device *dev, char **text, size_t *len);
};

/**
 * struct hfd_attr_drv - one daemon-wide text attribute (driver/NAME)
 * @name: file name
 * @show: as for struct hfd_attr_dev
 */
struct hfd_attr_drv {
	const char *name;
	int (*show)(struct hfd_driver *drv, char **text, size_t *len);
};

extern const struct hfd_attr_dev hfd_dev_attrs[];
extern const unsigned int hfd_num_dev_attrs;
extern const struct hfd_attr_drv hfd_drv_attrs[];
extern const unsigned int hfd_num_drv_attrs;

/* ------------------------------------------------------------------ */
/* Hot-plug control and change log (hotplug.c)                         */
/* ------------------------------------------------------------------ */

/* Longest command written to driver/hotplug, and longest answer */
#define HFD_HOTPLUG_CMD_MAX 64
#define HFD_HOTPLUG_MSG_MAX 160

/**
 * struct hfd_hotplug_file - an open driver/hotplug
 * @lock: protects @msg and @msg_len
 * @msg: answer to the last command written, returned by read()
 * @msg_len: bytes of @msg
 * @prev: previous open driver/hotplug (fs_files.c's list, for the
 *	unmount)
 * @next: next open driver/hotplug
 */
struct hfd_hotplug_file {
	pthread_mutex_t lock;
	char msg[HFD_HOTPLUG_MSG_MAX];
	size_t msg_len;
	struct hfd_hotplug_file *prev;
	struct hfd_hotplug_file *next;
};

int hfd_hotplug_command(struct hfd_driver *drv, const char *cmd, size_t len,
			char *msg, size_t msg_len, char *action,
			unsigned int *index);
void hfd_hotplug_log(struct hfd_driver *drv, const char *action,
		     unsigned int index);
int hfd_event_reader_open(struct hfd_driver *drv,
			  struct hfd_event_reader **out);
void hfd_event_reader_close(struct hfd_driver *drv, struct hfd_event_reader *r);
int hfd_event_reader_read(struct hfd_driver *drv, struct hfd_event_reader *r,
			  char *buf, size_t size);
unsigned int hfd_event_reader_poll(struct hfd_driver *drv,
				   struct hfd_event_reader *r,
				   struct fuse_pollhandle *ph);
void hfd_event_readers_fini(struct hfd_driver *drv);

/* ------------------------------------------------------------------ */
/* FUSE front end (fs.c, fs_files.c) and mount handling (mount.c)     */
/* ------------------------------------------------------------------ */

extern const struct fuse_lowlevel_ops hfd_fs_ops;
void hfd_fs_release_all(void);
int hfd_fs_guard_start(uint32_t timeout_ms);

int hfd_mount_prepare(const char *dir);
int hfd_mount_dev(const char *dir, dev_t *dev);
int hfd_devlinks_create(const char *link_dir, const char *dir,
			unsigned int ndev, bool forced);
void hfd_devlinks_habanalabs(const struct hfd_driver *drv);
void hfd_devlinks_hotplug(char action, unsigned int index);
void hfd_devlinks_remove(const char *link_dir, const char *dir,
			 unsigned int ndev);

#endif /* HPU_FUSED_FS_H */

// SPDX-License-Identifier: MIT
/*
 * mount.c - getting the mount point ready (stale mounts of a crashed
 * daemon, a live daemon already there) and the /dev/hpuN links.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hl_personality.h"
#include "hpu_fused.h"

#define FUSERMOUNT "fusermount3"

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] &&
		    s[3]) {
			*d++ = (char)(((s[1] - '0') << 6) |
				      ((s[2] - '0') << 3) | (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

/* fstype of the mount at @dir in this namespace, or "" when none */
static void mount_fstype(const char *dir, char *fstype, size_t len)
{
	char line[4096], mnt[PATH_MAX], fs[64];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *sep;

	fstype[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		unescape(mnt);
		sep = strstr(line, " - ");
		if (strcmp(mnt, dir) || !sep || sscanf(sep, " - %63s", fs) != 1)
			continue;
		snprintf(fstype, len, "%s", fs); /* the last one wins */
	}
	fclose(f);
}

/**
 * hfd_mount_dev() - device number of the mount at @dir in this namespace
 * (/proc/self/mountinfo: no request to the mount itself)
 * @dir: absolute, canonical mount point
 * @dev: receives it (of the last mount there)
 *
 * Return: 0, or -ENOENT when nothing is mounted at @dir.
 */
int hfd_mount_dev(const char *dir, dev_t *dev)
{
	char line[4096], mnt[PATH_MAX];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	unsigned int maj, min;
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %u:%u %*s %4095s", &maj, &min, mnt) !=
		    3)
			continue;
		unescape(mnt);
		if (strcmp(mnt, dir))
			continue;
		*dev = makedev(maj, min);
		ret = 0;
	}
	fclose(f);
	return ret;
}

static int run_fusermount_unmount(const char *dir)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execlp(FUSERMOUNT, FUSERMOUNT, "-u", "-z", "--", dir,
		       (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

static int clean_stale(const char *dir)
{
	int ret = 0;

	hfd_warn("%s: stale mount of a dead daemon, cleaning it up", dir);
	if (geteuid() == 0) {
		if (umount2(dir, MNT_DETACH))
			ret = -errno;
	} else {
		ret = run_fusermount_unmount(dir);
	}
	if (ret)
		hfd_err("%s: cannot remove the stale mount: %s", dir,
			strerror(-ret));
	return ret;
}

static int mkdir_p(const char *dir)
{
	char path[PATH_MAX];
	size_t i, len = strlen(dir);

	if (len >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, len + 1);
	for (i = 1; i <= len; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		path[i] = dir[i];
	}
	return 0;
}

static void report_live(const char *dir, const char *fstype)
{
	char path[PATH_MAX + 16], pid[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/driver/pid", dir);
	f = strcmp(fstype, "fuse.hpu") ? NULL : fopen(path, "re");
	if (f) {
		if (fgets(pid, sizeof(pid), f))
			pid[strcspn(pid, "\n")] = '\0';
		fclose(f);
	}
	if (pid[0])
		hfd_err("%s is already served by hpu-fused (pid %s)", dir, pid);
	else
		hfd_err("%s is already a mount point (%s)", dir, fstype);
}

/*
 * A FUSE mount whose daemon died answers ENOTCONN. stat() of the mount
 * point may still succeed from the kernel's attribute cache; statfs()
 * always asks the daemon.
 */
static bool fuse_mount_is_dead(const char *dir)
{
	struct statfs sfs;

	return statfs(dir, &sfs) && errno == ENOTCONN;
}

/**
 * hfd_mount_prepare() - make @dir ready to be mounted on
 * @dir: absolute path of the mount point
 *
 * Creates @dir when missing, removes the stale mount of a crashed daemon
 * (the mount answers ENOTCONN) and refuses a directory that something
 * live is mounted on.
 *
 * Return: 0; -EBUSY when a live file system is mounted there; -errno.
 */
int hfd_mount_prepare(const char *dir)
{
	char fstype[64];
	struct stat st;
	int ret;

	if (stat(dir, &st)) {
		if (errno == ENOTCONN) {
			ret = clean_stale(dir);
			if (ret)
				return ret;
		} else if (errno != ENOENT) {
			return -errno;
		}
		ret = mkdir_p(dir);
		if (ret)
			return ret;
		if (stat(dir, &st))
			return -errno;
	}
	mount_fstype(dir, fstype, sizeof(fstype));
	if (!strncmp(fstype, "fuse", 4) && fuse_mount_is_dead(dir)) {
		ret = clean_stale(dir);
		if (ret)
			return ret;
		if (stat(dir, &st))
			return -errno;
		mount_fstype(dir, fstype, sizeof(fstype));
	}
	if (fstype[0]) {
		report_live(dir, fstype);
		return -EBUSY;
	}
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return 0;
}

static bool points_into(const char *link, const char *dir)
{
	char target[PATH_MAX];
	size_t dlen = strlen(dir);
	ssize_t n;

	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return !strncmp(target, dir, dlen) && target[dlen] == '/';
}

/*
 * Where hot-plug makes and removes links: set by hfd_devlinks_create()
 * before the session serves, read-only afterwards. The links themselves
 * are changed under links_lock, so a hot-add and a hot-remove of the same
 * slot never interleave their readlink/unlink/symlink. With the
 * habanalabs personality (@drv set), a device that has its nodes also
 * gets the real driver's names: LINK_DIR/accel/accelN,
 * LINK_DIR/accel/accel_controlDN, LINK_DIR/hlN and LINK_DIR/hl_controlDN.
 */
static struct {
	bool on;
	bool made_accel_dir;
	const struct hfd_driver *drv;
	char link_dir[PATH_MAX];
	char dir[PATH_MAX];
} links;
static pthread_mutex_t links_lock = PTHREAD_MUTEX_INITIALIZER;

/* The names linked for a device: LINK_DIR/<link>N -> DIR/<target>N */
static const struct {
	const char *link;
	const char *target;
	bool hl;
} link_names[] = {
	{ "hpu", "hpu", false },
	{ "accel/accel", "accel", true },
	{ "accel/accel_controlD", "accel_controlD", true },
	{ "hl", "hl", true },
	{ "hl_controlD", "hl_controlD", true },
};

#define NUM_LINK_NAMES (sizeof(link_names) / sizeof(link_names[0]))

/* LINK_DIR/<link>N -> DIR/<target>N unless something not ours is there */
static bool make_one(const char *link_dir, const char *dir, unsigned int k,
		     unsigned int index)
{
	char link[PATH_MAX], target[PATH_MAX];
	struct stat st;

	snprintf(link, sizeof(link), "%s/%s%u", link_dir, link_names[k].link,
		 index);
	snprintf(target, sizeof(target), "%s/%s%u", dir, link_names[k].target,
		 index);
	if (!lstat(link, &st)) {
		if (!S_ISLNK(st.st_mode) ||
		    (!points_into(link, dir) && !stat(link, &st))) {
			hfd_warn("%s exists and is not ours; left alone", link);
			return false;
		}
		unlink(link);
	}
	if (symlink(target, link)) {
		hfd_warn("%s: %s", link, strerror(errno));
		return false;
	}
	return true;
}

/* Whether device @index has habanalabs nodes (under links_lock) */
static bool hl_links(unsigned int index)
{
	return links.drv && links.drv->habanalabs && index < HFD_MAX_DEVICES &&
	       hfd_device_present(&links.drv->devs[index]) &&
	       hfd_hl_device_ok(&links.drv->devs[index]);
}

/* Every link of device @index; true when its hpuN link was made */
static bool make_link(const char *link_dir, const char *dir, unsigned int index)
{
	char accel[PATH_MAX];
	bool hl = hl_links(index), made = false;
	unsigned int k;

	if (hl) {
		snprintf(accel, sizeof(accel), "%s/accel", link_dir);
		if (!mkdir(accel, 0755))
			links.made_accel_dir = true;
	}
	for (k = 0; k < NUM_LINK_NAMES; k++) {
		if (link_names[k].hl && !hl)
			continue;
		if (make_one(link_dir, dir, k, index) && !k)
			made = true;
	}
	return made;
}

/* Removes the links of device @index that point into DIR; true when its
 * hpuN link went */
static bool drop_link(const char *link_dir, const char *dir, unsigned int index)
{
	char link[PATH_MAX];
	bool dropped = false;
	unsigned int k;

	for (k = 0; k < NUM_LINK_NAMES; k++) {
		snprintf(link, sizeof(link), "%s/%s%u", link_dir,
			 link_names[k].link, index);
		if (points_into(link, dir) && !unlink(link) && !k)
			dropped = true;
	}
	return dropped;
}

/**
 * hfd_devlinks_habanalabs() - make the habanalabs personality's names
 * too (docs/habanalabs.md), for the devices that have its nodes
 * @drv: the driver (its habanalabs flag and devices are read at each
 *	link made)
 */
void hfd_devlinks_habanalabs(const struct hfd_driver *drv)
{
	pthread_mutex_lock(&links_lock);
	links.drv = drv;
	pthread_mutex_unlock(&links_lock);
}

/**
 * hfd_devlinks_create() - make LINK_DIR/hpuN -> DIR/hpuN links (and the
 * habanalabs names, see hfd_devlinks_habanalabs())
 * @link_dir: where the links go (/dev unless --dev-link-dir)
 * @dir: mount point
 * @ndev: devices
 * @forced: asked for on the command line (a refusal is then a warning)
 *
 * Never replaces anything but a symlink that is dangling or already
 * points into @dir. When @link_dir is writable, hot-plug keeps the links
 * up to date from then on (hfd_devlinks_hotplug()).
 *
 * Return: number of hpuN links made.
 */
int hfd_devlinks_create(const char *link_dir, const char *dir,
			unsigned int ndev, bool forced)
{
	unsigned int i;
	int made = 0;

	if (access(link_dir, W_OK)) {
		hfd_log(forced ? HFD_LOG_WARN : HFD_LOG_INFO,
			"not permitted to make %s/hpuN links", link_dir);
		return 0;
	}
	pthread_mutex_lock(&links_lock);
	snprintf(links.link_dir, sizeof(links.link_dir), "%s", link_dir);
	snprintf(links.dir, sizeof(links.dir), "%s", dir);
	links.on = true;
	for (i = 0; i < ndev; i++)
		made += make_link(link_dir, dir, i);
	pthread_mutex_unlock(&links_lock);
	hfd_info("made %d %s/hpuN link(s)", made, link_dir);
	return made;
}

/**
 * hfd_devlinks_hotplug() - follow a hot-plug in the links
 * @action: 'a' (device @index added) or 'r' (removed)
 * @index: device index
 *
 * An added device gets its link like the devices of the start-up; a
 * removed one loses it if it still points into the mount. Nothing when
 * the daemon makes no links.
 */
void hfd_devlinks_hotplug(char action, unsigned int index)
{
	pthread_mutex_lock(&links_lock);
	if (!links.on)
		goto out_unlock;
	if (action == 'a' && make_link(links.link_dir, links.dir, index))
		hfd_info("made %s/hpu%u", links.link_dir, index);
	else if (action == 'r' && drop_link(links.link_dir, links.dir, index))
		hfd_info("removed %s/hpu%u", links.link_dir, index);
out_unlock:
	pthread_mutex_unlock(&links_lock);
}

/**
 * hfd_devlinks_remove() - remove the links that point into @dir (and
 * LINK_DIR/accel when the daemon made it and it is empty)
 * @link_dir: where the links are
 * @dir: mount point
 * @ndev: slots to look at (HFD_MAX_DEVICES: hot-added devices may
 *        have links in any slot)
 */
void hfd_devlinks_remove(const char *link_dir, const char *dir,
			 unsigned int ndev)
{
	char accel[PATH_MAX];
	unsigned int i;

	pthread_mutex_lock(&links_lock);
	links.on = false;
	for (i = 0; i < ndev; i++)
		drop_link(link_dir, dir, i);
	if (links.made_accel_dir) {
		snprintf(accel, sizeof(accel), "%s/accel", link_dir);
		rmdir(accel);
		links.made_accel_dir = false;
	}
	pthread_mutex_unlock(&links_lock);
}

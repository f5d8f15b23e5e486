// SPDX-License-Identifier: MIT
/*
 * mount.c - getting the mount point ready (stale mounts of a crashed
 * daemon, a live daemon already there) and the /dev/hpuN links.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

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

	hpu_warn("%s: stale mount of a dead daemon, cleaning it up", dir);
	if (geteuid() == 0) {
		if (umount2(dir, MNT_DETACH))
			ret = -errno;
	} else {
		ret = run_fusermount_unmount(dir);
	}
	if (ret)
		hpu_err("%s: cannot remove the stale mount: %s", dir,
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
		hpu_err("%s is already served by hpu-fused (pid %s)", dir, pid);
	else
		hpu_err("%s is already a mount point (%s)", dir, fstype);
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
 * hpu_mount_prepare() - make @dir ready to be mounted on
 * @dir: absolute path of the mount point
 *
 * Creates @dir when missing, removes the stale mount of a crashed daemon
 * (the mount answers ENOTCONN) and refuses a directory that something
 * live is mounted on.
 *
 * Return: 0; -EBUSY when a live file system is mounted there; -errno.
 */
int hpu_mount_prepare(const char *dir)
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

/**
 * hpu_devlinks_create() - make LINK_DIR/hpuN -> DIR/hpuN links
 * @link_dir: where the links go (/dev unless --dev-link-dir)
 * @dir: mount point
 * @ndev: devices
 * @forced: asked for on the command line (a refusal is then a warning)
 *
 * Never replaces anything but a symlink that is dangling or already
 * points into @dir.
 *
 * Return: number of links made.
 */
int hpu_devlinks_create(const char *link_dir, const char *dir,
			unsigned int ndev, bool forced)
{
	char link[PATH_MAX], target[PATH_MAX];
	unsigned int i;
	struct stat st;
	int made = 0;

	if (access(link_dir, W_OK)) {
		hpu_log(forced ? HPU_LOG_WARN : HPU_LOG_INFO,
			"not permitted to make %s/hpuN links", link_dir);
		return 0;
	}
	for (i = 0; i < ndev; i++) {
		snprintf(link, sizeof(link), "%s/hpu%u", link_dir, i);
		snprintf(target, sizeof(target), "%s/hpu%u", dir, i);
		if (!lstat(link, &st)) {
			if (!S_ISLNK(st.st_mode) ||
			    (!points_into(link, dir) && !stat(link, &st))) {
				hpu_warn(
					"%s exists and is not ours; left alone",
					link);
				continue;
			}
			unlink(link);
		}
		if (symlink(target, link)) {
			hpu_warn("%s: %s", link, strerror(errno));
			continue;
		}
		made++;
	}
	hpu_info("made %d %s/hpuN link(s)", made, link_dir);
	return made;
}

/**
 * hpu_devlinks_remove() - remove the LINK_DIR/hpuN links that point into @dir
 * @link_dir: where the links are
 * @dir: mount point
 * @ndev: devices
 */
void hpu_devlinks_remove(const char *link_dir, const char *dir,
			 unsigned int ndev)
{
	char link[PATH_MAX];
	unsigned int i;

	for (i = 0; i < ndev; i++) {
		snprintf(link, sizeof(link), "%s/hpu%u", link_dir, i);
		if (points_into(link, dir))
			unlink(link);
	}
}

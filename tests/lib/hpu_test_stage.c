// SPDX-License-Identifier: MIT
/*
 * hpu_test_stage.c - copy built programs and their shared libraries to a
 * directory under /tmp that every user can reach (hpu_test_stage.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hpu_test_stage.h"
#include "hpu_test_util.h"

/* Exit codes of the probe child besides an errno (< 100) */
#define PROBE_NO_SWITCH 100
#define PROBE_NOEXEC	101
#define PROBE_WAIT_MS	10000

static const char *build_dir(void)
{
	const char *o = getenv("O");

	return o && *o ? o : "build";
}

static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	int in, out, ret = 0;
	ssize_t n, w;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (out < 0) {
		ret = -errno;
		goto out_in;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (w = 0; w < n;) {
			ssize_t k = write(out, buf + w, (size_t)(n - w));

			if (k < 0) {
				ret = -errno;
				goto out_out;
			}
			w += k;
		}
	}
	if (n < 0)
		ret = -errno;
	/* the umask must not take the others' bits away */
	else if (fchmod(out, 0755))
		ret = -errno;
out_out:
	if (close(out) && !ret)
		ret = -errno;
out_in:
	close(in);
	return ret;
}

/* Whether @name is a shared library file name: lib*.so or lib*.so.* */
static bool is_shared_lib(const char *name)
{
	const char *so = strstr(name, ".so");

	return !strncmp(name, "lib", 3) && so &&
	       (so[3] == '\0' || so[3] == '.');
}

/* Every shared library of $O/lib into @dst, links as links */
static int copy_libs(const char *dst)
{
	char src_dir[PATH_MAX], src[PATH_MAX], to[PATH_MAX], target[PATH_MAX];
	struct dirent *e;
	struct stat st;
	int ret = 0;
	ssize_t n;
	DIR *d;

	snprintf(src_dir, sizeof(src_dir), "%s/lib", build_dir());
	d = opendir(src_dir);
	if (!d)
		return -errno;
	while (!ret && (e = readdir(d))) {
		if (!is_shared_lib(e->d_name))
			continue;
		if (snprintf(src, sizeof(src), "%s/%s", src_dir, e->d_name) >=
			    (int)sizeof(src) ||
		    snprintf(to, sizeof(to), "%s/%s", dst, e->d_name) >=
			    (int)sizeof(to)) {
			ret = -ENAMETOOLONG;
			break;
		}
		if (lstat(src, &st)) {
			ret = -errno;
		} else if (S_ISLNK(st.st_mode)) {
			n = readlink(src, target, sizeof(target) - 1);
			if (n < 0) {
				ret = -errno;
				break;
			}
			target[n] = '\0';
			if (symlink(target, to))
				ret = -errno;
		} else if (S_ISREG(st.st_mode)) {
			ret = copy_file(src, to);
		}
	}
	closedir(d);
	return ret;
}

/* A directory @base/@sub of mode 0755 whatever the umask */
static int make_dir(const char *base, const char *sub, char *path, size_t len)
{
	if (snprintf(path, len, "%s/%s", base, sub) >= (int)len)
		return -ENAMETOOLONG;
	if (mkdir(path, 0755) || chmod(path, 0755))
		return -errno;
	return 0;
}

int hpu_test_stage_create(struct hpu_test_stage *s, const char *const *names)
{
	char bin[PATH_MAX], lib[PATH_MAX], src[PATH_MAX], dst[PATH_MAX];
	int ret;

	snprintf(s->dir, sizeof(s->dir), "/tmp/hpu-stage-XXXXXX");
	if (!mkdtemp(s->dir)) {
		ret = -errno;
		s->dir[0] = '\0';
		return ret;
	}
	if (chmod(s->dir, 0755)) {
		ret = -errno;
		goto err;
	}
	ret = make_dir(s->dir, "bin", bin, sizeof(bin));
	if (!ret)
		ret = make_dir(s->dir, "lib", lib, sizeof(lib));
	if (!ret)
		ret = copy_libs(lib);
	for (; !ret && *names; names++) {
		snprintf(src, sizeof(src), "%s/bin/%s", build_dir(), *names);
		if (snprintf(dst, sizeof(dst), "%s/%s", bin, *names) >=
		    (int)sizeof(dst))
			ret = -ENAMETOOLONG;
		else
			ret = copy_file(src, dst);
	}
	if (ret)
		goto err;
	return 0;

err:
	fprintf(stderr, "cannot stage programs in %s: %s\n", s->dir,
		strerror(-ret));
	hpu_test_stage_remove(s);
	return ret;
}

const char *hpu_test_stage_bin(const struct hpu_test_stage *s, const char *name)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/bin/%s", s->dir, name);
	return path;
}

const char *hpu_test_stage_usable(const struct hpu_test_stage *s,
				  const char *name, uid_t uid, gid_t gid)
{
	static char reason[PATH_MAX + 128];
	const char *path = hpu_test_stage_bin(s, name);
	struct statvfs vfs;
	int status, code;
	pid_t pid;

	if (geteuid() != 0)
		return "not root: cannot switch users";
	pid = hpu_test_fork_child();
	if (pid < 0) {
		snprintf(reason, sizeof(reason), "fork: %s", strerror(-pid));
		return reason;
	}
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(gid) || setuid(uid))
			_exit(PROBE_NO_SWITCH);
		if (access(path, X_OK))
			_exit(errno < PROBE_NO_SWITCH ? errno : EIO);
		if (!statvfs(path, &vfs) && (vfs.f_flag & ST_NOEXEC))
			_exit(PROBE_NOEXEC);
		_exit(0);
	}
	if (hpu_test_wait_child(pid, PROBE_WAIT_MS, &status)) {
		hpu_test_kill_child(pid, &status);
		return "the probe of the staged program did not end";
	}
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	if (!code)
		return NULL;
	if (code == PROBE_NO_SWITCH)
		snprintf(reason, sizeof(reason), "cannot switch to uid %d",
			 (int)uid);
	else if (code == PROBE_NOEXEC)
		snprintf(reason, sizeof(reason),
			 "%s is on a noexec file system: uid %d cannot run "
			 "programs from anywhere a test can put them",
			 s->dir, (int)uid);
	else
		snprintf(reason, sizeof(reason), "uid %d cannot run %s: %s",
			 (int)uid, path,
			 code < PROBE_NO_SWITCH ? strerror(code) : "killed");
	return reason;
}

static int remove_entry(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void hpu_test_stage_remove(struct hpu_test_stage *s)
{
	if (!s->dir[0])
		return;
	/* only what hpu_test_stage_create() made: a /tmp/hpu-stage-* tree */
	if (!strncmp(s->dir, "/tmp/hpu-stage-", 15))
		nftw(s->dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	s->dir[0] = '\0';
}

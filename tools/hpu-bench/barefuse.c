// SPDX-License-Identifier: MIT
/*
 * barefuse.c - the reference of the ioctl benchmark: a minimal FUSE
 * low-level filesystem with one file whose ioctl handler replies at once,
 * mounted with hpu-fused's options and served by fuse_session_loop_mt in
 * a process of its own, as hpu-fused is (a server thread inside the
 * client would skip the cross-process switches every daemon pays). What
 * an hpu ioctl costs beyond this is the driver's own work.
 */
#define FUSE_USE_VERSION 314

#include <errno.h>
#include <fuse_lowlevel.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define NODE_INO  2
#define NODE_NAME "node"

/**
 * struct barefuse - the mounted reference filesystem
 * @pid: the server process
 * @dir: temporary mount point
 * @node: path of its one file
 */
struct barefuse {
	pid_t pid;
	char dir[64];
	char node[80];
};

static void fill_attr(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = getuid();
	st->st_gid = getgid();
	if (ino == FUSE_ROOT_ID) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG | 0666;
		st->st_nlink = 1;
	}
}

static void bf_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;

	if (parent != FUSE_ROOT_ID || strcmp(name, NODE_NAME)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = NODE_INO;
	e.attr_timeout = 1.0;
	e.entry_timeout = 1.0;
	fill_attr(NODE_INO, &e.attr);
	fuse_reply_entry(req, &e);
}

static void bf_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	if (ino != FUSE_ROOT_ID && ino != NODE_INO) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fill_attr(ino, &st);
	fuse_reply_attr(req, &st, 1.0);
}

static void bf_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (ino != NODE_INO) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	/* as hpu-fused opens its device nodes */
	fi->direct_io = 1;
	fi->keep_cache = 0;
	fi->nonseekable = 1;
	fuse_reply_open(req, fi);
}

static void bf_release(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, 0);
}

static void bf_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd,
		     void *arg, struct fuse_file_info *fi, unsigned int flags,
		     const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	(void)ino;
	(void)cmd;
	(void)arg;
	(void)fi;
	if (flags & FUSE_IOCTL_COMPAT) {
		fuse_reply_err(req, ENOSYS);
		return;
	}
	/* echo the argument: the kernel copied it in and copies it out */
	fuse_reply_ioctl(req, 0, out_bufsz ? in_buf : NULL,
			 out_bufsz <= in_bufsz ? out_bufsz : 0);
}

static const struct fuse_lowlevel_ops bf_ops = {
	.lookup = bf_lookup,
	.getattr = bf_getattr,
	.open = bf_open,
	.release = bf_release,
	.ioctl = bf_ioctl,
};

/* The server process: mount, say so on @ready_fd, serve until SIGTERM */
static int bf_serve(const char *dir, int ready_fd)
{
	char opts[128];
	char *argv[] = { "hpu-bench", "-o", opts, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct fuse_loop_config *cfg;
	struct fuse_session *se;
	int ret = 1;
	char ok = 'y';

	/* the options hpu-fused mounts with */
	snprintf(opts, sizeof(opts),
		 "fsname=hpu-bench,subtype=hpu,default_permissions%s",
		 geteuid() == 0 ? ",allow_other" : "");
	se = fuse_session_new(&args, &bf_ops, sizeof(bf_ops), NULL);
	fuse_opt_free_args(&args);
	if (!se)
		return 1;
	if (fuse_set_signal_handlers(se))
		goto out_destroy;
	if (fuse_session_mount(se, dir))
		goto out_handlers;
	cfg = fuse_loop_cfg_create();
	if (!cfg)
		goto out_unmount;
	fuse_loop_cfg_set_idle_threads(cfg, 4);
	if (write(ready_fd, &ok, 1) == 1)
		ret = fuse_session_loop_mt(se, cfg) ? 1 : 0;
	fuse_loop_cfg_destroy(cfg);
out_unmount:
	fuse_session_unmount(se);
out_handlers:
	fuse_remove_signal_handlers(se);
out_destroy:
	fuse_session_destroy(se);
	return ret;
}

int barefuse_start(struct barefuse **bfp)
{
	struct barefuse *bf;
	int pipefd[2], ret, status;
	char c = 0;

	bf = calloc(1, sizeof(*bf));
	if (!bf)
		return -ENOMEM;
	snprintf(bf->dir, sizeof(bf->dir), "/tmp/hpu-bench-XXXXXX");
	if (!mkdtemp(bf->dir)) {
		ret = -errno;
		goto err_free;
	}
	snprintf(bf->node, sizeof(bf->node), "%s/%s", bf->dir, NODE_NAME);
	if (pipe(pipefd)) {
		ret = -errno;
		goto err_rmdir;
	}
	bf->pid = fork();
	if (bf->pid < 0) {
		ret = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		goto err_rmdir;
	}
	if (bf->pid == 0) {
		close(pipefd[0]);
		_exit(bf_serve(bf->dir, pipefd[1]));
	}
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) != 1 || c != 'y') {
		close(pipefd[0]);
		waitpid(bf->pid, &status, 0);
		ret = -EIO;
		goto err_rmdir;
	}
	close(pipefd[0]);
	*bfp = bf;
	return 0;

err_rmdir:
	rmdir(bf->dir);
err_free:
	free(bf);
	return ret;
}

const char *barefuse_node(const struct barefuse *bf)
{
	return bf->node;
}

void barefuse_stop(struct barefuse *bf)
{
	int status;

	if (!bf)
		return;
	/* SIGTERM ends the server's loop; it unmounts before exiting */
	kill(bf->pid, SIGTERM);
	waitpid(bf->pid, &status, 0);
	rmdir(bf->dir);
	free(bf);
}

int barefuse_time(int fd, unsigned long request, uint64_t *ns, size_t n)
{
	uint64_t args[8], t0;
	size_t i;

	for (i = 0; i < n; i++) {
		memset(args, 0, sizeof(args));
		t0 = bench_now_ns();
		if (ioctl(fd, request, args))
			return -errno;
		if (ns)
			ns[i] = bench_now_ns() - t0;
	}
	return 0;
}

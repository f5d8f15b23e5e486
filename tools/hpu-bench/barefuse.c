// SPDX-License-Identifier: MIT
/*
 * barefuse.c - the reference of the ioctl benchmark: a minimal FUSE
 * low-level filesystem with one file whose ioctl handler replies at once,
 * mounted with hpu-fused's options and served by fuse_session_loop_mt in
 * a thread. What an hpu ioctl costs beyond this is the driver's own work.
 */
#define FUSE_USE_VERSION 314

#include <errno.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define NODE_INO  2
#define NODE_NAME "node"

/**
 * struct barefuse - the mounted reference filesystem
 * @se: its session
 * @thread: runs the session loop
 * @dir: temporary mount point
 * @node: path of its one file
 * @loop_ret: what the loop returned
 */
struct barefuse {
	struct fuse_session *se;
	pthread_t thread;
	char dir[64];
	char node[80];
	int loop_ret;
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

static void *bf_loop(void *arg)
{
	struct barefuse *bf = arg;
	struct fuse_loop_config *cfg;

	cfg = fuse_loop_cfg_create();
	if (!cfg) {
		bf->loop_ret = -ENOMEM;
		return NULL;
	}
	fuse_loop_cfg_set_idle_threads(cfg, 4);
	bf->loop_ret = fuse_session_loop_mt(bf->se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return NULL;
}

int barefuse_start(struct barefuse **bfp)
{
	char opts[128];
	char *argv[] = { "hpu-bench", "-o", opts, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct barefuse *bf;
	int ret;

	bf = calloc(1, sizeof(*bf));
	if (!bf)
		return -ENOMEM;
	snprintf(bf->dir, sizeof(bf->dir), "/tmp/hpu-bench-XXXXXX");
	if (!mkdtemp(bf->dir)) {
		ret = -errno;
		goto err_free;
	}
	snprintf(bf->node, sizeof(bf->node), "%s/%s", bf->dir, NODE_NAME);
	/* the options hpu-fused mounts with */
	snprintf(opts, sizeof(opts),
		 "fsname=hpu-bench,subtype=hpu,default_permissions%s",
		 geteuid() == 0 ? ",allow_other" : "");
	bf->se = fuse_session_new(&args, &bf_ops, sizeof(bf_ops), bf);
	fuse_opt_free_args(&args);
	if (!bf->se) {
		ret = -EIO;
		goto err_rmdir;
	}
	if (fuse_session_mount(bf->se, bf->dir)) {
		ret = -EIO;
		goto err_destroy;
	}
	ret = -pthread_create(&bf->thread, NULL, bf_loop, bf);
	if (ret)
		goto err_unmount;
	*bfp = bf;
	return 0;

err_unmount:
	fuse_session_unmount(bf->se);
err_destroy:
	fuse_session_destroy(bf->se);
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
	if (!bf)
		return;
	fuse_session_exit(bf->se);
	/* unmounting ends the connection, which wakes every worker */
	fuse_session_unmount(bf->se);
	pthread_join(bf->thread, NULL);
	fuse_session_destroy(bf->se);
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

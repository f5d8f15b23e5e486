// SPDX-License-Identifier: MIT
/*
 * main.c - hpu-fused: the simulated accelerator's "kernel driver", a FUSE
 * file system of device nodes and attributes (docs/fusedev.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "hpu_blas_core.h"
#include "hpu_devdir.h"
#include "hpu_fused.h"

#define EXIT_USAGE 2

#include "hpu_fused_opts.h"

/*
 * Descriptors: the per-context limits bound what one context makes the
 * daemon hold; the soft limit goes up to the hard one so that many
 * contexts fit as well.
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		hfd_warn("cannot raise the descriptor limit: %s",
			 strerror(errno));
}

/* Make the mount point absolute (the daemon changes to /) and canonical */
static int absolute_mount(struct options *o)
{
	char real[PATH_MAX];

	if (!realpath(o->mount, real))
		return -errno;
	snprintf(o->mount, sizeof(o->mount), "%s", real);
	return 0;
}

static struct fuse_session *new_session(struct hfd_driver *drv)
{
	char opts[256];
	char *argv[] = { "hpu-fused", "-o", opts, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct fuse_session *se;

	snprintf(opts, sizeof(opts),
		 "fsname=hpu-fused,subtype=hpu,default_permissions%s",
		 geteuid() == 0 ? ",allow_other" : "");
	se = fuse_session_new(&args, &hfd_fs_ops, sizeof(hfd_fs_ops), drv);
	fuse_opt_free_args(&args);
	return se;
}

static int serve(struct fuse_session *se)
{
	struct fuse_loop_config *cfg;
	int ret;

	cfg = fuse_loop_cfg_create();
	if (!cfg)
		return -ENOMEM;
	/* room for every worker the uaccess caps let get stuck */
	fuse_loop_cfg_set_max_threads(cfg, HFD_MAX_THREADS_ALL);
	fuse_loop_cfg_set_idle_threads(cfg, 4);
	ret = fuse_session_loop_mt(se, cfg);
	fuse_loop_cfg_destroy(cfg);
	/* a positive value is the signal that ended the loop */
	return ret < 0 ? ret : 0;
}

/**
 * struct stop_guard - the bound on a stop (SIGINT/SIGTERM)
 * @se: the session
 * @o: the command line
 * @links: /dev links were made
 * @lock: protects @done and the forced exit
 * @cond: signalled when @done is set
 * @done: the loop returned: every worker was joined
 * @thread: the guard's thread
 *
 * The loop's end joins every worker, and a worker stuck in client memory
 * (a fault nobody resolves) never returns: after HFD_STOP_BOUND_MS
 * the guard removes the links, unmounts (which aborts the connection) and
 * exits the process.
 */
struct stop_guard {
	struct fuse_session *se;
	const struct options *o;
	bool links;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	pthread_t thread;
};

static void deadline_in(struct timespec *ts, unsigned int ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void *stop_guard_main(void *arg)
{
	struct stop_guard *g = arg;
	struct timespec ts;
	uint64_t now, ever, refused;

	pthread_mutex_lock(&g->lock);
	/* the signal handler only sets the session's exit flag: poll it */
	while (!g->done && !fuse_session_exited(g->se)) {
		deadline_in(&ts, 100);
		pthread_cond_timedwait(&g->cond, &g->lock, &ts);
	}
	deadline_in(&ts, HFD_STOP_BOUND_MS);
	while (!g->done)
		if (pthread_cond_timedwait(&g->cond, &g->lock, &ts) ==
		    ETIMEDOUT)
			break;
	if (g->done) {
		pthread_mutex_unlock(&g->lock);
		return NULL;
	}
	/* the lock stays held: the main thread does nothing more */
	hfd_uaccess_guard_stats(&now, &ever, &refused);
	hfd_err("stop: workers still busy after %d ms (%llu stuck in client memory): exiting without them",
		HFD_STOP_BOUND_MS, (unsigned long long)now);
	if (g->links)
		hfd_devlinks_remove(g->o->link_dir, g->o->mount,
				    HFD_MAX_DEVICES);
	fuse_session_unmount(g->se);
	hfd_info("stopped");
	_exit(EXIT_SUCCESS);
}

static int stop_guard_start(struct stop_guard *g, struct fuse_session *se,
			    const struct options *o, bool links)
{
	pthread_condattr_t ca;
	int ret;

	g->se = se;
	g->o = o;
	g->links = links;
	g->done = false;
	pthread_mutex_init(&g->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cond, &ca);
	pthread_condattr_destroy(&ca);
	ret = -pthread_create(&g->thread, NULL, stop_guard_main, g);
	if (ret) {
		pthread_cond_destroy(&g->cond);
		pthread_mutex_destroy(&g->lock);
	}
	return ret;
}

/* The loop returned: the stop needs no bound any more */
static void stop_guard_end(struct stop_guard *g)
{
	pthread_mutex_lock(&g->lock);
	g->done = true;
	pthread_cond_signal(&g->cond);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->thread, NULL);
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
}

/*
 * Daemon mode. The fork comes before the driver starts any thread (a
 * child keeps only the forking thread: no timer, no engine workers), and
 * the parent exits only when the child reports, through @notify, that the
 * device directory is mounted (status 0) or that it failed (its exit
 * status): "hpu-fused && use the devices" works, and a failure shows in
 * the exit status and on the terminal.
 */
static int daemon_fork(int *notify)
{
	unsigned char st = EXIT_FAILURE;
	int pfd[2];
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid > 0) {
		close(pfd[1]);
		do
			n = read(pfd[0], &st, 1);
		while (n < 0 && errno == EINTR);
		/* no byte: the child died before it could tell */
		_exit(n == 1 ? st : EXIT_FAILURE);
	}
	close(pfd[0]);
	if (setsid() < 0)
		hfd_warn("setsid: %s", strerror(errno));
	*notify = pfd[1];
	return 0;
}

/* Tell the waiting parent @status; when ready, leave the terminal. */
static void daemon_notify(int *notify, int status)
{
	unsigned char st = (unsigned char)status;
	int fd;

	if (*notify < 0)
		return;
	if (!status) {
		if (chdir("/"))
			hfd_warn("chdir /: %s", strerror(errno));
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			if (fd > STDERR_FILENO)
				close(fd);
		}
	}
	if (write(*notify, &st, 1) != 1)
		hfd_warn("cannot notify the starting process: %s",
			 strerror(errno));
	close(*notify);
	*notify = -1;
}

/* --blas-coretype: one line, empty when OpenBLAS's own choice is right */
static int print_blas_coretype(void)
{
	const char *core = hpu_blas_core_coretype();

	printf("%s\n", core ? core : "");
	return fflush(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	const struct hpu_fw_profile *prof;
	struct hpu_blas_core blas;
	char blas_line[256];
	struct fuse_session *se;
	struct stop_guard guard;
	struct hfd_driver drv;
	struct options o;
	int ret, notify = -1, status = EXIT_FAILURE;
	bool links;
	dev_t mdev;

	memset(&o, 0, sizeof(o));
	ret = hfd_parse_args(argc, argv, &o);
	if (ret)
		return ret > 0 ? EXIT_SUCCESS : EXIT_USAGE;
	if (o.blas_coretype)
		return print_blas_coretype();
	/* may run the daemon again with OPENBLAS_CORETYPE set: nothing made yet */
	hpu_blas_core_apply(argv, &blas);
	hfd_log_setup(o.log_level, false);
	raise_nofile();

	if (hfd_driver_check_model(&hpusim_model))
		return EXIT_FAILURE;
	prof = hpu_fw_find_profile(&hpusim_model, o.type);
	if (!prof) {
		fprintf(stderr,
			"hpu-fused: unknown --type '%s' (gaudi, gaudi2 or gaudi3)\n",
			o.type);
		return EXIT_USAGE;
	}
	if (o.dram_size && (o.dram_size > prof->dram_size ||
			    o.dram_size % prof->dram_page_size)) {
		fprintf(stderr,
			"hpu-fused: --dram-size: a %s has at most %llu MiB of HBM, in %llu MiB pages\n",
			o.type, (unsigned long long)(prof->dram_size >> 20),
			(unsigned long long)(prof->dram_page_size >> 20));
		return EXIT_USAGE;
	}
	hfd_set_dram_size(o.dram_size);
	if (o.ndev > hfd_profile_max_server_devices(prof)) {
		fprintf(stderr,
			"hpu-fused: --devices %u: a %s server wires at most %u devices all-to-all (docs/nic.md)\n",
			o.ndev, o.type, hfd_profile_max_server_devices(prof));
		return EXIT_USAGE;
	}
	links = o.dev_links == 1 || (o.dev_links < 0 && geteuid() == 0 &&
				     hpu_devdir_is_default(o.mount));

	ret = hfd_mount_prepare(o.mount);
	if (!ret)
		ret = absolute_mount(&o);
	if (ret) {
		if (ret != -EBUSY)
			hfd_err("%s: %s", o.mount, strerror(-ret));
		return EXIT_FAILURE;
	}
	if (!o.foreground) {
		ret = daemon_fork(&notify);
		if (ret) {
			hfd_err("cannot daemonize: %s", strerror(-ret));
			return EXIT_FAILURE;
		}
	}

	ret = hfd_driver_init_server(&drv, &hpusim_model, o.type, o.ndev,
				     o.mount, o.scaleout_addr,
				     o.have_module_map ? o.module_map : NULL);
	if (ret) {
		hfd_err("cannot create the devices: %s", strerror(-ret));
		/* a scale-out address the model refused is a bad option */
		status = drv.fabric_err && o.scaleout_addr ? EXIT_USAGE :
							     EXIT_FAILURE;
		goto out_notify;
	}
	if (drv.scaleout_addr[0])
		hfd_info("scale-out endpoint %s", drv.scaleout_addr);
	snprintf(drv.blas_core, sizeof(drv.blas_core), "%s", blas.running);
	hfd_driver_set_cs_timeout(&drv, o.cs_timeout_ms);
	hfd_driver_set_reset_on_lockup(&drv, o.reset_on_lockup);
	hfd_driver_set_fatal_policy(&drv, o.reset_on_fatal,
				    o.fatal_page_faults);
	drv.node_mode = o.node_mode;
	drv.control_mode = o.control_mode;
	hfd_driver_set_exclusive(&drv, o.exclusive);
	if (o.timing_model && hfd_driver_set_timing_model(&drv, true))
		hfd_warn("--timing-model: not every device counts modeled "
			 "busy time");
	drv.habanalabs = o.habanalabs;
	if (o.group >= 0)
		drv.gid = (gid_t)o.group;
	se = new_session(&drv);
	if (!se) {
		hfd_err("cannot create the FUSE session");
		goto err_fini_driver;
	}
	drv.se = se;
	if (fuse_set_signal_handlers(se)) {
		hfd_err("cannot install signal handlers");
		goto err_destroy_session;
	}
	if (fuse_session_mount(se, o.mount)) {
		hfd_err("%s: cannot mount", o.mount);
		goto err_remove_handlers;
	}
	if (!hfd_mount_dev(o.mount, &mdev))
		hfd_uaccess_set_mount_dev(mdev);
	ret = hfd_fs_guard_start(o.uaccess_timeout_ms);
	if (ret) {
		hfd_err("cannot start the uaccess watchdog: %s",
			strerror(-ret));
		goto err_unmount;
	}
	/* from here on the log of a daemon goes to syslog */
	if (!o.foreground) {
		hfd_log_setup(o.log_level, true);
		daemon_notify(&notify, 0);
	}
	if (links && drv.habanalabs)
		hfd_devlinks_habanalabs(&drv);
	if (links)
		hfd_devlinks_create(o.link_dir, o.mount, o.ndev,
				    o.dev_links == 1);
	hfd_info("%s: %u %s device(s), up to %d worker threads", o.mount,
		 o.ndev, o.type, HFD_MAX_THREADS_ALL);
	hfd_info("nodes: owner %u, group %u, hpuN %04o, hpu_controlN %04o",
		 (unsigned int)drv.uid, (unsigned int)drv.gid, drv.node_mode,
		 drv.control_mode);
	if (hpu_blas_core_describe(&blas, blas_line, sizeof(blas_line)))
		hfd_warn("MME: %s", blas_line);
	else
		hfd_info("MME: %s", blas_line);

	ret = stop_guard_start(&guard, se, &o, links);
	if (ret) {
		hfd_err("cannot start the stop guard: %s", strerror(-ret));
	} else {
		ret = serve(se);
		stop_guard_end(&guard);
	}
	if (ret)
		hfd_err("session loop failed: %s", strerror(-ret));
	else
		status = EXIT_SUCCESS;
	hfd_uaccess_guard_stop();

	/* hot-added devices may have links in any slot */
	if (links)
		hfd_devlinks_remove(o.link_dir, o.mount, HFD_MAX_DEVICES);
err_unmount:
	fuse_session_unmount(se);
err_remove_handlers:
	fuse_remove_signal_handlers(se);
err_destroy_session:
	fuse_session_destroy(se);
	hfd_fs_release_all();
err_fini_driver:
	hfd_driver_fini(&drv);
	hfd_info("stopped");
out_notify:
	daemon_notify(&notify, status);
	return status;
}

// SPDX-License-Identifier: MIT
/*
 * test_install.c - `make install DESTDIR=<tmp> PREFIX=/usr` of the built
 * tree (O), what it contains, programs built against it with pkg-config
 * only, the compat layout of `make install COMPAT_HABANA=1` (libhlml
 * where Habana's tools load it, hl-smi), the udev rules (udevadm test on
 * a fake sysfs), the systemd unit (systemd-analyze verify), the man pages
 * (groff), the installed hpu-generate against its man page and `make
 * uninstall`.
 *
 * The group setup installs once; the tests then look at the tree in table
 * order, and the last one uninstalls. docs/install.md lists the tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_preload.h"
#include "../lib/hpu_test_util.h"

#define PREFIX "/usr"

/**
 * struct inst - the install under test
 * @repo: source tree (the tests run from it)
 * @build: absolute build directory (O)
 * @dest: DESTDIR
 * @work: scratch directory (external programs, unit copies)
 * @installed: make install succeeded
 * @skip: why nothing can run, or NULL
 * @mirrors: dependency include directories linked into the DESTDIR
 *	sysroot, removed before uninstall
 * @nmirrors: entries of @mirrors
 */
static struct inst {
	char repo[PATH_MAX];
	char build[2 * PATH_MAX];
	char dest[64];
	char work[64];
	bool installed;
	const char *skip;
	char mirrors[8][PATH_MAX];
	int nmirrors;
} in;

/* Run a shell command, stdout and stderr captured (bounded: 30 s) */
static int sh(const char *cmd, char **out)
{
	char *full;
	int status, ret;
	char *argv[4] = { "/bin/sh", "-c", NULL, NULL };

	if (asprintf(&full, "exec 2>&1; %s", cmd) < 0)
		return -ENOMEM;
	argv[2] = full;
	ret = hpu_test_run(argv, out, &status);
	free(full);
	return ret ? ret : status;
}

static bool have_prog(const char *name)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null", name);
	return sh(cmd, NULL) == 0;
}

static void dpath(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s%s", in.dest, rel);
}

/*
 * `make test` passes its SANITIZE and OPTFLAGS in HPU_TEST_MAKE_VARS, so
 * that anything install finds out of date is rebuilt the way the rest of
 * the build directory was
 */
static int make_target(const char *target, char **out)
{
	const char *vars = getenv("HPU_TEST_MAKE_VARS");
	char cmd[4 * PATH_MAX];

	snprintf(cmd, sizeof(cmd),
		 "make --no-print-directory -C '%s' O='%s' %s %s DESTDIR='%s' "
		 "PREFIX=" PREFIX,
		 in.repo, in.build, vars ? vars : "", target, in.dest);
	return sh(cmd, out);
}

static int group_setup(void **state)
{
	const char *o = getenv("O");
	char *out = NULL;
	int ret;

	if (!getcwd(in.repo, sizeof(in.repo)) || access("Makefile", R_OK) ||
	    access("tools/udev/60-hpu.rules", R_OK)) {
		in.skip = "not run from the source tree (no Makefile)";
		return 0;
	}
	if (!have_prog("make") || !have_prog("pkg-config") ||
	    !have_prog("cc")) {
		in.skip = "make, pkg-config or cc missing";
		return 0;
	}
	if (!o || !*o)
		o = "build";
	if (o[0] == '/')
		snprintf(in.build, sizeof(in.build), "%s", o);
	else
		snprintf(in.build, sizeof(in.build), "%s/%s", in.repo, o);
	strcpy(in.dest, "/tmp/hpu-install-XXXXXX");
	strcpy(in.work, "/tmp/hpu-install-work-XXXXXX");
	if (!mkdtemp(in.dest) || !mkdtemp(in.work))
		return -1;
	/* a sub-make of `make test` must not look for its jobserver */
	unsetenv("MAKEFLAGS");
	unsetenv("MAKELEVEL");
	unsetenv("MFLAGS");
	ret = make_target("install", &out);
	if (ret) {
		fprintf(stderr, "make install failed (%d):\n%s\n", ret,
			out ? out : "");
		free(out);
		return -1;
	}
	free(out);
	in.installed = true;
	return 0;
}

static int group_teardown(void **state)
{
	char cmd[256];

	if (in.work[0] && strchr(in.work, '-')) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", in.work);
		sh(cmd, NULL);
	}
	if (in.dest[0] && strchr(in.dest, '-')) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", in.dest);
		sh(cmd, NULL);
	}
	return 0;
}

static int need_install(void **state)
{
	HPU_TEST_SKIP_IF(in.skip);
	assert_true(in.installed);
	return 0;
}

static void assert_file(const char *rel, mode_t mode)
{
	char path[PATH_MAX];
	struct stat st;

	dpath(path, sizeof(path), rel);
	if (lstat(path, &st))
		fail_msg("%s: not installed (%s)", rel, strerror(errno));
	if (!S_ISREG(st.st_mode))
		fail_msg("%s: not a regular file", rel);
	if ((st.st_mode & 07777) != mode)
		fail_msg("%s: mode %04o, expected %04o", rel,
			 (unsigned int)(st.st_mode & 07777),
			 (unsigned int)mode);
}

static void assert_link(const char *rel, const char *target)
{
	char path[PATH_MAX], got[PATH_MAX];
	ssize_t n;

	dpath(path, sizeof(path), rel);
	n = readlink(path, got, sizeof(got) - 1);
	if (n < 0) {
		fail_msg("%s: not a symlink (%s)", rel, strerror(errno));
		return;
	}
	got[n] = '\0';
	if (strcmp(got, target))
		fail_msg("%s -> %s, expected -> %s", rel, got, target);
	/* and it resolves */
	assert_int_equal(access(path, R_OK), 0);
}

static char *slurp(const char *rel)
{
	char path[PATH_MAX];
	char *buf;
	FILE *f;
	long n;

	dpath(path, sizeof(path), rel);
	f = fopen(path, "r");
	if (!f) {
		fail_msg("%s: %s", rel, strerror(errno));
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static void assert_contains(const char *text, const char *what,
			    const char *where)
{
	if (!strstr(text, what))
		fail_msg("%s lacks \"%s\"", where, what);
}

/* Libraries with their soname links, headers, pkg-config files */
static void test_libraries(void **state)
{
	static const char *const hdrs[] = {
		"hpudrv.h",	"hpudrv_device.h", "hpudrv_info.h",
		"hpudrv_mem.h", "hpudrv_cs.h",	   "hpudrv_stream.h",
		"hpudrv_nic.h", "hpuccl.h",	   "hpu_accel.h",
		"hpu_info.h",	"hpu_packets.h",   "hpu_tpc_kernels.h",
	};
	char rel[PATH_MAX], cmd[PATH_MAX + 64];
	char *out = NULL;
	unsigned int i;

	assert_file(PREFIX "/lib/libhpudrv.so." HPUDRV_LIB_VERSION, 0755);
	assert_link(PREFIX "/lib/libhpudrv.so.1",
		    "libhpudrv.so." HPUDRV_LIB_VERSION);
	assert_link(PREFIX "/lib/libhpudrv.so", "libhpudrv.so.1");
	assert_file(PREFIX "/lib/libhpuccl.so." HPUCCL_LIB_VERSION, 0755);
	assert_link(PREFIX "/lib/libhpuccl.so.1",
		    "libhpuccl.so." HPUCCL_LIB_VERSION);
	assert_link(PREFIX "/lib/libhpuccl.so", "libhpuccl.so.1");
	for (i = 0; i < sizeof(hdrs) / sizeof(hdrs[0]); i++) {
		snprintf(rel, sizeof(rel), PREFIX "/include/hpu/%s", hdrs[i]);
		assert_file(rel, 0644);
	}
	if (have_prog("readelf")) {
		snprintf(cmd, sizeof(cmd),
			 "readelf -d '%s" PREFIX
			 "/lib/libhpudrv.so." HPUDRV_LIB_VERSION "'",
			 in.dest);
		assert_int_equal(sh(cmd, &out), 0);
		assert_contains(out, "Library soname: [libhpudrv.so.1]",
				"libhpudrv's dynamic section");
		free(out);
	}
}

static void test_pkgconfig_files(void **state)
{
	const char *names[] = { "libhpudrv", "libhpuccl" };
	const char *versions[] = { HPUDRV_LIB_VERSION, HPUCCL_LIB_VERSION };
	char want[64];
	char rel[128];
	unsigned int i;
	char *pc;

	for (i = 0; i < 2; i++) {
		snprintf(rel, sizeof(rel), PREFIX "/lib/pkgconfig/%s.pc",
			 names[i]);
		assert_file(rel, 0644);
		pc = slurp(rel);
		assert_contains(pc, "prefix=" PREFIX "\n", rel);
		assert_contains(pc, "libdir=" PREFIX "/lib\n", rel);
		assert_contains(pc, "includedir=" PREFIX "/include\n", rel);
		snprintf(want, sizeof(want), "Version: %s\n", versions[i]);
		assert_contains(pc, want, rel);
		free(pc);
	}
	/* hlml.pc: its version is checked with the program (below) */
	assert_file(PREFIX "/lib/pkgconfig/hlml.pc", 0644);
	pc = slurp(PREFIX "/lib/pkgconfig/hlml.pc");
	assert_contains(pc, "prefix=" PREFIX "\n", "hlml.pc");
	assert_contains(pc, "libdir=" PREFIX "/lib\n", "hlml.pc");
	assert_contains(pc, "includedir=" PREFIX "/include\n", "hlml.pc");
	assert_contains(pc, "Libs: -L${libdir} -lhlml\n", "hlml.pc");
	assert_contains(pc, "Cflags: -I${includedir}\n", "hlml.pc");
	assert_contains(pc, "Requires.private: libhpudrv\n", "hlml.pc");
	free(pc);
}

/* Programs, man pages, data, udev rules, systemd unit, sysusers */
static void test_programs_and_files(void **state)
{
	static const char *const bins[] = { "hpu-smi",	     "hpu-bench",
					    "hpu-ccl-tests", "hpu-train",
					    "hpu-generate",  "hpu-plot",
					    "hpu-prof" };
	char rel[PATH_MAX], built[3 * PATH_MAX];
	unsigned int i;
	char *text;

	assert_file(PREFIX "/sbin/hpu-fused", 0755);
	for (i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
		snprintf(built, sizeof(built), "%s/bin/%s", in.build, bins[i]);
		if (access(built, X_OK))
			continue; /* not part of this tree (yet) */
		snprintf(rel, sizeof(rel), PREFIX "/bin/%s", bins[i]);
		assert_file(rel, 0755);
	}
	assert_file(PREFIX "/share/man/man8/hpu-fused.8", 0644);
	assert_file(PREFIX "/share/man/man1/hpu-smi.1", 0644);
	assert_file(PREFIX "/share/man/man1/hpu-ccl-tests.1", 0644);
	assert_file(PREFIX "/share/man/man1/hpu-train.1", 0644);
	assert_file(PREFIX "/share/man/man1/hpu-generate.1", 0644);
	assert_file(PREFIX "/share/man/man1/hpu-plot.1", 0644);
	assert_file(PREFIX "/share/man/man1/hpu-prof.1", 0644);
	assert_file(PREFIX "/share/hpu/data/digits.csv.gz", 0644);
	assert_file(PREFIX "/share/hpu/data/fortunes.txt.gz", 0644);
	assert_file(PREFIX "/share/hpu/data/README.md", 0644);
	assert_file(PREFIX "/lib/sysusers.d/hpu.conf", 0644);

	assert_file(PREFIX "/lib/udev/rules.d/60-hpu.rules", 0644);
	text = slurp(PREFIX "/lib/udev/rules.d/60-hpu.rules");
	assert_contains(text, "GROUP=\"hpu\"", "60-hpu.rules");
	assert_contains(text, "MODE=\"0660\"", "60-hpu.rules");
	assert_null(strstr(text, "0666"));
	free(text);

	assert_file(PREFIX "/lib/systemd/system/hpu-fused.service", 0644);
	text = slurp(PREFIX "/lib/systemd/system/hpu-fused.service");
	assert_contains(text,
			"ExecStart=" PREFIX "/sbin/hpu-fused --foreground",
			"hpu-fused.service");
	assert_null(strstr(text, "@SBINDIR@"));
	free(text);
}

/*
 * The installed hpu-generate runs from the tree (its runpath finds the
 * installed libraries): --help exits 0, and every option it lists is in
 * the installed man page; a missing checkpoint is refused with exit
 * status 2, the reason on stderr and nothing on stdout
 */
static void test_generate_installed(void **state)
{
	char prog[PATH_MAX], cmd[2 * PATH_MAX], roff[128];
	char *out = NULL, *man, *p, *e;
	unsigned int n = 0, i, k;

	dpath(prog, sizeof(prog), PREFIX "/bin/hpu-generate");
	snprintf(cmd, sizeof(cmd), "'%s' --help", prog);
	assert_int_equal(sh(cmd, &out), 0);
	assert_contains(out, "usage: hpu-generate --ckpt-path FILE",
			"hpu-generate --help");
	man = slurp(PREFIX "/share/man/man1/hpu-generate.1");
	/* the options are the words after two spaces: "  --top-k K ..." */
	for (p = out; (p = strstr(p, "  --")); p = e) {
		p += 2;
		e = p + strspn(p, "-abcdefghijklmnopqrstuvwxyz");
		/* in roff every '-' of an option is written "\-" */
		for (i = k = 0; p + i < e && k + 3 < sizeof(roff); i++) {
			if (p[i] == '-')
				roff[k++] = '\\';
			roff[k++] = p[i];
		}
		roff[k] = '\0';
		if (!strstr(man, roff))
			fail_msg("hpu-generate.1 lacks the option %.*s",
				 (int)(e - p), p);
		n++;
	}
	print_message("hpu-generate.1 documents the %u options of --help\n", n);
	assert_true(n >= 12);
	free(man);
	free(out);

	out = NULL;
	snprintf(cmd, sizeof(cmd),
		 "'%s' --ckpt-path /nonexistent/x.htck --prompt x 2>/dev/null",
		 prog);
	assert_int_equal(sh(cmd, &out), 2);
	assert_string_equal(out, "");
	free(out);
	out = NULL;
	snprintf(cmd, sizeof(cmd),
		 "'%s' --ckpt-path /nonexistent/x.htck --prompt x >/dev/null",
		 prog);
	assert_int_equal(sh(cmd, &out), 2);
	assert_contains(out, "cannot read checkpoint /nonexistent/x.htck",
			"hpu-generate's refusal");
	free(out);
}

/*
 * The sysroot is DESTDIR: pkg-config prefixes every -I/-L with it, also
 * those of the dependencies (libdrm's -I/usr/include/libdrm), so those
 * directories are linked into it as a real sysroot would hold them.
 */
static void mirror_dependency_includes(void)
{
	char *out = NULL, *tok, *save;
	char path[PATH_MAX], cmd[2 * PATH_MAX];

	assert_int_equal(sh("pkg-config --cflags-only-I libdrm libudev", &out),
			 0);
	for (tok = strtok_r(out, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		if (strncmp(tok, "-I/", 3) || in.nmirrors >= 8)
			continue;
		dpath(path, sizeof(path), tok + 2);
		if (!access(path, F_OK))
			continue;
		snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"",
			 path);
		assert_int_equal(sh(cmd, NULL), 0);
		assert_int_equal(symlink(tok + 2, path), 0);
		snprintf(in.mirrors[in.nmirrors++], PATH_MAX, "%s", path);
	}
	free(out);
}

/*
 * Build @src against the install with `pkg-config --cflags --libs @pkg`
 * only, run it with no devices, return its output
 */
/*
 * Build @src with only `pkg-config --cflags --libs @pkg` against the tree,
 * run it with @arg (or none) on the devices of @dev_dir (NULL: none);
 * its output, or fail when it does not build or exits non-zero
 */
static char *build_and_run_on(const char *name, const char *src,
			      const char *pkg, const char *dev_dir,
			      const char *arg)
{
	char cpath[PATH_MAX], cmd[5 * PATH_MAX], nodev[PATH_MAX];
	char *out = NULL;
	FILE *f;
	int ret;

	snprintf(cpath, sizeof(cpath), "%s/%s.c", in.work, name);
	f = fopen(cpath, "w");
	assert_non_null(f);
	fputs(src, f);
	fclose(f);
	if (!dev_dir) {
		snprintf(nodev, sizeof(nodev), "%s/no-devices", in.dest);
		dev_dir = nodev;
	}
	if (!in.nmirrors)
		mirror_dependency_includes();
	/* an instrumented library needs its runtime in the program too */
	snprintf(
		cmd, sizeof(cmd),
		"set -e; export PKG_CONFIG_SYSROOT_DIR='%s' "
		"PKG_CONFIG_PATH='%s" PREFIX "/lib/pkgconfig'; "
		"flags=$(pkg-config --cflags --libs %s); echo \"flags: $flags\"; "
		"cc -std=c99 -Wall -Werror %s -o '%s/%s' '%s' $flags; "
		"HPU_DEV_DIR='%s' LD_LIBRARY_PATH='%s" PREFIX
		"/lib' '%s/%s' %s",
		in.dest, in.dest, pkg,
#ifdef __SANITIZE_ADDRESS__
		"-fsanitize=address",
#else
		"",
#endif
		in.work, name, cpath, dev_dir, in.dest, in.work, name,
		arg ? arg : "");
	ret = sh(cmd, &out);
	if (ret)
		fail_msg("%s failed (%d):\n%s", name, ret, out ? out : "");
	return out;
}

static char *build_and_run(const char *name, const char *src, const char *pkg)
{
	return build_and_run_on(name, src, pkg, NULL, NULL);
}

static void test_external_program_hpudrv(void **state)
{
	static const char src[] =
		"#include <stdio.h>\n"
		"#include <hpu/hpudrv.h>\n"
		"int main(void)\n"
		"{\n"
		"	struct hpu_device_info *list;\n"
		"	int n, i, ret;\n"
		"\n"
		"	printf(\"libhpudrv %s\\n\", hpu_library_version());\n"
		"	ret = hpu_device_list(&list, &n);\n"
		"	if (ret) {\n"
		"		printf(\"list: %s\\n\", hpu_strerror(ret));\n"
		"		return 1;\n"
		"	}\n"
		"	printf(\"devices: %d\\n\", n);\n"
		"	for (i = 0; i < n; i++)\n"
		"		printf(\"hpu%d %s\\n\", list[i].index,\n"
		"		       list[i].bus_id);\n"
		"	hpu_device_list_free(list);\n"
		"	return 0;\n"
		"}\n";
	char *out = build_and_run("list_devices", src, "libhpudrv");
	char want[128];

	snprintf(want, sizeof(want), "-I%s" PREFIX "/include", in.dest);
	assert_contains(out, want, "pkg-config's flags");
	assert_contains(out, "-lhpudrv", "pkg-config's flags");
	assert_contains(out, "libhpudrv " HPUDRV_LIB_VERSION "\n",
			"the program's output");
	assert_contains(out, "devices: 0\n", "the program's output");
	free(out);
}

static void test_external_program_hpuccl(void **state)
{
	static const char src[] =
		"#include <stdio.h>\n"
		"#include <hpu/hpuccl.h>\n"
		"int main(void)\n"
		"{\n"
		"	printf(\"libhpuccl %s on libhpudrv %s\\n\",\n"
		"	       hpuccl_version(), hpu_library_version());\n"
		"	printf(\"devices: %d\\n\", hpu_device_count());\n"
		"	return 0;\n"
		"}\n";
	char *out = build_and_run("ccl_version", src, "libhpuccl");

	assert_contains(out, "-lhpuccl", "pkg-config's flags");
	assert_contains(out, "-lhpudrv", "pkg-config's flags");
	assert_contains(out,
			"libhpuccl " HPUCCL_LIB_VERSION
			" on libhpudrv " HPUDRV_LIB_VERSION "\n",
			"the program's output");
	assert_contains(out, "devices: 0\n", "the program's output");
	free(out);
}

/*
 * libhlml: library, links, hlml.h at the top of the include directory (as
 * HLML programs include it), hlml.pc; a program built with
 * `pkg-config --cflags --libs hlml` only runs and finds no driver
 */
static void test_external_program_hlml(void **state)
{
	static const char src[] =
		"#include <stdio.h>\n"
		"#include <hlml.h>\n"
		"int main(void)\n"
		"{\n"
		"	char v[32];\n"
		"	unsigned int n;\n"
		"\n"
		"	if (hlml_get_hlml_version(v, sizeof(v)) != HLML_SUCCESS)\n"
		"		return 1;\n"
		"	printf(\"libhlml %s\\n\", v);\n"
		"	printf(\"init: %d\\n\", (int)hlml_init());\n"
		"	printf(\"count: %d\\n\", (int)hlml_device_get_count(&n));\n"
		"	return 0;\n"
		"}\n";
	char *out = build_and_run("hlml_version", src, "hlml");
	char want[128], *pc, *v;

	assert_file(PREFIX "/include/hlml.h", 0644);
	assert_link(PREFIX "/lib/libhlml.so", "libhlml.so.1");
	assert_contains(out, "-lhlml", "pkg-config's flags");
	/* no devices: the driver is not there, nothing is initialised */
	assert_contains(out, "init: 9\n", "the program's output");
	assert_contains(out, "count: 1\n", "the program's output");
	v = strstr(out, "libhlml ");
	assert_non_null(v);
	v += strlen("libhlml ");
	v[strcspn(v, "\n")] = '\0';
	snprintf(want, sizeof(want), "libhlml.so.%s", v);
	assert_link(PREFIX "/lib/libhlml.so.1", want);
	snprintf(want, sizeof(want), PREFIX "/lib/libhlml.so.%s", v);
	assert_file(want, 0755);
	pc = slurp(PREFIX "/lib/pkgconfig/hlml.pc");
	snprintf(want, sizeof(want), "Version: %s\n", v);
	assert_contains(pc, want, "hlml.pc");
	assert_contains(pc, "includedir=" PREFIX "/include\n", "hlml.pc");
	free(pc);
	free(out);
}

/* The whole text of the file at @path of the source tree */
static char *read_source(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");
	FILE *m = open_memstream(&buf, &len);
	char chunk[4096];
	size_t n;

	if (!f || !m)
		fail_msg("%s: %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	fclose(m);
	return buf;
}

/*
 * Issue 17's check, as a user of the installed tree makes it: the HLML
 * monitor of examples/ (hlml.h only), built with nothing but `pkg-config
 * --cflags --libs hlml` against the installed tree, lists the devices of
 * a running daemon with their metrics and receives the critical error it
 * injects into hpu1 as an HLML event. How long that took is printed (the
 * issue asks for 1 s; the program waits at most 10 s, so load cannot fail
 * it on time alone).
 */
static void test_external_hlml_monitor(void **state)
{
	struct hpu_test_daemon d;
	char path[PATH_MAX + 32];
	const char *ev;
	char *src, *out;

	(void)state;
	if (hpu_test_have_fuse()) {
		print_message("skipped: %s\n", hpu_test_have_fuse());
		skip();
	}
	snprintf(path, sizeof(path), "%s/examples/hlml_monitor.c", in.repo);
	src = read_source(path);
	assert_int_equal(hpu_test_daemon_start(&d, 2, "gaudi2", NULL), 0);
	out = build_and_run_on("hlml_monitor", src, "hlml", d.mount, "1");
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	assert_contains(out, "devices: 2\n", "the monitor's output");
	assert_contains(out, "device 0: HL-225 ", "the monitor's output");
	assert_contains(out, "device 1: HL-225 ", "the monitor's output");
	ev = strstr(out, "event: critical error on device 1 after ");
	assert_non_null(ev);
	print_message("installed HLML monitor: the injected critical error "
		      "arrived %s",
		      ev + strlen("event: critical error on device 1 "));
	free(src);
	free(out);
}

/* Copy @csv's line whose first field is @index into @buf; false: none */
static bool csv_line_of(const char *csv, int index, char *buf, size_t len)
{
	const char *line = csv, *end;
	size_t n;

	for (; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (line[0] < '0' || line[0] > '9' || atoi(line) != index)
			continue;
		n = end ? (size_t)(end - line) : strlen(line);
		if (n >= len)
			return false;
		memcpy(buf, line, n);
		buf[n] = '\0';
		return true;
	}
	return false;
}

/*
 * Issue 17: Debian's python3 drives the *installed* libhlml with ctypes
 * only (tests/integration/hlml_ctypes.py: every function of hlml.h), and
 * each device it lists agrees field by field with the installed hl-smi's
 * --query-aip csv: index, bus id, UUID, serial, name, memory (MiB).
 */
static void test_installed_hlml_ctypes(void **state)
{
	char lib[PATH_MAX], cmd[6 * PATH_MAX], want[512], got[512];
	char *py = NULL, *csv = NULL, *line, *save = NULL;
	char bus[64], uuid[96], serial[64], name[64];
	unsigned long long mem;
	struct hpu_test_daemon d;
	int i, seen = 0;

	(void)state;
	if (hpu_test_have_fuse()) {
		print_message("skipped: %s\n", hpu_test_have_fuse());
		skip();
	}
	if (access("/usr/bin/python3", X_OK)) {
		print_message("skipped: /usr/bin/python3 missing (Debian: "
			      "python3)\n");
		skip();
	}
	dpath(lib, sizeof(lib), PREFIX "/lib/libhlml.so.1");
	assert_int_equal(access(lib, R_OK), 0);
	assert_int_equal(hpu_test_daemon_start(&d, 2, "gaudi2", NULL), 0);
	hpu_test_sanitizer_preload();
	snprintf(cmd, sizeof(cmd),
		 "HPU_DEV_DIR='%s' /usr/bin/python3 "
		 "'%s/tests/integration/hlml_ctypes.py' '%s'",
		 d.mount, in.repo, lib);
	i = sh(cmd, &py);
	unsetenv("LD_PRELOAD");
	snprintf(cmd, sizeof(cmd),
		 "HPU_DEV_DIR='%s' LD_LIBRARY_PATH='%s" PREFIX
		 "/lib' '%s" PREFIX
		 "/bin/hpu-smi' --query-aip=index,bus_id,uuid,serial,name,"
		 "memory.total --format=csv,noheader,nounits",
		 d.mount, in.dest, in.dest);
	assert_int_equal(sh(cmd, &csv), 0);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	if (i)
		fail_msg("hlml_ctypes.py on the installed library (%d):\n%s", i,
			 py ? py : "");
	assert_non_null(strstr(py, "\nOK\n"));
	for (line = strtok_r(py, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "DEV ", 4))
			continue;
		assert_int_equal(sscanf(line, "DEV %d %63s %95s %63s %63s %llu",
					&i, bus, uuid, serial, name, &mem),
				 6);
		if (!csv_line_of(csv, i, got, sizeof(got)))
			fail_msg("hl-smi lists no device %d:\n%s", i, csv);
		snprintf(want, sizeof(want), "%d, %s, %s, %s, %s, %llu", i, bus,
			 uuid, serial, name, mem >> 20);
		assert_string_equal(got, want);
		seen++;
	}
	assert_int_equal(seen, 2);
	print_message("installed libhlml through ctypes: 2 devices, each "
		      "field equal to hl-smi --query-aip's\n");
	free(py);
	free(csv);
}

/* @rel is a symbolic link to @target, which resolves inside DESTDIR */
static void assert_abs_link(const char *rel, const char *target, int mode)
{
	char path[PATH_MAX], got[PATH_MAX], inside[2 * PATH_MAX];
	ssize_t n;

	dpath(path, sizeof(path), rel);
	n = readlink(path, got, sizeof(got) - 1);
	if (n < 0)
		fail_msg("%s: not a symlink (%s)", rel, strerror(errno));
	got[n] = '\0';
	assert_string_equal(got, target);
	snprintf(inside, sizeof(inside), "%s%s", in.dest, got);
	assert_int_equal(access(inside, mode), 0);
}

/*
 * Only COMPAT_HABANA=1 adds /usr/lib/habanalabs/libhlml.so, a link to the
 * installed library, and /usr/bin/hl-smi, a link to hpu-smi (absolute:
 * they resolve once DESTDIR is the root). The library behind the link
 * finds libhpudrv in LIBDIR ($ORIGIN is the link's directory), and
 * hpu-smi run as hl-smi calls itself so.
 */
static void test_compat_habana(void **state)
{
	char path[PATH_MAX], link[PATH_MAX], cmd[3 * PATH_MAX];
	char *out = NULL;

	dpath(path, sizeof(path), "/usr/lib/habanalabs/libhlml.so");
	assert_int_equal(access(path, F_OK), -1);
	dpath(path, sizeof(path), "/usr/bin/hl-smi");
	assert_int_equal(access(path, F_OK), -1);
	if (make_target("install COMPAT_HABANA=1", &out))
		fail_msg("make install COMPAT_HABANA=1:\n%s", out);
	free(out);
	out = NULL;
	assert_abs_link("/usr/lib/habanalabs/libhlml.so",
			PREFIX "/lib/libhlml.so.1", R_OK);
	assert_abs_link("/usr/bin/hl-smi", PREFIX "/bin/hpu-smi", X_OK);
	/* nothing else in the compat directory */
	snprintf(cmd, sizeof(cmd), "ls -A '%s/usr/lib/habanalabs'", in.dest);
	assert_int_equal(sh(cmd, &out), 0);
	assert_string_equal(out, "libhlml.so\n");
	free(out);
	out = NULL;
	if (have_prog("readelf")) {
		/* what the link names, inside DESTDIR */
		snprintf(cmd, sizeof(cmd),
			 "readelf -d '%s" PREFIX "/lib/libhlml.so.1'", in.dest);
		assert_int_equal(sh(cmd, &out), 0);
		assert_contains(out, "Library soname: [libhlml.so.1]",
				"libhlml's dynamic section");
		assert_contains(out,
				"Library runpath: [$ORIGIN:" PREFIX "/lib]",
				"libhlml's dynamic section");
		free(out);
		out = NULL;
	}
	/* the installed hpu-smi under hl-smi's name */
	snprintf(link, sizeof(link), "%s/hl-smi", in.work);
	dpath(path, sizeof(path), PREFIX "/bin/hpu-smi");
	assert_int_equal(symlink(path, link), 0);
	snprintf(cmd, sizeof(cmd), "'%s' -v", link);
	assert_int_equal(sh(cmd, &out), 0);
	assert_int_equal(strncmp(out, "hl-smi ", 7), 0);
	free(out);
	assert_int_equal(unlink(link), 0);
}

/* Every man page formats without a warning and renders with man -l */
static void test_man_pages(void **state)
{
	static const char *const pages[] = {
		"man8/hpu-fused.8",	"man1/hpu-smi.1",
		"man1/hpu-ccl-tests.1", "man1/hpu-train.1",
		"man1/hpu-generate.1",	"man1/hpu-plot.1",
		"man1/hpu-prof.1",
	};
	char cmd[2 * PATH_MAX];
	unsigned int i;
	char *out;

	if (!have_prog("groff")) {
		print_message("skipped: groff missing (Debian: groff-base): "
			      "man pages not linted\n");
		skip();
	}
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		out = NULL;
		snprintf(cmd, sizeof(cmd),
			 "groff -man -ww -z '%s" PREFIX "/share/man/%s'",
			 in.dest, pages[i]);
		assert_int_equal(sh(cmd, &out), 0);
		if (out[0])
			fail_msg("groff warns about %s:\n%s", pages[i], out);
		free(out);
		if (!have_prog("man"))
			continue;
		snprintf(cmd, sizeof(cmd),
			 "MANWIDTH=80 man -l '%s" PREFIX
			 "/share/man/%s' | grep -c NAME",
			 in.dest, pages[i]);
		assert_int_equal(sh(cmd, NULL), 0);
	}
	printf("man pages: groff -man -ww -z clean%s\n",
	       have_prog("man") ? ", man -l renders them" : "");
}

/* One device's section of udev-rules-test.sh's output */
static char *udev_section(const char *out, const char *dev)
{
	char mark[64];
	const char *s, *e;

	snprintf(mark, sizeof(mark), "### %s\n", dev);
	s = strstr(out, mark);
	if (!s)
		fail_msg("no udevadm output for %s:\n%s", dev, out);
	s += strlen(mark);
	e = strstr(s, "### ");
	return strndup(s, e ? (size_t)(e - s) : strlen(s));
}

static void assert_udev(const char *out, const char *dev, const char *mode,
			int gid, const char *const *links, bool hpu)
{
	char *sec = udev_section(out, dev), want[256];

	if (!hpu) {
		if (strstr(sec, "60-hpu.rules:"))
			fail_msg("hpu's rules act on %s:\n%s", dev, sec);
		free(sec);
		return;
	}
	snprintf(want, sizeof(want), "MODE %s\n", mode);
	assert_contains(sec, want, dev);
	snprintf(want, sizeof(want), "GROUP %d\n", gid);
	assert_contains(sec, want, dev);
	assert_non_null(strstr(sec, "DEVLINKS="));
	for (; *links; links++) {
		snprintf(want, sizeof(want), "LINK 'hpu/%s'", *links);
		assert_contains(sec, want, dev);
		/* and udev made it */
		snprintf(want, sizeof(want), "/dev/hpu/%s", *links);
		assert_contains(strstr(sec, "DEVLINKS="), want, dev);
	}
	free(sec);
}

/*
 * udevadm verify came with systemd 254; before it, `udevadm test` on a
 * fake sysfs in a private mount namespace runs the rules for real.
 */
static void test_udev_rules(void **state)
{
	static const char *const accel0[] = { "by-bus-id/0000:19:00.0",
					      "by-module-id/3", NULL };
	static const char *const ctl0[] = { "by-bus-id/0000:19:00.0-control",
					    "by-module-id/3-control", NULL };
	static const char *const accel2[] = { "by-bus-id/0000:1b:00.0", NULL };
	char cmd[3 * PATH_MAX], *out = NULL, *sec, *line;
	int gid = -1;

	if (!have_prog("udevadm") || !have_prog("unshare") || geteuid() != 0) {
		print_message(
			"skipped: udevadm (Debian: udev), unshare or root "
			"missing: the rules are not validated\n");
		skip();
	}
	if (sh("udevadm verify --help >/dev/null", NULL) == 0) {
		snprintf(cmd, sizeof(cmd),
			 "udevadm verify '%s" PREFIX
			 "/lib/udev/rules.d/60-hpu.rules'",
			 in.dest);
		if (sh(cmd, &out))
			fail_msg("udevadm verify:\n%s", out);
		free(out);
		out = NULL;
		printf("udev rules: udevadm verify passed\n");
	}
	snprintf(cmd, sizeof(cmd),
		 "unshare -m sh '%s/tests/lib/udev-rules-test.sh' '%s" PREFIX
		 "/lib/udev/rules.d/60-hpu.rules'",
		 in.repo, in.dest);
	if (sh(cmd, &out))
		fail_msg("udev-rules-test.sh:\n%s", out);
	line = strstr(out, "HPU_GID=");
	assert_non_null(line);
	gid = atoi(line + 8);
	assert_true(gid > 0);
	/* every line udevadm prints about our rules is an action */
	for (line = out; (line = strstr(line, "60-hpu.rules:")); line++) {
		const char *eol = strchr(line, '\n');
		char l[256];

		snprintf(l, sizeof(l), "%.*s",
			 (int)(eol ? eol - line : (long)strlen(line)), line);
		if (!strstr(l, " GROUP ") && !strstr(l, " MODE ") &&
		    !strstr(l, " LINK "))
			fail_msg("udevadm about 60-hpu.rules: %s", l);
	}
	assert_udev(out, "accel0", "0660", gid, accel0, true);
	assert_udev(out, "accel_controlD0", "0664", gid, ctl0, true);
	/* another driver's accel device is left alone */
	assert_udev(out, "accel1", NULL, gid, NULL, false);
	/* no module id: no by-module-id link */
	assert_udev(out, "accel2", "0660", gid, accel2, true);
	sec = udev_section(out, "accel2");
	assert_null(strstr(sec, "by-module-id"));
	free(sec);
	free(out);
	printf("udev rules: udevadm test on a fake sysfs (habanalabs accel "
	       "nodes, another driver's, one without module_id) passed\n");
}

/* systemd-analyze verify, on a copy whose ExecStart is the staged binary */
static void test_systemd_unit(void **state)
{
	char cmd[4 * PATH_MAX], *out = NULL;

	if (!have_prog("systemd-analyze")) {
		print_message(
			"skipped: systemd-analyze missing: the unit is not "
			"verified\n");
		skip();
	}
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/unit' && sed 's|^ExecStart=" PREFIX
		 "/sbin/|ExecStart=%s" PREFIX "/sbin/|' '%s" PREFIX
		 "/lib/systemd/system/hpu-fused.service' "
		 "> '%s/unit/hpu-fused.service' && "
		 "grep -q '^ExecStart=%s' '%s/unit/hpu-fused.service' && "
		 "systemd-analyze verify --man=no '%s/unit/hpu-fused.service'",
		 in.work, in.dest, in.dest, in.work, in.dest, in.work, in.work);
	if (sh(cmd, &out) || out[0])
		fail_msg("systemd-analyze verify:\n%s", out);
	free(out);
	printf("systemd unit: systemd-analyze verify clean\n");
}

/* make uninstall removes every file and link; hpu's own directories go */
static void test_uninstall(void **state)
{
	char cmd[2 * PATH_MAX], path[PATH_MAX], *out = NULL;
	int i;

	for (i = 0; i < in.nmirrors; i++)
		assert_int_equal(unlink(in.mirrors[i]), 0);
	in.nmirrors = 0;
	if (make_target("uninstall", &out))
		fail_msg("make uninstall:\n%s", out);
	free(out);
	out = NULL;
	snprintf(cmd, sizeof(cmd), "find '%s' ! -type d", in.dest);
	assert_int_equal(sh(cmd, &out), 0);
	if (out[0])
		fail_msg("left behind by make uninstall:\n%s", out);
	free(out);
	dpath(path, sizeof(path), PREFIX "/include/hpu");
	assert_int_equal(access(path, F_OK), -1);
	dpath(path, sizeof(path), PREFIX "/share/hpu");
	assert_int_equal(access(path, F_OK), -1);
	in.installed = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_libraries, need_install),
		cmocka_unit_test_setup(test_pkgconfig_files, need_install),
		cmocka_unit_test_setup(test_programs_and_files, need_install),
		cmocka_unit_test_setup(test_generate_installed, need_install),
		cmocka_unit_test_setup(test_external_program_hpudrv,
				       need_install),
		cmocka_unit_test_setup(test_external_program_hpuccl,
				       need_install),
		cmocka_unit_test_setup(test_external_program_hlml,
				       need_install),
		cmocka_unit_test_setup(test_external_hlml_monitor,
				       need_install),
		cmocka_unit_test_setup(test_installed_hlml_ctypes,
				       need_install),
		cmocka_unit_test_setup(test_compat_habana, need_install),
		cmocka_unit_test_setup(test_man_pages, need_install),
		cmocka_unit_test_setup(test_udev_rules, need_install),
		cmocka_unit_test_setup(test_systemd_unit, need_install),
		cmocka_unit_test_setup(test_uninstall, need_install),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

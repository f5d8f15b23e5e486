# SPDX-License-Identifier: MIT
#
# hpu - top-level build (no Kbuild). See README.md.
#
#   make              build libraries and tools into $(O) (default: build/)
#   make test         install missing dependencies, build, run every test
#   make run          install missing dependencies, build, the main job
#   make install      PREFIX=/usr/local DESTDIR=
#   make lint         clang-format check against .clang-format
#   make SANITIZE=address,undefined test
#   make tsan         the thread-heavy tests under ThreadSanitizer (build-tsan)
#   make soak-ccl     the 8-rank collective suites 20 times in a row under
#                     ASan+UBSan beside two busy loops (SOAK_RUNS=N)
#   make V=1          show the commands

VERSION_MAJOR := 1
VERSION_MINOR := 4
VERSION_PATCH := 0
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)
# A library's version is its version script's newest node (HPUDRV_1.6 is
# 1.6.0): file name, soname major, .pc and hpu_library_version() /
# hpuccl_version() follow the map, so an ABI change moves them all.
map_version = $(shell sed -n 's/^[A-Z]*_\([0-9][0-9.]*\) *{.*/\1/p' $(1) | \
	sort -V | tail -n 1).0
DRV_VERSION := $(call map_version,libhpudrv/libhpudrv.map)
CCL_VERSION := $(call map_version,libhpuccl/libhpuccl.map)

O ?= build
PREFIX ?= /usr/local
DESTDIR ?=
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
# Data sets of the training library (trainer/data), found by ht_data_find()
HPU_DATADIR ?= $(PREFIX)/share/hpu/data

CC ?= cc
AR ?= ar
PKG_CONFIG ?= pkg-config
CLANG_FORMAT ?= clang-format

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-8s %s\n' $(1) $(2)
endif

# Dependencies are looked up lazily so that 'make deps' works before they exist.
PKGS := fuse3 libdrm libudev openblas json-c
pkg_cflags = $(shell $(PKG_CONFIG) --cflags $(1) 2>/dev/null)
pkg_libs = $(shell $(PKG_CONFIG) --libs $(1) 2>/dev/null)

OPTFLAGS ?= -O2 -g
CFLAGS ?= $(OPTFLAGS)
BASE_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wmissing-prototypes -Wstrict-prototypes -fno-strict-aliasing \
	-D_GNU_SOURCE -DHPU_VERSION='"$(VERSION)"' \
	-DHPU_VERSION_MAJOR=$(VERSION_MAJOR) -DHPU_VERSION_MINOR=$(VERSION_MINOR) \
	-DHPU_VERSION_PATCH=$(VERSION_PATCH) \
	-Iuapi -Icommon \
	-DHT_DATA_INSTALL_DIR='"$(HPU_DATADIR)"' \
	$(call pkg_cflags,$(PKGS))
BASE_CFLAGS += -DHPUDRV_LIB_VERSION='"$(DRV_VERSION)"' \
	-DHPUCCL_LIB_VERSION='"$(CCL_VERSION)"'
LDLIBS_BASE := -lpthread -lm
# The MME engine (libhpusim) and hpu-bench's reference GEMM
BLAS_LIBS = $(call pkg_libs,openblas)

ifneq ($(SANITIZE),)
BASE_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS += -fsanitize=$(SANITIZE)
endif

# Include paths per component (docs/architecture.md, "Layers"): uapi/ and
# common/ for everyone (BASE_CFLAGS); beyond them, the public headers of
# the layers a component is built on, chosen by the folder of the file
# being compiled (a folder not named here gets uapi/ and common/ only; a
# file's own folder is always searched for "..."). check-layers proves it.
INC_DRV := -Ilibhpudrv/include/hpu
INC_CCL := -Ilibhpuccl/include/hpu
# libhputpc is a leaf (uapi/ and common/ only): its public headers are
# the kernels' API (hputpc.h) and the operand rules (hputpc_check.h)
INC_TPC := -Ilibhputpc/include
INC_libhputpc := $(INC_TPC)
# The timing model's header (firmware-sim/include/hpusim_timing.h) is the
# one part of the device model that tools may see
INC_SIM_TIMING := -Ifirmware-sim/include
INC_firmware-sim := $(INC_TPC) $(INC_SIM_TIMING)
INC_fusedev := -Ifirmware-sim $(INC_TPC)
INC_libhpudrv := $(INC_DRV) $(INC_TPC)
INC_libhpuccl := $(INC_CCL) $(INC_DRV)
INC_trainer/lib := $(INC_CCL) $(INC_DRV) $(INC_TPC)
INC_trainer/hpu-train := -Itrainer/lib $(INC_DRV)
INC_trainer/hpu-generate := -Itrainer/lib $(INC_DRV)
INC_tools/hpu-smi := $(INC_DRV) -Ilibhlml/include
INC_tools/hpu-bench := $(INC_DRV) $(INC_SIM_TIMING)
INC_tools/hpu-ccl-tests := $(INC_CCL) $(INC_DRV) $(INC_SIM_TIMING)
INC_tools/hpu-model-check := $(INC_SIM_TIMING)
# hpu-plot: the metrics reader of the training library and the busbw
# tables of hpu-ccl-tests (their headers only need common/)
INC_tools/hpu-plot := -Itrainer/lib -Itools/hpu-ccl-tests
# examples/ build as a user of the installed tree does: <hpu/hpudrv.h>,
# <hpu/hpuccl.h> and the uapi headers beside them; not common/ (hpuccl.h
# finds "hpudrv.h" beside it once installed: -iquote stands in for that)
INC_examples := -Ilibhpudrv/include -Ilibhpuccl/include -Ilibhlml/include \
	-iquote libhpudrv/include/hpu
# The tests (and fuzz targets) are white-box: every layer's folder
INC_TESTS := -Ifirmware-sim -Ifusedev -Ilibhputpc $(INC_TPC) $(INC_DRV) \
	$(INC_CCL) -Itrainer/lib $(INC_SIM_TIMING)
INC_tests/lib := $(INC_TESTS)
INC_tests/unit := $(INC_TESTS)
INC_tests/integration := $(INC_TESTS)
incs = $(INC_$(patsubst %/,%,$(dir $(1))))
# BASE_CFLAGS for the file $(1): without common/ for what stands outside
base_cflags = $(if $(filter examples/%,$(1)),$(filter-out -Icommon,$(BASE_CFLAGS)),$(BASE_CFLAGS))

ALL_CFLAGS = $(call base_cflags,$<) $(call incs,$<) $(CFLAGS) $(EXTRA_CFLAGS)

# ---------------------------------------------------------------- sources
COMMON_SRCS := $(sort $(wildcard common/*.c))
SIM_SRCS := $(sort $(wildcard firmware-sim/*.c))
# The TPC kernel library (static): kernel descriptors (operand rule and
# body) and the rules' generic part, for the simulated TPC, the daemon's
# packet validator, the cpu backend; its PIC objects are in libhpudrv too
TPC_SRCS := $(sort $(wildcard libhputpc/*.c))
# Packet rules the engines share with the driver (the MME's; the TPC's are
# libhputpc's), and HPU_WARN_ON() (also in libhpufusedev)
SIM_COMMON_SRCS := $(sort $(wildcard common/hpu_*_check.c) common/hpu_warn.c)
# The BLAS lock and thread rule of the MME and the cpu backend, and the
# choice of OpenBLAS's core of the programs that compute (OpenBLAS)
BLAS_COMMON_SRCS := common/hpu_blas.c common/hpu_blas_core.c
FUSEDEV_SRCS := $(sort $(filter-out fusedev/main.c,$(wildcard fusedev/*.c)))
DRV_SRCS := $(sort $(wildcard libhpudrv/*.c))
SMI_SRCS := $(sort $(wildcard tools/hpu-smi/*.c))
BENCH_SRCS := $(sort $(wildcard tools/hpu-bench/*.c))
CCL_SRCS := $(sort $(wildcard libhpuccl/*.c))
CCL_TOOL_SRCS := $(sort $(wildcard tools/hpu-ccl-tests/*.c))
# The timing model's check against published figures (make model-check)
MODEL_CHECK_SRCS := $(sort $(wildcard tools/hpu-model-check/*.c))
SIM_TIMING_SRCS := firmware-sim/timing_model.c firmware-sim/timing_checks.c
PLOT_TOOL_SRCS := $(sort $(wildcard tools/hpu-plot/*.c))
# hpu-prof: trace summaries (json-c)
PROF_TOOL_SRCS := $(sort $(wildcard tools/hpu-prof/*.c))
# The training library (static, linked into hpu-train and the tests)
TRAIN_SRCS := $(sort $(wildcard trainer/lib/*.c))
TRAIN_TOOL_SRCS := $(sort $(wildcard trainer/hpu-train/*.c))
GEN_TOOL_SRCS := $(sort $(wildcard trainer/hpu-generate/*.c))
# Open MPI reference of hpu-ccl-tests, built with mpicc when it exists
MPI_REF_SRC := tools/mpi-ref/mpi_allreduce_ref.c
MPICC ?= mpicc
# Small programs against the public headers and libraries (examples/README.md)
EXAMPLE_SRCS := $(sort $(wildcard examples/*.c))
TESTLIB_SRCS := $(sort $(wildcard tests/lib/*.c))
TEST_SRCS := $(sort $(wildcard tests/unit/test_*.c tests/integration/test_*.c))

obj = $(patsubst %.c,$(O)/obj/%.o,$(1))

# libhpudrv has no use for HPU_WARN_ON() (the daemon's and the model's)
# nor for the SVG writer (the tools' and the trainer's) nor for the BLAS lock
COMMON_PIC_OBJS := $(patsubst common/%.c,$(O)/pic/common/%.o,\
	$(filter-out common/hpu_warn.c common/hpu_plot.c $(BLAS_COMMON_SRCS),$(COMMON_SRCS)))
# libhpudrv's emitter applies the TPC operand rules: libhputpc inside it,
# hidden like the rest (the exports are libhpudrv.map's)
TPC_PIC_OBJS := $(patsubst libhputpc/%.c,$(O)/pic/libhputpc/%.o,$(TPC_SRCS))
DRV_OBJS = $(call obj,$(DRV_SRCS)) $(COMMON_PIC_OBJS) $(TPC_PIC_OBJS)
LIBHPUSIM := $(O)/lib/libhpusim.a
LIBHPUTPC := $(O)/lib/libhputpc.a
LIBFUSEDEV := $(O)/lib/libhpufusedev.a
DRV_SONAME := libhpudrv.so.$(firstword $(subst ., ,$(DRV_VERSION)))
LIBHPUDRV_SO := $(O)/lib/libhpudrv.so.$(DRV_VERSION)
LIBHPUDRV_A := $(O)/lib/libhpudrv.a
LIBHPUDRV_PC := $(O)/lib/pkgconfig/libhpudrv.pc
HPU_FUSED := $(O)/bin/hpu-fused
HPU_SMI := $(O)/bin/hpu-smi
HPU_BENCH := $(O)/bin/hpu-bench
CCL_SONAME := libhpuccl.so.$(firstword $(subst ., ,$(CCL_VERSION)))
LIBHPUCCL_SO := $(O)/lib/libhpuccl.so.$(CCL_VERSION)
LIBHPUCCL_A := $(O)/lib/libhpuccl.a
LIBHPUCCL_PC := $(O)/lib/pkgconfig/libhpuccl.pc
CCL_OBJS = $(call obj,$(CCL_SRCS))
HPU_CCL_TESTS := $(O)/bin/hpu-ccl-tests
HPU_MODEL_CHECK := $(O)/bin/hpu-model-check
HPU_PLOT := $(O)/bin/hpu-plot
HPU_PROF := $(O)/bin/hpu-prof
LIBHPUTRAIN := $(O)/lib/libhputrain.a
HPU_TRAIN := $(O)/bin/hpu-train
HPU_GENERATE := $(O)/bin/hpu-generate
TRAIN_LIBS = -lz $(BLAS_LIBS)
HPU_MPI_REF := $(O)/bin/hpu-mpi-allreduce-ref
TEST_BINS := $(patsubst tests/%.c,$(O)/tests/%,$(TEST_SRCS))
EXAMPLES := $(patsubst examples/%.c,$(O)/examples/%,$(EXAMPLE_SRCS))

TOOLS := $(HPU_FUSED) $(if $(SMI_SRCS),$(HPU_SMI)) $(if $(BENCH_SRCS),$(HPU_BENCH)) \
	$(if $(CCL_TOOL_SRCS),$(HPU_CCL_TESTS)) $(if $(TRAIN_TOOL_SRCS),$(HPU_TRAIN)) \
	$(if $(GEN_TOOL_SRCS),$(HPU_GENERATE)) $(if $(PLOT_TOOL_SRCS),$(HPU_PLOT)) \
	$(if $(PROF_TOOL_SRCS),$(HPU_PROF))
LIBS := $(LIBHPUSIM) $(LIBHPUTPC) \
	$(if $(DRV_SRCS),$(LIBHPUDRV_SO) $(LIBHPUDRV_A) $(LIBHPUDRV_PC)) \
	$(if $(CCL_SRCS),$(LIBHPUCCL_SO) $(LIBHPUCCL_A) $(LIBHPUCCL_PC)) \
	$(if $(TRAIN_SRCS),$(LIBHPUTRAIN))

.PHONY: FORCE all deps fuzz fuzz-run test unit-test soak-ccl tsan run install \
	uninstall lint format \
	check-headers check-layers check-names examples clean bench-ioctl \
	bench-cs bench-dma bench-gemm bench-tpc bench-rings \
	bench-ccl bench-train bench-train-ddp bench-gpt mpi-ref model-check \
	hlthunk-check

# hpu-model-check is built but not installed (it is not in TOOLS)
all: $(LIBS) $(TOOLS) $(EXAMPLES) $(HPU_MODEL_CHECK)

# Order-only build directories
DIRS := $(sort $(O)/lib $(O)/lib/pkgconfig $(O)/bin $(O)/examples $(O)/tests/unit \
	$(O)/tests/integration $(O)/headers \
	$(O)/pic/common $(O)/pic/libhputpc $(dir $(call obj,$(COMMON_SRCS) $(SIM_SRCS) $(TPC_SRCS) fusedev/main.c $(FUSEDEV_SRCS) $(DRV_SRCS) \
	$(SMI_SRCS) $(BENCH_SRCS) $(CCL_SRCS) $(CCL_TOOL_SRCS) $(MODEL_CHECK_SRCS) $(TRAIN_SRCS) \
	$(TRAIN_TOOL_SRCS) $(GEN_TOOL_SRCS) $(PLOT_TOOL_SRCS) $(PROF_TOOL_SRCS) $(EXAMPLE_SRCS) $(TESTLIB_SRCS) $(TEST_SRCS))))
$(DIRS):
	$(Q)mkdir -p $@

# ---------------------------------------------------------------- objects
# Rewritten only when the compiler or its flags change (a version bump, a
# sanitizer, -O level), so that every object follows them. The install
# paths are left out: only the object that compiles them in follows
# PATHS_STAMP (below), so `make install PREFIX=...` rebuilds one file.
STAMP_FLAGS = $(CC) $(filter-out -DHT_DATA_INSTALL_DIR=%,$(ALL_CFLAGS)) \
	$(LDFLAGS)
FLAGS_STAMP := $(O)/obj/cflags.stamp
$(FLAGS_STAMP): FORCE | $(DIRS)
	$(Q)echo '$(STAMP_FLAGS)' | cmp -s - $@ || echo '$(STAMP_FLAGS)' > $@

# libhpudrv objects are position independent and hide what is not exported.
$(O)/obj/libhpudrv/%.o: libhpudrv/%.c $(FLAGS_STAMP) | $(DIRS)
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -DHPUDRV_BUILD \
		-MMD -MP -c $< -o $@

# libhpuccl objects likewise
$(O)/obj/libhpuccl/%.o: libhpuccl/%.c $(FLAGS_STAMP) | $(DIRS)
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -DHPUCCL_BUILD \
		-MMD -MP -c $< -o $@

$(O)/pic/common/%.o: common/%.c $(FLAGS_STAMP) | $(DIRS)
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@

$(O)/pic/libhputpc/%.o: libhputpc/%.c $(FLAGS_STAMP) | $(DIRS)
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@

$(O)/obj/%.o: %.c $(FLAGS_STAMP) | $(DIRS)
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# ---------------------------------------------------------------- libraries
$(LIBHPUSIM): $(call obj,$(SIM_SRCS) $(SIM_COMMON_SRCS) $(BLAS_COMMON_SRCS)) | $(DIRS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBHPUTPC): $(call obj,$(TPC_SRCS)) | $(DIRS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBFUSEDEV): $(call obj,$(FUSEDEV_SRCS) $(COMMON_SRCS)) | $(DIRS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBHPUDRV_SO): $(DRV_OBJS) libhpudrv/libhpudrv.map | $(DIRS)
	$(call msg,LD,$@)
	$(Q)$(CC) -shared $(LDFLAGS) -Wl,-soname,$(DRV_SONAME) \
		-Wl,--version-script=libhpudrv/libhpudrv.map -Wl,--no-undefined \
		-o $@ $(DRV_OBJS) $(call pkg_libs,libudev) $(LDLIBS_BASE)
	$(Q)ln -sf libhpudrv.so.$(DRV_VERSION) $(O)/lib/$(DRV_SONAME)
	$(Q)ln -sf $(DRV_SONAME) $(O)/lib/libhpudrv.so

$(LIBHPUDRV_A): $(DRV_OBJS) | $(DIRS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBHPUCCL_SO): $(CCL_OBJS) libhpuccl/libhpuccl.map $(LIBHPUDRV_SO) | $(DIRS)
	$(call msg,LD,$@)
	$(Q)$(CC) -shared $(LDFLAGS) -Wl,-soname,$(CCL_SONAME) \
		-Wl,--version-script=libhpuccl/libhpuccl.map -Wl,--no-undefined \
		-o $@ $(CCL_OBJS) -L$(O)/lib -lhpudrv $(LDLIBS_BASE)
	$(Q)ln -sf libhpuccl.so.$(CCL_VERSION) $(O)/lib/$(CCL_SONAME)
	$(Q)ln -sf $(CCL_SONAME) $(O)/lib/libhpuccl.so

$(LIBHPUCCL_A): $(CCL_OBJS) | $(DIRS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# Rewritten only when the install paths change, so the .pc files follow
# PREFIX (defined before the first rule that depends on it).
PATHS_STAMP := $(O)/lib/pkgconfig/paths.stamp
PATHS_LINE = $(PREFIX) $(LIBDIR) $(INCLUDEDIR) $(DRV_VERSION) $(CCL_VERSION)
$(PATHS_STAMP): FORCE | $(DIRS)
	$(Q)echo '$(PATHS_LINE)' | cmp -s - $@ || echo '$(PATHS_LINE)' > $@
# the data directory of the training library is compiled in here
$(O)/obj/trainer/lib/data_digits.o: $(PATHS_STAMP)

$(LIBHPUCCL_PC): libhpuccl/libhpuccl.pc.in $(PATHS_STAMP) | $(DIRS)
	$(call msg,GEN,$@)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(CCL_VERSION)|g' \
		$< > $@

$(LIBHPUDRV_PC): libhpudrv/libhpudrv.pc.in $(PATHS_STAMP) | $(DIRS)
	$(call msg,GEN,$@)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(DRV_VERSION)|g' \
		$< > $@

# ---------------------------------------------------------------- programs
DRV_LINK = -L$(O)/lib -lhpudrv -Wl,-rpath,'$$ORIGIN/../lib'
# What the tools share outside libhpudrv's API (the EACCES explanation)
TOOL_COMMON_OBJS = $(call obj,common/hpu_access.c)

$(HPU_FUSED): $(call obj,fusedev/main.c) $(LIBFUSEDEV) $(LIBHPUSIM) $(LIBHPUTPC) \
		| $(DIRS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(call pkg_libs,fuse3) $(BLAS_LIBS) \
		$(LDLIBS_BASE)

# hpu-smi reads hl-smi's fields through libhlml, as hl-smi does
# (libhlml/libhlml.mk makes it depend on $(LIBHLML_SO))
$(HPU_SMI): $(call obj,$(SMI_SRCS)) $(TOOL_COMMON_OBJS) $(LIBHPUDRV_SO) | $(DIRS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(call obj,$(SMI_SRCS)) $(TOOL_COMMON_OBJS) \
		-L$(O)/lib -lhlml $(DRV_LINK) $(LDLIBS_BASE)

$(HPU_BENCH): $(call obj,$(BENCH_SRCS) firmware-sim/timing_model.c \
		common/hpu_blas_core.c) $(LIBHPUDRV_SO) | $(DIRS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(call obj,$(BENCH_SRCS) \
		firmware-sim/timing_model.c common/hpu_blas_core.c) $(DRV_LINK) \
		$(call pkg_libs,fuse3) $(BLAS_LIBS) $(LDLIBS_BASE)

# The SVG writer of the plots (common/hpu_plot.c, docs/plots.md)
PLOT_OBJ = $(call obj,common/hpu_plot.c)

$(HPU_CCL_TESTS): $(call obj,$(CCL_TOOL_SRCS)) $(TOOL_COMMON_OBJS) $(PLOT_OBJ) \
		$(call obj,firmware-sim/timing_model.c) \
		$(LIBHPUCCL_SO) $(LIBHPUDRV_SO) | $(DIRS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(call obj,$(CCL_TOOL_SRCS)) $(TOOL_COMMON_OBJS) \
		$(PLOT_OBJ) $(call obj,firmware-sim/timing_model.c) -L$(O)/lib -lhpuccl $(DRV_LINK) $(LDLIBS_BASE)

# The timing model alone (pure: libc and libm), not the whole libhpusim
$(HPU_MODEL_CHECK): $(call obj,$(MODEL_CHECK_SRCS) $(SIM_TIMING_SRCS)) | $(DIRS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_BASE)

# hpu-plot: its own main, the metrics reader of the training library and
# the busbw tables of hpu-ccl-tests, no library (no device needed)
PLOT_TOOL_OBJS = $(call obj,$(PLOT_TOOL_SRCS) trainer/lib/plot_metrics.c \
	tools/hpu-ccl-tests/plot.c) $(PLOT_OBJ)
$(HPU_PLOT): $(PLOT_TOOL_OBJS) | $(DIRS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(PLOT_TOOL_OBJS) $(LDLIBS_BASE)

# hpu-prof: reads traces with json-c, no library of the stack
$(HPU_PROF): $(call obj,$(PROF_TOOL_SRCS)) | $(DIRS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(call obj,$(PROF_TOOL_SRCS)) \
		$(call pkg_libs,json-c) $(LDLIBS_BASE)

# with the rule and BLAS files of common/ the cpu backend calls and the
# SVG writer of metrics.svg
$(LIBHPUTRAIN): $(call obj,$(TRAIN_SRCS) common/hpu_mme_check.c \
		$(BLAS_COMMON_SRCS) common/hpu_plot.c) | $(DIRS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(HPU_TRAIN): $(call obj,$(TRAIN_TOOL_SRCS)) $(LIBHPUTRAIN) $(LIBHPUTPC) \
		$(LIBHPUCCL_SO) $(LIBHPUDRV_SO) | $(DIRS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(call obj,$(TRAIN_TOOL_SRCS)) $(LIBHPUTRAIN) \
		$(LIBHPUTPC) -L$(O)/lib -lhpuccl $(DRV_LINK) $(TRAIN_LIBS) $(LDLIBS_BASE)

$(HPU_GENERATE): $(call obj,$(GEN_TOOL_SRCS)) $(LIBHPUTRAIN) $(LIBHPUTPC) \
		$(LIBHPUCCL_SO) $(LIBHPUDRV_SO) | $(DIRS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(call obj,$(GEN_TOOL_SRCS)) $(LIBHPUTRAIN) \
		$(LIBHPUTPC) -L$(O)/lib -lhpuccl $(DRV_LINK) $(TRAIN_LIBS) $(LDLIBS_BASE)

# Built only on request (bench-ccl): it needs Open MPI's mpicc.
$(HPU_MPI_REF): $(MPI_REF_SRC) | $(DIRS)
	$(call msg,MPICC,$@)
	$(Q)$(MPICC) -O2 -Wall -Wextra -Werror -o $@ $<

mpi-ref: $(HPU_MPI_REF)

# Each example links only the libraries it uses (as with pkg-config)
EXAMPLE_LIBS_gemm := -lm
EXAMPLE_LIBS_allreduce := -lhpuccl
$(O)/examples/%: $(O)/obj/examples/%.o $(LIBHPUDRV_SO) $(LIBHPUCCL_SO) | $(DIRS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(EXAMPLE_LIBS_$*) $(DRV_LINK)

examples: $(EXAMPLES)

# ---------------------------------------------------------------- tests
# Every test binary links the test helpers, the driver core, the simulator,
# the TPC kernel library and the static libhpudrv (so internal functions
# can be unit tested).
TEST_LINK = $(LIBHPUTEST) $(LIBFUSEDEV) $(LIBHPUSIM) \
	$(if $(TRAIN_SRCS),$(LIBHPUTRAIN)) $(LIBHPUTPC) \
	$(if $(CCL_SRCS),$(LIBHPUCCL_A)) $(LIBHPUDRV_A) \
	$(call pkg_libs,fuse3 libudev cmocka json-c) $(if $(TRAIN_SRCS),-lz) $(BLAS_LIBS) \
	$(LDLIBS_BASE)

# Test objects are reached only through the pattern rule below: keep them.
.SECONDARY: $(call obj,$(TEST_SRCS) $(TESTLIB_SRCS) $(EXAMPLE_SRCS))
# The helpers as an archive: a test links only the ones it uses (the libhpusim
# fixture would otherwise bring OpenBLAS and its threads into every test);
# with hpu-prof's trace reader, which the trace checker reads with
LIBHPUTEST := $(O)/lib/libhputest.a
$(LIBHPUTEST): $(call obj,$(TESTLIB_SRCS) tools/hpu-prof/load.c) | $(DIRS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(O)/tests/%: $(O)/obj/tests/%.o $(LIBHPUTEST) $(LIBFUSEDEV) \
		$(LIBHPUSIM) $(if $(TRAIN_SRCS),$(LIBHPUTRAIN)) $(LIBHPUTPC) \
		$(if $(CCL_SRCS),$(LIBHPUCCL_A)) $(LIBHPUDRV_A) | $(DIRS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(TEST_LINK)

# The umockdev test (kernel enumeration, uevents): libumockdev for it only;
# without it the test builds as a skip.
UMOCKDEV_TEST := tests/unit/test_hpudrv_udev
$(O)/obj/$(UMOCKDEV_TEST).o: ALL_CFLAGS += \
	$(patsubst -I%,-isystem %,$(call pkg_cflags,umockdev-1.0))
$(O)/$(UMOCKDEV_TEST): TEST_LINK += $(call pkg_libs,umockdev-1.0) -ldl

# hpu-bench's rule for ending a row (pure, tools/hpu-bench/stable.c)
BENCH_STABLE_OBJ = $(call obj,tools/hpu-bench/stable.c)
$(O)/tests/unit/test_bench_stable: $(BENCH_STABLE_OBJ)
$(O)/tests/unit/test_bench_stable: TEST_LINK += $(BENCH_STABLE_OBJ)

# hpu-bench dma's modeled columns (pure, tools/hpu-bench/model_dma.c)
BENCH_MODEL_OBJS = $(call obj,tools/hpu-bench/model_dma.c)
$(O)/tests/unit/test_bench_model: $(BENCH_MODEL_OBJS)
$(O)/tests/unit/test_bench_model: TEST_LINK += $(BENCH_MODEL_OBJS)

# The busbw tables of hpu-ccl-tests (pure, tools/hpu-ccl-tests/plot.c)
CCLT_PLOT_OBJ = $(call obj,tools/hpu-ccl-tests/plot.c)
$(O)/tests/unit/test_plot: $(CCLT_PLOT_OBJ)
$(O)/tests/unit/test_plot: TEST_LINK += $(CCLT_PLOT_OBJ)

# Every uapi header must compile on its own as C90.
UAPI_HDRS := $(sort $(wildcard uapi/*.h))
HEADER_CHECKS := $(patsubst uapi/%.h,$(O)/headers/%.ok,$(UAPI_HDRS))
$(O)/headers/%.ok: uapi/%.h | $(DIRS)
	$(call msg,HDRCHK,$<)
	$(Q)printf '#include "%s"\n' $(notdir $<) | $(CC) -std=c90 -Wall -Werror \
		-Iuapi $(call pkg_cflags,libdrm) -x c -fsyntax-only -
	$(Q)touch $@
# Every public header of libhpudrv (hpudrv.h and the per-area hpudrv_*.h it
# includes) must compile on its own, as a program sees it once installed.
DRV_PUB_HDRS := $(sort $(wildcard libhpudrv/include/hpu/*.h))
HEADER_CHECKS += $(patsubst libhpudrv/include/hpu/%.h,$(O)/headers/%.ok,\
	$(DRV_PUB_HDRS))
$(O)/headers/%.ok: libhpudrv/include/hpu/%.h | $(DIRS)
	$(call msg,HDRCHK,$<)
	$(Q)printf '#include "%s"\n' $(notdir $<) | $(CC) -std=c99 -Wall -Wextra \
		-Wstrict-prototypes -Werror -Iuapi -Ilibhpudrv/include/hpu \
		$(call pkg_cflags,libdrm) -x c -fsyntax-only -
	$(Q)touch $@
check-headers: $(HEADER_CHECKS)

# Layering: each case compiles '#include "header"' as a file of the named
# folder would be compiled (its include paths, its folder searched first).
# LAYER_OK must compile; LAYER_DENIED must fail for want of the header:
# another layer's private header, or a layer the folder is not built on.
LAYER_OK := libhputpc:tpc_lib.h libhputpc:hputpc.h libhputpc:hputpc_check.h \
	libhputpc:hpu_bf16.h firmware-sim:hpusim.h firmware-sim:hputpc.h \
	firmware-sim:hputpc_check.h fusedev:hpu_fw_if.h \
	fusedev:hpu_fused.h fusedev:hputpc_check.h libhpudrv:hputpc_check.h \
	libhpudrv:hpudrv_internal.h libhpudrv:hpudrv.h \
	libhpuccl:ccl_internal.h libhpuccl:hpuccl.h \
	trainer/lib:trainer_internal.h trainer/lib:hputpc.h \
	trainer/lib:hpuccl.h trainer/lib:hputpc_check.h \
	trainer/hpu-train:ht_trainer.h tools/hpu-model-check:hpusim_timing.h \
	tools/hpu-smi:hpudrv.h tools/hpu-smi:hlml.h tools/hpu-ccl-tests:hpuccl.h \
	tools/hpu-ccl-tests:hpusim_timing.h tools/hpu-bench:hpusim_timing.h \
	tools/hpu-plot:hpu_plot.h tools/hpu-plot:ht_metrics_plot.h \
	tools/hpu-plot:cclt_plot.h \
	tests/unit:hpusim.h tests/unit:tpc_lib.h examples:hpu/hpudrv.h examples:hpu/hpuccl.h \
	examples:hpu_accel.h examples:hpu_packets.h
LAYER_DENIED := trainer/lib:hpusim.h trainer/lib:hpu_fw_if.h \
	trainer/lib:tpc_lib.h trainer/lib:hpudrv_internal.h \
	trainer/lib:ccl_internal.h trainer/hpu-train:hpusim.h \
	trainer/hpu-train:hputpc.h libhputpc:hpusim.h libhputpc:hpu_fw_if.h \
	libhputpc:hpu_fused.h libhputpc:hpudrv.h libhputpc:hpudrv_internal.h \
	libhputpc:hpuccl.h libhputpc:ht_trainer.h \
	firmware-sim:tpc_lib.h firmware-sim:hpu_fused.h firmware-sim:hpudrv.h \
	fusedev:tpc_lib.h fusedev:hpudrv.h \
	libhpudrv:hpu_fw_if.h libhpudrv:hpu_fused.h libhpudrv:tpc_lib.h \
	libhpuccl:hpusim.h tools/hpu-smi:hpudrv_internal.h \
	tools/hpu-bench:hpusim.h tools/hpu-ccl-tests:ccl_internal.h \
	tools/hpu-model-check:hpusim.h tools/hpu-model-check:hpu_fw_if.h \
	tools/hpu-plot:hpuccl.h tools/hpu-plot:hpudrv.h \
	common:hpudrv.h common:hpu_fw_if.h common:hputpc.h \
	common:hputpc_check.h common:tpc_lib.h \
	examples:hpusim.h examples:hpu_fw_if.h examples:hpu_fused.h \
	examples:hpudrv_internal.h examples:ccl_internal.h examples:hputpc.h \
	examples:tpc_lib.h examples:ht_trainer.h examples:hpu_bf16.h \
	examples:hputpc_check.h examples:hpuccl.h
layer_dir = $(word 1,$(subst :, ,$(1)))
layer_cc = printf '\043include "%s"\n' $(word 2,$(subst :, ,$(1))) | \
	LC_ALL=C $(CC) $(call base_cflags,$(call layer_dir,$(1))/x.c) \
	$(call incs,$(call layer_dir,$(1))/x.c) \
	-iquote $(call layer_dir,$(1)) -x c -fsyntax-only -
check-layers:
	$(call msg,LAYERS,"$(words $(LAYER_OK) $(LAYER_DENIED)) cases")
	$(Q)$(foreach c,$(LAYER_OK),$(call layer_cc,$(c)) || \
		{ echo "check-layers: $(c) must compile"; exit 1; };)
	$(Q)$(foreach c,$(LAYER_DENIED),$(call layer_cc,$(c)) 2>&1 | \
		grep -qE 'No such file|file not found' || \
		{ echo "check-layers: $(c) must not be found"; exit 1; };)

# Names: every global a folder's objects define carries the folder's
# prefix, and no global is defined by two folders (tools/check-names,
# docs/architecture.md "Names").
check-names: all
	$(call msg,NAMES,$(O)/obj)
	$(Q)O=$(O) tools/check-names

# ---------------------------------------------------------------- fuzzing
# libFuzzer targets of the parsers of untrusted input (packet validator,
# ioctl decoders of both ABIs, ring consumer, scale-out receiver, rendezvous store, CSV
# loader, checkpoint loader), built with clang and AddressSanitizer/UBSan.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 30
FUZZ_FLAGS := $(filter-out -O2 -g,$(BASE_CFLAGS)) $(INC_TESTS) -g -O1 \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_TARGETS := $(O)/fuzz/fuzz_packets $(O)/fuzz/fuzz_ioctl \
	$(O)/fuzz/fuzz_ring $(O)/fuzz/fuzz_scaleout $(O)/fuzz/fuzz_store $(O)/fuzz/fuzz_csv \
	$(O)/fuzz/fuzz_ckpt $(O)/fuzz/fuzz_plot $(O)/fuzz/fuzz_hl_packets \
	$(O)/fuzz/fuzz_hl_ioctl

# Every header a target's sources may include: a changed header rebuilds
FUZZ_HDRS := $(wildcard uapi/*.h common/*.h fusedev/*.h firmware-sim/*.h \
	firmware-sim/include/*.h \
	libhputpc/*.h libhputpc/include/*.h tests/fuzz/*.h)

$(O)/fuzz:
	$(Q)mkdir -p $@

$(O)/fuzz/fuzz_packets: tests/fuzz/fuzz_packets.c $(wildcard fusedev/packets*.c) \
		$(SIM_COMMON_SRCS) $(TPC_SRCS) $(FUZZ_HDRS) | $(O)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(filter %.c,$^) -o $@ $(LDLIBS_BASE)

# The habanalabs personality's Gaudi2 packet translation, its output
# checked by the hpu validator (pure)
$(O)/fuzz/fuzz_hl_packets: tests/fuzz/fuzz_hl_packets.c fusedev/hl_packets.c fusedev/hl_sync.c \
		fusedev/hl_cp_dma.c fusedev/hl_qman.c tests/fuzz/fuzz_seed.h \
		$(wildcard fusedev/packets*.c) \
		$(SIM_COMMON_SRCS) $(TPC_SRCS) $(FUZZ_HDRS) | $(O)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(filter %.c,$^) -o $@ $(LDLIBS_BASE)

$(O)/fuzz/fuzz_ioctl: tests/fuzz/fuzz_ioctl.c $(FUSEDEV_SRCS) $(SIM_SRCS) \
		$(TPC_SRCS) $(COMMON_SRCS) $(FUZZ_HDRS) | $(O)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(filter %.c,$^) -o $@ \
		$(call pkg_libs,fuse3) $(BLAS_LIBS) $(LDLIBS_BASE)

# The habanalabs personality's ioctl decoder and handlers on an in-process
# Gaudi2 device model, as fuzz_ioctl for the hpu ABI
$(O)/fuzz/fuzz_hl_ioctl: tests/fuzz/fuzz_hl_ioctl.c $(FUSEDEV_SRCS) $(SIM_SRCS) \
		$(TPC_SRCS) $(COMMON_SRCS) $(FUZZ_HDRS) | $(O)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(filter %.c,$^) -o $@ \
		$(call pkg_libs,fuse3) $(BLAS_LIBS) $(LDLIBS_BASE)

# The ring consumer and the CS checks it shares with the ioctl path (pure)
$(O)/fuzz/fuzz_ring: tests/fuzz/fuzz_ring.c tests/fuzz/fuzz_seed.h \
		fusedev/ring_consume.c fusedev/cs_check.c $(FUZZ_HDRS) | $(O)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(filter %.c,$^) -o $@ $(LDLIBS_BASE)

$(O)/fuzz/fuzz_scaleout: tests/fuzz/fuzz_scaleout.c tests/fuzz/fuzz_seed.h \
		tests/lib/hpu_test_wire.h $(FUZZ_HDRS) \
		$(SIM_SRCS) $(TPC_SRCS) \
		$(SIM_COMMON_SRCS) $(BLAS_COMMON_SRCS) | $(O)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(filter %.c,$^) -o $@ $(BLAS_LIBS) \
		$(LDLIBS_BASE)

$(O)/fuzz/fuzz_store: tests/fuzz/fuzz_store.c tests/fuzz/fuzz_seed.h \
		libhpuccl/ccl_store.h libhpuccl/store_wire.h \
		libhpuccl/store_server.c libhpuccl/store_net.c | $(O)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(filter %.c,$^) -o $@ $(LDLIBS_BASE)

$(O)/fuzz/fuzz_csv: tests/fuzz/fuzz_csv.c tests/fuzz/fuzz_seed.h \
		trainer/lib/ht_data.h trainer/lib/data_csv.c \
		trainer/lib/data_dataset.c | $(O)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(filter %.c,$^) -o $@ -lz $(LDLIBS_BASE)

# The checkpoint loader needs a trainer: the whole training library and
# what it links (libhpuccl, libhpudrv, libhputpc for the cpu backend).
$(O)/fuzz/fuzz_ckpt: tests/fuzz/fuzz_ckpt.c tests/fuzz/fuzz_seed.h \
		trainer/lib/trainer_internal.h $(TRAIN_SRCS) $(CCL_SRCS) \
		$(DRV_SRCS) $(TPC_SRCS) $(COMMON_SRCS) | $(O)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(filter %.c,$^) -o $@ \
		$(call pkg_libs,libudev) $(TRAIN_LIBS) $(LDLIBS_BASE)

# The plot inputs: metrics.csv and busbw tables, and the SVG writer
$(O)/fuzz/fuzz_plot: tests/fuzz/fuzz_plot.c tests/fuzz/fuzz_seed.h \
		trainer/lib/ht_metrics_plot.h trainer/lib/plot_metrics.c \
		tools/hpu-ccl-tests/cclt_plot.h tools/hpu-ccl-tests/plot.c \
		common/hpu_plot.h common/hpu_plot.c | $(O)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(filter %.c,$^) -o $@ $(LDLIBS_BASE)

fuzz: $(FUZZ_TARGETS)

# Run every target for FUZZ_SECONDS on its own corpus (the targets seed it);
# a crash fails. The code's own stderr is closed (the parsers log every bad
# input); libFuzzer's and the sanitizers' reports still reach the log.
fuzz-run: fuzz
	$(Q)for t in $(FUZZ_TARGETS); do \
		mkdir -p $$t.corpus && \
		printf '  %-8s %s (%ss)\n' FUZZRUN $$t $(FUZZ_SECONDS) && \
		$$t -max_total_time=$(FUZZ_SECONDS) -timeout=20 \
			-rss_limit_mb=8192 -print_final_stats=1 \
			-close_fd_mask=2 $$t.corpus \
			> $$t.log 2>&1 || { tail -n 60 $$t.log; exit 1; }; \
		grep -E '^stat::number_of_executed_units' $$t.log; \
	done

deps:
	$(Q)tools/install-deps

test: deps
	$(Q)$(MAKE) --no-print-directory all check-headers check-layers \
		check-names $(TEST_BINS)
	$(Q)O=$(O) HPU_TEST_MAKE_VARS="SANITIZE='$(SANITIZE)' OPTFLAGS='$(OPTFLAGS)'" \
		tests/run-tests $(TEST_BINS)

# The rendezvous and the collectives on a slow, loaded machine: the 8-rank
# suites of test_ccl_collectives SOAK_RUNS times in a row in an ASan+UBSan
# build (SOAK_O) with two busy loops beside them, stopping at the first
# failure (tools/soak-ccl). Takes long: not part of test.
SOAK_RUNS ?= 20
SOAK_O ?= build-asan
soak-ccl: deps
	$(Q)$(MAKE) --no-print-directory SANITIZE=address,undefined \
		OPTFLAGS="-O1 -g" O=$(SOAK_O) all \
		$(SOAK_O)/tests/integration/test_ccl_collectives
	$(Q)O=$(SOAK_O) SOAK_RUNS=$(SOAK_RUNS) tools/soak-ccl

# ThreadSanitizer (docs/building.md, "ThreadSanitizer"): the model's and
# the driver's thread-heavy unit tests and the integration tests that
# drive the daemon's threads (rings, CS, streams and events, collectives),
# with hpu-fused built with TSan too, in a build directory of its own.
# Chosen to take about 5 minutes on CI's 2 cores (test_dma's 256 MiB
# copies alone would take more).
TSAN_O ?= build-tsan
TSAN_TESTS := unit/test_fork_guard unit/test_warn unit/test_fw_dma \
	unit/test_fw_faults unit/test_fw_memory unit/test_fw_nic \
	unit/test_fw_nic_pd unit/test_fw_nic_scaleout unit/test_fw_profiles \
	unit/test_fw_queues unit/test_fw_sched unit/test_fw_stall \
	unit/test_fw_chain \
	unit/test_mme_engine unit/test_ring_consume unit/test_uaccess_guard \
	unit/test_ioctl_dispatch unit/test_hpudrv_alloc unit/test_hpudrv_cb \
	unit/test_hpudrv_enum integration/test_ring \
	integration/test_ring_faults integration/test_ring_hostile \
	integration/test_ring_kill integration/test_cs_ioctl \
	integration/test_cs_faults integration/test_cs_sched \
	integration/test_streams integration/test_hpudrv_open \
	integration/test_hpudrv_ring integration/test_ccl_collectives
TSAN_BINS = $(addprefix $(TSAN_O)/tests/,$(TSAN_TESTS))
tsan: deps
	$(Q)$(MAKE) --no-print-directory SANITIZE=thread OPTFLAGS="-O1 -g" \
		O=$(TSAN_O) $(TSAN_O)/bin/hpu-fused $(TSAN_O)/bin/hpu-smi \
		$(TSAN_BINS)
	$(Q)O=$(TSAN_O) TSAN_OPTIONS="$${TSAN_OPTIONS:-halt_on_error=0 second_deadlock_stack=1}" \
		tests/run-tests $(TSAN_BINS)

run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)O=$(O) tools/run-demo

# hl-thunk-open's own test binaries against the habanalabs personality
# (docs/habanalabs.md): built from HLTHUNK_SRC in $(O)/hlthunk, never here;
# skipped, with the reason, when HLTHUNK_SRC is unset
hlthunk-check: all
	$(Q)O=$(O) HLTHUNK_SRC="$(HLTHUNK_SRC)" HLTHUNK_UAPI="$(HLTHUNK_UAPI)" \
		$(if $(HLTHUNK_TESTS),HLTHUNK_TESTS="$(HLTHUNK_TESTS)") \
		tools/hlthunk-check

bench-ioctl: all
	$(Q)O=$(O) tools/run-bench ioctl

bench-cs: all
	$(Q)O=$(O) tools/run-bench cs

bench-dma: all
	$(Q)O=$(O) tools/run-bench dma

bench-gemm: all
	$(Q)O=$(O) tools/run-bench gemm

bench-tpc: all
	$(Q)O=$(O) tools/run-bench tpc

bench-ccl: all mpi-ref
	$(Q)O=$(O) tools/run-bench ccl

bench-rings: all mpi-ref
	$(Q)O=$(O) tools/run-bench rings

bench-train: all
	$(Q)O=$(O) tools/run-bench train

bench-train-ddp: all
	$(Q)O=$(O) tools/run-bench train-ddp

bench-gpt: all
	$(Q)O=$(O) tools/run-bench gpt

# The timing model against the published figures of docs/timing-model.md
# ("Checks"): prints the table, fails when a figure leaves its tolerance
# or when the docs' table is not what the model prints now
model-check: $(HPU_MODEL_CHECK)
	$(Q)$(HPU_MODEL_CHECK)
	$(Q)$(HPU_MODEL_CHECK) --markdown | grep '^| [a-z]' | \
		while IFS= read -r row; do grep -qxF -- "$$row" docs/timing-model.md || \
		{ echo "model-check: docs/timing-model.md lacks: $$row"; exit 1; }; \
		done

# ---------------------------------------------------------------- install
# What `make install` puts under $(DESTDIR) and `make uninstall` removes
# again, file by file (docs/install.md lists the tree). udev and systemd
# read $(PREFIX)/lib/... for PREFIX=/usr and /usr/local; with another
# prefix, point UDEVRULESDIR, SYSTEMDUNITDIR and SYSUSERSDIR at /etc/...
MANDIR ?= $(PREFIX)/share/man
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d

INST_HDRS := $(sort $(wildcard uapi/*.h libhpudrv/include/hpu/*.h \
	libhpuccl/include/hpu/*.h))
INST_MAN1 := $(sort $(wildcard docs/man/*.1))
INST_MAN8 := $(sort $(wildcard docs/man/*.8))
INST_DATA := trainer/data/digits.csv.gz trainer/data/fortunes.txt.gz \
	trainer/data/README.md
INST_BINS := $(filter-out $(HPU_FUSED),$(TOOLS))
# Every file and link, relative to $(DESTDIR)
INST_FILES = $(LIBDIR)/libhpudrv.so.$(DRV_VERSION) $(LIBDIR)/$(DRV_SONAME) \
	$(LIBDIR)/libhpudrv.so $(LIBDIR)/pkgconfig/libhpudrv.pc \
	$(LIBDIR)/libhpuccl.so.$(CCL_VERSION) $(LIBDIR)/$(CCL_SONAME) \
	$(LIBDIR)/libhpuccl.so $(LIBDIR)/pkgconfig/libhpuccl.pc \
	$(addprefix $(INCLUDEDIR)/hpu/,$(notdir $(INST_HDRS))) \
	$(SBINDIR)/hpu-fused $(addprefix $(BINDIR)/,$(notdir $(INST_BINS))) \
	$(addprefix $(MANDIR)/man1/,$(notdir $(INST_MAN1))) \
	$(addprefix $(MANDIR)/man8/,$(notdir $(INST_MAN8))) \
	$(addprefix $(HPU_DATADIR)/,$(notdir $(INST_DATA))) \
	$(UDEVRULESDIR)/60-hpu.rules $(SYSTEMDUNITDIR)/hpu-fused.service \
	$(SYSUSERSDIR)/hpu.conf
# Directories only hpu uses, removed when uninstall leaves them empty
INST_OWN_DIRS = $(INCLUDEDIR)/hpu $(HPU_DATADIR) $(dir $(HPU_DATADIR))

install: all
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -d $(addprefix $(DESTDIR),$(LIBDIR)/pkgconfig \
		$(INCLUDEDIR)/hpu $(BINDIR) $(SBINDIR) $(MANDIR)/man1 \
		$(MANDIR)/man8 $(HPU_DATADIR) $(UDEVRULESDIR) \
		$(SYSTEMDUNITDIR) $(SYSUSERSDIR))
	$(Q)install -m 0755 $(LIBHPUDRV_SO) $(LIBHPUCCL_SO) $(DESTDIR)$(LIBDIR)/
	$(Q)ln -sf libhpudrv.so.$(DRV_VERSION) $(DESTDIR)$(LIBDIR)/$(DRV_SONAME)
	$(Q)ln -sf $(DRV_SONAME) $(DESTDIR)$(LIBDIR)/libhpudrv.so
	$(Q)ln -sf libhpuccl.so.$(CCL_VERSION) $(DESTDIR)$(LIBDIR)/$(CCL_SONAME)
	$(Q)ln -sf $(CCL_SONAME) $(DESTDIR)$(LIBDIR)/libhpuccl.so
	$(Q)install -m 0644 $(LIBHPUDRV_PC) $(LIBHPUCCL_PC) \
		$(DESTDIR)$(LIBDIR)/pkgconfig/
	$(Q)install -m 0644 $(INST_HDRS) $(DESTDIR)$(INCLUDEDIR)/hpu/
	$(Q)install -m 0755 $(HPU_FUSED) $(DESTDIR)$(SBINDIR)/
	$(Q)install -m 0755 $(INST_BINS) $(DESTDIR)$(BINDIR)/
	$(Q)install -m 0644 $(INST_MAN1) $(DESTDIR)$(MANDIR)/man1/
	$(Q)install -m 0644 $(INST_MAN8) $(DESTDIR)$(MANDIR)/man8/
	$(Q)install -m 0644 $(INST_DATA) $(DESTDIR)$(HPU_DATADIR)/
	$(Q)install -m 0644 tools/udev/60-hpu.rules $(DESTDIR)$(UDEVRULESDIR)/
	$(Q)sed -e 's|@SBINDIR@|$(SBINDIR)|g' tools/systemd/hpu-fused.service.in \
		> $(DESTDIR)$(SYSTEMDUNITDIR)/hpu-fused.service
	$(Q)chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/hpu-fused.service
	$(Q)install -m 0644 tools/systemd/hpu.sysusers \
		$(DESTDIR)$(SYSUSERSDIR)/hpu.conf

uninstall:
	$(call msg,UNINST,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(addprefix $(DESTDIR),$(INST_FILES))
	$(Q)for d in $(addprefix $(DESTDIR),$(INST_OWN_DIRS)); do \
		[ ! -d "$$d" ] || rmdir --ignore-fail-on-non-empty "$$d"; done

# ---------------------------------------------------------------- style
FORMAT_SRCS = $(sort $(wildcard uapi/*.h firmware-sim/*.[ch] firmware-sim/include/*.h \
	fusedev/*.[ch] \
	libhputpc/*.[ch] libhputpc/include/*.h \
	common/*.[ch] libhpudrv/*.[ch] libhpudrv/include/hpu/*.h tools/*/*.[ch] \
	libhpuccl/*.[ch] libhpuccl/include/hpu/*.h trainer/lib/*.[ch] \
	trainer/hpu-train/*.[ch] trainer/hpu-generate/*.[ch] examples/*.c \
	tests/*/*.[ch]))
lint:
	$(call msg,LINT,$(words $(FORMAT_SRCS)) files)
	$(Q)$(CLANG_FORMAT) --dry-run --Werror $(FORMAT_SRCS)

format:
	$(Q)$(CLANG_FORMAT) -i $(FORMAT_SRCS)

clean:
	$(Q)rm -rf $(O)

FORCE:

include libhlml/libhlml.mk

-include $(shell find $(O)/obj $(O)/pic -name '*.d' 2>/dev/null)

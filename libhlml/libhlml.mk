# SPDX-License-Identifier: MIT
#
# libhlml: the HLML management API over libhpudrv (docs/hlml.md).
# Included by the top-level Makefile, after its variables and rules.
#
#   libhlml.so.$(HLML_VERSION) (soname libhlml.so.1), hlml.pc, hlml.h
#   make install COMPAT_HABANA=1   also /usr/lib/habanalabs/libhlml.so
#                                  (a link, where HLML users look for it)
#                                  and /usr/bin/hl-smi (a link to hpu-smi,
#                                  which then behaves as hl-smi)

HLML_VERSION := $(call map_version,libhlml/libhlml.map)
HLML_SONAME := libhlml.so.$(firstword $(subst ., ,$(HLML_VERSION)))
HLML_SRCS := $(sort $(wildcard libhlml/*.c))
HLML_OBJS := $(patsubst %.c,$(O)/obj/%.o,$(HLML_SRCS))
LIBHLML_SO := $(O)/lib/libhlml.so.$(HLML_VERSION)
LIBHLML_PC := $(O)/lib/pkgconfig/hlml.pc
HLML_PATHS_STAMP := $(O)/lib/pkgconfig/hlml-paths.stamp
INC_libhlml := -Ilibhlml/include $(INC_DRV)
# the tests are white-box: hlml.h beside every other layer's header
INC_tests/integration += -Ilibhlml/include
INC_tests/unit += -Ilibhlml/include
COMPAT_HABANA ?=
HABANA_LIBDIR ?= /usr/lib/habanalabs
HABANA_BINDIR ?= /usr/bin

all: $(LIBHLML_SO) $(LIBHLML_PC)

# hpu-smi reads hl-smi's query fields through libhlml
$(HPU_SMI): $(LIBHLML_SO)

$(O)/obj/libhlml/%.o: libhlml/%.c $(FLAGS_STAMP) | $(DIRS)
	$(call msg,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -DHLML_BUILD \
		-DHLML_LIB_VERSION='"$(HLML_VERSION)"' -MMD -MP -c $< -o $@

# libhpudrv is found where it is installed (LIBDIR) and beside libhlml
# (the build tree) also when a program dlopen()s libhlml by path, e.g.
# through the link /usr/lib/habanalabs/libhlml.so ($ORIGIN is the link's
# directory then), without ld.so.conf knowing LIBDIR
$(LIBHLML_SO): $(HLML_OBJS) libhlml/libhlml.map libhlml/libhlml.mk $(LIBHPUDRV_SO) \
		$(HLML_PATHS_STAMP) | $(DIRS)
	$(call msg,LD,$@)
	$(Q)$(CC) -shared $(LDFLAGS) -Wl,-soname,$(HLML_SONAME) \
		-Wl,--version-script=libhlml/libhlml.map -Wl,--no-undefined \
		-Wl,-rpath,'$$ORIGIN:$(LIBDIR)' -o $@ $(HLML_OBJS) -L$(O)/lib -lhpudrv \
		$(LDLIBS_BASE)
	$(Q)ln -sf libhlml.so.$(HLML_VERSION) $(O)/lib/$(HLML_SONAME)
	$(Q)ln -sf $(HLML_SONAME) $(O)/lib/libhlml.so

$(HLML_PATHS_STAMP): FORCE | $(DIRS)
	$(Q)echo '$(PREFIX) $(LIBDIR) $(INCLUDEDIR) $(HLML_VERSION)' | cmp -s - $@ || \
		echo '$(PREFIX) $(LIBDIR) $(INCLUDEDIR) $(HLML_VERSION)' > $@

$(LIBHLML_PC): libhlml/hlml.pc.in $(HLML_PATHS_STAMP) | $(DIRS)
	$(call msg,GEN,$@)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(HLML_VERSION)|g' \
		$< > $@

# hlml.h compiles on its own, as C99 and as C++ would see it
$(O)/headers/hlml.ok: libhlml/include/hlml.h | $(DIRS)
	$(call msg,HDRCHK,$<)
	$(Q)printf '#include "hlml.h"\n' | $(CC) -std=c99 -Wall -Wextra \
		-Wstrict-prototypes -Werror -Ilibhlml/include -x c -fsyntax-only -
	$(Q)touch $@
check-headers: $(O)/headers/hlml.ok

# Tests of libhlml link it (and libhpudrv) as a program does: shared;
# so does the failure-path walk, a monitor of HLML events among the tools
HLML_TEST_BINS := $(patsubst tests/%.c,$(O)/tests/%,\
	$(wildcard tests/integration/test_hlml*.c \
		tests/integration/test_failure_walk.c))
$(HLML_TEST_BINS): $(LIBHLML_SO)
$(HLML_TEST_BINS): TEST_LINK = $(LIBHPUTEST) -L$(O)/lib -lhlml -lhpudrv \
	-Wl,-rpath,'$$ORIGIN/../../lib' $(call pkg_libs,cmocka) $(LDLIBS_BASE)

# examples/hlml_monitor is an HLML program: it links libhlml (the other
# examples do not), as `pkg-config --libs hlml` would have it
$(O)/examples/hlml_monitor: $(LIBHLML_SO)
EXAMPLE_LIBS_hlml_monitor := -lhlml

# The kernel-device test runs on a umockdev test bed (a skip without it)
HLML_UDEV_TEST := tests/integration/test_hlml_udev
$(O)/obj/$(HLML_UDEV_TEST).o: ALL_CFLAGS += \
	$(patsubst -I%,-isystem %,$(call pkg_cflags,umockdev-1.0))
$(O)/$(HLML_UDEV_TEST): TEST_LINK += $(call pkg_libs,umockdev-1.0) -ldl

FORMAT_SRCS += $(wildcard libhlml/*.[ch] libhlml/include/*.h)

install: install-hlml
uninstall: uninstall-hlml
.PHONY: install-hlml uninstall-hlml

install-hlml: $(LIBHLML_SO) $(LIBHLML_PC)
	$(Q)install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	$(Q)install -m 0755 $(LIBHLML_SO) $(DESTDIR)$(LIBDIR)/
	$(Q)ln -sf libhlml.so.$(HLML_VERSION) $(DESTDIR)$(LIBDIR)/$(HLML_SONAME)
	$(Q)ln -sf $(HLML_SONAME) $(DESTDIR)$(LIBDIR)/libhlml.so
	$(Q)install -m 0644 $(LIBHLML_PC) $(DESTDIR)$(LIBDIR)/pkgconfig/
	$(Q)install -m 0644 libhlml/include/hlml.h $(DESTDIR)$(INCLUDEDIR)/
ifeq ($(COMPAT_HABANA),1)
	$(Q)install -d $(DESTDIR)$(HABANA_LIBDIR)
	$(Q)ln -sf $(LIBDIR)/$(HLML_SONAME) $(DESTDIR)$(HABANA_LIBDIR)/libhlml.so
	$(Q)install -d $(DESTDIR)$(HABANA_BINDIR)
	$(Q)ln -sf $(BINDIR)/hpu-smi $(DESTDIR)$(HABANA_BINDIR)/hl-smi
endif

uninstall-hlml:
	$(Q)rm -f $(DESTDIR)$(LIBDIR)/libhlml.so.$(HLML_VERSION) \
		$(DESTDIR)$(LIBDIR)/$(HLML_SONAME) $(DESTDIR)$(LIBDIR)/libhlml.so \
		$(DESTDIR)$(LIBDIR)/pkgconfig/hlml.pc $(DESTDIR)$(INCLUDEDIR)/hlml.h
	$(Q)if [ -L $(DESTDIR)$(HABANA_LIBDIR)/libhlml.so ]; then \
		rm -f $(DESTDIR)$(HABANA_LIBDIR)/libhlml.so; \
		rmdir --ignore-fail-on-non-empty $(DESTDIR)$(HABANA_LIBDIR); fi
	$(Q)if [ -L $(DESTDIR)$(HABANA_BINDIR)/hl-smi ] && \
	    [ "$$(readlink $(DESTDIR)$(HABANA_BINDIR)/hl-smi)" = $(BINDIR)/hpu-smi ]; then \
		rm -f $(DESTDIR)$(HABANA_BINDIR)/hl-smi; fi

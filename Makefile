# srv6d - userspace SRv6 endpoint processor.  Plain Makefile.
#
#   make                    build srv6d, srv6ctl, the libraries and the test programs
#                           (developer build: -Werror)
#   make progs              only what `make install` installs
#   make check              deps, build, unit tests, bounded fuzz run, namespace tests
#   make SAN=address,undefined check   |   make SAN=thread check
#   make CHECK_SUITES="unit net" check  only some suites (vectors unit fuzz net reinject)
#   make reinject           the reinjection suite only (tests/reinject/; sets
#                           net.netfilter.nf_hooks_lwtunnel=1 for good:
#                           docs/REINJECTION.md)
#   make fuzz               build libFuzzer targets (clang)
#   make fuzz-long          run each fuzz target for FUZZ_LONG_SECONDS
#   make install            honours PREFIX, DESTDIR, SBINDIR, SYSCONFDIR, MANDIR,
#                           SYSTEMDUNITDIR, CPPFLAGS/CFLAGS/LDFLAGS; builds no
#                           test program; implies WERROR=0
#   WERROR=0                no -Werror (packagers, newer compilers)
#   make BUILD=dir ...      out-of-tree objects (default: build)
#   V=1                     show commands

VERSION    := 0.1
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
SBINDIR    ?= $(PREFIX)/sbin
SYSCONFDIR ?= /etc
MANDIR     ?= $(PREFIX)/share/man
PKG_CONFIG ?= pkg-config
SYSTEMDUNITDIR ?= $(shell $(PKG_CONFIG) --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)

BUILD ?= build
CC    ?= cc
SAN   ?=
FUZZ_SECONDS ?= 20
FUZZ_LONG_SECONDS ?= 3600

ifeq ($(V),1)
Q :=
else
Q := @
endif

PKGS_NFQ  := libnetfilter_queue libmnl
PKGS_NL   := libnl-3.0 libnl-route-3.0
PKGS_URCU := liburcu-qsbr liburcu
PKGS_TEST := cmocka
# SRH HMAC digests (src/core/hmac.c)
PKGS_CRYPTO := libcrypto

# -Werror is for the developer build only: a packager's newer compiler must
# not fail the build on a new warning.
WERROR ?= $(if $(filter install progs,$(MAKECMDGOALS)),0,1)
WARN := -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -Wstrict-prototypes -Wmissing-prototypes \
	-Wmissing-declarations -Wold-style-definition -Wformat=2 -Wshadow \
	-Wno-unused-parameter
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 $(WARN) -Iinclude -Isrc -D_GNU_SOURCE -MMD -MP -pthread \
	$(CPPFLAGS) -DSYSCONFDIR='"$(SYSCONFDIR)"'
ifneq ($(SAN),)
override CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
override LDFLAGS += -fsanitize=$(SAN)
endif
override LDFLAGS += -pthread

pc_cflags = $(shell $(PKG_CONFIG) --cflags $(1))
pc_libs   = $(shell $(PKG_CONFIG) --libs $(1))

# Pure packet engine: no I/O, no library dependencies.
CORE_SRCS  := $(sort $(wildcard src/core/*.c))
# RCU route cache (liburcu-qsbr).
CACHE_SRCS := $(sort $(wildcard src/cache/*.c))
# The srv6d.conf grammar, shared by srv6d and srv6ctl: reads files (the
# conf, rt_tables, HMAC keys), never talks to the kernel, never logs.
CONF_SRCS  := $(sort $(wildcard src/conf/*.c))
# The srv6d program's own files: they share struct daemon (src/daemon/daemon.h):
# start-up and loop, reload/apply, the periodic watch, the counters' view, and
# the control socket's command handlers.
SRV6D_SRCS := src/daemon/main.c src/daemon/apply.c src/daemon/watch.c src/daemon/counters.c \
	src/daemon/fpm_merge.c \
	$(sort $(wildcard src/daemon/ctl_*.c))
# The daemon's rooms (docs/ARCHITECTURE.md), lowest first: the logging
# edge they all share, what srv6d asks of the kernel, what touches a packet,
# the control socket, the daemon's life.  Their modules (all but SRV6D_SRCS)
# go into libsrv6d.a, shared by srv6d, srv6ctl (the control protocol), tests
# and bench.
ROOMS      := base kernel datapath control daemon
D_SRCS     := $(sort $(filter-out $(SRV6D_SRCS),$(wildcard $(ROOMS:%=src/%/*.c))))
CTL_SRCS   := $(sort $(wildcard src/ctl/*.c))

CORE_OBJS  := $(CORE_SRCS:%.c=$(BUILD)/%.o)
CONF_OBJS  := $(CONF_SRCS:%.c=$(BUILD)/%.o)
CACHE_OBJS := $(CACHE_SRCS:%.c=$(BUILD)/%.o)
D_OBJS     := $(D_SRCS:%.c=$(BUILD)/%.o)
SRV6D_OBJS := $(SRV6D_SRCS:%.c=$(BUILD)/%.o)
CTL_OBJS   := $(CTL_SRCS:%.c=$(BUILD)/%.o)

LIBCORE  := $(BUILD)/libsrv6core.a
LIBCACHE := $(BUILD)/libsrv6cache.a
LIBCONF  := $(BUILD)/libsrv6conf.a
LIBD     := $(BUILD)/libsrv6d.a

URCU_CFLAGS := $(call pc_cflags,$(PKGS_URCU))
URCU_LIBS   := $(call pc_libs,$(PKGS_URCU))
D_CFLAGS    := $(call pc_cflags,$(PKGS_NFQ) $(PKGS_NL) $(PKGS_URCU))
D_LIBS      := $(call pc_libs,$(PKGS_NFQ) $(PKGS_NL) $(PKGS_URCU))
TEST_CFLAGS := $(call pc_cflags,$(PKGS_TEST))
TEST_LIBS   := $(call pc_libs,$(PKGS_TEST))
CRYPTO_CFLAGS := $(call pc_cflags,$(PKGS_CRYPTO))
CRYPTO_LIBS   := $(call pc_libs,$(PKGS_CRYPTO))

# Unit tests: tests/unit/test_<name>.c -> $(BUILD)/tests/test_<name>, linked
# with every library (unused archive members are not pulled in).
UNIT_SRCS  := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS  := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

BENCH_SRCS := $(sort $(wildcard bench/*.c))
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)
# tc programs of the benchmarks: bench/bpf/<name>.c -> $(BUILD)/bench/<name>.bpf.o
BPF_SRCS   := $(sort $(wildcard bench/bpf/*.c))
BPF_OBJS   := $(BPF_SRCS:bench/bpf/%.c=$(BUILD)/bench/%.bpf.o)
BPF_CC     ?= clang

# Helper programs of the namespace tests: tests/net/tools/<name>.c ->
# $(BUILD)/tests/net/<name>, linked like bench programs.
NETTOOL_SRCS := $(sort $(wildcard tests/net/tools/*.c))
NETTOOL_BINS := $(NETTOOL_SRCS:tests/net/tools/%.c=$(BUILD)/tests/net/%)

PROGS := $(if $(wildcard src/daemon/main.c),$(BUILD)/srv6d) \
	 $(if $(CTL_SRCS),$(BUILD)/srv6ctl)

.SECONDARY:
.PHONY: all progs check unit fuzz fuzz-run fuzz-long nettest reinject deps install clean bench FORCE
all: $(LIBCORE) $(LIBCACHE) $(LIBCONF) $(if $(D_SRCS),$(LIBD)) $(PROGS) $(UNIT_BINS) $(BENCH_BINS) \
	$(BPF_OBJS) $(NETTOOL_BINS)

$(BUILD)/src/core/%.o: src/core/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(CRYPTO_CFLAGS) -c -o $@ $<

$(BUILD)/src/conf/%.o: src/conf/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(CRYPTO_CFLAGS) $(call pc_cflags,libmnl) -c -o $@ $<

$(BUILD)/src/cache/%.o: src/cache/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(URCU_CFLAGS) -c -o $@ $<

# The rooms' objects (the more specific rules above take src/core,
# src/conf and src/cache).
$(BUILD)/src/%.o: src/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(D_CFLAGS) $(CRYPTO_CFLAGS) -c -o $@ $<

$(BUILD)/src/ctl/%.o: src/ctl/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(LIBCORE): $(CORE_OBJS)
$(LIBCACHE): $(CACHE_OBJS)
$(LIBCONF): $(CONF_OBJS)
$(LIBD): $(D_OBJS)
$(LIBCORE) $(LIBCACHE) $(LIBCONF) $(LIBD):
	@mkdir -p $(@D)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# Highest room first, so each archive's references resolve in the ones after
# it: the conf grammar never calls up into the daemon's rooms (make links it
# after libsrv6d.a, and a call upward would not link).
ALL_LIBS := $(if $(D_SRCS),$(LIBD)) $(LIBCONF) $(LIBCACHE) $(LIBCORE)

progs: $(PROGS)

# --version: git describe when built from a checkout (tags, else VERSION-g<hash>),
# else VERSION.  Written only when it changes, so main.o rebuilds only then.
GIT_DESCRIBE := $(shell git -C $(CURDIR) rev-parse --is-inside-work-tree >/dev/null 2>&1 && \
	{ git -C $(CURDIR) describe --tags --dirty 2>/dev/null || \
	  echo "$(VERSION)-g$$(git -C $(CURDIR) describe --always --dirty 2>/dev/null)"; })
FULL_VERSION := $(or $(GIT_DESCRIBE),$(VERSION))
$(BUILD)/version.h: FORCE
	@mkdir -p $(@D)
	@echo '#define SRV6D_VERSION "$(FULL_VERSION)"' >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
$(BUILD)/src/daemon/main.o $(BUILD)/src/daemon/ctl_status.o: $(BUILD)/version.h
$(BUILD)/src/daemon/main.o $(BUILD)/src/daemon/ctl_status.o: override CFLAGS += -include $(BUILD)/version.h

$(BUILD)/srv6d: $(SRV6D_OBJS) $(ALL_LIBS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(D_LIBS) $(URCU_LIBS) $(CRYPTO_LIBS)

# srv6ctl: its own objects, the protocol (libsrv6d's ctl.o), the grammar.
$(BUILD)/srv6ctl: $(CTL_OBJS) $(ALL_LIBS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(D_LIBS) $(URCU_LIBS) $(CRYPTO_LIBS)

$(BUILD)/tests/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -Wno-missing-prototypes -Wno-missing-declarations $(TEST_CFLAGS) $(D_CFLAGS) -c -o $@ $<

$(BUILD)/tests/test_%: $(BUILD)/tests/test_%.o $(ALL_LIBS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(TEST_LIBS) $(D_LIBS) $(URCU_LIBS) $(CRYPTO_LIBS)

$(BUILD)/bench/%: bench/%.c $(ALL_LIBS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(D_CFLAGS) -o $@ $(filter-out %.h,$^) $(D_LIBS) $(URCU_LIBS) $(CRYPTO_LIBS)

# (the multiarch directory holds asm/types.h; no sanitizer, no CFLAGS: BPF)
$(BUILD)/bench/%.bpf.o: bench/bpf/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  BPF     $<")
	$(Q)$(BPF_CC) -O2 -g0 -target bpf -Wall -Werror \
		-I/usr/include/$(shell $(CC) -dumpmachine) -c -o $@ $<

# the reference consumers' shared round trip
$(BUILD)/bench/nfq_floor $(BUILD)/bench/nfq_end $(BUILD)/bench/nfq_behav: bench/nfq_ref.h

$(BUILD)/tests/net/%: tests/net/tools/%.c $(ALL_LIBS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(D_CFLAGS) -o $@ $^ $(D_LIBS) $(URCU_LIBS) $(CRYPTO_LIBS)

# ---- fuzzing (clang libFuzzer, always with ASan+UBSan) ----
# A target that needs daemon code #includes the .c file (as wireguard-tools does).
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_CC   ?= clang
FUZZ_FLAGS := -g -O1 -std=gnu11 -Iinclude -D_GNU_SOURCE -Wall -Wextra -Werror \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

fuzz: $(FUZZ_BINS)
# Targets may #include daemon sources: depend on them and on every header.
# fuzz_nfq includes nfq.c, which needs libmnl and libnetfilter_queue.
FUZZ_NFQ_CFLAGS := $(call pc_cflags,$(PKGS_NFQ))
FUZZ_NFQ_LIBS   := $(call pc_libs,$(PKGS_NFQ))
$(BUILD)/fuzz/%: tests/fuzz/%.c $(CORE_SRCS) $(wildcard $(ROOMS:%=src/%/*.[ch]) src/conf/*.[ch] include/srv6d/*.h)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_NFQ_CFLAGS) -o $@ $< $(CORE_SRCS) $(FUZZ_NFQ_LIBS) $(CRYPTO_LIBS)

fuzz-run: fuzz
	$(Q)tests/fuzz/run.sh $(BUILD)/fuzz $(FUZZ_SECONDS)
fuzz-long: fuzz
	$(Q)tests/fuzz/run.sh $(BUILD)/fuzz $(FUZZ_LONG_SECONDS)

# ---- tests ----
deps:
	$(Q)scripts/deps.sh

unit: $(UNIT_BINS)
	$(Q)tests/run_unit.sh $(UNIT_BINS)

nettest: all
	$(Q)rc=0; for t in tests/net/test_*.sh; do BUILD=$(abspath $(BUILD)) $$t || rc=1; done; exit $$rc

# CHECK_SUITES picks suites (tests/check.sh); CI=true or STRICT=1 makes a
# missing prerequisite a failure.
check: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)BUILD=$(abspath $(BUILD)) SAN="$(SAN)" FUZZ_SECONDS=$(FUZZ_SECONDS) \
		$(if $(CHECK_SUITES),CHECK_SUITES="$(CHECK_SUITES)") tests/check.sh

# The reinjection suite alone, on this kernel; with KERNEL=path/to/bzImage
# (and MODULES=dir holding lib/modules/VERSION, or MODULES=none for a kernel
# with what it needs built in) in a QEMU VM booting that kernel on this
# machine's root: how a seg6/netfilter developer runs it against the kernel
# they are changing (tests/vm/run.sh, docs/REINJECTION.md).
reinject: all
	$(Q)$(if $(KERNEL),KERNEL="$(abspath $(KERNEL))" $(if $(MODULES),MODULES="$(MODULES)") \
		VM_TIMEOUT=$(or $(VM_TIMEOUT),3600) tests/vm/run.sh env) \
		BUILD=$(abspath $(BUILD)) CHECK_SUITES=reinject \
		$(if $(CHECK_REINJECT),CHECK_REINJECT="$(CHECK_REINJECT)") tests/check.sh

bench: all
	$(Q)BUILD=$(abspath $(BUILD)) bench/run.sh

clean:
	rm -rf $(BUILD)

# Installs the programs, the example conf, the man pages and the unit (with
# SBINDIR and SYSCONFDIR substituted); never the test programs.
MAN5 := $(wildcard man/*.5)
MAN8 := $(wildcard man/*.8)
install: progs
	install -d $(DESTDIR)$(SYSCONFDIR)/srv6d
	$(if $(wildcard $(BUILD)/srv6d),install -D -m 0755 $(BUILD)/srv6d $(DESTDIR)$(SBINDIR)/srv6d)
	$(if $(wildcard $(BUILD)/srv6ctl),install -D -m 0755 $(BUILD)/srv6ctl $(DESTDIR)$(BINDIR)/srv6ctl)
	install -m 0644 conf/srv6d.conf $(DESTDIR)$(SYSCONFDIR)/srv6d/srv6d.conf.example
	$(if $(MAN5),install -d $(DESTDIR)$(MANDIR)/man5 && install -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/)
	$(if $(MAN8),install -d $(DESTDIR)$(MANDIR)/man8 && install -m 0644 $(MAN8) $(DESTDIR)$(MANDIR)/man8/)
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		systemd/srv6d.service.in >$(DESTDIR)$(SYSTEMDUNITDIR)/srv6d.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/srv6d.service

DEPS := $(wildcard $(BUILD)/src/*/*.d $(BUILD)/tests/*.d)
-include $(DEPS)

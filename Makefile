# kdist build.  `make` builds build/kdist; `make demo`, `make check` and
# `make bench` first install what a fresh Debian 12 machine lacks.
CLANG ?= clang
BPFTOOL ?= bpftool

# ---- Target architecture -------------------------------------------------
# ARCH names the target as the kernel's make does (x86, arm64; x86_64,
# amd64 and aarch64 are accepted too), default this machine's.  Everything
# that differs by architecture is chosen here, once: the compiler, the build
# folder (the native build stays build/, a cross build goes to build/ARCH/),
# the vmlinux.h the BPF objects are compiled against (vmlinux/ARCH/), the
# pt_regs layout bpf_tracing.h reads arguments from (__TARGET_ARCH_*), and
# how build steps run a target program (the man page is made by kdist).
HOST_ARCH := $(patsubst x86_64,x86,$(patsubst aarch64,arm64,$(shell uname -m)))
ARCH ?= $(HOST_ARCH)
override ARCH := $(patsubst x86_64,x86,$(patsubst amd64,x86,$(patsubst aarch64,arm64,$(ARCH))))
ifeq ($(filter x86 arm64,$(ARCH)),)
$(error ARCH=$(ARCH): kdist builds for x86 (x86_64) and arm64 (aarch64))
endif
TRIPLET_x86 := x86_64-linux-gnu
TRIPLET_arm64 := aarch64-linux-gnu
QEMU_x86 := qemu-x86_64-static
QEMU_arm64 := qemu-aarch64-static
TRIPLET := $(TRIPLET_$(ARCH))
ifeq ($(ARCH),$(HOST_ARCH))
CC ?= gcc
BUILD := build
RUN :=
else
CROSS_COMPILE ?= $(TRIPLET)-
CC := $(CROSS_COMPILE)gcc
BUILD := build/$(ARCH)
# a dynamically linked target program runs with the cross toolchain's
# glibc and loader (libc6-*-cross)
RUN := $(QEMU_$(ARCH)) -L /usr/$(TRIPLET)
ifeq ($(shell command -v $(CC)),)
$(warning $(CC) not found: `make ARCH=$(ARCH) deps` (scripts/deps.sh arm64) installs the cross toolchain)
endif
endif
VMLINUX_DIR := vmlinux/$(ARCH)

NPROC := $(shell nproc 2>/dev/null || echo 2)
# One short line a step ("  CC      build/x.o"); `make V=1` shows the
# whole commands.
ifeq ($(V),1)
Q :=
say =
else
Q := @
say = @printf '  %-8s %s\n' '$(1)' '$@'
endif

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wno-format-truncation \
	  -I$(BUILD) -Isrc -MMD -MP
# The libraries are linked in, for the tests' programs too; kdist itself is
# linked fully static (KDIST_LDFLAGS), glibc included, so it needs nothing
# of the target's userspace: no compiler, headers, libbpf package or glibc
# version (README, "Installing").
LDLIBS := -Wl,-Bstatic -lbpf -lelf -lz -ljansson -lyaml -lssl -lcrypto -lcrypt -Wl,-Bdynamic -lm
KDIST_LDFLAGS := -static
KDIST_LDLIBS := -lbpf -lelf -lz -ljansson -lyaml -lssl -lcrypto -lcrypt -lm
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(VMLINUX_DIR) -Isrc -MMD -MP

# src/ holds one folder per layer (docs/architecture.md); sources are
# included by path from src/ and built into one flat folder (their names
# are unique), found through vpath.
SRC_DIRS := $(patsubst %/,%,$(sort $(dir $(shell find src -name '*.c'))))
vpath %.c $(SRC_DIRS)
BPF_SRCS := $(shell find src -name '*.bpf.c')
SKELS := $(patsubst %.bpf.c,$(BUILD)/%.skel.h,$(notdir $(BPF_SRCS))) $(BUILD)/pair_noatomics.skel.h
SRCS := $(filter-out %.bpf.c,$(shell find src -name '*.c'))
OBJS := $(patsubst %.c,$(BUILD)/%.o,$(notdir $(SRCS)))
LIB_OBJS := $(filter-out $(BUILD)/main.o,$(OBJS))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
WORKLOAD_SRCS := $(wildcard tests/workloads/*.c)
WORKLOADS := $(patsubst tests/workloads/%.c,$(BUILD)/tests/%,$(WORKLOAD_SRCS))

.PHONY: all deps deps-build demo check check-fast check-unit check-host check-vm bench clean vmlinux
.DELETE_ON_ERROR:

all: $(BUILD)/kdist $(WORKLOADS)

# glibc's static link warns of getpwnam(), getaddrinfo() and dlopen():
# the binary's own "files" and "dns" services answer the first two, and
# nothing kdist does needs the third (README, "Installing"); those
# warnings are left out of the build's output, any other shown
$(BUILD)/kdist: $(OBJS)
	$(call say,LD)
	$(Q)$(CC) $(LDFLAGS) $(KDIST_LDFLAGS) -o $@ $^ $(KDIST_LDLIBS) 2>$@.ld || { cat $@.ld >&2; exit 1; }
	@awk '/: in function / { f = $$0; next } /in statically linked applications requires/ { f = ""; next } \
		{ if (f != "") print f; f = ""; print }' $@.ld >&2; rm -f $@.ld

# Every user-space object may include any skeleton; generate them first.
$(OBJS): | $(SKELS)

$(BUILD)/%.o: %.c | $(BUILD)
	$(call say,CC)
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/%.bpf.o: %.bpf.c | $(BUILD)
	$(call say,BPF)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c -o $@ $<

# pair's object once more without BPF atomics, for kernels before 5.12
# (kernel/common.bpf.h): its programs, maps and their order are the same,
# so the one skeleton opens either object's bytes (pair_load.c).
$(BUILD)/pair_noatomics.bpf.o: src/cmd/pair/pair.bpf.c | $(BUILD)
	$(call say,BPF)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DKDIST_NO_ATOMICS -c -o $@ $<

# Kept (not removed as intermediates): the tests read program names from them.
.SECONDARY: $(patsubst %.bpf.c,$(BUILD)/%.bpf.o,$(notdir $(BPF_SRCS))) $(BUILD)/pair_noatomics.bpf.o

# The skeleton embeds the object without its DWARF, a third of it: loading
# needs only .BTF and .BTF.ext (types, CO-RE relocations, line info), which
# llvm-strip -g keeps.  The object's name stays NAME_bpf.
LLVM_STRIP ?= llvm-strip
$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call say,GEN-SKEL)
	$(Q)$(LLVM_STRIP) -g -o $(BUILD)/$*.embed.o $<
	$(Q)$(BPFTOOL) gen skeleton $(BUILD)/$*.embed.o name $*_bpf > $@

# Syscall names of the architecture built for, from a table in the tree
# (src/syscalls/ARCH.tbl, as new as the newest kernel kdist supports), not
# from the build machine's kernel headers, which lag the kernels it runs on.
SYSCALL_ARCH_x86 := x86_64
SYSCALL_ARCH_arm64 := aarch64
$(BUILD)/syscall_names.h: src/syscalls/$(SYSCALL_ARCH_$(ARCH)).tbl | $(BUILD)
	$(call say,GEN)
	$(Q)awk '!/^#/ && NF == 2 { printf "[%d] = \"%s\",\n", $$1, $$2 }' $< > $@
$(BUILD)/format.o: $(BUILD)/syscall_names.h

# The HTML view's style and script, kept readable in src/, as C strings.
EMBED = sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/'
$(BUILD)/report_assets.h: src/view/report.css src/view/report.js | $(BUILD)
	$(call say,GEN)
	$(Q){ echo 'static const char report_css[] ='; $(EMBED) src/view/report.css; echo ';'; \
	  echo 'static const char report_js[] ='; $(EMBED) src/view/report.js; echo ';'; } > $@
$(BUILD)/html.o $(BUILD)/asan/html.o: $(BUILD)/report_assets.h

# kdist serve exports it as kdist_build_info{version}.
KDIST_VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(BUILD)/serve.o: CFLAGS += -DKDIST_VERSION='"$(KDIST_VERSION)"'
# kdist --version: rewritten on every build, replaced only when it changed.
KDIST_COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
.PHONY: FORCE
$(BUILD)/version.h: FORCE | $(BUILD)
	@printf '#define KDIST_VERSION "%s"\n#define KDIST_COMMIT "%s"\n' '$(KDIST_VERSION)' '$(KDIST_COMMIT)' > $@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@
$(BUILD)/main.o: $(BUILD)/version.h

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS) | $(BUILD)/tests
	$(call say,LD)
	$(Q)$(CC) $(CFLAGS) -o $@ $(filter %.c %.o,$^) $(LDLIBS)

# The layers that know nothing of BPF (lib, syms, model, view): their
# tests link all of these layers' objects and nothing else, without libbpf,
# so that a call of theirs that points upward fails the build
# (docs/architecture.md).
LOWER_LAYERS := lib syms model view
LOWER_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(notdir $(filter $(LOWER_LAYERS:%=src/%/%),$(SRCS))))
LOWER_TESTS := $(patsubst %,$(BUILD)/tests/test_%,hist measure output reader diffstat flame heatmap prom progress util syms)
$(LOWER_TESTS): $(BUILD)/tests/%: tests/unit/%.c $(LOWER_OBJS) | $(BUILD)/tests
	$(call say,LD)
	$(Q)$(CC) $(CFLAGS) -o $@ $(filter %.c %.o,$^) $(filter-out -lbpf,$(LDLIBS))

# Test workloads are plain programs with symbols kept for uprobes.
$(BUILD)/tests/%: tests/workloads/%.c | $(BUILD)/tests
	$(call say,LD)
	$(Q)$(CC) -O1 -g -fno-inline -fno-omit-frame-pointer -Wall -pthread -o $@ $<
$(WORKLOADS): tests/workloads/report.h

# One static program: a container image of one file (container.test.sh).
WORKLOADS += $(BUILD)/tests/getppid_static
all: $(BUILD)/tests/getppid_static
$(BUILD)/tests/getppid_static: tests/workloads/getppid_loop.c | $(BUILD)/tests
	$(call say,LD)
	$(Q)$(CC) -O1 -static -Wall -o $@ $<

$(BUILD) $(BUILD)/tests:
	$(Q)mkdir -p $@

# deps: everything (check, bench, fuzz); deps-build: building and the demo.
deps:
	@scripts/deps.sh
ifneq ($(RUN),)
	@scripts/deps.sh arm64
endif
deps-build:
	@scripts/deps.sh build

demo: deps-build
	@$(MAKE) --no-print-directory -j$(NPROC) all
	@scripts/demo.sh

check: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all $(UNIT_BINS)
	@$(MAKE) --no-print-directory ARCH=arm64 deps
	@$(MAKE) --no-print-directory -j$(NPROC) ARCH=arm64 all	# the arm64 VM tier's kdist and workloads
	@tests/run-all.sh

# the fast tiers alone (unit, asan, host, doc: no VM), stopping at the
# first that fails; a contributor's check before pushing
check-fast: deps asan
	@$(MAKE) --no-print-directory all $(UNIT_BINS)
	@KDIST_TIERS="unit asan host doc" tests/run-all.sh

check-unit: all $(UNIT_BINS)
	@UNIT_DIR=$(BUILD)/tests UNIT_RUN='$(RUN)' PATH=$(abspath $(BUILD))/tools:$$PATH tests/run-unit.sh
ifneq ($(RUN),)
# the unit tests call nm and objcopy on the target's binaries
check-unit: $(BUILD)/tools/nm $(BUILD)/tools/objcopy
$(BUILD)/tools/%:
	@mkdir -p $(@D)
	ln -sf $$(command -v $(CROSS_COMPILE)$*) $@
endif
check-host: all
	@tests/host/run.sh
check-vm: all
	@$(MAKE) --no-print-directory ARCH=arm64 deps all
	@tests/vm/run.sh

# docs/testing.md's command matrix, from the result lines of the last host
# and VM runs (build/matrix/*.tsv; make check writes them)
.PHONY: matrix-doc
matrix-doc:
	@scripts/matrix-table.py docs/testing.md $(BUILD)/matrix/host.tsv $(BUILD)/matrix/5.10.tsv $(BUILD)/matrix/6.1.tsv $(BUILD)/matrix/6.12.tsv \
		$(BUILD)/matrix/arm64-6.1.tsv $(BUILD)/matrix/arm64-6.12.tsv

bench: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory $(BUILD)/floor
	@bench/run.sh

vmlinux:
	scripts/gen-vmlinux.sh $(ARCH)

clean:
	rm -rf $(BUILD)

-include $(wildcard $(BUILD)/*.d $(BUILD)/tests/*.d)

# The benchmark's floor: empty programs on the same hooks.
$(BUILD)/floor.bpf.o: bench/floor.bpf.c | $(BUILD)
	$(call say,BPF)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c -o $@ $<
$(BUILD)/floor: bench/floor.c $(BUILD)/floor.skel.h
	$(call say,LD)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

# Installed like any tool: the binary, kdist(1) and bash completion.  The
# man page and the completion are made by kdist itself from its command
# and option tables, the ones --help prints, so that they cannot disagree.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL ?= install

.PHONY: install uninstall
all: $(BUILD)/kdist.1 $(BUILD)/kdist.bash

$(BUILD)/kdist.1: docs/kdist.1.in $(BUILD)/kdist
	$(call say,GEN)
	$(Q)$(RUN) $(BUILD)/kdist __expand $< > $@
$(BUILD)/kdist.bash: scripts/kdist.bash.in $(BUILD)/kdist
	$(call say,GEN)
	$(Q)$(RUN) $(BUILD)/kdist __expand $< > $@

install: $(BUILD)/kdist $(BUILD)/kdist.1 $(BUILD)/kdist.bash
	$(INSTALL) -D -m 0755 $(BUILD)/kdist $(DESTDIR)$(BINDIR)/kdist
	$(INSTALL) -D -m 0644 $(BUILD)/kdist.1 $(DESTDIR)$(MANDIR)/man1/kdist.1
	$(INSTALL) -D -m 0644 $(BUILD)/kdist.bash $(DESTDIR)$(BASHCOMPDIR)/kdist

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/kdist $(DESTDIR)$(MANDIR)/man1/kdist.1 \
	      $(DESTDIR)$(BASHCOMPDIR)/kdist

# ---- Sanitizers and fuzzing --------------------------------------------
# build/asan/ holds a second copy of every library object and unit test,
# built by clang with ASan and UBSan (any report aborts) and with libFuzzer's
# coverage instrumentation, so the same objects serve `make check` (unit
# tests and corpus replay, tests/run-asan.sh) and `make fuzz` (libFuzzer
# binaries, tests/fuzz/run.sh).  The normal build stays untouched.
ASAN := $(BUILD)/asan
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all
SAN_CFLAGS := -O1 -g -fno-omit-frame-pointer $(SAN_FLAGS) -fsanitize=fuzzer-no-link \
	-std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter \
	-Wno-missing-field-initializers -Wno-unknown-attributes -I$(BUILD) -Isrc -MMD -MP
ASAN_LIB_OBJS := $(patsubst $(BUILD)/%.o,$(ASAN)/%.o,$(LIB_OBJS))
ASAN_UNIT_BINS := $(patsubst tests/unit/%.c,$(ASAN)/tests/%,$(UNIT_SRCS))
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
REPLAY_BINS := $(patsubst %,$(ASAN)/replay/%,$(FUZZ_NAMES))
FUZZ_BINS := $(patsubst %,$(ASAN)/fuzz/%,$(FUZZ_NAMES))
FUZZ_SECONDS ?= 60
# libcrypt shared here: ASan intercepts crypt_r() and finds the real one
# with dlsym(), which sees no static copy (the call would jump to 0)
ASAN_LDLIBS := $(filter-out -lcrypt,$(LDLIBS)) -lcrypt

.PHONY: asan check-asan fuzz

asan: $(ASAN_UNIT_BINS) $(REPLAY_BINS)

# `make check` runs tests/run-asan.sh as one of its tiers.
check: asan

check-asan: asan
	@tests/run-asan.sh

fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh $(FUZZ_NAMES)

# deps first: clang's sanitizer and libFuzzer runtimes come from a package.
$(ASAN_LIB_OBJS): | deps $(SKELS) $(BUILD)/syscall_names.h

$(ASAN)/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC-SAN)
	$(Q)$(CLANG) $(SAN_CFLAGS) -c -o $@ $<

$(ASAN)/tests/%: tests/unit/%.c $(ASAN_LIB_OBJS)
	@mkdir -p $(@D)
	$(call say,LD-SAN)
	$(Q)$(CLANG) $(SAN_CFLAGS) -o $@ $(filter %.c %.o,$^) $(ASAN_LDLIBS)

$(ASAN)/fuzz_%.o: tests/fuzz/fuzz_%.c
	@mkdir -p $(@D)
	$(call say,CC-SAN)
	$(Q)$(CLANG) $(SAN_CFLAGS) -c -o $@ $<

$(ASAN)/replay/%: $(ASAN)/fuzz_%.o tests/fuzz/replay.c $(ASAN_LIB_OBJS)
	@mkdir -p $(@D)
	$(call say,LD-SAN)
	$(Q)$(CLANG) $(SAN_CFLAGS) -o $@ $(filter %.c %.o,$^) $(ASAN_LDLIBS)

$(ASAN)/fuzz/%: $(ASAN)/fuzz_%.o $(ASAN_LIB_OBJS)
	@mkdir -p $(@D)
	$(call say,LD-SAN)
	$(Q)$(CLANG) $(SAN_CFLAGS) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(ASAN_LDLIBS)

.SECONDARY: $(patsubst %,$(ASAN)/fuzz_%.o,$(FUZZ_NAMES))
-include $(wildcard $(ASAN)/*.d $(ASAN)/tests/*.d $(ASAN)/replay/*.d $(ASAN)/fuzz/*.d)

# make soak: 10 minutes (SOAK_SECONDS) of kdist pair under process churn:
# flat RSS, the overflow counted, intervals that add up.  Not part of check.
.PHONY: soak
soak: deps
	@$(MAKE) --no-print-directory all
	@bench/soak.sh

# ---- Release binaries ------------------------------------------------------
# make dist: kdist for x86-64 and for aarch64 (cross-built, see ARCH above)
# in build/dist/, stripped, with SHA256SUMS.  Each is static: it needs
# nothing of the target's userspace (tests/dist: Debian 11's glibc 2.31).
# tests/vm/run.sh runs the aarch64 one in the arm64 VM.
DIST := build/dist
MACHINE_x86 := x86_64
MACHINE_arm64 := aarch64
ELF_MACHINE_x86 := X86-64
ELF_MACHINE_arm64 := AArch64
.PHONY: dist dist-one
dist:
	rm -rf $(DIST)
	@$(MAKE) --no-print-directory ARCH=x86 deps dist-one
	@$(MAKE) --no-print-directory ARCH=arm64 deps dist-one
	cd $(DIST) && sha256sum kdist-$(KDIST_VERSION)-x86_64 kdist-$(KDIST_VERSION)-aarch64 > SHA256SUMS
	@cat $(DIST)/SHA256SUMS
# Each binary is checked as the README promises it: static (no NEEDED
# entry, no interpreter), of the architecture named; its size is printed.
dist-one: $(BUILD)/kdist
	@mkdir -p $(DIST)
	$(CROSS_COMPILE)strip -o $(DIST)/kdist-$(KDIST_VERSION)-$(MACHINE_$(ARCH)) $(BUILD)/kdist
	@f=$(DIST)/kdist-$(KDIST_VERSION)-$(MACHINE_$(ARCH)); \
	if $(CROSS_COMPILE)readelf -d $$f 2>/dev/null | grep -q NEEDED || \
	   $(CROSS_COMPILE)readelf -l $$f | grep -q INTERP || \
	   ! $(CROSS_COMPILE)readelf -h $$f | grep -q 'Machine:.*$(ELF_MACHINE_$(ARCH))'; then \
		echo "make dist: $$f is not a static $(MACHINE_$(ARCH)) binary:" >&2; \
		$(CROSS_COMPILE)readelf -hd $$f | grep -E 'Machine|NEEDED' >&2; rm -f $$f; exit 1; \
	fi; \
	echo "  $$f: static, $$(stat -c %s $$f) bytes"

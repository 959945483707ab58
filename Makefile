# kdist build.  `make` builds build/kdist; `make demo`, `make check` and
# `make bench` first install what a fresh Debian 12 machine lacks.
CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
ARCH := x86
BUILD := build

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wno-format-truncation \
	  -I$(BUILD) -Isrc -MMD -MP
# libbpf, libelf and zlib are linked in, so the binary needs only glibc on
# the target: no compiler, headers or libbpf package there.
LDLIBS := -Wl,-Bstatic -lbpf -lelf -lz -Wl,-Bdynamic -lm
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux -Isrc -MMD -MP

BPF_SRCS := $(wildcard src/*.bpf.c)
SKELS := $(patsubst src/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
SRCS := $(filter-out %.bpf.c,$(wildcard src/*.c))
OBJS := $(patsubst src/%.c,$(BUILD)/%.o,$(SRCS))
LIB_OBJS := $(filter-out $(BUILD)/kdist.o,$(OBJS))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
WORKLOAD_SRCS := $(wildcard tests/workloads/*.c)
WORKLOADS := $(patsubst tests/workloads/%.c,$(BUILD)/tests/%,$(WORKLOAD_SRCS))

.PHONY: all deps demo check check-unit check-host check-vm bench clean vmlinux
.DELETE_ON_ERROR:

all: $(BUILD)/kdist $(WORKLOADS)

$(BUILD)/kdist: $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Every user-space object may include any skeleton; generate them first.
$(OBJS): | $(SKELS)

$(BUILD)/%.o: src/%.c | $(BUILD)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/%.bpf.o: src/%.bpf.c | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c -o $@ $<

# Kept (not removed as intermediates): the tests read program names from them.
.SECONDARY: $(patsubst src/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@

# Syscall number -> name, for the syscalls recipe, from the UAPI header.
UNISTD ?= $(firstword $(wildcard /usr/include/x86_64-linux-gnu/asm/unistd_64.h /usr/include/asm/unistd_64.h))
$(BUILD)/syscall_names.h: $(UNISTD) | $(BUILD)
	sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9]*\)$$/[\2] = "\1",/p' $< > $@
$(BUILD)/recipes.o: $(BUILD)/syscall_names.h

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS) | $(BUILD)/tests
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# Test workloads are plain programs with symbols kept for uprobes.
$(BUILD)/tests/%: tests/workloads/%.c | $(BUILD)/tests
	$(CC) -O1 -g -fno-inline -fno-omit-frame-pointer -Wall -pthread -o $@ $<
$(WORKLOADS): tests/workloads/report.h

$(BUILD) $(BUILD)/tests:
	mkdir -p $@

deps:
	@scripts/deps.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

check: deps
	@$(MAKE) --no-print-directory all $(UNIT_BINS)
	@tests/run-all.sh

check-unit: all $(UNIT_BINS)
	@tests/run-unit.sh
check-host: all
	@tests/host/run.sh
check-vm: all
	@tests/vm/run.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory $(BUILD)/floor
	@bench/run.sh

vmlinux:
	scripts/gen-vmlinux.sh

clean:
	rm -rf $(BUILD)

-include $(wildcard $(BUILD)/*.d $(BUILD)/tests/*.d)

# The benchmark's floor: empty programs on the same hooks.
$(BUILD)/floor.bpf.o: bench/floor.bpf.c | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c -o $@ $<
$(BUILD)/floor: bench/floor.c $(BUILD)/floor.skel.h
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

# make soak: 10 minutes (SOAK_SECONDS) of kdist pair under process churn:
# flat RSS, the overflow counted, intervals that add up.  Not part of check.
.PHONY: soak
soak: deps
	@$(MAKE) --no-print-directory all
	@bench/soak.sh

# tools/rules.mk: the gputune command, the device-code parsers' tests and fuzzers.
#
#   make                        also builds $(BUILD)/gputune
#   make fuzz                   builds a libFuzzer target per parser (clang) and runs each
#                               for FUZZ_SECONDS (default 60) on seeds compiled with nvcc
#   make bench-inspect          times gputune inspect against cuobjdump (bench/inspect)

TOOL_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tools/*.c))

all: $(BUILD)/gputune

$(BUILD)/gputune: $(TOOL_OBJ) $(BUILD)/libgtcore.a
	$(CC) $(SAN) -o $@ $(TOOL_OBJ) $(BUILD)/libgtcore.a $(CORE_LIBS)

# The parsers' unit tests share the fixture helpers.
DEVCODE_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%.t,$(wildcard tests/test_fatbin.c tests/test_cubin.c \
                 tests/test_ptx.c tests/test_ptxcost.c tests/test_elfscan.c tests/test_imageptx.c tests/test_robust.c))

$(DEVCODE_TESTS): tests/fixtures.h

-include $(wildcard $(BUILD)/tools/*.d)

# ---- fuzzing: clang's libFuzzer with AddressSanitizer, in build-fuzz/ ----

FUZZ_CC      ?= clang
FUZZ_DIR     := build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS  := -std=c11 -Wall -Wextra -Werror -g -O1 -D_GNU_SOURCE -Iinclude $(addprefix -I,$(LAYERS)) -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=undefined
FUZZ_SRC     := $(wildcard fuzz/fuzz_*.c)
FUZZ_CORE    := $(addprefix shim/base/,alloc.c arena.c errmsg.c strtab.c) \
                $(addprefix shim/devcode/,decompress.c fatbin.c ptxlex.c ptx.c ptxcost.c ptxreads.c cubin.c elfscan.c \
                devcode.c imageptx.c) shim/compile/watchdog.c
FUZZ_TARGETS := $(patsubst fuzz/%.c,$(FUZZ_DIR)/%,$(FUZZ_SRC))

$(FUZZ_DIR)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_CORE) $(wildcard shim/*/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_CORE) -o $@ $(CORE_LIBS)

fuzz-build: $(FUZZ_TARGETS)

fuzz: fuzz-build
	fuzz/run $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

bench-inspect: $(BUILD)/gputune
	bench/inspect

clean: fuzz-clean

fuzz-clean:
	rm -rf $(FUZZ_DIR)

.PHONY: fuzz fuzz-build fuzz-clean bench-inspect

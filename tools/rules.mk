# tools/rules.mk: the gputune command and the device-code parsers' tests.
#
#   make                        also builds $(BUILD)/gputune

# What code using the device-code parsers (decompress, cubin, devcode) links with.
DEVCODE_LIBS := -lelf -llz4 -lzstd -lpthread

TOOL_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tools/*.c))

all: $(BUILD)/gputune

$(BUILD)/gputune: $(TOOL_OBJ) $(BUILD)/libgtcore.a
	$(CC) $(SAN) -o $@ $(TOOL_OBJ) $(BUILD)/libgtcore.a $(DEVCODE_LIBS) -ldl

# The parsers' unit tests link the compression libraries and libelf too.
DEVCODE_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%.t,$(wildcard tests/test_fatbin.c tests/test_cubin.c \
                 tests/test_ptx.c tests/test_elfscan.c tests/test_imageptx.c tests/test_robust.c))

$(DEVCODE_TESTS): $(BUILD)/tests/%.t: tests/%.c tests/tap.h tests/fixtures.h $(BUILD)/libgtcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests $< -o $@ $(BUILD)/libgtcore.a $(DEVCODE_LIBS) -ldl

-include $(wildcard $(BUILD)/tools/*.d)

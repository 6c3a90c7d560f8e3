# policy/rules.mk: policy files, the expression language and tuning spaces
# (policy/), their tests, and their fuzzers.
#
#   make                        also builds the policy modules into libgtcore.a and
#                               $(BUILD)/tests/helpers/policy_tool for tests/policy.t

POLICY     := diag expr space policy keys build
POLICY_OBJ := $(POLICY:%=$(BUILD)/policy/%.o)

$(BUILD)/libgtcore.a: $(POLICY_OBJ)

# The gputune command holds `policy check` and `space` (tools/policy_cmd.c).
$(BUILD)/gputune: DEVCODE_LIBS += -l:libinih.a

POLICY_TESTS := $(BUILD)/tests/test_expr.t $(BUILD)/tests/test_policy.t $(BUILD)/tests/test_space.t

$(POLICY_TESTS): $(BUILD)/tests/%.t: tests/%.c tests/tap.h $(BUILD)/libgtcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests $< -o $@ $(BUILD)/libgtcore.a -l:libinih.a -ldl -lpthread

# `policy check` and `space` without the rest of gputune, for tests/policy.t.
all: $(BUILD)/tests/helpers/policy_tool

$(BUILD)/tests/helpers/policy_tool: tests/helpers/policy_tool.c $(BUILD)/tools/policy_cmd.o $(BUILD)/libgtcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(BUILD)/tools/policy_cmd.o -o $@ $(BUILD)/libgtcore.a -l:libinih.a -ldl -lpthread

-include $(wildcard $(BUILD)/policy/*.d)

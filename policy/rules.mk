# policy/rules.mk: policy files, the expression language and tuning spaces
# (policy/), their tests, and their fuzzers.
#
#   make                        also builds the policy modules into libgtcore.a and
#                               $(BUILD)/tests/helpers/policy_tool for tests/policy.t
#   make fuzz-policy            builds libFuzzer targets for the expression and policy
#                               parsers (clang) and runs each for FUZZ_POLICY_SECONDS (60)

POLICY     := diag env expr space policy keys build strategy search_basic search_local search_evolution \
              search_predictor search_tree search_pareto search_staged search_guided search_bayes cart
POLICY_OBJ := $(POLICY:%=$(BUILD)/policy/%.o)

$(BUILD)/libgtcore.a: $(POLICY_OBJ)

# `policy check` and `space` without the rest of gputune, for tests/policy.t.
all: $(BUILD)/tests/helpers/policy_tool

$(BUILD)/tests/helpers/policy_tool: tests/helpers/policy_tool.c $(BUILD)/tools/policy_cmd.o $(BUILD)/libgtcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(BUILD)/tools/policy_cmd.o -o $@ $(BUILD)/libgtcore.a $(CORE_LIBS)

-include $(wildcard $(BUILD)/policy/*.d)

# ---- fuzzing: clang's libFuzzer with AddressSanitizer and UBSan ----

FUZZ_CC             ?= clang
FUZZ_POLICY_SECONDS ?= 60
FUZZ_POLICY_DIR     := build-fuzz/policy
FUZZ_POLICY_CFLAGS  := -std=c11 -Wall -Wextra -Werror -g -O1 -D_GNU_SOURCE -Ipolicy -Ishim/base \
                       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_POLICY_SRC     := $(POLICY:%=policy/%.c) shim/base/alloc.c
FUZZ_POLICY_TARGETS := $(FUZZ_POLICY_DIR)/fuzz_expr $(FUZZ_POLICY_DIR)/fuzz_policy

$(FUZZ_POLICY_DIR)/fuzz_%: policy/fuzz/fuzz_%.c $(FUZZ_POLICY_SRC) $(wildcard policy/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_POLICY_CFLAGS) $< $(FUZZ_POLICY_SRC) -o $@ -l:libinih.a

fuzz-policy: $(FUZZ_POLICY_TARGETS)
	policy/fuzz/run $(FUZZ_POLICY_DIR) $(FUZZ_POLICY_SECONDS)

.PHONY: fuzz-policy

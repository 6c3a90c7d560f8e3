# policy/rules.mk: policy files, the expression language and tuning spaces
# (policy/), their tests, and their fuzzers.
#
#   make                        also builds the policy modules into libgtcore.a

POLICY     := diag expr space policy keys build
POLICY_OBJ := $(POLICY:%=$(BUILD)/policy/%.o)

$(BUILD)/libgtcore.a: $(POLICY_OBJ)

POLICY_TESTS := $(BUILD)/tests/test_expr.t $(BUILD)/tests/test_space.t $(BUILD)/tests/test_policy.t

$(POLICY_TESTS): $(BUILD)/tests/%.t: tests/%.c tests/tap.h $(BUILD)/libgtcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests $< -o $@ $(BUILD)/libgtcore.a -l:libinih.a -ldl -lpthread

-include $(wildcard $(BUILD)/policy/*.d)

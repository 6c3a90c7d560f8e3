# Makefile: libgputune.so, the gputune tool, the examples, tests and benchmarks.
#
#   make              build everything under build/
#   make test         build, then run every test through prove
#   make check        run the tests of an existing build (no compiler needed)
#   make demo         tune an example application, then run it with what tuning found
#   make replay       every search strategy on the recorded landscapes (CPU only)
#   make SANITIZE=1 test   the same under AddressSanitizer and UBSan, in build-asan/

CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
CC        ?= cc
BUILD     ?= build

ifdef SANITIZE
BUILD     := build-asan
SAN       := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
NOUNDEF   := -Wl,-z,defs
endif

# The layers, lowest first (ARCHITECTURE.md): a file uses only its own folder and those before it.
# The lower ones hold no process-wide state and are shared by the shim, the tool and unit tests.
CORE_DIRS := shim/base shim/devcode policy shim/cache shim/compile
SHIM_DIRS := shim shim/track shim/run shim/tune shim/launch shim/intercept shim/top
LAYERS    := $(CORE_DIRS) $(SHIM_DIRS)

# Thread-locals through TLS descriptors: where the library's TLS is static (loaded by LD_PRELOAD), a
# read is an offset from the thread pointer, not a call of __tls_get_addr, whose tables cost cache
# misses at every launch once a framework's work between two launches has evicted them; loaded by
# dlopen, it still works. Other targets (aarch64) use descriptors by default.
TLS_FLAGS := $(if $(filter x86_64,$(shell uname -m)),-mtls-dialect=gnu2)
CFLAGS    := -std=c11 -Wall -Wextra -Werror -O2 -g -fPIC -D_GNU_SOURCE -MMD -MP $(TLS_FLAGS) \
             -Iinclude $(addprefix -I,$(LAYERS)) -I$(CUDA_HOME)/include $(SAN)
NVFLAGS   := -O2 -lineinfo
CUDA_LIB  := -L$(CUDA_HOME)/lib64/stubs -lcuda
RPATH     := -Xlinker -rpath=$(CUDA_HOME)/lib64

CORE_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(wildcard $(addsuffix /*.c,$(filter shim/%,$(CORE_DIRS)))))
CORE_LIBS := -l:libinih.a -ldl -lpthread -lelf -llz4 -lzstd -lm
SHIM_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(wildcard $(addsuffix /*.c,$(SHIM_DIRS)))) $(BUILD)/shim/tune/devkernels_ptx.o

UNIT      := $(patsubst tests/%.c,$(BUILD)/tests/%.t,$(wildcard tests/*.c))
HELPERS   := $(BUILD)/tests/fakecuda/libcuda.so.1 $(BUILD)/tests/helpers/minirt \
             $(BUILD)/tests/helpers/gpu_probe $(BUILD)/tests/helpers/chain_main \
             $(BUILD)/tests/helpers/libchain.so $(BUILD)/tests/helpers/nvrtc_min \
             $(BUILD)/tests/helpers/libdlsymwrap.so $(BUILD)/tests/helpers/libdlsymlibc.so \
             $(BUILD)/tests/helpers/libtruncmap.so $(BUILD)/tests/helpers/libfailalloc.so \
             $(BUILD)/tests/helpers/libfulldisk.so \
             $(BUILD)/tests/helpers/faulty_app $(BUILD)/tests/helpers/slow_app \
             $(BUILD)/tests/helpers/lattice_app \
             $(BUILD)/tests/helpers/printf_app \
             $(BUILD)/tests/helpers/lazy_app $(BUILD)/tests/helpers/graph_app \
             $(BUILD)/tests/helpers/atomic_app $(BUILD)/tests/helpers/reset_app \
             $(foreach v,12 13,$(addprefix $(BUILD)/tests/fakelibs/$(v)/,libnvrtc.so.$(v) libnvJitLink.so.$(v) libcupti.so.$(v)))
EXAMPLES  := $(BUILD)/examples/runtime_app $(BUILD)/examples/runtime_app_ptds \
             $(BUILD)/examples/driver_app $(BUILD)/examples/kernels.ptx \
             $(BUILD)/examples/kernels.fatbin $(BUILD)/examples/nvrtc_app \
             $(BUILD)/examples/threads_app $(BUILD)/examples/suite
BENCH     := $(BUILD)/bench/empty_launches $(BUILD)/bench/compile $(BUILD)/bench/transpose.ptx \
             $(BUILD)/bench/snapshot_app $(BUILD)/bench/watchdog_overhead $(BUILD)/bench/watchdog_kernels.ptx \
             $(BUILD)/bench/peak $(BUILD)/bench/replay $(BUILD)/bench/timing_kinds $(BUILD)/bench/graph_driver \
             $(BUILD)/bench/guard_rule

all: $(BUILD)/libgputune.so $(UNIT) $(HELPERS) $(EXAMPLES) $(BENCH)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fvisibility=hidden -c $< -o $@

# The shim's own device code, as a PTX string in the library.
$(BUILD)/shim/tune/devkernels.ptx: shim/tune/devkernels.cu
	@mkdir -p $(dir $@)
	$(NVCC) -ptx -arch=compute_75 $< -o $@

$(BUILD)/shim/tune/devkernels_ptx.c: $(BUILD)/shim/tune/devkernels.ptx
	{ cat $<; printf '\0'; } > $@.nul
	$(CUDA_HOME)/bin/bin2c --const --name gt_devkernels_ptx $@.nul > $@

$(BUILD)/shim/tune/devkernels_ptx.o: $(BUILD)/shim/tune/devkernels_ptx.c
	$(CC) $(CFLAGS) -include stdint.h -fvisibility=hidden -c $< -o $@

$(BUILD)/libgtcore.a: $(CORE_OBJ)
	ar rcs $@ $^

$(BUILD)/libgputune.so: $(SHIM_OBJ) $(BUILD)/libgtcore.a shim/intercept/versions.map
	$(CC) -shared $(SAN) $(NOUNDEF) -Wl,--version-script=shim/intercept/versions.map -o $@ $(SHIM_OBJ) $(BUILD)/libgtcore.a \
	    $(CORE_LIBS)

# Unit tests: one C file each, linked with the core modules only.
$(BUILD)/tests/%.t: tests/%.c tests/tap.h $(BUILD)/libgtcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests $< -o $@ $(BUILD)/libgtcore.a $(CORE_LIBS)

# A stand-in libcuda.so.1 for CPU tests of the interposition.
$(BUILD)/tests/fakecuda/libcuda.so.1: tests/helpers/fakecuda.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -Wl,-Bsymbolic -Wl,-soname,libcuda.so.1 $< -o $@

# Stand-ins for NVRTC, nvJitLink and CUPTI of CUDA 12 and 13, each with its real soname (tests/cudalibs.t).
define FAKELIB
$(BUILD)/tests/fakelibs/$(1)/%.so.$(1): tests/helpers/fake_%.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS) -DFAKE_MAJOR=$(1) -MF $$@.d -shared -Wl,-soname,$$(notdir $$@) $$< -o $$@
endef
$(eval $(call FAKELIB,12))
$(eval $(call FAKELIB,13))

$(BUILD)/tests/helpers/minirt: tests/helpers/minirt.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ -ldl -lpthread

$(BUILD)/tests/helpers/nvrtc_min: tests/helpers/nvrtc_min.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ $(CUDA_LIB) -L$(CUDA_HOME)/lib64 -lnvrtc -Wl,-rpath,$(CUDA_HOME)/lib64

$(BUILD)/tests/helpers/faulty_app: tests/fixtures/faulty_app.cu tests/fixtures/faulty_kernel.cuh examples/common.h examples/runtime.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $< -o $@

$(BUILD)/tests/helpers/slow_app: tests/fixtures/slow_app.cu tests/fixtures/slow_kernel.cuh examples/common.h examples/runtime.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $< -o $@

$(BUILD)/tests/helpers/lattice_app: tests/fixtures/lattice_app.cu tests/fixtures/lattice_kernel.cuh examples/common.h examples/runtime.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $< -o $@

$(BUILD)/tests/helpers/printf_app: tests/fixtures/printf_app.cu examples/common.h examples/runtime.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $< -o $@

$(BUILD)/tests/helpers/lazy_app: tests/fixtures/lazy_app.cu tests/fixtures/lazy_kernel.cuh examples/common.h examples/runtime.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $< -o $@

$(BUILD)/tests/helpers/graph_app: tests/fixtures/graph_app.cu examples/common.h examples/runtime.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $< -o $@

$(BUILD)/tests/helpers/atomic_app: tests/fixtures/atomic_app.cu examples/common.h examples/runtime.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $< -o $@

$(BUILD)/tests/helpers/reset_app: tests/fixtures/reset_app.cu examples/common.h examples/runtime.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $< -o $@

$(BUILD)/tests/helpers/gpu_probe: tests/helpers/gpu_probe.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ -ldl

$(BUILD)/tests/helpers/libchain.so: tests/helpers/chain_lib.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -DCHAIN_WRAPPER $< -o $@ -ldl

# dlsym wrappers preloaded before the shim: one leads to it, one passes it by.
$(BUILD)/tests/helpers/libdlsymwrap.so: tests/helpers/dlsym_wrap.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared $< -o $@ -ldl

$(BUILD)/tests/helpers/libdlsymlibc.so: tests/helpers/dlsym_wrap.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -DWRAP_BY_HANDLE $< -o $@ -ldl

$(BUILD)/tests/helpers/libtruncmap.so: tests/helpers/truncmap.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared $< -o $@ -ldl

$(BUILD)/tests/helpers/libfulldisk.so: tests/helpers/fulldisk.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared $< -o $@ -ldl

# Never instrumented: it is preloaded before a sanitizer's runtime, which then serves its allocations.
$(BUILD)/tests/helpers/libfailalloc.so: tests/helpers/failalloc.c
	@mkdir -p $(dir $@)
	$(CC) $(filter-out $(SAN),$(CFLAGS)) -shared $< -o $@ -ldl -lpthread

$(BUILD)/tests/helpers/libtarget.so: tests/helpers/chain_lib.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared $< -o $@

$(BUILD)/tests/helpers/chain_main: tests/helpers/chain_main.c $(BUILD)/tests/helpers/libtarget.so
	$(CC) $(CFLAGS) $< -o $@ -L$(BUILD)/tests/helpers -ltarget -Wl,-rpath,'$$ORIGIN' -ldl

# Examples: closed builds with nvcc's defaults, never rebuilt for tuning.
$(BUILD)/examples/runtime_app: examples/runtime_app/main.cu examples/runtime_app/kernels.cuh examples/common.h examples/runtime.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $< -o $@

$(BUILD)/examples/runtime_app_ptds: examples/runtime_app/main.cu examples/runtime_app/kernels.cuh examples/common.h examples/runtime.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) --default-stream per-thread $< -o $@

$(BUILD)/examples/threads_app: examples/threads_app/main.cu examples/common.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $< -o $@ -lpthread

$(BUILD)/examples/kernels.ptx: examples/driver_app/kernels.cu
	@mkdir -p $(dir $@)
	$(NVCC) -ptx -arch=compute_75 $< -o $@

$(BUILD)/examples/kernels.fatbin: examples/driver_app/kernels.cu
	@mkdir -p $(dir $@)
	$(NVCC) -fatbin -gencode arch=compute_75,code=compute_75 -gencode arch=compute_90,code=sm_90 $< -o $@

$(BUILD)/examples/driver_app: examples/driver_app/main.c examples/common.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ $(CUDA_LIB) -lm

$(BUILD)/examples/nvrtc_app: examples/nvrtc_app/main.c examples/common.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ $(CUDA_LIB) -L$(CUDA_HOME)/lib64 -lnvrtc -Wl,-rpath,$(CUDA_HOME)/lib64 -lm

# The benchmark applications: one object per kernel of kernels/, so that
# their macros never meet; built for the H200's architecture, as a site
# would build for its machine.
SUITE     := transpose gemm reduce conv2d nbody coulomb stencil
SUITE_OBJ := $(SUITE:%=$(BUILD)/examples/suite-obj/%.o) $(BUILD)/examples/suite-obj/main.o
SUITE_FLAGS := $(NVFLAGS) -arch=sm_90

$(BUILD)/examples/suite-obj/%.o: examples/suite/%.cu kernels/%.cu examples/suite/suite.h examples/common.h examples/runtime.h
	@mkdir -p $(dir $@)
	$(NVCC) $(SUITE_FLAGS) -c $< -o $@

$(BUILD)/examples/suite-obj/main.o: examples/suite/main.cu examples/suite/suite.h examples/common.h examples/runtime.h
	@mkdir -p $(dir $@)
	$(NVCC) $(SUITE_FLAGS) -c $< -o $@

$(BUILD)/examples/suite: $(SUITE_OBJ)
	$(NVCC) $(SUITE_FLAGS) $^ -o $@

$(BUILD)/bench/empty_launches: bench/empty_launches.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -arch=sm_90 $< -o $@

$(BUILD)/bench/snapshot_app: bench/snapshot_app.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -arch=sm_90 $< -o $@

$(BUILD)/bench/peak: bench/peak.cu bench/check.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -arch=sm_90 $< -o $@ -lcublas $(RPATH)

$(BUILD)/bench/timing_kinds: bench/timing_kinds.cu bench/check.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -arch=sm_90 $< -o $@ -ldl

$(BUILD)/bench/graph_driver: bench/graph_driver.cu bench/check.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -arch=sm_90 $< -o $@ -lnvrtc $(RPATH)

$(BUILD)/bench/compile: bench/compile.c $(BUILD)/libgtcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ $(BUILD)/libgtcore.a $(CORE_LIBS)

$(BUILD)/bench/replay: bench/replay.c $(BUILD)/libgtcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ $(BUILD)/libgtcore.a $(CORE_LIBS)

$(BUILD)/bench/guard_rule: bench/guard_rule.c $(BUILD)/libgtcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ $(BUILD)/libgtcore.a $(CORE_LIBS)

$(BUILD)/bench/transpose.ptx: kernels/transpose.cu
	@mkdir -p $(dir $@)
	$(NVCC) -ptx -arch=compute_90 $< -o $@

$(BUILD)/bench/watchdog_kernels.ptx: bench/watchdog_kernels.cu
	@mkdir -p $(dir $@)
	$(NVCC) -ptx -arch=compute_90 $< -o $@

$(BUILD)/bench/watchdog_overhead: bench/watchdog_overhead.c $(BUILD)/libgtcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ $(BUILD)/libgtcore.a $(CORE_LIBS) $(CUDA_LIB)

export GT_BUILD := $(abspath $(BUILD))
export GT_SANITIZE := $(if $(SAN),1,)

# PROVE_JOBS=N runs N test files at once (CI: one per processor); the GPU
# test files take turns on a lock (tests/lib.sh: gpu_alone) at any N.
PROVE_JOBS ?= 1

check:
	prove -j$(PROVE_JOBS) --exec '' tests/*.t $(BUILD)/tests/*.t

test: all
	prove -j$(PROVE_JOBS) --exec '' tests/*.t $(BUILD)/tests/*.t

DEMO_ENV := GPUTUNE_LOG=info GPUTUNE_CACHE_DIR=$(abspath $(BUILD))/demo-cache \
            GPUTUNE_POLICY=$(abspath tests/fixtures/examples.ini)

# Without a usable device the demo has nothing to tune: it says why and succeeds, everything built.
demo: all
	@if ! why=$$($(BUILD)/tests/helpers/gpu_probe 2>&1); then \
	    echo "make demo: built everything, but there is no usable CUDA device to tune on: $$why"; \
	    echo "make demo: run it on a machine with a GPU; 'make test' runs the tests here"; \
	    exit 0; \
	fi; \
	set -e; rm -rf $(BUILD)/demo-cache; \
	echo "$(DEMO_ENV) $(BUILD)/gputune tune $(BUILD)/examples/runtime_app"; \
	$(DEMO_ENV) $(BUILD)/gputune tune $(BUILD)/examples/runtime_app; \
	echo "$(DEMO_ENV) $(BUILD)/gputune run $(BUILD)/examples/runtime_app"; \
	$(DEMO_ENV) $(BUILD)/gputune run $(BUILD)/examples/runtime_app

bench: all
	$(BUILD)/bench/timing_kinds
	$(BUILD)/bench/graph_driver
	bench/launch_overhead
	bench/launch_overhead --mode tune
	bench/launch_overhead --mode online
	$(BUILD)/bench/compile kernels/transpose.cu $(BUILD)/bench/transpose.ptx
	bench/snapshot
	bench/watchdog
	bench/kernels --table $(BUILD)/kernels.md
	bench/graphs
	bench/frameworks/run --lib $(BUILD)/libgputune.so --out $(BUILD)/frameworks
	bench/frameworks/launch_cost --lib $(BUILD)/libgputune.so

# Every strategy on the recorded landscapes, on the CPU (see README, Benchmarks):
# the own landscapes and the two public ones of bench/landscapes/public (Kernel
# Tuner's benchmark hub), 100 runs each, at most 1000 trials a run, with the
# candidate parameters of REPLAY_CANDIDATES beside each strategy's defaults,
# then the leave-one-out choices among them all: about 16 minutes on 2 cores.
PUBLIC_LANDSCAPES ?= bench/landscapes/public
REPLAY_CANDIDATES ?= pareto-guided:seeds=4 pareto-guided:seeds=8 pareto-guided:local=2 pareto-guided:kappa=1 \
                     pareto-guided:step=8 pareto-guided:initial=16,step=8,top=4,seeds=4 pareto-guided:top=4 \
                     guided:local=8 pareto-tree:seeds=4 pareto-tree:sample=128 \
                     hillclimb:neighbours=8 anneal:neighbours=8 tree:b=12 bayes:local=8 bayes:acquisition=lcb
REPLAY_FLAGS ?= --runs 100 --max-trials 1000 --loo $(foreach c,$(REPLAY_CANDIDATES),--candidate $(c))
replay: $(BUILD)/bench/replay
	$(BUILD)/bench/replay $(REPLAY_FLAGS) bench/landscapes \
	    $(foreach k,convolution_milo dedispersion_milo,--t4 $(PUBLIC_LANDSCAPES)/$(k)_A100_T4.json.gz $(PUBLIC_LANDSCAPES)/$(k)_T1.json)

clean:
	rm -rf build build-asan

.PHONY: all check test demo bench clean
.PHONY: replay

include tools/rules.mk
include policy/rules.mk

-include $(wildcard $(BUILD)/shim/*.d $(BUILD)/shim/*/*.d $(BUILD)/tests/*.d $(BUILD)/tests/helpers/*.d)

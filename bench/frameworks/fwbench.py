"""fwbench: what the workload scripts of bench/frameworks share.

A workload runs as `python3 bench/frameworks/NAME_workload.py OUTPUT`. It builds
its model and inputs from fixed seeds with its framework's deterministic
switches on, runs a warm-up phase (building the model, then the first
STEADY iterations: compiles, the framework's own set-up and, under the shim in tune
mode, the trial sessions), then GROUPS groups of N iterations, each group timed
from an idle device to the next synchronization, and prints

    time_ms T            the median over the groups of a group's seconds / N, in ms
    tune_s S             the seconds of the warm-up phase
    time_ms_range A B    the fastest and slowest group, in ms per iteration
    in_process R         (paired only, below) the median over the groups of the
                         measured half's time over the suspended half's
    iterations W+GxN
    versions python=... torch=...

and, with FWBENCH_PROFILE=K in a PyTorch workload, K more iterations after its
outputs are written, under torch.profiler (CUPTI's kernel records, a graph's
nodes among them), one line per kernel and one for them all:

    kernel L US NAME     launches an iteration, median time a launch in us
    kernels_us S         every kernel's and copy's time an iteration, in us

FWBENCH_STEADY=W sets the warm-up's iterations (a training workload's
outputs then differ from a run with another warm-up).

Under bench/frameworks/run (FWBENCH_TURNS) a workload says `loaded` once its
frameworks are imported and builds its model only when told `build`, so that
the driver can start one process's imports while the one before it warms up
alone on the device; then each group is a turn the driver
gives, timed as two halves of N/2 iterations back to back: the measured half
second on even turns and first on odd ones; time_ms counts the measured
halves.  With FWBENCH_PAIRED=1 and libgputune loaded (it exports
gputune_suspend), the other half runs with the shim suspended, so that the
shim's effect is measured inside one process, free of the pace that differs
from one process to the next; a workload run alone so splits its groups the
same way.  N is even, so that every way takes the same steps.

then writes its outputs (losses, parameters, results; large ones as their
SHA-256 digests) as raw bytes to OUTPUT, so that runs compare bit for bit.
Iteration counts are fixed, not calibrated: a training workload's outputs
depend on how many steps it took.  Exit status: 0 done, 2 usage, 3 skipped
(prints `SKIP <reason>`: a module missing, no CUDA device), as
tests/scripts/*_workload.py.

The import_* functions set what each framework needs before its import
(existing settings stay), check the device, and skip when either is missing.
"""
import hashlib
import importlib
import os
import platform
import statistics
import sys
import time

VERSIONS = {"python": platform.python_version()}

# Warm-up iterations: enough for every way to be timed in its steady state. Online mode decides a
# signature with K candidates after at most 1 + 4 (K + 1) + 40 of its launches, with a second round
# of K' more 4 (K' + 2) + 48 more (about 250 for a Triton kernel's 18 and 18), and the guard judges a
# configuration after at most 66 more; a kernel launched once an iteration is settled within these.
STEADY = 400
# Where every kernel runs in graphs (the *_graphs workloads), online mode tries one kernel node of a
# graph at a time, each replay a turn of that node's signature (some 250 replays for each node), once
# the variants of every node are built (about 5 s for triton_graphs' four Triton kernels on 16 threads).
GRAPH_STEADY = 20000
# Where a workload's kernels have PTX (Triton's), online mode's variants (a register limit, a load cache
# mode, launch bounds) are built at their first launches, and their turns wait for the builds: on the
# H200 machine `triton`'s last signature was decided 0.9-1.3 s after its first launch and the guard's last
# verdict came 1.2-1.6 s after it, where 400 of its 0.3 ms iterations had ended the warm-up at 1.0 s.
# Iterations of this many cover about 2.5 s of them.
BUILD_STEADY = 8000


def skip(reason):
    print(f"SKIP {reason}", flush=True)
    sys.exit(3)


def output_path(doc):
    """OUTPUT from the command line, checked before any framework loads; usage (the script's doc) otherwise."""
    if len(sys.argv) != 2:
        print(doc.strip(), file=sys.stderr)
        sys.exit(2)
    return sys.argv[1]


def import_module(name):
    try:
        module = importlib.import_module(name)
    except ImportError as e:
        skip(f"{name} is not importable: {e}")
    if "." not in name:
        VERSIONS[name] = getattr(module, "__version__", "unknown")
    return module


def import_torch():
    """torch with a CUDA device, deterministic algorithms on (cuBLAS needs its fixed workspace for them)."""
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    import_module("numpy")  # tensors reach bytes through numpy
    torch = import_module("torch")
    if not torch.cuda.is_available():
        skip("torch sees no CUDA device")
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    torch.use_deterministic_algorithms(True)
    return torch


def inductor_deterministic():
    """TorchInductor's deterministic mode, where this version has it: reduction configurations are not
    picked by timing, which would differ between runs."""
    config = import_module("torch._inductor.config")
    if hasattr(config, "deterministic"):
        config.deterministic = True


# The transformer block's width, heads, sequence and batch (compile_block and graphs).
BLOCK_SHAPE = (256, 4, 128, 8)


def transformer_block(torch, d, heads):
    """A new pre-norm transformer block of width d: LayerNorm, causal self-attention of `heads` heads through
    scaled_dot_product_attention, LayerNorm, a GELU MLP of 4 x d, each with its residual."""
    F = torch.nn.functional

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = torch.nn.LayerNorm(d)
            self.qkv = torch.nn.Linear(d, 3 * d)
            self.proj = torch.nn.Linear(d, d)
            self.ln2 = torch.nn.LayerNorm(d)
            self.fc1 = torch.nn.Linear(d, 4 * d)
            self.fc2 = torch.nn.Linear(4 * d, d)

        def forward(self, x):
            b, s, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, heads, d // heads).permute(2, 0, 3, 1, 4)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(b, s, d))
            return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))

    return Block()


def import_jax():
    """jax with a GPU; XLA's results repeat between processes only with deterministic ops, and the shim's
    snapshot needs room on the device that preallocation would take."""
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    flags = os.environ.get("XLA_FLAGS", "")
    if "--xla_gpu_deterministic_ops" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_gpu_deterministic_ops=true").strip()
    import_module("numpy")
    jax = import_module("jax")
    try:
        if not jax.devices("gpu"):
            skip("jax sees no GPU")
    except RuntimeError as e:
        skip(f"jax sees no GPU: {e}")
    return jax


def import_cupy():
    import_module("numpy")
    cp = import_module("cupy")
    try:
        if cp.cuda.runtime.getDeviceCount() == 0:
            skip("cupy sees no CUDA device")
    except cp.cuda.runtime.CUDARuntimeError as e:
        skip(f"cupy sees no CUDA device: {e}")
    return cp


def torch_bytes(t):
    return t.detach().cpu().contiguous().numpy().tobytes()


def digest(data):
    return hashlib.sha256(data).digest()


def turns():
    """The driver's turn pipes (FWBENCH_TURNS="GO DONE", two file descriptors), or None when run alone."""
    fds = os.environ.get("FWBENCH_TURNS")
    if not fds:
        return None
    go, done = (int(fd) for fd in fds.split())
    return os.fdopen(go, "r"), os.fdopen(done, "w", buffering=1)


def suspender():
    """The shim's gputune_suspend when FWBENCH_PAIRED=1 asks for paired groups and the shim is loaded; None
    otherwise."""
    if os.environ.get("FWBENCH_PAIRED") != "1":
        return None
    import ctypes
    suspend = getattr(ctypes.CDLL(None), "gputune_suspend", None)
    if suspend is not None:
        suspend.argtypes, suspend.restype = [ctypes.c_int], ctypes.c_int
    return suspend


def time_group(step, sync, per_group):
    t = time.perf_counter()
    for _ in range(per_group):
        step()
    sync()
    return (time.perf_counter() - t) * 1e3 / per_group


def time_turn(step, sync, per_group, turn, suspend):
    """(measured, suspended) ms per iteration of a group timed as two halves, the measured one second on
    even turns; suspended is None without suspend, and that half then runs as the measured one does."""
    ms = {}
    for measured in (False, True) if turn % 2 == 0 else (True, False):
        if suspend is not None:
            suspend(0 if measured else 1)
        ms[measured] = time_group(step, sync, per_group // 2)
    if suspend is None:
        return ms[True], None
    suspend(0)
    return ms[True], ms[False]


def await_build(pipes):
    """Under the driver: `loaded`, then its `build` awaited (the top comment says why); anything else ends
    the run."""
    go, done = pipes
    done.write("loaded\n")
    if go.readline().strip() != "build":
        sys.exit(1)


def timed_groups(pipes, step, sync, groups, per_group, tune_s):
    """(ms, suspended ms or None) per iteration of each group: all at once when run alone; under the
    driver, one group per `go` it sends, so that the ways it compares take turns on the device group by
    group, until it sends `end`."""
    suspend = suspender()
    if pipes is None and suspend is None:
        return [(time_group(step, sync, per_group), None) for _ in range(groups)]
    if pipes is None:
        return [time_turn(step, sync, per_group, turn, suspend) for turn in range(groups)]
    go, done = pipes
    done.write(f"ready {groups} {tune_s:.3f}\n")
    ms = []
    for line in go:
        if line.strip() != "go":
            break
        ms.append(time_turn(step, sync, per_group, len(ms), suspend))
        done.write("done " + " ".join(f"{t:.4f}" for t in ms[-1] if t is not None) + "\n")
    return ms


def profile_kernels(step, sync, iterations):
    """The kernel lines of FWBENCH_PROFILE (the top comment): each kernel's and copy's median time and
    launches an iteration, over `iterations` more iterations; nothing outside PyTorch."""
    torch = sys.modules.get("torch")
    if torch is None:
        return
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iterations):
            step()
        sync()
    times = {}
    for e in prof.events():
        if e.device_type.name == "CUDA":
            times.setdefault(" ".join(e.name.split()), []).append(e.time_range.elapsed_us())
    for name, us in sorted(times.items(), key=lambda kv: -sum(kv[1])):
        print(f"kernel {len(us) / iterations:.2f} {statistics.median(us):.3f} {name}")
    print(f"kernels_us {sum(sum(us) for us in times.values()) / iterations:.2f}", flush=True)


def run(out, build, groups, per_group, warmup=STEADY):
    """build() makes the model and returns (step, sync, outputs): one iteration, a wait for the device,
    and the list of bytes to write. Times and writes as the top comment says."""
    if per_group % 2:
        raise ValueError(f"per_group {per_group} is odd: a turn times two groups of half as many")
    warmup = int(os.environ.get("FWBENCH_STEADY", warmup))
    pipes = turns()
    if pipes is not None:
        await_build(pipes)
    t0 = time.perf_counter()
    step, sync, outputs = build()
    for _ in range(warmup):
        step()
    sync()
    tune_s = time.perf_counter() - t0
    timed = timed_groups(pipes, step, sync, groups, per_group, tune_s)
    if not timed:
        print("no group was timed", file=sys.stderr)
        sys.exit(1)
    with open(out, "wb") as f:
        for part in outputs():
            f.write(part)
    ms = [t for t, _ in timed]
    paired = [t / suspended for t, suspended in timed if suspended]
    print(f"time_ms {statistics.median(ms):.4f}")
    print(f"tune_s {tune_s:.3f}")
    print(f"time_ms_range {min(ms):.4f} {max(ms):.4f}")
    if paired:
        print(f"in_process {statistics.median(paired):.4f}")
    print(f"iterations {warmup}+{len(timed)}x{per_group}")
    print("versions " + " ".join(f"{k}={v}" for k, v in VERSIONS.items()), flush=True)
    profiled = os.environ.get("FWBENCH_PROFILE", "")
    if profiled.isdigit() and int(profiled) > 0:
        try:
            profile_kernels(step, sync, int(profiled))
        except Exception as e:  # the profiler's own failure (CUPTI held elsewhere) leaves the run's results
            print(f"FWBENCH_PROFILE: no kernel times: {e}", file=sys.stderr)

#!/usr/bin/env python3
"""triton: hand-written Triton kernels through Triton's JIT (bench/frameworks; fwbench.py says what it prints).

usage: triton_workload.py OUTPUT

Two kernels, a row softmax and a tiled matmul (grouped tile order, tl.dot,
float32 accumulation, fixed tile sizes: no autotuning, whose choice by timing
could change the order of the sums), each launched at two sizes through the
ordinary `kernel[grid](...)` path: Triton compiles at the first launch (into
TRITON_CACHE_DIR, which bench/frameworks/run fills with the first run and
shares) and loads the cubin. An iteration updates S <- S + softmax(S) @ W for
S of 4096 x 1024 and of 1000 x 1500 (masked edges): every launch reads what
the one before wrote, so every iteration's result reaches the outputs, the
SHA-256 digests of both S at the end. Neither kernel uses atomics: the results
are deterministic.
"""
import fwbench

if __name__ == "__main__":
    OUT = fwbench.output_path(__doc__)
torch = fwbench.import_torch()
triton = fwbench.import_module("triton")
tl = fwbench.import_module("triton.language")

CASES = ((4096, 1024), (1000, 1500))  # rows, width
BM, BN, BK, GROUP = 64, 64, 32, 8


@triton.jit
def softmax_rows(out, inp, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(inp + row * stride + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out + row * stride + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def matmul_add(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    """c += a @ b, tiles taken in groups of GROUP rows of tiles for reuse in L2."""
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    in_group = GROUP * tiles_n
    first_m = (pid // in_group) * GROUP
    group_m = min(tiles_m - first_m, GROUP)
    pm = first_m + (pid % in_group) % group_m
    pn = (pid % in_group) // group_m
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        ka = k0 + rk
        x = tl.load(a + rm[:, None] * sam + ka[None, :] * sak, mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
        y = tl.load(b + ka[:, None] * sbk + rn[None, :] * sbn, mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(x, y)
    cp = c + rm[:, None] * scm + rn[None, :] * scn
    cmask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(cp, tl.load(cp, mask=cmask, other=0.0) + acc, mask=cmask)


def softmax(out, s):
    rows, cols = s.shape
    block = triton.next_power_of_2(cols)
    softmax_rows[(rows,)](out, s, s.stride(0), cols, BLOCK=block, num_warps=max(4, min(16, block // 256)))


def matmul_into(c, a, b):
    m, k = a.shape
    n = b.shape[1]
    grid = (triton.cdiv(m, BM) * triton.cdiv(n, BN),)
    matmul_add[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                     BM=BM, BN=BN, BK=BK, GROUP=GROUP, num_warps=4, num_stages=3)


def iteration():
    """The inputs, one iteration over them and the outputs: (step, outputs)."""
    torch.manual_seed(3)
    cases = []
    for rows, width in CASES:
        s = torch.randn(rows, width).cuda()
        # Small weights keep S's growth slow over the thousands of iterations.
        cases.append((s, torch.empty_like(s), (torch.randn(width, width) * 0.05).cuda()))

    def step():
        for s, p, w in cases:
            softmax(p, s)
            matmul_into(s, p, w)

    def outputs():
        return [fwbench.digest(fwbench.torch_bytes(s)) for s, _, _ in cases]

    return step, outputs


def build():
    step, outputs = iteration()
    return step, torch.cuda.synchronize, outputs


if __name__ == "__main__":
    fwbench.run(OUT, build, groups=15, per_group=100, warmup=fwbench.BUILD_STEADY)

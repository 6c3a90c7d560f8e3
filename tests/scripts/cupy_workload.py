#!/usr/bin/env python3
"""A fixed CuPy workload on the GPU whose outputs must not change under the shim.

usage: cupy_workload.py OUTPUT

Runs a RawKernel compiled from CUDA source, an ElementwiseKernel, a
ReductionKernel and cupy.sum on inputs from a fixed seed, checks them
against NumPy and writes the raw bytes of every output, concatenated, to
OUTPUT.  Exit status: 0 done, 1 wrong answer, 3 skipped (prints
`SKIP <reason>`: no numpy, no cupy, or no CUDA device).
"""
import sys


def skip(reason):
    print(f"SKIP {reason}")
    sys.exit(3)


try:
    import numpy as np
except ImportError as e:
    skip(f"numpy is not importable: {e}")
try:
    import cupy as cp
except ImportError as e:
    skip(f"cupy is not importable: {e}")
try:
    if cp.cuda.runtime.getDeviceCount() == 0:
        skip("cupy sees no CUDA device")
except cp.cuda.runtime.CUDARuntimeError as e:
    skip(f"cupy sees no CUDA device: {e}")

RAW_SRC = r"""
extern "C" __global__ void raw_axpy_sin(const float *x, const float *y, float a, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * x[i] + sinf(y[i]);
}
"""

N = 1 << 20
ROWS = 1024


def main():
    if len(sys.argv) != 2:
        print("usage: cupy_workload.py OUTPUT", file=sys.stderr)
        return 2
    rs = np.random.RandomState(1234)
    xh = rs.standard_normal(N).astype(np.float32)
    yh = rs.standard_normal(N).astype(np.float32)
    x, y = cp.asarray(xh), cp.asarray(yh)

    raw = cp.RawKernel(RAW_SRC, "raw_axpy_sin")
    axpy = cp.empty_like(x)
    raw(((N + 255) // 256,), (256,), (x, y, cp.float32(1.5), axpy, cp.int32(N)))

    square_diff = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * x - 0.5f * y",
                                       "ew_square_diff")
    sq = square_diff(x, y)

    l2 = cp.ReductionKernel("float32 x", "float32 y", "x * x", "a + b", "y = sqrt(a)", "0", "l2_norm")
    norm = l2(x)
    row_norms = l2(x.reshape(ROWS, -1), axis=1)

    total = cp.sum(y)
    col_sums = cp.sum(y.reshape(ROWS, -1), axis=0)
    cp.cuda.Device().synchronize()

    got = [("raw_axpy_sin", axpy), ("ew_square_diff", sq), ("l2_norm", norm), ("l2_norm rows", row_norms),
           ("sum", total), ("sum cols", col_sums)]
    got = [(name, cp.asnumpy(t)) for name, t in got]

    x64, y64 = xh.astype(np.float64), yh.astype(np.float64)
    want = [
        (1.5 * x64 + np.sin(y64), 1e-5, 1e-5),
        (x64 * x64 - 0.5 * y64, 1e-6, 1e-5),
        (np.sqrt((x64 * x64).sum()), 1e-5, 0),
        (np.sqrt((x64 * x64).reshape(ROWS, -1).sum(axis=1)), 1e-5, 0),
        (y64.sum(), 0, 1e-5 * np.abs(y64).sum()),
        (y64.reshape(ROWS, -1).sum(axis=0), 0, 1e-5 * np.abs(y64).reshape(ROWS, -1).sum(axis=0)),
    ]
    wrong = []
    for (name, g), (w, rtol, atol) in zip(got, want):
        if np.shape(g) != np.shape(w) or not np.all(np.abs(g.astype(np.float64) - w) <= atol + rtol * np.abs(w)):
            wrong.append(f"{name} differs from NumPy by up to {np.max(np.abs(g.astype(np.float64) - w)):.3g}")
    with open(sys.argv[1], "wb") as f:
        for _, g in got:
            f.write(np.ascontiguousarray(g).tobytes())
    if wrong:
        print("result WRONG: " + "; ".join(wrong))
        return 1
    print("result OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())

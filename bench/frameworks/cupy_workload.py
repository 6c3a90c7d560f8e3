#!/usr/bin/env python3
"""cupy: CuPy's kernel kinds in a loop (bench/frameworks; fwbench.py says what it prints).

usage: cupy_workload.py OUTPUT

An iteration over 2^22 float32 values: a RawKernel compiled from CUDA source
(t = x / 2 + sin y), an ElementwiseKernel (x = t - t^3 / 10), a ReductionKernel
(the L2 norm of each of 1024 rows of x) and cupy.sum of those norms. x carries
from one iteration to the next (bounded: |x| < 1.3 after the first), so every
iteration reaches the outputs: the SHA-256 digest of the final x, then
the last row norms and sum. CuPy keeps what it compiles where CUPY_CACHE_DIR
says (bench/frameworks/run gives each workload its own).
"""
import fwbench

OUT = fwbench.output_path(__doc__)
cp = fwbench.import_cupy()
np = fwbench.import_module("numpy")

N, ROWS = 1 << 22, 1024
RAW_SRC = r"""
extern "C" __global__ void axpy_sin(const float *x, const float *y, float a, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * x[i] + sinf(y[i]);
}
"""


def build():
    rs = np.random.RandomState(1234)
    x = cp.asarray(rs.standard_normal(N).astype(np.float32))
    y = cp.asarray(rs.standard_normal(N).astype(np.float32))
    t = cp.empty_like(x)
    axpy_sin = cp.RawKernel(RAW_SRC, "axpy_sin")
    cubic = cp.ElementwiseKernel("float32 t", "float32 x", "x = t - 0.1f * t * t * t", "bench_cubic")
    l2 = cp.ReductionKernel("float32 x", "float32 y", "x * x", "a + b", "y = sqrt(a)", "0", "bench_l2")
    state = {}

    def step():
        axpy_sin(((N + 255) // 256,), (256,), (x, y, cp.float32(0.5), t, cp.int32(N)))
        cubic(t, x)
        state["norms"] = l2(x.reshape(ROWS, -1), axis=1)
        state["total"] = cp.sum(state["norms"])

    def outputs():
        return [fwbench.digest(cp.asnumpy(x).tobytes()), cp.asnumpy(state["norms"]).tobytes(),
                cp.asnumpy(state["total"]).tobytes()]

    return step, cp.cuda.Device().synchronize, outputs


fwbench.run(OUT, build, groups=15, per_group=100)

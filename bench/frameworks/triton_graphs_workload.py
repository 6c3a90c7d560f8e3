#!/usr/bin/env python3
"""triton_graphs: the triton workload's iteration replayed as a CUDA graph (bench/frameworks; fwbench.py says what it prints).

usage: triton_graphs_workload.py OUTPUT

triton's hand-written softmax and matmul at its two sizes, launched eagerly
for WARM iterations on a side stream (as torch.cuda.graphs asks: Triton
compiles and loads there, and under the shim in tune mode their sessions run
there), then captured once into a torch.cuda.CUDAGraph: every iteration after
is one replay, and no kernel launch passes the launch hooks. Outputs: the
SHA-256 digests of both S at the end, as triton's.
"""
import fwbench

OUT = fwbench.output_path(__doc__)
import triton_workload as tw  # noqa: E402 (after the usage check: it loads the frameworks)

torch = tw.torch
WARM = 3


def build():
    eager, outputs = tw.iteration()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(WARM):
            eager()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        eager()
    return graph.replay, torch.cuda.synchronize, outputs


fwbench.run(OUT, build, groups=15, per_group=100, warmup=fwbench.GRAPH_STEADY)

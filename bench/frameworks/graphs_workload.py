#!/usr/bin/env python3
"""graphs: a transformer block replayed as CUDA graphs (bench/frameworks; fwbench.py says what it prints).

usage: graphs_workload.py OUTPUT

compile_block's pre-norm block (d = 256, sequence 128, batch 8, float32),
inference only, under torch.compile(mode="reduce-overhead"): TorchInductor's
Triton kernels and cuBLAS's matmuls captured into CUDA graphs by PyTorch's
cudagraph trees, so that after the warm-up every iteration is graph replays
and no kernel launch passes the launch hooks. An iteration feeds the last
output, normalized by a final LayerNorm, back as the input and keeps
the output. Outputs: the SHA-256 digest of the final output.
"""
import fwbench

OUT = fwbench.output_path(__doc__)
torch = fwbench.import_torch()
fwbench.inductor_deterministic()

D, HEADS, SEQ, BATCH = fwbench.BLOCK_SHAPE
F = torch.nn.functional


def build():
    torch.manual_seed(7)
    model = fwbench.transformer_block(torch, D, HEADS).cuda().eval()

    def bounded(x):
        return F.layer_norm(model(x), (D,))

    compiled = torch.compile(bounded, mode="reduce-overhead")
    state = {"x": torch.randn(BATCH, SEQ, D).cuda()}

    def step():
        with torch.no_grad():
            torch.compiler.cudagraph_mark_step_begin()
            state["x"] = compiled(state["x"]).clone()

    def outputs():
        return [fwbench.digest(fwbench.torch_bytes(state["x"]))]

    return step, torch.cuda.synchronize, outputs


fwbench.run(OUT, build, groups=20, per_group=100, warmup=fwbench.GRAPH_STEADY)

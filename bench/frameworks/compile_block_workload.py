#!/usr/bin/env python3
"""compile_block: a transformer block under torch.compile (bench/frameworks; fwbench.py says what it prints).

usage: compile_block_workload.py OUTPUT

A pre-norm block (LayerNorm, 4-head causal self-attention through
scaled_dot_product_attention, LayerNorm, a GELU MLP of 4 x d) at d = 256,
sequence 128, batch 8, float32. The block and its MSE loss are one
torch.compile'd function (default mode: TorchInductor generates Triton kernels
for the normalizations and elementwise work, cuBLAS runs the matmuls); an
iteration is that forward, its compiled backward and an SGD step. The compile
happens in the first warm-up iteration: it counts in tune_s, never in time_ms.
TorchInductor's and Triton's caches live where TORCHINDUCTOR_CACHE_DIR and
TRITON_CACHE_DIR say (bench/frameworks/run gives each workload its own, filled
by its first run and reused by the others, so that every run launches the same
kernels). Deterministic algorithms, and Inductor's deterministic mode where
this version has it, keep reduction configurations from being picked by
timing. Outputs: the last loss and SHA-256 digests of every parameter after
the last step.
"""
import fwbench

OUT = fwbench.output_path(__doc__)
torch = fwbench.import_torch()
fwbench.inductor_deterministic()

D, HEADS, SEQ, BATCH = fwbench.BLOCK_SHAPE
F = torch.nn.functional


def build():
    torch.manual_seed(7)
    model = fwbench.transformer_block(torch, D, HEADS).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(BATCH, SEQ, D).cuda()
    y = torch.randn(BATCH, SEQ, D).cuda()

    def block_loss(x, y):
        return F.mse_loss(model(x), y)

    compiled = torch.compile(block_loss)
    state = {}

    def step():
        opt.zero_grad(set_to_none=True)
        loss = compiled(x, y)
        loss.backward()
        opt.step()
        state["loss"] = loss.detach()

    def outputs():
        return [fwbench.torch_bytes(state["loss"])] + [fwbench.digest(fwbench.torch_bytes(p))
                                                      for p in model.parameters()]

    return step, torch.cuda.synchronize, outputs


fwbench.run(OUT, build, groups=20, per_group=40)

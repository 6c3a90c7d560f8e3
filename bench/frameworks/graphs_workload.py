#!/usr/bin/env python3
"""graphs: a transformer block replayed as CUDA graphs (bench/frameworks; fwbench.py says what it prints).

usage: graphs_workload.py OUTPUT

compile_block's pre-norm block (d = 256, sequence 128, batch 8, float32),
inference only, under torch.compile(mode="reduce-overhead"): TorchInductor's
Triton kernels and cuBLAS's matmuls captured into CUDA graphs by PyTorch's
cudagraph trees, so that after the warm-up every iteration is graph replays
and no kernel launch passes the launch hooks. An iteration feeds the last
output back as the input (bounded by the block's normalizations) and keeps
the output. Outputs: the SHA-256 digest of the final output.
"""
import fwbench

OUT = fwbench.output_path(__doc__)
torch = fwbench.import_torch()
inductor_config = fwbench.import_module("torch._inductor.config")
if hasattr(inductor_config, "deterministic"):
    inductor_config.deterministic = True

D, HEADS, SEQ, BATCH = 256, 4, 128, 8
F = torch.nn.functional


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = torch.nn.LayerNorm(D)
        self.qkv = torch.nn.Linear(D, 3 * D)
        self.proj = torch.nn.Linear(D, D)
        self.ln2 = torch.nn.LayerNorm(D)
        self.fc1 = torch.nn.Linear(D, 4 * D)
        self.fc2 = torch.nn.Linear(4 * D, D)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, D))
        return F.layer_norm(x + self.fc2(F.gelu(self.fc1(self.ln2(x)))), (D,))


def build():
    torch.manual_seed(7)
    model = Block().cuda().eval()
    compiled = torch.compile(model, mode="reduce-overhead")
    state = {"x": torch.randn(BATCH, SEQ, D).cuda()}

    def step():
        with torch.no_grad():
            torch.compiler.cudagraph_mark_step_begin()
            state["x"] = compiled(state["x"]).clone()

    def outputs():
        return [fwbench.digest(fwbench.torch_bytes(state["x"]))]

    return step, torch.cuda.synchronize, outputs


fwbench.run(OUT, build, warmup=10, groups=15, per_group=100)

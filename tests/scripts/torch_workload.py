#!/usr/bin/env python3
"""A fixed PyTorch workload on the GPU whose outputs must not change under the shim.

usage: torch_workload.py OUTPUT

Runs matmul, conv2d, softmax, layer_norm and an elementwise chain in float32
on inputs from a fixed seed, with every deterministic switch on, checks them
against the same computation on the CPU and writes the raw bytes of every
output, concatenated, to OUTPUT.  Exit status: 0 done, 1 wrong answer,
3 skipped (prints `SKIP <reason>`: no numpy, no torch, or no CUDA device).
"""
import os
import sys


def skip(reason):
    print(f"SKIP {reason}")
    sys.exit(3)


# cuBLAS is deterministic only with a fixed workspace; torch refuses to run
# deterministic matmuls without it.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

try:
    import numpy  # noqa: F401  (torch needs it for .numpy())
except ImportError as e:
    skip(f"numpy is not importable: {e}")
try:
    import torch
    import torch.nn.functional as F
except ImportError as e:
    skip(f"torch is not importable: {e}")
if not torch.cuda.is_available():
    skip("torch sees no CUDA device")

torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.use_deterministic_algorithms(True)


def inputs():
    g = torch.Generator().manual_seed(20240607)

    def randn(*shape):
        return torch.randn(*shape, generator=g, dtype=torch.float32)

    return {
        "a": randn(512, 768),
        "b": randn(768, 384),
        "x": randn(8, 16, 64, 64),
        "w": randn(32, 16, 3, 3) * 0.1,
        "bias": randn(32),
        "logits": randn(256, 1000) * 3,
        "ln_in": randn(64, 128, 256),
        "ln_w": randn(256),
        "ln_b": randn(256),
        "e1": randn(1 << 20),
        "e2": randn(1 << 20),
    }


def workload(t):
    return [
        ("matmul", t["a"] @ t["b"]),
        ("conv2d", F.conv2d(t["x"], t["w"], t["bias"], padding=1)),
        ("softmax", torch.softmax(t["logits"], dim=-1)),
        ("layer_norm", F.layer_norm(t["ln_in"], (256,), t["ln_w"], t["ln_b"])),
        ("elementwise", (t["e1"] * 2 + t["e2"]).relu().exp()),
    ]


def main():
    if len(sys.argv) != 2:
        print("usage: torch_workload.py OUTPUT", file=sys.stderr)
        return 2
    cpu = inputs()
    gpu = {k: v.to("cuda") for k, v in cpu.items()}
    with torch.no_grad():
        want = workload(cpu)
        got = [(name, t.cpu()) for name, t in workload(gpu)]
    torch.cuda.synchronize()

    wrong = []
    for (name, g), (_, w) in zip(got, want):
        if not torch.allclose(g, w, rtol=1e-3, atol=1e-3):
            wrong.append(f"{name} differs from the CPU by up to {(g - w).abs().max().item():.3g}")
    with open(sys.argv[1], "wb") as f:
        for _, t in got:
            f.write(t.contiguous().numpy().tobytes())
    if wrong:
        print("result WRONG: " + "; ".join(wrong))
        return 1
    print("result OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())

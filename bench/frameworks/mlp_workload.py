#!/usr/bin/env python3
"""mlp: a launch-bound PyTorch training loop (bench/frameworks; fwbench.py says what it prints).

usage: mlp_workload.py OUTPUT

16 x (Linear(64, 64) + ReLU) at batch 1 in float32. An iteration is a whole
training step: forward, MSE loss, backward and an SGD step (foreach), about a
hundred kernels of a few microseconds, none with work to hide a launch behind.
Forward alone would spend a little less host time per kernel but run a third
of the kernel kinds (no backward GEMMs, reductions or optimizer kernels); the
whole step puts every kind in the same launch-bound stream, which is where a
shim's cost per launch and a variant's effect on its neighbours show.
Outputs: the last loss and every parameter after the last step; each step
starts from the previous one's parameters, so every iteration counts.
"""
import fwbench

OUT = fwbench.output_path(__doc__)
torch = fwbench.import_torch()

LAYERS, WIDTH, BATCHES = 16, 64, 8


def build():
    torch.manual_seed(1234)
    layers = []
    for _ in range(LAYERS):
        linear = torch.nn.Linear(WIDTH, WIDTH)
        # He initialization keeps the activations, and so the gradients, from vanishing through 16 ReLUs.
        torch.nn.init.kaiming_uniform_(linear.weight, nonlinearity="relu")
        layers += [linear, torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    xs = torch.randn(BATCHES, 1, WIDTH).cuda()
    ys = torch.randn(BATCHES, 1, WIDTH).cuda()
    state = {"i": 0, "loss": None}

    def step():
        i = state["i"] % BATCHES
        state["i"] += 1
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(xs[i]), ys[i])
        loss.backward()
        opt.step()
        state["loss"] = loss.detach()

    def outputs():
        return [fwbench.torch_bytes(state["loss"])] + [fwbench.torch_bytes(p) for p in model.parameters()]

    return step, torch.cuda.synchronize, outputs


fwbench.run(OUT, build, groups=20, per_group=10)

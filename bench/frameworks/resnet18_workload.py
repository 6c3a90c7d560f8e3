#!/usr/bin/env python3
"""resnet18: a torchvision ResNet-18 training step (bench/frameworks; fwbench.py says what it prints).

usage: resnet18_workload.py OUTPUT

resnet18(weights=None), seeded initialization, one fixed batch of 32 images of
3 x 128 x 128 in float32 and 1000 classes; an iteration is forward,
cross-entropy, backward and SGD with momentum: cuDNN convolutions and batch
norm, cuBLAS, PyTorch's own elementwise, pooling and reduction kernels.
Deterministic algorithms only (fwbench.import_torch); the cross-entropy is
written out against one-hot targets so that it needs only elementwise kernels
and reductions. Outputs: the last loss, then SHA-256 digests of the last
logits and of every parameter and buffer (batch-norm statistics included)
after the last step.
"""
import fwbench

OUT = fwbench.output_path(__doc__)
torch = fwbench.import_torch()
torchvision = fwbench.import_module("torchvision")

BATCH, SIZE, CLASSES = 32, 128, 1000


def build():
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None, num_classes=CLASSES).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(BATCH, 3, SIZE, SIZE).cuda()
    labels = torch.randint(0, CLASSES, (BATCH,))
    onehot = torch.nn.functional.one_hot(labels, CLASSES).float().cuda()
    state = {}

    def step():
        opt.zero_grad(set_to_none=True)
        logits = model(x)
        loss = -(torch.log_softmax(logits, dim=1) * onehot).sum(dim=1).mean()
        loss.backward()
        opt.step()
        state["loss"], state["logits"] = loss.detach(), logits.detach()

    def outputs():
        parts = [fwbench.torch_bytes(state["loss"]), fwbench.digest(fwbench.torch_bytes(state["logits"]))]
        return parts + [fwbench.digest(fwbench.torch_bytes(t)) for t in model.state_dict().values()]

    return step, torch.cuda.synchronize, outputs


fwbench.run(OUT, build, groups=20, per_group=10)

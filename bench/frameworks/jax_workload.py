#!/usr/bin/env python3
"""jax: a jitted JAX training step (bench/frameworks; fwbench.py says what it prints).

usage: jax_workload.py OUTPUT

An MLP of 6 dense layers of 1024 (tanh) on a fixed batch of 1024 in float32:
one jax.jit'd function computes the MSE loss, its gradient (jax.value_and_grad)
and the SGD update, the parameters donated, so XLA fuses it into a few GEMMs
and generated kernels. XLA compiles at the first call, in the warm-up phase.
XLA_FLAGS gets --xla_gpu_deterministic_ops=true (without it results differ
between processes; it also turns off XLA's autotuning, whose choices by timing
could differ between runs) and XLA_PYTHON_CLIENT_PREALLOCATE=false
(fwbench.import_jax). Outputs: the last loss and SHA-256 digests of every
parameter after the last step.
"""
import fwbench

OUT = fwbench.output_path(__doc__)
jax = fwbench.import_jax()
np = fwbench.import_module("numpy")
jnp = jax.numpy

WIDTH, DEPTH, BATCH, LR = 1024, 6, 1024, 0.01


def loss_fn(params, x, y):
    h = x
    for w, b in params[:-1]:
        h = jnp.tanh(h @ w + b)
    w, b = params[-1]
    return jnp.mean((h @ w + b - y) ** 2)


def train_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - LR * g, params, grads), loss


def build():
    rs = np.random.RandomState(5)

    def normal(*shape, scale=1.0):
        return jnp.asarray((rs.standard_normal(shape) * scale).astype(np.float32))

    params = [(normal(WIDTH, WIDTH, scale=WIDTH ** -0.5), jnp.zeros(WIDTH, jnp.float32)) for _ in range(DEPTH)]
    x, y = normal(BATCH, WIDTH), normal(BATCH, WIDTH)
    jitted = jax.jit(train_step, donate_argnums=0)
    state = {"params": params, "loss": None}

    def step():
        state["params"], state["loss"] = jitted(state["params"], x, y)

    def sync():
        jax.block_until_ready((state["params"], state["loss"]))

    def outputs():
        leaves = jax.tree_util.tree_leaves(state["params"])
        return [np.asarray(state["loss"]).tobytes()] + [fwbench.digest(np.asarray(p).tobytes()) for p in leaves]

    return step, sync, outputs


fwbench.run(OUT, build, groups=15, per_group=50)

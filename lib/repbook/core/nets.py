"""The small seeded networks and training loops the chapters share.

Randomness never comes from torch's global generator as the chapter left it: a network is built
inside `seeded(seed)` (the global generator forked and seeded, then restored) or initialised from
a `torch.Generator`, and a training loop draws its batch order from a generator it is given. The
same seed gives the same network and the same training on every run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from contextlib import contextmanager

import torch
from torch import nn

from . import checks


@contextmanager
def seeded(seed: int):
    """Torch's global generator forked and seeded with `seed` inside the block, and left as it
    was after it (what layers' default initialisation draws from)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        yield


def default_init_(module: nn.Module, generator: torch.Generator) -> nn.Module:
    """PyTorch's default initialisation of every Linear and Conv2d in `module`, drawn from
    `generator`: weights and biases uniform on ±1/√fan_in (what `kaiming_uniform_(a=√5)`
    gives). Normalisation layers keep their ones and zeros. Returns `module`."""
    checks.torch_generator("generator", generator)
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, (nn.Linear, nn.Conv2d)):
                bound = 1.0 / math.sqrt(m.weight[0].numel())
                m.weight.uniform_(-bound, bound, generator=generator)
                if m.bias is not None:
                    m.bias.uniform_(-bound, bound, generator=generator)
    return module


def mlp(
    sizes: Sequence[int],
    *,
    seed: int | None = None,
    generator: torch.Generator | None = None,
) -> nn.Sequential:
    """Linear layers of the given widths with ReLU between them (none after the last).

    With `seed`, PyTorch's default initialisation is drawn inside `seeded(seed)`; with
    `generator`, the same distribution is drawn from `generator` (`default_init_`)."""
    if (seed is None) == (generator is None):
        raise ValueError(
            "give the network's randomness as seed= or generator=, one of them"
        )
    sizes = list(sizes)
    if len(sizes) < 2:
        raise ValueError(
            f"sizes must give an input and an output width at least, got {sizes!r}"
        )
    sizes = [checks.integer("each layer width", s, at_least=1) for s in sizes]

    def build() -> nn.Sequential:
        layers: list[nn.Module] = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        return nn.Sequential(*layers[:-1])

    if generator is not None:
        return default_init_(build(), generator)
    with seeded(checks.integer("seed", seed)):
        return build()


def train_epochs(
    net: nn.Module,
    opt: torch.optim.Optimizer,
    loss_fn: Callable,
    X: torch.Tensor,
    y: torch.Tensor,
    epochs: int,
    generator: torch.Generator,
    batch_size: int = 128,
) -> None:
    """Plain minibatch training: each epoch a fresh permutation of the rows drawn from
    `generator`, one optimiser step per batch of `batch_size` rows."""
    checks.integer("epochs", epochs, at_least=0)
    checks.integer("batch_size", batch_size, at_least=1)
    if len(X) != len(y):
        raise ValueError(
            f"X and y must have one row per label, got {len(X)} and {len(y)}"
        )
    for _ in range(epochs):
        perm = torch.randperm(len(y), generator=generator)
        for i in range(0, len(y), batch_size):
            b = perm[i : i + batch_size]
            opt.zero_grad()
            loss_fn(net(X[b]), y[b]).backward()
            opt.step()


def accuracy(net: nn.Module, X: torch.Tensor, y: torch.Tensor) -> float:
    """Share of rows whose arg-max output is the label, as the exact ratio of counts (no
    gradients)."""
    with torch.no_grad():
        return int((net(X).argmax(1) == y).sum()) / len(y)


@contextmanager
def single_threaded(preload: Sequence[str] = ()):
    """Torch and the BLAS/OpenMP pools on one thread inside the block, restored after it.

    For tiny networks a second thread only adds synchronisation (several-fold slower on a busy
    machine), and one thread makes every float reduction independent of the machine's thread
    count. `preload` names modules to import first, so that the limit also covers the pools
    they load (e.g. ("scipy.optimize", "sklearn.linear_model")); a pool loaded inside the block
    is not limited."""
    import importlib

    from threadpoolctl import threadpool_limits

    for name in preload:
        importlib.import_module(name)
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1):
            yield
    finally:
        torch.set_num_threads(before)

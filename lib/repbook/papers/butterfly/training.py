"""Deterministic training: the fixed batch order (``batch_order``), the paper's triangle
learning-rate schedule (``triangle_schedule``) and SGD with momentum from a ``TrainState``
(``train``), bit-identical from equal states whatever ran before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.func import functional_call

from repbook.core import checks

from .measures import l2_distance
from .models import Params, _check_data, _check_same_keys


# ----------------------------------------------------------------------------------------------
# deterministic training
def batch_order(
    n: int, *, batch_size: int, epochs: int, generator: torch.Generator
) -> torch.Tensor:
    """The fixed sequence of minibatches: one random permutation of range(n) per epoch, cut into
    ``n // batch_size`` full batches (the remainder is dropped). Shape (steps, batch_size)."""
    n = checks.integer("n", n, at_least=1)
    batch_size = checks.integer("batch_size", batch_size, at_least=1)
    epochs = checks.integer("epochs", epochs, at_least=1)
    checks.torch_generator("generator", generator)
    if batch_size > n:
        raise ValueError(f"batch_size must be at most n = {n}, got {batch_size}")
    per_epoch = n // batch_size
    rows = [
        torch.randperm(n, generator=generator)[: per_epoch * batch_size].view(
            per_epoch, batch_size
        )
        for _ in range(epochs)
    ]
    return torch.cat(rows)


def triangle_schedule(
    total_steps: int, *, peak_lr: float, warmup_frac: float
) -> np.ndarray:
    """Learning rate of steps 0..T−1: linear warm-up to ``peak_lr`` over the first
    ``warmup_frac`` of training, then linear decay to 0 at step T (the paper's "triangle")."""
    total_steps = checks.integer("total_steps", total_steps, at_least=1)
    checks.number("peak_lr", peak_lr, above=0)
    checks.number("warmup_frac", warmup_frac, at_least=0, below=1)
    warm = warmup_frac * total_steps
    t = np.arange(total_steps, dtype=np.float64)
    up = (t + 1) / warm if warm > 0 else np.ones_like(t)
    down = (total_steps - t) / (total_steps - warm)
    return peak_lr * np.minimum(np.minimum(up, down), 1.0)


@dataclass(frozen=True)
class TrainState:
    """Parameters and SGD momentum buffers after ``step`` optimisation steps."""

    params: Params
    momentum: Params
    step: int

    @staticmethod
    def start(params: Params) -> "TrainState":
        """Step 0: the given parameters and zero momentum (torch's SGD starts the same way)."""
        return TrainState(
            {k: v.clone() for k, v in params.items()},
            {k: torch.zeros_like(v) for k, v in params.items()},
            0,
        )

    def with_params(self, params: Params) -> "TrainState":
        """The same optimiser state and step with other parameters (a perturbed copy)."""
        _check_same_keys(self.params, params)
        return TrainState(
            params, {k: v.clone() for k, v in self.momentum.items()}, self.step
        )


@dataclass(frozen=True)
class TrainResult:
    """What ``train`` returns: the final state, the states kept at ``save_at`` and the L² distances
    to the reference parameters given in ``distance_to`` (by step)."""

    final: TrainState
    saved: dict[int, TrainState]
    distances: dict[int, float]


def train(
    model: nn.Module,
    state: TrainState,
    X: torch.Tensor,
    y: torch.Tensor,
    order: torch.Tensor,
    lrs,
    *,
    momentum: float = 0.9,
    stop: int | None = None,
    save_at: Sequence[int] = (),
    distance_to: Mapping[int, Params] | None = None,
) -> TrainResult:
    """SGD with (heavy-ball) momentum on the cross-entropy, from ``state.step`` to ``stop``.

    Step s uses the minibatch ``order[s]`` and learning rate ``lrs[s]``: two calls from equal
    states give bit-identical results, whatever happened before. The update is torch's
    ``optim.SGD`` (no dampening, no Nesterov, no weight decay): b ← μ·b + g, θ ← θ − η·b.
    Keeps copies of the states at the steps in ``save_at`` and, for every step s in
    ``distance_to``, the distance ‖θ_s − distance_to[s]‖₂ (both in [state.step, stop]).
    The inputs are not modified.
    """
    _check_data(X, y)
    stop = len(order) if stop is None else stop
    if not 0 <= state.step <= stop <= len(order):
        raise ValueError(
            f"need 0 ≤ state.step ≤ stop ≤ len(order) = {len(order)}, got "
            f"state.step = {state.step}, stop = {stop}"
        )
    if len(lrs) < stop:
        raise ValueError(f"lrs has {len(lrs)} entries, fewer than stop = {stop} steps")
    checks.number("momentum", momentum, at_least=0, below=1)
    distance_to = {} if distance_to is None else distance_to
    bad = [s for s in list(save_at) + list(distance_to) if not state.step <= s <= stop]
    if bad:
        raise ValueError(
            f"save_at and distance_to steps must lie in [{state.step}, {stop}], "
            f"got {bad}"
        )
    names = list(state.params)
    params = {k: v.detach().clone() for k, v in state.params.items()}
    bufs = {k: v.detach().clone() for k, v in state.momentum.items()}
    saved: dict[int, TrainState] = {}
    distances: dict[int, float] = {}
    wanted = set(int(s) for s in save_at)

    def keep(s):
        if s in wanted:
            saved[s] = TrainState(
                {k: v.clone() for k, v in params.items()},
                {k: v.clone() for k, v in bufs.items()},
                s,
            )
        if s in distance_to:
            distances[s] = l2_distance(params, distance_to[s])

    for s in range(state.step, stop):
        keep(s)
        idx = order[s]
        leaves = {k: params[k].requires_grad_(True) for k in names}
        loss = nn.functional.cross_entropy(
            functional_call(model, leaves, (X[idx],)), y[idx]
        )
        grads = torch.autograd.grad(loss, [leaves[k] for k in names])
        lr = float(lrs[s])
        with torch.no_grad():
            for k, g in zip(names, grads):
                bufs[k] = bufs[k].mul(momentum).add(g)
                params[k] = params[k].detach().add(bufs[k], alpha=-lr)
    keep(stop)
    return TrainResult(TrainState(params, bufs, stop), saved, distances)

"""What separates two trained networks: the L² distance, the loss and error barrier along the
line between them (``loss_barrier``), linear and angular CKA of their hidden features, whether
one weight can pass a signal (``weight_activity``), the pair compared before and after weight
matching (``compare_pair``), and the same measures from the peer packages ``rebasin`` and
``repsim``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.func import functional_call

from repbook.core import checks
from repbook.core.nets import seeded

from .matching import PermSpec, permute, weight_matching
from .models import MLP, Params, _check_data, _check_same_keys, fresh_module


# ----------------------------------------------------------------------------------------------
# divergence measures
def l2_distance(a: Params, b: Params) -> float:
    """‖θ_a − θ_b‖₂ over all parameters (accumulated in float64)."""
    _check_same_keys(a, b)
    return math.sqrt(
        sum(float(((a[k].double() - b[k].double()) ** 2).sum()) for k in a)
    )


def interpolate(a: Params, b: Params, alpha: float) -> Params:
    """(1 − α)θ_a + αθ_b, computed as θ_a + α(θ_b − θ_a): exactly θ_a at α = 0 and whenever
    θ_a = θ_b, and exactly θ_b at α = 1."""
    _check_same_keys(a, b)
    checks.number("alpha", alpha, at_least=0, at_most=1)
    if alpha == 1.0:
        return {k: v.clone() for k, v in b.items()}
    return {k: a[k] + alpha * (b[k] - a[k]) for k in a}


@torch.no_grad()
def evaluate(
    model: nn.Module,
    params: Params,
    X: torch.Tensor,
    y: torch.Tensor,
    *,
    batch_size: int = 1000,
) -> tuple[float, float]:
    """Mean cross-entropy and error rate of ``params`` on (X, y), in fixed-size chunks."""
    _check_data(X, y)
    batch_size = checks.integer("batch_size", batch_size, at_least=1)
    loss, wrong = 0.0, 0
    for i in range(0, len(y), batch_size):
        out = functional_call(model, params, (X[i : i + batch_size],))
        loss += float(
            nn.functional.cross_entropy(out, y[i : i + batch_size], reduction="sum")
        )
        wrong += int((out.argmax(1) != y[i : i + batch_size]).sum())
    return loss / len(y), wrong / len(y)


@dataclass(frozen=True)
class Barrier:
    """Loss and error along the line θ_a → θ_b and the barriers above the straight chord."""

    alphas: np.ndarray
    loss: np.ndarray
    error: np.ndarray
    loss_barrier: float
    error_barrier: float


def _chord_excess(values: np.ndarray, alphas: np.ndarray) -> float:
    chord = values[0] + alphas * (values[-1] - values[0])
    return float(np.max(values - chord))


def loss_barrier(
    model: nn.Module,
    a: Params,
    b: Params,
    X: torch.Tensor,
    y: torch.Tensor,
    *,
    n_alpha: int = 11,
    batch_size: int = 1000,
) -> Barrier:
    """max_α ℓ(θ_α) − [(1−α)ℓ(θ_a) + αℓ(θ_b)] over ``n_alpha`` equally spaced α ∈ [0, 1], for the
    cross-entropy and for the error rate. Both are ≥ 0 (the end points count) and exactly 0 when
    θ_a = θ_b."""
    _check_same_keys(a, b)
    n_alpha = checks.integer("n_alpha", n_alpha, at_least=1)
    if n_alpha < 3:
        raise ValueError(
            f"n_alpha must be at least 3 (both ends and one interior point), got {n_alpha}"
        )
    alphas = np.linspace(0.0, 1.0, n_alpha)
    res = np.array(
        [
            evaluate(model, interpolate(a, b, float(al)), X, y, batch_size=batch_size)
            for al in alphas
        ]
    )
    return Barrier(
        alphas,
        res[:, 0],
        res[:, 1],
        _chord_excess(res[:, 0], alphas),
        _chord_excess(res[:, 1], alphas),
    )


@torch.no_grad()
def hidden_features(
    model: nn.Module, params: Params, X: torch.Tensor, *, batch_size: int = 1000
) -> list[torch.Tensor]:
    """The activations of every hidden layer (MLP) or block (ResNet), flattened to (n, features)."""
    chunks = [
        functional_call(
            model, params, (X[i : i + batch_size],), {"return_features": True}
        )[1]
        for i in range(0, len(X), batch_size)
    ]
    return [torch.cat([c[j] for c in chunks]).flatten(1) for j in range(len(chunks[0]))]


def linear_cka(X, Y) -> float:
    """Linear centred kernel alignment between two representations of the same n inputs.

    CKA = ‖Yᶜᵀ Xᶜ‖²_F / (‖Xᶜᵀ Xᶜ‖_F ‖Yᶜᵀ Yᶜ‖_F) with column-centred Xᶜ, Yᶜ (n × p, n × q); the same
    as the cosine between the centred Gram matrices, which is used when p or q exceeds n.
    Invariant to orthogonal transforms (so to permutations of units) and isotropic scaling.
    """
    X = np.asarray(
        X.detach().cpu() if isinstance(X, torch.Tensor) else X, dtype=np.float64
    )
    Y = np.asarray(
        Y.detach().cpu() if isinstance(Y, torch.Tensor) else Y, dtype=np.float64
    )
    if X.ndim != 2 or Y.ndim != 2 or X.shape[0] != Y.shape[0] or X.shape[0] < 2:
        raise ValueError(
            f"X and Y must be 2-D with the same number (≥ 2) of rows, got shapes "
            f"{X.shape} and {Y.shape}"
        )
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(Y))):
        raise ValueError("X and Y must be finite")
    X = X - X.mean(0)
    Y = Y - Y.mean(0)
    if max(X.shape[1], Y.shape[1]) > X.shape[0]:
        K, L = X @ X.T, Y @ Y.T
        num, den = float(np.sum(K * L)), float(np.linalg.norm(K) * np.linalg.norm(L))
    else:
        num = float(np.linalg.norm(Y.T @ X) ** 2)
        den = float(np.linalg.norm(X.T @ X) * np.linalg.norm(Y.T @ Y))
    if den == 0.0:
        raise ValueError(
            "a representation is constant over the inputs: CKA is undefined"
        )
    return num / den


def angular_cka(X, Y) -> float:
    """arccos(linear CKA) in radians: 0 for equivalent representations, π/2 for unrelated ones."""
    return float(np.arccos(np.clip(linear_cka(X, Y), -1.0, 1.0)))


# ----------------------------------------------------------------------------------------------
# two trained networks side by side
@torch.no_grad()
def weight_activity(
    model: MLP, params: Params, X: torch.Tensor, *, name: str, index: int
) -> tuple[float, float, float]:
    """Whether one weight of a ReLU MLP can pass a signal on the inputs ``X``.

    The weight ``name``[``index``] (flat index into ``layers.ℓ.weight``) reads from unit j of
    the layer below (a hidden unit, or input j for ℓ = 0) and feeds unit i of layer ℓ (a hidden
    unit, or an output, which always passes). Returns the fractions of inputs on which the unit
    read from is non-zero, on which the unit fed is active, and on which both hold. A weight with
    0 in the last place never changes a forward pass, and its gradient is 0.
    """
    if not isinstance(model, MLP):
        raise TypeError(f"model must be a butterfly.MLP, got {type(model).__name__}")
    parts = name.split(".")
    n_layers = len(model.layers)
    if (
        len(parts) != 3
        or parts[0] != "layers"
        or parts[2] != "weight"
        or not parts[1].isdigit()
        or int(parts[1]) >= n_layers
    ):
        raise ValueError(
            f"name must be 'layers.<i>.weight' with i < {n_layers}, got {name!r}"
        )
    layer = int(parts[1])
    n_out, n_in = params[name].shape
    if (
        isinstance(index, bool)
        or not isinstance(index, (int, np.integer))
        or not 0 <= index < n_out * n_in
    ):
        raise ValueError(
            f"index must be an int in [0, {n_out * n_in}) for {name!r}, got {index!r}"
        )
    unit_out, unit_in = divmod(int(index), n_in)
    feats = hidden_features(model, params, X)
    below = X.flatten(1) if layer == 0 else feats[layer - 1]
    active_in = below[:, unit_in] != 0
    active_out = (
        feats[layer][:, unit_out] > 0
        if layer < n_layers - 1
        else torch.ones_like(active_in)
    )
    return (
        float(active_in.float().mean()),
        float(active_out.float().mean()),
        float((active_in & active_out).float().mean()),
    )


@dataclass(frozen=True)
class PairComparison:
    """θ_a and θ_b compared: L² before and after weight matching (θ_b aligned to θ_a), whether
    the matching was the identity, the aligned θ_b, and linear and angular CKA per hidden layer
    (MLP) or block (ResNet) on the inputs given."""

    l2: float
    l2_aligned: float
    identity: bool
    aligned: Params
    cka: tuple[float, ...]
    angular: tuple[float, ...]


def compare_pair(
    model: nn.Module,
    a: Params,
    b: Params,
    spec: PermSpec,
    X: torch.Tensor,
    *,
    generator: torch.Generator,
    features_a: Sequence[torch.Tensor] | None = None,
) -> PairComparison:
    """Weight matching of θ_b to θ_a, the L² distances before and after, and CKA per layer on
    ``X`` (``features_a``: θ_a's hidden features on ``X``, when already computed)."""
    _check_same_keys(a, b)
    perms = weight_matching(a, b, spec, generator=generator)
    identity = all(torch.equal(v, torch.arange(len(v))) for v in perms.values())
    aligned = b if identity else permute(b, spec, perms)
    fa = hidden_features(model, a, X) if features_a is None else list(features_a)
    fb = hidden_features(model, b, X)
    if len(fa) != len(fb):
        raise ValueError(f"features_a has {len(fa)} layers, the model gives {len(fb)}")
    cka = tuple(linear_cka(x, y) for x, y in zip(fa, fb))
    angular = tuple(float(np.arccos(np.clip(c, -1.0, 1.0))) for c in cka)
    return PairComparison(
        l2_distance(a, b), l2_distance(a, aligned), identity, aligned, cka, angular
    )


# ----------------------------------------------------------------------------------------------
# peers: the same measures from other packages
def rebasin_align(
    model: nn.Module, a: Params, b: Params, X: torch.Tensor, *, seed: int
) -> Params:
    """θ_b aligned to θ_a by the ``rebasin`` package's weight matching (its
    ``PermutationCoordinateDescent``, which finds the permutation structure by tracing the model
    on ``X``). Its coordinate descent visits the groups in an order drawn from torch's global
    generator, so it runs inside ``torch.random.fork_rng`` seeded with ``seed``: the same seed
    gives the same result, and the caller's global random state is left as it was."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {seed!r}")
    from rebasin import PermutationCoordinateDescent

    net_a, net_b = fresh_module(model, a), fresh_module(model, b)
    with seeded(int(seed)):
        PermutationCoordinateDescent(net_a, net_b, X).rebasin()
    return {k: v.detach().clone() for k, v in net_b.named_parameters()}


def repsim_linear_cka(X, Y) -> float:
    """Linear CKA computed by the ``repsim`` package (linear kernel, the biased "Gretton" HSIC
    estimator): the same quantity as ``linear_cka``."""
    import repsim

    def arr(Z):
        Z = Z.detach().cpu() if isinstance(Z, torch.Tensor) else Z
        return np.asarray(Z, dtype=np.float64)

    out = repsim.cka([arr(X), arr(Y)], kernel_type="linear", estimator="gretton")
    return float(out[0, 1])

"""Training: the objective's weights (`Method`, the released `CONFIGS`), full-batch Adam on the
objective with the online or the k-means partition (`train`, `fit`), test accuracy, and the
bound's data-dependent terms measured on a trained model (`bound_ingredients`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch.nn import functional

from repbook.core import checks, nets

from .data import single_thread
from .partitions import OnlineKMeans, kmeans_regions
from .terms import discrepancy_term, objective, robustness_term

#: The network: an MLP 64-128-10 (8 × 8 inputs, ten classes) with ReLU.
LAYERS = (64, 128, 10)


@dataclass(frozen=True)
class Method:
    """Which losses a training run uses (weights of the objective)."""

    ce_real: float
    ce_syn: float
    lam_dis: float
    lam_rob: float


def methods(lam_dis: float = 1.0, lam_rob: float = 1.0) -> dict[str, Method]:
    """Five basic variants: each cross-entropy alone, both, and both with one or two terms."""
    checks.number("lam_dis", lam_dis, at_least=0)
    checks.number("lam_rob", lam_rob, at_least=0)
    return {
        "real only": Method(1, 0, 0, 0),
        "synthetic only": Method(0, 1, 0, 0),
        "real + synthetic": Method(1, 1, 0, 0),
        "+ λ_dis": Method(1, 1, lam_dis, 0),
        "+ λ_dis + λ_rob": Method(1, 1, lam_dis, lam_rob),
    }


def train(
    model: torch.nn.Module,
    method: Method,
    x_real: torch.Tensor,
    y_real: torch.Tensor,
    x_syn: torch.Tensor,
    y_syn: torch.Tensor,
    *,
    epochs: int,
    K: int,
    generator: torch.Generator,
    partition: str = "online",
    lr: float = 1e-3,
    weight_decay: float = 1e-4,
    kmeans_seed: int = 0,
) -> torch.nn.Module:
    """Full-batch Adam on the objective for `epochs` steps (in place; returns the model).

    `partition="online"`: the code's online k-means, centroids from `generator`, one assignment and
    MacQueen update per step; `"kmeans"`: k-means on real ∪ synthetic, fitted once. The partition
    does not depend on the model, so it is only computed when a regulariser uses it."""
    if not isinstance(method, Method):
        raise TypeError(f"method must be a Method, got {type(method).__name__}")
    epochs = checks.integer("epochs", epochs, at_least=1)
    K = checks.integer("K", K, at_least=1)
    checks.one_of("partition", partition, ("online", "kmeans"))
    for name, x, y in (("real", x_real, y_real), ("synthetic", x_syn, y_syn)):
        if x.ndim != 2 or y.shape != (x.shape[0],):
            raise ValueError(
                f"the {name} images must be (n, d) with n labels, got "
                f"{tuple(x.shape)} and {tuple(y.shape)}"
            )
    if x_real.shape[1] != x_syn.shape[1]:
        raise ValueError(
            f"real and synthetic images differ in size: {x_real.shape[1]} and "
            f"{x_syn.shape[1]}"
        )
    if method.ce_real and len(y_real) == 0:
        raise ValueError("this method trains on real images, but there are none")
    if method.ce_syn and len(y_syn) == 0:
        raise ValueError("this method trains on synthetic images, but there are none")
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    regularised = bool(method.lam_dis or method.lam_rob)
    uses_syn = bool(method.ce_syn or regularised)
    uses_real = bool(method.ce_real or method.lam_dis)
    r_real, r_syn = (
        torch.zeros(len(y_real), dtype=torch.int64),
        torch.zeros(len(y_syn), dtype=torch.int64),
    )
    if regularised and partition == "kmeans":  # fitted once: the inputs do not change
        a, b = kmeans_regions(x_real.numpy(), x_syn.numpy(), K, seed=kmeans_seed)
        r_real, r_syn = (
            torch.as_tensor(a, dtype=torch.int64),
            torch.as_tensor(b, dtype=torch.int64),
        )
    state = (
        OnlineKMeans.init(K, x_syn.shape[1], generator)
        if regularised and partition == "online"
        else None
    )
    with single_thread():
        _train_loop(
            model,
            opt,
            method,
            x_real,
            y_real,
            x_syn,
            y_syn,
            epochs,
            K,
            state,
            r_real,
            r_syn,
            uses_real,
            uses_syn,
        )
    return model


def _train_loop(
    model,
    opt,
    method,
    x_real,
    y_real,
    x_syn,
    y_syn,
    epochs,
    K,
    state,
    r_real,
    r_syn,
    uses_real,
    uses_syn,
):
    empty = torch.zeros(0, dtype=torch.int64)
    for _ in range(epochs):
        if state is not None:
            r_real, r_syn, state = state.step(x_real, x_syn)
        h_real = model(x_real) if uses_real else model(x_real[:0])
        h_syn = model(x_syn) if uses_syn else model(x_syn[:0])
        if not uses_syn:  # real only: plain cross-entropy
            loss = functional.cross_entropy(h_real, y_real)
        elif not uses_real and not method.lam_rob:  # synthetic only
            loss = functional.cross_entropy(h_syn, y_syn)
        else:
            loss = objective(
                h_real,
                y_real if uses_real else empty,
                h_syn,
                y_syn,
                r_real if uses_real else empty,
                r_syn,
                K,
                lam_dis=method.lam_dis,
                lam_rob=method.lam_rob,
                ce_real=method.ce_real,
                ce_syn=method.ce_syn,
            ).total
        opt.zero_grad()
        loss.backward()
        opt.step()


@torch.no_grad()
def accuracy(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    """Share of rows of x whose largest logit is the label."""
    if x.shape[0] != y.shape[0] or x.shape[0] == 0:
        raise ValueError(
            f"x and y must hold the same, non-zero number of rows, got "
            f"{x.shape[0]} and {y.shape[0]}"
        )
    return float((model(x).argmax(1) == y).double().mean())


@dataclass(frozen=True)
class Ingredients:
    """The bound's data-dependent terms measured on a trained model (numbers)."""

    discrepancy: (
        float  # Σ_k Σ_{S_k×G_k} mse / (g·|S_k|), regions of the given partition
    )
    robustness: float  # Σ_k Σ_{G_k×G_k} mse / (g·|G_k|), every region
    regions_shared: int  # regions holding both real and synthetic points
    synthetic_share: (
        float  # share of synthetic points in regions that hold a real point
    )


@torch.no_grad()
def bound_ingredients(
    model: torch.nn.Module,
    x_real: torch.Tensor,
    x_syn: torch.Tensor,
    regions_real,
    regions_syn,
    K: int,
) -> Ingredients:
    """Model-based discrepancy between the real and synthetic points of each region, and local
    robustness (spread of the logits of the synthetic points within each region)."""
    r_real = torch.as_tensor(np.asarray(regions_real), dtype=torch.int64)
    r_syn = torch.as_tensor(np.asarray(regions_syn), dtype=torch.int64)
    h_real, h_syn = model(x_real), model(x_syn)
    dis = discrepancy_term(h_real, h_syn, r_real, r_syn, K)
    rob = robustness_term(h_syn, r_syn, K)
    has_real = torch.bincount(r_real, minlength=K) > 0
    shared = int((has_real & (torch.bincount(r_syn, minlength=K) > 0)).sum())
    return Ingredients(
        float(dis), float(rob), shared, float(has_real[r_syn].double().mean())
    )


# ----------------------------------------------------------------------------------------------
# the released configurations
#: The weights of the objective in the released configurations (`configs/*.json` of the
#: lightweight code): `clip_vit_caltech` (CLIP ViT, the paper's headline model) and
#: `clip_resnet` (a ResNet-50 trained from scratch on Oxford Pets).
CONFIGS: dict[str, Method] = {
    "clip_vit_caltech": Method(ce_real=4.0, ce_syn=1.0, lam_dis=0.1, lam_rob=1.0),
    "clip_resnet": Method(ce_real=1.0, ce_syn=1.0, lam_dis=0.05, lam_rob=1.0),
}


def fit(
    method: Method,
    x_real: torch.Tensor,
    y_real: torch.Tensor,
    x_syn: torch.Tensor,
    y_syn: torch.Tensor,
    *,
    init: int,
    epochs: int,
    K: int,
    generator: torch.Generator,
    partition: str = "online",
    **kw,
) -> torch.nn.Sequential:
    """A fresh MLP of `LAYERS` (`core.nets.mlp(LAYERS, seed=init)`: PyTorch's default
    initialisation drawn inside `seeded(init)`) trained with `train` (arguments as there;
    `kmeans_seed` defaults to `init`)."""
    kw.setdefault("kmeans_seed", init)
    net = nets.mlp(LAYERS, seed=init)
    return train(
        net, method, x_real, y_real, x_syn, y_syn, epochs=epochs, K=K,
        generator=generator, partition=partition, **kw,
    )  # fmt: skip

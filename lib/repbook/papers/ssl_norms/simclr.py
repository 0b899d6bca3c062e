"""SimCLR training with norm and k-NN tracking, and the protocol pieces the chapter's comparison
shares: one run of a seed (`SimCLRProtocol`), the tuning score and the bracketing of the
learning rate, the time to a target accuracy and the trend of the norms."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from scipy import stats
from torch import nn

from repbook.core import checks

from .augment import AugmentedViews, augment
from .evaluation import accuracy_area, knn_accuracy, time_to_accuracy
from .gradients import info_nce_loss
from .networks import ConvEncoder, MLPEncoder, cut_init_


# --------------------------------------------------------------------------------------
# SimCLR training with norm and k-NN tracking
@dataclass(frozen=True)
class TrainHistory:
    """Per-step loss and mean ‖z‖ of the training batch; per-evaluation step, k-NN
    accuracy and mean ‖z‖ of the monitored query set."""

    loss: np.ndarray
    batch_norm: np.ndarray
    eval_steps: np.ndarray
    knn: np.ndarray
    eval_norm: np.ndarray


def embed(
    model: nn.Module, X: torch.Tensor, *, features: bool = False, batch: int = 2048
) -> torch.Tensor:
    """Embeddings (projector output, or backbone features) of X, without gradients."""
    with torch.no_grad():
        out = [
            (model.features(X[i : i + batch]) if features else model(X[i : i + batch]))
            for i in range(0, len(X), batch)
        ]
    return torch.cat(out)


def train_simclr(
    model: nn.Module,
    X: torch.Tensor | AugmentedViews,
    *,
    steps: int,
    batch_size: int,
    lr: float,
    generator: torch.Generator,
    tau: float = 0.5,
    power: float = 0.0,
    momentum: float = 0.9,
    weight_decay: float = 0.0,
    warmup: int = 0,
    monitor: tuple | None = None,
    eval_every: int = 10,
    k: int = 20,
    knn_on: str = "z",
    aug: dict | None = None,
) -> TrainHistory:
    """Train `model` in place with SimCLR (two views, InfoNCE) and SGD with momentum.

    X is either a tensor of images, augmented on the fly with `augment(**aug)`, or an
    `AugmentedViews` set, from which two different views of each image are drawn per
    step. `power` > 0 applies GradScale; `warmup` steps of linear learning-rate warm-up,
    then constant. `monitor` = (X_bank, y_bank, X_query, y_query): every `eval_every`
    steps (and at step 0 and the end) the k-NN accuracy of the embeddings z
    (`knn_on="z"`) or of the backbone features (`knn_on="features"`) and the mean ‖z‖ of
    X_query are recorded.
    """
    checks.torch_generator("generator", generator)
    steps = checks.integer("steps", steps, at_least=1)
    batch_size = checks.integer("batch_size", batch_size, at_least=1)
    lr = checks.number("lr", lr, above=0)
    eval_every = checks.integer("eval_every", eval_every, at_least=1)
    fixed = isinstance(X, AugmentedViews)
    if fixed and aug:
        raise ValueError(
            "aug applies to images augmented on the fly, not to AugmentedViews"
        )
    if batch_size > len(X):
        raise ValueError(
            f"batch_size = {batch_size} exceeds the number of samples {len(X)}"
        )
    if knn_on not in ("z", "features"):
        raise ValueError(f"knn_on must be 'z' or 'features', got {knn_on!r}")
    if weight_decay < 0:
        raise ValueError(f"weight_decay must be ≥ 0, got {weight_decay!r}")
    aug = aug or {}
    opt = torch.optim.SGD(
        model.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay
    )
    losses, norms, ev_steps, ev_knn, ev_norm = [], [], [], [], []

    def evaluate(step):
        Xb, yb, Xq, yq = monitor
        ev_steps.append(step)
        zq = embed(model, Xq)
        feats = knn_on == "features"
        query = embed(model, Xq, features=True) if feats else zq
        keys = embed(model, Xb, features=feats)
        ev_knn.append(knn_accuracy(keys, yb, query, yq, k=k))
        ev_norm.append(float(zq.norm(dim=1).mean()))

    perm, pos = torch.randperm(len(X), generator=generator), 0
    for step in range(steps):
        if monitor is not None and step % eval_every == 0:
            evaluate(step)
        if pos + batch_size > len(X):
            perm, pos = torch.randperm(len(X), generator=generator), 0
        idx = perm[pos : pos + batch_size]
        pos += batch_size
        for g in opt.param_groups:
            g["lr"] = lr * min(1.0, (step + 1) / warmup) if warmup > 0 else lr
        if fixed:
            v1, v2 = X.pairs(idx, generator=generator)
        else:
            xb = X[idx.to(X.device)]
            v1 = augment(xb, generator=generator, **aug)
            v2 = augment(xb, generator=generator, **aug)
        z1, z2 = model(v1), model(v2)
        loss = info_nce_loss(z1, z2, tau=tau, power=power)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        norms.append(
            float(
                0.5 * (z1.detach().norm(dim=1).mean() + z2.detach().norm(dim=1).mean())
            )
        )
    if monitor is not None:
        evaluate(steps)
    return TrainHistory(
        np.array(losses),
        np.array(norms),
        np.array(ev_steps),
        np.array(ev_knn),
        np.array(ev_norm),
    )


# --------------------------------------------------------------------------------------
# experiment protocols of the chapter: one SimCLR run, the tuning budget, time to target,
# the trend of the norms
@dataclass(frozen=True)
class SimCLRProtocol:
    """Everything the SimCLR runs of a comparison share: the training data (a tensor of
    images augmented on the fly with `aug`, or an `AugmentedViews` set), the k-NN bank,
    the encoder kind ("mlp" or "conv"), the run length and the optimiser's settings.
    Seed s draws its initial weights from `init_generator(s)` and its batches and views
    from `train_generator(s)`, so the variants of a seed start from the same weights."""

    data: torch.Tensor | AugmentedViews
    bank: tuple[torch.Tensor, torch.Tensor]
    init_generator: object
    train_generator: object
    encoder: str = "mlp"
    steps: int = 240
    batch_size: int = 256
    warmup: int = 50
    eval_every: int = 20
    aug: dict | None = None

    def __post_init__(self):
        if self.encoder not in ("mlp", "conv"):
            raise ValueError(f"encoder must be 'mlp' or 'conv', got {self.encoder!r}")
        if not callable(self.init_generator) or not callable(self.train_generator):
            raise TypeError(
                "init_generator and train_generator must be callables: seed → "
                "torch.Generator"
            )
        checks.integer("steps", self.steps, at_least=1)
        checks.integer("eval_every", self.eval_every, at_least=1)
        if self.warmup < 0:
            raise ValueError(f"warmup must be ≥ 0, got {self.warmup!r}")
        if isinstance(self.data, AugmentedViews) and self.aug:
            raise ValueError("aug applies to images augmented on the fly, not to views")

    def encoder_for(self, seed: int, c: float = 1.0, *, cut_all: bool = True):
        """The seed's initial encoder, cut by c (every parameter with `cut_all`, as the
        official code's `cut_weights`; the linear and conv layers only otherwise)."""
        gen = self.init_generator(seed)
        if self.encoder == "conv":
            model = ConvEncoder(side=28, generator=gen)
        else:
            model = MLPEncoder(784, (256, 128), 64, generator=gen)
        return cut_init_(model, c, norm_layers=cut_all) if c != 1.0 else model

    def run(
        self,
        seed: int,
        lr: float,
        *,
        c: float = 1.0,
        power: float = 0.0,
        weight_decay: float = 0.0,
        cut_all: bool = True,
        data=None,
        steps: int | None = None,
        queries: tuple | None = None,
        device=None,
    ) -> tuple[nn.Module, TrainHistory]:
        """Train seed `seed` at learning rate `lr` (cut-init c, GradScale power, weight
        decay); `queries` = (X, y) are monitored every `eval_every` steps against the
        bank (None: no monitoring). Returns the trained model and its history."""
        model = self.encoder_for(seed, c, cut_all=cut_all)
        if device is not None:
            model = model.to(device)
        monitor = None if queries is None else (self.bank[0], self.bank[1], *queries)
        hist = train_simclr(
            model,
            self.data if data is None else data,
            steps=self.steps if steps is None else steps,
            batch_size=self.batch_size,
            lr=lr,
            warmup=self.warmup,
            generator=self.train_generator(seed),
            power=power,
            weight_decay=weight_decay,
            eval_every=self.eval_every,
            monitor=monitor,
            aug=None if isinstance(self.data, AugmentedViews) else self.aug,
        )
        return model, hist


def tuning_score(history: TrainHistory) -> float:
    """The score of a tuning run: its mean k-NN accuracy over the second half of the run
    (`accuracy_area` from half-way); −inf when the loss stopped being finite (a diverged
    run scores below every run that trained)."""
    if not np.all(np.isfinite(history.loss)) or not np.all(np.isfinite(history.knn)):
        return -math.inf
    steps = history.eval_steps
    late = steps >= steps[-1] / 2
    if late.sum() < 2:
        raise ValueError(
            "a tuning run needs at least two evaluations in its second half"
        )
    return accuracy_area(steps[late], history.knn[late])


@dataclass(frozen=True)
class Bracket:
    """The outcome of `bracket_learning_rate`: every rate tried with its score, the best
    rate, and whether the best is bracketed (a worse-scoring rate tried on each side)."""

    scores: dict
    best: float
    bracketed: bool


def bracket_learning_rate(
    score, grid: Sequence[float], *, max_extensions: int = 2
) -> Bracket:
    """Score the learning rates of `grid` (increasing, geometric) with `score(lr)`; while
    the best lies at an end of the rates tried, try one more rate beyond that end (the
    grid's outermost ratio at that end), at most `max_extensions` times. The same rule
    for every variant is the same tuning budget. Ties go to the smaller rate."""
    rates = sorted(float(v) for v in grid)
    if len(rates) < 2 or rates[0] <= 0 or len(set(rates)) != len(rates):
        raise ValueError(f"grid must hold ≥ 2 distinct positive rates, got {grid!r}")
    if not isinstance(max_extensions, int) or max_extensions < 0:
        raise ValueError(
            f"max_extensions must be an integer ≥ 0, got {max_extensions!r}"
        )
    lo_ratio, hi_ratio = rates[1] / rates[0], rates[-1] / rates[-2]
    scores = {lr: float(score(lr)) for lr in rates}
    for _ in range(max_extensions):
        tried = sorted(scores)
        best = max(tried, key=lambda lr: (scores[lr], -lr))
        if best == tried[0]:
            new = tried[0] / lo_ratio
        elif best == tried[-1]:
            new = tried[-1] * hi_ratio
        else:
            break
        scores[new] = float(score(new))
    tried = sorted(scores)
    best = max(tried, key=lambda lr: (scores[lr], -lr))
    bracketed = tried[0] < best < tried[-1]
    return Bracket({lr: scores[lr] for lr in tried}, best, bracketed)


def times_to_target(histories: dict, targets: Sequence[float], *, never: float) -> dict:
    """For each run {(variant, seed): TrainHistory}, the first evaluation step at which
    its k-NN accuracy reaches its seed's target (`targets[seed]`), `never` when it does
    not within the run."""
    out = {}
    for (name, s), h in histories.items():
        if not 0 <= s < len(targets):
            raise ValueError(f"no target for seed {s} (got {len(targets)} targets)")
        out[name, s] = min(time_to_accuracy(h.eval_steps, h.knn, targets[s]), never)
    return out


def norm_trend(steps: Sequence[float], norms: Sequence[float]) -> tuple[float, float]:
    """Mann–Kendall trend of a norm curve: Kendall's τ between the evaluation step and
    the norm, and its one-sided p-value against "no upward trend" (scipy)."""
    steps, norms = np.asarray(steps, dtype=float), np.asarray(norms, dtype=float)
    if steps.shape != norms.shape or steps.ndim != 1 or steps.size < 3:
        raise ValueError(
            f"steps and norms must be 1-D of equal length ≥ 3, got {steps.shape} and "
            f"{norms.shape}"
        )
    if not np.all(np.isfinite(norms)):
        raise ValueError("norms must be finite")
    res = stats.kendalltau(steps, norms, alternative="greater")
    return float(res.statistic), float(res.pvalue)

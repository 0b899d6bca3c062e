"""The chapter's experiment protocols, one per claim: the gradient law on random pairs (claim 1),
the toy alignment (2a–2c), tuning and training the SimCLR variants (2d, 3), the growth of the
default's norms (2d), the weight-decay sweep (2e), the time to a target accuracy (3), seen
against unexpected inputs and accuracy by norm (4a–4c) and the class-imbalance simulation (4d).
Each draws its randomness from the streams it is given, at the stream numbers its docstring
names; none prints, plots or writes files."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from scipy import stats

from repbook.core import checks

from .augment import AugmentedViews
from .evaluation import auroc_interval, knn_accuracy_by_norm
from .gradients import (
    cosine_grad,
    cosine_similarity,
    info_nce_loss,
    negative_cosine_loss,
)
from .simclr import (
    Bracket,
    SimCLRProtocol,
    bracket_learning_rate,
    embed,
    norm_trend,
    times_to_target,
    tuning_score,
)
from .networks import RunsMLP
from .simulations import (
    align_pairs,
    frequency_trend,
    random_pairs,
    recorded_epochs,
    spherical_classes,
    train_class_norms,
)

LOSSES = ("InfoNCE", "negative cosine")
STREAM = "a callable stream → generator (e.g. run.child_rng)"


# ----------------------------------------------------------------------------------------------
# claim 1: the gradient law on random pairs
@dataclass(frozen=True)
class GradientStudy:
    """Claim 1's measurements on random pairs (z, z⁺) in float64: the analytic gradient
    `grad` of cos(z, z⁺) and `cos` itself; the largest relative error against autograd, the
    largest |∇·ẑ|/‖∇‖ and the largest |‖∇‖‖z‖ − sin φ|; for each loss and GradScale power p
    the largest relative deviation from the 1/α law (p = 0) or from invariance (p = 1) over
    the scales `alphas`, and `curves`: the mean gradient norm over a log grid of scales."""

    z: torch.Tensor
    z_pos: torch.Tensor
    grad: torch.Tensor
    cos: torch.Tensor
    rel_autograd: float
    orth: float
    sin_gap: float
    scale_err: dict
    curves: pd.DataFrame


def loss_gradient(kind: str, z1, z2, power: float, *, tau: float = 0.5) -> torch.Tensor:
    """The gradient of the loss `kind` ("InfoNCE" at temperature tau, or "negative
    cosine") with respect to z1, with GradScale power `power`."""
    checks.one_of("kind", kind, LOSSES)
    z1 = z1.clone().requires_grad_()
    if kind == "InfoNCE":
        info_nce_loss(z1, z2, tau=tau, power=power).backward()
    else:
        negative_cosine_loss(z1, z2, power=power).backward()
    return z1.grad


def gradient_study(
    n_pairs: int,
    rng,
    *,
    dim: int = 64,
    alphas: Sequence[float] = (1e-2, 1e-1, 10.0, 1e2),
    n_loss: int = 256,
) -> GradientStudy:
    """Claim 1's protocol: `n_pairs` anchors of random direction in R^dim with norms
    log-uniform on [10⁻³, 10³] and random positives, drawn from `rng` (directions, norms,
    positives in that order); the analytic gradient against autograd; and the gradients of
    both losses on the first `n_loss` pairs (anchors normalised) scaled by each α."""
    checks.generator("rng", rng)
    n_pairs = checks.integer("n_pairs", n_pairs, at_least=1)
    dirs = torch.tensor(rng.standard_normal((n_pairs, dim)))
    norms = torch.tensor(10 ** rng.uniform(-3, 3, n_pairs))
    z = dirs / dirs.norm(dim=1, keepdim=True) * norms[:, None]
    zp = torch.tensor(rng.standard_normal((n_pairs, dim)))
    zr = z.clone().requires_grad_()
    cosine_similarity(zr, zp).sum().backward()
    grad = cosine_grad(z, zp)
    rel_autograd = float(((grad - zr.grad).norm(dim=1) / zr.grad.norm(dim=1)).max())
    cosv = cosine_similarity(z, zp)
    orth = float(((grad * z).sum(1).abs() / (grad.norm(dim=1) * z.norm(dim=1))).max())
    sin_phi = torch.sqrt(1 - cosv**2)
    sin_gap = float((grad.norm(dim=1) * z.norm(dim=1) - sin_phi).abs().max())
    z1, z2 = z[:n_loss] / z[:n_loss].norm(dim=1, keepdim=True), zp[:n_loss]
    scale_err, curves = {}, []
    for kind in LOSSES:
        for power in [0.0, 1.0]:
            g1 = loss_gradient(kind, z1, z2, power)
            errs = []
            for a in alphas:
                ga = loss_gradient(kind, a * z1, z2, power)
                expected = g1 / a if power == 0 else g1
                errs.append(float((ga - expected).norm() / expected.norm()))
            scale_err[(kind, power)] = max(errs)
            for a in np.logspace(-3, 3, 13):
                gnorm = loss_gradient(kind, a * z1, z2, power).norm(dim=1).mean()
                curves.append(dict(loss=kind, power=power, alpha=a, grad=float(gnorm)))
    return GradientStudy(
        z, zp, grad, cosv, rel_autograd, orth, sin_gap, scale_err, pd.DataFrame(curves)
    )


# ----------------------------------------------------------------------------------------------
# claims 2a–2c: the toy alignment
@dataclass(frozen=True)
class ToyStudy:
    """The toy simulation: steps to converge by initial norm (`by_norm`: norm, steps,
    final_norm) and by initial angle at norm 1 (`by_angle`: angle in degrees, steps); the
    smallest per-embedding change of the norm over every step of every run; the log–log
    slope of steps on the norm for norms ≥ 1; Spearman's ρ between angle and steps."""

    by_norm: pd.DataFrame
    by_angle: pd.DataFrame
    min_increment: float
    slope: float
    rho: float


def toy_study(
    norms: Sequence[float],
    n_angles: int,
    *,
    n: int,
    d: int,
    rng_for: Callable,
    lr: float = 10.0,
    eps: float = 1e-3,
) -> ToyStudy:
    """The paper's toy simulation: `align_pairs` on `random_pairs` of each norm (stream
    200 + k of `rng_for` for the k-th norm), then at norm 1 for `n_angles` interpolations
    from −0.96 to 0.96 between a random positive and the anchor's opposite (stream
    300 + k)."""
    checks.function("rng_for", rng_for, STREAM)
    rows, min_inc = [], np.inf
    for k, r in enumerate(norms):
        a, b = random_pairs(n, d, norm=r, rng=rng_for(200 + k))
        res = align_pairs(a, b, lr=lr, eps=eps)
        min_inc = min(min_inc, res.min_norm_increment)
        rows.append(dict(norm=r, steps=res.steps, final_norm=res.mean_norm[-1]))
    by_norm = pd.DataFrame(rows)
    angle_rows = []
    for k, t in enumerate(np.linspace(-0.96, 0.96, n_angles)):
        a, b = random_pairs(
            n, d, norm=1.0, rng=rng_for(300 + k), interpolation=float(t)
        )
        res = align_pairs(a, b, lr=lr, eps=eps)
        min_inc = min(min_inc, res.min_norm_increment)
        angle = float(np.degrees(np.arccos(res.mean_cos[0])))
        angle_rows.append(dict(angle=angle, steps=res.steps))
    by_angle = pd.DataFrame(angle_rows)
    big = by_norm[by_norm.norm >= 1]
    slope = float(np.polyfit(np.log(big.norm), np.log(big.steps), 1)[0])
    rho = float(stats.spearmanr(by_angle.angle, by_angle.steps).statistic)
    return ToyStudy(by_norm, by_angle, min_inc, slope, rho)


# ----------------------------------------------------------------------------------------------
# claims 2d and 3: the SimCLR variants, tuned by one rule and trained per seed
@dataclass(frozen=True)
class VariantRuns:
    """The tuned and trained SimCLR variants. brackets: tuned variant → `Bracket`; best_lr
    and bracketed: variant → its learning rate and whether the rate it trains at is
    bracketed (tuned variants first, then those that follow another's rate); histories and
    models: (variant, seed) → `TrainHistory` and trained encoder."""

    brackets: dict
    best_lr: dict
    bracketed: dict
    histories: dict
    models: dict

    @property
    def tuning(self) -> pd.DataFrame:
        """Every rate tried: method, lr, score."""
        return pd.DataFrame(
            [
                dict(method=name, lr=lr, score=sc)
                for name, b in self.brackets.items()
                for lr, sc in b.scores.items()
            ]
        )

    @property
    def curves(self) -> pd.DataFrame:
        """Every evaluation of every run: method, seed, step, knn, norm."""
        return pd.concat(
            [
                pd.DataFrame(
                    dict(
                        method=name,
                        seed=s,
                        step=h.eval_steps,
                        knn=h.knn,
                        norm=h.eval_norm,
                    )
                )
                for (name, s), h in self.histories.items()
            ]
        )


def tune_and_train(
    protocol: SimCLRProtocol,
    variants: Mapping[str, Mapping],
    *,
    follows: Mapping[str, str],
    grid: Sequence[float],
    max_extensions: int,
    tune_seed: int,
    tune_steps: int,
    validation: tuple,
    seeds: int,
    queries: tuple,
    device=None,
) -> VariantRuns:
    """Tune each variant of `variants` (name → keyword arguments of `SimCLRProtocol.run`:
    c, power) that is not in `follows` with `bracket_learning_rate` on `grid`, scoring a
    run of `tune_steps` steps on seed `tune_seed` by `tuning_score` on the `validation`
    queries; a variant in `follows` trains at the rate of the variant it names. Then train
    every variant on seeds 0..seeds−1 at its rate, monitoring `queries`."""
    seeds = checks.integer("seeds", seeds, at_least=1)
    unknown = sorted(set(follows) - set(variants)) + sorted(
        set(follows.values()) - set(variants)
    )
    if unknown:
        raise ValueError(f"follows names variants that are not given: {unknown}")

    def score_for(kw):
        def score(lr):
            _, h = protocol.run(
                tune_seed, lr, steps=tune_steps, queries=validation, device=device, **kw
            )
            return tuning_score(h)

        return score

    brackets: dict[str, Bracket] = {
        name: bracket_learning_rate(score_for(kw), grid, max_extensions=max_extensions)
        for name, kw in variants.items()
        if name not in follows
    }
    best_lr = {name: b.best for name, b in brackets.items()}
    bracketed = {name: b.bracketed for name, b in brackets.items()}
    for name, leader in follows.items():
        best_lr[name], bracketed[name] = best_lr[leader], bracketed[leader]
    histories, models = {}, {}
    for name, kw in variants.items():
        for s in range(seeds):
            models[name, s], histories[name, s] = protocol.run(
                s, best_lr[name], queries=queries, device=device, **kw
            )
    return VariantRuns(brackets, best_lr, bracketed, histories, models)


@dataclass(frozen=True)
class NormGrowth:
    """The default run's norms per seed: final / initial, peak / initial and peak / final
    mean test ‖z‖, the Mann–Kendall trend (τ, one-sided p) of the norm on the step, and how
    much smaller the cut network's initial norms are (the mean ratio over the seeds)."""

    growth: np.ndarray
    peak_growth: np.ndarray
    peak: np.ndarray
    trends: list
    shrink: float


def norm_growth(
    histories: Mapping, seeds: int, *, default: str, cut: str
) -> NormGrowth:
    """`NormGrowth` of the runs of `default` (and the cut variant `cut`) on seeds
    0..seeds−1."""
    hs = [histories[default, s] for s in range(seeds)]
    growth = np.array([h.eval_norm[-1] / h.eval_norm[0] for h in hs])
    peak_growth = np.array([h.eval_norm.max() / h.eval_norm[0] for h in hs])
    peak = np.array([h.eval_norm.max() / h.eval_norm[-1] for h in hs])
    trends = [norm_trend(h.eval_steps, h.eval_norm) for h in hs]
    shrink = np.mean(
        [
            histories[default, s].eval_norm[0] / histories[cut, s].eval_norm[0]
            for s in range(seeds)
        ]
    )
    return NormGrowth(growth, peak_growth, peak, trends, shrink)


# ----------------------------------------------------------------------------------------------
# claim 2e: weight decay
def decays_for(
    effective: Sequence[float], *, lr: float, steps: int, momentum: float = 0.9
):
    """The weight decays λ whose effective decay ηλT/(1 − μ) over a run of T steps at
    learning rate η with momentum μ are `effective`."""
    return [e * (1 - momentum) / (lr * steps) for e in effective]


def weight_decay_sweep(
    protocol: SimCLRProtocol,
    lr: float,
    effective: Sequence[float],
    *,
    steps: int,
    seeds: int,
    queries: tuple,
    device=None,
) -> pd.DataFrame:
    """Our check 2e: the default trained at `lr` for `steps` steps on seeds 0..seeds−1 with
    each effective decay (`decays_for`, momentum 0.9 as `train_simclr`'s). One row per
    (decay, seed): effective, weight_decay, seed, the final mean test ‖z‖ and k-NN accuracy."""
    rows = []
    for e, wd in zip(effective, decays_for(effective, lr=lr, steps=steps)):
        for s in range(seeds):
            _, h = protocol.run(
                s, lr, weight_decay=wd, steps=steps, queries=queries, device=device
            )
            rows.append(
                dict(
                    effective=e,
                    weight_decay=wd,
                    seed=s,
                    final_norm=h.eval_norm[-1],
                    knn=h.knn[-1],
                )
            )
    return pd.DataFrame(rows)


def final_norms_by_seed(sweep: pd.DataFrame) -> dict:
    """'final ‖z‖ by effective decay, seed s' → {effective decay: final mean test ‖z‖}."""
    return {
        f"final ‖z‖ by effective decay, seed {s}": {
            f"{r.effective:g}": r.final_norm for r in d.itertuples()
        }
        for s, d in sweep.groupby("seed")
    }


# ----------------------------------------------------------------------------------------------
# claim 3: time to a target accuracy
@dataclass(frozen=True)
class TargetStudy:
    """Claim 3's measurements: per seed the untrained and trained default's k-NN accuracy
    and the target halfway between; `steps_to`: (variant, seed) → steps to the target
    (`never` when not reached); `table`: one row per run (method, seed, steps, final_knn,
    reached); `saved`: variant → steps saved against the default, per seed."""

    start: np.ndarray
    final: np.ndarray
    target: np.ndarray
    never: float
    steps_to: dict
    table: pd.DataFrame
    saved: dict

    @property
    def summary(self) -> pd.DataFrame:
        """Per variant: mean, min and max steps, runs that reached the target, mean final
        k-NN accuracy."""
        return self.table.groupby("method", sort=False).agg(
            mean_steps=("steps", "mean"),
            min_steps=("steps", "min"),
            max_steps=("steps", "max"),
            reached=("reached", "sum"),
            final_knn=("final_knn", "mean"),
        )


def target_study(
    histories: Mapping,
    variants: Sequence[str],
    seeds: int,
    *,
    steps: int,
    eval_every: int,
    default: str,
) -> TargetStudy:
    """Claim 3's protocol: each seed's target halfway between its untrained and its trained
    default's k-NN accuracy, every run's steps to it (`never` = the end of training plus one
    evaluation interval), and the steps each other variant saves against the default."""
    hs = [histories[default, s] for s in range(seeds)]
    start = np.array([h.knn[0] for h in hs])
    final = np.array([h.knn[-1] for h in hs])
    target = start + 0.5 * (final - start)  # one target per seed
    never = steps + eval_every
    steps_to = times_to_target(histories, target, never=never)
    table = pd.DataFrame(
        [
            dict(method=name, seed=s, steps=v, final_knn=histories[name, s].knn[-1])
            for (name, s), v in steps_to.items()
        ]
    )
    table["reached"] = table.steps < never
    saved = {
        name: np.array([steps_to[default, s] - steps_to[name, s] for s in range(seeds)])
        for name in variants
        if name != default
    }
    return TargetStudy(start, final, target, never, steps_to, table, saved)


# ----------------------------------------------------------------------------------------------
# claims 4a–4c: seen against unexpected inputs, accuracy by norm
@dataclass(frozen=True)
class FamiliarityStudy:
    """Claim 4a–4c's measurements: the embedding norms of each group (seen digits, unseen
    classes, scrambled pixels), the AUROC of the norm (seen against each unexpected group)
    with its bootstrap interval (auc, low, high), and the k-NN accuracy by norm quintile
    per seed (seeds × 5)."""

    norms: dict
    aucs: dict
    quintiles: np.ndarray


def familiarity_study(
    model,
    X_test,
    y_test,
    *,
    models: Sequence,
    bank: tuple,
    rng_for: Callable,
    n_boot: int,
    seen_below: int = 5,
) -> FamiliarityStudy:
    """Claims 4a–4c: `model` (trained on the classes below `seen_below`) embeds the test
    digits of those classes, the other classes' test digits and the seen digits with their
    pixels shuffled (one permutation per digit from `rng_for(400)`); the AUROC of the norm
    for seen against each unexpected group (bootstrap from `rng_for(500 + k)`); and the k-NN
    accuracy by norm quintile of each of `models` (bank: (X, y))."""
    checks.function("rng_for", rng_for, STREAM)
    perm_rng = rng_for(400)
    seen = X_test[y_test < seen_below]
    scrambled = torch.stack(
        [
            x[torch.tensor(perm_rng.permutation(x.shape[0]), device=x.device)]
            for x in seen
        ]
    )
    groups = {
        "seen digits": seen,
        "unseen classes": X_test[y_test >= seen_below],
        "scrambled pixels": scrambled,
    }
    norms = {k: embed(model, v).norm(dim=1).cpu().numpy() for k, v in groups.items()}
    aucs = {}
    for k, name in enumerate(["unseen classes", "scrambled pixels"]):
        aucs[name] = auroc_interval(
            norms["seen digits"], norms[name], rng=rng_for(500 + k), n_boot=n_boot
        )
    quintiles = np.array(
        [
            knn_accuracy_by_norm(
                embed(m, bank[0]), bank[1], embed(m, X_test), y_test, n_bins=5, k=20
            )
            for m in models
        ]
    )
    return FamiliarityStudy(norms, aucs, quintiles)


def seen_subset(data, labels, seen_below: int = 5):
    """The training data of the classes below `seen_below` (a tensor of images or an
    `AugmentedViews` set)."""
    keep = labels < seen_below
    return data.subset(keep) if isinstance(data, AugmentedViews) else data[keep]


# ----------------------------------------------------------------------------------------------
# claim 4d: the class-imbalance simulation
@dataclass(frozen=True)
class ImbalanceStudy:
    """Claim 4d's measurements: each class's mean ‖z‖ at each recorded epoch of each run
    (runs × records × classes), the recorded epochs, the growth from initialisation to the
    last epoch (runs × classes) and its `Trend` on log₂ of the class weight."""

    norms: np.ndarray
    epochs: np.ndarray
    growth: np.ndarray
    trend: object


def imbalance_study(
    weights: Sequence[float],
    *,
    runs: int,
    epochs: int,
    record_every: int,
    rng_for: Callable,
    generator_for: Callable,
    device=None,
    n: int = 2000,
) -> ImbalanceStudy:
    """The paper's class-imbalance simulation: `runs` data sets of `n` points
    (`spherical_classes`, stream 600 + r of `rng_for`), one MLP 64-64-10 per run
    (`generator_for(700 + r)`), trained side by side (`train_class_norms`, batches from
    `generator_for(800)`: batch 128, learning rate 0.01)."""
    checks.function("rng_for", rng_for, STREAM)
    checks.function("generator_for", generator_for, STREAM)
    runs = checks.integer("runs", runs, at_least=2)
    data = [spherical_classes(n, weights, rng=rng_for(600 + r)) for r in range(runs)]
    X = torch.tensor(np.stack([d[0] for d in data]), device=device)
    y = torch.tensor(np.stack([d[1] for d in data]), device=device)
    net = RunsMLP([64, 64, 10], [generator_for(700 + r) for r in range(runs)]).to(
        device
    )
    norms = train_class_norms(
        net,
        X,
        y,
        epochs=epochs,
        batch_size=128,
        lr=0.01,
        generator=generator_for(800),
        record_every=record_every,
    )
    growth = norms[:, -1] - norms[:, 0]  # runs × classes
    return ImbalanceStudy(
        norms,
        recorded_epochs(epochs, record_every),
        growth,
        frequency_trend(growth, weights),
    )

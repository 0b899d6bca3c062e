"""The paper's two simulations: the toy alignment of pairs by gradient steps on the cosine
(acting on the embeddings directly), and the class-imbalance simulation of its code (spherical
classes, a supervised InfoNCE, R runs side by side) with the trend of the norms on the class
frequency."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from scipy import stats

from repbook.core import checks

from .gradients import paired_supervised_info_nce
from .networks import RunsMLP


# --------------------------------------------------------------------------------------
# the toy simulation: optimise the cosine directly on the embeddings
@dataclass(frozen=True)
class AlignResult:
    """Outcome of `align_pairs`: steps to reach mean cos ≥ 1 − eps (−1 if not reached),
    the mean cosine and mean norm after each step (index 0 = start), and the smallest
    per-sample change of ‖z‖ seen over all steps (≥ 0 up to rounding when norms never
    shrink)."""

    steps: int
    mean_cos: np.ndarray
    mean_norm: np.ndarray
    min_norm_increment: float


def align_pairs(
    a: np.ndarray,
    b: np.ndarray,
    *,
    lr: float = 10.0,
    eps: float = 1e-3,
    max_steps: int = 100_000,
) -> AlignResult:
    """Plain gradient descent on −mean_i cos(a_i, b_i) over both sets of embeddings
    (float64).

    The toy experiment of the paper's code: n pairs, one step moves a_i by lr/n · ∇cos
    (and b_i alike); counts the steps until the mean cosine reaches 1 − eps.
    """
    a, b = np.array(a, dtype=np.float64), np.array(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 2 or a.shape[0] == 0:
        raise ValueError(
            f"a and b must be non-empty (n, d) arrays of the same shape, "
            f"got {a.shape} and {b.shape}"
        )
    lr = checks.number("lr", lr, above=0)
    if not 0 < eps < 2:
        raise ValueError(f"eps must lie in (0, 2), got {eps!r}")
    max_steps = checks.integer("max_steps", max_steps, at_least=1)
    n = a.shape[0]
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    if np.any(na == 0) or np.any(nb == 0):
        raise ValueError(
            "a and b must have non-zero rows: the cosine of a zero vector is undefined"
        )
    cos = np.sum(a * b, 1) / (na * nb)
    mean_cos, mean_norm = [cos.mean()], [0.5 * (na.mean() + nb.mean())]
    min_inc = math.inf
    step = 0
    while mean_cos[-1] < 1 - eps:
        if step >= max_steps:
            return AlignResult(
                -1, np.array(mean_cos), np.array(mean_norm), float(min_inc)
            )
        ah, bh = a / na[:, None], b / nb[:, None]
        ga = (bh - cos[:, None] * ah) / na[:, None]
        gb = (ah - cos[:, None] * bh) / nb[:, None]
        a += lr / n * ga
        b += lr / n * gb
        na_new, nb_new = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
        min_inc = min(min_inc, float(np.min(na_new - na)), float(np.min(nb_new - nb)))
        na, nb = na_new, nb_new
        cos = np.sum(a * b, 1) / (na * nb)
        mean_cos.append(cos.mean())
        mean_norm.append(0.5 * (na.mean() + nb.mean()))
        step += 1
    return AlignResult(step, np.array(mean_cos), np.array(mean_norm), float(min_inc))


def random_pairs(
    n: int,
    d: int,
    *,
    norm: float,
    rng: np.random.Generator,
    interpolation: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """n pairs of random directions in R^d, both scaled to `norm`.

    With `interpolation` t in (−1, 1) the positive is (1 − |t|)·random − t·anchor,
    renormalised, so t → 1 makes the pair nearly opposite (the paper's "opposite
    halves").
    """
    checks.generator("rng", rng)
    n, d = checks.integer("n", n, at_least=1), checks.integer("d", d, at_least=1)
    norm = checks.number("norm", norm, above=0)
    a = rng.standard_normal((n, d))
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b = rng.standard_normal((n, d))
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    if interpolation is not None:
        if not -1 < interpolation < 1:
            raise ValueError(
                f"interpolation must lie in (−1, 1), got {interpolation!r}"
            )
        b = (1 - abs(interpolation)) * b - interpolation * a
        b /= np.linalg.norm(b, axis=1, keepdims=True)
    return norm * a, norm * b


# --------------------------------------------------------------------------------------
# the class-imbalance simulation of the paper's code
def spherical_classes(
    n: int,
    class_weights: Sequence[float],
    *,
    rng: np.random.Generator,
    latent_dim: int = 10,
    data_dim: int = 64,
    spread: float = 1.0,
    gain: float = 10.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Labelled points whose classes are drawn with probabilities ∝ `class_weights`.

    Each class has a random centre on the unit sphere of R^latent_dim; a point is its
    centre plus N(0, spread²) noise, projected back to the sphere, then mapped to
    R^data_dim by one random matrix with N(0, gain²) entries. Returns (X (n, data_dim)
    float32, labels (n,) int64). The set-up of the paper's `SphericalDataset`.
    """
    checks.generator("rng", rng)
    n = checks.integer("n", n, at_least=1)
    w = np.asarray(class_weights, dtype=float)
    if w.ndim != 1 or w.size < 2 or np.any(w <= 0) or not np.all(np.isfinite(w)):
        raise ValueError(
            f"class_weights must be ≥ 2 positive numbers, got {class_weights!r}"
        )
    latent_dim = checks.integer("latent_dim", latent_dim, at_least=1)
    data_dim = checks.integer("data_dim", data_dim, at_least=1)
    spread, gain = (
        checks.number("spread", spread, above=0),
        checks.number("gain", gain, above=0),
    )
    centres = rng.standard_normal((w.size, latent_dim))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    labels = np.sort(rng.choice(w.size, size=n, p=w / w.sum()))
    pts = centres[labels] + spread * rng.standard_normal((n, latent_dim))
    pts /= np.linalg.norm(pts, axis=1, keepdims=True)
    obs = pts @ (gain * rng.standard_normal((data_dim, latent_dim))).T
    return obs.astype(np.float32), labels.astype(np.int64)


def train_class_norms(
    model: RunsMLP,
    X: torch.Tensor,
    labels: torch.Tensor,
    *,
    epochs: int,
    batch_size: int,
    lr: float,
    generator: torch.Generator,
    tau: float = 1.0,
    record_every: int = 1,
) -> np.ndarray:
    """Train R runs side by side with `paired_supervised_info_nce` and plain SGD, each
    on its own data set (X (R, n, d), labels (R, n)) in its own shuffled mini-batches
    (the last one smaller), and record each class's mean ‖z‖ over the whole set before
    training and after every `record_every`-th epoch (and the last): an (R, records,
    n_classes) array. The runs share nothing: the summed loss gives each run exactly its
    own gradient.
    """
    checks.torch_generator("generator", generator)
    epochs = checks.integer("epochs", epochs, at_least=1)
    batch_size = checks.integer("batch_size", batch_size, at_least=1)
    lr = checks.number("lr", lr, above=0)
    record_every = checks.integer("record_every", record_every, at_least=1)
    if X.ndim != 3 or X.shape[0] != model.runs:
        raise ValueError(
            f"X must have shape ({model.runs}, n, d), got {tuple(X.shape)}"
        )
    if labels.shape != X.shape[:2]:
        raise ValueError(
            f"labels must have shape {tuple(X.shape[:2])}, got {tuple(labels.shape)}"
        )
    runs, n = X.shape[:2]
    classes = torch.unique(labels)
    onehot = (labels[..., None] == classes).to(X.dtype)  # (R, n, C)
    counts = onehot.sum(1)
    if bool((counts == 0).any()):
        raise ValueError("every class must appear in every run's data set")
    opt = torch.optim.SGD(model.parameters(), lr=lr)

    def class_norms():
        with torch.no_grad():
            nz = model(X).norm(dim=-1)  # (R, n)
        return ((nz[..., None] * onehot).sum(1) / counts).cpu().numpy()

    out = [class_norms()]
    rows = torch.arange(runs)[:, None]
    for epoch in range(1, epochs + 1):
        perm = torch.stack(
            [torch.randperm(n, generator=generator) for _ in range(runs)]
        )
        for i in range(0, n, batch_size):
            idx = perm[:, i : i + batch_size]
            if idx.shape[1] < 2:
                continue
            loss = paired_supervised_info_nce(
                model(X[rows, idx]), labels[rows, idx], tau=tau, generator=generator
            ).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        if epoch % record_every == 0 or epoch == epochs:
            out.append(class_norms())
    return np.stack(out, axis=1)


def recorded_epochs(epochs: int, record_every: int = 1) -> np.ndarray:
    """The epochs at which `train_class_norms` records the norms (0 = before training)."""
    epochs = checks.integer("epochs", epochs, at_least=1)
    record_every = checks.integer("record_every", record_every, at_least=1)
    return np.unique(np.r_[np.arange(0, epochs + 1, record_every), epochs])


@dataclass(frozen=True)
class Trend:
    """Per-run least-squares slopes of a per-class quantity on log₂(class weight), after
    removing each run's mean, and the mean slope with its t confidence interval."""

    slopes: np.ndarray
    mean: float
    low: float
    high: float


def frequency_trend(
    values: np.ndarray, class_weights: Sequence[float], *, level: float = 0.95
) -> Trend:
    """How a per-class quantity (values: runs × classes, e.g. norm growth) rises with
    the class's sampling weight: the slope on log₂(weight) in each run (runs are
    independent replicates) and a t interval for the mean slope over runs."""
    v = np.asarray(values, dtype=float)
    w = np.asarray(class_weights, dtype=float)
    if v.ndim != 2 or v.shape[1] != w.size or v.shape[0] < 2:
        raise ValueError(
            f"values must be (runs ≥ 2, {w.size}) for {w.size} class "
            f"weights, got {v.shape}"
        )
    if w.size < 2 or np.any(w <= 0) or np.ptp(w) == 0:
        raise ValueError(
            f"class_weights must be ≥ 2 positive, not all equal numbers, "
            f"got {class_weights!r}"
        )
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    x = np.log2(w) - np.log2(w).mean()
    slopes = (v - v.mean(1, keepdims=True)) @ x / (x @ x)
    ci = stats.ttest_1samp(slopes, 0.0).confidence_interval(level)
    return Trend(slopes, float(slopes.mean()), float(ci.low), float(ci.high))

"""Representation discrepancy in continual learning.

Kim, Kim & Sohn, "Measuring Representational Shifts in Continual Learning: A Linear
Transformation Perspective", ICML 2025, arXiv 2505.20970.

Notation. A network is trained on tasks 0, 1, ..., T−1 in turn; h_t^k(x) is the output
of its layer k after task t (a row of width w). For the inputs X_t of task t write
A = h_t^k(X_t) and B = h_{t+Δt}^k(X_t), both (n × w): the *same* inputs seen by two
snapshots of the network.

- representation discrepancy  D_t^k(Δt) = min_T max_x ‖h_t^k(x) − T h_{t+Δt}^k(x)‖₂.
  `discrepancy` computes it as the official `measure.py` does: T fitted by least squares
  without intercept (a surrogate for the min–max T), then the largest row norm of the
  residual. `minmax_discrepancy` solves the exact convex min–max for small inputs.
- unaligned discrepancy  σ = max_x ‖h_t^k(x) − h_{t+Δt}^k(x)‖₂ (no alignment).
- representation size  ‖R_t^k‖ = max_x ‖h_t^k(x)‖₂ (also the min, and both over √w).
- probe forgetting  ΔP_t^k(Δt): the test accuracy of a linear probe on layer-k features
  of snapshot t minus that of snapshot t+Δt.

The training helpers build the flat networks the paper studies (constant width across
layers, one output head per task) and train them task-incrementally. The protocols at
the end run the chapter's experiments: `measure_stream` trains one flat network on a
task stream and measures every (t, Δt, k), with three probes (the paper's task-t probe
on clean inputs, the same probe on inputs corrupted by noise, off its ceiling on easy
tasks, and optionally a probe over the classes of several tasks); `permuted_tasks` and
`first_task_drift` build and follow a long stream of permuted-pixel tasks (the test of
saturation); `trend_slope`, `early_slope` and `plateau_drift` summarise a D(Δt)
curve, `layer_slopes` the trend of saturation times over the layers, and
`plateau_window` / `still_rising` say where a saturation time sits in the window its
plateau is averaged over. Randomness comes in as generators or seeds; nothing here
prints, plots or writes files.
"""

from __future__ import annotations

import contextlib
import copy
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F


# --------------------------------------------------------------------------------------
# threads
@contextlib.contextmanager
def single_threaded() -> Iterator[None]:
    """Run torch and the BLAS/OpenMP pools with one thread inside the block, then
    restore them.

    The networks and probes here are tiny: a second thread only adds synchronisation,
    and on a busy machine its spin-waits slow small matrix products and L-BFGS steps by
    orders of magnitude. One thread is also a fixed thread count, so results stay
    reproducible.
    """
    # load the BLAS pools first, so that the limit covers them
    import scipy.optimize  # noqa: F401
    import sklearn.linear_model  # noqa: F401
    from threadpoolctl import threadpool_limits

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1):
            yield
    finally:
        torch.set_num_threads(before)


# --------------------------------------------------------------------------------------
# input checks
def _features(name: str, value) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a 2-D array of numbers (inputs × features), got "
            f"{type(value).__name__}"
        ) from None
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (inputs × features), got shape {arr.shape}"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty: shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = int(np.sum(~np.isfinite(arr)))
        raise ValueError(
            f"{name} has {bad} non-finite entries (NaN or inf); features must be finite"
        )
    return arr


def _pair(A, B, *, names=("A", "B")) -> tuple[np.ndarray, np.ndarray]:
    A, B = _features(names[0], A), _features(names[1], B)
    if A.shape[0] != B.shape[0]:
        raise ValueError(
            f"{names[0]} and {names[1]} must hold the same inputs (rows), got "
            f"{A.shape[0]} and {B.shape[0]} rows"
        )
    return A, B


def _enough_rows(B: np.ndarray, name: str = "B") -> None:
    n, w = B.shape
    if n <= w:
        raise ValueError(
            f"{name} has n={n} inputs for w={w} features: least squares needs "
            f"n > w (n ≫ w in practice), else T interpolates and D is trivially 0"
        )


# --------------------------------------------------------------------------------------
# the discrepancy and its companions
def fit_alignment(A, B) -> np.ndarray:
    """T* = argmin_T ‖A − B T‖_F (least squares, no intercept), shape (w_B × w_A).

    Rows are inputs, so the paper's T (acting on column vectors) is T*ᵀ. With
    rank-deficient B (dead ReLU units) the minimum-norm solution is returned; the
    residual is unique either way.
    """
    A, B = _pair(A, B)
    _enough_rows(B)
    T, *_ = np.linalg.lstsq(B, A, rcond=None)
    return T


def residual_norms(A, B) -> np.ndarray:
    """‖a_i − T* b_i‖₂ for every input i, with T* from `fit_alignment`."""
    A, B = _pair(A, B)
    return np.linalg.norm(A - B @ fit_alignment(A, B), axis=1)


def discrepancy(A, B) -> float:
    """D = max_i ‖a_i − T* b_i‖₂ with the least-squares T* (the official `measure.py`
    surrogate).

    A = h_t^k(X_t) (earlier snapshot), B = h_{t+Δt}^k(X_t) (later snapshot), same rows.
    """
    return float(residual_norms(A, B).max())


def unaligned_discrepancy(A, B) -> float:
    """σ = max_i ‖a_i − b_i‖₂: the change without any linear alignment."""
    A, B = _pair(A, B)
    if A.shape != B.shape:
        raise ValueError(
            f"A and B must have the same shape for σ, got {A.shape} and {B.shape}"
        )
    return float(np.linalg.norm(A - B, axis=1).max())


@dataclass(frozen=True)
class RepresentationSize:
    """‖R‖ = max_i ‖a_i‖₂ and the variants the official code logs (min, and /√w)."""

    max: float
    min: float
    max_normalized: float  # max / √w
    min_normalized: float  # min / √w


def representation_size(A) -> RepresentationSize:
    """The size of the representation space: largest (and smallest) row norm of A."""
    A = _features("A", A)
    norms = np.linalg.norm(A, axis=1)
    root_w = math.sqrt(A.shape[1])
    return RepresentationSize(
        float(norms.max()),
        float(norms.min()),
        float(norms.max() / root_w),
        float(norms.min() / root_w),
    )


def heldout_discrepancy(A_fit, B_fit, A_eval, B_eval) -> float:
    """T* fitted by least squares on (A_fit, B_fit); the max residual norm taken on
    (A_eval, B_eval).

    Guards against the in-sample fit shrinking D when n is not much larger than w.
    """
    A_fit, B_fit = _pair(A_fit, B_fit, names=("A_fit", "B_fit"))
    A_eval, B_eval = _pair(A_eval, B_eval, names=("A_eval", "B_eval"))
    if A_eval.shape[1] != A_fit.shape[1] or B_eval.shape[1] != B_fit.shape[1]:
        raise ValueError(
            f"evaluation features must have the fitted widths: A {A_fit.shape[1]}, "
            f"B {B_fit.shape[1]}; got A_eval {A_eval.shape[1]}, B_eval "
            f"{B_eval.shape[1]}"
        )
    T = fit_alignment(A_fit, B_fit)
    return float(np.linalg.norm(A_eval - B_eval @ T, axis=1).max())


def split_discrepancy(
    A, B, rng: np.random.Generator, *, fit_fraction: float = 0.5
) -> float:
    """`heldout_discrepancy` on a random split of the rows: `fit_fraction` of them fit
    T.
    """
    A, B = _pair(A, B)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    if not (isinstance(fit_fraction, (int, float)) and 0.0 < fit_fraction < 1.0):
        raise ValueError(f"fit_fraction must lie in (0, 1), got {fit_fraction!r}")
    n = A.shape[0]
    n_fit = int(round(fit_fraction * n))
    if not 0 < n_fit < n:
        raise ValueError(
            f"fit_fraction={fit_fraction} leaves no rows on one side of n={n}"
        )
    order = rng.permutation(n)
    fit, ev = order[:n_fit], order[n_fit:]
    return heldout_discrepancy(A[fit], B[fit], A[ev], B[ev])


def minmax_discrepancy(A, B, *, max_size: int = 400) -> float:
    """The exact D = min_T max_i ‖a_i − T b_i‖₂ (a convex problem), for small inputs
    only.

    Solved in epigraph form (minimise s subject to ‖a_i − T b_i‖² ≤ s²) with SLSQP,
    started from the least-squares T*. It never exceeds `discrepancy(A, B)`. `max_size`
    caps n·w_A·w_B.
    """
    from scipy.optimize import minimize

    A, B = _pair(A, B)
    _enough_rows(B)
    n, wa = A.shape
    wb = B.shape[1]
    if n * wa * wb > max_size:
        raise ValueError(
            f"minmax_discrepancy is for small inputs: n·w_A·w_B = {n * wa * wb} "
            f"exceeds max_size={max_size}"
        )
    T0 = fit_alignment(A, B)
    s0 = float(np.linalg.norm(A - B @ T0, axis=1).max())
    scale = max(s0, 1e-12)
    An, Bn = A / scale, B  # solve in units of the surrogate, rescale at the end

    def unpack(x):
        return x[:-1].reshape(wb, wa), x[-1]

    def constraints(x):
        T, s = unpack(x)
        R = An - Bn @ T
        return s * s - np.sum(R * R, axis=1)

    def constraints_jac(x):
        T, s = unpack(x)
        R = An - Bn @ T  # n × wa
        # d/dT of −‖r_i‖² = 2 b_i r_iᵀ (as a wb × wa matrix per input)
        dT = 2.0 * Bn[:, :, None] * R[:, None, :]
        return np.hstack([dT.reshape(n, -1), np.full((n, 1), 2.0 * s)])

    x0 = np.concatenate([(T0 / scale).ravel(), [1.0]])
    res = minimize(
        lambda x: x[-1],
        x0,
        jac=lambda x: np.eye(1, x.size, x.size - 1)[0],
        method="SLSQP",
        constraints=[{"type": "ineq", "fun": constraints, "jac": constraints_jac}],
        bounds=[(None, None)] * (x0.size - 1) + [(0.0, None)],
        options={"maxiter": 2000, "ftol": 1e-14},
    )
    T, _ = unpack(res.x)
    exact = float(
        np.linalg.norm(An - Bn @ T, axis=1).max()
    )  # the max at the returned T
    return exact * scale


@dataclass(frozen=True)
class Shift:
    """Everything `measure.py` logs for one (task t, layer k, later snapshot t+Δt)."""

    D: float  # least-squares surrogate of the min–max discrepancy
    sigma: float  # unaligned discrepancy
    size: RepresentationSize


def measure_shift(A, B) -> Shift:
    """D, σ and ‖R‖ of one pair of snapshots' features on the same inputs."""
    return Shift(discrepancy(A, B), unaligned_discrepancy(A, B), representation_size(A))


# --------------------------------------------------------------------------------------
# linear probes
def probe_accuracy(
    F_train, y_train, F_test, y_test, *, C: float = 1.0, max_iter: int = 2000
) -> float:
    """Test accuracy of a logistic-regression probe (lbfgs, L2 with strength C) on
    frozen features.

    Features are standardised with the training features' mean and spread first
    (constant features, e.g. dead ReLU units, are left at zero).
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    F_train = _features("F_train", F_train)
    F_test = _features("F_test", F_test)
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    if y_train.shape != (F_train.shape[0],):
        raise ValueError(
            f"y_train must have one label per row of F_train ({F_train.shape[0]}), "
            f"got shape {y_train.shape}"
        )
    if y_test.shape != (F_test.shape[0],):
        raise ValueError(
            f"y_test must have one label per row of F_test ({F_test.shape[0]}), "
            f"got shape {y_test.shape}"
        )
    if F_test.shape[1] != F_train.shape[1]:
        raise ValueError(
            f"F_test must have the width of F_train ({F_train.shape[1]}), got "
            f"{F_test.shape[1]}"
        )
    if len(np.unique(y_train)) < 2:
        raise ValueError("y_train must contain at least two classes")
    if not (isinstance(C, (int, float)) and C > 0):
        raise ValueError(f"C must be a positive number, got {C!r}")
    scaler = StandardScaler().fit(F_train)
    clf = LogisticRegression(C=C, solver="lbfgs", max_iter=max_iter)
    clf.fit(scaler.transform(F_train), y_train)
    return float(np.mean(clf.predict(scaler.transform(F_test)) == y_test))


# --------------------------------------------------------------------------------------
# tasks
@dataclass(frozen=True)
class Task:
    """One task of a class-split stream: its classes, and a train/test split of its
    inputs.

    Labels are local to the task (0 .. len(classes)−1), as seen by the task's own head;
    `y_*_global` keep the original class labels.
    """

    classes: tuple[int, ...]
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    y_train_global: np.ndarray
    y_test_global: np.ndarray


def split_tasks(
    X,
    y,
    class_groups: Sequence[Sequence[int]],
    rng: np.random.Generator,
    *,
    test_fraction: float = 0.2,
) -> list[Task]:
    """Split (X, y) into one task per group of classes, each with its own train/test
    split.
    """
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim < 2 or X.shape[0] != y.shape[0]:
        raise ValueError(
            f"X must have one row per label: X shape {X.shape}, y shape {y.shape}"
        )
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    if not (isinstance(test_fraction, (int, float)) and 0.0 < test_fraction < 1.0):
        raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction!r}")
    groups = [tuple(int(c) for c in g) for g in class_groups]
    flat = [c for g in groups for c in g]
    if not groups or any(len(g) < 2 for g in groups):
        raise ValueError(
            f"class_groups must be groups of at least two classes, got {groups}"
        )
    if len(set(flat)) != len(flat):
        raise ValueError(f"class_groups must not share classes, got {groups}")
    tasks = []
    for g in groups:
        idx = np.flatnonzero(np.isin(y, g))
        missing = [c for c in g if not np.any(y == c)]
        if missing:
            raise ValueError(f"classes {missing} of group {g} have no examples in y")
        idx = idx[rng.permutation(idx.size)]
        n_test = int(round(test_fraction * idx.size))
        te, tr = idx[:n_test], idx[n_test:]
        local = {c: i for i, c in enumerate(g)}
        to_local = np.vectorize(local.__getitem__)
        tasks.append(
            Task(
                g,
                X[tr],
                to_local(y[tr]).astype(np.int64),
                X[te],
                to_local(y[te]).astype(np.int64),
                y[tr].astype(np.int64),
                y[te].astype(np.int64),
            )
        )
    return tasks


# --------------------------------------------------------------------------------------
# synthetic coloured shapes (the full scale's stand-in for Split-CIFAR100)
N_SHAPES = 10


def _shape_mask(shape: int, yy, xx, r):
    ax, ay = np.abs(xx), np.abs(yy)
    if shape == 0:  # disk
        return xx**2 + yy**2 <= r**2
    if shape == 1:  # square
        return (ax <= 0.8 * r) & (ay <= 0.8 * r)
    if shape == 2:  # triangle (apex up)
        return (yy <= 0.8 * r) & (yy >= -0.8 * r + 2 * ax)
    if shape == 3:  # plus
        return ((ax <= 0.3 * r) & (ay <= r)) | ((ay <= 0.3 * r) & (ax <= r))
    if shape == 4:  # ring
        d = np.sqrt(xx**2 + yy**2)
        return (d <= r) & (d >= 0.55 * r)
    if shape == 5:  # horizontal bar
        return (ax <= r) & (ay <= 0.35 * r)
    if shape == 6:  # vertical bar
        return (ay <= r) & (ax <= 0.35 * r)
    if shape == 7:  # diamond
        return ax + ay <= r
    if shape == 8:  # X
        return (np.abs(xx - yy) <= 0.45 * r) & (ax <= r) & (ay <= r) | (
            np.abs(xx + yy) <= 0.45 * r
        ) & (ax <= r) & (ay <= r)
    return (xx**2 + yy**2 <= r**2) & (yy >= 0)  # half disk


def coloured_shapes(
    n_per_class: int, n_classes: int, rng: np.random.Generator, *, size: int = 16
) -> tuple[np.ndarray, np.ndarray]:
    """Images of (shape, colour) classes: class c is shape c % 10 in colour c // 10.

    Returns X (n, 3, size, size) float32 in [0, 1] and y (n,) int64, in random order.
    Position, scale, colour and background vary per image, so a class is a distribution,
    not a template.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    for name, v, lo in [
        ("n_per_class", n_per_class, 1),
        ("n_classes", n_classes, 2),
        ("size", size, 8),
    ]:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ValueError(f"{name} must be an int ≥ {lo}, got {v!r}")
    n_colours = -(-n_classes // N_SHAPES)
    hues = np.arange(n_colours) / n_colours
    y = np.repeat(np.arange(n_classes), n_per_class)
    n = y.size
    grid = np.arange(size) - (size - 1) / 2
    yy, xx = np.meshgrid(grid, grid, indexing="ij")
    X = np.empty((n, 3, size, size), dtype=np.float32)
    centre = rng.uniform(-size / 8, size / 8, size=(n, 2))
    radius = rng.uniform(0.25, 0.4, size=n) * size
    hue_jit = rng.normal(0, 0.02, size=n)
    value = rng.uniform(0.7, 1.0, size=n)
    background = rng.uniform(0.0, 0.3, size=(n, 3))
    noise = rng.normal(0, 0.05, size=X.shape)
    for i in range(n):
        shape, colour = y[i] % N_SHAPES, y[i] // N_SHAPES
        mask = _shape_mask(shape, yy - centre[i, 0], xx - centre[i, 1], radius[i])
        rgb = _hsv_to_rgb((hues[colour] + hue_jit[i]) % 1.0, 0.85, value[i])
        img = np.broadcast_to(background[i][:, None, None], (3, size, size)).copy()
        img[:, mask] = np.asarray(rgb)[:, None]
        X[i] = img
    X = np.clip(X + noise, 0.0, 1.0).astype(np.float32)
    order = rng.permutation(n)
    return X[order], y[order].astype(np.int64)


def _hsv_to_rgb(h: float, s: float, v: float) -> tuple[float, float, float]:
    i = int(h * 6) % 6
    f = h * 6 - int(h * 6)
    p, q, t = v * (1 - s), v * (1 - f * s), v * (1 - (1 - f) * s)
    return [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i]


# --------------------------------------------------------------------------------------
# flat networks with one head per task
def _init_(module: nn.Module) -> None:
    if isinstance(module, (nn.Linear, nn.Conv2d)):
        nn.init.xavier_uniform_(module.weight)
        if module.bias is not None:
            nn.init.zeros_(module.bias)


class FlatMLP(nn.Module):
    """`depth` hidden ReLU layers of constant `width`, then one linear head per task.

    `features(x)` returns the post-ReLU output of every hidden layer, k = 1..depth.
    """

    def __init__(self, n_in: int, width: int, depth: int, n_tasks: int, n_classes: int):
        super().__init__()
        self.layers = nn.ModuleList(
            [nn.Linear(n_in if k == 0 else width, width) for k in range(depth)]
        )
        self.heads = nn.ModuleList(
            [nn.Linear(width, n_classes) for _ in range(n_tasks)]
        )

    def features(self, x: torch.Tensor) -> list[torch.Tensor]:
        x = x.flatten(1)
        out = []
        for layer in self.layers:
            x = F.relu(layer(x))
            out.append(x)
        return out

    def forward(self, x: torch.Tensor, task: int) -> torch.Tensor:
        return self.heads[task](self.features(x)[-1])


class _Block(nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + x)


class FlatResNet(nn.Module):
    """A stem convolution and `depth` residual blocks, all with `width` channels and
    stride 1 (a "flat" ResNet), global average pooling, one linear head per task.

    `features(x)` returns each block's output averaged over space (width numbers per
    input).
    """

    def __init__(self, n_in: int, width: int, depth: int, n_tasks: int, n_classes: int):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(n_in, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU()
        )
        self.blocks = nn.ModuleList([_Block(width) for _ in range(depth)])
        self.heads = nn.ModuleList(
            [nn.Linear(width, n_classes) for _ in range(n_tasks)]
        )

    def _maps(self, x):
        x = self.stem(x)
        out = []
        for block in self.blocks:
            x = block(x)
            out.append(x)
        return out

    def features(self, x: torch.Tensor) -> list[torch.Tensor]:
        return [m.mean(dim=(2, 3)) for m in self._maps(x)]

    def forward(self, x: torch.Tensor, task: int) -> torch.Tensor:
        return self.heads[task](self._maps(x)[-1].mean(dim=(2, 3)))


ARCHITECTURES = {"mlp": FlatMLP, "resnet": FlatResNet}


def make_network(
    kind: str,
    *,
    n_in: int,
    width: int,
    depth: int,
    n_tasks: int,
    n_classes: int = 2,
    seed: int = 0,
) -> nn.Module:
    """A flat network (`kind` in ARCHITECTURES) with Xavier-uniform weights drawn from
    `seed`.

    `n_in` is the input size for "mlp" and the input channels for "resnet".
    """
    if kind not in ARCHITECTURES:
        raise ValueError(f"kind must be one of {tuple(ARCHITECTURES)}, got {kind!r}")
    for name, v in [
        ("n_in", n_in),
        ("width", width),
        ("depth", depth),
        ("n_tasks", n_tasks),
        ("n_classes", n_classes),
    ]:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        net = ARCHITECTURES[kind](
            int(n_in), int(width), int(depth), int(n_tasks), int(n_classes)
        )
        net.apply(_init_)
    return net


def train_task(
    net: nn.Module,
    X: torch.Tensor,
    y: torch.Tensor,
    task: int,
    *,
    epochs: int,
    lr: float,
    momentum: float,
    batch_size: int,
    generator: torch.Generator,
) -> float:
    """Train `net` on one task with SGD (fresh momentum buffers), cross-entropy on head
    `task`.

    Returns the mean training loss of the last epoch.
    """
    if X.shape[0] != y.shape[0]:
        raise ValueError(
            f"X and y must have the same number of rows, got {X.shape[0]} and "
            f"{y.shape[0]}"
        )
    if not 0 <= task < len(net.heads):
        raise ValueError(f"task must lie in [0, {len(net.heads)}), got {task!r}")
    for name, v in [("epochs", epochs), ("batch_size", batch_size)]:
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    if not isinstance(generator, torch.Generator):
        raise TypeError(
            f"generator must be a torch.Generator, got {type(generator).__name__}"
        )
    params = [
        p
        for name, p in net.named_parameters()
        if not name.startswith("heads.") or name.startswith(f"heads.{task}.")
    ]
    opt = torch.optim.SGD(params, lr=lr, momentum=momentum)
    net.train()
    n = X.shape[0]
    last = math.nan
    for _ in range(epochs):
        order = torch.randperm(n, generator=generator).to(X.device)
        total = 0.0
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            loss = F.cross_entropy(net(X[idx], task), y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            total += float(loss.detach()) * idx.numel()
        last = total / n
    return last


def train_sequence(
    net: nn.Module,
    tasks: Sequence[Task],
    *,
    epochs: int,
    lr: float,
    momentum: float,
    batch_size: int,
    generator: torch.Generator,
    device: str = "cpu",
) -> list[dict]:
    """Task-incremental training: task 0, then 1, ... Returns one snapshot (a state dict
    on the CPU) after each task: snapshot t is the network h_t."""
    if len(tasks) > len(net.heads):
        raise ValueError(f"net has {len(net.heads)} heads for {len(tasks)} tasks")
    net.to(device)
    snapshots = []
    for t, task in enumerate(tasks):
        X = torch.as_tensor(task.X_train, dtype=torch.float32, device=device)
        y = torch.as_tensor(task.y_train, dtype=torch.int64, device=device)
        train_task(
            net,
            X,
            y,
            t,
            epochs=epochs,
            lr=lr,
            momentum=momentum,
            batch_size=batch_size,
            generator=generator,
        )
        snapshots.append(
            {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
        )
    return snapshots


@torch.no_grad()
def layer_features(
    net: nn.Module, snapshot: dict, X, *, batch_size: int = 4096, device: str = "cpu"
) -> list[np.ndarray]:
    """Features h^k(X) of every layer k = 1..depth under `snapshot` (eval mode), as
    float64.
    """
    net = copy.deepcopy(net).to(device)
    net.load_state_dict(snapshot)
    net.eval()
    X = torch.as_tensor(np.asarray(X), dtype=torch.float32)
    parts = []
    for start in range(0, X.shape[0], batch_size):
        feats = net.features(X[start : start + batch_size].to(device))
        parts.append([f.double().cpu().numpy() for f in feats])
    return [np.concatenate([p[k] for p in parts]) for k in range(len(parts[0]))]


def task_accuracy(
    net: nn.Module, snapshot: dict, task_index: int, X, y, *, device: str = "cpu"
) -> float:
    """Accuracy of head `task_index` of `snapshot` on (X, y) with task-local labels."""
    net = copy.deepcopy(net).to(device)
    net.load_state_dict(snapshot)
    net.eval()
    with torch.no_grad():
        logits = net(
            torch.as_tensor(np.asarray(X), dtype=torch.float32, device=device),
            task_index,
        )
    return float((logits.argmax(1).cpu().numpy() == np.asarray(y)).mean())


# --------------------------------------------------------------------------------------
# the saturation phase
def saturation_time(
    curve, *, fraction: float = 0.9, tail: float = 1 / 3, interpolate: bool = False
) -> float:
    """When a D(Δt) curve (curve[i] is D at Δt = i + 1) first reaches `fraction` of its
    plateau, the plateau being the mean of the last `tail` share of the curve.

    With `interpolate=False` the first Δt (an integer) whose value reaches the level.
    With `interpolate=True` the crossing on a continuous scale: the curve is read as
    piecewise linear between its points and as 0 at Δt = 0 (a snapshot against itself
    has D = 0), and the first point where that line reaches the level is returned, a
    float in (0, first integer Δt]. It needs a curve ≥ 0 with a positive plateau."""
    c = np.asarray(curve, dtype=np.float64)
    if c.ndim != 1 or c.size < 3:
        raise ValueError(
            f"curve must be 1-D with at least 3 points, got shape {c.shape}"
        )
    if not np.all(np.isfinite(c)):
        raise ValueError("curve must be finite")
    if not (0.0 < fraction <= 1.0):
        raise ValueError(f"fraction must lie in (0, 1], got {fraction!r}")
    if not (0.0 < tail < 1.0):
        raise ValueError(f"tail must lie in (0, 1), got {tail!r}")
    m = max(1, int(round(tail * c.size)))
    level = fraction * c[-m:].mean()
    i = int(np.argmax(c >= level))
    if not interpolate:
        return i + 1
    if np.any(c < 0) or not level > 0:
        raise ValueError(
            "an interpolated saturation time needs a curve ≥ 0 with a positive plateau"
        )
    before = 0.0 if i == 0 else c[i - 1]  # D at Δt = i
    return float(i + (level - before) / (c[i] - before))


# ======================================================================================
# experiment protocols: the chapter's streams, trained and measured
Measure = Callable[[np.ndarray, np.ndarray], float]


def _generator(name: str, rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"{name} must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    return rng


def _positive_int(name: str, v, lo: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
        raise ValueError(f"{name} must be an int ≥ {lo}, got {v!r}")
    return int(v)


# --------------------------------------------------------------------------------------
# probe data
def corrupted_probe_sets(
    task: Task, std: float, rng: np.random.Generator, *, test_copies: int = 4
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Task `task`'s own probe data with i.i.d. Gaussian noise of `std` added to every
    input value: one noisy copy of the training inputs, `test_copies` noisy copies of
    the test inputs (finer accuracy steps). Labels are the task's local ones.

    Draw it once per task and feed the same noisy inputs to both snapshots, so that ΔP
    compares the two snapshots on identical inputs.
    """
    _generator("rng", rng)
    if not (isinstance(std, (int, float)) and np.isfinite(std) and std >= 0):
        raise ValueError(f"std must be a finite number ≥ 0, got {std!r}")
    copies = _positive_int("test_copies", test_copies)
    Xtr = np.asarray(task.X_train, dtype=np.float32)
    Xte = np.concatenate([np.asarray(task.X_test, dtype=np.float32)] * copies)
    Xtr = Xtr + std * rng.standard_normal(Xtr.shape).astype(np.float32)
    Xte = Xte + std * rng.standard_normal(Xte.shape).astype(np.float32)
    return Xtr, task.y_train, Xte, np.tile(task.y_test, copies)


def pooled_probe_sets(
    tasks: Sequence[Task], per_class: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A probe over the (global) classes of all `tasks`: up to `per_class` training
    inputs of each class, all test inputs."""
    per_class = _positive_int("per_class", per_class)
    if not tasks:
        raise ValueError("tasks must not be empty")
    keep = [
        np.concatenate(
            [np.flatnonzero(t.y_train == c)[:per_class] for c in range(len(t.classes))]
        )
        for t in tasks
    ]
    Xtr = np.concatenate([t.X_train[i] for t, i in zip(tasks, keep)])
    ytr = np.concatenate([t.y_train_global[i] for t, i in zip(tasks, keep)])
    Xte = np.concatenate([t.X_test for t in tasks])
    yte = np.concatenate([t.y_test_global for t in tasks])
    return Xtr, ytr, Xte, yte


# --------------------------------------------------------------------------------------
# the main stream
def measure_stream(
    net: torch.nn.Module,
    tasks: Sequence[Task],
    *,
    epochs: int,
    lr: float,
    momentum: float,
    batch_size: int,
    generator: torch.Generator,
    eval_tasks: int,
    noise_std: float,
    noise_rng: np.random.Generator,
    test_copies: int = 4,
    pooled_per_class: int | None = None,
    extra: Mapping[str, Measure] | None = None,
    device: str = "cpu",
) -> tuple[list[dict], list[dict]]:
    """Train `net` on `tasks` in turn (`train_sequence`), then measure every (t, Δt, k)
    with t < `eval_tasks`.

    Returns (rows, heads). A row holds t, dt, k, D, sigma, R (‖R‖), D_held (T fitted on
    task t's training inputs, max over its test inputs), the probes' accuracies at
    snapshot t (`P2_before`, `Pn_before`) and their forgetting: `dP2` (the task-t probe,
    clean inputs), `dPn` (the task-t probe, inputs corrupted with noise of `noise_std`,
    see `corrupted_probe_sets`), `dP10` (a probe over the classes of the first five
    tasks, `pooled_per_class` training inputs per class; absent when None), and one
    value per `extra` measure (name → f(A, B) on the training features). `heads` holds
    the accuracy of task t's own head on its test inputs after task t + dt.
    """
    eval_tasks = _positive_int("eval_tasks", eval_tasks)
    if eval_tasks >= len(tasks):
        raise ValueError(
            f"eval_tasks must be smaller than the number of tasks ({len(tasks)}), so "
            f"that every measured task has a later snapshot; got {eval_tasks}"
        )
    _generator("noise_rng", noise_rng)
    extra = dict(extra or {})
    snaps = train_sequence(
        net,
        tasks,
        epochs=epochs,
        lr=lr,
        momentum=momentum,
        batch_size=batch_size,
        generator=generator,
        device=device,
    )
    n_snap = len(tasks)

    def feats(j, X):
        return layer_features(net, snaps[j], X, device=device)

    depth = len(feats(0, tasks[0].X_train[:1]))
    P10 = {}
    if pooled_per_class is not None:
        Ptr, ptr_y, Pte, pte_y = pooled_probe_sets(tasks[:5], pooled_per_class)
        for j in range(n_snap):
            ftr, fte = feats(j, Ptr), feats(j, Pte)
            for k in range(depth):
                P10[j, k] = probe_accuracy(ftr[k], ptr_y, fte[k], pte_y)
    rows, heads = [], []
    for t in range(eval_tasks):
        task = tasks[t]
        Ntr, ntr_y, Nte, nte_y = corrupted_probe_sets(
            task, noise_std, noise_rng, test_copies=test_copies
        )

        def probes(j):
            F_tr, F_te = feats(j, task.X_train), feats(j, task.X_test)
            G_tr, G_te = feats(j, Ntr), feats(j, Nte)
            clean = [
                probe_accuracy(F_tr[k], task.y_train, F_te[k], task.y_test)
                for k in range(depth)
            ]
            noisy = [
                probe_accuracy(G_tr[k], ntr_y, G_te[k], nte_y) for k in range(depth)
            ]
            return F_tr, F_te, clean, noisy

        A_tr, A_te, P2, Pn = probes(t)
        for j in range(t, n_snap):
            acc = task_accuracy(
                net, snaps[j], t, task.X_test, task.y_test, device=device
            )
            heads.append(dict(t=t, dt=j - t, acc=acc))
        for j in range(t + 1, n_snap):
            B_tr, B_te, P2_j, Pn_j = probes(j)
            for k in range(depth):
                a, b = A_tr[k], B_tr[k]
                shift = measure_shift(a, b)
                row = dict(
                    t=t,
                    dt=j - t,
                    k=k + 1,
                    D=shift.D,
                    sigma=shift.sigma,
                    R=shift.size.max,
                    D_held=heldout_discrepancy(a, b, A_te[k], B_te[k]),
                    P2_before=P2[k],
                    Pn_before=Pn[k],
                    dP2=P2[k] - P2_j[k],
                    dPn=Pn[k] - Pn_j[k],
                )
                if P10:
                    row["dP10"] = P10[t, k] - P10[j, k]
                for name, f in extra.items():
                    row[name] = float(f(a, b))
                rows.append(row)
    return rows, heads


# --------------------------------------------------------------------------------------
# the long stream
def permuted_tasks(
    X,
    y,
    n_tasks: int,
    rng: np.random.Generator,
    *,
    n_per_task: int,
    test_fraction: float = 0.2,
) -> list[Task]:
    """`n_tasks` tasks over all classes of (X, y), task i seeing its inputs' features
    (pixels) in its own fixed random order; task 0 keeps the original order. Each task
    draws its own `n_per_task` rows and splits them into train and test.
    """
    X, y = np.asarray(X), np.asarray(y)
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(
            f"X must be 2-D with one row per label: X shape {X.shape}, y shape "
            f"{y.shape}"
        )
    _generator("rng", rng)
    n_tasks = _positive_int("n_tasks", n_tasks)
    n_per_task = _positive_int("n_per_task", n_per_task, 2)
    if n_per_task > X.shape[0]:
        raise ValueError(f"n_per_task={n_per_task} exceeds the {X.shape[0]} rows of X")
    if not (isinstance(test_fraction, (int, float)) and 0.0 < test_fraction < 1.0):
        raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction!r}")
    classes = tuple(int(c) for c in np.unique(y))
    if len(classes) < 2:
        raise ValueError("y must hold at least two classes")
    local = np.searchsorted(np.asarray(classes), y).astype(np.int64)
    n_test = int(round(test_fraction * n_per_task))
    if not 0 < n_test < n_per_task:
        raise ValueError(
            f"test_fraction={test_fraction} leaves no rows on one side of "
            f"n_per_task={n_per_task}"
        )
    tasks = []
    for i in range(n_tasks):
        perm = np.arange(X.shape[1]) if i == 0 else rng.permutation(X.shape[1])
        rows = rng.choice(X.shape[0], size=n_per_task, replace=False)
        te, tr = rows[:n_test], rows[n_test:]
        tasks.append(
            Task(
                classes,
                X[tr][:, perm],
                local[tr],
                X[te][:, perm],
                local[te],
                y[tr].astype(np.int64),
                y[te].astype(np.int64),
            )
        )
    return tasks


def first_task_drift(
    net: torch.nn.Module,
    tasks: Sequence[Task],
    *,
    epochs: int,
    lr: float,
    momentum: float,
    batch_size: int,
    generator: torch.Generator,
    device: str = "cpu",
) -> dict:
    """Train `net` on `tasks` in turn and follow task 0 through every later snapshot.

    Returns {"D": (depth × n−1) array, D of task 0's training inputs at layer k+1 and
    Δt = 1..n−1; "R": (depth,) ‖R‖ at snapshot 0; "own_acc": (n,) accuracy of each
    task's head on its test inputs right after its training; "first_acc": (n,) task 0's
    head accuracy after task 0 + Δt}.
    """
    if len(tasks) < 2:
        raise ValueError(f"the stream needs at least two tasks, got {len(tasks)}")
    snaps = train_sequence(
        net,
        tasks,
        epochs=epochs,
        lr=lr,
        momentum=momentum,
        batch_size=batch_size,
        generator=generator,
        device=device,
    )
    X0 = tasks[0].X_train
    A = layer_features(net, snaps[0], X0, device=device)
    D = np.empty((len(A), len(tasks) - 1))
    for j in range(1, len(tasks)):
        B = layer_features(net, snaps[j], X0, device=device)
        for k in range(len(A)):
            D[k, j - 1] = discrepancy(A[k], B[k])
    own = [
        task_accuracy(net, snaps[i], i, t.X_test, t.y_test, device=device)
        for i, t in enumerate(tasks)
    ]
    first = [
        task_accuracy(net, s, 0, tasks[0].X_test, tasks[0].y_test, device=device)
        for s in snaps
    ]
    return dict(
        D=D,
        R=np.array([representation_size(a).max for a in A]),
        own_acc=np.array(own),
        first_acc=np.array(first),
    )


# --------------------------------------------------------------------------------------
# curve summaries
def _curve(curve, lo: int) -> np.ndarray:
    c = np.asarray(curve, dtype=np.float64)
    if c.ndim != 1 or c.size < lo:
        raise ValueError(
            f"curve must be 1-D with at least {lo} points, got shape {c.shape}"
        )
    if not np.all(np.isfinite(c)):
        raise ValueError("curve must be finite")
    return c


def trend_slope(curve) -> float:
    """Least-squares slope of curve[i] against Δt = i + 1 (per task learned since)."""
    c = _curve(curve, 2)
    x = np.arange(1, c.size + 1, dtype=np.float64)
    x -= x.mean()
    return float(np.dot(x, c - c.mean()) / np.dot(x, x))


def plateau_drift(curve, *, tail: float = 1 / 3) -> float:
    """How far the curve still moves over its last `tail` share, relative to its level
    there: the least-squares slope over those m points times their span m − 1 in Δt,
    divided by their mean. Near 0 on a plateau. For a straight line through the origin
    sampled at Δt = 1..n it is (m − 1) / (n − (m − 1)/2): 4/13 ≈ 0.31 for n = 15 (m =
    5), 9/26.5 ≈ 0.34 for n = 31 (m = 10), tending to 0.4 at large n with tail = 1/3."""
    c = _curve(curve, 3)
    if not (isinstance(tail, (int, float)) and 0.0 < tail < 1.0):
        raise ValueError(f"tail must lie in (0, 1), got {tail!r}")
    m = max(2, int(round(tail * c.size)))
    last = c[-m:]
    if last.mean() <= 0:
        raise ValueError("the curve's last points must have a positive mean")
    return trend_slope(last) * (m - 1) / float(last.mean())


def early_slope(curve, *, head: float = 1 / 3) -> float:
    """Least-squares slope over the first `head` share of a D(Δt) curve (curve[i] at
    Δt = i + 1; at least 2 points): how fast it rises in its forgetting phase."""
    c = _curve(curve, 2)
    if not (isinstance(head, (int, float)) and 0.0 < head <= 1.0):
        raise ValueError(f"head must lie in (0, 1], got {head!r}")
    return trend_slope(c[: max(2, int(round(head * c.size)))])


def layer_slopes(tau) -> np.ndarray:
    """Each row's least-squares slope of τ_k against the layer index k = 1..K.

    `tau` is (seeds × K) (or one row of K ≥ 2 values): one slope per seed, negative
    when τ falls with depth."""
    t = np.asarray(tau, dtype=np.float64)
    if t.ndim == 1:
        t = t[None, :]
    if t.ndim != 2 or t.shape[1] < 2 or t.shape[0] < 1:
        raise ValueError(
            f"tau must be (seeds × layers) with at least 2 layers, got shape {t.shape}"
        )
    return np.array([trend_slope(row) for row in t])


def plateau_window(n_points: int, *, tail: float = 1 / 3) -> tuple[int, int]:
    """The Δt range (first, last) whose mean `saturation_time` takes as the plateau of
    a curve of `n_points` values (Δt = 1..n_points)."""
    n = _positive_int("n_points", n_points, 3)
    if not (isinstance(tail, (int, float)) and 0.0 < tail < 1.0):
        raise ValueError(f"tail must lie in (0, 1), got {tail!r}")
    m = max(1, int(round(tail * n)))
    return n - m + 1, n


def still_rising(tau, n_points: int, *, tail: float = 1 / 3) -> np.ndarray:
    """True where an interpolated saturation time lies past Δt = first − 1 of the
    plateau window: the curve first reached its level at a point of the window over
    which that level is averaged, so it was still rising there."""
    first, _ = plateau_window(n_points, tail=tail)
    t = np.asarray(tau, dtype=np.float64)
    if not np.all(np.isfinite(t)):
        raise ValueError("tau must be finite")
    return t > first - 1

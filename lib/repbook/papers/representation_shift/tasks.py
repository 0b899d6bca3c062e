"""The task streams: class-split tasks (`split_tasks`), the full scale's synthetic
coloured shapes (`coloured_shapes`), the long stream of permuted-pixel tasks
(`permuted_tasks`), and the probes' data sets (`corrupted_probe_sets`,
`pooled_probe_sets`). Randomness comes in as a numpy Generator; nothing here prints,
plots or writes files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from repbook.core import checks


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
    checks.generator("rng", rng)
    checks.number("test_fraction", test_fraction, above=0.0, below=1.0)
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
    checks.generator("rng", rng)
    checks.integer("n_per_class", n_per_class, at_least=1)
    checks.integer("n_classes", n_classes, at_least=2)
    checks.integer("size", size, at_least=8)
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
    checks.generator("rng", rng)
    checks.number("std", std, at_least=0.0)
    copies = checks.integer("test_copies", test_copies, at_least=1)
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
    per_class = checks.integer("per_class", per_class, at_least=1)
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
    checks.generator("rng", rng)
    n_tasks = checks.integer("n_tasks", n_tasks, at_least=1)
    n_per_task = checks.integer("n_per_task", n_per_task, at_least=2)
    if n_per_task > X.shape[0]:
        raise ValueError(f"n_per_task={n_per_task} exceeds the {X.shape[0]} rows of X")
    checks.number("test_fraction", test_fraction, above=0.0, below=1.0)
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

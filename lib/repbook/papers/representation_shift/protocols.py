"""The chapter's experiment protocols: `measure_stream` trains one flat network on a
class-split stream and measures every (t, Δt, k) (D, σ, ‖R‖, the held-out D and three
probes); `main_stream` runs it for every width and replicate of the chapter's size
table; `first_task_drift` follows task 0 through a long stream, and `long_stream` runs
it for every width and replicate. Randomness comes in as generators: `rng_for(k)` and
`torch_rng_for(k)` give the generators of stream k (the chapter passes `run.child_rng`
and `run.torch_generator`). Nothing here prints, plots or writes files.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch

from repbook.core import checks

from .measures import (
    discrepancy,
    heldout_discrepancy,
    measure_shift,
    probe_accuracy,
    representation_size,
)
from .networks import (
    layer_features,
    make_network,
    single_threaded,
    task_accuracy,
    train_sequence,
)
from .tasks import (
    Task,
    corrupted_probe_sets,
    permuted_tasks,
    pooled_probe_sets,
    split_tasks,
)

Measure = Callable[[np.ndarray, np.ndarray], float]


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
    eval_tasks = checks.integer("eval_tasks", eval_tasks, at_least=1)
    if eval_tasks >= len(tasks):
        raise ValueError(
            f"eval_tasks must be smaller than the number of tasks ({len(tasks)}), so "
            f"that every measured task has a later snapshot; got {eval_tasks}"
        )
    checks.generator("noise_rng", noise_rng)
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
# the chapter's runs: every width and replicate
MAIN_KEYS = (
    "net",
    "n_tasks",
    "widths",
    "depth",
    "seeds",
    "epochs",
    "lr",
    "momentum",
    "batch",
    "eval_tasks",
    "probe_noise",
)
LONG_KEYS = (
    "long_tasks",
    "long_widths",
    "depth",
    "seeds",
    "long_per_task",
    "long_epochs",
    "lr",
    "momentum",
    "batch",
)


def _sizes(sizes: Mapping[str, Any], keys: Sequence[str]) -> Mapping[str, Any]:
    missing = [k for k in keys if k not in sizes]
    if missing:
        raise ValueError(f"sizes lacks {missing}; it needs {list(keys)}")
    return sizes


@dataclass(frozen=True)
class MainStream:
    """The main stream's measurements over every width and replicate.

    `rows`: one row per (width, rep, t, dt, k), the columns of `measure_stream` and
    `Dn` = D / ‖R‖; `heads`: (width, rep, t, dt, acc) of task t's own head; `n_fit`: the
    number of training inputs of task 0 (replicate 0), the n of the least-squares fit."""

    rows: pd.DataFrame
    heads: pd.DataFrame
    n_fit: int


def main_stream(
    X,
    y,
    sizes: Mapping[str, Any],
    *,
    n_in: int,
    rng_for: Callable[[int], np.random.Generator],
    torch_rng_for: Callable[[int], torch.Generator],
    extra: Mapping[str, Measure] | None = None,
    device: str = "cpu",
) -> MainStream:
    """Train and measure replicate r = 0..seeds−1 of every width on the class-split stream
    of `sizes["n_tasks"]` two-class tasks (classes (0, 1), (2, 3), …), single-threaded.

    Replicate r splits each task with `rng_for(100 + r)`, draws its initialisation's
    seed from `rng_for(200 + r)`, its batch order from `torch_rng_for(300 + r)` and its
    probe noise from `rng_for(400 + r)`: every width of one replicate shares them.
    `sizes` holds MAIN_KEYS (net, n_tasks, widths, depth, seeds, epochs, lr, momentum,
    batch, eval_tasks, probe_noise); `extra` adds measures (see `measure_stream`)."""
    sizes = _sizes(sizes, MAIN_KEYS)
    checks.function("rng_for", rng_for)
    checks.function("torch_rng_for", torch_rng_for)
    T = sizes["n_tasks"]
    groups = [(2 * i, 2 * i + 1) for i in range(T)]
    rows, heads, n_fit = [], [], None
    with single_threaded():  # tiny networks and probes: one thread is faster
        for width in sizes["widths"]:
            for r in range(sizes["seeds"]):
                tasks = split_tasks(X, y, groups, rng_for(100 + r))
                if n_fit is None:
                    n_fit = int(tasks[0].X_train.shape[0])
                net = make_network(
                    sizes["net"],
                    n_in=n_in,
                    width=width,
                    depth=sizes["depth"],
                    n_tasks=T,
                    seed=int(rng_for(200 + r).integers(2**31)),
                )
                more_rows, more_heads = measure_stream(
                    net,
                    tasks,
                    epochs=sizes["epochs"],
                    lr=sizes["lr"],
                    momentum=sizes["momentum"],
                    batch_size=sizes["batch"],
                    generator=torch_rng_for(300 + r),
                    eval_tasks=sizes["eval_tasks"],
                    noise_std=sizes["probe_noise"],
                    noise_rng=rng_for(400 + r),
                    extra=extra,
                    device=device,
                )
                label = dict(width=width, rep=r)
                rows += [label | x for x in more_rows]
                heads += [label | x for x in more_heads]
    df = pd.DataFrame(rows)
    df["Dn"] = df.D / df.R  # discrepancy relative to ‖R‖
    return MainStream(df, pd.DataFrame(heads), n_fit)


def long_stream(
    X,
    y,
    sizes: Mapping[str, Any],
    *,
    rng_for: Callable[[int], np.random.Generator],
    torch_rng_for: Callable[[int], torch.Generator],
    device: str = "cpu",
) -> dict[tuple[int, int], dict]:
    """`first_task_drift` of replicate r = 0..seeds−1 of every width of
    `sizes["long_widths"]` on `sizes["long_tasks"]` permuted tasks over all classes of
    (X, y) (10-way heads), single-threaded: {(width, r): its drift}.

    Replicate r draws its tasks from `rng_for(500 + r)`, its initialisation's seed from
    `rng_for(600 + r)` and its batch order from `torch_rng_for(700 + r)`; every width
    of one replicate shares them. `sizes` holds LONG_KEYS."""
    sizes = _sizes(sizes, LONG_KEYS)
    checks.function("rng_for", rng_for)
    checks.function("torch_rng_for", torch_rng_for)
    X = np.asarray(X)
    drift = {}
    with single_threaded():
        for w in sizes["long_widths"]:
            for r in range(sizes["seeds"]):
                tasks = permuted_tasks(
                    X,
                    y,
                    sizes["long_tasks"],
                    rng_for(500 + r),
                    n_per_task=sizes["long_per_task"],
                )
                net = make_network(
                    "mlp",
                    n_in=X.shape[1],
                    width=w,
                    depth=sizes["depth"],
                    n_tasks=sizes["long_tasks"],
                    n_classes=10,
                    seed=int(rng_for(600 + r).integers(2**31)),
                )
                drift[w, r] = first_task_drift(
                    net,
                    tasks,
                    epochs=sizes["long_epochs"],
                    lr=sizes["lr"],
                    momentum=sizes["momentum"],
                    batch_size=sizes["batch"],
                    generator=torch_rng_for(700 + r),
                    device=device,
                )
    return drift

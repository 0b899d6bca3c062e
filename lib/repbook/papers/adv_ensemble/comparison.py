"""Claims 5a–5d: AdvEOAP against independent PGD-AT, trained from the same initial weights on the
same batches per seed, evaluated under PGD (ensemble, members alone, transfer) and read through
the decompositions (the one-hot ten-class sum and the true-class probability)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from repbook.core import checks
from repbook.core.nets import mlp

from .attacks import mean_off_diagonal, robust_accuracy, transfer_matrix
from .models import (
    Ensemble,
    accuracy,
    classifier_decomposition,
    classifier_true_class_terms,
)
from .oap import train_adv_ensemble
from .protocol import STREAM


@dataclass(frozen=True)
class AdvMethod:
    """A training method of the comparison: `adv_oap_loss` with weights α (log det) and β
    (entropy) on adversarial or clean predictions; α = β = 0 is independent PGD-AT."""

    alpha: float
    beta: float
    diversity_on: str = "adversarial"


METHODS = {
    "independent PGD-AT": AdvMethod(alpha=0.0, beta=0.0),
    "AdvEOAP (α=0.5)": AdvMethod(alpha=0.5, beta=10.0),
    "AdvEOAP (α=0.2)": AdvMethod(alpha=0.2, beta=10.0),
    "ADP-style (clean predictions)": AdvMethod(0.5, 10.0, diversity_on="clean"),
}
"""The methods the chapter compares, by name: the official code's independent baseline
(`adv_loss_naive_multi`), AdvEOAP at two weights of the log-determinant (β = 10 as in the
code), and the same loss on clean predictions (an ADP-style variant)."""


@dataclass(frozen=True)
class MethodComparison:
    """What `compare_methods` returns.

    rows: one dict per (seed, method): clean and robust accuracy of the ensemble, the members'
    mean robust accuracy attacked alone, the mean off-diagonal transfer, and the test-set means
    of the decomposition terms (`classifier_decomposition` at the attack's ε: ensemble,
    average, prediction, gradient, cross). transfers: method → one transfer matrix per seed.
    members: (seed, method) → the trained members. test_index: seed → the test rows of X."""

    rows: list
    transfers: dict
    members: dict
    test_index: dict


def compare_methods(
    X,
    y,
    methods,
    *,
    n_seeds: int,
    rng_for,
    generator_for,
    num_classes: int,
    hidden: int,
    n_members: int,
    epochs: int,
    batch_size: int,
    lr: float,
    epsilon: float,
    train_steps: int,
    eval_steps: int,
    train_share: float = 0.6,
) -> MethodComparison:
    """Claim 5's experiment. For each seed r: a train/test split and `n_members` initial
    weights from `rng_for(500 + r)` (a numpy Generator), shared by every method; then each
    method of `methods` (name → AdvMethod) trains `n_members` one-hidden-layer MLPs jointly with
    `train_adv_ensemble` (PGD-`train_steps`, step 2.5ε/steps, batches and random starts from
    `generator_for(500 + r)`), and is evaluated on the test rows with PGD-`eval_steps` (step
    2.5ε/steps, random start): the mean-logit ensemble (stream 600 + r), the transfer matrix
    (700 + r) and each member alone (800 + r, the same stream for every member)."""
    checks.function("rng_for", rng_for, STREAM)
    checks.function("generator_for", generator_for, STREAM)
    n_seeds = checks.integer("n_seeds", n_seeds, at_least=1)
    n_members = checks.integer("n_members", n_members, at_least=1)
    checks.number("train_share", train_share, above=0, below=1)
    methods = dict(methods)
    if not methods:
        raise ValueError("methods must name at least one method")
    for name, spec in methods.items():
        if not isinstance(spec, AdvMethod):
            raise TypeError(f"method {name!r} must be an AdvMethod, got {spec!r}")
    checks.same_length(X=X, y=y)
    d_in = X.shape[1]
    ev = dict(epsilon=epsilon, steps=eval_steps, step_size=2.5 * epsilon / eval_steps)
    rows, transfers, trained, test_index = [], {}, {}, {}
    for r in range(n_seeds):
        srng = rng_for(500 + r)
        perm = srng.permutation(len(y))
        n_tr = int(train_share * len(perm))
        tr, te = perm[:n_tr], perm[n_tr:]
        test_index[r] = te
        member_seeds = srng.integers(0, 2**31, size=n_members)
        X_te, y_te = X[te], y[te]
        for name, spec in methods.items():
            members = [
                mlp((d_in, hidden, num_classes), seed=int(s)).to(X.device)
                for s in member_seeds
            ]
            train_adv_ensemble(
                members,
                X[tr],
                y[tr],
                num_classes=num_classes,
                epochs=epochs,
                batch_size=batch_size,
                lr=lr,
                epsilon=epsilon,
                steps=train_steps,
                step_size=2.5 * epsilon / train_steps,
                alpha=spec.alpha,
                beta=spec.beta,
                generator=generator_for(500 + r),
                diversity_on=spec.diversity_on,
            )
            ens = Ensemble(members).eval()
            robust = robust_accuracy(
                ens, X_te, y_te, generator=generator_for(600 + r), **ev
            )
            T = transfer_matrix(
                members, X_te, y_te, generator=generator_for(700 + r), **ev
            )
            member_robust = [
                robust_accuracy(m, X_te, y_te, generator=generator_for(800 + r), **ev)
                for m in members
            ]
            dec = classifier_decomposition(members, X_te, y_te, epsilon=epsilon)
            transfers.setdefault(name, []).append(T)
            trained[r, name] = members
            rows.append(
                dict(
                    seed=r,
                    method=name,
                    clean=accuracy(ens, X_te, y_te),
                    robust=robust,
                    member_robust=float(np.mean(member_robust)),
                    transfer=mean_off_diagonal(T),
                    **dec.means(),
                )
            )
    return MethodComparison(rows, transfers, trained, test_index)


def paired_differences(rows, value: str, method: str, baseline: str) -> list[float]:
    """Per seed, rows' `value` of `method` minus that of `baseline` (rows as in
    `MethodComparison.rows`), in seed order."""
    by = {(r["seed"], r["method"]): r[value] for r in rows}
    seeds = sorted({r["seed"] for r in rows})
    missing = [(s, m) for s in seeds for m in (method, baseline) if (s, m) not in by]
    if missing:
        raise ValueError(f"rows lack (seed, method) pairs {missing}")
    return [float(by[s, method] - by[s, baseline]) for s in seeds]


def true_class_table(
    comparison: MethodComparison, X, y, *, epsilon: float
) -> list[dict]:
    """Claim 5c's terms: for each trained (seed, method) of `comparison` (in sorted order), the
    test-set means of `classifier_true_class_terms` at that seed's test rows of (X, y) and the
    gradient dispersion. One row (a dict) per (seed, method), as `MethodComparison.rows`."""
    rows = []
    for (r, name), members in sorted(comparison.members.items()):
        te = comparison.test_index[r]
        dec, dispersion = classifier_true_class_terms(
            members, X[te], y[te], epsilon=epsilon
        )
        rows.append(dict(seed=r, method=name, **dec.means(), dispersion=dispersion))
    return rows


def robust_by_run(rows, methods) -> dict[str, float]:
    """'method, seed r' → the ensemble's robust accuracy, for the rows of `methods`."""
    return {
        f"{r['method']}, seed {r['seed']}": r["robust"]
        for r in rows
        if r["method"] in methods
    }


def scale_free_table(rows, true_class, methods) -> pd.DataFrame:
    """Scale-free diagnostics per method (means over seeds; rows: `methods` in order): the
    true-class gradient dispersion, and each diversity divided by the members' mean
    first-order loss (the average term), for the true-class reading and the one-hot sum.
    `rows`: `MethodComparison.rows`; `true_class`: `true_class_table` (lists of dicts or
    DataFrames)."""
    rows, true_class = pd.DataFrame(rows), pd.DataFrame(true_class)
    tc = true_class.groupby("method")[
        ["ensemble", "average", "prediction", "gradient", "cross", "dispersion"]
    ].mean()
    one_hot = rows.groupby("method")[["average", "gradient", "cross"]].mean()
    return pd.DataFrame(
        {
            "true-class dispersion 1 − ḡ²/mean gᵢ²": tc.dispersion,
            "true-class gradient ÷ average": tc.gradient / tc.average,
            "true-class cross ÷ average": tc.cross / tc.average,
            "one-hot sum gradient ÷ average": one_hot.gradient / one_hot.average,
            "one-hot sum cross ÷ average": one_hot.cross / one_hot.average,
        }
    ).loc[list(methods)]

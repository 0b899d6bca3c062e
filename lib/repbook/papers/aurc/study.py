"""Claim 5's study on trained models: the synthetic task and its pools, the four scikit-learn
models, the estimator study of every model and score function on batches of a disjoint pool,
what the criterion reads from it (convergence to the population value, the ordering of score
functions) and the side-by-side table of the peers. No printing, plotting or file writing."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from repbook.core import checks

from .estimators import empirical_aurc, plugin_aurc, reweighted_risk
from .protocols import errors_and_scores, estimator_study, ordered_pairs
from .training import sklearn_mlp_logits


@dataclass(frozen=True)
class Pools:
    """The synthetic 5-class task, standardised on the training rows: `train`, pool A (the
    population: each score function's AURC) and pool B (the batches), each (X, y)."""

    train: tuple[np.ndarray, np.ndarray]
    a: tuple[np.ndarray, np.ndarray]
    b: tuple[np.ndarray, np.ndarray]


def synthetic_pools(n_train: int, n_pool: int, *, seed: int) -> Pools:
    """scikit-learn's `make_classification` (20 features, 8 informative, 4 redundant, 5
    classes of 2 clusters, 2 % flipped labels) with `n_train` training rows and two pools of
    `n_pool`, standardised by the training rows."""
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import StandardScaler

    n_train = checks.integer("n_train", n_train, at_least=1)
    n_pool = checks.integer("n_pool", n_pool, at_least=1)
    X, y = make_classification(
        n_samples=n_train + 2 * n_pool,
        n_features=20,
        n_informative=8,
        n_redundant=4,
        n_classes=5,
        n_clusters_per_class=2,
        class_sep=1.0,
        flip_y=0.02,
        random_state=seed,
    )
    X = StandardScaler().fit(X[:n_train]).transform(X)
    a, b = slice(n_train, n_train + n_pool), slice(n_train + n_pool, None)
    return Pools((X[:n_train], y[:n_train]), (X[a], y[a]), (X[b], y[b]))


def pool_identity(errors, scores, reference_scores) -> tuple[float, float]:
    """(area under the risk–coverage curve, reweighted risk) on one pool, G estimated from
    the scores of a disjoint pool `reference_scores`: E[ℓ·(−ln(1 − G(s)))]."""
    area = empirical_aurc(errors, scores)
    ref = np.sort(np.asarray(reference_scores))
    g = np.searchsorted(ref, scores, side="right") / (ref.size + 1)
    return area, reweighted_risk(errors, g)


def trained_models(X, y, *, seed: int, logistic) -> dict[str, tuple[object, Callable]]:
    """The four models of claim 5, fitted on (X, y): the given logistic regression (its
    decision function as logits), an MLP (its logits), a random forest and naive Bayes (no
    logits). {name: (model, logit_fn or None)}."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neural_network import MLPClassifier

    mlp = MLPClassifier(
        hidden_layer_sizes=(64,), max_iter=300, early_stopping=True, random_state=seed
    )
    forest = RandomForestClassifier(
        n_estimators=100, min_samples_leaf=2, n_jobs=1, random_state=seed
    )
    return {
        "logistic regression": (logistic, lambda m, X: m.decision_function(X)),
        "MLP": (mlp.fit(X, y), sklearn_mlp_logits),
        "random forest": (forest.fit(X, y), None),
        "naive Bayes": (GaussianNB().fit(X, y), None),
    }


def batch_indices(
    batch_ns, reps: int, n_pool: int, *, child_rng: Callable, stream: int
) -> dict[int, np.ndarray]:
    """`reps` batches without replacement of each size n into a pool of `n_pool`: batch j of
    the k-th size from child_rng(stream + 1000 k + j). {n: (reps, n) indices}."""
    reps = checks.integer("reps", reps, at_least=1, at_most=1000)
    checks.function(
        "child_rng", child_rng, "callable (stream -> numpy.random.Generator)"
    )
    return {
        n: np.stack(
            [
                child_rng(stream + k * 1000 + j).choice(n_pool, n, replace=False)
                for j in range(reps)
            ]
        )
        for k, n in enumerate(batch_ns)
    }


@dataclass(frozen=True)
class ModelStudy:
    """`estimator_study` of every model as tables (`population`, `batches`, `peers`), and
    `pool_gap`: per model and score, |AURC(pool A) − AURC(pool B)| (no criterion reads it)."""

    population: pd.DataFrame
    batches: pd.DataFrame
    peers: pd.DataFrame
    pool_gap: dict


def model_study(
    models: Mapping,
    pools: Pools,
    batches: Mapping,
    *,
    peer_reps: int,
    peer_metric=None,
) -> ModelStudy:
    """`estimator_study` of each model: the population on pool A, the batches from pool B
    (the same batches for every model and score)."""
    pop_rows, batch_rows, peer_rows, pool_gap = [], [], [], {}
    for name, (model, logit_fn) in models.items():
        on_a = errors_and_scores(model, *pools.a, logit_fn)
        on_b = errors_and_scores(model, *pools.b, logit_fn)
        study = estimator_study(
            name, on_a, on_b, batches, peer_reps=peer_reps, peer_metric=peer_metric
        )
        pop_rows += study.population
        batch_rows += study.batches
        peer_rows += study.peers
        for csf in on_a[1]:
            pool_gap[f"{name}: {csf}"] = abs(
                plugin_aurc(on_a[0], on_a[1][csf]) - plugin_aurc(on_b[0], on_b[1][csf])
            )
    return ModelStudy(
        pd.DataFrame(pop_rows),
        pd.DataFrame(batch_rows),
        pd.DataFrame(peer_rows),
        pool_gap,
    )


@dataclass(frozen=True)
class Consistency:
    """What claim 5 reads: per model, score and plug-in estimator, `rmse_ratio` = RMSE at the
    largest n / at the smallest and `end_gap` = |mean − population| at the largest n; the MC
    estimates at the largest n and the population values per "model: score" (`ranking`), and
    how many score pairs farther apart than `min_gap` are ordered alike within each model."""

    rmse_ratio: pd.Series
    end_gap: pd.Series
    ranking: dict
    ordered: int
    compared: int


def consistency(study: ModelStudy, *, min_gap: float) -> Consistency:
    """`Consistency` of a `model_study`, between its smallest and largest batch size."""
    pop_df, batch_df = study.population, study.batches
    n_min, n_max = batch_df.n.min(), batch_df.n.max()
    plug = batch_df[batch_df.estimator.isin(["MC plug-in", "ln plug-in"])]
    wide = plug.pivot_table(
        index=["model", "csf", "estimator"], columns="n", values=["rmse", "mean"]
    )
    rmse_ratio = wide[("rmse", n_max)] / wide[("rmse", n_min)]
    end_gap = (
        wide[("mean", n_max)]
        - plug.groupby(["model", "csf", "estimator"]).population.first()
    ).abs()
    ranking, ok_all, total_all = {"MC estimate": {}, "population": {}}, 0, 0
    for name, d in pop_df.groupby("model"):
        est = batch_df[
            (batch_df.model == name)
            & (batch_df.n == n_max)
            & (batch_df.estimator == "MC plug-in")
        ].set_index("csf")["mean"]
        pop = d.set_index("csf").population
        for csf in pop.index:
            ranking["MC estimate"][f"{name}: {csf}"] = est[csf]
            ranking["population"][f"{name}: {csf}"] = pop[csf]
        ok, total = ordered_pairs(
            pop.to_dict(), est[pop.index].to_dict(), min_gap=min_gap
        )
        ok_all, total_all = ok_all + ok, total_all + total
    return Consistency(rmse_ratio, end_gap, ranking, ok_all, total_all)


PEERS = (
    "MC plug-in",
    "classic (Geifman)",
    "ln plug-in",
    "torch-uncertainty",
    "SELE",
    "2·SELE",
)
"""The estimators and peers of the side-by-side table, in its column order."""


def peer_side_by_side(peers: pd.DataFrame):
    """The peers' table: the mean of each estimator over the batches per (model, n), with the
    population value; the largest |torch-uncertainty − classic| per n and the largest
    |MC plug-in − classic| per model (model order kept)."""
    side = peers.groupby(["model", "n"])[["population", *PEERS]].mean()
    gaps = peers.assign(
        tu=(peers["torch-uncertainty"] - peers["classic (Geifman)"]).abs(),
        mc=(peers["MC plug-in"] - peers["classic (Geifman)"]).abs(),
    )
    return side, gaps.groupby("n").tu.max(), gaps.groupby("model", sort=False).mc.max()

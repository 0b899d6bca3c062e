"""The chapter's experiment protocols: rates (log-log and normalised slopes), the estimator
study on trained models, the ordering of score functions, and the fine-tuning comparison of
claim 6. No printing, plotting or file writing."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from repbook.core import checks

from .estimators import (
    PowerErrorModel,
    confidence_scores,
    empirical_aurc,
    plugin_aurc,
)
from .training import aurc_loss, selective_metrics, torch_uncertainty_aurc


# ----------------------------------------------------------------------------------------------
# Experiment protocols of the chapter (rates, the estimator study, the fine-tuning comparison)
def loglog_slope(x, y) -> float:
    """Least-squares slope of log y on log x (x, y positive, at least two points)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise ValueError(
            f"x and y must be 1-D of one shape with ≥ 2 points, got {x.shape}, {y.shape}"
        )
    if not (np.all(x > 0) and np.all(y > 0)):
        raise ValueError("x and y must be positive for a log-log slope")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def normalised_rate_slope(ns, errors, *, n_min: int = 128) -> float:
    """Slope of log(error · √(n / ln n)) on log n over the sizes n ≥ `n_min`.

    An error of order √(ln n / n) makes error · √(n / ln n) bounded; a slope ≤ 0 says the
    normalised error does not grow over the grid (an error of order n^(−1/3), or a floor, gives a
    positive slope). Needs at least three sizes ≥ n_min, and n_min ≥ 2 (ln n > 0).
    """
    ns = np.asarray(ns, dtype=np.float64)
    errors = np.asarray(errors, dtype=np.float64)
    if ns.shape != errors.shape or ns.ndim != 1:
        raise ValueError(
            f"ns and errors must be 1-D of one shape, got {ns.shape} and {errors.shape}"
        )
    checks.integer("n_min", n_min, at_least=2)  # ln n must be positive
    keep = ns >= n_min
    if keep.sum() < 3:
        raise ValueError(
            f"need at least three sizes n ≥ {n_min}, got {int(keep.sum())}"
        )
    n, e = ns[keep], errors[keep]
    return loglog_slope(n, e * np.sqrt(n / np.log(n)))


def errors_and_scores(model, X, y, logit_fn=None) -> tuple[np.ndarray, dict]:
    """0/1 errors of a fitted scikit-learn classifier on (X, y) and its confidence scores
    (`confidence_scores`; the max logit when `logit_fn(model, X)` gives logits)."""
    probs = model.predict_proba(X)
    y = np.asarray(y)
    if probs.shape[0] != y.shape[0]:
        raise ValueError(
            f"X and y must have one row per sample, got {probs.shape[0]} and {y.shape[0]}"
        )
    logits = logit_fn(model, X) if logit_fn is not None else None
    return (probs.argmax(1) != y).astype(np.float64), confidence_scores(probs, logits)


@dataclass(frozen=True)
class EstimatorStudy:
    """Rows of one model's estimator study: `population` (one per score function), `batches`
    (score × n × estimator: mean and RMSE over the batches against the population value) and
    `peers` (one per batch scored by every peer, MSP only)."""

    population: list
    batches: list
    peers: list


def estimator_study(
    model_name: str,
    population: tuple[np.ndarray, dict],
    source: tuple[np.ndarray, dict],
    batches: dict,
    *,
    estimators: tuple[str, ...] = ("mc", "ln", "sele"),
    labels: dict | None = None,
    peer_reps: int = 0,
    peer_metric=None,
) -> EstimatorStudy:
    """The estimator study of the paper's experiments, for one model.

    `population` = (errors, scores) on the pool that defines each score function's population
    AURC (its MC plug-in value); `source` = (errors, scores) on a disjoint pool the batches are
    drawn from; `batches` maps a batch size n to an integer array (reps, n) of indices into the
    source pool. For every score function, size and estimator: the mean estimate and its RMSE
    against the population value. The first `peer_reps` batches of each size also go through
    every peer (MC, ln, classic, SELE, 2·SELE and, with `peer_metric`, torch-uncertainty), MSP
    only, as the peer ranks by it.
    """
    labels = labels or {"mc": "MC plug-in", "ln": "ln plug-in", "sele": "SELE"}
    errs, scores = population
    errs_b, scores_b = source
    if set(scores) != set(scores_b):
        raise ValueError(
            f"population and source must have the same score functions, got "
            f"{sorted(scores)} and {sorted(scores_b)}"
        )
    checks.integer("peer_reps", peer_reps, at_least=0)
    for n, idx in batches.items():
        idx = np.asarray(idx)
        if idx.ndim != 2 or idx.shape[1] != n:
            raise ValueError(f"batches[{n}] must be (reps, {n}), got {idx.shape}")
        if idx.size and (idx.min() < 0 or idx.max() >= errs_b.size):
            raise ValueError(f"batches[{n}] indexes outside the source pool")
        if peer_reps > idx.shape[0]:
            raise ValueError(
                f"peer_reps {peer_reps} exceeds the {idx.shape[0]} batches of size {n}"
            )
    pop_rows, batch_rows, peer_rows = [], [], []
    for csf, sc in scores.items():
        pop = plugin_aurc(errs, sc)
        pop_rows.append(
            dict(model=model_name, csf=csf, accuracy=1 - errs.mean(), population=pop)
        )
        for n, idx in batches.items():
            E, S = errs_b[idx], scores_b[csf][idx]
            for key in estimators:
                x = plugin_aurc(E, S, key)
                batch_rows.append(
                    dict(
                        model=model_name,
                        csf=csf,
                        n=n,
                        estimator=labels.get(key, key),
                        mean=float(x.mean()),
                        rmse=float(np.sqrt(np.mean((x - pop) ** 2))),
                        population=pop,
                    )
                )
            if csf != "MSP":
                continue
            for j in range(peer_reps):
                row = {
                    "model": model_name,
                    "n": n,
                    "population": pop,
                    "MC plug-in": plugin_aurc(E[j], S[j], "mc"),
                    "ln plug-in": plugin_aurc(E[j], S[j], "ln"),
                    "classic (Geifman)": empirical_aurc(E[j], S[j]),
                    "SELE": plugin_aurc(E[j], S[j], "sele"),
                    "2·SELE": plugin_aurc(E[j], S[j], "2sele"),
                }
                if peer_metric is not None:
                    row["torch-uncertainty"] = torch_uncertainty_aurc(
                        E[j], S[j], peer_metric
                    )
                peer_rows.append(row)
    return EstimatorStudy(pop_rows, batch_rows, peer_rows)


def ordered_pairs(population, estimate, *, min_gap: float = 0.0) -> tuple[int, int]:
    """(pairs ordered alike, pairs compared): over every pair of keys whose `population` values
    differ by more than `min_gap`, whether `estimate` orders them the same way."""
    if set(population) != set(estimate):
        raise ValueError("population and estimate must have the same keys")
    keys = list(population)
    ok = total = 0
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            if abs(population[a] - population[b]) > min_gap:
                total += 1
                ok += int(
                    np.sign(population[a] - population[b])
                    == np.sign(estimate[a] - estimate[b])
                )
    return ok, total


@dataclass(frozen=True)
class FineTuneProtocol:
    """Claim 6's protocol: a ReLU MLP (one hidden layer) pre-trained with cross-entropy on a
    per-seed subset of `n_train` training samples, then copied; one copy fine-tuned with
    cross-entropy, the other with the MC AURC loss (`aurc_loss`), for `ft_epochs` epochs on the
    same batches (SGD with momentum, one learning rate). Batches of `batch_size` (128, the
    official loss's default)."""

    hidden: int = 64
    n_train: int = 3000
    pre_epochs: int = 30
    ft_epochs: int = 30
    lr: float = 0.05
    momentum: float = 0.9
    batch_size: int = 128

    def __post_init__(self):
        for name in ("hidden", "n_train", "batch_size"):
            checks.integer(name, getattr(self, name), at_least=1)
        for name in ("pre_epochs", "ft_epochs"):
            checks.integer(name, getattr(self, name), at_least=0)
        checks.number("lr", self.lr, above=0)
        checks.number("momentum", self.momentum, at_least=0, below=1)


@dataclass(frozen=True)
class FineTuneResult:
    """Per seed: test AURC (0/1 loss, MSP, MC plug-in), accuracy and test errors after
    cross-entropy (`ce`) and AURC-loss (`aurc`) fine-tuning, from the same pre-trained copy."""

    seeds: np.ndarray
    aurc_ce: np.ndarray
    aurc_aurc: np.ndarray
    accuracy_ce: np.ndarray
    accuracy_aurc: np.ndarray
    errors_ce: np.ndarray

    @property
    def gain(self) -> np.ndarray:
        """AURC-loss gain per seed: test AURC after CE − after the AURC loss (> 0: it helped)."""
        return self.aurc_ce - self.aurc_aurc

    def table(self) -> pd.DataFrame:
        """One row per seed: both arms' test AURC and accuracy, the gain, CE's test errors."""
        return pd.DataFrame(
            {
                "test AURC, CE": self.aurc_ce,
                "test AURC, AURC loss": self.aurc_aurc,
                "gain": self.gain,
                "accuracy, CE": self.accuracy_ce,
                "accuracy, AURC loss": self.accuracy_aurc,
                "test errors, CE": self.errors_ce,
            },
            index=pd.Index(self.seeds, name="seed"),
        )


def finetune_comparison(
    X_train, y_train, X_test, y_test, *, seeds, protocol: FineTuneProtocol, key: int
) -> FineTuneResult:
    """Run claim 6's protocol on every seed in `seeds` (independent subsets, initialisations and
    batch orders, all derived from (`key`, seed)); both arms are evaluated on (X_test, y_test)."""
    import torch

    from repbook.core import nets

    X_train, X_test = np.asarray(X_train), np.asarray(X_test)
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    if X_train.ndim != 2 or X_test.ndim != 2 or X_train.shape[1] != X_test.shape[1]:
        raise ValueError(
            f"X_train and X_test must be 2-D with the same features, got "
            f"{X_train.shape} and {X_test.shape}"
        )
    if len(y_train) != len(X_train) or len(y_test) != len(X_test):
        raise ValueError("y_train and y_test must have one label per row of X")
    if protocol.n_train > len(X_train):
        raise ValueError(
            f"protocol.n_train {protocol.n_train} exceeds the {len(X_train)} training rows"
        )
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("seeds must not be empty")
    classes = int(max(y_train.max(), y_test.max())) + 1
    sizes = (X_train.shape[1], protocol.hidden, classes)
    Xt = torch.tensor(X_test, dtype=torch.float32)
    yt = torch.tensor(y_test, dtype=torch.long)
    out = {k: [] for k in ("ce", "aurc", "acc_ce", "acc_aurc", "err_ce")}
    for s in seeds:
        sub, init, pre, ft = np.random.SeedSequence([int(key), s]).generate_state(4)
        pick = np.random.default_rng(int(sub)).choice(
            len(X_train), protocol.n_train, replace=False
        )
        Xa = torch.tensor(X_train[pick], dtype=torch.float32)
        ya = torch.tensor(y_train[pick], dtype=torch.long)
        base = nets.mlp(sizes, seed=int(init))
        nets.train_epochs(
            base,
            torch.optim.SGD(
                base.parameters(), lr=protocol.lr, momentum=protocol.momentum
            ),
            torch.nn.functional.cross_entropy,
            Xa,
            ya,
            protocol.pre_epochs,
            torch.Generator().manual_seed(int(pre)),
            protocol.batch_size,
        )
        for arm, loss_fn in [
            ("ce", torch.nn.functional.cross_entropy),
            ("aurc", aurc_loss),
        ]:
            net = nets.mlp(sizes, seed=0)
            net.load_state_dict(base.state_dict())
            nets.train_epochs(
                net,
                torch.optim.SGD(
                    net.parameters(), lr=protocol.lr, momentum=protocol.momentum
                ),
                loss_fn,
                Xa,
                ya,
                protocol.ft_epochs,
                torch.Generator().manual_seed(int(ft)),  # the same batches in both arms
                protocol.batch_size,
            )
            a, acc = selective_metrics(net, Xt, yt)
            out[arm].append(a)
            out[f"acc_{arm}"].append(acc)
            if arm == "ce":
                out["err_ce"].append(round((1 - acc) * len(y_test)))
    return FineTuneResult(
        np.array(seeds),
        np.array(out["ce"]),
        np.array(out["aurc"]),
        np.array(out["acc_ce"]),
        np.array(out["acc_aurc"]),
        np.array(out["err_ce"]),
    )


# ----------------------------------------------------------------------------------------------
# The closed-form model: the identity of claim 1 and the estimators' bias and rate
NAMED = {"MC plug-in": "mc", "ln plug-in": "ln", "SELE": "sele", "2·SELE": "2sele"}
"""The chapter's names of the plug-in estimators (`plugin_aurc`'s keys)."""


def reweighted_identity(betas, n: int, rngs) -> pd.DataFrame:
    """Per β of `PowerErrorModel(β)`: its closed-form AURC, the mean of ℓ·(−ln(1−s)) over `n`
    samples drawn from the matching generator of `rngs`, its standard error and the z-score
    of the difference (the reweighted risk equals the AURC)."""
    n = checks.integer("n", n, at_least=2)
    rngs = list(rngs)
    checks.same_length(betas=list(betas), rngs=rngs)
    rows = []
    for beta, rng in zip(betas, rngs):
        model = PowerErrorModel(beta)
        s, e = model.sample(n, 1, checks.generator("rng", rng))
        terms = e[0] * -np.log1p(-s[0])
        rows.append(
            dict(
                beta=beta,
                closed_form=model.aurc(),
                reweighted=terms.mean(),
                se=terms.std(ddof=1) / np.sqrt(n),
            )
        )
    table = pd.DataFrame(rows)
    table["z"] = (table.reweighted - table.closed_form) / table.se
    return table


def simulate_estimators(
    model: PowerErrorModel, n_grid, budget: int, rngs
) -> dict[int, dict[str, np.ndarray]]:
    """Every plug-in estimator (`NAMED`) and the classic AURC on batches of each size n of
    `n_grid` drawn from `model` with the matching generator of `rngs`: budget // n batches,
    clipped to [200, 20000]. {n: {estimator: estimates}}."""
    budget = checks.integer("budget", budget, at_least=1)
    rngs = list(rngs)
    checks.same_length(n_grid=list(n_grid), rngs=rngs)
    sims = {}
    for n, rng in zip(n_grid, rngs):
        reps = int(np.clip(budget // n, 200, 20_000))
        s, e = model.sample(n, reps, rng)
        est = {name: plugin_aurc(e, s, key) for name, key in NAMED.items()}
        est["classic (Geifman)"] = empirical_aurc(e, s)
        sims[n] = est
    return sims


def largest_mc_classic_gap(sims: dict) -> float:
    """The largest |MC plug-in − classic AURC| over every simulated batch."""
    return max(
        float(np.max(np.abs(est["MC plug-in"] - est["classic (Geifman)"])))
        for est in sims.values()
    )


def bias_table(model: PowerErrorModel, sims: dict) -> pd.DataFrame:
    """Per n and plug-in estimator: its exact expectation under `model`, the simulated mean,
    its SE and SD, the RMSE against the true AURC, the exact bias and the z-score of simulated
    against exact mean."""
    truth = model.aurc()
    rows = []
    for n, est in sims.items():
        for name, key in NAMED.items():
            x = est[name]
            rows.append(
                dict(
                    n=n,
                    estimator=name,
                    exact_mean=model.expected_estimate(int(n), key),
                    sim_mean=x.mean(),
                    se=x.std(ddof=1) / np.sqrt(x.size),
                    sd=x.std(ddof=1),
                    rmse=np.sqrt(np.mean((x - truth) ** 2)),
                )
            )
    table = pd.DataFrame(rows)
    table["bias"] = table.exact_mean - truth
    table["z"] = (table.sim_mean - table.exact_mean) / table.se
    return table

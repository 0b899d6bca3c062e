"""Population AURC and its finite-sample plug-in estimators (Zhou et al., ICML 2025, arXiv 2410.15361).

Notation. A confidence score s(x) has CDF G; ℓ is a per-sample loss (0/1 error or cross-entropy).
The risk at coverage c is R(c) = E[ℓ | G(s) ≥ 1 − c], and the population AURC is ∫₀¹ R(c) dc, which
equals the reweighted risk E[ℓ · (−ln(1 − G(s)))].

Plug-in estimators sort the n samples by *ascending* confidence (rank r = 1 is the least confident)
and average ℓ_(r) · α_r:

- ``"mc"``: α_r = H_n − H_{n−r} = E[−ln(1 − U_(r))] for uniform order statistics; identical to the
  classic empirical AURC of Geifman & El-Yaniv (mean selective risk over coverages k/n);
- ``"ln"``: α_r = −ln(1 − r/(n + 1)), −ln(1 − G) evaluated at the expected G of rank r;
- ``"sele"``: α_r = r/n (Franc et al., 2023), whose limit E[ℓ·G(s)] lies below the AURC;
- ``"2sele"``: twice SELE, a reference curve (not a bound).

Everything is numpy unless it says torch; no printing, plotting or file writing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

ESTIMATORS = ("mc", "ln", "sele", "2sele")
TIES = ("average", "order")


# ----------------------------------------------------------------------------------------------
# weights
def _check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    return int(n)


def mc_weights(n: int) -> np.ndarray:
    """α_r = H_n − H_{n−r} = Σ_{j=n−r+1}^{n} 1/j for r = 1..n (exact, no digamma rounding)."""
    n = _check_n(n)
    return np.cumsum(1.0 / np.arange(n, 0, -1, dtype=np.float64))


def ln_weights(n: int) -> np.ndarray:
    """α_r = −ln(1 − r/(n + 1)) for r = 1..n."""
    n = _check_n(n)
    return -np.log1p(-np.arange(1, n + 1, dtype=np.float64) / (n + 1))


def sele_weights(n: int) -> np.ndarray:
    """α_r = r/n for r = 1..n (SELE)."""
    n = _check_n(n)
    return np.arange(1, n + 1, dtype=np.float64) / n


def weights(n: int, estimator: str = "mc") -> np.ndarray:
    """The rank weights α_1..α_n of an estimator in ESTIMATORS (ascending confidence)."""
    if estimator == "mc":
        return mc_weights(n)
    if estimator == "ln":
        return ln_weights(n)
    if estimator == "sele":
        return sele_weights(n)
    if estimator == "2sele":
        return 2.0 * sele_weights(n)
    raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")


# ----------------------------------------------------------------------------------------------
# input checks
def _check_pair(losses, confidence) -> tuple[np.ndarray, np.ndarray]:
    losses = np.asarray(losses, dtype=np.float64)
    confidence = np.asarray(confidence, dtype=np.float64)
    if losses.shape != confidence.shape:
        raise ValueError(
            f"losses and confidence must have the same shape, got {losses.shape} "
            f"and {confidence.shape}"
        )
    if losses.ndim not in (1, 2):
        raise ValueError(
            f"losses must be 1-D (n,) or 2-D (batches, n), got {losses.ndim}-D"
        )
    if losses.shape[-1] == 0:
        raise ValueError("losses and confidence are empty: need at least one sample")
    if not np.all(np.isfinite(losses)):
        raise ValueError("losses contain NaN or infinite values")
    if not np.all(np.isfinite(confidence)):
        raise ValueError("confidence contains NaN or infinite values")
    if np.any(losses < 0):
        raise ValueError("losses must be non-negative")
    return losses, confidence


def _tie_averaged(sorted_conf: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Average the weights within groups of equal confidence (sorted ascending, 1-D)."""
    starts = np.flatnonzero(np.r_[True, sorted_conf[1:] != sorted_conf[:-1]])
    sizes = np.diff(np.r_[starts, sorted_conf.size])
    return np.repeat(np.add.reduceat(w, starts) / sizes, sizes)


# ----------------------------------------------------------------------------------------------
# estimators
def plugin_aurc(losses, confidence, estimator: str = "mc", *, ties: str = "average"):
    """Plug-in AURC estimate (1/n) Σ_r ℓ_(r) α_r, ranks by ascending confidence.

    1-D inputs give a float; 2-D inputs (batches, n) give one estimate per row. With
    ``ties="average"`` samples of equal confidence share the mean of their weights, which is the
    expectation over random tie-breaking; ``"order"`` keeps a stable sort's order.
    """
    losses, confidence = _check_pair(losses, confidence)
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, got {ties!r}")
    n = losses.shape[-1]
    w = weights(n, estimator)
    order = np.argsort(confidence, axis=-1, kind="stable")
    sorted_loss = np.take_along_axis(losses, order, axis=-1)
    if ties == "order":
        out = sorted_loss @ w / n
        return float(out) if losses.ndim == 1 else out
    sorted_conf = np.take_along_axis(confidence, order, axis=-1)
    has_ties = np.any(sorted_conf[..., 1:] == sorted_conf[..., :-1], axis=-1)
    if losses.ndim == 1:
        ww = _tie_averaged(sorted_conf, w) if has_ties else w
        return float(sorted_loss @ ww / n)
    out = sorted_loss @ w / n
    for i in np.flatnonzero(has_ties):
        out[i] = sorted_loss[i] @ _tie_averaged(sorted_conf[i], w) / n
    return out


def empirical_aurc(losses, confidence):
    """The classic empirical AURC (Geifman & El-Yaniv): the mean, over coverages k/n, of the mean
    loss of the k most confident samples. Ties keep a stable sort's order. 1-D → float, 2-D → rows.
    """
    losses, confidence = _check_pair(losses, confidence)
    n = losses.shape[-1]
    order = np.argsort(-confidence, axis=-1, kind="stable")
    sorted_loss = np.take_along_axis(losses, order, axis=-1)
    risks = np.cumsum(sorted_loss, axis=-1) / np.arange(1, n + 1)
    out = risks.mean(axis=-1)
    return float(out) if losses.ndim == 1 else out


def risk_coverage_curve(losses, confidence) -> tuple[np.ndarray, np.ndarray]:
    """Coverages k/n and the selective risk of the k most confident samples, k = 1..n (1-D)."""
    losses, confidence = _check_pair(losses, confidence)
    if losses.ndim != 1:
        raise ValueError("risk_coverage_curve takes 1-D losses and confidence")
    n = losses.size
    order = np.argsort(-confidence, kind="stable")
    k = np.arange(1, n + 1)
    return k / n, np.cumsum(losses[order]) / k


def reweighted_risk(losses, cdf_values) -> float:
    """The population identity's right-hand side, E[ℓ · (−ln(1 − G(s)))], as a sample mean.

    `cdf_values` are G(s_i) in [0, 1); values of 1 would give infinite weight and are rejected.
    """
    losses = np.asarray(losses, dtype=np.float64)
    g = np.asarray(cdf_values, dtype=np.float64)
    if losses.shape != g.shape or losses.ndim != 1 or losses.size == 0:
        raise ValueError(
            f"losses and cdf_values must be non-empty 1-D arrays of one shape, got "
            f"{losses.shape} and {g.shape}"
        )
    if not (np.all(np.isfinite(g)) and np.all((g >= 0) & (g < 1))):
        raise ValueError("cdf_values must lie in [0, 1)")
    return float(np.mean(losses * -np.log1p(-g)))


# ----------------------------------------------------------------------------------------------
# a model with a closed form
@dataclass(frozen=True)
class PowerErrorModel:
    """s ~ U(0, 1) (so G(s) = s) and P(error | s) = (1 − s)^β.

    Then R(c) = c^β/(β + 1), AURC = 1/(β + 1)², and SELE tends to E[ℓ·G] = 1/(β + 1) − 1/(β + 2).
    """

    beta: float = 1.0

    def __post_init__(self):
        if not (np.isfinite(self.beta) and self.beta > 0):
            raise ValueError(
                f"beta must be a positive finite number, got {self.beta!r}"
            )

    def aurc(self) -> float:
        return 1.0 / (self.beta + 1.0) ** 2

    def sele_limit(self) -> float:
        return 1.0 / (self.beta + 1.0) - 1.0 / (self.beta + 2.0)

    def risk(self, coverage) -> np.ndarray:
        c = np.asarray(coverage, dtype=np.float64)
        return c**self.beta / (self.beta + 1.0)

    def error_rate(self) -> float:
        return 1.0 / (self.beta + 1.0)

    def sample(
        self, n: int, reps: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """`reps` independent samples of size n: (confidence, 0/1 errors), each shaped (reps, n)."""
        n, reps = _check_n(n), _check_n(reps)
        s = rng.random((reps, n))
        err = (rng.random((reps, n)) < (1.0 - s) ** self.beta).astype(np.float64)
        return s, err

    def expected_estimate(self, n: int, estimator: str = "mc") -> float:
        """E[plug-in estimate] exactly: U_(r) ~ Beta(r, n − r + 1), so
        E[ℓ_(r)] = E[(1 − U_(r))^β] = Γ(n−r+1+β) Γ(n+1) / (Γ(n−r+1) Γ(n+1+β))."""
        n = _check_n(n)
        r = np.arange(1, n + 1, dtype=np.float64)
        m = n - r + 1
        log_el = (
            gammaln(m + self.beta)
            + gammaln(n + 1)
            - gammaln(m)
            - gammaln(n + 1 + self.beta)
        )
        return float(np.exp(log_el) @ weights(n, estimator) / n)


# ----------------------------------------------------------------------------------------------
# confidence score functions
def confidence_scores(
    probs: np.ndarray, logits: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """The CSFs of the paper's experiments: max softmax (MSP), softmax margin (top-1 − top-2),
    negative entropy and, when logits are given, the max logit. Higher means more confident."""
    p = np.asarray(probs, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] < 2:
        raise ValueError(
            f"probs must be (n, classes) with at least 2 classes, got {p.shape}"
        )
    if (
        not np.all(np.isfinite(p))
        or np.any(p < 0)
        or not np.allclose(p.sum(1), 1.0, atol=1e-6)
    ):
        raise ValueError("probs must be finite, non-negative and sum to 1 along axis 1")
    top2 = np.sort(p, axis=1)[:, -2:]
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(p > 0, p * np.log(p), 0.0)
    out = {
        "MSP": top2[:, 1],
        "margin": top2[:, 1] - top2[:, 0],
        "neg. entropy": plogp.sum(1),
    }
    if logits is not None:
        z = np.asarray(logits, dtype=np.float64)
        if z.shape != p.shape:
            raise ValueError(
                f"logits must have the shape of probs {p.shape}, got {z.shape}"
            )
        out["max logit"] = z.max(1)
    return out


# ----------------------------------------------------------------------------------------------
# AURC as a training loss (torch)
def aurc_loss(logits, targets, estimator: str = "mc"):
    """Batch AURC plug-in with cross-entropy as ℓ: Σ_r α_r · CE_(r) / B.

    Ranks come from the detached max-softmax confidence, so no gradient flows through the
    ranking; the gradient reweights each sample's cross-entropy by its rank weight.
    """
    import torch
    import torch.nn.functional as F

    if logits.ndim != 2 or targets.ndim != 1 or logits.shape[0] != targets.shape[0]:
        raise ValueError(
            f"logits must be (B, C) and targets (B,), got {tuple(logits.shape)} and "
            f"{tuple(targets.shape)}"
        )
    b = logits.shape[0]
    ce = F.cross_entropy(logits, targets, reduction="none")
    with torch.no_grad():
        conf = torch.softmax(logits, dim=1).max(dim=1).values
        rank = torch.empty_like(conf, dtype=torch.long)
        rank[torch.argsort(conf, stable=True)] = torch.arange(b, device=logits.device)
        w = torch.as_tensor(
            weights(b, estimator), dtype=logits.dtype, device=logits.device
        )[rank]
    return (ce * w).sum() / b


# ----------------------------------------------------------------------------------------------
# peer: torch-uncertainty's AURC metric
def torch_uncertainty_aurc_metric():
    """The `AURC` metric class of the installed torch-uncertainty package.

    The package's top-level import pulls torchvision (no build exists for the book's torch 2.13
    CPU), so the metric's module file is loaded on its own from the installed distribution.
    """
    import importlib.metadata as md
    import importlib.util
    import warnings

    try:
        dist = md.distribution("torch-uncertainty")
    except md.PackageNotFoundError as exc:
        raise ImportError(
            "torch-uncertainty is not installed (pip install torch-uncertainty)"
        ) from exc
    path = dist.locate_file("torch_uncertainty/metrics/classification/risk_coverage.py")
    spec = importlib.util.spec_from_file_location("_tu_risk_coverage", path)
    module = importlib.util.module_from_spec(spec)
    with (
        warnings.catch_warnings()
    ):  # it imports tqdm.auto, which warns that ipywidgets is absent
        warnings.filterwarnings("ignore", message="IProgress not found")
        spec.loader.exec_module(module)
    return module.AURC


def torch_uncertainty_aurc(errors, confidence, metric_cls=None) -> float:
    """torch-uncertainty's AURC of 0/1 `errors` ranked by `confidence` (1-D).

    The metric takes class probabilities and targets; a two-class probability p = (1 + rank)/(n + 1)
    monotone in the confidence, with target 1 − error, gives it exactly these ranks and errors.
    """
    import torch

    errors, confidence = _check_pair(errors, confidence)
    if errors.ndim != 1 or not np.all((errors == 0) | (errors == 1)):
        raise ValueError("torch_uncertainty_aurc takes 1-D 0/1 errors")
    n = errors.size
    order = np.argsort(confidence, kind="stable")
    p = np.empty(n)
    p[order] = 0.5 + 0.5 * np.arange(1, n + 1) / (n + 1)
    probs = torch.tensor(np.stack([p, 1 - p], axis=1))
    targets = torch.tensor((errors == 1).astype(np.int64))
    metric = (metric_cls or torch_uncertainty_aurc_metric())()
    metric.update(probs, targets)
    return float(metric.compute())


# ----------------------------------------------------------------------------------------------
# The small models of the chapter's experiments
def sklearn_mlp_logits(mlp, X) -> np.ndarray:
    """Pre-softmax outputs of a fitted scikit-learn `MLPClassifier` with ReLU hidden layers
    (scikit-learn exposes only probabilities; the max logit is one of the confidence scores)."""
    if getattr(mlp, "activation", "relu") != "relu":
        raise ValueError(
            f"sklearn_mlp_logits handles ReLU networks, got {mlp.activation!r}"
        )
    h = np.asarray(X, dtype=np.float64)
    for W, b in zip(mlp.coefs_[:-1], mlp.intercepts_[:-1]):
        h = np.maximum(h @ W + b, 0)
    return h @ mlp.coefs_[-1] + mlp.intercepts_[-1]


def mlp_net(seed: int, sizes: tuple[int, ...] = (64, 32, 10)):
    """A torch MLP (ReLU between layers) initialised from `seed` without touching the global
    torch generator."""
    import torch

    if len(sizes) < 2 or any(int(k) < 1 for k in sizes):
        raise ValueError(
            f"sizes must be two or more positive layer widths, got {sizes!r}"
        )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        layers = []
        for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
            layers.append(torch.nn.Linear(int(a), int(b)))
            if i < len(sizes) - 2:
                layers.append(torch.nn.ReLU())
        return torch.nn.Sequential(*layers)


def train_epochs(
    net, opt, loss_fn, X, y, epochs: int, generator, batch_size: int = 128
) -> None:
    """Plain minibatch training: each epoch a fresh permutation drawn from `generator`."""
    import torch

    if epochs < 0 or batch_size < 1:
        raise ValueError(
            f"epochs must be ≥ 0 and batch_size ≥ 1, got {epochs}, {batch_size}"
        )
    for _ in range(epochs):
        perm = torch.randperm(len(y), generator=generator)
        for i in range(0, len(y), batch_size):
            b = perm[i : i + batch_size]
            opt.zero_grad()
            loss_fn(net(X[b]), y[b]).backward()
            opt.step()


def selective_metrics(net, X, y) -> tuple[float, float]:
    """(test AURC with 0/1 loss and max-softmax confidence, accuracy) of a torch classifier."""
    import torch

    with torch.no_grad():
        p = torch.softmax(net(X), 1).numpy()
    e = (p.argmax(1) != np.asarray(y)).astype(float)
    return float(plugin_aurc(e, p.max(1))), float(1 - e.mean())


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
    if n_min < 2:
        raise ValueError(f"n_min must be ≥ 2 (ln n must be positive), got {n_min!r}")
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
    if peer_reps < 0:
        raise ValueError(f"peer_reps must be ≥ 0, got {peer_reps!r}")
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
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be a positive int, got {v!r}")
        for name in ("pre_epochs", "ft_epochs"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"{name} must be an int ≥ 0, got {v!r}")
        if not (np.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"lr must be positive, got {self.lr!r}")
        if not 0 <= self.momentum < 1:
            raise ValueError(f"momentum must lie in [0, 1), got {self.momentum!r}")


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


def finetune_comparison(
    X_train, y_train, X_test, y_test, *, seeds, protocol: FineTuneProtocol, key: int
) -> FineTuneResult:
    """Run claim 6's protocol on every seed in `seeds` (independent subsets, initialisations and
    batch orders, all derived from (`key`, seed)); both arms are evaluated on (X_test, y_test)."""
    import torch

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
        base = mlp_net(int(init), sizes)
        train_epochs(
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
            net = mlp_net(0, sizes)
            net.load_state_dict(base.state_dict())
            train_epochs(
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

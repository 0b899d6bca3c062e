"""The plug-in estimators of the population AURC: rank weights (MC, ln, SELE), the
estimators and the classic empirical AURC, the risk–coverage curve and the reweighted risk, a
model with a closed form (`PowerErrorModel`) and the confidence score functions. Numpy only."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from repbook.core import checks

ESTIMATORS = ("mc", "ln", "sele", "2sele")
TIES = ("average", "order")


# ----------------------------------------------------------------------------------------------
# weights
def _check_n(n) -> int:
    return checks.integer("n", n, at_least=1)


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

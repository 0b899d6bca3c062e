"""Instances (additive with four weight shapes, our hidden-element family, sparse coverage, an
RBF similarity for facility location) and the illustrative OPT-value estimator for additive f
(ours, not the paper's)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse

from repbook.core import checks

from .functions import _k, _nonnegative, Additive, Coverage, HiddenElement

ADDITIVE_KINDS = ("uniform", "pareto", "planted", "rare heavy")


# ----------------------------------------------------------------------------------------------
# instances
def additive_opt(weights, k: int) -> float:
    """OPT of an additive f: the sum of the k largest weights."""
    w = _nonnegative("weights", weights).ravel()
    k = _k(k, w.size)
    return float(np.sort(w)[-k:].sum())


def additive_instance(
    kind: str,
    n: int,
    k: int,
    rng: np.random.Generator,
    *,
    heavy: float = 3.0,
    pareto_shape: float = 1.5,
    rare: int = 2,
    rare_factor: float = 5.0,
) -> Additive:
    """Additive weights of one of ADDITIVE_KINDS (all ours):

    - ``uniform``: w ~ U(0, 1);
    - ``pareto``: w ~ 1 + Pareto(``pareto_shape``) (heavy tail);
    - ``planted``: U(0, 1) background and k planted elements of weight ``heavy`` at random places
      (OPT is about heavy k; the background hides them from set queries);
    - ``rare heavy``: U(0, 1) background and ``rare`` < k elements of weight
      ``rare_factor`` k each, which carry most of OPT but are seen by few singleton samples.
    """
    n = checks.integer("n", n, at_least=1)
    k = _k(k, n)
    rng = checks.generator("rng", rng)
    heavy = checks.number("heavy", heavy, above=0)
    pareto_shape = checks.number("pareto_shape", pareto_shape, above=0)
    rare_factor = checks.number("rare_factor", rare_factor, above=0)
    if kind == "uniform":
        return Additive(rng.random(n))
    if kind == "pareto":
        return Additive(1.0 + rng.pareto(pareto_shape, n))
    if kind == "planted":
        w = rng.random(n)
        w[rng.choice(n, size=k, replace=False)] = heavy
        return Additive(w)
    if kind == "rare heavy":
        rare = checks.integer("rare", rare, at_least=1, at_most=n)
        w = rng.random(n)
        w[rng.choice(n, size=rare, replace=False)] = rare_factor * k
        return Additive(w)
    raise ValueError(f"kind must be one of {ADDITIVE_KINDS}, got {kind!r}")


def hidden_element_instance(
    n: int, k: int, rng: np.random.Generator, *, ratio: int = 4, planted: bool = True
) -> HiddenElement:
    """``HiddenElement`` with m = ratio k and x* uniform (or no x* when ``planted`` is False)."""
    n = checks.integer("n", n, at_least=1)
    k = _k(k, n)
    ratio = checks.integer("ratio", ratio, at_least=1)
    star = int(checks.generator("rng", rng).integers(n)) if planted else -1
    return HiddenElement(n, ratio * k, star)


def coverage_instance(
    n: int, n_items: int, rng: np.random.Generator, *, mean_size: float = 5.0
) -> Coverage:
    """Random sparse coverage: element e covers 1 + Poisson(mean_size - 1) items chosen with
    Zipf-like popularity (item j drawn with probability proportional to 1/(j+1)); unit weights."""
    n = checks.integer("n", n, at_least=1)
    n_items = checks.integer("n_items", n_items, at_least=1)
    rng = checks.generator("rng", rng)
    if checks.number("mean_size", mean_size, above=0) < 1:
        raise ValueError(f"mean_size must be >= 1, got {mean_size!r}")
    sizes = np.minimum(1 + rng.poisson(mean_size - 1, n), n_items)
    p = 1.0 / np.arange(1, n_items + 1)
    p /= p.sum()
    rows = np.repeat(np.arange(n), sizes)
    cols = rng.choice(n_items, size=int(sizes.sum()), p=p)
    inc = sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n_items))
    inc.data[:] = 1.0  # duplicates summed: back to 0/1
    return Coverage(inc, np.ones(n_items))


def rbf_similarity(X, *, gamma: float | None = None) -> np.ndarray:
    """exp(-gamma |x_i - x_j|^2) with gamma = 1 / median squared distance when not given."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(
            f"X must be a 2-D array with at least 2 rows, got shape {X.shape}"
        )
    sq = np.einsum("ij,ij->i", X, X)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0)
    if gamma is None:
        med = float(np.median(d2[np.triu_indices_from(d2, 1)]))
        if med <= 0:
            raise ValueError(
                "X has (almost) no distinct rows: the median distance is 0"
            )
        gamma = 1.0 / med
    else:
        gamma = checks.number("gamma", gamma, above=0)
    return np.exp(-gamma * d2)


# ----------------------------------------------------------------------------------------------
# the illustrative OPT-value estimator for additive f (ours)
def level_estimate(sample, n: int, k: int) -> float | np.ndarray:
    """Our illustration, not the paper's estimator: OPT ~ sum_l 2^l min(k, c_l_hat).

    ``sample`` holds the singleton values of q distinct elements drawn at random (one query each);
    a 2-D array holds one sample per row and gives one estimate per row. c_l_hat = (n/q) times the
    number of sampled values >= 2^l, for the integer levels l from floor(log2) of the smallest
    positive sampled value to that of the largest. With the whole ground set (q = n) the counts are
    exact and the estimate lies strictly between OPT/2 and 2 OPT.
    """
    w = _nonnegative("sample", sample)
    n = checks.integer("n", n, at_least=1)
    k = _k(k, n)
    if w.ndim == 2:
        return _level_estimates_rows(w, n, k)
    if w.ndim != 1:
        raise ValueError(f"sample must be 1-D (q,) or 2-D (samples, q), got {w.ndim}-D")
    q = w.size
    if q > n:
        raise ValueError(
            f"a sample of distinct elements has at most n={n} values, got q={q}"
        )
    pos = w[w > 0]
    if pos.size == 0:
        return 0.0
    levels = np.floor(np.log2(pos)).astype(np.int64)
    lo, hi = int(levels.min()), int(levels.max())
    counts = np.bincount(levels - lo, minlength=hi - lo + 1)[::-1].cumsum()[
        ::-1
    ]  # #{w >= 2^l}
    c_hat = counts * (n / q)
    return float(np.sum(np.exp2(np.arange(lo, hi + 1)) * np.minimum(k, c_hat)))


def _level_estimates_rows(w: np.ndarray, n: int, k: int) -> np.ndarray:
    """``level_estimate`` of every row at once (same q per row), vectorised over rows."""
    rows, q = w.shape
    if q > n:
        raise ValueError(
            f"a sample of distinct elements has at most n={n} values, got q={q}"
        )
    out = np.zeros(rows)
    pos = w > 0
    if not pos.any():
        return out
    with np.errstate(divide="ignore"):
        lev = np.where(pos, np.floor(np.log2(np.where(pos, w, 1.0))), -np.inf)
    row_min = np.where(pos, lev, np.inf).min(axis=1)  # each row's lowest level
    for level in range(int(row_min[np.isfinite(row_min)].min()), int(lev.max()) + 1):
        c_hat = (lev >= level).sum(axis=1) * (n / q)
        out += np.where(row_min <= level, np.exp2(level) * np.minimum(k, c_hat), 0.0)
    return out


def sampled_level_estimates(
    weights, k: int, budgets: Sequence[int], rng: np.random.Generator
) -> np.ndarray:
    """``level_estimate`` after each budget q in ``budgets``, along one random order (nested)."""
    w = _nonnegative("weights", weights).ravel()
    k = _k(k, w.size)
    order = checks.generator("rng", rng).permutation(w.size)
    out = []
    for q in budgets:
        q = checks.integer("budget", q, at_least=1, at_most=w.size)
        out.append(level_estimate(w[order[:q]], w.size, k))
    return np.array(out)

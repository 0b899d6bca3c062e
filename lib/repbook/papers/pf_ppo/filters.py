"""The filters: the paper's per prompt (BoN, BR, BW and controls) and verl's batch-level
reweighting; R² on the filtered samples, reliability by reward bin, and the bootstrap."""

from __future__ import annotations


import numpy as np

from repbook.core import checks


# ---------------------------------------------------------------------------------------------
# Filters: the paper's per prompt, and verl's batch-level reweighting
# ---------------------------------------------------------------------------------------------
PER_PROMPT = ("all", "bon", "br", "bw", "worst", "random2", "random1")
"""`all` = PPO-M (every response), `bon` = best of N, `br` = best + one random other,
`bw` = best + worst, `worst` = worst only, `random2` = two at random, `random1` = one at
random (the sample-count control of BoN)."""
BATCH_LEVEL = ("verl-pow", "verl-max_min", "verl-max_random")
"""verl's `compute_pf_ppo_reweight_data`: weights over the whole batch, resampled with
replacement to the batch size."""
STRATEGIES = PER_PROMPT + BATCH_LEVEL


def _check_rewards(rewards, name: str = "rewards") -> np.ndarray:
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 2:
        raise ValueError(f"{name} must be a (prompts, N) array, got shape {r.shape}")
    if not np.all(np.isfinite(r)):
        raise ValueError(
            f"{name} must be finite, got {r[~np.isfinite(r)][:3]} among them"
        )
    return r


def best_worst(rewards) -> tuple[np.ndarray, np.ndarray]:
    """Per prompt (row): the best response (lowest index among the maxima) and the worst (highest
    index among the minima). With N ≥ 2 the two differ even when all rewards tie."""
    r = _check_rewards(rewards)
    best = np.argmax(r, axis=1)
    worst = r.shape[1] - 1 - np.argmin(r[:, ::-1], axis=1)
    return best, worst


def keep_count(strategy: str, n: int) -> int:
    """How many of the N responses of a prompt a strategy keeps (batch-level ones: N on average)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    checks.integer("n", n, at_least=1)
    if strategy in ("br", "bw", "random2") and n < 2:
        raise ValueError(
            f"strategy {strategy!r} keeps two responses and needs n ≥ 2, got {n}"
        )
    kept = {"bon": 1, "worst": 1, "random1": 1, "br": 2, "bw": 2, "random2": 2}
    return kept.get(strategy, int(n))


def select(
    rewards, strategy: str, rng: np.random.Generator | None = None
) -> np.ndarray:
    """The paper's per-prompt filters: a boolean mask (prompts, N) of the responses kept.

    Ties are broken deterministically (see `best_worst`); `br` and `random2` draw from `rng`.
    """
    r = _check_rewards(rewards)
    if strategy not in PER_PROMPT:
        raise ValueError(f"strategy must be one of {PER_PROMPT}, got {strategy!r}")
    m, n = r.shape
    keep_count(strategy, n)
    mask = np.zeros((m, n), dtype=bool)
    rows = np.arange(m)
    if strategy == "all":
        mask[:] = True
        return mask
    if strategy in ("br", "random2", "random1") and rng is None:
        raise ValueError(f"strategy {strategy!r} draws at random: pass rng")
    best, worst = best_worst(r)
    if strategy in ("bon", "br", "bw"):
        mask[rows, best] = True
    if strategy == "br":  # one uniformly random response other than the best
        other = rng.integers(n - 1, size=m)
        mask[rows, other + (other >= best)] = True
    elif strategy in ("bw", "worst"):
        mask[rows, worst] = True
    elif strategy == "random2":
        two = np.argsort(rng.random((m, n)), axis=1)[:, :2]
        mask[rows[:, None], two] = True
    elif strategy == "random1":
        mask[rows, rng.integers(n, size=m)] = True
    return mask


def verl_weights(scores, method: str, *, power: float = 2.0) -> np.ndarray:
    """verl's PF-PPO weights over a flat batch of scores: `pow` |s|^power; `max_min` 1 for the
    batch maximum and minimum, else 0; `max_random` 0.4 for the batch maximum, else 0.1."""
    s = np.asarray(scores, dtype=float)
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"scores must be a non-empty 1-d array, got shape {s.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite")
    if method == "pow":
        return np.abs(s) ** power
    if method == "max_min":
        return np.where((s == s.max()) | (s == s.min()), 1.0, 0.0)
    if method == "max_random":
        return np.where(s == s.max(), 0.4, 0.1)
    raise ValueError(f"method must be 'pow', 'max_min' or 'max_random', got {method!r}")


def verl_resample(
    scores, method: str, rng: np.random.Generator, *, power: float = 2.0
) -> np.ndarray:
    """Indices of verl's resampled batch: the batch size drawn with replacement with probability
    proportional to `verl_weights` + 1e-8 (as `compute_pf_ppo_reweight_data` does)."""
    w = np.maximum(verl_weights(scores, method, power=power) + 1e-8, 1e-8)
    return rng.choice(w.size, size=w.size, replace=True, p=w / w.sum())


def r_squared(rewards, scores) -> float:
    """Coefficient of determination of the least-squares line of actual score on reward: the share
    of the actual scores' variance the reward explains (= squared Pearson correlation)."""
    x = np.asarray(rewards, dtype=float).ravel()
    y = np.asarray(scores, dtype=float).ravel()
    if x.size != y.size:
        raise ValueError(
            f"rewards and scores must have the same length, got {x.size} and {y.size}"
        )
    if x.size < 3:
        raise ValueError(f"R² needs at least 3 samples, got {x.size}")
    for name, v in (("rewards", x), ("scores", y)):
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{name} must be finite")
        if np.ptp(v) == 0:
            raise ValueError(f"{name} are constant: R² is undefined")
    xc, yc = x - x.mean(), y - y.mean()
    slope = (xc @ yc) / (xc @ xc)
    resid = yc - slope * xc
    return float(1.0 - (resid @ resid) / (yc @ yc))


def filtered_r_squared(
    rewards,
    scores,
    strategy: str,
    rng: np.random.Generator | None = None,
    *,
    power: float = 2.0,
) -> float:
    """R² between reward and actual score on the samples a strategy keeps, pooled over prompts.
    `rewards` and `scores` are (prompts, N); batch-level strategies resample the flat batch."""
    r, s = _check_rewards(rewards), _check_rewards(scores, "scores")
    if r.shape != s.shape:
        raise ValueError(
            f"rewards and scores must have the same shape, got {r.shape} and {s.shape}"
        )
    if strategy in BATCH_LEVEL:
        if rng is None:
            raise ValueError(f"strategy {strategy!r} resamples at random: pass rng")
        idx = verl_resample(r.ravel(), strategy.split("-", 1)[1], rng, power=power)
        return r_squared(r.ravel()[idx], s.ravel()[idx])
    mask = select(r, strategy, rng)
    return r_squared(r[mask], s[mask])


def reliability_by_bin(rewards, scores, n_bins: int = 10) -> dict[str, np.ndarray]:
    """Split samples into `n_bins` equal-count bins of reward (deciles by default) and return each
    bin's mean reward, mean and variance of the actual score, and count."""
    x = np.asarray(rewards, dtype=float).ravel()
    y = np.asarray(scores, dtype=float).ravel()
    if x.size != y.size:
        raise ValueError(
            f"rewards and scores must have the same length, got {x.size} and {y.size}"
        )
    checks.integer("n_bins", n_bins, at_least=2, at_most=x.size)
    order = np.argsort(x, kind="stable")
    bins = np.array_split(order, n_bins)
    return {
        "reward": np.array([x[b].mean() for b in bins]),
        "mean": np.array([y[b].mean() for b in bins]),
        "var": np.array([y[b].var() for b in bins]),
        "count": np.array([b.size for b in bins]),
    }


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------
def bootstrap_interval(
    values,
    rng: np.random.Generator,
    *,
    n_boot: int = 2000,
    level: float = 0.95,
    stat=np.mean,
) -> tuple[float, float]:
    """Percentile bootstrap interval of `stat` over the first axis of `values` (rows resampled
    with replacement). `stat` receives the resampled rows; pass row indices as `values` to
    resample several arrays together."""
    v = np.asarray(values)
    if v.ndim == 0 or not np.issubdtype(v.dtype, np.number):
        raise ValueError(
            f"values must be a numeric array with rows, got {values!r:.60}"
        )
    if v.shape[0] < 2:
        raise ValueError(f"values needs at least 2 rows, got {v.shape[0]}")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    idx = rng.integers(v.shape[0], size=(n_boot, v.shape[0]))
    stats = np.array([stat(v[i]) for i in idx])
    lo, hi = np.quantile(stats, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)

"""Linear and scalar quantile tracking (LQT, SQT): the input checks, step sizes and the
trackers, one stream or a grid of configurations at once, and against an adaptive adversary."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from repbook.core import checks

SCHEDULES = ("fixed", "decaying")
DECAY = 0.6
"""Exponent of the decaying schedule η·t^(−0.6) = η·t^(−(1/2+ε)) with ε = 0.1."""


# ----------------------------------------------------------------------------------------------
# input checks
def _check_alpha(alpha) -> float:
    return checks.number("alpha", alpha, above=0.0, below=1.0)


def _check_scores(scores, *, allow_2d: bool = False) -> np.ndarray:
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim not in ((1, 2) if allow_2d else (1,)):
        want = "1-D (T,) or 2-D (streams, T)" if allow_2d else "1-D (T,)"
        raise ValueError(f"scores must be {want}, got shape {s.shape}")
    if s.shape[-1] == 0 or s.size == 0:
        raise ValueError("scores are empty: need at least one score")
    if not np.all(np.isfinite(s)):
        bad = int(np.flatnonzero(~np.isfinite(s.ravel()))[0])
        raise ValueError(
            f"scores must be finite; got {s.ravel()[bad]!r} at flat index {bad}"
        )
    return s


def _check_p(p) -> int:
    """p, the number of lagged scores."""
    return checks.integer("p", p, at_least=0)


def _check_positive(name: str, value) -> np.ndarray:
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim > 1:
        raise ValueError(
            f"{name} must be a number or a 1-D array of numbers, got shape {arr.shape}"
        )
    if arr.size == 0:
        raise ValueError(f"{name} is empty: give a number or a non-empty 1-D array")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be positive and finite, got {value!r}")
    return arr


def _check_schedule(schedule: str) -> str:
    return checks.one_of("schedule", schedule, SCHEDULES)


def step_sizes(
    lr: float, T: int, schedule: str = "fixed", decay: float = DECAY
) -> np.ndarray:
    """η_1..η_T: lr for "fixed", lr·t^(−decay) for "decaying" (t counts every round from 1)."""
    _check_schedule(schedule)
    lr = float(_check_positive("lr", lr))
    checks.integer("T", T, at_least=1)
    if schedule == "fixed":
        return np.full(int(T), lr)
    return lr * np.arange(1, int(T) + 1, dtype=np.float64) ** (-float(decay))


def _schedule_factors(T: int, schedule: str, decay: float) -> np.ndarray:
    if schedule == "fixed":
        return np.ones(T)
    return np.arange(1, T + 1, dtype=np.float64) ** (-float(decay))


def default_theta0(p: int) -> np.ndarray:
    """θ_1 of `conformalopt`: (1/p)·1 over the p lags and the bias for p > 0, and 1 for p = 0."""
    p = _check_p(p)
    return np.full(p + 1, 1.0 / p if p > 0 else 1.0)


# ----------------------------------------------------------------------------------------------
# linear and scalar quantile tracking
@dataclass(frozen=True)
class TrackerRun:
    """Output of a quantile tracker.

    `q`: thresholds q_1..q_T, shape (T,) for one configuration or (K, T) for K at once.
    `theta`: the parameter after the last update, θ_{T+1}, shape (d,) or (K, d), d = p + 1.
    `path`: θ_t (the parameter used for the prediction of round t) at every round or at the rounds
    asked for, (n, d) or (K, n, d); None unless asked for.
    """

    q: np.ndarray
    theta: np.ndarray
    path: np.ndarray | None = None


def _lqt_python(
    s: np.ndarray,
    alpha: float,
    p: int,
    lr: float,
    bias: float,
    factors: np.ndarray,
    theta0: np.ndarray,
    path_at,
):
    """One configuration, one stream, in plain Python floats (fast for small p). `path_at`: sorted
    rounds (0-based) at which to record θ, or None."""
    if p <= 2:
        return _lqt_python_small(s, alpha, p, lr, bias, factors, theta0, path_at)
    sl = s.tolist()
    fl = factors.tolist()
    T = len(sl)
    th = [float(v) for v in theta0]
    q = [0.0] * T
    path = [] if path_at is not None else None
    marks = iter(path_at.tolist() if path_at is not None else ())
    nxt = next(marks, -1)
    for t in range(T):
        if t == nxt:
            path.append(th[:])
            nxt = next(marks, -1)
        if t < p:
            continue
        qt = th[p] * bias
        for j in range(p):
            qt += th[j] * sl[t - p + j]
        q[t] = qt
        g = lr * fl[t] * ((1.0 if sl[t] > qt else 0.0) - alpha)
        for j in range(p):
            th[j] += g * sl[t - p + j]
        th[p] += g * bias
    return (
        np.array(q),
        np.array(th),
        np.array(path).reshape(len(path), p + 1) if path is not None else None,
    )


def _lqt_python_small(s, alpha, p, lr, bias, factors, theta0, path_at):
    """`_lqt_python` unrolled for p ≤ 2: the same operations in the same order (so the same
    floats), about twice as fast."""
    sl = s.tolist()
    fl = factors.tolist()
    T = len(sl)
    q = [0.0] * T
    marks = path_at.tolist() if path_at is not None else []
    path = [[float(v) for v in theta0] for m in marks if m < p]
    it = iter([m for m in marks if m >= p])
    nxt = next(it, -1)
    a = c = 0.0
    if p == 2:
        a, c, b = (float(v) for v in theta0)
        for t in range(2, T):
            if t == nxt:
                path.append([a, c, b])
                nxt = next(it, -1)
            x0 = sl[t - 2]
            x1 = sl[t - 1]
            qt = b * bias
            qt += a * x0
            qt += c * x1
            q[t] = qt
            g = lr * fl[t] * ((1.0 if sl[t] > qt else 0.0) - alpha)
            a += g * x0
            c += g * x1
            b += g * bias
        th = [a, c, b]
    elif p == 1:
        a, b = (float(v) for v in theta0)
        for t in range(1, T):
            if t == nxt:
                path.append([a, b])
                nxt = next(it, -1)
            x0 = sl[t - 1]
            qt = b * bias
            qt += a * x0
            q[t] = qt
            g = lr * fl[t] * ((1.0 if sl[t] > qt else 0.0) - alpha)
            a += g * x0
            b += g * bias
        th = [a, b]
    else:
        b = float(theta0[0])
        for t in range(T):
            if t == nxt:
                path.append([b])
                nxt = next(it, -1)
            qt = b * bias
            q[t] = qt
            g = lr * fl[t] * ((1.0 if sl[t] > qt else 0.0) - alpha)
            b += g * bias
        th = [b]
    return (
        np.array(q),
        np.array(th),
        np.array(path).reshape(len(path), p + 1) if path_at is not None else None,
    )


def _lqt_numpy(
    S: np.ndarray,
    alpha: float,
    p: int,
    lr: np.ndarray,
    bias: np.ndarray,
    factors: np.ndarray,
    theta0: np.ndarray,
    path_at,
    rows=None,
    metrics_only: bool = False,
):
    """K configurations at once: S is (T,) shared by all, (K, T), or (streams, T) with `rows` (K,)
    naming each configuration's stream; lr, bias (K,); theta0 (K, d). With `metrics_only` the
    thresholds are not kept: returns (mean pinball loss (K,), coverage (K,), θ_{T+1}, None)."""
    K, d = theta0.shape
    T = S.shape[-1]
    S2 = S[None] if S.ndim == 1 else S
    if rows is None:
        rows = np.zeros(K, dtype=int) if S2.shape[0] == 1 else np.arange(K)
    ST = np.ascontiguousarray(S2.T)  # (T, streams): one row per round
    lags = np.zeros((T, S2.shape[0], p))  # lags[t] = [s_{t−p}, …, s_{t−1}] per stream
    for j in range(p):
        lags[p:, :, j] = ST[j : T - p + j]
    theta_l = theta0[:, :p].copy()
    theta_b = theta0[:, p] * bias  # the bias term b·θ^b, updated by g·b²
    b2 = bias * bias
    lr_alpha = lr * alpha
    q = None if metrics_only else np.zeros((K, T))
    acc = _Accumulator(K, alpha, ST, rows) if metrics_only else None
    path = np.empty((K, len(path_at), d)) if path_at is not None else None
    marks = iter(enumerate(path_at.tolist() if path_at is not None else ()))
    i_mark, nxt = next(marks, (-1, -1))
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(T):
            if t == nxt:
                path[:, i_mark, :p] = theta_l
                path[:, i_mark, p] = theta_b / bias
                i_mark, nxt = next(marks, (-1, -1))
            if t < p:
                if metrics_only:
                    acc.add(t, np.zeros(K))
                continue
            if p:
                win = lags[t].take(rows, axis=0)
                qt = np.einsum("kj,kj->k", theta_l, win) + theta_b
            else:
                qt = theta_b.copy()
            if metrics_only:
                miss = acc.add(t, qt)
            else:
                q[:, t] = qt
                miss = ST[t].take(rows) > qt
            f = factors[t]
            g = lr * f * miss - lr_alpha * f  # η_t (err_t − α)
            if p:
                theta_l += g[:, None] * win
            theta_b += g * b2
    theta = np.concatenate([theta_l, (theta_b / bias)[:, None]], axis=1)
    if metrics_only:
        return (*acc.result(), theta, None)
    return q, theta, path


class _Accumulator:
    """Running pinball loss and coverage of K configurations, for grid searches that cannot keep
    K × T thresholds in memory. Uses Σρ = (1−α)Σ(s − q) − Σ min(s − q, 0)."""

    def __init__(self, K: int, alpha: float, ST: np.ndarray, rows: np.ndarray):
        self.alpha, self.ST, self.rows, self.T = alpha, ST, rows, ST.shape[0]
        self.qsum, self.negsum, self.misses = np.zeros(K), np.zeros(K), np.zeros(K)

    def add(self, t: int, q: np.ndarray) -> np.ndarray:
        u = self.ST[t].take(self.rows) - q
        self.qsum += q
        self.negsum += np.minimum(u, 0.0)
        miss = u > 0
        self.misses += miss
        return miss

    def result(self):
        ssum = self.ST.sum(axis=0).take(self.rows)
        with np.errstate(invalid="ignore"):
            loss = ((1 - self.alpha) * (ssum - self.qsum) - self.negsum) / self.T
        return np.where(np.isfinite(loss), loss, np.inf), 1.0 - self.misses / self.T


def lqt(
    scores,
    *,
    alpha: float,
    p: int,
    lr,
    bias=1.0,
    schedule: str = "fixed",
    decay: float = DECAY,
    theta0=None,
    return_path: bool = False,
    path_at=None,
) -> TrackerRun:
    """Linear quantile tracking LQT(p): SGD on the pinball loss over the last `p` scores and a bias.

    `scores` is one stream (T,) or several (K, T); `lr` and `bias` may be numbers or 1-D arrays of
    K values, and then K configurations run at once (all on the same stream when `scores` is 1-D).
    `theta0` (d,) or (K, d) defaults to `default_theta0(p)`. `return_path` records θ_t before every
    round, `path_at` (increasing 0-based rounds) only before those. Returns a `TrackerRun`.
    """
    alpha = _check_alpha(alpha)
    p = _check_p(p)
    s = _check_scores(scores, allow_2d=True)
    lr_a = _check_positive("lr", lr)
    bias_a = _check_positive("bias", bias)
    _check_schedule(schedule)
    T = s.shape[-1]
    d = p + 1
    th0 = default_theta0(p) if theta0 is None else np.asarray(theta0, dtype=np.float64)
    if th0.shape[-1] != d or th0.ndim not in (1, 2) or not np.all(np.isfinite(th0)):
        raise ValueError(
            f"theta0 must be finite with last dimension p + 1 = {d}, got shape "
            f"{th0.shape}"
        )
    factors = _schedule_factors(T, schedule, decay)
    if return_path:
        path_at = np.arange(T)
    else:
        path_at = _check_path_at(path_at, T)
    single = s.ndim == 1 and lr_a.ndim == 0 and bias_a.ndim == 0 and th0.ndim == 1
    if single:
        q, th, path = _lqt_python(
            s, alpha, p, float(lr_a), float(bias_a), factors, th0, path_at
        )
        return TrackerRun(q, th, path)
    sizes = {
        n
        for n in (
            lr_a.size if lr_a.ndim else 1,
            bias_a.size if bias_a.ndim else 1,
            s.shape[0] if s.ndim == 2 else 1,
            th0.shape[0] if th0.ndim == 2 else 1,
        )
    }
    sizes.discard(1)
    if len(sizes) > 1:
        raise ValueError(
            f"lr, bias, theta0 and the rows of scores must have one common length K or "
            f"length 1; got lengths {sorted(sizes)}"
        )
    K = sizes.pop() if sizes else 1
    lr_k = np.broadcast_to(lr_a, (K,)).astype(np.float64)
    bias_k = np.broadcast_to(bias_a, (K,)).astype(np.float64)
    th0_k = np.broadcast_to(th0, (K, d)).astype(np.float64)
    if s.ndim == 2 and s.shape[0] == 1:
        s = s[0]
    if (
        s.ndim == 2 and K <= 6
    ):  # a few streams: plain Python per stream is faster than numpy
        outs = [
            _lqt_python(s[k], alpha, p, lr_k[k], bias_k[k], factors, th0_k[k], path_at)
            for k in range(K)
        ]
        return TrackerRun(
            np.stack([o[0] for o in outs]),
            np.stack([o[1] for o in outs]),
            np.stack([o[2] for o in outs]) if path_at is not None else None,
        )
    q, th, path = _lqt_numpy(s, alpha, p, lr_k, bias_k, factors, th0_k, path_at)
    return TrackerRun(q, th, path)


def sqt(
    scores,
    *,
    alpha: float,
    lr,
    schedule: str = "fixed",
    decay: float = DECAY,
    q0: float = 1.0,
    return_path: bool = False,
) -> TrackerRun:
    """Scalar quantile tracking q_{t+1} = q_t + η_t (err_t − α), q_1 = `q0` (LQT(0) with b = 1)."""
    if not np.isfinite(q0):
        raise ValueError(f"q0 must be finite, got {q0!r}")
    return lqt(
        scores,
        alpha=alpha,
        p=0,
        lr=lr,
        bias=1.0,
        schedule=schedule,
        decay=decay,
        theta0=np.array([float(q0)]),
        return_path=return_path,
    )


def lqt_against(
    adversary: Callable[[int, float], float],
    T: int,
    *,
    alpha: float,
    p: int,
    lr: float,
    bias: float = 1.0,
    schedule: str = "fixed",
    decay: float = DECAY,
    theta0=None,
    path_at=None,
) -> tuple[np.ndarray, TrackerRun]:
    """LQT(p) played against an adaptive adversary that sees q_t before choosing s_t.

    `adversary(t, q_t)` returns the score of round t (t = 0, 1, ...); it must be finite. Returns the
    scores it chose and the run, which equals `lqt(scores, ...)` on those scores (`path_at` as in
    `lqt`: θ_t recorded before the rounds asked for).
    """
    alpha = _check_alpha(alpha)
    p = _check_p(p)
    lr = float(_check_positive("lr", lr))
    bias = float(_check_positive("bias", bias))
    checks.integer("T", T, at_least=1)
    fl = _schedule_factors(int(T), _check_schedule(schedule), decay).tolist()
    th = (
        default_theta0(p) if theta0 is None else np.asarray(theta0, dtype=np.float64)
    ).tolist()
    if len(th) != p + 1:
        raise ValueError(f"theta0 must have p + 1 = {p + 1} entries, got {len(th)}")
    marks = _check_path_at(path_at, int(T))
    path = [] if marks is not None else None
    it = iter(marks.tolist() if marks is not None else ())
    nxt = next(it, -1)
    sl, q = [], []
    for t in range(int(T)):
        if t == nxt:
            path.append(th[:])
            nxt = next(it, -1)
        if t < p:
            qt = 0.0
        else:
            qt = th[p] * bias
            for j in range(p):
                qt += th[j] * sl[t - p + j]
        st = float(adversary(t, qt))
        if not math.isfinite(st):
            raise ValueError(
                f"the adversary returned a non-finite score {st!r} at round {t}"
            )
        sl.append(st)
        q.append(qt)
        if t >= p:
            g = lr * fl[t] * ((1.0 if st > qt else 0.0) - alpha)
            for j in range(p):
                th[j] += g * sl[t - p + j]
            th[p] += g * bias
    pa = np.array(path).reshape(len(path), p + 1) if path is not None else None
    return np.array(sl), TrackerRun(np.array(q), np.array(th), pa)


def _check_path_at(path_at, T: int):
    if path_at is None:
        return None
    path_at = np.asarray(path_at)
    if (
        path_at.ndim != 1
        or not np.issubdtype(path_at.dtype, np.integer)
        or np.any(np.diff(path_at) <= 0)
        or (path_at.size and (path_at[0] < 0 or path_at[-1] >= T))
    ):
        raise ValueError(
            f"path_at must be increasing int rounds in [0, {T}), got {path_at!r}"
        )
    return path_at

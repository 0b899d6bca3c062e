"""Online conformal prediction as online optimisation (Areces, Mohri, Hashimoto, Duchi, ICML 2025).

Notation. Scores s_1, s_2, ... arrive one at a time (for example s_t = |y_t − ŷ_t|). Before s_t is
seen a method announces a threshold q_t; the set {scores ≤ q_t} *covers* round t when s_t ≤ q_t and
*misses* it otherwise (err_t = 1{s_t > q_t}). The target miscoverage is α.

- **LQT(p)**, linear quantile tracking: q_t = θ_tᵀφ_t with features φ_t = [s_{t−p}, …, s_{t−1}, b]
  (the last p scores, oldest first, and a bias constant b), and one SGD step on the pinball loss
  ρ_{1−α}(s_t − θᵀφ_t): θ_{t+1} = θ_t + η_t (err_t − α) φ_t. Step sizes are fixed (η_t = η) or
  decaying (η_t = η·t^(−0.6)). Until p scores have been seen there are no features: q_t = 0 and θ
  does not move. θ_1 = (1/p)·1 for p > 0 and 1 for p = 0 unless given. These conventions are those of
  the authors' package `conformalopt` (read in its source), so the two agree step for step.
- **SQT**, scalar quantile tracking, is LQT(0) with b = 1: q_{t+1} = q_t + η_t (err_t − α).
- **ACI** (Gibbs & Candès, 2021): q_t is the empirical quantile of the past scores at level 1 − α_t,
  and α_{t+1} = α_t + γ(α − err_t).
- **Conformal PI** (Angelopoulos, Candès & Tibshirani, 2023): quantile tracking with a step
  proportional to the range of recent scores, plus a saturating integrator of the running coverage
  error, r_t = K_I·tan(E_t·log(n+1)/(C_sat·(n+1))).

Everything is numpy (plus `sortedcontainers` for ACI's running order statistics); no printing,
plotting or file writing. Hyper-parameters given as arrays run a whole grid of configurations at once.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.signal import lfilter

SCHEDULES = ("fixed", "decaying")
DECAY = 0.6
"""Exponent of the decaying schedule η·t^(−0.6) = η·t^(−(1/2+ε)) with ε = 0.1."""


# ----------------------------------------------------------------------------------------------
# input checks
def _check_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(
        alpha, (int, float, np.floating, np.integer)
    ):
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
    alpha = float(alpha)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    return alpha


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
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 0:
        raise ValueError(
            f"p (number of lagged scores) must be a non-negative int, got {p!r}"
        )
    return int(p)


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
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")
    return schedule


def step_sizes(
    lr: float, T: int, schedule: str = "fixed", decay: float = DECAY
) -> np.ndarray:
    """η_1..η_T: lr for "fixed", lr·t^(−decay) for "decaying" (t counts every round from 1)."""
    _check_schedule(schedule)
    lr = float(_check_positive("lr", lr))
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"T must be a positive int, got {T!r}")
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
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"T must be a positive int, got {T!r}")
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


# ----------------------------------------------------------------------------------------------
# baselines
def aci(scores, *, alpha: float, gamma, q0: float = 0.0) -> np.ndarray:
    """Adaptive conformal inference on the empirical quantile of all past scores.

    q_t is the ⌈(1 − α_t)(n + 1)⌉-th smallest of the n = t − 1 past scores; when that rank exceeds n
    the set would be infinite and the largest past score stands in for it, and when it is below 1
    the smallest past score stands in for the empty set. Before any score is seen q_1 = `q0`.
    α_1 = α and α_{t+1} = α_t + γ(α − err_t). `gamma` may be an array of K values: returns (K, T).
    """
    from sortedcontainers import SortedList

    alpha = _check_alpha(alpha)
    s = _check_scores(scores)
    g = _check_positive("gamma", gamma)
    gl = np.atleast_1d(g).tolist()
    K, T = len(gl), s.size
    sl = s.tolist()
    a = [alpha] * K
    q = np.empty((K, T))
    past = SortedList()
    for t in range(T):
        n = t
        st = sl[t]
        for k in range(K):
            if n == 0:
                qk = float(q0)
            else:
                r = math.ceil((1.0 - a[k]) * (n + 1))
                qk = past[-1] if r > n else (past[0] if r < 1 else past[r - 1])
            q[k, t] = qk
            a[k] += gl[k] * (alpha - (1.0 if st > qk else 0.0))
        past.add(st)
    return q if g.ndim else q[0]


def rolling_range(scores, window: int = 20) -> np.ndarray:
    """max − min of the last `window` scores up to and including s_t (fewer at the start), along
    the last axis of a 1-D or 2-D array of scores."""
    s = _check_scores(scores, allow_2d=True)
    if (
        isinstance(window, bool)
        or not isinstance(window, (int, np.integer))
        or window < 1
    ):
        raise ValueError(f"window must be a positive int, got {window!r}")
    pad = [(0, 0)] * (s.ndim - 1) + [(window - 1, 0)]
    hi = np.pad(s, pad, constant_values=-np.inf)
    lo = np.pad(s, pad, constant_values=np.inf)
    view = np.lib.stride_tricks.sliding_window_view
    return view(hi, window, axis=-1).max(axis=-1) - view(lo, window, axis=-1).min(
        axis=-1
    )


def _pi_core(
    S: np.ndarray,
    rows,
    alpha: float,
    lr_k,
    cs_k,
    ki_k,
    window: int,
    q0: float,
    metrics_only: bool = False,
):
    """Conformal PI for K configurations; S (streams, T), rows (K,) the stream of each. With
    `metrics_only`, returns (mean pinball loss (K,), coverage (K,)) instead of the thresholds."""
    K, T = lr_k.size, S.shape[-1]
    ST = np.ascontiguousarray(S.T)  # (T, streams)
    RT = np.ascontiguousarray(rolling_range(S, window).T)
    hiT = np.maximum.accumulate(ST, axis=0)
    loT = np.minimum.accumulate(ST, axis=0)
    shrink = np.log(np.arange(1, T + 1) + 1.0) / (
        np.arange(1, T + 1) + 1.0
    )  # log(n+1)/(n+1)
    inv_cs = 1.0 / cs_k
    P = np.full(K, float(q0))
    Es = np.zeros(K)  # Σ (err − α) / c_sat
    q = None if metrics_only else np.empty((K, T))
    acc = _Accumulator(K, alpha, ST, rows) if metrics_only else None
    half_pi = np.pi / 2
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(T):
            if t == 0:
                qt = P.copy()
            else:
                arg = Es * shrink[t - 1]
                qt = P + ki_k * np.tan(arg)
                if np.abs(arg).max() >= half_pi:
                    qt = np.where(
                        arg >= half_pi,
                        hiT[t - 1].take(rows),
                        np.where(arg <= -half_pi, loT[t - 1].take(rows), qt),
                    )
            if metrics_only:
                miss = acc.add(t, qt)
            else:
                q[:, t] = qt
                miss = ST[t].take(rows) > qt
            err = miss - alpha
            P += lr_k * RT[t].take(rows) * err
            Es += err * inv_cs
    return acc.result() if metrics_only else q


def conformal_pi(
    scores, *, alpha: float, lr, c_sat, k_i, window: int = 20, q0: float = 0.0
) -> np.ndarray:
    """Conformal PI control: proportional quantile tracking plus a saturating integrator.

    q_t = P_t + r_t. P_1 = `q0` and P_{t+1} = P_t + lr·R_t·(err_t − α), with R_t the range of the
    last `window` scores (`rolling_range`). With E = Σ_{i<t}(err_i − α) over the n = t − 1 rounds
    seen, r_t = k_i·tan(E·log(n + 1)/(c_sat·(n + 1))); when the tangent's argument reaches ±π/2 the
    set is infinite (empty) and the largest (smallest) past score stands in for it.

    `lr`, `c_sat`, `k_i` broadcast to K configurations; `scores` is one stream (T,) shared by all or
    one stream per configuration (K, T). Returns (T,) when everything is scalar and 1-D, else (K, T).
    """
    alpha = _check_alpha(alpha)
    s = _check_scores(scores, allow_2d=True)
    lr_a, cs_a, ki_a = (
        _check_positive(n, v) for n, v in (("lr", lr), ("c_sat", c_sat), ("k_i", k_i))
    )
    try:
        lr_k, cs_k, ki_k = np.broadcast_arrays(lr_a, cs_a, ki_a)
    except ValueError:
        raise ValueError(
            f"lr, c_sat and k_i must broadcast to one length, got sizes "
            f"{lr_a.size}, {cs_a.size}, {ki_a.size}"
        ) from None
    scalar = lr_k.ndim == 0 and s.ndim == 1
    n_rows = s.shape[0] if s.ndim == 2 else 1
    K = max(lr_k.size, n_rows)
    if lr_k.size not in (1, K) or n_rows not in (1, K):
        raise ValueError(
            f"the rows of scores ({n_rows}) and the {lr_k.size} configurations "
            "must be equal in number, or one of them 1"
        )
    lr_k, cs_k, ki_k = (
        np.broadcast_to(np.atleast_1d(x), (K,)).astype(np.float64)
        for x in (lr_k, cs_k, ki_k)
    )
    S = np.atleast_2d(s)
    rows = np.zeros(K, dtype=int) if n_rows == 1 else np.arange(K)
    q = _pi_core(S, rows, alpha, lr_k, cs_k, ki_k, window, q0)
    return q[0] if scalar else q


# ----------------------------------------------------------------------------------------------
# metrics, tuning, tests
def pinball_loss(scores, q, alpha: float) -> np.ndarray:
    """Per-round pinball loss ρ_{1−α}(s_t − q_t) = max((1−α)(s−q), α(q−s)); q may be (K, T)."""
    alpha = _check_alpha(alpha)
    s = _check_scores(scores)
    q = np.asarray(q, dtype=np.float64)
    if q.shape[-1] != s.size:
        raise ValueError(
            f"q must end in the number of scores {s.size}, got shape {q.shape}"
        )
    u = s - q
    with np.errstate(invalid="ignore"):
        return np.maximum((1 - alpha) * u, -alpha * u)


def coverage(scores, q):
    """Fraction of rounds with s_t ≤ q_t (float, or one per row of a (K, T) q)."""
    s = _check_scores(scores)
    q = np.asarray(q, dtype=np.float64)
    if q.shape[-1] != s.size:
        raise ValueError(
            f"q must end in the number of scores {s.size}, got shape {q.shape}"
        )
    out = np.mean(s <= q, axis=-1)
    return float(out) if q.ndim == 1 else out


def miscoverage_path(scores, q) -> np.ndarray:
    """Running miscoverage (1/t) Σ_{i≤t} err_i for t = 1..T (q 1-D)."""
    s = _check_scores(scores)
    q = np.asarray(q, dtype=np.float64)
    if q.shape != s.shape:
        raise ValueError(f"q must have the shape of scores {s.shape}, got {q.shape}")
    return np.cumsum(s > q) / np.arange(1, s.size + 1)


def select_config(scores, q, alpha: float, tol: float = 0.01) -> int:
    """Row of q (K, T) with the lowest mean pinball loss among those whose coverage is within `tol`
    of 1 − α; the lowest loss overall when none is. Non-finite thresholds count as infinite loss."""
    q = np.asarray(q, dtype=np.float64)
    if q.ndim != 2 or q.shape[0] == 0:
        raise ValueError(
            f"q must be 2-D (configurations, T) with at least one row, got {q.shape}"
        )
    loss = pinball_loss(scores, q, alpha).mean(axis=1)
    loss = np.where(np.isfinite(loss) & np.all(np.isfinite(q), axis=1), loss, np.inf)
    return _choose(loss, coverage(scores, q), alpha, tol)


def _choose(loss: np.ndarray, cov: np.ndarray, alpha: float, tol: float) -> int:
    ok = (np.abs(cov - (1 - alpha)) <= tol) & np.isfinite(loss)
    if np.any(ok):
        return int(np.flatnonzero(ok)[np.argmin(loss[ok])])
    return int(np.argmin(loss))


def _streams(streams) -> np.ndarray:
    S = np.asarray(streams, dtype=np.float64)
    if S.ndim == 1:
        S = S[None]
    return _check_scores(S, allow_2d=True)


@dataclass(frozen=True)
class Tuned:
    """The configuration `select_config` chose for each stream, and its thresholds on that stream."""

    params: list[dict]
    q: np.ndarray  # (streams, T)


def tune_lqt(
    streams,
    *,
    alpha: float,
    lrs,
    biases,
    ps,
    schedule: str = "fixed",
    tol: float = 0.01,
) -> Tuned:
    """Grid search of LQT over lr × bias × p on each stream (1-D, or 2-D of equal-length streams);
    all configurations of all streams run together. Selection rule: `select_config`."""
    alpha = _check_alpha(alpha)
    S = _streams(streams)
    lrs, biases = (
        _check_positive("lrs", lrs).ravel(),
        _check_positive("biases", biases).ravel(),
    )
    factors = _schedule_factors(S.shape[1], _check_schedule(schedule), DECAY)
    grid_lr, grid_b = (a.ravel() for a in np.meshgrid(lrs, biases, indexing="ij"))
    n_cfg, n_s = grid_lr.size, S.shape[0]
    params, losses, covs = [], [], []
    for p in ps:
        p = _check_p(p)
        rows = np.repeat(np.arange(n_s), n_cfg)
        th0 = np.broadcast_to(default_theta0(p), (rows.size, p + 1))
        loss, cov, _, _ = _lqt_numpy(
            S,
            alpha,
            p,
            np.tile(grid_lr, n_s),
            np.tile(grid_b, n_s),
            factors,
            th0,
            None,
            rows=rows,
            metrics_only=True,
        )
        params += [
            {"p": p, "lr": float(grid_lr[c]), "bias": float(grid_b[c])}
            for c in range(n_cfg)
        ]
        losses.append(loss.reshape(n_s, n_cfg))
        covs.append(cov.reshape(n_s, n_cfg))
    losses, covs = np.concatenate(losses, axis=1), np.concatenate(covs, axis=1)
    chosen = [params[_choose(losses[i], covs[i], alpha, tol)] for i in range(n_s)]
    q = np.stack(
        [lqt(S[i], alpha=alpha, **chosen[i], schedule=schedule).q for i in range(n_s)]
    )
    return Tuned(chosen, q)


def tune_sqt(
    streams,
    *,
    alpha: float,
    lrs,
    schedule: str = "fixed",
    q0: float = 1.0,
    tol: float = 0.01,
) -> Tuned:
    """Grid search of SQT's learning rate on each stream (see `tune_lqt`)."""
    alpha = _check_alpha(alpha)
    S = _streams(streams)
    lrs = _check_positive("lrs", lrs).ravel()
    factors = _schedule_factors(S.shape[1], _check_schedule(schedule), DECAY)
    rows = np.repeat(np.arange(S.shape[0]), lrs.size)
    loss, cov, _, _ = _lqt_numpy(
        S,
        alpha,
        0,
        np.tile(lrs, S.shape[0]),
        np.ones(rows.size),
        factors,
        np.full((rows.size, 1), float(q0)),
        None,
        rows=rows,
        metrics_only=True,
    )
    loss, cov = loss.reshape(S.shape[0], -1), cov.reshape(S.shape[0], -1)
    chosen = [
        {"lr": float(lrs[_choose(loss[i], cov[i], alpha, tol)])}
        for i in range(S.shape[0])
    ]
    q = np.stack(
        [
            sqt(S[i], alpha=alpha, lr=c["lr"], schedule=schedule, q0=q0).q
            for i, c in enumerate(chosen)
        ]
    )
    return Tuned(chosen, q)


def tune_aci(streams, *, alpha: float, gammas, tol: float = 0.01) -> Tuned:
    """Grid search of ACI's γ on each stream (see `tune_lqt`)."""
    S = _streams(streams)
    gammas = _check_positive("gammas", gammas).ravel()
    params, best = [], []
    for s in S:
        q = aci(s, alpha=alpha, gamma=gammas)
        k = select_config(s, q, alpha, tol)
        params.append({"gamma": float(gammas[k])})
        best.append(q[k])
    return Tuned(params, np.stack(best))


def tune_pi(
    streams, *, alpha: float, lrs, c_sats, k_is, window: int = 20, tol: float = 0.01
) -> Tuned:
    """Grid search of conformal PI over lr × c_sat × k_i on each stream (see `tune_lqt`). `k_is`
    is one grid for all streams, or one grid per stream (2-D, streams × grid)."""
    alpha = _check_alpha(alpha)
    S = _streams(streams)
    n_s = S.shape[0]
    lrs, c_sats = (
        _check_positive("lrs", lrs).ravel(),
        _check_positive("c_sats", c_sats).ravel(),
    )
    ki = np.asarray(k_is, dtype=np.float64)
    if ki.ndim not in (1, 2) or (ki.ndim == 2 and ki.shape[0] != n_s):
        raise ValueError(
            f"k_is must be one grid (1-D) or one grid per stream ({n_s} rows), got "
            f"shape {ki.shape}"
        )
    ki = np.broadcast_to(ki, (n_s, ki.shape[-1]))
    _check_positive("k_is", ki.ravel())
    g_lr, g_cs, g_j = (
        a.ravel()
        for a in np.meshgrid(lrs, c_sats, np.arange(ki.shape[1]), indexing="ij")
    )
    n_cfg = g_lr.size
    rows = np.repeat(np.arange(n_s), n_cfg)
    ki_k = ki[rows, np.tile(g_j, n_s)]
    loss, cov = _pi_core(
        S,
        rows,
        alpha,
        np.tile(g_lr, n_s),
        np.tile(g_cs, n_s),
        ki_k,
        window,
        0.0,
        metrics_only=True,
    )
    loss, cov = loss.reshape(n_s, n_cfg), cov.reshape(n_s, n_cfg)
    ks = [_choose(loss[i], cov[i], alpha, tol) for i in range(n_s)]
    chosen = [
        {"lr": float(g_lr[k]), "c_sat": float(g_cs[k]), "k_i": float(ki[i, g_j[k]])}
        for i, k in enumerate(ks)
    ]
    q = _pi_core(
        S,
        np.arange(n_s),
        alpha,
        np.array([c["lr"] for c in chosen]),
        np.array([c["c_sat"] for c in chosen]),
        np.array([c["k_i"] for c in chosen]),
        window,
        0.0,
    )
    return Tuned(chosen, q)


@dataclass(frozen=True)
class HACTest:
    """A one-sample t-test of mean(d) = 0 against mean(d) > 0 with a Newey–West standard error."""

    mean: float
    se: float
    t: float
    p_greater: float
    lags: int


def newey_west_test(d, lags: int | None = None) -> HACTest:
    """Test mean(d) > 0 for a dependent series d (e.g. per-round loss differences).

    The standard error is statsmodels' HAC estimate for a regression on a constant: Bartlett kernel
    with `lags` lags (default ⌊4(T/100)^(2/9)⌋), no small-sample correction; normal p-value.
    """
    import statsmodels.api as sm

    d = _check_scores(d)
    T = d.size
    if T < 2:
        raise ValueError(f"d needs at least 2 values, got {T}")
    if lags is None:
        lags = int(math.floor(4 * (T / 100) ** (2 / 9)))
    if (
        isinstance(lags, bool)
        or not isinstance(lags, (int, np.integer))
        or not 0 <= lags < T
    ):
        raise ValueError(f"lags must be an int in [0, {T}), got {lags!r}")
    fit = sm.OLS(d, np.ones(T)).fit(
        cov_type="HAC", cov_kwds={"maxlags": int(lags), "use_correction": False}
    )
    se = float(fit.bse[0])
    mean = float(d.mean())
    if not se > 0:
        t = math.inf if mean > 0 else (-math.inf if mean < 0 else 0.0)
    else:
        t = mean / se
    return HACTest(mean, se, float(t), float(stats.norm.sf(t)), int(lags))


# ----------------------------------------------------------------------------------------------
# data: autoregressions, bounded streams, forecaster residuals
def ar_series(
    coef, T: int, rng: np.random.Generator, *, sigma: float = 1.0, burn_in: int = 1000
) -> np.ndarray:
    """y_t = Σ_j coef_j y_{t−j} + σ ε_t with ε_t ~ N(0, 1), after `burn_in` discarded rounds."""
    c = np.atleast_1d(np.asarray(coef, dtype=np.float64))
    if c.ndim != 1 or c.size == 0 or not np.all(np.isfinite(c)):
        raise ValueError(
            f"coef must be a non-empty 1-D array of finite numbers, got {coef!r}"
        )
    if np.any(np.abs(np.roots(np.r_[1.0, -c])) >= 1):
        raise ValueError(f"coef {c.tolist()} gives a non-stationary autoregression")
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"T must be a positive int, got {T!r}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    eps = sigma * rng.standard_normal(int(T) + int(burn_in))
    return lfilter([1.0], np.r_[1.0, -c], eps)[int(burn_in) :]


def ar_conditional_mean(y, coef) -> np.ndarray:
    """μ_t = Σ_j coef_j y_{t−j} for t = 1..T (NaN where a lag falls before the series)."""
    y = _check_scores(y)
    c = np.atleast_1d(np.asarray(coef, dtype=np.float64))
    mu = np.full(y.size, np.nan)
    k = c.size
    if y.size > k:
        mu[k:] = sum(c[j] * y[k - 1 - j : y.size - 1 - j] for j in range(k))
    return mu


def ar_conditional_coverage(y, q, coef, sigma: float = 1.0) -> np.ndarray:
    """P(y_t ≤ q_t | past) = Φ((q_t − μ_t)/σ) for a Gaussian autoregression (NaN for the first lags)."""
    q = np.asarray(q, dtype=np.float64)
    mu = ar_conditional_mean(y, coef)
    return stats.norm.cdf((q - mu) / sigma)


def ar1_set_size_reduction(phi) -> np.ndarray:
    """1 − √(1 − φ²): how much smaller the conditional (1−α)-quantile of an AR(1) is, on average,
    than its marginal one (and how much lower its pinball loss is), for any α < 1/2."""
    phi = np.asarray(phi, dtype=np.float64)
    if np.any(np.abs(phi) >= 1):
        raise ValueError(f"|phi| must be < 1 for a stationary AR(1), got {phi!r}")
    return 1.0 - np.sqrt(1.0 - phi**2)


def regime_switch_stream(
    T: int, rng: np.random.Generator, *, mean_length: float = 2000.0, bound: float = 1.0
) -> np.ndarray:
    """Bounded scores in [0, bound] whose law switches at random times (geometric run lengths) among
    uniform laws on [0, 0.2], [0.4, 0.6] and [0.8, 1] (times `bound`) and a two-point law {0, 1}."""
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"T must be a positive int, got {T!r}")
    out = np.empty(int(T))
    t = 0
    while t < T:
        n = int(rng.geometric(1.0 / mean_length))
        kind = int(rng.integers(4))
        if kind < 3:
            lo = (0.0, 0.4, 0.8)[kind]
            seg = lo + 0.2 * rng.random(n)
        else:
            seg = (rng.random(n) < 0.5).astype(float)
        out[t : t + n] = bound * seg[: T - t]
        t += n
    return out


def sawtooth_stream(T: int, *, period: int = 1000, bound: float = 1.0) -> np.ndarray:
    """s_t = bound·(t mod period)/period: a slow ramp that drops back to 0."""
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"T must be a positive int, got {T!r}")
    return bound * (np.arange(int(T)) % period) / period


def miss_when_possible(bound: float = 1.0) -> Callable[[int, float], float]:
    """An adversary on [0, bound]: the top score whenever it lies above q_t (a miss), else 0."""
    return lambda t, q: bound if q < bound else 0.0


def delayed_moving_average(y, *, delay: int, window: int) -> np.ndarray:
    """Forecast ŷ_t = mean(y_{t−delay}, …, y_{t−delay+window−1}) for t = delay..T−1."""
    y = _check_scores(y)
    if not (
        isinstance(delay, (int, np.integer))
        and isinstance(window, (int, np.integer))
        and 1 <= window <= delay < y.size
    ):
        raise ValueError(
            f"need 1 ≤ window ≤ delay < len(y); got window={window!r}, "
            f"delay={delay!r}, len(y)={y.size}"
        )
    c = np.r_[0.0, np.cumsum(y)]
    starts = np.arange(y.size - delay)
    return (c[starts + window] - c[starts]) / window


def lag1_autocorrelation(x) -> float:
    """Sample lag-1 autocorrelation."""
    x = _check_scores(x)
    if x.size < 3:
        raise ValueError(f"need at least 3 values, got {x.size}")
    e = x - x.mean()
    return float((e[1:] @ e[:-1]) / (e @ e))


def split_conformal_threshold(calibration, alpha: float) -> float:
    """The split-conformal threshold of a calibration set of n scores: its ⌈(1 − α)(n + 1)⌉-th
    smallest score (the largest when that rank exceeds n). Held fixed, it has no guarantee on a
    stream whose law changes or reacts to it."""
    alpha = _check_alpha(alpha)
    c = np.sort(_check_scores(calibration))
    r = math.ceil((1.0 - alpha) * (c.size + 1))
    return float(c[min(r, c.size) - 1])


def best_constant_gap(scores, alpha: float) -> float:
    """min over every constant threshold q of |mean(s_t > q) − α| on a fixed stream: how close
    the best constant in hindsight comes to miscoverage α (0 when some q reaches it exactly).
    The achievable miscoverages are 1 (q below every score) and #{s > v}/T at each distinct v."""
    alpha = _check_alpha(alpha)
    s = _check_scores(scores)
    _, counts = np.unique(s, return_counts=True)
    miss = np.r_[1.0, 1.0 - np.cumsum(counts) / s.size]
    return float(np.abs(miss - alpha).min())


def minmax_normalise(scores, n_val: int) -> np.ndarray:
    """(s − m)/(M − m) with m, M the smallest and largest of the first `n_val` scores (the
    validation part): one constant shift and scale, known before the test part starts."""
    s = _check_scores(scores)
    if isinstance(n_val, bool) or not isinstance(n_val, (int, np.integer)):
        raise ValueError(f"n_val must be an int, got {n_val!r}")
    if not 2 <= n_val <= s.size:
        raise ValueError(f"n_val must lie in [2, {s.size}], got {n_val!r}")
    lo, hi = float(s[:n_val].min()), float(s[:n_val].max())
    if not hi > lo:
        raise ValueError("the validation part is constant: nothing to normalise by")
    return (s - lo) / (hi - lo)


# ----------------------------------------------------------------------------------------------
# the authors' tuning protocol, and their package side by side
AUTHORS_LR_GRID = tuple(float(x) for x in np.logspace(-5, 5, 11))
"""Learning rates of the authors' experiments."""
AUTHORS_BIAS_GRID = (0.1, 1.0, 5.0, 10.0, 100.0, 200.0, 1000.0)
AUTHORS_P_GRID = (0, 1, 2)
ACI_GAMMAS = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)
"""Our grids for the baselines (see the chapter's deviations)."""
PI_LRS, PI_CSAT, PI_KI = (
    (1e-3, 1e-2, 1e-1, 1.0, 10.0),
    (0.1, 1.0, 5.0, 20.0),
    (10.0, 100.0, 200.0, 1000.0),
)
BASELINES = ("SQT", "ACI", "conformal PI")


@dataclass(frozen=True)
class Comparison:
    """Each method's thresholds on the test part (streams × rounds) and its chosen settings."""

    q: dict
    settings: dict


def tuned_comparison(
    val,
    test,
    *,
    alpha: float,
    lrs=AUTHORS_LR_GRID,
    biases=AUTHORS_BIAS_GRID,
    ps=AUTHORS_P_GRID,
    sqt_lrs=None,
    baselines=BASELINES,
) -> Comparison:
    """The authors' protocol: LQT (fixed steps) tuned on `val` over lrs × biases × ps and run from
    scratch on `test`; each baseline tuned on `test` itself (the lowest pinball loss among the
    settings with coverage within 0.01 of 1 − α), which favours the baselines. `val` and `test` are
    (streams × rounds). SQT searches `sqt_lrs` (default: `lrs`); conformal PI's K_I grid gets each
    test stream's largest |score| added."""
    val, test = _streams(val), _streams(test)
    if val.shape[0] != test.shape[0]:
        raise ValueError(
            f"val and test must hold the same streams, got {val.shape[0]} and "
            f"{test.shape[0]}"
        )
    unknown = set(baselines) - set(BASELINES)
    if unknown:
        raise ValueError(
            f"unknown baseline(s) {sorted(unknown)}; choose from {BASELINES}"
        )
    tuned = tune_lqt(val, alpha=alpha, lrs=lrs, biases=biases, ps=ps)
    q = {
        "LQT": np.stack(
            [lqt(s, alpha=alpha, **c).q for s, c in zip(test, tuned.params)]
        )
    }
    settings = {"LQT": tuned.params}
    ki_extra = np.abs(test).max(axis=1)
    for name in baselines:
        if name == "SQT":
            res = tune_sqt(test, alpha=alpha, lrs=lrs if sqt_lrs is None else sqt_lrs)
        elif name == "ACI":
            res = tune_aci(test, alpha=alpha, gammas=ACI_GAMMAS)
        else:
            res = tune_pi(
                test,
                alpha=alpha,
                lrs=PI_LRS,
                c_sats=PI_CSAT,
                k_is=[list(PI_KI) + [float(x)] for x in ki_extra],
            )
        q[name], settings[name] = res.q, res.params
    return Comparison(q, settings)


def conformalopt_thresholds(
    scores,
    *,
    alpha: float,
    p: int,
    lr: float,
    bias: float = 1.0,
    schedule: str = "fixed",
    scalar: bool = False,
) -> np.ndarray:
    """The thresholds of the authors' package `conformalopt` on `scores`, one predict()/step()
    pair per round as its documentation loop does (never its fit() or eval(), which search grids
    and write files). A fresh `hypers` dict each time: the package's default argument is a shared
    dictionary that its scalar tracker modifies."""
    import conformalopt as oc

    s = _check_scores(scores)
    cp = oc.ConformalPredictor(
        alpha=_check_alpha(alpha),
        lr_type=_check_schedule(schedule),
        quantile_tracker="scalar" if scalar else "linear",
        hypers={"lr": lr, "p_order_qt": _check_p(p), "bias": bias},
    )
    cp.init_active_fields()
    for x in s:
        cp.step(cp.predict(), float(x))
    return np.asarray(cp.get_predictions(), dtype=float)


# ----------------------------------------------------------------------------------------------
# the chapter's protocols: coverage on bounded streams (claim 1), gain against dependence (claim 3)
BOUNDED_STREAMS = ("regime switches", "sawtooth", "adversary")


@dataclass(frozen=True)
class CoverageTrace:
    """One tracker on one stream. `scores` and `q` as played; `E` the running coverage error
    E_t = Σ_{i≤t} (err_i − α) and `C` the running constant C_t = η·max_{i≤t} |E_i| (t = 1..T):
    the smallest C with |miscoverage_i − α| = |E_i|/i ≤ C/(η i) at every i ≤ t."""

    scores: np.ndarray
    q: np.ndarray
    E: np.ndarray
    C: np.ndarray
    marks: np.ndarray | None = None
    # θ_t before each round of `marks`, shape (len(marks), p + 1)
    theta: np.ndarray | None = None

    def miscoverage(self, t: int) -> float:
        """Miscoverage after the first `t` rounds, α + E_t/t."""
        t = _check_round(t, self.E.size)
        return float(np.mean(self.scores[:t] > self.q[:t]))

    def growth(self, t_from: int, t_to: int) -> float:
        """C_{t_to} / C_{t_from}: how much the constant grew between two rounds."""
        a, b = _check_round(t_from, self.C.size), _check_round(t_to, self.C.size)
        return float(self.C[b - 1] / self.C[a - 1])


def _check_round(t, T: int) -> int:
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 1 <= t <= T:
        raise ValueError(f"round must be an int in 1..{T}, got {t!r}")
    return int(t)


def coverage_trace(scores, q, *, alpha: float, lr: float) -> CoverageTrace:
    """E_t and C_t (see `CoverageTrace`) of the thresholds `q` on `scores` with step size `lr`."""
    alpha = _check_alpha(alpha)
    s = _check_scores(scores)
    q = np.asarray(q, dtype=np.float64)
    if q.shape != s.shape:
        raise ValueError(f"q must have the shape of scores {s.shape}, got {q.shape}")
    lr = float(_check_positive("lr", lr))
    E = np.cumsum((s > q) - alpha)
    return CoverageTrace(s, q, E, lr * np.maximum.accumulate(np.abs(E)))


def bounded_stream_runs(
    T: int,
    rng: np.random.Generator,
    *,
    alpha: float,
    lr: float,
    ps=(0, 1, 2),
    bound: float = 1.0,
    period: int = 1000,
    streams=BOUNDED_STREAMS,
    n_cal: int | None = None,
    path_at=None,
) -> dict:
    """Claim 1's protocol: LQT(p) for each p in `ps` (p = 0 is SQT), fixed step `lr`, bias 1, on
    bounded streams in [0, bound] of T rounds: "regime switches" (`regime_switch_stream`, drawn
    once from `rng` and shared by the trackers), "sawtooth" (period `period`) and "adversary"
    (`miss_when_possible`, which answers each tracker's own thresholds). Returns
    {(stream, p): CoverageTrace}, with θ_t recorded before the rounds `path_at` (0-based). `rng`
    is used only for the regime switches.

    With `n_cal`, a comparator without a guarantee is added as {(stream, "split"): ...}: the
    split-conformal threshold of the first `n_cal` rounds, then held fixed; its trace covers the
    T − n_cal rounds after calibration (C computed with step `lr`, for the record). Against the
    adversary the comparator announces 0 during calibration (there is nothing to calibrate on
    yet), and the adversary answers the fixed threshold afterwards."""
    unknown = [x for x in streams if x not in BOUNDED_STREAMS]
    if unknown or not streams:
        raise ValueError(
            f"streams must be a non-empty selection of {BOUNDED_STREAMS}, got {streams!r}"
        )
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    bound = float(_check_positive("bound", bound))
    if n_cal is not None and (
        isinstance(n_cal, bool)
        or not isinstance(n_cal, (int, np.integer))
        or not 1 <= n_cal < T
    ):
        raise ValueError(f"n_cal must be an int in [1, T), got {n_cal!r}")
    marks = _check_path_at(path_at, int(T))
    fixed = {}
    if "regime switches" in streams:
        fixed["regime switches"] = regime_switch_stream(T, rng, bound=bound)
    if "sawtooth" in streams:
        fixed["sawtooth"] = sawtooth_stream(T, period=period, bound=bound)
    out = {}
    for name in streams:
        for p in ps:
            p = _check_p(p)
            if name == "adversary":
                s, r = lqt_against(
                    miss_when_possible(bound), T, alpha=alpha, p=p, lr=lr, path_at=marks
                )
            else:
                s = fixed[name]
                r = lqt(s, alpha=alpha, p=p, lr=lr, path_at=marks)
            tr = coverage_trace(s, r.q, alpha=alpha, lr=lr)
            out[name, p] = dataclasses.replace(tr, marks=marks, theta=r.path)
        if n_cal is not None:
            if name == "adversary":
                adv = miss_when_possible(bound)
                cal = np.array([adv(t, 0.0) for t in range(int(n_cal))])
                qf = split_conformal_threshold(cal, alpha)
                s = np.array([adv(t, qf) for t in range(int(n_cal), int(T))])
            else:
                cal, s = fixed[name][:n_cal], fixed[name][n_cal:]
                qf = split_conformal_threshold(cal, alpha)
            out[name, "split"] = coverage_trace(
                s, np.full(s.size, qf), alpha=alpha, lr=lr
            )
    return out


@dataclass(frozen=True)
class DependenceSweep:
    """Claim 3's results on the test parts, one row per seed and one column per φ.

    `set_size`, `pinball`, `coverage`: {method: (seeds, φ)} mean threshold, mean pinball loss and
    coverage; `oracle_constant`: (seeds, φ) the best constant threshold in hindsight, the empirical
    (1 − α)-quantile of the test part; `settings`: {method: [[setting per φ] per seed]}."""

    phis: np.ndarray
    set_size: dict
    pinball: dict
    coverage: dict
    oracle_constant: np.ndarray
    settings: dict

    def reduction(self, baseline: str, metric: str = "set_size") -> np.ndarray:
        """1 − LQT / baseline per seed and φ, for metric "set_size" or "pinball"; the baseline
        may also be "oracle constant" (set size only)."""
        if metric not in ("set_size", "pinball"):
            raise ValueError(f"metric must be 'set_size' or 'pinball', got {metric!r}")
        table = getattr(self, metric)
        if baseline == "oracle constant":
            if metric != "set_size":
                raise ValueError("the oracle constant is compared on set size only")
            ref = self.oracle_constant
        elif baseline in table and baseline != "LQT":
            ref = table[baseline]
        else:
            raise ValueError(
                f"unknown baseline {baseline!r}; choose from "
                f"{[m for m in table if m != 'LQT'] + ['oracle constant']}"
            )
        return 1.0 - table["LQT"] / ref


def ar1_dependence_sweep(
    phis,
    *,
    T: int,
    rngs,
    alpha: float,
    val_frac: float = 0.25,
    burn_in: int = 1000,
    **comparison,
) -> DependenceSweep:
    """Claim 3's protocol on AR(1) series y_t = φ y_{t−1} + ε_t with signed scores s_t = y_t.

    Each generator in `rngs` is one seed: it draws one sequence of T + burn_in innovations, shared
    by every φ, so that the results at two values of φ are paired on a seed (the same ε; with one
    generator this equals `ar_series([φ], T, rng)` for each φ from a fresh copy of the generator).
    The first `val_frac` of each series is validation, the rest the test part; methods are tuned
    by `tuned_comparison` (LQT on validation, the baselines on the test part itself); extra
    keywords go to it."""
    phis = np.asarray(phis, dtype=np.float64)
    if phis.ndim != 1 or phis.size < 2 or np.any(np.abs(phis) >= 1):
        raise ValueError(f"phis must be ≥ 2 values with |φ| < 1, got {phis!r}")
    rngs = list(rngs)
    if not rngs or not all(isinstance(r, np.random.Generator) for r in rngs):
        raise ValueError("rngs must be a non-empty sequence of numpy Generators")
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 8:
        raise ValueError(f"T must be an int ≥ 8, got {T!r}")
    if not 0.0 < float(val_frac) < 1.0:
        raise ValueError(f"val_frac must lie in (0, 1), got {val_frac!r}")
    n_val = int(val_frac * T)
    if not 2 <= n_val <= T - 2:
        raise ValueError(f"val_frac={val_frac!r} leaves too few rounds of T={T}")
    eps = np.stack([r.standard_normal(int(T) + int(burn_in)) for r in rngs])
    Y = np.stack(
        [lfilter([1.0], [1.0, -phi], e)[int(burn_in) :] for e in eps for phi in phis]
    )
    val, test = Y[:, :n_val], Y[:, n_val:]
    cmp = tuned_comparison(val, test, alpha=alpha, **comparison)
    shape = (len(rngs), phis.size)
    set_size, pinball, cov = {}, {}, {}
    for name, q in cmp.q.items():
        set_size[name] = q.mean(axis=1).reshape(shape)
        pinball[name] = np.array(
            [pinball_loss(s, qq, alpha).mean() for s, qq in zip(test, q)]
        ).reshape(shape)
        cov[name] = np.array([coverage(s, qq) for s, qq in zip(test, q)]).reshape(shape)
    oracle = np.quantile(test, 1 - alpha, axis=1).reshape(shape)
    settings = {
        name: [list(sets[i * phis.size : (i + 1) * phis.size]) for i in range(shape[0])]
        for name, sets in cmp.settings.items()
    }
    return DependenceSweep(phis, set_size, pinball, cov, oracle, settings)


def paired_steps(x) -> np.ndarray:
    """x[:, j+1] − x[:, j] for a (seeds, steps) array: each seed's change from one step to the
    next, the paired differences a "grows with" claim is judged on."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] < 2:
        raise ValueError(f"need a (seeds, ≥ 2 steps) array, got shape {x.shape}")
    return np.diff(x, axis=1)


@dataclass(frozen=True)
class SeriesComparison:
    """Claim 4's protocol on one real series: `test` the test part of the (normalised) scores;
    per method, `q` its thresholds on it, `settings` what tuning chose, `loss` the mean pinball
    loss, `coverage` and `set_size` (mean threshold); `hac[b]` the one-sided HAC test of
    loss(b) − loss(LQT) > 0 per round. `scale` is (shift, divisor) of the normalisation."""

    test: np.ndarray
    q: dict
    settings: dict
    loss: dict
    coverage: dict
    set_size: dict
    hac: dict
    scale: tuple

    @property
    def baselines(self) -> list:
        return [m for m in self.q if m != "LQT"]

    @property
    def best_baseline(self) -> str:
        """The baseline with the lowest mean pinball loss on the test part."""
        return min(self.baselines, key=lambda b: self.loss[b])

    def gain(self, baseline: str | None = None) -> float:
        """1 − loss(LQT)/loss(baseline), the best baseline by default."""
        b = self.best_baseline if baseline is None else baseline
        if b not in self.baselines:
            raise ValueError(f"unknown baseline {b!r}; choose from {self.baselines}")
        return 1.0 - self.loss["LQT"] / self.loss[b]


def series_comparison(
    scores,
    *,
    val_frac: float,
    alpha: float,
    normalise: bool = True,
    hac_lags: int | None = None,
    **comparison,
) -> SeriesComparison:
    """Claim 4's protocol on one series of scores: the first `val_frac` is validation, the rest
    the test part; with `normalise`, the scores are min-max normalised by the validation part
    (`minmax_normalise`); then `tuned_comparison` (extra keywords go to it) and, against each
    baseline, a HAC test of the per-round loss differences (`newey_west_test` with `hac_lags`
    lags; None: its default rule)."""
    s = _check_scores(scores)
    if not 0.0 < float(val_frac) < 1.0:
        raise ValueError(f"val_frac must lie in (0, 1), got {val_frac!r}")
    n_v = int(val_frac * s.size)
    if not 2 <= n_v <= s.size - 2:
        raise ValueError(f"val_frac={val_frac!r} leaves too few of {s.size} scores")
    if normalise:
        lo, hi = float(s[:n_v].min()), float(s[:n_v].max())
        s = minmax_normalise(s, n_v)
        scale = (lo, hi - lo)
    else:
        scale = (0.0, 1.0)
    test = s[n_v:]
    cmp = tuned_comparison(s[None, :n_v], test[None], alpha=alpha, **comparison)
    q = {k: v[0] for k, v in cmp.q.items()}
    per_round = {k: pinball_loss(test, v, alpha) for k, v in q.items()}
    return SeriesComparison(
        test=test,
        q=q,
        settings={k: v[0] for k, v in cmp.settings.items()},
        loss={k: float(v.mean()) for k, v in per_round.items()},
        coverage={k: coverage(test, v) for k, v in q.items()},
        set_size={k: float(v.mean()) for k, v in q.items()},
        hac={
            k: newey_west_test(per_round[k] - per_round["LQT"], lags=hac_lags)
            for k in q
            if k != "LQT"
        },
        scale=scale,
    )

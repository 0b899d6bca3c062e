"""The baselines: adaptive conformal inference (ACI) and conformal PI control."""

from __future__ import annotations

import math

import numpy as np

from repbook.core import checks

from .tracking import _Accumulator, _check_alpha, _check_positive, _check_scores


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
    checks.integer("window", window, at_least=1)
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

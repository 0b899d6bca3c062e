"""The authors' tuning protocol (their grids; LQT tuned on validation, the baselines on the test
part) and their package `conformalopt` run side by side."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .tracking import _check_alpha, _check_p, _check_schedule, _check_scores, lqt
from .tuning import _streams, tune_aci, tune_lqt, tune_pi, tune_sqt

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


PEER_COLUMNS = ["stream and method", "rounds", "max |Δq|"]


def peer_agreement(cases, *, alpha: float, rows=()) -> pd.DataFrame:
    """Check 6: for each case (label, scores, settings), the largest |Δq| between our `lqt` and
    `conformalopt_thresholds` with those settings (p, lr, and optionally bias, schedule and
    `scalar`, conformalopt's scalar tracker for SQT), after the given `rows` (label, rounds,
    max |Δq|). Returns the table (label, rounds, max |Δq|)."""
    out = list(rows)
    for label, s, kw in cases:
        kw = dict(kw)
        scalar = kw.pop("scalar", False)
        ref = conformalopt_thresholds(s, alpha=alpha, scalar=scalar, **kw)
        mine = lqt(s, alpha=alpha, **kw).q
        out.append((label, s.size, np.abs(mine - ref).max()))
    return pd.DataFrame(out, columns=PEER_COLUMNS)


def peer_cases(short, regime, test, tuned: dict) -> list:
    """Check 6's cases (label, scores, settings): decaying LQT(2) and SQT with fixed and
    decaying steps on `short` (an AR(2) stream), LQT(1) on `regime` (regime switches), and the
    `tuned` LQT settings on `test` (the electricity test part)."""
    return [
        ("AR(2), LQT(2) decaying η = 1", short, dict(p=2, lr=1.0, schedule="decaying")),
        ("AR(2), SQT fixed η = 0.05", short, dict(p=0, lr=0.05, scalar=True)),
        (
            "AR(2), SQT decaying η = 1",
            short,
            dict(p=0, lr=1.0, schedule="decaying", scalar=True),
        ),
        ("regime switches, LQT(1) η = 0.05", regime, dict(p=1, lr=0.05)),
        (
            "electricity test part (normalised), tuned LQT",
            test,
            dict(**tuned, schedule="fixed"),
        ),
    ]


@dataclass(frozen=True)
class PeerRun:
    """One stream run by our `lqt` and by `conformalopt`: the largest |Δq| and each's
    seconds."""

    max_dq: float
    seconds_ours: float
    seconds_theirs: float

    def timing_line(self, rounds: int) -> str:
        """Both run times and their ratio (load-dependent: print it where references do not
        compare)."""
        ours, theirs = self.seconds_ours, self.seconds_theirs
        faster = "faster" if ours < theirs else "not faster"
        return (
            f"{rounds:,} rounds of LQT(2): ours {ours:.2f} s, conformalopt {theirs:.2f} s; "
            f"time ratio ours/theirs = {ours / theirs:.3f} (ours {faster} on this machine, "
            "this run)"
        )


def timed_peer(scores, *, alpha: float, p: int, lr: float) -> PeerRun:
    """LQT(p) with a fixed step on `scores`, by `conformalopt_thresholds` then by `lqt`, each
    timed (wall clock; load-dependent)."""
    import time

    t0 = time.perf_counter()
    theirs = conformalopt_thresholds(scores, alpha=alpha, p=p, lr=lr)
    t_theirs, t0 = time.perf_counter() - t0, time.perf_counter()
    ours = lqt(scores, alpha=alpha, p=p, lr=lr).q
    t_ours = time.perf_counter() - t0
    return PeerRun(np.abs(ours - theirs).max(), t_ours, t_theirs)

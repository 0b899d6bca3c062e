"""Claim 1's protocol: coverage of the trackers on bounded streams (regime switches, a sawtooth,
an adversary), the running constant C_t, and the tables and values the chapter reads."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from repbook.core import checks

from .data import (
    best_constant_gap,
    miss_when_possible,
    regime_switch_stream,
    sawtooth_stream,
    split_conformal_threshold,
)
from .tracking import (
    _check_alpha,
    _check_p,
    _check_path_at,
    _check_positive,
    _check_scores,
    lqt,
    lqt_against,
)

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
    return checks.integer("round", t, at_least=1, at_most=T)


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
    checks.generator("rng", rng)
    bound = float(_check_positive("bound", bound))
    if n_cal is not None:
        checks.integer("n_cal", n_cal, at_least=1, at_most=T - 1)
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


# -- what the chapter reads from the runs ------------------------------------------------------
def best_constant_gaps(runs: dict, *, alpha: float, bound: float = 1.0) -> dict:
    """Context for claim 1: how close the best constant threshold in hindsight comes to
    miscoverage α, on the regime switches (over every constant, `best_constant_gap`) and
    against the adversary (which answers a constant below `bound` with `bound` and any other
    with 0, so only q = 0 and q = bound need checking)."""
    answer = miss_when_possible(bound)
    return {
        "regime switches": best_constant_gap(runs["regime switches", 0].scores, alpha),
        "adversary": min(abs(float(answer(0, q) > q) - alpha) for q in (0.0, bound)),
    }


def coverage_table(
    runs: dict, trackers: Mapping[str, int], checkpoints, *, alpha: float, n_cal: int
) -> pd.DataFrame:
    """Claim 1's table: per stream and tracker, |miscoverage − α| and C at each checkpoint and
    ‖θ‖ at the last; per stream, the split-conformal comparator's |miscoverage − α| over the
    rounds after its calibration (on `n_cal` rounds)."""
    last = checkpoints[-1]
    rows = []
    for sname in BOUNDED_STREAMS:
        for tname, p in trackers.items():
            tr = runs[sname, p]
            row = {"stream": sname, "method": tname}
            for T in checkpoints:
                row[f"|miscov − α| @{T:,}"] = abs(tr.miscoverage(T) - alpha)
            for T in checkpoints:
                row[f"C @{T:,}"] = tr.C[T - 1]
            row[f"‖θ‖ @{last:,}"] = float(np.linalg.norm(tr.theta[-1]))
            rows.append(row)
        sp = runs[sname, "split"]
        rows.append(
            {
                "stream": sname,
                "method": f"split conformal ({n_cal:,})",
                f"|miscov − α| @{last:,}": abs(sp.miscoverage(sp.E.size) - alpha),
            }
        )
    return pd.DataFrame(rows)


def regime_switch_seeds(
    runs: dict,
    seeds,
    *,
    seed: int,
    T: int,
    trackers: Mapping[str, int],
    rng_for: Callable,
    **kwargs,
) -> dict:
    """The regime-switch runs on every seed of `seeds`: {seed: {tracker: CoverageTrace}}. The
    run's own `seed` reuses `runs`; each other seed s runs `bounded_stream_runs` on the regime
    switches alone with the generator `rng_for(s)` (the one that seed's chapter run used);
    `kwargs` (alpha, lr, ps, bound, path_at) go to it."""
    checks.function("rng_for", rng_for, "a callable seed → numpy Generator")
    out = {}
    for sd in seeds:
        rr = (
            runs
            if sd == seed
            else bounded_stream_runs(
                T, rng_for(sd), streams=["regime switches"], **kwargs
            )
        )
        out[sd] = {t: rr["regime switches", p] for t, p in trackers.items()}
    return out


def growth_table(per_seed: dict, checkpoints, *, alpha: float) -> pd.DataFrame:
    """One row per seed of `regime_switch_seeds`: each tracker's growth of C between
    consecutive checkpoints and its |miscoverage − α| at the last."""
    last = checkpoints[-1]
    return pd.DataFrame(
        {
            sd: {
                **{
                    f"{t}: C({b:,})/C({a:,})": tr.growth(a, b)
                    for t, tr in d.items()
                    for a, b in zip(checkpoints, checkpoints[1:])
                },
                **{
                    f"{t}: |miscov − α| @{last:,}": abs(tr.miscoverage(last) - alpha)
                    for t, tr in d.items()
                },
            }
            for sd, d in per_seed.items()
        }
    ).T.rename_axis("seed")


@dataclass(frozen=True)
class Claim1Values:
    """The values claim 1 and its checks are judged on (see `claim1_values`)."""

    dev_at: dict  # {checkpoint: {"stream, tracker": |miscoverage − α|}} on the judged streams
    split_dev: dict  # {stream: the comparator's |miscoverage − α| after calibration}
    split_q: dict  # {stream: the comparator's fixed threshold}
    sqt_C: dict  # {"stream @checkpoint": SQT's C_t} on every stream
    growth_a: dict  # {"seed s, tracker" or "stream, tracker": C(cp₂)/C(cp₁)}
    growth_b: dict  # the same for C(cp₃)/C(cp₂)
    max_theta: float  # the largest ‖θ‖ at the end of the regime switches, over seeds
    bias_move: dict  # {"stream, tracker": |θ^(b)_{T+1} − θ^(b)_1| = η·b·|E_T|} (judged)


def claim1_values(
    runs: dict,
    per_seed: dict,
    trackers: Mapping[str, int],
    checkpoints,
    judged,
    *,
    alpha: float,
    lr: float = 0.05,
    bias: float = 1.0,
) -> Claim1Values:
    """Claim 1's values from `bounded_stream_runs` (with the comparator) and
    `regime_switch_seeds`, at three `checkpoints` (the growth of C is read between them on
    every seed of the regime switches, and on the sawtooth and the adversary)."""
    if len(checkpoints) != 3:
        raise ValueError(f"checkpoints must hold 3 rounds, got {list(checkpoints)!r}")
    cps, last = list(checkpoints), checkpoints[-1]
    dev_at = {
        T: {
            f"{s}, {t}": abs(runs[s, p].miscoverage(T) - alpha)
            for s in judged
            for t, p in trackers.items()
        }
        for T in cps
    }
    split = {s: runs[s, "split"] for s in judged}
    growth_a = {
        f"seed {sd}, {t}": tr.growth(cps[0], cps[1])
        for sd, d in per_seed.items()
        for t, tr in d.items()
    }
    growth_b = {
        f"seed {sd}, {t}": tr.growth(cps[1], cps[2])
        for sd, d in per_seed.items()
        for t, tr in d.items()
    }
    for s in ["sawtooth", "adversary"]:
        for t, p in trackers.items():
            growth_a[f"{s}, {t}"] = runs[s, p].growth(cps[0], cps[1])
            growth_b[f"{s}, {t}"] = runs[s, p].growth(cps[1], cps[2])
    return Claim1Values(
        dev_at=dev_at,
        split_dev={
            s: abs(sp.miscoverage(sp.E.size) - alpha) for s, sp in split.items()
        },
        split_q={s: float(sp.q[0]) for s, sp in split.items()},
        sqt_C={
            f"{s} @{T:,}": runs[s, 0].C[T - 1] for s in BOUNDED_STREAMS for T in cps
        },
        growth_a=growth_a,
        growth_b=growth_b,
        max_theta=max(
            float(np.linalg.norm(tr.theta[-1]))
            for d in per_seed.values()
            for tr in d.values()
        ),
        bias_move={
            f"{s}, {t}": lr * bias * abs(runs[s, p].E[last - 1])
            for s in judged
            for t, p in trackers.items()
        },
    )


def claim1_reading(
    values: Claim1Values,
    verdict: str,
    *,
    bar: float,
    lr: float,
    bound: float,
    best_const: dict,
) -> str:
    """The sentence that reads claim 1: the largest error against the bar, the largest move of
    a bias coordinate against the move at which the bar would fail, the gate's comparator, the
    best constant, and the runs where diagnostic 1d's C more than doubled."""
    last = max(values.dev_at)
    dev = values.dev_at[last]
    worst = max(dev, key=dev.get)
    moves = values.bias_move
    worst_move = max(moves, key=moves.get)
    fails = sorted(
        {k for g in (values.growth_a, values.growth_b) for k, v in g.items() if v > 2}
    )
    judged = list(values.split_q)
    full_set = [s for s in judged if values.split_q[s] >= bound]
    return (
        f"Claim 1 ({verdict}): after {last:,} rounds the largest |miscoverage − α| of the "
        f"trackers is {dev[worst]:.2e} ({worst}), against the bar {bar:.4f}. By the "
        f"identity, the largest move of a bias coordinate is {moves[worst_move]:.3f} "
        f"({worst_move}); the bar fails only at a move of {bar * lr * 1.0 * last:.0f}: "
        + (
            "θ stayed bounded, the theorem's condition. "
            if moves[worst_move] < bar * lr * last
            else "a bias coordinate drifted beyond it. "
        )
        + "Gate (stream design): the fixed split-conformal threshold misses α by "
        + ", ".join(
            f"{values.split_dev[k]:.3f} on the {k} (threshold {values.split_q[k]:.3f})"
            for k in judged
        )
        + (
            f"; it is the full set (threshold B) on the {' and the '.join(full_set)}"
            if full_set
            else ""
        )
        + "; the best constant in hindsight misses α by "
        + ", ".join(f"{v:.3f} on the {k}" for k, v in best_const.items())
        + ". Diagnostic 1d: C more than doubles between checkpoints for "
        + (", ".join(fails) if fails else "no tracker, stream or seed")
        + "."
    )


def old_bar_line(values: Claim1Values, *, bar: float, lr: float) -> str:
    """For the Deviations: claim 1's worst error at the last checkpoint against the old bar
    0.01 and the new `bar`, with the bias-coordinate move at which each fails."""
    last = max(values.dev_at)
    worst = max(values.dev_at[last].values())
    return (
        f"Claim 1: the worst |miscoverage − α| at {last:,} rounds is {worst:.2e}; the old "
        f"bar 0.01 is {0.01 / max(worst, 1e-12):.0f} times that and failed only at a "
        f"bias-coordinate move of {0.01 * lr * last:.0f}; the new bar {bar:.4f} fails at "
        f"{bar * lr * last:.0f}."
    )


def table_text(table: pd.DataFrame, **to_string) -> str:
    """A table as the chapter prints it: floats to 4 significant digits, 150 columns wide."""
    with pd.option_context(
        "display.float_format", "{:.4g}".format, "display.width", 150
    ):
        return table.to_string(**to_string)


def error_curves(
    runs: dict, trackers: Mapping[str, int], judged, rounds, *, n_cal: int
) -> dict:
    """For the figure: {stream: {tracker or "split": (t, |E_t|/t + 1e-7)}} at `rounds` on the
    judged streams, the comparator's after its `n_cal` calibration rounds."""
    rounds = np.asarray(rounds)
    out = {}
    for sname in judged:
        curves = {}
        for tname, p in trackers.items():
            E = runs[sname, p].E
            curves[tname] = (rounds, np.abs(E[rounds - 1]) / rounds + 1e-7)
        sp = runs[sname, "split"]
        tt = rounds[rounds <= sp.E.size]
        curves["split"] = (tt + n_cal, np.abs(sp.E[tt - 1]) / tt + 1e-7)
        out[sname] = curves
    return out


@dataclass(frozen=True)
class BoundedCoverage:
    """Claim 1's runs and what the chapter reads from them (see `bounded_coverage`)."""

    runs: dict
    per_seed: dict
    values: Claim1Values
    best_const: dict
    table: pd.DataFrame
    seed_table: pd.DataFrame
    curves: dict


def bounded_coverage(
    T: int,
    rng: np.random.Generator,
    *,
    trackers: Mapping[str, int],
    checkpoints,
    judged,
    alpha: float,
    lr: float,
    bound: float,
    n_cal: int,
    seeds,
    seed: int,
    rng_for: Callable,
    path_at,
    rounds,
) -> BoundedCoverage:
    """Claim 1's protocol: `bounded_stream_runs` (with the comparator calibrated on `n_cal`
    rounds) for the `trackers` ({name: p}); the regime switches again on every seed of
    `seeds` (`regime_switch_seeds`); the values (`claim1_values`), the best constant in
    hindsight (`best_constant_gaps`), the two tables and, for the figure, the error curves
    at `rounds` (`error_curves`)."""
    kw = dict(
        alpha=alpha, lr=lr, ps=list(trackers.values()), bound=bound, path_at=path_at
    )
    runs = bounded_stream_runs(T, rng, n_cal=n_cal, **kw)
    per_seed = regime_switch_seeds(
        runs, seeds, seed=seed, T=T, trackers=trackers, rng_for=rng_for, **kw
    )
    return BoundedCoverage(
        runs=runs,
        per_seed=per_seed,
        values=claim1_values(
            runs, per_seed, trackers, checkpoints, judged, alpha=alpha, lr=lr
        ),  # fmt: skip
        best_const=best_constant_gaps(runs, alpha=alpha, bound=bound),
        table=coverage_table(runs, trackers, checkpoints, alpha=alpha, n_cal=n_cal),
        seed_table=growth_table(per_seed, checkpoints, alpha=alpha),
        curves=error_curves(runs, trackers, judged, rounds, n_cal=n_cal),
    )

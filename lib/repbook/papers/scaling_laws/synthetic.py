"""Estimating scaling laws (Choshen, Zhang & Andreas, ICML 2025, arXiv 2410.11840).

The law is Chinchilla's L(N, D) = E + A / N^α + B / D^β, for a model of N parameters after D training
tokens. It is fitted in log space with a Huber loss and several starting points; predictions are
judged by the absolute relative error (ARE) on the final loss of a held-out target model.

Training curves are pandas DataFrames with one row per checkpoint and the columns
``family, N, seed, step, D, frac, loss`` (``frac`` = step / total steps of that run).

The synthetic families of the chapter's controlled demonstration come from
`teacher_student_family`: linear regression on Gaussian features with a power-law spectrum, a
model of size N using the first N features, trained by one-pass minibatch SGD; its population loss
is exact (numpy, seconds on a CPU). No printing, plotting or file writing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.optimize import least_squares

from repbook.core import checks

COLUMNS = ["family", "N", "seed", "step", "D", "frac", "loss"]
PARAMS = ("E", "A", "alpha", "B", "beta")


# ----------------------------------------------------------------------------------------------
# the law and its fit
def chinchilla(N, D, E, A, alpha, B, beta):
    """L(N, D) = E + A/N^α + B/D^β."""
    N, D = np.asarray(N, dtype=np.float64), np.asarray(D, dtype=np.float64)
    return E + A / N**alpha + B / D**beta


@dataclass(frozen=True)
class ScalingFit:
    E: float
    A: float
    alpha: float
    B: float
    beta: float
    cost: float  # final Huber objective
    n_points: int
    fixed: dict = field(default_factory=dict)

    def predict(self, N, D):
        return chinchilla(N, D, self.E, self.A, self.alpha, self.B, self.beta)

    def params(self) -> dict:
        return {k: getattr(self, k) for k in PARAMS}


def _check_points(N, D, L):
    N, D, L = (np.asarray(x, dtype=np.float64).ravel() for x in (N, D, L))
    if not (N.size == D.size == L.size):
        raise ValueError(
            f"N, D and loss must have one length, got {N.size}, {D.size}, {L.size}"
        )
    for name, x in (("N", N), ("D", D), ("loss", L)):
        if not np.all(np.isfinite(x)):
            raise ValueError(f"{name} contains NaN or infinite values")
        if np.any(x <= 0):
            raise ValueError(
                f"{name} must be positive (a log-space fit), got min {x.min()!r}"
            )
    return N, D, L


def fit_scaling_law(
    N,
    D,
    loss,
    *,
    fixed: dict | None = None,
    huber_delta: float = 1e-3,
    exponent_inits=(0.3, 1.0),
) -> ScalingFit:
    """Fit E, A, α, B, β (minus those in `fixed`) to losses at (N, D) points.

    Residuals are log L̂ − log L with L̂ = E + A N^−α + B D^−β computed as a log-sum-exp of
    (ln E, ln A − α ln N, ln B − β ln D); the Huber loss has threshold `huber_delta`. Every pair of
    exponent starting values in `exponent_inits` is tried and the lowest objective kept. Bounds:
    α, β in [0, 3]; E below the smallest observed loss.
    """
    N, D, L = _check_points(N, D, loss)
    fixed = dict(fixed or {})
    unknown = set(fixed) - set(PARAMS)
    if unknown:
        raise ValueError(f"fixed may only name {PARAMS}, got {sorted(unknown)}")
    free = [p for p in PARAMS if p not in fixed]
    if L.size < len(free):
        raise ValueError(
            f"need at least {len(free)} points to fit {free}, got {L.size}"
        )
    if not free:
        raise ValueError("every parameter is fixed: nothing to fit")
    logN, logD, logL = np.log(N), np.log(D), np.log(L)

    def unpack(theta):
        vals = dict(zip(free, theta))
        out = {}
        for p in PARAMS:
            if p in vals:
                out[p] = vals[p]
            else:  # fixed values are given on their natural scale; E, A, B are fitted as logs
                out[p] = np.log(fixed[p]) if p in ("E", "A", "B") else fixed[p]
        return out

    def terms(theta):
        q = unpack(theta)
        return np.stack(
            [
                np.full_like(logN, q["E"]),
                q["A"] - q["alpha"] * logN,
                q["B"] - q["beta"] * logD,
            ]
        )

    def residuals(theta):
        t = terms(theta)
        m = t.max(axis=0)
        return m + np.log(np.exp(t - m).sum(axis=0)) - logL

    def jacobian(theta):
        t = terms(theta)
        w = np.exp(t - t.max(axis=0))
        w /= w.sum(axis=0)  # softmax weights of the three terms
        cols = {
            "E": w[0],
            "A": w[1],
            "alpha": -w[1] * logN,
            "B": w[2],
            "beta": -w[2] * logD,
        }
        return np.stack([cols[p] for p in free], axis=1)

    lo = {"E": -30.0, "A": -30.0, "alpha": 0.0, "B": -30.0, "beta": 0.0}
    hi = {"E": float(logL.min()), "A": 40.0, "alpha": 3.0, "B": 40.0, "beta": 3.0}
    best = None
    for a0 in exponent_inits:
        for b0 in exponent_inits:
            start = {
                "E": float(logL.min()) - 1.0,
                "A": float(np.median(logL) + a0 * logN.mean()),
                "alpha": a0,
                "B": float(np.median(logL) + b0 * logD.mean()),
                "beta": b0,
            }
            x0 = np.array([np.clip(start[p], lo[p] + 1e-9, hi[p] - 1e-9) for p in free])
            res = least_squares(
                residuals,
                x0,
                jac=jacobian,
                loss="huber",
                f_scale=huber_delta,
                bounds=([lo[p] for p in free], [hi[p] for p in free]),
                x_scale="jac",
                max_nfev=2000,
            )
            if best is None or res.cost < best.cost:
                best = res
    q = unpack(best.x)
    natural = {
        p: float(fixed[p])
        if p in fixed
        else float(np.exp(q[p]) if p in ("E", "A", "B") else q[p])
        for p in PARAMS
    }
    return ScalingFit(
        **natural, cost=float(best.cost), n_points=int(L.size), fixed=fixed
    )


def are(predicted, actual) -> np.ndarray | float:
    """Absolute relative error |predicted − actual| / actual."""
    p, a = np.asarray(predicted, dtype=np.float64), np.asarray(actual, dtype=np.float64)
    if np.any(a <= 0):
        raise ValueError("actual losses must be positive")
    out = np.abs(p - a) / a
    return float(out) if out.ndim == 0 else out


# ----------------------------------------------------------------------------------------------
# protocols
def _check_curves(curves: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in COLUMNS if c not in curves.columns]
    if missing:
        raise ValueError(f"curves lack column(s) {missing}; expected {COLUMNS}")
    return curves


def select(
    curves: pd.DataFrame,
    *,
    max_N: float | None = None,
    seeds=None,
    final_only: bool = False,
    min_frac: float = 0.0,
    max_frac: float = 1.0,
) -> pd.DataFrame:
    """The checkpoints a fit may use: models up to `max_N`, of the given seeds, either only each
    run's final checkpoint or those with `min_frac` < frac ≤ `max_frac` (min_frac = 0.1 drops the
    first 10 % of training)."""
    c = _check_curves(curves)
    if not 0.0 <= min_frac < max_frac <= 1.0:
        raise ValueError(
            f"need 0 ≤ min_frac < max_frac ≤ 1, got {min_frac}, {max_frac}"
        )
    if max_N is not None:
        c = c[c.N <= max_N]
    if seeds is not None:
        c = c[c.seed.isin(list(seeds))]
    if final_only:
        return c[c.frac == 1.0]
    return c[(c.frac > min_frac) & (c.frac <= max_frac)]


def fit_curves(points: pd.DataFrame, **kwargs) -> ScalingFit:
    """`fit_scaling_law` on the N, D and loss columns of selected checkpoints."""
    if len(points) == 0:
        raise ValueError("no checkpoints selected to fit")
    return fit_scaling_law(
        points.N.to_numpy(), points.D.to_numpy(), points.loss.to_numpy(), **kwargs
    )


FINAL_ONLY_FIXED = {"B": 1e-30, "beta": 1.0}
"""A final-only fit sees one D for all models, so B/D^β is a constant that E absorbs: the law is
fitted as E + A/N^α (three parameters) by fixing the data term to nothing."""


def fit_final_only(points: pd.DataFrame, **kwargs) -> ScalingFit:
    """Fit E + A/N^α to final losses that share one D (B and β are not identifiable there)."""
    finals = points[points.frac == 1.0]
    if finals.D.nunique() > 1:
        raise ValueError("fit_final_only expects final checkpoints that share one D")
    return fit_curves(
        finals, fixed={**FINAL_ONLY_FIXED, **kwargs.pop("fixed", {})}, **kwargs
    )


PROTOCOLS = {
    "all checkpoints": lambda pts, **kw: fit_curves(pts, **kw),
    "final only": lambda pts, **kw: fit_final_only(pts, **kw),
    "after 10 %": lambda pts, **kw: fit_curves(select(pts, min_frac=0.1), **kw),
}
"""The fitting protocols compared in the chapter: every checkpoint, final losses only, and every
checkpoint after the first 10 % of training."""


def _protocol_are(
    name: str,
    pts: pd.DataFrame,
    target_N,
    D_target: float,
    actual: float,
    fit_kwargs: dict | None = None,
) -> tuple[int, float]:
    f = PROTOCOLS[name](pts, **(fit_kwargs or {}))
    return f.n_points, are(f.predict(target_N, D_target), actual)


def protocol_errors(
    curves: pd.DataFrame,
    *,
    target_N,
    D_target: float,
    max_sizes,
    seeds,
    protocols=tuple(PROTOCOLS),
    n_jobs: int = 1,
    fit_kwargs: dict | None = None,
) -> pd.DataFrame:
    """ARE of each protocol fitted on the models up to m (one seed at a time), predicting that
    seed's target final loss; one row per (m, seed, protocol). `fit_kwargs` go to
    `fit_scaling_law` (e.g. `exponent_inits`). The fits are independent and deterministic:
    `n_jobs` > 1 runs them in that many worker processes, with the same results."""
    unknown = [p for p in protocols if p not in PROTOCOLS]
    if unknown:
        raise ValueError(
            f"unknown protocol(s) {unknown}; choose from {list(PROTOCOLS)}"
        )
    checks.integer("n_jobs", n_jobs, at_least=1)
    keys, tasks = [], []
    for m in max_sizes:
        for s in seeds:
            actual = final_loss(curves, target_N, s)
            pts = select(curves, max_N=m, seeds=[s])
            for name in protocols:
                keys.append((m, s, name))
                tasks.append((name, pts, target_N, D_target, actual, fit_kwargs))
    if n_jobs == 1:
        results = [_protocol_are(*t) for t in tasks]
    else:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=n_jobs, backend="loky", inner_max_num_threads=1)(
            delayed(_protocol_are)(*t) for t in tasks
        )
    return pd.DataFrame(
        [
            dict(m=m, seed=s, protocol=name, n_points=n, are=e)
            for (m, s, name), (n, e) in zip(keys, results)
        ]
    )


def final_loss(curves: pd.DataFrame, N, seed) -> float:
    row = curves[(curves.N == N) & (curves.seed == seed) & (curves.frac == 1.0)]
    if len(row) != 1:
        raise ValueError(f"no unique final checkpoint for N={N}, seed={seed}")
    return float(row.loss.iloc[0])


def compute_cost(curves: pd.DataFrame) -> float:
    """Training compute of the runs in `curves`, ∝ Σ N · D_final (the usual 6ND up to a constant)."""
    finals = _check_curves(curves).groupby(["N", "seed"]).D.max()
    return float(sum(n * d for (n, _), d in finals.items()))


# ----------------------------------------------------------------------------------------------
# model family 1: teacher–student linear regression (numpy)
@dataclass(frozen=True)
class TeacherStudent:
    """x ~ N(0, diag(k^−spectrum)), k = 1..K; y = x·w* + noise with w*_k = k^−teacher.

    A model of size N regresses y on the first N features. Its population loss is
    ½[Σ_{k≤N} λ_k (w*_k − w_k)² + Σ_{k>N} λ_k w*_k² + σ²], computed exactly at every checkpoint.
    """

    K: int = 1024
    spectrum: float = 1.3
    teacher: float = 0.5
    noise: float = 0.1

    def __post_init__(self):
        if self.K < 2 or self.spectrum <= 0 or self.noise < 0:
            raise ValueError(f"bad teacher–student settings: {self}")

    @property
    def lam(self) -> np.ndarray:
        return np.arange(1, self.K + 1, dtype=np.float64) ** -self.spectrum

    @property
    def w_star(self) -> np.ndarray:
        return np.arange(1, self.K + 1, dtype=np.float64) ** -self.teacher

    def tail(self, N: int) -> float:
        return float(self.lam[N:] @ self.w_star[N:] ** 2)

    def loss(self, N: int, w: np.ndarray) -> np.ndarray:
        """Population loss of weights w (…, N)."""
        lam, ws = self.lam[:N], self.w_star[:N]
        return 0.5 * (((ws - w) ** 2) @ lam + self.tail(N) + self.noise**2)


def lr_schedule(
    steps: int, lr: float, warmup_frac: float = 0.0, decay: str = "constant"
) -> np.ndarray:
    """Per-step learning rates: linear warm-up over `warmup_frac` of the steps, then constant or
    cosine decay to zero."""
    checks.integer("steps", steps, at_least=1)
    checks.number("lr", lr, above=0.0)
    checks.number("warmup_frac", warmup_frac, at_least=0.0, below=1.0)
    checks.one_of("decay", decay, ("constant", "cosine"))
    t = np.arange(1, steps + 1, dtype=np.float64)
    w = max(1, int(round(warmup_frac * steps))) if warmup_frac > 0 else 0
    rate = np.full(steps, lr)
    if w:
        rate[:w] = lr * t[:w] / w
    if decay == "cosine":
        u = (t[w:] - w) / max(1, steps - w)
        rate[w:] = lr * 0.5 * (1 + np.cos(np.pi * u))
    return rate


def checkpoints(steps: int, n: int) -> np.ndarray:
    """About `n` log-spaced checkpoint steps from 1 to `steps` (the last is always `steps`)."""
    return np.unique(
        np.r_[np.round(np.logspace(0, np.log10(steps), n)).astype(int), steps]
    )


def teacher_student_family(
    model: TeacherStudent,
    sizes,
    seeds,
    *,
    steps: int,
    batch: int,
    lr: float,
    n_checkpoints: int = 40,
    warmup_frac: float = 0.0,
    decay: str = "constant",
    family: str = "teacher-student",
    seed_offset: int = 0,
) -> pd.DataFrame:
    """Train every size × seed with one-pass minibatch SGD and log the exact population loss.

    Features beyond N only enter y; their sum is Gaussian and independent of the first N features,
    so it is drawn as one scalar per sample (exact in distribution, and the cost grows with N, not K).
    All seeds of a size are trained at once (vectorised); seed s uses generator (s + seed_offset, N).
    """
    sizes = [int(n) for n in sizes]
    if any(n < 1 or n > model.K for n in sizes):
        raise ValueError(f"sizes must lie in [1, K={model.K}], got {sizes}")
    seeds = list(seeds)
    rates = lr_schedule(steps, lr, warmup_frac, decay)
    ck = checkpoints(steps, n_checkpoints)
    rows = []
    for N in sizes:
        rngs = [np.random.default_rng([s + seed_offset, N]) for s in seeds]
        sd = np.sqrt(model.lam[:N])
        ws = model.w_star[:N]
        resid_sd = np.sqrt(model.tail(N) + model.noise**2)
        w = np.zeros((len(seeds), N))
        j, chunk = (
            0,
            max(1, 2**21 // (batch * N * len(seeds))),
        )  # draw ~16 MB of samples at a time
        for start in range(0, steps, chunk):
            m = min(chunk, steps - start)
            xs = (
                np.stack([g.standard_normal((m, batch, N)) for g in rngs], axis=1) * sd
            )  # (m,S,b,N)
            extras = (
                np.stack([g.standard_normal((m, batch)) for g in rngs], axis=1)
                * resid_sd
            )
            ys = xs @ ws + extras  # (m,S,b)
            for i in range(m):
                t = start + i + 1
                x = xs[i]
                err = np.einsum("sbn,sn->sb", x, w) - ys[i]
                w -= rates[t - 1] * np.einsum("sbn,sb->sn", x, err) / batch
                if t == ck[j]:
                    losses = model.loss(N, w)
                    for s, l in zip(seeds, losses):
                        rows.append((family, N, s, t, t * batch, t / steps, float(l)))
                    j += 1
    return pd.DataFrame(rows, columns=COLUMNS)

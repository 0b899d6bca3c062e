"""The chapter's protocols: random games, log-log slopes and their bootstrap, the peers
(pygambit's QRE, nashpy's Nash equilibrium), and the sweeps over the number of plays."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from repbook.core import checks

from .inverse import (
    confidence_set,
    coverage_pvalue,
    inverse_system,
    ls_estimate,
    mle_estimate,
    null_space,
    sample_play_counts,
)
from .markov import (
    MarkovGame,
    markov_inverse,
    sample_markov_data,
    solve_markov_qre,
)
from .equilibrium import _check_features, _check_theta, qre


# ---------------------------------------------------------------------------------------------
# random games
# ---------------------------------------------------------------------------------------------
def random_matrix_game(
    m: int, n: int, d: int, rng: np.random.Generator, *, theta_norm: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian features φ (m, n, d) and a parameter θ (d,) uniform on the sphere of radius
    `theta_norm`."""
    checks.generator("rng", rng)
    m, n, d = (
        checks.integer(k, v, at_least=1) for v, k in ((m, "m"), (n, "n"), (d, "d"))
    )
    if m < 2 or n < 2:
        raise ValueError(f"m and n must be at least 2, got m={m}, n={n}")
    phi = rng.normal(size=(m, n, d))
    theta = rng.normal(size=d)
    return phi, theta * (theta_norm / np.linalg.norm(theta))


def loglog_slope(x, y) -> float:
    """Least-squares slope of log y on log x."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise ValueError(
            f"x and y must be 1-D of the same length ≥ 2, got {x.shape}, {y.shape}"
        )
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("x and y must be positive for a log-log slope")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def bootstrap_slope_se(
    errors, n_plays, rng: np.random.Generator, *, n_boot: int = 200
) -> float:
    """Bootstrap standard error of the log-log slope of the median error on N.

    `errors` (k, reps) holds one error per data set at each of the k sizes in `n_plays`; each
    bootstrap draw resamples the data sets of every size with replacement (independently per
    size, as they were drawn), takes the medians and refits `loglog_slope`. Returns the standard
    deviation (ddof 1) of the `n_boot` slopes."""
    errors = np.asarray(errors, dtype=np.float64)
    sizes = _check_sizes(n_plays)
    if errors.ndim != 2 or errors.shape[0] != sizes.size or errors.shape[1] < 2:
        raise ValueError(
            f"errors must have shape ({sizes.size}, reps ≥ 2) to match n_plays, got "
            f"{errors.shape}"
        )
    if sizes.size < 2:
        raise ValueError("n_plays must hold at least 2 sizes for a slope")
    checks.generator("rng", rng)
    n_boot = checks.integer("n_boot", n_boot, at_least=1)
    if n_boot < 2:
        raise ValueError(f"n_boot must be at least 2, got {n_boot}")
    k, reps = errors.shape
    idx = rng.integers(0, reps, size=(n_boot, k, reps))
    boot = np.take_along_axis(errors[None], idx, axis=2)  # (n_boot, k, reps)
    med = np.median(boot, axis=2)
    slopes = [loglog_slope(sizes, m) for m in med]
    return float(np.std(slopes, ddof=1))


# ---------------------------------------------------------------------------------------------
# peers
# ---------------------------------------------------------------------------------------------
def gambit_qre(Q, eta) -> tuple[np.ndarray, np.ndarray]:
    """The logit QRE at λ = η from `pygambit.qre.logit_solve_lambda`, which traces the principal
    branch of the logit correspondence from λ = 0 (`pygambit.nash.logit_solve` is not this: it
    returns the branch's limit, a Nash equilibrium). Payoffs Q to the row player, −Q to the
    column player."""
    import pygambit

    Q = np.asarray(Q, dtype=np.float64)
    if Q.ndim != 2 or min(Q.shape) < 2:
        raise ValueError(
            f"Q must be an (m, n) payoff matrix with m, n ≥ 2, got shape {Q.shape}"
        )
    eta = checks.number("eta", eta, above=0.0)
    game = pygambit.Game.from_arrays(Q, -Q)
    profile = pygambit.qre.logit_solve_lambda(game, lam=[eta])[0].profile
    row, col = list(game.players)
    return (
        np.array([float(profile[s]) for s in row.strategies]),
        np.array([float(profile[s]) for s in col.strategies]),
    )


def nash_equilibrium(Q) -> tuple[np.ndarray, np.ndarray]:
    """A Nash equilibrium of the zero-sum game with payoff Q (row player maximises), by nashpy's
    linear program: the η → ∞ limit of the QRE when the equilibrium is unique."""
    import nashpy

    Q = np.asarray(Q, dtype=np.float64)
    if Q.ndim != 2 or min(Q.shape) < 2:
        raise ValueError(
            f"Q must be an (m, n) payoff matrix with m, n ≥ 2, got shape {Q.shape}"
        )
    mu, nu = nashpy.Game(Q).linear_program()
    return np.clip(mu, 0, None) / np.clip(mu, 0, None).sum(), np.clip(
        nu, 0, None
    ) / np.clip(nu, 0, None).sum()


# ---------------------------------------------------------------------------------------------
# experiment protocols: the chapter's sweeps over the number of plays
# ---------------------------------------------------------------------------------------------
def _check_sizes(n_plays) -> np.ndarray:
    sizes = np.asarray(n_plays)
    if (
        sizes.ndim != 1
        or sizes.size < 1
        or not np.issubdtype(sizes.dtype, np.integer)
        or np.any(sizes < 1)
        or np.any(np.diff(sizes) <= 0)
    ):
        raise ValueError(
            "n_plays must be a 1-D increasing sequence of positive integers, "
            f"got {n_plays!r}"
        )
    return sizes.astype(np.int64)


def _check_rngs(rngs, k: int, what: str) -> list:
    rngs = list(rngs)
    if len(rngs) != k:
        raise ValueError(
            f"rngs must hold one generator per {what} ({k}), got {len(rngs)}"
        )
    for i, r in enumerate(rngs):
        checks.generator(f"rngs[{i}]", r)
    return rngs


@dataclass(frozen=True)
class PlaySweep:
    """Estimates from `reps` data sets at each number of plays N (one generator per N).

    estimates (k, reps, d): least squares; diameter (k,): median confidence-set diameter over
    the first `diameter_reps` data sets (NaN when none); mle (k, reps, d) and mle_converged
    (k, reps) when the MLE was fitted, else None."""

    n_plays: np.ndarray
    estimates: np.ndarray
    diameter: np.ndarray
    mle: np.ndarray | None = None
    mle_converged: np.ndarray | None = None

    def errors(self, reference, *, estimator: str = "ls") -> np.ndarray:
        """‖θ̂ − reference‖ per data set, shape (k, reps); estimator "ls" or "mle"."""
        if estimator not in ("ls", "mle"):
            raise ValueError(f"estimator must be 'ls' or 'mle', got {estimator!r}")
        est = self.estimates if estimator == "ls" else self.mle
        if est is None:
            raise ValueError("this sweep fitted no MLE (mle=False)")
        reference = _check_theta(reference, est.shape[-1], "reference")
        return np.linalg.norm(est - reference, axis=-1)

    def median_error(self, reference, *, estimator: str = "ls") -> np.ndarray:
        """Median over data sets of ‖θ̂ − reference‖, shape (k,)."""
        return np.median(self.errors(reference, estimator=estimator), axis=1)


def play_sweep(
    phi,
    mu,
    nu,
    eta,
    n_plays,
    rngs,
    *,
    reps: int,
    delta: float | None = None,
    diameter_reps: int = 0,
    mle: bool = False,
) -> PlaySweep:
    """For each N in `n_plays`: `reps` data sets of N plays from (μ, ν), drawn with that N's
    generator; the least-squares estimate of each, the median diameter of the level-δ confidence
    set over the first `diameter_reps` of them, and (with `mle`) the MLE of each."""
    phi = _check_features(phi)
    eta = checks.number("eta", eta, above=0.0)
    sizes = _check_sizes(n_plays)
    rngs = _check_rngs(rngs, sizes.size, "number of plays")
    reps = checks.integer("reps", reps, at_least=1)
    checks.integer("diameter_reps", diameter_reps, at_least=0, at_most=reps)
    if diameter_reps and delta is None:
        raise ValueError("delta is needed for confidence-set diameters")
    d = phi.shape[2]
    est = np.zeros((sizes.size, reps, d))
    diam = np.full(sizes.size, np.nan)
    fits = np.zeros((sizes.size, reps, d)) if mle else None
    ok = np.zeros((sizes.size, reps), dtype=bool) if mle else None
    for j, (N, rng) in enumerate(zip(sizes, rngs)):
        cm, cn = sample_play_counts(mu, nu, int(N), rng, size=reps)
        est[j] = ls_estimate(phi, cm, cn, eta)
        if diameter_reps:
            diam[j] = np.median(
                [
                    confidence_set(phi, cm[i], cn[i], eta, delta).diameter()
                    for i in range(diameter_reps)
                ]
            )
        if mle:
            for i in range(reps):
                f = mle_estimate(phi, cm[i], cn[i], eta)
                fits[j, i], ok[j, i] = f.theta, f.converged
    return PlaySweep(sizes, est, diam, fits, ok)


def null_shift_changes(phi, theta, eta, steps, rng) -> tuple[np.ndarray, np.ndarray]:
    """Move θ by each length in `steps` along a random direction of null(A(μ*, ν*)) and along a
    random direction of ℝ^d (drawn in that order per step), re-solve the QRE, and return the
    largest change of any equilibrium probability for each: (along null(A), random), each of
    shape (len(steps),). Raises when θ is identified (null(A) is empty)."""
    phi = _check_features(phi)
    theta = _check_theta(theta, phi.shape[2])
    checks.generator("rng", rng)
    steps = np.asarray(steps, dtype=np.float64)
    if steps.ndim != 1 or steps.size < 1 or np.any(steps <= 0):
        raise ValueError(
            f"steps must be a 1-D sequence of positive lengths, got {steps}"
        )
    eq = qre(phi, theta, eta)
    A, _ = inverse_system(phi, eq.mu, eq.nu, eta)
    basis = null_space(A)
    if basis.shape[1] == 0:
        raise ValueError(
            "theta is identified here: null(A) is empty, nothing to move along"
        )

    def change(v, t):
        moved = qre(phi, theta + t * v / np.linalg.norm(v), eta)
        return max(np.abs(moved.mu - eq.mu).max(), np.abs(moved.nu - eq.nu).max())

    along, rand = np.zeros(steps.size), np.zeros(steps.size)
    for k, t in enumerate(steps):
        v_null = basis @ rng.normal(size=basis.shape[1])
        v_rand = rng.normal(size=theta.size)
        along[k], rand[k] = change(v_null, t), change(v_rand, t)
    return along, rand


def coverage_sweep(
    m: int, n: int, d: int, eta, n_plays, delta: float, rngs
) -> np.ndarray:
    """Coverage study: per generator, a new random game (`random_matrix_game`) and then one data
    set at every N in `n_plays`, all drawn from that generator; whether the level-δ confidence
    set holds the true θ. Returns a boolean array (len(rngs), len(n_plays))."""
    eta, delta = (
        checks.number("eta", eta, above=0.0),
        checks.number("delta", delta, above=0.0, below=1.0),
    )
    sizes = _check_sizes(n_plays)
    rngs = list(rngs)
    if not rngs:
        raise ValueError("rngs must hold at least one generator (one per seed)")
    covered = np.zeros((len(rngs), sizes.size), dtype=bool)
    for i, rng in enumerate(rngs):
        phi, theta = random_matrix_game(m, n, d, rng)
        eq = qre(phi, theta, eta)
        for j, N in enumerate(sizes):
            cm, cn = sample_play_counts(eq.mu, eq.nu, int(N), rng)
            covered[i, j] = coverage_pvalue(phi, cm, cn, eta, theta) >= delta
    return covered


@dataclass(frozen=True)
class MarkovSweep:
    """Per-step reward RMS errors (over (s, a, b)) of `markov_inverse`.

    errors (k, reps, H): estimated transitions and values, at each N; oracle (reps, H): the
    same data sets at the largest N, solved with the true P and V in the continuation."""

    n_plays: np.ndarray
    errors: np.ndarray
    oracle: np.ndarray

    def median_error(self) -> np.ndarray:
        """Median over data sets, shape (H, k)."""
        return np.median(self.errors, axis=1).T

    def median_oracle(self) -> np.ndarray:
        """Median over data sets of the oracle-continuation error at the largest N, (H,)."""
        return np.median(self.oracle, axis=0)


def markov_sweep(game: MarkovGame, n_plays, rngs, *, reps: int) -> MarkovSweep:
    """For each N in `n_plays`: `reps` data sets of N plays at every (h, s), drawn with that N's
    generator, recovered by `markov_inverse`; at the largest N each data set is also solved with
    the true continuation (P, V) to isolate each step's own noise."""
    if not isinstance(game, MarkovGame):
        raise TypeError(f"game must be a MarkovGame, got {type(game).__name__}")
    sizes = _check_sizes(n_plays)
    rngs = _check_rngs(rngs, sizes.size, "number of plays")
    reps = checks.integer("reps", reps, at_least=1)
    sol, r_true = solve_markov_qre(game), game.rewards()
    H = game.shape[0]
    errs, oracle = np.zeros((sizes.size, reps, H)), np.zeros((reps, H))

    def rms(est):
        return np.sqrt(np.mean((game.rewards(est.theta) - r_true) ** 2, axis=(1, 2, 3)))

    for j, (N, rng) in enumerate(zip(sizes, rngs)):
        for i in range(reps):
            data = sample_markov_data(game, sol, int(N), rng)
            errs[j, i] = rms(markov_inverse(game.phi, data, game.eta))
            if j == sizes.size - 1:
                oracle[i] = rms(
                    markov_inverse(game.phi, data, game.eta, P=game.P, V=sol.V)
                )
    return MarkovSweep(sizes, errs, oracle)

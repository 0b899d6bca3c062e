"""The chapter's studies of the peers and of claims 1–3, each drawing its data sets from
`rng_for(stream)` (the streams are the chapter's, listed in each docstring) and returning a
small frozen dataclass with what the chapter records and draws, and the lines it prints
(`lines()`). No printing or plotting here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np


from .inverse import (
    confidence_set,
    indifference_inverse,
    inverse_system,
    sample_play_counts,
)
from .protocol import (
    bootstrap_slope_se,
    coverage_sweep,
    gambit_qre,
    loglog_slope,
    nash_equilibrium,
    null_shift_changes,
    play_sweep,
    random_matrix_game,
)
from .equilibrium import qre, solve_qre

RngFor = Callable[[int], np.random.Generator]
WINDOW = (-0.6, -0.4)
"""The window a slope of log error on log N must lie in (−½ ± 0.1)."""


def _joined(values, fmt: str = "{:.3f}") -> str:
    return ", ".join(fmt.format(v) for v in values)


# ---------------------------------------------------------------------------------------------
# peers: pygambit's QRE, nashpy's Nash equilibrium, a Nash-based inverse
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class PeerCheck:
    """Our QRE against pygambit's at every η of `etas` (largest difference), the total
    variation from our QRE to nashpy's Nash equilibrium (games × etas), and |cos| between θ*
    and the Nash-indifference inverse from the exact QRE, per game."""

    etas: list
    gambit_gap: float
    nash_tv: np.ndarray
    naive_cos: list

    def lines(self) -> list[str]:
        tv = np.median(self.nash_tv, 0)
        falls = bool(np.all(np.diff(tv) < 0))
        cos = self.naive_cos
        return [
            f"largest |ours - pygambit| over {len(cos)} games and eta in {self.etas}: "
            f"{self.gambit_gap:.0e}",
            "total-variation distance from the QRE to nashpy's Nash equilibrium, "
            "median over games:",
            "  " + ", ".join(f"eta={e}: {v:.3f}" for e, v in zip(self.etas, tv)),
            "naive Nash-indifference inverse from the exact QRE: |cos(theta_hat, theta)| "
            f"= {_joined(cos, '{:.2f}')} (least squares: 1 for every game)",
            f"reading: ours and pygambit differ by at most {self.gambit_gap:.0e}; the "
            f"median distance to Nash play {'falls' if falls else 'does not fall'} "
            f"steadily, from {tv[0]:.2f} at eta = {self.etas[0]} to {tv[-1]:.3f} at "
            f"eta = {self.etas[-1]}; the Nash-based inverse's |cos| lies between "
            f"{min(cos):.2f} and {max(cos):.2f}",
        ]


def peer_check(games: Sequence, eqs: Sequence, etas: Sequence[float]) -> PeerCheck:
    """Compare each game's QRE with the peers at every η of `etas`."""
    gap, nash_tv, naive_cos = 0.0, [], []
    for (phi, th), eq in zip(games, eqs):
        Q = phi @ th
        for e in etas:
            ours = solve_qre(Q, e)
            mu_g, nu_g = gambit_qre(Q, e)
            gap = max(gap, np.abs(ours.mu - mu_g).max(), np.abs(ours.nu - nu_g).max())
        mu_n, nu_n = nash_equilibrium(Q)
        nash_tv.append(
            [
                0.5
                * (
                    np.abs(solve_qre(Q, e).mu - mu_n).sum()
                    + np.abs(solve_qre(Q, e).nu - nu_n).sum()
                )
                for e in etas
            ]
        )
        naive_cos.append(abs(indifference_inverse(phi, eq.mu, eq.nu) @ th))
    return PeerCheck(list(etas), gap, np.array(nash_tv), naive_cos)


# ---------------------------------------------------------------------------------------------
# claim 1: identifiability
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Identifiability:
    """Claim 1. Identified games (d ≤ m + n − 2): the rank of A and the error of θ from the
    exact policies. Over-parametrised games (`d_over`): the rank, the largest equilibrium change
    along null(A) and the smallest along random directions (over all games and step lengths),
    ‖(I − P)θ*‖ per game (`stall`), and the median errors to Pθ* and to θ* (games × N)."""

    n_plays: np.ndarray
    d: int
    d_over: int
    ranks: list
    exact_err: list
    ranks_over: list
    shift_null: list
    shift_rand: list
    stall: list
    proj_err: np.ndarray
    full_err: np.ndarray

    @property
    def slopes(self) -> list:
        """Slope of log median error to Pθ* on log N, per game (judged)."""
        return [loglog_slope(self.n_plays, e) for e in self.proj_err]

    @property
    def slopes_late(self) -> list:
        """The same slopes over N ≥ 10³ (a sensitivity, not judged)."""
        late = self.n_plays >= 1_000
        return [loglog_slope(self.n_plays[late], e[late]) for e in self.proj_err]

    def lines(self) -> list[str]:
        Ns, proj, full = self.n_plays, self.proj_err, self.full_err
        shrink_proj = np.median(proj[:, 0] / proj[:, -1])
        shrink_full = np.median(full[:, 0] / full[:, -1])
        return [
            f"d = {self.d}: rank A = {self.ranks}; largest error from the exact policies "
            f"{max(self.exact_err):.1e}",
            f"d = {self.d_over}: rank A = {self.ranks_over}; largest equilibrium change "
            f"along null(A) {max(self.shift_null):.1e}, smallest along random directions "
            f"{min(self.shift_rand):.1e}",
            "slope of the median projection error: " + _joined(self.slopes),
            "  over N >= 1,000 only (sensitivity, not judged): "
            + _joined(self.slopes_late),
            f"median over games at N = {Ns[-1]:,}: ||theta_hat - theta*|| "
            f"{np.median(full[:, -1]):.3f}, against its floor ||(I - P) theta*|| "
            f"{np.median(self.stall):.3f} (per game: {_joined(self.stall)}); "
            f"||theta_hat - P theta*|| {np.median(proj[:, -1]):.4f}",
            f"reading: from N = {Ns[0]:,} to {Ns[-1]:,} the median error to P theta* "
            f"shrinks {shrink_proj:.1f}-fold (an exact N^(-1/2) law: "
            f"{np.sqrt(Ns[-1] / Ns[0]):.1f}), the error to theta* {shrink_full:.1f}-fold",
        ]


def identifiability_study(
    games: Sequence,
    eqs: Sequence,
    *,
    m: int,
    n: int,
    d_over: int,
    eta: float,
    n_plays,
    reps: int,
    rng_for: RngFor,
    steps: Sequence[float] = (0.25, 1.0, 4.0),
) -> Identifiability:
    """Claim 1's protocol: exact recovery in the identified `games`, then as many
    over-parametrised games with `d_over` features (game g from stream 20 + g), θ moved along
    null(A) and random directions by `steps` (stream 30 + g), and `reps` data sets at each N
    (stream 200 + 10 g + j for the j-th N)."""
    Ns = np.asarray(n_plays)
    ranks, exact_err = [], []
    for (phi, th), eq in zip(games, eqs):
        A, c = inverse_system(phi, eq.mu, eq.nu, eta)
        ranks.append(int(np.linalg.matrix_rank(A)))
        exact_err.append(np.linalg.norm(np.linalg.lstsq(A, c, rcond=None)[0] - th))
    G = len(games)
    over = [random_matrix_game(m, n, d_over, rng_for(20 + g)) for g in range(G)]
    shift_null, shift_rand, ranks_over, stall = [], [], [], []
    proj_err, full_err = np.zeros((G, len(Ns))), np.zeros((G, len(Ns)))
    for g, (phi, th) in enumerate(over):
        eq = qre(phi, th, eta)
        A, _ = inverse_system(phi, eq.mu, eq.nu, eta)
        ranks_over.append(int(np.linalg.matrix_rank(A)))
        moved = null_shift_changes(phi, th, eta, list(steps), rng_for(30 + g))
        shift_null, shift_rand = [*shift_null, *moved[0]], [*shift_rand, *moved[1]]
        target = np.linalg.pinv(A) @ A @ th  # P θ*: the identified part
        stall.append(np.linalg.norm(th - target))  # ‖(I − P)θ*‖: never learned
        rngs = [rng_for(200 + 10 * g + j) for j in range(len(Ns))]
        sweep = play_sweep(phi, eq.mu, eq.nu, eta, Ns, rngs, reps=reps)
        proj_err[g], full_err[g] = sweep.median_error(target), sweep.median_error(th)
    d = games[0][0].shape[2]
    return Identifiability(
        Ns,
        d,
        d_over,
        ranks,
        exact_err,
        ranks_over,
        shift_null,
        shift_rand,
        stall,
        proj_err,
        full_err,
    )


@dataclass(frozen=True, eq=False)
class Slab:
    """A rank-deficient toy: its confidence sets at each N, the interval each cuts on the line
    θ* + w·r across null(A) (None when it misses that line), their widths, and the largest
    |A v| along null(A) (the loss does not change there)."""

    theta: np.ndarray
    sets: dict
    cut: dict
    width: dict
    null_push: float

    def lines(self) -> list[str]:
        return [
            "rank of A for the toy: "
            + ", ".join(f"N={N}: {cs.rank}" for N, cs in self.sets.items()),
            "reading: the set's width across null(A) is "
            + ", ".join(f"{w:.3f} at N={N:,}" for N, w in self.width.items())
            + f"; along null(A) the loss does not change (|A v| <= {self.null_push:.0e}),"
            " so the set never closes in that direction",
        ]


def slab_study(
    eta: float,
    delta: float,
    rng: np.random.Generator,
    sizes: Sequence[int] = (100, 1_000, 10_000),
) -> Slab:
    """A 3×3 game whose second feature is the first plus a constant (rank A = 1), θ* =
    (0.6, −0.8), and its level-δ confidence set from N plays at each N of `sizes`, all drawn
    from `rng` in that order."""
    f1 = rng.normal(size=(3, 3))
    phi, theta = np.stack([f1, f1 + 1.0], axis=-1), np.array([0.6, -0.8])
    eq = qre(phi, theta, eta)
    sets = {}
    for N in sizes:
        cm, cn = sample_play_counts(eq.mu, eq.nu, N, rng)
        sets[N] = confidence_set(phi, cm, cn, eta, delta)
    across = np.array([1.0, 1.0]) / np.sqrt(2)  # null(A) = (1, −1)/√2: equal columns
    cut = {N: cs.line_interval(theta, across) for N, cs in sets.items()}
    width = {N: (c[1] - c[0] if c else 0.0) for N, c in cut.items()}
    push = max(np.abs(cs.A @ np.array([1.0, -1.0])).max() for cs in sets.values())
    return Slab(theta, sets, cut, width, push)


# ---------------------------------------------------------------------------------------------
# claim 2: the rate of the least-squares error and of the diameter
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class RateStudy:
    """Claim 2. `errors` (games × N × data sets) of least squares; the median error and its
    quartiles; the median confidence-set diameter (games × N); the slopes over N ≥ `n_from`
    (judged) and over the whole grid; a bootstrap SE of each judged slope."""

    n_plays: np.ndarray
    n_from: int
    errors: np.ndarray
    median: np.ndarray
    quartiles: np.ndarray
    diameter: np.ndarray
    slopes: list
    slopes_all: list
    slopes_diameter: list
    slope_se: list

    @property
    def asymptotic(self) -> np.ndarray:
        return self.n_plays >= self.n_from

    @property
    def margin(self) -> list:
        """How far inside the window each judged slope lies."""
        return [min(v - WINDOW[0], WINDOW[1] - v) for v in self.slopes]

    @property
    def binding(self) -> int:
        """The game whose slope is nearest the window's edge."""
        return int(np.argmin(self.margin))

    @property
    def root_error(self) -> np.ndarray:
        """√N · median error (games × N)."""
        return self.median * np.sqrt(self.n_plays)

    def drift(self, to: int | None = None) -> np.ndarray:
        """√N · error at N = `to` (the largest N by default) over √N · error at `n_from`."""
        r, i_from = self.root_error, int(np.argmax(self.asymptotic))
        i_to = -1 if to is None else int(np.flatnonzero(self.n_plays == to)[0])
        return r[:, i_to] / r[:, i_from]

    def lines(self) -> list[str]:
        Ns, n_from, g = self.n_plays, self.n_from, self.binding
        drift, drift_end = self.drift(100_000), self.drift()
        margin = self.margin[g]
        return [
            f"N: {', '.join(f'{N:,}' for N in Ns)}",
            "median error x sqrt(N) (rows: games):\n"
            + np.array2string(self.root_error, precision=1, suppress_small=True),
            f"slope of the median error over N >= {n_from:,}: " + _joined(self.slopes),
            "  over the whole grid (not judged): " + _joined(self.slopes_all),
            "  bootstrap SE of each slope over N >= 1,000 (data sets resampled, not "
            "judged): " + _joined(self.slope_se),
            f"binding margin: game {g + 1}, slope {self.slopes[g]:.3f}, {margin:.3f} "
            f"inside the window = {margin / self.slope_se[g]:.1f} bootstrap SE of its "
            "slope",
            f"sqrt(N) x error at N = 100,000 over N = {n_from:,}: "
            + ", ".join(f"game {k + 1}: x{v:.2f}" for k, v in enumerate(drift))
            + (
                ""
                if Ns[-1] == 100_000
                else f"; at N = {Ns[-1]:,}: "
                + ", ".join(f"x{v:.2f}" for v in drift_end)
            ),
            f"slope of the median diameter over N >= {n_from:,}: "
            + _joined(self.slopes_diameter),
            "diameter x sqrt(N) (rows: games):\n"
            + np.array2string(
                self.diameter * np.sqrt(Ns), precision=1, suppress_small=True
            ),
        ]


def rate_study(
    games: Sequence,
    eqs: Sequence,
    *,
    eta: float,
    delta: float,
    n_plays,
    n_from: int,
    reps: int,
    diameter_reps: int,
    rng_for: RngFor,
) -> RateStudy:
    """Claim 2's protocol: `reps` data sets at each N for each game (stream 1000 + 100 g + j
    for the j-th N), confidence-set diameters on the first `diameter_reps`, and a bootstrap
    SE of each judged slope (stream 3000 + g)."""
    Ns = np.asarray(n_plays)
    asym = Ns >= n_from
    sweeps = [
        play_sweep(
            phi,
            eq.mu,
            eq.nu,
            eta,
            Ns,
            [rng_for(1_000 + 100 * g + j) for j in range(len(Ns))],
            reps=reps,
            delta=delta,
            diameter_reps=diameter_reps,
        )
        for g, ((phi, _), eq) in enumerate(zip(games, eqs))
    ]
    errs = np.array([sw.errors(th) for sw, (_, th) in zip(sweeps, games)])
    med, quart = np.median(errs, 2), np.quantile(errs, [0.25, 0.75], axis=2)
    diam = np.array([sw.diameter for sw in sweeps])
    return RateStudy(
        Ns,
        n_from,
        errs,
        med,
        quart,
        diam,
        [loglog_slope(Ns[asym], e[asym]) for e in med],
        [loglog_slope(Ns, e) for e in med],
        [loglog_slope(Ns[asym], e[asym]) for e in diam],
        [
            bootstrap_slope_se(e[asym], Ns[asym], rng_for(3_000 + g))
            for g, e in enumerate(errs)
        ],
    )


# ---------------------------------------------------------------------------------------------
# claim 3: coverage
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Coverage:
    """Claim 3: per seed and N whether the confidence set holds θ* (`covered`), the share
    covered per N, the binomial SE of a coverage of 1 − δ, and the level-δ sets of one
    two-feature game at each N (`ellipses`, with its θ*)."""

    n_plays: np.ndarray
    delta: float
    covered: np.ndarray
    ellipses: dict
    theta: np.ndarray

    @property
    def coverage(self) -> dict:
        return {
            f"N={N:,}": float(c) for N, c in zip(self.n_plays, self.covered.mean(0))
        }

    @property
    def se(self) -> float:
        seeds = self.covered.shape[0]
        return np.sqrt(self.delta * (1 - self.delta) / seeds)

    def lines(self) -> list[str]:
        seeds, target = self.covered.shape[0], 1 - self.delta
        return [
            f"coverage over {seeds} seeds: "
            + ", ".join(f"{k}: {v:.3f}" for k, v in self.coverage.items())
            + f" (target {target})",
            f"binomial standard error of a coverage of {target} at {seeds} seeds: "
            f"{self.se:.4f}; the 0.03 slack is {0.03 / self.se:.1f} of them",
        ]


def coverage_study(
    *,
    m: int,
    n: int,
    d: int,
    eta: float,
    delta: float,
    n_plays,
    seeds: int,
    rng_for: RngFor,
) -> Coverage:
    """Claim 3's protocol: `coverage_sweep` over `seeds` random games (seed i from stream
    10000 + i), then a 3×3 two-feature game (stream 50) and its confidence set from N plays at
    each N (stream 51 + log10 N)."""
    Ns = np.asarray(n_plays)
    rngs = [rng_for(10_000 + i) for i in range(seeds)]
    covered = coverage_sweep(m, n, d, eta, Ns, delta, rngs)
    phi, theta = random_matrix_game(3, 3, 2, rng_for(50))
    eq = qre(phi, theta, eta)
    ellipses = {}
    for N in Ns:
        rng = rng_for(51 + int(np.log10(N)))
        cm, cn = sample_play_counts(eq.mu, eq.nu, int(N), rng)
        ellipses[int(N)] = confidence_set(phi, cm, cn, eta, delta)
    return Coverage(Ns, delta, covered, ellipses, theta)

"""The chapter's studies of the paper's extensions, claims 4 and 5 (Markov games, the MLE),
like `studies`: data sets from `rng_for(stream)` (the chapter's streams, in each docstring),
a small frozen dataclass with what the chapter records and draws, and the printed lines."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from repbook.core.stats import t_quantile

from .markov import random_markov_game
from .protocol import loglog_slope, markov_sweep, play_sweep
from .protocol import random_matrix_game
from .equilibrium import qre
from .studies import RngFor, _joined


# ---------------------------------------------------------------------------------------------
# claim 4: Markov games
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class MarkovStudy:
    """Claim 4: the median reward error per game, step and N (`errors`, games × H × N) and,
    at the largest N, per game and step with the true continuation (`oracle`)."""

    n_plays: np.ndarray
    errors: np.ndarray
    oracle: np.ndarray

    @property
    def slopes(self) -> dict:
        """{"step h": slope per game} over the whole grid (judged)."""
        Ns, e = self.n_plays, self.errors
        G, H = e.shape[:2]
        return {
            f"step {h + 1}": [loglog_slope(Ns, e[g, h]) for g in range(G)]
            for h in range(H)
        }

    @property
    def slopes_late(self) -> dict:
        """{"step h, game g": slope} over N ≥ 10³ (a sensitivity, not judged)."""
        Ns, e, late = self.n_plays, self.errors, self.n_plays >= 1_000
        G, H = e.shape[:2]
        return {
            f"step {h + 1}, game {g + 1}": loglog_slope(Ns[late], e[g, h][late])
            for h in range(H)
            for g in range(G)
        }

    @property
    def log_1H(self) -> np.ndarray:
        """log(error at h = 1 / error at h = H) per game, at the largest N."""
        return np.log(self.errors[:, 0, -1] / self.errors[:, -1, -1])

    @property
    def log_carried(self) -> np.ndarray:
        """log(step 1's error with the estimated / with the true continuation) per game."""
        return np.log(self.errors[:, 0, -1] / self.oracle[:, 0])

    @property
    def ratio_1H(self) -> float:
        return float(np.exp(np.mean(self.log_1H)))

    @property
    def carried(self) -> float:
        return float(np.exp(np.mean(self.log_carried)))

    def lines(self) -> list[str]:
        Ns, e = self.n_plays, self.errors
        G, H = e.shape[:2]
        k = t_quantile(G)

        def paired_text(x):
            m_, se_ = x.mean(), x.std(ddof=1) / np.sqrt(x.size)
            return (
                f"mean {m_:+.3f}, SE {se_:.3f}, interval [{m_ - k * se_:+.3f}, "
                f"{m_ + k * se_:+.3f}]"
            )

        out = [
            f"{h}: slopes "
            + _joined(s)
            + f"; median error at N={Ns[-1]:,}: "
            + f"{np.median(e[:, int(h[5:]) - 1, -1]):.4f}"
            for h, s in self.slopes.items()
        ]
        late = self.slopes_late.values()
        half = k * self.log_1H.std(ddof=1) / np.sqrt(G)
        return out + [
            "slopes over N >= 1,000 only (sensitivity, not judged): "
            f"{min(late):.3f} to {max(late):.3f}",
            f"error(h=1) / error(h=H) at N={Ns[-1]:,}: "
            + _joined(e[:, 0, -1] / e[:, -1, -1], "{:.2f}")
            + f" (geometric mean {self.ratio_1H:.2f})",
            "step-1 error with estimated / with the true continuation (P, V_2) at "
            f"N={Ns[-1]:,}: "
            + _joined(e[:, 0, -1] / self.oracle[:, 0])
            + f" (geometric mean {self.carried:.3f})",
            f"paired over {G} games (k = t quantile(0.975, {G - 1} df) = {k:.2f}):\n"
            f"  log(error h=1 / error h={H}): {paired_text(self.log_1H)}\n"
            f"  log(step 1 estimated / true continuation): "
            f"{paired_text(self.log_carried)}",
            f"reading: carrying the estimated continuation back adds "
            f"{100 * (self.carried - 1):.1f} % to step 1's error (geometric mean); step "
            f"1's error is {100 * (self.ratio_1H - 1):+.1f} % against step {H}'s, and "
            "the interval of its log ratio over games "
            f"{'excludes' if abs(self.log_1H.mean()) > half else 'contains'} 0",
        ]


def markov_study(
    shape: dict,
    *,
    games: int,
    eta: float,
    n_plays,
    reps: int,
    rng_for: RngFor,
) -> MarkovStudy:
    """Claim 4's protocol: `games` random Markov games of `shape` (S, A, B, H, d; game g from
    stream 600 + g), `markov_sweep` with `reps` data sets at each N (stream 700 + 10 g + j)."""
    Ns, H = np.asarray(n_plays), shape["H"]
    err, oracle = np.zeros((games, H, len(Ns))), np.zeros((games, H))
    for g in range(games):
        mg = random_markov_game(
            shape["S"], shape["A"], shape["B"], H, shape["d"], eta, rng_for(600 + g)
        )
        rngs = [rng_for(700 + 10 * g + j) for j in range(len(Ns))]
        sweep = markov_sweep(mg, Ns, rngs, reps=reps)
        err[g], oracle[g] = sweep.median_error(), sweep.median_oracle()
    return MarkovStudy(Ns, err, oracle)


# ---------------------------------------------------------------------------------------------
# claim 5: the MLE
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class MleStudy:
    """Claim 5: median errors of the MLE and of least squares (games × N), the fits BFGS did
    not report converged (games × N), and the MLE's median error over the converged fits."""

    n_plays: np.ndarray
    reps: int
    mle: np.ndarray
    ls: np.ndarray
    not_converged: np.ndarray
    mle_converged_only: np.ndarray

    @property
    def slopes(self) -> list:
        return [loglog_slope(self.n_plays, e) for e in self.mle]

    @property
    def slopes_late(self) -> list:
        late = self.n_plays >= 1_000
        return [loglog_slope(self.n_plays[late], e[late]) for e in self.mle]

    @property
    def ratio(self) -> float:
        """MLE / least-squares median error at the largest N, geometric mean over games."""
        return float(np.exp(np.mean(np.log(self.mle[:, -1] / self.ls[:, -1]))))

    def lines(self) -> list[str]:
        Ns, bad = self.n_plays, self.not_converged
        n_fits = bad.shape[0] * len(Ns) * self.reps
        shift = float(np.nanmax(np.abs(self.mle_converged_only / self.mle - 1)))
        return [
            "slope of the median MLE error: " + _joined(self.slopes),
            "  over N >= 1,000 only (sensitivity, not judged): "
            + _joined(self.slopes_late),
            f"MLE / LS median error at N={Ns[-1]:,}: "
            + _joined(self.mle[:, -1] / self.ls[:, -1])
            + f" (geometric mean {self.ratio:.3f})",
            f"MLE fits not reported converged: {int(bad.sum())} of {n_fits} ("
            + ", ".join(f"N={N:,}: {b}" for N, b in zip(Ns, bad.sum(0)))
            + "); the medians keep them (their last BFGS iterate); over the converged "
            f"fits alone the median errors would change by at most {100 * shift:.2f} %",
        ]


def mle_study(
    *,
    m: int,
    n: int,
    d: int,
    games: int,
    eta: float,
    n_plays,
    reps: int,
    rng_for: RngFor,
) -> MleStudy:
    """Claim 5's protocol: `games` random games with `d` features (game g from stream
    500 + g), `reps` data sets at each N (stream 510 + 10 g + j), each fitted by least squares
    and by the MLE."""
    Ns = np.asarray(n_plays)
    mle_err, ls_err = np.zeros((games, len(Ns))), np.zeros((games, len(Ns)))
    bad = np.zeros((games, len(Ns)), dtype=int)
    mle_ok = np.zeros((games, len(Ns)))
    for g in range(games):
        phi, th = random_matrix_game(m, n, d, rng_for(500 + g))
        eq = qre(phi, th, eta)
        rngs = [rng_for(510 + 10 * g + j) for j in range(len(Ns))]
        sweep = play_sweep(phi, eq.mu, eq.nu, eta, Ns, rngs, reps=reps, mle=True)
        ls_err[g] = sweep.median_error(th)
        mle_err[g] = sweep.median_error(th, estimator="mle")
        e_mle, ok = sweep.errors(th, estimator="mle"), sweep.mle_converged
        bad[g] = (~ok).sum(1)
        mle_ok[g] = [np.median(e[o]) if o.any() else np.nan for e, o in zip(e_mle, ok)]
    return MleStudy(Ns, reps, mle_err, ls_err, bad, mle_ok)

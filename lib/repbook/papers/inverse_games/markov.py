"""Finite-horizon zero-sum Markov games: the game, its stage QREs solved backwards, sampled
plays and transitions, and the backward inverse that recovers each step's reward."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from repbook.core import checks

from .inverse import frequencies, _log_odds, _stage_rows
from .equilibrium import SIMPLEX_TOL, _check_features, solve_qre, soft_value


# ---------------------------------------------------------------------------------------------
# finite-horizon Markov games
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MarkovGame:
    """Finite-horizon zero-sum Markov game with linear rewards r_h(s,a,b) = φ_h(s,a,b)ᵀθ_h.

    phi (H, S, A, B, d); P (H, S, A, B, S) transition kernels; theta (H, d); eta > 0."""

    phi: np.ndarray
    P: np.ndarray
    theta: np.ndarray
    eta: float

    def __post_init__(self):
        phi = np.asarray(self.phi, dtype=np.float64)
        if phi.ndim != 5:
            raise ValueError(f"phi must have shape (H, S, A, B, d), got {phi.shape}")
        H, S, A, B, d = phi.shape
        P = np.asarray(self.P, dtype=np.float64)
        if P.shape != (H, S, A, B, S):
            raise ValueError(
                f"P must have shape {(H, S, A, B, S)} to fit phi, got {P.shape}"
            )
        if np.any(P < 0) or np.any(np.abs(P.sum(-1) - 1) > SIMPLEX_TOL):
            raise ValueError(
                "P must hold probability distributions over next states "
                "(non-negative, summing to 1 on the last axis)"
            )
        theta = np.asarray(self.theta, dtype=np.float64)
        if theta.shape != (H, d):
            raise ValueError(
                f"theta must have shape {(H, d)} to fit phi, got {theta.shape}"
            )
        for h in range(H):
            for s in range(S):
                _check_features(phi[h, s])
        object.__setattr__(self, "phi", phi)
        object.__setattr__(self, "P", P)
        object.__setattr__(self, "theta", theta)
        object.__setattr__(self, "eta", checks.number("eta", self.eta, above=0.0))

    @property
    def shape(self) -> tuple[int, int, int, int, int]:
        return self.phi.shape

    def rewards(self, theta=None) -> np.ndarray:
        """r_h(s, a, b) = φ_h(s, a, b)ᵀθ_h, shape (H, S, A, B)."""
        theta = self.theta if theta is None else np.asarray(theta, dtype=np.float64)
        return np.einsum("hsabk,hk->hsab", self.phi, theta)


@dataclass(frozen=True)
class MarkovSolution:
    mu: np.ndarray  # (H, S, A)
    nu: np.ndarray  # (H, S, B)
    Q: np.ndarray  # (H, S, A, B)
    V: np.ndarray  # (H + 1, S), V[H] = 0


def solve_markov_qre(game: MarkovGame) -> MarkovSolution:
    """Backward induction: Q_h = r_h + P_h V_{h+1}, stage QRE at every (h, s), soft value V_h."""
    H, S, A, B, _ = game.shape
    r = game.rewards()
    mu, nu = np.zeros((H, S, A)), np.zeros((H, S, B))
    Q, V = np.zeros((H, S, A, B)), np.zeros((H + 1, S))
    for h in reversed(range(H)):
        Q[h] = r[h] + game.P[h] @ V[h + 1]
        for s in range(S):
            eq = solve_qre(Q[h, s], game.eta)
            mu[h, s], nu[h, s] = eq.mu, eq.nu
        V[h] = soft_value(Q[h], mu[h], nu[h], game.eta)
    return MarkovSolution(mu, nu, Q, V)


@dataclass(frozen=True)
class MarkovData:
    """Plays observed at every (h, s): joint action counts and next-state counts."""

    counts: np.ndarray  # (H, S, A, B) how often (a, b) was played at (h, s)
    next_counts: np.ndarray  # (H, S, A, B, S) next states seen after (h, s, a, b)


def sample_markov_data(
    game: MarkovGame,
    solution: MarkovSolution,
    n_per_state: int,
    rng: np.random.Generator,
) -> MarkovData:
    """`n_per_state` plays at every (h, s) (a generative model): (a, b) ~ μ_h(s) ⊗ ν_h(s), then
    s' ~ P_h(· | s, a, b)."""
    checks.generator("rng", rng)
    n = checks.integer("n_per_state", n_per_state, at_least=1)
    H, S, A, B, _ = game.shape
    joint = np.einsum("hsa,hsb->hsab", solution.mu, solution.nu).reshape(H, S, A * B)
    joint = joint / joint.sum(-1, keepdims=True)
    counts = rng.multinomial(n, joint).reshape(H, S, A, B)
    next_counts = rng.multinomial(counts, game.P)
    return MarkovData(counts, next_counts)


@dataclass(frozen=True)
class MarkovEstimate:
    theta: np.ndarray  # (H, d)
    Q: np.ndarray  # (H, S, A, B) recovered soft Q
    V: np.ndarray  # (H + 1, S) plug-in soft values
    P: np.ndarray  # (H, S, A, B, S) estimated transitions
    rank: np.ndarray  # (H,) rank of each step's stacked system


def markov_inverse(
    phi, data: MarkovData, eta, *, smoothing: float = 0.5, P=None, V=None
) -> MarkovEstimate:
    """Recover θ_h backwards from observed plays, with estimated transitions.

    For h = H..1: (1) smoothed policies μ̂_h(s), ν̂_h(s) from the action counts; (2) P̂_h from the
    next-state counts (add-½); (3) Q_h(s) is known to lie in the affine family
    φ_h(s)θ + P̂_h V̂_{h+1}(s), so the stage QRE equations of all states, stacked, are linear in θ:
    Σ_s A_s θ = c_s − A_s[P̂V̂_{h+1}]; θ̂_h is their least-squares solution, Q̂_h = φ_hθ̂_h +
    P̂_hV̂_{h+1}, and the reward r̂_h = Q̂_h − P̂_hV̂_{h+1} = φ_hθ̂_h; (4) V̂_h(s) is the soft value
    of Q̂_h(s) at the observed policies. Errors in V̂_{h+1} and P̂_h enter step h's system.

    `P` (H, S, A, B, S) and `V` (H + 1, S), when given, replace P̂ and V̂_{h+1} in the continuation
    (an oracle that isolates each step's own noise from what the recursion carries back)."""
    phi = np.asarray(phi, dtype=np.float64)
    eta = checks.number("eta", eta, above=0.0)
    if phi.ndim != 5:
        raise ValueError(f"phi must have shape (H, S, A, B, d), got {phi.shape}")
    H, S, A, B, d = phi.shape
    counts, nxt = np.asarray(data.counts), np.asarray(data.next_counts)
    if counts.shape != (H, S, A, B) or nxt.shape != (H, S, A, B, S):
        raise ValueError(
            f"data must have counts {(H, S, A, B)} and next_counts "
            f"{(H, S, A, B, S)} to fit phi, got {counts.shape} and {nxt.shape}"
        )
    mu = frequencies(counts.sum(3), smoothing)  # (H, S, A)
    nu = frequencies(counts.sum(2), smoothing)  # (H, S, B)
    P_hat = frequencies(nxt, smoothing)  # (H, S, A, B, S)
    if P is not None:
        P = np.asarray(P, dtype=np.float64)
        if P.shape != P_hat.shape:
            raise ValueError(f"P must have shape {P_hat.shape}, got {P.shape}")
    if V is not None:
        V = np.asarray(V, dtype=np.float64)
        if V.shape != (H + 1, S):
            raise ValueError(f"V must have shape {(H + 1, S)}, got {V.shape}")
    theta = np.zeros((H, d))
    Q, Vh = np.zeros((H, S, A, B)), np.zeros((H + 1, S))
    ranks = np.zeros(H, dtype=int)
    for h in reversed(range(H)):
        cont = (P_hat if P is None else P)[h] @ (Vh if V is None else V)[
            h + 1
        ]  # (S, A, B)
        rows = _stage_rows(phi[h], mu[h], nu[h], eta)  # (S, A+B−2, d)
        offset = _stage_rows(cont[..., None], mu[h], nu[h], eta)[..., 0]
        target = _log_odds(mu[h], nu[h]) - offset
        M, t = rows.reshape(-1, d), target.reshape(-1)
        theta[h] = np.linalg.lstsq(M, t, rcond=None)[0]
        ranks[h] = np.linalg.matrix_rank(M)
        Q[h] = phi[h] @ theta[h] + cont
        Vh[h] = soft_value(Q[h], mu[h], nu[h], eta)
    return MarkovEstimate(theta, Q, Vh, P_hat, ranks)


def random_markov_game(
    S: int,
    A: int,
    B: int,
    H: int,
    d: int,
    eta: float,
    rng: np.random.Generator,
    *,
    theta_norm: float = 1.0,
) -> MarkovGame:
    """Gaussian features, Dirichlet(1) transitions, θ_h uniform on the sphere of radius
    `theta_norm`."""
    checks.generator("rng", rng)
    S, A, B, H, d = (
        checks.integer(k, v, at_least=1)
        for v, k in ((S, "S"), (A, "A"), (B, "B"), (H, "H"), (d, "d"))
    )
    phi = rng.normal(size=(H, S, A, B, d))
    P = rng.dirichlet(np.ones(S), size=(H, S, A, B))
    theta = rng.normal(size=(H, d))
    theta *= theta_norm / np.linalg.norm(theta, axis=1, keepdims=True)
    return MarkovGame(phi, P, theta, eta)

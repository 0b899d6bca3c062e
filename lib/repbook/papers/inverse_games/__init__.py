"""Inverse game theory with entropy regularisation (Liao, Zhu, Fang, Yang, Tarokh, ICML 2025).

Rebuilt from the abstract and the algebra of the quantal response equilibrium (QRE); the paper's
own text (Sec. 3.2) was not available to us, so constants such as the confidence-set radius are
our choice (see `confidence_set`).

Notation.
- A two-player zero-sum matrix game with m actions for the max player (μ) and n for the min player
  (ν). Known features φ(a, b) ∈ ℝ^d, stored as an array `phi` of shape (m, n, d); the unknown
  parameter θ ∈ ℝ^d gives the payoff matrix Q(a, b) = φ(a, b)ᵀθ.
- η > 0 is the inverse temperature (1/η multiplies the entropy bonus). The QRE is the unique
  saddle point of μᵀQν + η⁻¹H(μ) − η⁻¹H(ν):
      μ(a) ∝ exp(η (Qν)(a)),     ν(b) ∝ exp(−η (Qᵀμ)(b)).
- Inverse step: against reference actions a₀ = 0, b₀ = 0 the log-odds are linear in θ,
      log μ(a) − log μ(0) = η Σ_b ν(b) (φ(a, b) − φ(0, b))ᵀθ,          a = 1..m−1
      log ν(b) − log ν(0) = −η Σ_a μ(a) (φ(a, b) − φ(a, 0))ᵀθ,         b = 1..n−1
  i.e. A(μ, ν) θ = c(μ, ν) with (m − 1) + (n − 1) rows. θ is identifiable iff rank A = d.
- Markov games: horizon H, S states, the same stage game at every (h, s) with
  Q_h(s, a, b) = φ_h(s, a, b)ᵀθ_h + Σ_s' P_h(s' | s, a, b) V_{h+1}(s'),
  V_h(s) = μᵀQ_h(s)ν + η⁻¹H(μ) − η⁻¹H(ν) at the stage QRE, V_{H+1} = 0.

Everything is numpy/scipy; no printing, plotting or file writing.

Parts, one file each (every name is re-exported here, so `inverse_games.f(...)` works):
`equilibrium` (the forward problem and the checks of the paper's objects), `inverse` (the
linear system, least squares, the delta method and confidence set, the MLE), `markov`
(finite-horizon Markov games), `protocol` (random games, slopes, the peers, the sweeps over
N), `studies` and `extensions` (the chapter's studies of the peers and of each claim, with
their printed lines).
"""

from .equilibrium import (
    SIMPLEX_TOL,
    softmax,
    entropy,
    payoff,
    QRE,
    qre_residual,
    solve_qre,
    qre,
    soft_value,
)
from .inverse import (
    inverse_system,
    null_space,
    frequencies,
    sample_play_counts,
    ls_estimate,
    indifference_inverse,
    residual_covariance,
    generalized_chi2_sf,
    generalized_chi2_quantile,
    ConfidenceSet,
    confidence_set,
    coverage_pvalue,
    MLEResult,
    mle_estimate,
)
from .markov import (
    MarkovGame,
    MarkovSolution,
    solve_markov_qre,
    MarkovData,
    sample_markov_data,
    MarkovEstimate,
    markov_inverse,
    random_markov_game,
)
from .protocol import (
    random_matrix_game,
    loglog_slope,
    bootstrap_slope_se,
    gambit_qre,
    nash_equilibrium,
    PlaySweep,
    play_sweep,
    null_shift_changes,
    coverage_sweep,
    MarkovSweep,
    markov_sweep,
)
from .studies import (
    WINDOW,
    PeerCheck,
    peer_check,
    Identifiability,
    identifiability_study,
    Slab,
    slab_study,
    RateStudy,
    rate_study,
    Coverage,
    coverage_study,
)
from .extensions import (
    MarkovStudy,
    markov_study,
    MleStudy,
    mle_study,
)

__all__ = [
    "ConfidenceSet",
    "Coverage",
    "Identifiability",
    "MLEResult",
    "MarkovData",
    "MarkovEstimate",
    "MarkovGame",
    "MarkovSolution",
    "MarkovStudy",
    "MarkovSweep",
    "MleStudy",
    "PeerCheck",
    "PlaySweep",
    "QRE",
    "RateStudy",
    "SIMPLEX_TOL",
    "Slab",
    "WINDOW",
    "bootstrap_slope_se",
    "confidence_set",
    "coverage_pvalue",
    "coverage_study",
    "coverage_sweep",
    "entropy",
    "frequencies",
    "gambit_qre",
    "generalized_chi2_quantile",
    "generalized_chi2_sf",
    "identifiability_study",
    "indifference_inverse",
    "inverse_system",
    "loglog_slope",
    "ls_estimate",
    "markov_inverse",
    "markov_study",
    "markov_sweep",
    "mle_estimate",
    "mle_study",
    "nash_equilibrium",
    "null_shift_changes",
    "null_space",
    "payoff",
    "peer_check",
    "play_sweep",
    "qre",
    "qre_residual",
    "random_markov_game",
    "random_matrix_game",
    "rate_study",
    "residual_covariance",
    "sample_markov_data",
    "sample_play_counts",
    "slab_study",
    "soft_value",
    "softmax",
    "solve_markov_qre",
    "solve_qre",
]

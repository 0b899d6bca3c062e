"""Population AURC and its finite-sample plug-in estimators (Zhou et al., ICML 2025, arXiv 2410.15361).

Notation. A confidence score s(x) has CDF G; ℓ is a per-sample loss (0/1 error or cross-entropy).
The risk at coverage c is R(c) = E[ℓ | G(s) ≥ 1 − c], and the population AURC is ∫₀¹ R(c) dc, which
equals the reweighted risk E[ℓ · (−ln(1 − G(s)))].

Plug-in estimators sort the n samples by *ascending* confidence (rank r = 1 is the least confident)
and average ℓ_(r) · α_r:

- ``"mc"``: α_r = H_n − H_{n−r} = E[−ln(1 − U_(r))] for uniform order statistics; identical to the
  classic empirical AURC of Geifman & El-Yaniv (mean selective risk over coverages k/n);
- ``"ln"``: α_r = −ln(1 − r/(n + 1)), −ln(1 − G) evaluated at the expected G of rank r;
- ``"sele"``: α_r = r/n (Franc et al., 2023), whose limit E[ℓ·G(s)] lies below the AURC;
- ``"2sele"``: twice SELE, a reference curve (not a bound).

Files: `estimators` (weights, estimators, the closed-form model, confidence scores), `training`
(the AURC loss, the peer torch-uncertainty, the small models' helpers), `protocols` (rates, the
estimator study, the fine-tuning comparison, the closed-form simulations) and `study` (claim 5's
study on trained models). Everything is numpy unless it says torch; no printing, plotting or
file writing.
"""

from .estimators import (
    ESTIMATORS,
    TIES,
    PowerErrorModel,
    confidence_scores,
    empirical_aurc,
    ln_weights,
    mc_weights,
    plugin_aurc,
    reweighted_risk,
    risk_coverage_curve,
    sele_weights,
    weights,
)
from .protocols import (
    NAMED,
    EstimatorStudy,
    FineTuneProtocol,
    FineTuneResult,
    bias_table,
    errors_and_scores,
    estimator_study,
    finetune_comparison,
    largest_mc_classic_gap,
    loglog_slope,
    normalised_rate_slope,
    ordered_pairs,
    reweighted_identity,
    simulate_estimators,
)
from .study import (
    PEERS,
    Consistency,
    ModelStudy,
    Pools,
    batch_indices,
    consistency,
    model_study,
    peer_side_by_side,
    pool_identity,
    synthetic_pools,
    trained_models,
)
from .training import (
    aurc_loss,
    selective_metrics,
    sklearn_mlp_logits,
    torch_uncertainty_aurc,
    torch_uncertainty_aurc_metric,
)

__all__ = [
    "Consistency",
    "ESTIMATORS",
    "EstimatorStudy",
    "FineTuneProtocol",
    "FineTuneResult",
    "ModelStudy",
    "NAMED",
    "PEERS",
    "Pools",
    "PowerErrorModel",
    "TIES",
    "aurc_loss",
    "batch_indices",
    "bias_table",
    "confidence_scores",
    "consistency",
    "empirical_aurc",
    "errors_and_scores",
    "estimator_study",
    "finetune_comparison",
    "largest_mc_classic_gap",
    "ln_weights",
    "loglog_slope",
    "mc_weights",
    "model_study",
    "normalised_rate_slope",
    "ordered_pairs",
    "peer_side_by_side",
    "plugin_aurc",
    "pool_identity",
    "reweighted_identity",
    "reweighted_risk",
    "risk_coverage_curve",
    "sele_weights",
    "selective_metrics",
    "simulate_estimators",
    "sklearn_mlp_logits",
    "synthetic_pools",
    "torch_uncertainty_aurc",
    "torch_uncertainty_aurc_metric",
    "trained_models",
    "weights",
]

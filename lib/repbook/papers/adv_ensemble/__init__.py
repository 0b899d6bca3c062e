"""Diversity in adversarial ensembles (Guo, Qian, Gao, Zhou, ICML 2025; code: GuoJQ42/AdvOAP).

Notation. An ensemble averages m members f_1..f_m: f̄ = (1/m) Σ f_i (outputs for regression, logits
for classification). The attack is an ℓ_p ball of radius ε and q is the dual norm (ℓ∞ attack →
q = 1, ℓ₂ → q = 2), so to first order max_{‖δ‖_p ≤ ε} (f(x+δ) − y)² ≈ (|f(x) − y| + ε‖∇ₓf(x)‖_q)².
With g_i = ‖∇f_i‖_q and ḡ = ‖∇f̄‖_q = ‖(1/m) Σ ∇f_i‖_q, that first-order loss splits exactly into

    L(f̄) = (1/m) Σ L(f_i) − prediction − gradient − cross diversity,
    prediction = (1/m) Σ (f_i − f̄)²,  gradient = ε² [(1/m) Σ g_i² − ḡ²],
    cross = 2ε [(1/m) Σ g_i |f_i − y| − ḡ |f̄ − y|].

For a binary logit z and labels y ∈ {0, 1} (s = 2y − 1), the first-order adversarial logit of a
member is a_i = z_i − sεg_i and that of the ensemble e = z̄ − sεḡ; the cross-entropy splits into
the members' mean loss, a KL (prediction) term and a gradient term (see `binary_ce_decomposition`).

The training method ("AdvEOAP" in the paper, `adv_oap` in the code): each member is attacked on
its own, its predicted probabilities over the non-true classes are L1-normalised, and the loss is
Σ CE − α · mean log det(P Pᵀ + 10⁻⁶ I) − β · H(mean of the members' normalised predictions).

Parts, one file each (all names are re-exported here, so `adv_ensemble.f(...)` works):
`decomposition` (the squared-loss, binary cross-entropy and K-class decompositions, numpy),
`models` (MLPs, the ensemble, training, input gradients and Jacobians, the 2-D grid), `attacks`
(PGD, the torchattacks peer, robust accuracy, transfer), `oap` (the AdvEOAP loss and training),
`protocol` (the protocols of checks 1–4), `comparison` (claim 5's method comparison) and
`readings` (the printed tables and sentences that read the diagnostics, returned as text).
Arrays are numpy for the algebra and torch for models; no printing, plotting or file writing.
"""

from repbook.core.nets import mlp

from .attacks import (
    LOSSES,
    mean_off_diagonal,
    peer_comparison,
    pgd_attack,
    pgd_attack_each,
    robust_accuracy,
    torchattacks_pgd,
    transfer_matrix,
)
from .comparison import (
    METHODS,
    AdvMethod,
    MethodComparison,
    compare_methods,
    paired_differences,
    robust_by_run,
    scale_free_table,
    true_class_table,
)
from .decomposition import (
    NORMS,
    P_BAR,
    BinaryDecomposition,
    RegressionDecomposition,
    binary_ce_decomposition,
    code_binary_terms,
    dual_order,
    first_order_sq_loss,
    first_order_sq_loss_in_range,
    gradient_dispersion,
    multiclass_decomposition,
    regression_decomposition,
    true_class_decomposition,
)
from .models import (
    Ensemble,
    MemberTerms,
    accuracy,
    box_grid,
    classifier_decomposition,
    classifier_true_class_terms,
    fit,
    grid_outputs,
    input_gradients,
    member_terms,
    members_outputs_and_gradients,
    members_probabilities_and_jacobians,
)
from .oap import (
    DIVERSITY_ON,
    OAPLoss,
    adv_oap_loss,
    non_true_probabilities,
    oap_regulariser,
    train_adv_ensemble,
)
from .readings import (
    binary_lines,
    comparison_lines,
    confidence_reading,
    cross_sign_reading,
    direction_reading,
    exact_lines,
    gain_reading,
    members_lines,
    paired_verdict,
    regression_lines,
    sweep_reading,
)
from .protocol import (
    BinaryStudy,
    ExactStudy,
    PairMembers,
    RegressionStudy,
    binary_study,
    ensemble_configs,
    exact_study_2d,
    first_order_sweep,
    fit_members,
    pair_members,
    pgd_sq_loss,
    regression_study,
)

__all__ = [
    "DIVERSITY_ON",
    "LOSSES",
    "METHODS",
    "NORMS",
    "P_BAR",
    "AdvMethod",
    "BinaryDecomposition",
    "BinaryStudy",
    "Ensemble",
    "ExactStudy",
    "MemberTerms",
    "MethodComparison",
    "OAPLoss",
    "PairMembers",
    "RegressionDecomposition",
    "RegressionStudy",
    "accuracy",
    "adv_oap_loss",
    "binary_ce_decomposition",
    "binary_lines",
    "binary_study",
    "box_grid",
    "classifier_decomposition",
    "classifier_true_class_terms",
    "code_binary_terms",
    "compare_methods",
    "comparison_lines",
    "confidence_reading",
    "cross_sign_reading",
    "direction_reading",
    "dual_order",
    "ensemble_configs",
    "exact_lines",
    "gain_reading",
    "exact_study_2d",
    "first_order_sq_loss",
    "first_order_sq_loss_in_range",
    "first_order_sweep",
    "fit",
    "fit_members",
    "gradient_dispersion",
    "grid_outputs",
    "input_gradients",
    "mean_off_diagonal",
    "member_terms",
    "members_lines",
    "members_outputs_and_gradients",
    "members_probabilities_and_jacobians",
    "mlp",
    "multiclass_decomposition",
    "non_true_probabilities",
    "oap_regulariser",
    "pair_members",
    "paired_verdict",
    "paired_differences",
    "peer_comparison",
    "pgd_attack",
    "pgd_attack_each",
    "pgd_sq_loss",
    "regression_decomposition",
    "regression_lines",
    "regression_study",
    "robust_accuracy",
    "robust_by_run",
    "scale_free_table",
    "sweep_reading",
    "torchattacks_pgd",
    "train_adv_ensemble",
    "transfer_matrix",
    "true_class_decomposition",
    "true_class_table",
]

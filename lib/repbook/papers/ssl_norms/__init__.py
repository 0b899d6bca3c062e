"""Embedding norms in self-supervised learning (Draganov et al., ICML 2025, 2502.09252).

Notation. An encoder maps an input to an embedding z (the projector output, *before* it
is normalised). Cosine-similarity losses only see ẑ = z/‖z‖. For cos(z, z⁺) = ẑ·ẑ⁺ the
gradient is

    ∇_z cos(z, z⁺) = (ẑ⁺ − cos(z, z⁺) ẑ) / ‖z‖,

orthogonal to z and of size sin φ / ‖z‖ (φ the angle between z and z⁺). Hence:

- an SGD step on z alone never shrinks ‖z‖ (Pythagoras), so norms grow without weight
  decay;
- a step turns z by about γ sin φ / ‖z‖², so large norms slow convergence;
- *cut-initialisation* divides the weights of the network by c > 1 at initialisation
  (small initial norms);
- *GradScale* is the identity in the forward pass and multiplies the gradient reaching z
  by ‖z‖^p in the backward pass (p = 1 cancels the 1/‖z‖).

Parts, one file each (all names are re-exported here, so `ssl_norms.f(...)` works):
`gradients` (the analytic gradient, GradScale, InfoNCE / NT-Xent, the non-contrastive
negative cosine, the paired supervised InfoNCE), `networks` (MLP and conv encoders,
cut-initialisation, R MLPs side by side), `augment` (augmentations for small grey images, on
the fly or as a precomputed set of views), `evaluation` (k-NN accuracy overall and by norm
quantile, time to accuracy, the area under an accuracy curve, AUROC with a bootstrap
interval), `simulations` (the toy alignment and the class-imbalance simulation of the
paper's code), `simclr` (SimCLR training with norm and k-NN tracking, the tuning rule, time
to target, the norms' trend), `protocol` (the chapter's experiments, one per claim) and
`readings` (the printed tables and sentences, returned as text). Randomness comes in as a
torch.Generator or numpy Generator; no printing, plotting or files.
"""

from repbook.core.nets import default_init_, mlp

from .augment import (
    AugmentedViews,
    augment,
    make_views,
)
from .evaluation import (
    accuracy_area,
    auroc,
    auroc_interval,
    knn_accuracy,
    knn_accuracy_by_norm,
    time_to_accuracy,
)
from .gradients import (
    cosine_grad,
    cosine_similarity,
    grad_scale,
    info_nce_loss,
    negative_cosine_loss,
    paired_supervised_info_nce,
)
from .networks import (
    NORM_LAYERS,
    ConvEncoder,
    MLPEncoder,
    RunsMLP,
    cut_init_,
)
from .protocol import (
    LOSSES,
    FamiliarityStudy,
    GradientStudy,
    ImbalanceStudy,
    NormGrowth,
    TargetStudy,
    ToyStudy,
    VariantRuns,
    decays_for,
    familiarity_study,
    final_norms_by_seed,
    gradient_study,
    imbalance_study,
    loss_gradient,
    norm_growth,
    seen_subset,
    target_study,
    toy_study,
    tune_and_train,
    weight_decay_sweep,
)
from .readings import (
    decay_lines,
    familiarity_lines,
    gradient_lines,
    growth_lines,
    imbalance_lines,
    target_lines,
    toy_lines,
    tuning_lines,
)
from .simclr import (
    Bracket,
    SimCLRProtocol,
    TrainHistory,
    bracket_learning_rate,
    embed,
    norm_trend,
    times_to_target,
    train_simclr,
    tuning_score,
)
from .simulations import (
    AlignResult,
    Trend,
    align_pairs,
    frequency_trend,
    random_pairs,
    recorded_epochs,
    spherical_classes,
    train_class_norms,
)

__all__ = [
    "LOSSES",
    "NORM_LAYERS",
    "AlignResult",
    "AugmentedViews",
    "Bracket",
    "ConvEncoder",
    "FamiliarityStudy",
    "GradientStudy",
    "ImbalanceStudy",
    "MLPEncoder",
    "NormGrowth",
    "RunsMLP",
    "SimCLRProtocol",
    "TargetStudy",
    "ToyStudy",
    "TrainHistory",
    "Trend",
    "VariantRuns",
    "accuracy_area",
    "align_pairs",
    "augment",
    "auroc",
    "auroc_interval",
    "bracket_learning_rate",
    "cosine_grad",
    "cosine_similarity",
    "cut_init_",
    "decay_lines",
    "decays_for",
    "default_init_",
    "embed",
    "familiarity_lines",
    "familiarity_study",
    "final_norms_by_seed",
    "frequency_trend",
    "grad_scale",
    "gradient_lines",
    "gradient_study",
    "growth_lines",
    "imbalance_lines",
    "imbalance_study",
    "info_nce_loss",
    "knn_accuracy",
    "knn_accuracy_by_norm",
    "loss_gradient",
    "make_views",
    "mlp",
    "negative_cosine_loss",
    "norm_growth",
    "norm_trend",
    "paired_supervised_info_nce",
    "random_pairs",
    "recorded_epochs",
    "seen_subset",
    "spherical_classes",
    "target_lines",
    "target_study",
    "time_to_accuracy",
    "times_to_target",
    "toy_lines",
    "toy_study",
    "train_class_norms",
    "train_simclr",
    "tune_and_train",
    "tuning_lines",
    "tuning_score",
    "weight_decay_sweep",
]

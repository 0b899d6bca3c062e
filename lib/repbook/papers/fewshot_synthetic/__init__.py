"""Few-shot classification with synthetic data: discrepancy and robustness terms (Nguyen et al., ICML
2025, arXiv 2505.24190), written from the objective of the official lightweight code
(`cuonglannguyen/ProtoAug_lightweight`, `trainers/example_trainer.py`; read, not copied).

Notation. S are the real few-shot images with labels, G the synthetic ones, g = |G| the synthetic
count in the batch, h(x) the logits (C classes). A partition of the input space into K regions
puts each point in one region; S_k and G_k are the real and synthetic points of region k, and
mse(a, b) = ‖a − b‖² / C (torch's `mse_loss`, averaged over the classes). The training objective is

    L = ce_real·CE(h(S), y_S) + ce_syn·CE(h(G), y_G)
        + λ_dis · Σ_k Σ_{i∈S_k, j∈G_k} mse(h(s_i), h(g_j)) / (g·|S_k|)          (discrepancy)
        + λ_rob · Σ_k Σ_{i,j∈G_k}      mse(h(g_i), h(g_j)) / (g·|G_k|)          (robustness)

where, as in the released code, both sums run over the regions that hold at least one real point
(`real_regions_only=True`; set it to False for the robustness over every region).

Parts, one file each (all names are re-exported here, so `fewshot_synthetic.f(...)` works):
`data` (the digits, the generator with its gap knob, font digits, one seed's tensors),
`partitions` (the code's online k-means, k-means on real ∪ synthetic), `terms` (the two terms in
one pass, the objective), `training` (weights, released configurations, training, accuracy, the
bound's terms on a trained model), `protocol` (the chapter's grid, paired gains, tables).
No printing, plotting or files.
"""

from .data import (
    N_CLASSES,
    PIX_MAX,
    SIDE,
    DigitSplit,
    GMMGenerator,
    SeedData,
    apply_gap,
    fit_generator,
    font_files,
    gap_name,
    n_usable_fonts,
    prepare_seed,
    render_font_digits,
    single_thread,
    split_digits,
)
from .partitions import (
    OnlineKMeans,
    PartitionSummary,
    assign_regions,
    kmeans_regions,
    online_regions,
    summarise_partition,
)
from .protocol import (
    NAIVE,
    ORACLE,
    REAL_ONLY,
    SYN_ONLY,
    Comparison,
    IngredientSummary,
    accuracy_table,
    cell_means,
    cell_stream,
    compare,
    lambda_grid,
    mean_over_cells,
    paired_gains,
    partition_summaries,
    partition_table,
    run_grid,
    summarise_ingredients,
)
from .terms import ObjectiveTerms, discrepancy_term, objective, robustness_term
from .training import (
    CONFIGS,
    LAYERS,
    Ingredients,
    Method,
    accuracy,
    bound_ingredients,
    fit,
    methods,
    train,
)

__all__ = [
    "CONFIGS",
    "LAYERS",
    "N_CLASSES",
    "NAIVE",
    "ORACLE",
    "PIX_MAX",
    "REAL_ONLY",
    "SIDE",
    "SYN_ONLY",
    "Comparison",
    "DigitSplit",
    "IngredientSummary",
    "GMMGenerator",
    "Ingredients",
    "Method",
    "ObjectiveTerms",
    "OnlineKMeans",
    "PartitionSummary",
    "SeedData",
    "accuracy",
    "accuracy_table",
    "apply_gap",
    "assign_regions",
    "bound_ingredients",
    "cell_means",
    "cell_stream",
    "compare",
    "discrepancy_term",
    "fit",
    "fit_generator",
    "font_files",
    "gap_name",
    "kmeans_regions",
    "lambda_grid",
    "mean_over_cells",
    "methods",
    "n_usable_fonts",
    "objective",
    "online_regions",
    "paired_gains",
    "partition_summaries",
    "partition_table",
    "prepare_seed",
    "render_font_digits",
    "robustness_term",
    "run_grid",
    "single_thread",
    "split_digits",
    "summarise_ingredients",
    "summarise_partition",
    "train",
]

"""What it would cost to pay people to write an LLM's training data, against the cost of training it
(Kandpal & Raffel, ICML 2025 position paper track, arXiv 2504.12427).

Every cost is in US dollars. The two sides:

- data cost = D · w / (wpm · 60) · wage: D tokens, w words per token, a writer producing wpm words
  per minute, paid `wage` dollars per hour;
- training cost, two ways: renting GPUs, C / (peak FLOP/s · MFU · 3600) · dollars per GPU-hour;
  or an Epoch-style amortised cost (Cottier et al. 2024): the hardware's purchase price written
  off at the rate hardware price-performance improves, plus cluster interconnect and energy, per
  GPU-hour.

With C = 6·N·D, the ratio of the two has the closed form
[wage · w / (wpm · 60)] / [6 · N · dollars per FLOP]: it does not depend on D.

Which D: both costs use the tokens the model *saw* in training (`tokens_seen`). Where a source also
gives the number of distinct tokens, `tokens_unique` keeps it for comparison.

The curated facts live in `data/11_data_labor_cost/` (our own set, not the paper's 64 models); the
readers here validate them and fail naming the file, line, model and column. No printing,
plotting or file writing.

Parts, one file each (every name is re-exported here, so `data_labor_cost.f(...)` works): `costs`
(the assumptions' constants, the two costs, their ratio and what follows from it, the bootstrap),
`tables` (the curated tables, validated), `analysis` (the whole table, prices per class, the
sensitivity grid) and `protocol` (the chapter's readings of the table, with their printed lines).
"""

from .costs import (
    HARDWARE_CLASSES,
    PAPER_WAGE_USD_PER_HOUR,
    PAPER_WORDS_PER_MINUTE,
    WORDS_PER_TOKEN,
    EPOCH_MFU,
    EPOCH_PUE,
    EPOCH_TDP_FRACTION,
    EPOCH_INTERCONNECT_FRACTION,
    EPOCH_PROGRESS_OOMS_PER_YEAR,
    HOURS_PER_YEAR,
    data_cost,
    writing_hours,
    training_flops_6nd,
    gpu_hours,
    usd_per_flop,
    rental_training_cost,
    AmortizedRate,
    amortized_rate,
    amortized_training_cost,
    closed_form_ratio,
    params_at_ratio,
    ratio_at_fixed_compute,
    break_even_wage,
    implied_mfu,
    bootstrap_medians,
    bootstrap_median,
)
from .tables import (
    CuratedDataError,
    LLMFacts,
    Hardware,
    LLM_COLUMNS,
    HARDWARE_COLUMNS,
    read_llm_facts,
    read_hardware,
    read_epoch_costs,
)
from .analysis import (
    Assumptions,
    cost_table,
    class_usd_per_gpu_hour,
    class_usd_per_flop,
    band_miss_factor,
    median_ratio_grid,
)
from .protocol import (
    TABLE_COLUMNS,
    where,
    curated_lines,
    closed_form_gap,
    table_lines,
    ImpliedMfu,
    implied_mfus,
    FrontierGap,
    frontier_gap,
    MedianSummary,
    median_summary,
    BandFlips,
    band_flips,
    size_lines,
    FrontierPricing,
    frontier_pricing,
    peer_table,
    peer_lines,
)

__all__ = [
    "AmortizedRate",
    "Assumptions",
    "BandFlips",
    "CuratedDataError",
    "EPOCH_INTERCONNECT_FRACTION",
    "EPOCH_MFU",
    "EPOCH_PROGRESS_OOMS_PER_YEAR",
    "EPOCH_PUE",
    "EPOCH_TDP_FRACTION",
    "FrontierGap",
    "FrontierPricing",
    "HARDWARE_CLASSES",
    "HARDWARE_COLUMNS",
    "HOURS_PER_YEAR",
    "Hardware",
    "ImpliedMfu",
    "LLMFacts",
    "LLM_COLUMNS",
    "MedianSummary",
    "PAPER_WAGE_USD_PER_HOUR",
    "PAPER_WORDS_PER_MINUTE",
    "TABLE_COLUMNS",
    "WORDS_PER_TOKEN",
    "amortized_rate",
    "amortized_training_cost",
    "band_flips",
    "band_miss_factor",
    "bootstrap_median",
    "bootstrap_medians",
    "break_even_wage",
    "class_usd_per_flop",
    "class_usd_per_gpu_hour",
    "closed_form_gap",
    "closed_form_ratio",
    "cost_table",
    "curated_lines",
    "data_cost",
    "frontier_gap",
    "frontier_pricing",
    "gpu_hours",
    "implied_mfu",
    "implied_mfus",
    "median_ratio_grid",
    "median_summary",
    "params_at_ratio",
    "peer_lines",
    "peer_table",
    "ratio_at_fixed_compute",
    "read_epoch_costs",
    "read_hardware",
    "read_llm_facts",
    "rental_training_cost",
    "size_lines",
    "table_lines",
    "training_flops_6nd",
    "usd_per_flop",
    "where",
    "writing_hours",
]

"""Representation discrepancy in continual learning.

Kim, Kim & Sohn, "Measuring Representational Shifts in Continual Learning: A Linear
Transformation Perspective", ICML 2025, arXiv 2505.20970.

Notation. A network is trained on tasks 0, 1, ..., T−1 in turn; h_t^k(x) is the output
of its layer k after task t (a row of width w). For the inputs X_t of task t write
A = h_t^k(X_t) and B = h_{t+Δt}^k(X_t), both (n × w): the *same* inputs seen by two
snapshots of the network.

- representation discrepancy  D_t^k(Δt) = min_T max_x ‖h_t^k(x) − T h_{t+Δt}^k(x)‖₂.
  `discrepancy` computes it as the official `measure.py` does: T fitted by least squares
  without intercept (a surrogate for the min–max T), then the largest row norm of the
  residual. `minmax_discrepancy` solves the exact convex min–max for small inputs.
- unaligned discrepancy  σ = max_x ‖h_t^k(x) − h_{t+Δt}^k(x)‖₂ (no alignment).
- representation size  ‖R_t^k‖ = max_x ‖h_t^k(x)‖₂ (also the min, and both over √w).
- probe forgetting  ΔP_t^k(Δt): the test accuracy of a linear probe on layer-k features
  of snapshot t minus that of snapshot t+Δt.

The training helpers build the flat networks the paper studies (constant width across
layers, one output head per task) and train them task-incrementally. The protocols at
the end run the chapter's experiments: `measure_stream` trains one flat network on a
task stream and measures every (t, Δt, k), with three probes (the paper's task-t probe
on clean inputs, the same probe on inputs corrupted by noise, off its ceiling on easy
tasks, and optionally a probe over the classes of several tasks); `permuted_tasks` and
`first_task_drift` build and follow a long stream of permuted-pixel tasks (the test of
saturation); `trend_slope`, `early_slope` and `plateau_drift` summarise a D(Δt)
curve, `layer_slopes` the trend of saturation times over the layers, and
`plateau_window` / `still_rising` say where a saturation time sits in the window its
plateau is averaged over. Randomness comes in as generators or seeds; nothing here
prints, plots or writes files.

Parts, one file each (every public name is re-exported here, so
``representation_shift.f(...)`` works): ``measures`` (the discrepancy, its companions,
the official path, the probes), ``tasks`` (class-split, coloured-shape and permuted
streams, the probes' data), ``networks`` (flat MLP and ResNet, training, features,
one thread), ``protocols`` (the main and long streams, trained and measured, over every
width and replicate), ``curves`` (saturation time, slopes, drift, correlations, the
paired band), ``analysis`` (what each claim reads from the measurements) and
``readings`` (the lines the chapter prints, and the notes of claims 3c and 4).
"""

from . import analysis, curves, measures, networks, protocols, readings, tasks
from .analysis import (
    DepthTrend,
    Growth,
    Saturation,
    Surrogate,
    WidthEffect,
    depth_trend,
    final_rows,
    growth,
    saturation,
    surrogate,
    width_effect,
)
from .curves import (
    early_slope,
    layer_slopes,
    partial_r,
    pearson,
    plateau_drift,
    plateau_window,
    saturation_time,
    spearman,
    still_rising,
    t_band,
    trend_slope,
)
from .measures import (
    RepresentationSize,
    Shift,
    discrepancy,
    fit_alignment,
    heldout_discrepancy,
    measure_shift,
    minmax_discrepancy,
    official_discrepancy,
    official_measures,
    probe_accuracy,
    representation_size,
    residual_norms,
    split_discrepancy,
    unaligned_discrepancy,
)
from .networks import (
    ARCHITECTURES,
    FlatMLP,
    FlatResNet,
    layer_features,
    make_network,
    single_threaded,
    task_accuracy,
    train_sequence,
    train_task,
)
from .protocols import (
    LONG_KEYS,
    MAIN_KEYS,
    MainStream,
    Measure,
    first_task_drift,
    long_stream,
    main_stream,
    measure_stream,
)
from .readings import (
    depth_lines,
    depth_reading,
    early_lines,
    growth_lines,
    growth_reading,
    note_3c,
    note_4,
    numerics_drift_line,
    paired_k_line,
    plateau_lines,
    saturation_lines,
    short_noisy,
    stream_lines,
    surrogate_lines,
    surrogate_reading,
    width_lines,
    width_reading,
)
from .tasks import (
    N_SHAPES,
    Task,
    coloured_shapes,
    corrupted_probe_sets,
    permuted_tasks,
    pooled_probe_sets,
    split_tasks,
)

__all__ = [
    "analysis",
    "ARCHITECTURES",
    "coloured_shapes",
    "corrupted_probe_sets",
    "curves",
    "depth_lines",
    "depth_reading",
    "depth_trend",
    "DepthTrend",
    "discrepancy",
    "early_lines",
    "early_slope",
    "final_rows",
    "first_task_drift",
    "fit_alignment",
    "FlatMLP",
    "FlatResNet",
    "Growth",
    "growth",
    "growth_lines",
    "growth_reading",
    "heldout_discrepancy",
    "layer_features",
    "layer_slopes",
    "LONG_KEYS",
    "long_stream",
    "MAIN_KEYS",
    "main_stream",
    "MainStream",
    "make_network",
    "Measure",
    "measure_shift",
    "measure_stream",
    "measures",
    "minmax_discrepancy",
    "N_SHAPES",
    "networks",
    "note_3c",
    "note_4",
    "numerics_drift_line",
    "official_discrepancy",
    "official_measures",
    "paired_k_line",
    "partial_r",
    "pearson",
    "permuted_tasks",
    "plateau_drift",
    "plateau_lines",
    "plateau_window",
    "pooled_probe_sets",
    "probe_accuracy",
    "protocols",
    "readings",
    "representation_size",
    "RepresentationSize",
    "residual_norms",
    "Saturation",
    "saturation",
    "saturation_lines",
    "saturation_time",
    "Shift",
    "short_noisy",
    "single_threaded",
    "spearman",
    "split_discrepancy",
    "split_tasks",
    "still_rising",
    "stream_lines",
    "surrogate",
    "Surrogate",
    "surrogate_lines",
    "surrogate_reading",
    "t_band",
    "Task",
    "task_accuracy",
    "tasks",
    "train_sequence",
    "train_task",
    "trend_slope",
    "unaligned_discrepancy",
    "width_effect",
    "width_lines",
    "width_reading",
    "WidthEffect",
]

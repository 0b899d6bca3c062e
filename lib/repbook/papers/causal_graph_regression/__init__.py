"""Causal graph regression (Yin, Qu, Wang, Chen, ICML 2025, arXiv 2507.00440).

A graph G is split by learned soft masks into a causal part C and a confounding part S.
Notation (the paper's, where it helps):

- ``a_o`` / ``a_c``: node attention of the causal ("object") and confounding ("context")
  part, a softmax over two columns, so a_o + a_c = 1 per node; edges get ``e_o`` /
  ``e_c`` likewise;
- ``h_o`` / ``h_c``: the causal and confounding graph embeddings (H_c, H_s in the
  paper), made by one *shared* weighted GCN layer after a *separate* BatchNorm per
  branch, then sum pooling;
- ``h_graph``: the sum-pooled encoder embedding of the whole graph (H_g);
- the prediction comes from the causal head only: ŷ = head_o(h_o).

Losses (`CGRLoss`): L1 on the causal head (−I(C;Y)); the confounder term, either the
paper's enhanced GIB (the confounder head also predicts y, −β·I(S;Y)) or the released
code's variance penalty (make the confounder head uninformative); α·I(C;G), the paper's
Gaussian bottleneck ½E‖μ(G)‖² (h_o = μ + ε, ε ~ N(0, I), sampled in training; divided
by the width, a rescaling of α) or GSAT's KL of the causal node attention to
Bernoulli(r); and the contrastive intervention L_mix (`mix_loss`), which pulls
h_o,i + h_c,j towards h_graph,i and away from h_graph,k (k ≠ i).

Data (`make_dataset`): a causal 5-cycle whose node values v ~ U(0, 1) set y = Σv + N(0,
σ²), joined by one edge to a base graph (random tree, ladder or wheel) whose type
follows the y-bin with probability `shortcut`: a structural shortcut.

Parts, one file each (every name is re-exported here, so `causal_graph_regression.f(...)`
works): `data` (graphs, splits, batching), `models` (message passing, ERM, CGR, the
torch-geometric peer), `losses`, `training` (fit, evaluation, the methods on one seed's
splits), `search` (the bounded search for a set-up where the causal mask separates the
cycle, recorded in data/16_causal_graph_regression/) and `protocol` (every seed, the
shortcut sweep, the readings the chapter prints and draws, the paper's Table 1). No printing or plotting; the
one function that writes a file is `write_mechanism_search`; randomness comes in as
generators or explicit seeds.
"""

from .data import (
    BASE_TYPES,
    BIN_EDGES,
    SHIFTS,
    SPLITS,
    GraphBatch,
    GraphSet,
    base_graph,
    make_dataset,
    make_graph,
    make_splits,
    shortcut_rate,
    shortcut_type,
    split_table,
    y_bin,
)
from .losses import (
    CONFOUNDER_TERMS,
    INFO_TERMS,
    CGRLoss,
    bernoulli_kl,
    embedding_info,
    erm_loss,
    mix_loss,
)
from .models import (
    MODELS,
    CausalGIN,
    CGROutput,
    GINEncoder,
    GINLayer,
    GINRegressor,
    PygGINRegressor,
    TargetHead,
    WeightedGCNLayer,
    copy_erm_weights,
    make_model,
    sum_neighbours,
    sum_pool,
)
from .protocol import (
    MAETables,
    SeedView,
    ablation_measures,
    describe_sizes,
    gate_part_lines,
    mae_tables,
    paper_table1,
    peer_agreement,
    seed_streams,
    seed_view,
    shortcut_sweep,
    tail_errors,
    train_seeds,
)
from .search import (
    MECHANISM_SETUPS,
    SEARCH_FILE,
    SETUP_KEYS,
    SearchReport,
    attention_search,
    read_mechanism_search,
    search_report,
    search_summary,
    write_mechanism_search,
)
from .training import (
    Fit,
    Method,
    attention_by_part,
    fit,
    mae,
    node_attention,
    predict,
    train_methods,
)

__all__ = [
    "BASE_TYPES",
    "BIN_EDGES",
    "CONFOUNDER_TERMS",
    "INFO_TERMS",
    "MECHANISM_SETUPS",
    "MODELS",
    "SEARCH_FILE",
    "SETUP_KEYS",
    "SHIFTS",
    "SPLITS",
    "CGRLoss",
    "CGROutput",
    "CausalGIN",
    "Fit",
    "GINEncoder",
    "GINLayer",
    "GINRegressor",
    "GraphBatch",
    "GraphSet",
    "MAETables",
    "Method",
    "PygGINRegressor",
    "SearchReport",
    "SeedView",
    "TargetHead",
    "WeightedGCNLayer",
    "ablation_measures",
    "attention_by_part",
    "attention_search",
    "base_graph",
    "bernoulli_kl",
    "copy_erm_weights",
    "describe_sizes",
    "embedding_info",
    "erm_loss",
    "fit",
    "gate_part_lines",
    "mae",
    "mae_tables",
    "make_dataset",
    "make_graph",
    "make_model",
    "make_splits",
    "mix_loss",
    "node_attention",
    "paper_table1",
    "peer_agreement",
    "predict",
    "read_mechanism_search",
    "search_report",
    "search_summary",
    "seed_streams",
    "seed_view",
    "shortcut_rate",
    "shortcut_sweep",
    "shortcut_type",
    "split_table",
    "sum_neighbours",
    "sum_pool",
    "tail_errors",
    "train_methods",
    "train_seeds",
    "write_mechanism_search",
    "y_bin",
]

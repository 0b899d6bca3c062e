"""Online strategic classification with a revealed or a hidden classifier.

Chapter 09 (Shao, Xie, Yang, "Should Decision-Makers Reveal Classifiers in Online
Strategic Classification?", ICML 2025, arXiv 2506.01936). The paper is theory only and
has no code; every algorithm here is our reconstruction, and the chapter says which
parts come from where.

Notation
--------
- Manipulation graph G = (X, E) on nodes 0..n-1 with a self-loop at every node.
  `adj[x, v]` is True when an agent at x can move to v, i.e. v ∈ N_out[x]. `k_out` and
  `k_in` are the largest |N_out[x]| and |N_in[x]|, self-loops included.
- A finite class H of classifiers h: X → {0, 1}, stored as a boolean matrix `H[j, v]`.
- Best response to a (possibly fractional) classifier h: BR_h(x) = argmax_{v ∈ N_out[x]}
  h(v).
- Strategic realisability: some target h* ∈ H labels every agent x by y = f_{h*}(x) =
  max_{v ∈ N_out[x]} h*(v) (the agent is positive when it can reach a node h* accepts).
  `F[j, x] = f_{H[j]}(x)` are these effective labels.
- One round t: the decision-maker (DM) commits h_t; the adversary, who sees h_t, picks
  an agent (x_t, y_t); the agent moves to a best response v_t; the DM observes (v_t,
  y_t), never x_t; a mistake is h_t(v_t) ≠ y_t.
- Response models (`model=`):
  * "std": Revealed-Std, agents best-respond to h_t and stay at x_t when x_t is a best
    response (other ties are broken by the adversary);
  * "arb": Revealed-Arb, agents best-respond to h_t, every tie broken by the adversary;
  * "weighted": γ-Weighted, agents do not see h_t but best-respond to the discounted
    average h̄_t ∝ Σ_{s<t} γ^{t-1-s} h_s of past classifiers, ties broken by the
    adversary. With no history (t = 1) we fix h̄_1 ≡ 0: every node ties. γ ∈ [0, 1); γ =
    0 means h̄_t = h_{t-1}.
  Agents compare h̄ exactly: two nodes tie only when their histories are identical. (For
  a rational γ = p/q with q > 1, distinct 0/1 histories never give equal sums.)

Nothing here prints, plots or writes files; randomness comes in as a numpy Generator.

Parts, one file each (every name is re-exported here, so `strategic_reveal.f(...)` works):
`instances` (graphs with their hypothesis classes: star, switch gadget, random DAGs, the
version space), `memory` (best responses, the discounted memory and its exact order,
r*(γ)), `learners` (the learners, the adversary, `simulate`, our mistake bounds),
`protocol` (the chapter's sweeps) and `summaries` (what its claims are read from).
"""

from .instances import (
    SWITCH_ROLES,
    Instance,
    effective_labels,
    make_instance,
    random_dag_instance,
    star_instance,
    switch_gadget,
    version_space,
)
from .learners import (
    MODELS,
    RULES,
    Adversary,
    Learner,
    Trace,
    aby_threshold,
    accept_once,
    conservative,
    halving,
    halving_naive,
    kin_threshold,
    mistake_bound,
    positive_on_vs,
    proper,
    simulate,
)
from .memory import (
    allowed_moves,
    best_response,
    memory_ranks,
    r_star,
    stale_rounds,
    stale_rounds_closed_form,
    weighted_average,
)
from .protocol import (
    SWITCH_LEARNERS,
    dag_sweep,
    learner_set,
    play,
    star_horizon,
    star_sweep,
    switch_sweep,
)
from .summaries import (
    BoundSummary,
    DagSummary,
    HiddenStarSummary,
    StaleSummary,
    StarSummary,
    SwitchSummary,
    describe_sizes,
    span,
    stale_sweep,
    summarise_bounds,
    summarise_dag,
    summarise_hidden_star,
    summarise_star,
    summarise_switch,
)

__all__ = [
    "Adversary",
    "BoundSummary",
    "DagSummary",
    "HiddenStarSummary",
    "Instance",
    "Learner",
    "MODELS",
    "RULES",
    "SWITCH_LEARNERS",
    "SWITCH_ROLES",
    "StaleSummary",
    "StarSummary",
    "SwitchSummary",
    "Trace",
    "aby_threshold",
    "accept_once",
    "allowed_moves",
    "best_response",
    "conservative",
    "dag_sweep",
    "describe_sizes",
    "effective_labels",
    "halving",
    "halving_naive",
    "kin_threshold",
    "learner_set",
    "make_instance",
    "memory_ranks",
    "mistake_bound",
    "play",
    "span",
    "positive_on_vs",
    "proper",
    "r_star",
    "random_dag_instance",
    "simulate",
    "stale_rounds",
    "stale_rounds_closed_form",
    "stale_sweep",
    "star_horizon",
    "star_instance",
    "star_sweep",
    "summarise_bounds",
    "summarise_dag",
    "summarise_hidden_star",
    "summarise_star",
    "summarise_switch",
    "switch_gadget",
    "switch_sweep",
    "version_space",
    "weighted_average",
]

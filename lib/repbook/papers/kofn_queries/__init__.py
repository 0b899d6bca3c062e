"""Selecting k out of n with few value queries (chapter 02, ICML 2025; paper not identified).

The problem: a set function f on the ground set {0, ..., n-1}, monotone and submodular (or
additive), is known only through a *value oracle*; pick |S| <= k maximising f(S), or estimate
OPT = max_{|S|<=k} f(S), with as few oracle calls ("queries") as possible.

Query model, decided once for the whole module:

- one query = one evaluation of f on one set; f(empty set) = 0 is known and free;
- an algorithm keeps f(S) of its current set, so a marginal gain f(S + e) - f(S) costs one query;
- there is no cache: asking the same set twice costs two queries (our algorithms never do it,
  except lazy greedy, whose re-evaluations are of new sets);
- the value of an algorithm's output is measured by a referee outside the budget
  (``Selection.value``), so a random k-set costs 0 queries.

Instances (frozen dataclasses with ``n``, ``value(S)`` and an incremental interface used by the
algorithms): ``Additive``, ``Coverage``, ``FacilityLocation``, ``HiddenElement`` (a family of ours,
see there) and ``CallableFunction`` (any small function, e.g. for brute force).

Algorithms return a ``Selection`` (indices, referee value, queries used): ``greedy``
(n k - k(k-1)/2 queries), ``lazy_greedy``, ``stochastic_greedy`` (Mirzasoleiman et al. 2015),
``subsample_greedy``, ``random_k``, ``top_singletons`` and ``best_of_blocks``; ``run_budgeted``
fits a budget q.

The OPT-value estimator for additive f, ``level_estimate``, is *our illustration*, not the paper's
algorithm: from q sampled singleton values, estimate the level counts c_l = #{e : w_e >= 2^l} by
(n/q) times the count in the sample and return sum_l 2^l min(k, c_l). With exact counts it lies
strictly between OPT/2 and 2 OPT.

Files: `functions` (the set functions), `algorithms` (the oracle, query counts and algorithms),
`instances` (instances and the estimator), `protocols` (the chapter's sweeps), `summaries`
(what the chapter reads from them, and the peers' greedy), `readings` (the sentences it prints
under its tables). Everything is numpy/scipy (the
peers aside); no printing, plotting or file writing.
"""

from .algorithms import (
    ALGORITHMS,
    BudgetExceeded,
    QueryOracle,
    Selection,
    best_of_blocks,
    brute_force_opt,
    greedy,
    greedy_queries,
    lazy_greedy,
    least_budget,
    min_budget,
    random_k,
    run_budgeted,
    stochastic_greedy,
    stochastic_greedy_queries,
    stochastic_greedy_sample_size,
    subsample_greedy,
    top_singletons,
)
from .functions import (
    Additive,
    CallableFunction,
    Coverage,
    FacilityLocation,
    HiddenElement,
    SetFunction,
    check_monotone_submodular,
)
from .instances import (
    ADDITIVE_KINDS,
    additive_instance,
    additive_opt,
    coverage_instance,
    hidden_element_instance,
    level_estimate,
    rbf_similarity,
    sampled_level_estimates,
)
from .protocols import (
    estimator_success_by_kind,
    GRIDDED,
    NESTED,
    TARGET,
    RngFactory,
    budget_grid,
    equal_seed_best,
    estimator_q_table,
    estimator_success,
    family_opt,
    fit_slopes,
    greedy_against_brute_force,
    hidden_family,
    planted_family,
    q_star_estimator,
    q_star_suite,
    q_star_table,
    ratio_curves,
    ratio_slope,
    upper_half,
)
from .readings import (
    estimator_reading,
    hidden_cell_reading,
    hidden_family_reading,
    natural_reach_line,
    natural_summary_lines,
    planted_cell_reading,
    planted_family_reading,
)
from .summaries import (
    FamilyFit,
    NaturalCurves,
    estimator_table,
    fit_family,
    natural_curves,
    peer_greedy,
    suite_table,
)

__all__ = [
    "ALGORITHMS",
    "ADDITIVE_KINDS",
    "Additive",
    "Coverage",
    "FacilityLocation",
    "HiddenElement",
    "CallableFunction",
    "SetFunction",
    "check_monotone_submodular",
    "BudgetExceeded",
    "QueryOracle",
    "Selection",
    "greedy_queries",
    "stochastic_greedy_sample_size",
    "stochastic_greedy_queries",
    "min_budget",
    "greedy",
    "lazy_greedy",
    "stochastic_greedy",
    "subsample_greedy",
    "random_k",
    "top_singletons",
    "best_of_blocks",
    "run_budgeted",
    "brute_force_opt",
    "least_budget",
    "additive_opt",
    "additive_instance",
    "hidden_element_instance",
    "coverage_instance",
    "rbf_similarity",
    "level_estimate",
    "sampled_level_estimates",
    "RngFactory",
    "TARGET",
    "NESTED",
    "GRIDDED",
    "budget_grid",
    "upper_half",
    "q_star_suite",
    "q_star_table",
    "equal_seed_best",
    "ratio_curves",
    "fit_slopes",
    "ratio_slope",
    "hidden_family",
    "planted_family",
    "family_opt",
    "estimator_success",
    "q_star_estimator",
    "estimator_q_table",
    "greedy_against_brute_force",
    "estimator_success_by_kind",
    "FamilyFit",
    "NaturalCurves",
    "estimator_table",
    "fit_family",
    "natural_curves",
    "peer_greedy",
    "suite_table",
    "estimator_reading",
    "hidden_cell_reading",
    "hidden_family_reading",
    "natural_reach_line",
    "natural_summary_lines",
    "planted_cell_reading",
    "planted_family_reading",
]

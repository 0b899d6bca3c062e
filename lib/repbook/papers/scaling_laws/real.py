"""The paper's protocols on the real training curves it collected (IBM/ColPret, MIT licence).

Curves are DataFrames with one row per checkpoint and the columns ``family, model, params,
tokens, loss`` (`params` = N, `tokens` = D seen so far, `loss` = the family's metric; see the
data README). A *family* is the paper's "scaled set": models of one recipe at several sizes;
its largest model is the *target*.

The conventions follow the official code (read, not copied):
- the fit is least squares on the raw metric over (a, b, e, α, β) with A = e^a, B = e^b,
  E = e^e, α, β ≥ 0 and nothing else bounded, from `OFFICIAL_START` (`fit_official`);
- a fit uses the checkpoints of its models with more than `min_tokens` = 10¹⁰ tokens and,
  for a training fraction p, those with fewer than p × the tokens of the longest run among
  the fitted models (and, with a lower fraction q, at least q × those tokens);
- ARE is the mean of |L − L̂| / L over the target's checkpoints from `test_fraction` = 70 % of its
  training onward (also above `min_tokens`), not its final loss alone;
- "closer in scale": windows of `window` = 4 (or 3) consecutive model sizes below the target;
- OPT is fitted on its perplexity (`as_official`); the datablations GPT-2 sets are averaged
  into two groups (`official_group`) where the official summaries average them;
- the one-model fit fixes (A, α) to the datablations constants of Muennighoff et al. (2023),
  ColPret's starting values (`DATABLATIONS_A_ALPHA`).
No printing, plotting or file writing.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import OptimizeWarning, curve_fit

from repbook.core import checks

from .synthetic import ScalingFit, fit_scaling_law

REAL_COLUMNS = ["family", "model", "params", "tokens", "loss"]
MIN_TOKENS = 1e10
TEST_FRACTION = 0.7
WINDOW = 4
FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
NO_DATA_TERM = {"B": 1e-30, "beta": 1.0}
"""Fixes B/D^β to nothing: the law E + A/N^α that final losses alone can identify."""
NO_SIZE_TERM = {"A": 1e-30, "alpha": 1.0}
"""Fixes A/N^α to nothing: E + B/D^β, what one model's own curve says without a size term."""
OFFICIAL_START = (6.255414, 7.3049974, 0.6254804, 0.3526596, 0.3526596)
"""The official fit's starting point, in its order (a, b, e, α, β): A = e^a, B = e^b, E = e^e.
These are the datablations constants of Muennighoff et al. (2023), their fit of the
data-constrained law on the datablations GPT-2 runs (A ≈ 521, B ≈ 1488, E ≈ 1.87,
α = β ≈ 0.353; the official code lists them with that law's R*_D and R*_N and calls them the
datablations guesses): ColPret's starting values, not Chinchilla's fit (A = 406.4, α = 0.34)."""
DATABLATIONS_A_ALPHA = {"A": float(np.exp(6.255414)), "alpha": 0.3526596}
"""The (A, α) the official one-model fit fixes for every family: the datablations constants of
Muennighoff et al. (2023), ColPret's starting values (`OFFICIAL_START`)."""
BORROWED_FROM = ("GPT2-c4", "GPT2-oscar")
"""Family prefixes of the datablations GPT-2 runs the constants were fitted on."""
PPL_FAMILIES = ("OPT",)
"""Families whose shipped loss is ln(perplexity) while the official loader fits perplexity."""
LOG2_FAMILIES = ("t5-pile",)
"""Families shipped as ln(perplexity) that the official loader fits as log₂(perplexity)."""
NOT_NATS = ("lambda",)
"""Families whose shipped metric is not a next-token loss in nats (lambda's capped `Loss`)."""
OBJECTIVES = ("official", "huber")


def check_curves(curves: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in REAL_COLUMNS if c not in curves.columns]
    if missing:
        raise ValueError(f"curves lack column(s) {missing}; expected {REAL_COLUMNS}")
    bad = ~(np.isfinite(curves[["params", "tokens", "loss"]]).all(axis=1))
    if bad.any() or (curves[["params", "tokens", "loss"]] <= 0).any().any():
        raise ValueError("params, tokens and loss must be finite and positive")
    return curves


def as_official(curves: pd.DataFrame) -> pd.DataFrame:
    """The metric the official code fits: perplexity for `PPL_FAMILIES`, log₂(perplexity) for
    `LOG2_FAMILIES`, the shipped loss otherwise (a fit with A and α fixed depends on the unit)."""
    c = check_curves(curves).copy()
    ppl = c.family.isin(PPL_FAMILIES)
    c.loc[ppl, "loss"] = np.exp(c.loc[ppl, "loss"])
    log2 = c.family.isin(LOG2_FAMILIES)
    c.loc[log2, "loss"] = c.loc[log2, "loss"] / np.log(2.0)
    return c


def official_group(family: str) -> str:
    """The unit the official summaries average over: the datablations GPT-2 sets of one data set
    (any epochs) form one group, GPT2-c4-all or GPT2-oscar-all; other families stand alone."""
    for data in ("c4", "oscar"):
        if str(family).startswith(f"GPT2-{data}"):
            return f"GPT2-{data}-all"
    return str(family)


def models_by_size(curves: pd.DataFrame, family: str) -> list[str]:
    """The family's models, smallest first (the last is the target)."""
    c = check_curves(curves)
    d = c[c.family == family]
    if d.empty:
        raise ValueError(f"no family {family!r}; have {sorted(c.family.unique())}")
    sizes = d.groupby("model").params.agg(["min", "max"])
    if (sizes["min"] != sizes["max"]).any():
        raise ValueError(f"family {family!r}: a model has more than one size")
    return list(sizes["min"].sort_values(kind="stable").index)


def _check_fraction(name, value):
    """A training fraction in (0, 1], or None."""
    if value is not None:
        checks.number(name, value, above=0.0, at_most=1.0)


def train_points(
    curves: pd.DataFrame,
    models,
    *,
    fraction: float = 1.0,
    min_fraction: float | None = None,
    min_tokens: float = MIN_TOKENS,
    final_only: bool = False,
) -> pd.DataFrame:
    """Checkpoints a fit may use, as the official selection: the given models' checkpoints with
    tokens > `min_tokens` (0 = no cut), tokens < `fraction` × T and, with `min_fraction` q,
    tokens ≥ q × T, where T is the longest of those runs. With `final_only`, each model's
    last checkpoint above `min_tokens` (no fraction)."""
    _check_fraction("fraction", fraction)
    _check_fraction("min_fraction", min_fraction)
    checks.number("min_tokens", min_tokens, at_least=0.0)
    c = check_curves(curves)
    d = c[c.model.isin(list(models))]
    if d.empty:
        raise ValueError(f"no checkpoints for models {list(models)}")
    longest = d.tokens.max()
    d = d[d.tokens > min_tokens]
    if final_only:
        return d.loc[d.groupby("model").tokens.idxmax()] if len(d) else d
    d = d[d.tokens < fraction * longest]
    if min_fraction:
        d = d[d.tokens >= min_fraction * longest]
    return d


def target_points(
    curves: pd.DataFrame,
    target: str,
    *,
    test_fraction: float = TEST_FRACTION,
    min_tokens: float = MIN_TOKENS,
) -> pd.DataFrame:
    """The target's checkpoints ARE is computed on: from `test_fraction` of its run onward."""
    checks.number("test_fraction", test_fraction, at_least=0.0, at_most=1.0)
    c = check_curves(curves)
    d = c[c.model == target]
    if d.empty:
        raise ValueError(f"no checkpoints for target {target!r}")
    d = d[(d.tokens >= test_fraction * d.tokens.max()) & (d.tokens > min_tokens)]
    if d.empty:
        raise ValueError(f"target {target!r} has no checkpoint to test on")
    return d


def mean_are(predicted, actual) -> float:
    """Mean absolute relative error, mean(|actual − predicted| / actual)."""
    p, a = np.asarray(predicted, dtype=float), np.asarray(actual, dtype=float)
    if p.shape != a.shape or a.size == 0:
        raise ValueError(f"need equal, non-empty shapes, got {p.shape} and {a.shape}")
    if np.any(a <= 0):
        raise ValueError("actual losses must be positive")
    return float(np.mean(np.abs(a - p) / a))


_OFFICIAL_ORDER = ("A", "B", "E", "alpha", "beta")  # the official (a, b, e, α, β)


def fit_official(N, D, loss, *, fixed: dict | None = None) -> ScalingFit | None:
    """The official objective: least squares on the raw metric, L̂ = e^e + e^a/N^α + e^b/D^β,
    α, β ≥ 0, a, b, e unbounded, from `OFFICIAL_START` (`curve_fit`, trust-region reflective;
    when that stops at its evaluation budget, once more by 'dogbox' scaled by the start).
    `fixed` names parameters on their natural scale (A, B, E, alpha, beta). Returns None when
    the fit fails (as the official code scores nothing then)."""
    N, D, L = (np.asarray(x, dtype=np.float64).ravel() for x in (N, D, loss))
    if not (N.size == D.size == L.size) or L.size == 0:
        raise ValueError(f"N, D and loss need one non-zero length, got {N.size}, {D.size}, "
                         f"{L.size}")  # fmt: skip
    fixed = dict(fixed or {})
    unknown = set(fixed) - set(_OFFICIAL_ORDER)
    if unknown:
        raise ValueError(
            f"fixed may only name {_OFFICIAL_ORDER}, got {sorted(unknown)}"
        )
    free = [p for p in _OFFICIAL_ORDER if p not in fixed]
    if not free:
        raise ValueError("every parameter is fixed: nothing to fit")
    start = dict(zip(_OFFICIAL_ORDER, OFFICIAL_START))
    logs = {p: float(np.log(v)) if p in ("A", "B", "E") else float(v)
            for p, v in fixed.items()}  # fmt: skip
    X = np.stack([N, D])

    def law(X, *theta):
        q = dict(logs, **dict(zip(free, theta)))
        return (np.exp(q["E"]) + np.exp(q["A"]) / X[0] ** q["alpha"]
                + np.exp(q["B"]) / X[1] ** q["beta"])  # fmt: skip

    p0 = [start[p] for p in free]
    bounds = ([0.0 if p in ("alpha", "beta") else -np.inf for p in free],
              [np.inf] * len(free))  # fmt: skip
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", OptimizeWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            try:
                theta, _ = curve_fit(law, X, L, p0=p0, bounds=bounds)
            except RuntimeError:
                theta, _ = curve_fit(law, X, L, p0=p0, bounds=bounds, method="dogbox",
                                     x_scale=np.abs(p0))  # fmt: skip
        except (RuntimeError, ValueError, np.linalg.LinAlgError):
            return None
        if not np.all(np.isfinite(theta)):
            return None
        q = dict(logs, **dict(zip(free, theta)))
        cost = 0.5 * float(np.sum((law(X, *theta) - L) ** 2))
    natural = {p: float(fixed[p]) if p in fixed
               else float(np.exp(q[p])) if p in ("A", "B", "E") else float(q[p])
               for p in _OFFICIAL_ORDER}  # fmt: skip
    return ScalingFit(**natural, cost=cost, n_points=int(L.size), fixed=fixed)


START = (0.3527,)
"""Our (Huber) fit's one start on the real curves, at the official starting exponents."""


def fit_points(
    points: pd.DataFrame, *, objective: str = "official", fixed: dict | None = None
) -> ScalingFit | None:
    """Fit a selection of checkpoints with the official objective (`fit_official`) or ours
    ("huber": `fit_scaling_law`, log-space Huber, one start at `START`)."""
    checks.one_of("objective", objective, OBJECTIVES)
    if len(points) == 0:
        raise ValueError("no checkpoints selected to fit")
    args = (points.params.to_numpy(), points.tokens.to_numpy(), points.loss.to_numpy())
    if objective == "official":
        return fit_official(*args, fixed=fixed)
    return fit_scaling_law(*args, fixed=fixed, exponent_inits=START)


def law_are(fit: ScalingFit | None, test: pd.DataFrame) -> float:
    if fit is None:
        return float("nan")
    with np.errstate(all="ignore"):
        pred = fit.predict(test.params.to_numpy(), test.tokens.to_numpy())
    if not np.all(np.isfinite(pred)):
        return float("nan")
    return mean_are(pred, test.loss)


@dataclass(frozen=True)
class Outcome:
    """One fit judged on the target: ARE (NaN when too few points to fit), points used."""

    are: float
    n_points: int
    n_models: int


def evaluate(
    curves: pd.DataFrame,
    models,
    target: str,
    *,
    fraction: float = 1.0,
    min_fraction: float | None = None,
    min_tokens: float = MIN_TOKENS,
    final_only: bool = False,
    fixed: dict | None = None,
    test_fraction: float = TEST_FRACTION,
    objective: str = "official",
    min_models: int | None = None,
) -> Outcome:
    """Fit the law on `models` (as `train_points` selects) and score it on `target` by ARE.

    With the official objective a fit needs one point, as the official code fits whatever it
    selects; with ours, free parameters need at least as many points and, for α, two model
    sizes. A final-only fit fits E + A/N^α (B/D^β fixed to nothing) and needs three models.
    `min_models` overrides the count of models. Otherwise (or when the fit fails) ARE is NaN."""
    pts = train_points(curves, models, fraction=fraction, min_fraction=min_fraction,
                       min_tokens=min_tokens, final_only=final_only)  # fmt: skip
    fixed = dict(NO_DATA_TERM if final_only else {}, **(fixed or {}))
    n_free = 5 - len(fixed)
    n_models = int(pts.model.nunique())
    need_models = 3 if final_only else (2 if "alpha" not in fixed else 1)
    need_models = need_models if min_models is None else min_models
    need_points = 1 if objective == "official" else max(n_free, 1)
    if objective == "official" and not final_only and min_models is None:
        need_models = 1
    if len(pts) < need_points or n_models < need_models:
        return Outcome(float("nan"), int(len(pts)), n_models)
    f = fit_points(pts, fixed=fixed, objective=objective)
    test = target_points(
        curves, target, test_fraction=test_fraction, min_tokens=min_tokens
    )
    return Outcome(law_are(f, test), int(len(pts)), n_models)


def windows(models: list[str], size: int = WINDOW) -> list[list[str]]:
    """Every run of `size` consecutive models below the target (models[-1]), smallest first."""
    checks.integer("size", size, at_least=2)
    below = list(models)[:-1]
    return [below[i : i + size] for i in range(len(below) - size + 1)]


def window_errors(
    curves: pd.DataFrame,
    family: str,
    *,
    size: int = WINDOW,
    fractions=FRACTIONS,
    objective: str = "official",
) -> pd.DataFrame:
    """Claim 1's protocol: ARE on the target of laws fitted on each window of `size`
    consecutive sizes, at each training fraction. One row per (window, fraction); window 0 is
    the farthest from the target."""
    models = models_by_size(curves, family)
    rows = []
    for w, ms in enumerate(windows(models, size)):
        for p in fractions:
            o = evaluate(curves, ms, models[-1], fraction=p, objective=objective)
            rows.append(dict(family=family, window=w, largest=ms[-1], fraction=p,
                             are=o.are, n_points=o.n_points))  # fmt: skip
    return pd.DataFrame(
        rows, columns=["family", "window", "largest", "fraction", "are", "n_points"]
    )


def consecutive_gains(errors: pd.DataFrame) -> pd.DataFrame:
    """Paired gains of moving a window one size closer: for windows w and w + 1 of a family,
    the mean over training fractions (where both fitted) of ARE(w) − ARE(w + 1)."""
    rows = []
    for fam, d in errors.groupby("family", sort=False):
        wide = d.pivot_table(index="fraction", columns="window", values="are")
        for w in [w for w in wide.columns if w + 1 in wide.columns]:
            diff = (wide[w] - wide[w + 1]).dropna()
            if len(diff):
                rows.append(dict(family=fam, pair=f"{fam}: {w}→{w + 1}",
                                 gain=float(diff.mean()), n=len(diff)))  # fmt: skip
    return pd.DataFrame(rows, columns=["family", "pair", "gain", "n"])


def family_gains(gains: pd.DataFrame) -> pd.Series:
    """One gain per family: the mean of its (overlapping, hence dependent) window pairs."""
    return gains.groupby("family", sort=False).gain.mean()


PAIR_COLUMNS = ["family", "k", "fraction", "baseline", "method", "baseline_points",
                "method_points", "baseline_models", "method_models"]  # fmt: skip


def protocol_pair(
    curves: pd.DataFrame,
    family: str,
    *,
    baseline: dict,
    method: dict,
    fractions=(1.0,),
    counts=None,
) -> pd.DataFrame:
    """Two fitting protocols on the same fits: for every number k of smallest non-target models
    (`counts`, default all k ≥ 2) and training fraction, the ARE of `baseline` and `method`
    (keyword arguments of `evaluate`, e.g. `final_only=True` or `min_tokens=0`), with the
    points and model sizes each fit used. One row per (k, fraction) where both fitted."""
    models = models_by_size(curves, family)
    target, below = models[-1], models[:-1]
    counts = range(2, len(below) + 1) if counts is None else counts
    rows = []
    for k in counts:
        if not 1 <= k <= len(below):
            raise ValueError(f"count {k} outside 1..{len(below)} for family {family!r}")
        for p in fractions:
            a = evaluate(
                curves, below[:k], target, **dict(dict(fraction=p), **baseline)
            )
            b = evaluate(curves, below[:k], target, **dict(dict(fraction=p), **method))
            if np.isfinite(a.are) and np.isfinite(b.are):
                rows.append(dict(family=family, k=k, fraction=p, baseline=a.are,
                                 method=b.are, baseline_points=a.n_points,
                                 method_points=b.n_points, baseline_models=a.n_models,
                                 method_models=b.n_models))  # fmt: skip
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def enough_points(
    res: pd.DataFrame,
    *,
    min_points: int = 5,
    min_sizes: int = 2,
    side: str = "baseline",
) -> pd.DataFrame:
    """The rows of a `protocol_pair` table whose `side` fit ("baseline" or "method") used at
    least `min_points` checkpoints from at least `min_sizes` model sizes: enough to determine
    the five parameters of a law with a size term."""
    checks.one_of("side", side, ("baseline", "method"))
    checks.integer("min_points", min_points, at_least=1)
    checks.integer("min_sizes", min_sizes, at_least=1)
    if res.empty:
        return res
    keep = (res[f"{side}_points"] >= min_points) & (res[f"{side}_models"] >= min_sizes)
    return res[keep]


def minimal_cut_pair(
    curves: pd.DataFrame,
    family: str,
    *,
    early: float = 0.1,
    late: float = 0.99,
    objective: str = "official",
    counts=None,
) -> pd.DataFrame:
    """The official comparison of intermediate checkpoints: the k smallest non-target models'
    checkpoints with tokens < `TEST_FRACTION` × T (T: their longest run) and, as the earliest
    kept, ≥ `early` × that window (`baseline` = the late cut, `late` × the window, nearly the
    window's last checkpoints only; `method` = the early cut). Rows as `protocol_pair`."""
    for name, v in (("early", early), ("late", late)):
        _check_fraction(name, v)
    return protocol_pair(
        curves, family, counts=counts, fractions=(TEST_FRACTION,),
        baseline=dict(min_fraction=late * TEST_FRACTION, objective=objective),
        method=dict(min_fraction=early * TEST_FRACTION, objective=objective),
    )  # fmt: skip


def grouped_gains(res: pd.DataFrame, by=("k", "fraction")) -> pd.Series:
    """One gain per official group (`official_group`): baseline − method ARE, first averaged
    over a group's families at each (k, fraction), as the official summaries average them, then
    over its fits."""
    if res.empty:
        return pd.Series(dtype=float)
    d = res.assign(group=res.family.map(official_group))
    per = d.groupby(["group", *by], sort=False)[["baseline", "method"]].mean()
    return (per.baseline - per.method).groupby("group", sort=False).mean()


def removed_share(res: pd.DataFrame) -> pd.Series:
    """Per official group: the share of the baseline's fitted points the method leaves out."""
    d = res.assign(group=res.family.map(official_group))
    s = d.groupby("group", sort=False)[["baseline_points", "method_points"]].sum()
    return 1.0 - s.method_points / s.baseline_points


def one_model_errors(
    curves: pd.DataFrame,
    family: str,
    *,
    fractions=FRACTIONS,
    objective: str = "official",
) -> pd.DataFrame:
    """Claim 5's official set-up: for each non-target model and training fraction, fit one
    model with (A, α) fixed to `DATABLATIONS_A_ALPHA` (`fixed`); as the judged comparator, the
    same model's own law without a size term, E + B/D^β (`no_size`, A = 0); and, as a
    sensitivity column, all five parameters on the same checkpoints (`free`: one size cannot
    tell α from A, so it extrapolates in N from its start; NaN where it fails). All scored by
    ARE on the target. One row per (model, fraction) where `fixed` and `no_size` fitted."""
    models = models_by_size(curves, family)
    target = models[-1]
    rows = []
    for m in models[:-1]:
        for p in fractions:
            kw = dict(fraction=p, objective=objective)
            fx = evaluate(curves, [m], target, fixed=DATABLATIONS_A_ALPHA, **kw)
            ns = evaluate(curves, [m], target, fixed=NO_SIZE_TERM, **kw)
            # one size cannot tell α from A; the free fit is fitted anyway (ill-posed)
            fr = evaluate(curves, [m], target, min_models=1, **kw)
            if np.isfinite(fx.are) and np.isfinite(ns.are):
                rows.append(dict(family=family, model=m, fraction=p, fixed=fx.are,
                                 no_size=ns.are, free=fr.are,
                                 n_points=fx.n_points))  # fmt: skip
    return pd.DataFrame(rows, columns=["family", "model", "fraction", "fixed", "no_size",
                                       "free", "n_points"])  # fmt: skip


def target_gains(
    res: pd.DataFrame, comparator: str, method: str = "fixed", *, relative: bool = False
) -> pd.Series:
    """One gain per target family of a `one_model_errors` table: the mean over its models and
    fractions (where both are finite) of ARE(`comparator`) − ARE(`method`); with `relative`,
    that difference of means divided by the comparator's mean ARE."""
    for c in (comparator, method):
        if c not in ("fixed", "no_size", "free"):
            raise ValueError(f"column must be fixed, no_size or free, got {c!r}")
    if res.empty:
        return pd.Series(dtype=float)
    d = res.dropna(subset=[comparator, method])
    m = d.groupby("family", sort=False)[[comparator, method]].mean()
    gain = m[comparator] - m[method]
    return gain / m[comparator] if relative else gain


def own_law(
    curves: pd.DataFrame, family: str, *, objective: str = "official"
) -> ScalingFit | None:
    """A family's law from all its non-target models (every checkpoint above 10¹⁰ tokens)."""
    models = models_by_size(curves, family)
    return fit_points(train_points(curves, models[:-1]), objective=objective)


def borrowed_errors(
    curves: pd.DataFrame, families, *, objective: str = "official"
) -> pd.DataFrame:
    """Per-family borrowing for every ordered pair (target family T, source family S ≠ T):
    - `as_is`: S's own law predicts T's target;
    - `borrowed`: A and α from S's law, E, B and β fitted on ONE model of T (its largest
      non-target model, every checkpoint above 10¹⁰ tokens);
    - `own`: T's own law from all its non-target models (context).
    All are scored by ARE on T's target."""
    families = list(families)
    if len(families) < 2:
        raise ValueError("need at least two families")
    laws = {f: own_law(curves, f, objective=objective) for f in families}
    rows = []
    for t in families:
        models = models_by_size(curves, t)
        test = target_points(curves, models[-1])
        one = train_points(curves, [models[-2]])
        for s in families:
            src = laws[s]
            if s == t or src is None:
                continue
            borrowed = fit_points(one, fixed={"A": src.A, "alpha": src.alpha},
                                  objective=objective)  # fmt: skip
            rows.append(dict(target=t, source=s, one_model=models[-2],
                             as_is=law_are(src, test), borrowed=law_are(borrowed, test),
                             own=law_are(laws[t], test)))  # fmt: skip
    return pd.DataFrame(rows)


PROTOCOL_FUNCTIONS = {
    "window_errors": window_errors,
    "protocol_pair": protocol_pair,
    "minimal_cut_pair": minimal_cut_pair,
    "one_model_errors": one_model_errors,
}


def _run_task(curves, task):
    name, family, kwargs = task
    return PROTOCOL_FUNCTIONS[name](curves, family, **kwargs)


def run_tasks(curves: pd.DataFrame, tasks, *, n_jobs: int = 1) -> list[pd.DataFrame]:
    """Run protocol tasks (name in `PROTOCOL_FUNCTIONS`, family, keyword arguments), in that
    many worker processes when `n_jobs` > 1; the fits are deterministic, so the results are
    the same either way. Returns one DataFrame per task, in order."""
    tasks = [(n, f, dict(kw)) for n, f, kw in tasks]
    unknown = sorted({n for n, _, _ in tasks} - set(PROTOCOL_FUNCTIONS))
    if unknown:
        raise ValueError(
            f"unknown protocol(s) {unknown}; have {list(PROTOCOL_FUNCTIONS)}"
        )
    checks.integer("n_jobs", n_jobs, at_least=1)
    check_curves(curves)
    if n_jobs == 1:
        return [_run_task(curves, t) for t in tasks]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=n_jobs, backend="loky", inner_max_num_threads=1)(
        delayed(_run_task)(curves, t) for t in tasks
    )

"""The chapter's runs, in the order it makes them: the fixed recipe (``Setting``), the base run
with its control and the reference runs (``base_runs``), the grid of perturbed copies
(``perturbation_grid``), claim 1's extra draws (``more_draws``) and the reach of a share of draws
(``reached_by``), claim 2's median draws through time (``follow_draws``, ``time_tables``).

Randomness comes from ``rng_for(k)``, the chapter's k-th ``torch.Generator`` (its
``run.torch_generator``); stream k is fixed per use (1 + i: initialisation i; 100 + k: batch order
k; 10 000 + 100·kind + draw: a perturbation), so each run is the same whatever ran before. No
function here prints, plots or writes files.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import torch
from torch import nn

from repbook.core import checks
from repbook.core.stats import spearman_rho

from .matching import PermSpec, mlp_perm_spec, resnet_perm_spec
from .measures import evaluate, l2_distance
from .models import MLP, Params, ResNetLN, init_params, init_stds, perturbable
from .perturb import typical_draws
from .protocol import (
    Perturbation,
    ReferenceRuns,
    Runner,
    adjacent_rises,
    excess_divergence,
    make_runner,
    reference_runs,
    spawn_copy,
)
from .training import TrainResult, TrainState, batch_order, train, triangle_schedule


def regime(sizes: Mapping) -> str:
    """What the chapter's checks run on, for its ledger."""
    nets = "MLPs" if sizes["model"] == "mlp" else "LayerNorm ResNet-20"
    return (
        f"{nets} on {sizes['n_train']:,} real MNIST digits; one-weight, one-ulp and "
        f"Gaussian perturbations, {sizes['claim1_draws']} draws per kind for claim 1, "
        f"{sizes['reps_t0']} elsewhere"
    )


@dataclass(frozen=True)
class Setting:
    """The chapter's fixed recipe: the model (its permutation spec, init stds, perturbable
    weights and initialisation scale sqrt(Σ s²)), the train and held-out digits, the shared
    batch order (T steps), the triangle schedule, the perturbation steps and the trace steps."""

    model: nn.Module
    spec: PermSpec
    stds: dict[str, float]
    weight_names: list[str]
    init_scale: float
    Xtr: torch.Tensor
    ytr: torch.Tensor
    Xte: torch.Tensor
    yte: torch.Tensor
    order: torch.Tensor
    lrs: np.ndarray
    t_steps: list[int]
    trace: list[int]
    momentum: float
    batch: int
    epochs: int
    rng_for: Callable[[int], torch.Generator]
    device: str | torch.device = "cpu"

    @property
    def T(self) -> int:
        """Optimisation steps of one run."""
        return len(self.order)

    def init(self, k: int) -> Params:
        """Initialisation k (He-normal weights), from generator k."""
        params = init_params(self.model, generator=self.rng_for(k))
        return {name: v.to(self.device) for name, v in params.items()}

    def make_order(self, k: int) -> torch.Tensor:
        """Batch order k (order 0 is shared by every run but the training-noise runs)."""
        g = self.rng_for(100 + k)
        n = len(self.Xtr)
        return batch_order(
            n, batch_size=self.batch, epochs=self.epochs, generator=g
        ).to(self.device)

    def fit(self, state: TrainState, batches=None, **kw) -> TrainResult:
        """``train`` with the recipe, on ``batches`` (default: the shared order)."""
        batches = self.order if batches is None else batches
        return train(
            self.model,
            state,
            self.Xtr,
            self.ytr,
            batches,
            self.lrs,
            momentum=self.momentum,
            **kw,
        )

    def runner(self) -> Runner:
        """A protocol runner with the recipe."""
        return make_runner(
            self.model, self.Xtr, self.ytr, self.lrs, momentum=self.momentum
        )


def make_setting(
    sizes: Mapping,
    X_all: np.ndarray,
    y_all: np.ndarray,
    *,
    rng_for: Callable[[int], torch.Generator],
    device: str | torch.device = "cpu",
) -> Setting:
    """The recipe of a size table (keys model, width, n_train, batch, epochs, lr, warmup,
    momentum, t_fracs, trace_every) on MNIST digits (X_all: n × 784, the first n_train to
    train)."""
    checks.function("rng_for", rng_for, "a function stream → torch.Generator")
    checks.one_of("sizes['model']", sizes["model"], ("mlp", "resnet20"))
    X = torch.tensor(X_all).view(-1, 1, 28, 28).to(device)
    y = torch.tensor(y_all).to(device)
    n_tr = checks.integer("sizes['n_train']", sizes["n_train"], at_least=1)
    if sizes["model"] == "mlp":
        model = MLP([784] + [sizes["width"]] * 3 + [10])
        spec = mlp_perm_spec(model)
    else:
        model = ResNetLN(depth=20, width=sizes["width"], in_channels=1, n_classes=10)
        spec = resnet_perm_spec(model)
    model = model.to(device)
    stds = init_stds(model)
    weight_names = perturbable(model)
    init_scale = math.sqrt(
        sum(
            stds[k] ** 2 * p.numel()
            for k, p in model.named_parameters()
            if k in weight_names
        )
    )
    order = batch_order(
        n_tr, batch_size=sizes["batch"], epochs=sizes["epochs"], generator=rng_for(100)
    ).to(device)
    T = len(order)
    lrs = triangle_schedule(T, peak_lr=sizes["lr"], warmup_frac=sizes["warmup"])
    t_steps = sorted({int(round(f * T)) for f in sizes["t_fracs"]})
    trace = sorted(set(range(0, T + 1, sizes["trace_every"])) | {T})
    return Setting(
        model=model,
        spec=spec,
        stds=stds,
        weight_names=weight_names,
        init_scale=init_scale,
        Xtr=X[:n_tr],
        ytr=y[:n_tr],
        Xte=X[n_tr:],
        yte=y[n_tr:],
        order=order,
        lrs=lrs,
        t_steps=t_steps,
        trace=trace,
        momentum=sizes["momentum"],
        batch=sizes["batch"],
        epochs=sizes["epochs"],
        rng_for=rng_for,
        device=device,
    )


@dataclass(frozen=True)
class BaseRuns:
    """The base run (initialisation 1, the shared order; states kept at the perturbation and
    trace steps), its control's distance (0, or ``base_runs`` raises), its travel from θ_0, the
    training-noise runs (initialisation 1, orders 1…) and the independent runs (initialisations
    2…, the shared order), each with the base run first, and the base run's train and test
    loss and error."""

    base: TrainResult
    theta_T: Params
    trace: dict[int, Params]
    control_l2: float
    travel: dict[int, float]
    runner: Runner
    orders: ReferenceRuns
    independent: ReferenceRuns
    train_loss: float
    train_error: float
    test_loss: float
    test_error: float

    @property
    def order_l2(self) -> np.ndarray:
        """Final L² of every training-noise pair."""
        return self.orders.l2()

    @property
    def indep_l2(self) -> np.ndarray:
        """Final L² of every independent pair."""
        return self.independent.l2()


def base_runs(s: Setting, *, n_orders: int, n_independent: int) -> BaseRuns:
    """Train the base run, a control from the same initialisation (training must be
    deterministic: a control that does not end exactly on the base run raises), and
    ``n_orders`` − 1 training-noise and ``n_independent`` − 1 independent runs."""
    n_orders = checks.integer("n_orders", n_orders, at_least=2)
    n_independent = checks.integer("n_independent", n_independent, at_least=2)
    base = s.fit(
        TrainState.start(s.init(1)), save_at=sorted(set(s.t_steps) | set(s.trace))
    )
    theta_T = base.final.params
    trace = {t: base.saved[t].params for t in s.trace}
    control = s.fit(TrainState.start(s.init(1))).final
    control_l2 = l2_distance(control.params, theta_T)
    if control_l2 != 0.0:  # every comparison assumes that only ε separates the copies
        raise RuntimeError(
            f"training is not deterministic: the control run ends "
            f"{control_l2!r} from the base run"
        )
    travel = {t: l2_distance(trace[t], trace[0]) for t in s.trace}
    runner = s.runner()
    orders = reference_runs(
        runner,
        theta_T,
        [s.init(1) for i in range(1, n_orders)],
        [s.make_order(i) for i in range(1, n_orders)],
        distance_to=trace,
    )
    independent = reference_runs(
        runner,
        theta_T,
        [s.init(1 + i) for i in range(1, n_independent)],
        [s.order for i in range(1, n_independent)],
        distance_to=trace,
    )
    tr_loss, tr_err = evaluate(s.model, theta_T, s.Xtr, s.ytr)
    te_loss, te_err = evaluate(s.model, theta_T, s.Xte, s.yte)
    return BaseRuns(
        base,
        theta_T,
        trace,
        control_l2,
        travel,
        runner,
        orders,
        independent,
        tr_loss,
        tr_err,
        te_loss,
        te_err,
    )


def draw_stream(kind_index: int, draw: int) -> int:
    """The generator stream of draw ``draw`` of the perturbation kind ``kind_index``."""
    return 10_000 + 100 * kind_index + draw


@dataclass(frozen=True)
class Grid:
    """The perturbed copies: one row per copy (kind, t, rep, ‖ε‖, final L², and ‖ε‖ relative
    to the initialisation scale), their final parameters by (kind, t, rep), the distance
    curves of the copies made at t = 0 by (kind, rep), the draws followed to later t by kind,
    and the moved weight of the one-weight kinds by (kind, rep)."""

    runs: pd.DataFrame
    finals: dict[tuple[str, int, int], Params]
    curves: dict[tuple[str, int], dict[int, float]]
    followed: dict[str, list[int]]
    where: dict[tuple[str, int], tuple[str, int] | None] = field(default_factory=dict)


def perturbation_grid(
    s: Setting,
    b: BaseRuns,
    perturbations: Mapping[str, Perturbation],
    *,
    reps_t0: int,
    reps: int,
) -> Grid:
    """For every kind (in order; kind i draws from streams ``draw_stream(i, rep)``): ``reps_t0``
    copies perturbed at t = 0, then the ``reps`` typical ones (``typical_draws``, the median
    draw first) again at every later perturbation step, each trained to T."""
    reps_t0 = checks.integer("reps_t0", reps_t0, at_least=1)
    rows, finals, curves, followed, where = [], {}, {}, {}, {}

    def spawn(ki, kind, t, rep):
        c = spawn_copy(
            b.runner,
            b.base.saved[t],
            perturbations[kind],
            s.stds,
            b.theta_T,
            s.order,
            generator=s.rng_for(draw_stream(ki, rep)),
            distance_to=b.trace if t == 0 else None,
        )
        where[(kind, rep)] = c.where
        if t == 0:
            curves[(kind, rep)] = c.distances
        finals[(kind, t, rep)] = c.final
        rows.append(dict(kind=kind, t=t, rep=rep, eps=c.eps, l2=c.l2))
        return c.l2

    for ki, kind in enumerate(perturbations):
        at_t0 = [spawn(ki, kind, 0, rep) for rep in range(reps_t0)]
        followed[kind] = typical_draws(at_t0, reps)  # the median draw first
        for t in s.t_steps[1:]:
            for rep in followed[kind]:
                spawn(ki, kind, t, rep)
    runs = pd.DataFrame(rows)
    runs["eff_sigma"] = runs.eps / s.init_scale
    return Grid(runs, finals, curves, followed, where)


def more_draws(
    s: Setting,
    b: BaseRuns,
    kinds: Mapping[str, tuple[int, Perturbation]],
    *,
    draws: int,
    have: pd.DataFrame,
    t: int = 0,
) -> pd.DataFrame:
    """Draws 0 … ``draws`` − 1 at step t of each kind (name → (stream index, perturbation)),
    the ones in ``have`` (rows kind, rep, eps, l2) kept and the others trained; one row per
    draw (kind, rep, ‖ε‖, final L², and the moved weight of a new one-weight draw), sorted
    by kind and draw."""
    draws = checks.integer("draws", draws, at_least=1)
    rows = have[["kind", "rep", "eps", "l2"]].to_dict("records")
    for kind, (ki, pert) in kinds.items():
        done = {r["rep"] for r in rows if r["kind"] == kind}
        for rep in range(draws):
            if rep in done:
                continue
            c = spawn_copy(
                b.runner,
                b.base.saved[t],
                pert,
                s.stds,
                b.theta_T,
                s.order,
                generator=s.rng_for(draw_stream(ki, rep)),
            )
            rows.append(dict(kind=kind, rep=rep, eps=c.eps, l2=c.l2, where=c.where))
    return pd.DataFrame(rows).sort_values(["kind", "rep"])


def reached_by(values: Sequence[float], share: float = 0.8) -> float:
    """The value that at least ``share`` of the draws reach: the (n − ⌈share·n⌉ + 1)-th
    smallest."""
    v = np.sort(np.asarray(values, dtype=float))
    if v.ndim != 1 or v.size == 0:
        raise ValueError(f"values must be a non-empty 1-D sequence, got {values!r}")
    checks.number("share", share, above=0, at_most=1)
    return float(v[v.size - math.ceil(share * v.size)])


def follow_draws(
    s: Setting,
    b: BaseRuns,
    kind: str,
    stream: int,
    pert: Perturbation,
    at_t0: pd.DataFrame,
    *,
    reps: int,
) -> tuple[list[int], pd.DataFrame]:
    """A kind's ``reps`` typical draws at t = 0 (rows kind, rep, eps, l2, where of ``at_t0``)
    repeated at every later perturbation step (stream index ``stream``): the followed draws
    and one row per copy (kind, t, rep, ‖ε‖, final L², moved weight), t = 0 first."""
    first = at_t0.sort_values("rep")
    followed = [int(first.rep.iloc[i]) for i in typical_draws(list(first.l2), reps)]
    rows = [
        dict(kind=kind, t=0, rep=int(r.rep), eps=r.eps, l2=r.l2, where=r.where)
        for r in first.itertuples()
    ]
    for t in s.t_steps[1:]:
        for rep in followed:
            c = spawn_copy(
                b.runner,
                b.base.saved[t],
                pert,
                s.stds,
                b.theta_T,
                s.order,
                generator=s.rng_for(draw_stream(stream, rep)),
            )
            rows.append(
                dict(kind=kind, t=t, rep=rep, eps=c.eps, l2=c.l2, where=c.where)
            )
    return followed, pd.DataFrame(rows)


@dataclass(frozen=True)
class TimeTables:
    """Claim 2's readings of the followed draws: every copy with its excess divergence
    L² − ‖ε‖ (``copies``), the median final L² and median excess by kind and t, Spearman ρ(t,
    excess), the excess and L² ratios t10 / t = 0, the spread of the excess over the draws
    at t = 0, the median ‖ε‖ by kind, and every rise of the median excess from one step to
    the next: (t, next t, rise) by kind."""

    copies: pd.DataFrame
    l2: pd.DataFrame
    excess: pd.DataFrame
    rho: dict[str, float]
    excess_ratio: dict[str, float]
    l2_ratio: dict[str, float]
    spread0: pd.Series
    eps: pd.Series
    rises: dict[str, list[tuple[int, int, float]]]

    def rho_of(self, kinds: Sequence[str]) -> dict[str, float]:
        """Spearman ρ of the given kinds."""
        return {k: self.rho[k] for k in kinds}

    def excess_ratio_of(self, kinds: Sequence[str]) -> dict[str, float]:
        """The excess ratio t10 / t = 0 of the given kinds."""
        return {k: self.excess_ratio[k] for k in kinds}


def time_tables(
    copies: pd.DataFrame,
    followed: Mapping[str, Sequence[int]],
    kinds: Sequence[str],
    t_steps: Sequence[int],
    t10: int,
) -> TimeTables:
    """``TimeTables`` of the copies (rows kind, t, rep, eps, l2) along the followed draws."""
    t_steps = list(t_steps)
    copies = copies.copy()
    copies["excess"] = excess_divergence(copies.l2, copies.eps)
    grid = copies[[r in followed[k] for k, r in zip(copies.kind, copies.rep)]]
    by_t = grid.groupby(["kind", "t"]).l2.median().unstack("t").loc[kinds, t_steps]
    ex_t = grid.groupby(["kind", "t"]).excess.median().unstack("t").loc[kinds, t_steps]
    rho = {k: spearman_rho(t_steps, ex_t.loc[k]) for k in kinds}
    half = {k: float(ex_t.loc[k, t10] / ex_t.loc[k, 0]) for k in kinds}
    half_l2 = {k: float(by_t.loc[k, t10] / by_t.loc[k, 0]) for k in kinds}
    at0 = copies[copies.t == 0].groupby("kind").excess
    spread0 = at0.agg(lambda v: v.max() - v.min())
    eps = copies.groupby("kind", sort=False).eps.median()
    rises = {
        k: [(t_steps[i], t_steps[i + 1], r) for i, r in adjacent_rises(ex_t.loc[k])]
        for k in kinds
    }
    return TimeTables(copies, by_t, ex_t, rho, half, half_l2, spread0, eps, rises)


@dataclass(frozen=True)
class Claim1Draws:
    """Claim 1's draws at t = 0 (rows kind, rep, ‖ε‖, final L², moved weight, and the ratio
    final L² / ``noise``) and, per kind, the ratio that 80 % of the draws reach."""

    draws: pd.DataFrame
    reach80: dict[str, float]


def claim1_draws(
    s: Setting,
    b: BaseRuns,
    kinds: Mapping[str, tuple[int, Perturbation]],
    *,
    draws: int,
    have: pd.DataFrame,
    noise: float,
) -> Claim1Draws:
    """``more_draws`` of the kinds (name → (stream index, perturbation)), their ratios to the
    training-noise distance ``noise`` and ``reached_by`` 80 % of the draws of each kind."""
    d = more_draws(s, b, kinds, draws=draws, have=have)
    d["ratio"] = d.l2 / noise
    reach = {k: reached_by(d[d.kind == k].ratio) for k in kinds}
    return Claim1Draws(d, reach)


@dataclass(frozen=True)
class Claim2Copies:
    """The draws followed through time by kind (a kind's followed draws added to the grid's),
    the new kind's copies, its "same weight at every t" reading and claim 2's tables."""

    followed: dict[str, list[int]]
    copies: pd.DataFrame
    same_weight: bool
    tables: TimeTables


def claim2_copies(
    s: Setting,
    b: BaseRuns,
    grid: Grid,
    kind: str,
    stream: int,
    pert: Perturbation,
    at_t0: pd.DataFrame,
    *,
    reps: int,
    kinds: Sequence[str],
    t10: int,
) -> Claim2Copies:
    """Follow a kind's typical draws at t = 0 (``follow_draws``) and read claim 2's tables on
    the grid's copies together with them (``time_tables``)."""
    followed = dict(grid.followed)
    followed[kind], runs = follow_draws(s, b, kind, stream, pert, at_t0, reps=reps)
    kept = {r: runs[runs.rep == r]["where"].nunique() for r in followed[kind]}
    cols = ["kind", "t", "rep", "eps", "l2"]
    copies = pd.concat([grid.runs[cols], runs[cols]], ignore_index=True)
    tables = time_tables(copies, followed, kinds, s.t_steps, t10)
    return Claim2Copies(followed, runs, all(n == 1 for n in kept.values()), tables)

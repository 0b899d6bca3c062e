"""The chapter's protocol: every method on every seed (`train_seeds`), the full scale's
shortcut sweep (`shortcut_sweep`), the MAE tables and claim 4's measured values
(`mae_tables`, `ablation_measures`), seed 0's OOD test graphs through the trained models
(`seed_view`, `tail_errors`), the peer's agreement with our ERM on identical weights
(`peer_agreement`), which part of a composite gate failed (`gate_part_lines`) and the size
table in words (`describe_sizes`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from torch import nn

from repbook.core import checks

from .data import BASE_TYPES, BIN_EDGES, GraphSet, make_splits
from .models import copy_erm_weights, make_model
from .training import Method, node_attention, predict, train_methods


def seed_streams(seed: int, r: int) -> dict[str, int]:
    """The initial-weight and batch seeds of replicate `r` in a chapter run with `seed`:
    1000·seed + r, and seed·1_000_003 + r (the stream of the chapter's
    `run.torch_generator(r)`)."""
    seed = checks.integer("seed", seed, at_least=0)
    r = checks.integer("r", r, at_least=0)
    return dict(model_seed=1000 * seed + r, batch_seed=seed * 1_000_003 + r)


def train_seeds(
    splits_for: Callable[[int], dict],
    methods: Mapping[str, Method],
    *,
    seeds: int,
    seed: int,
    first: dict | None = None,
    hidden: int,
    layers: int,
    epochs: int,
    batch: int,
    select_after: int,
    device: str | torch.device = "cpu",
) -> tuple[list[dict], dict[str, nn.Module]]:
    """`train_methods` on the splits of replicates 0 … seeds − 1 (`splits_for(r)`, or
    `first` for replicate 0 when its splits are already drawn), each with the streams of
    `seed_streams(seed, r)`. Returns the rows of every replicate (the key "seed" added)
    and the models of replicate 0 by name."""
    seeds = checks.integer("seeds", seeds, at_least=1)
    checks.function("splits_for", splits_for, "a function replicate → splits")
    fit = dict(hidden=hidden, layers=layers, epochs=epochs, batch=batch)
    rows, models0 = [], {}
    for r in range(seeds):
        new, models = train_methods(
            first if r == 0 and first is not None else splits_for(r),
            dict(methods),
            **seed_streams(seed, r),
            select_after=select_after,
            device=device,
            **fit,
        )
        rows += [dict(row, seed=r) for row in new]
        models0 = models if r == 0 else models0
    return rows, models0


def shortcut_sweep(
    strengths: Sequence[float],
    seeds: int,
    methods: Mapping[str, Method],
    *,
    rng_for: Callable[[int], np.random.Generator],
    seed: int,
    n_train: int,
    n_val: int,
    n_test: int,
    ood_shortcut: float = 0.9,
    **fit,
) -> list[dict]:
    """For each training shortcut strength and replicate r < `seeds`: one seed's splits
    drawn from `rng_for(10_000 + r)` (the OOD splits keep `ood_shortcut`) and `methods`
    trained on them with `seed_streams(seed, r)`; `fit` holds `train_methods`' sizes.
    Returns the rows, with the keys "seed" and "shortcut" added."""
    seeds = checks.integer("seeds", seeds, at_least=0)
    checks.function("rng_for", rng_for, "a function stream → numpy Generator")
    sizes = dict(n_train=n_train, n_val=n_val, n_test=n_test)
    rows = []
    for p in strengths:
        for r in range(seeds):
            rng = rng_for(10_000 + r)
            sp = make_splits(rng, shortcut=p, ood_shortcut=ood_shortcut, **sizes)
            new, _ = train_methods(sp, dict(methods), **seed_streams(seed, r), **fit)
            rows += [dict(row, seed=r, shortcut=p) for row in new]
    return rows


@dataclass(frozen=True)
class MAETables:
    """The test MAE of every (method, seed) row: `per_seed` (methods × (split, seed)),
    `summary` (methods × (split, mean / std over seeds)) and the selected epochs per
    method."""

    per_seed: pd.DataFrame
    summary: pd.DataFrame
    epochs: dict[str, list[int]]


def mae_tables(res: pd.DataFrame, order: Sequence[str]) -> MAETables:
    """`MAETables` of the rows of `train_seeds` (as a DataFrame), methods in `order`."""
    missing = sorted(set(order) - set(res["method"]))
    if missing:
        raise ValueError(f"res has no rows of the methods {missing}")
    order = list(order)
    per_seed = res.pivot(index="method", columns="seed", values=["IID", "OOD"])
    summary = res.groupby("method")[["IID", "OOD"]].agg(["mean", "std"])
    epochs = res.groupby("method").epoch.apply(list).loc[order]
    return MAETables(per_seed.loc[order], summary.loc[order], epochs.to_dict())


def ablation_measures(
    by: Mapping[str, pd.DataFrame],
    *,
    full: str,
    ignored: str,
    no_mix: str,
    variance: str,
) -> dict[str, dict]:
    """Claim 4's measured values from each method's rows (`by[name]`, seeds in order): 4a,
    the per-seed OOD gain of the enhanced GIB (`full`) over ignoring the confounder, the
    two means and the variance penalty's mean as context; 4b, the per-seed OOD gain of
    `full` over the model without L_mix, and the two means."""
    for name in (full, ignored, no_mix, variance):
        if name not in by:
            raise ValueError(f"by has no rows of {name!r}; it has {sorted(by)}")

    def gain(name):
        return (by[name].OOD.to_numpy() - by[full].OOD.to_numpy()).tolist()

    return {
        "4a": {
            "ignored − GIB OOD MAE, per seed": gain(ignored),
            "GIB OOD MAE": by[full].OOD.mean(),
            "confounder-ignored OOD MAE": by[ignored].OOD.mean(),
            "variance-penalty OOD MAE (context)": by[variance].OOD.mean(),
        },
        "4b": {
            "without L_mix − CGR OOD MAE, per seed": gain(no_mix),
            "without L_mix OOD MAE": by[no_mix].OOD.mean(),
            "CGR OOD MAE": by[full].OOD.mean(),
        },
    }


@dataclass(frozen=True)
class SeedView:
    """One seed's graphs through trained models, for the chapter's figures: the targets
    `y`, each graph's base type, each named model's predictions, the first graph of each
    base type (`examples`, in BASE_TYPES order) and the causal node attention a_o of the
    attention model on each example's nodes."""

    y: np.ndarray
    base_type: np.ndarray
    predictions: dict[str, np.ndarray]
    examples: list
    attention: list[np.ndarray]


def seed_view(
    models: Mapping[str, nn.Module],
    graphs: Sequence,
    *,
    names: Sequence[str],
    attention_of: str,
    device: str | torch.device = "cpu",
) -> SeedView:
    """`SeedView` of `graphs` (eval mode, no gradients) for the models `names` and the
    CGR model `attention_of`."""
    for name in [*names, attention_of]:
        if name not in models:
            raise ValueError(f"models has no model {name!r}; it has {sorted(models)}")
    data = GraphSet(graphs, device).full()
    kinds = np.array([int(g.base_type) for g in graphs])
    missing = [BASE_TYPES[t] for t in range(3) if t not in kinds]
    if missing:
        raise ValueError(f"graphs has no graph with a base of type {missing}")
    examples = [graphs[int(np.flatnonzero(kinds == t)[0])] for t in range(3)]
    attention = [
        node_attention(models[attention_of], GraphSet([g], device).full()).cpu().numpy()
        for g in examples
    ]
    return SeedView(
        y=data.y.cpu().numpy(),
        base_type=kinds,
        predictions={n: predict(models[n], data).cpu().numpy() for n in names},
        examples=examples,
        attention=attention,
    )


def tail_errors(pred: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Mean signed error ŷ − y on the tails of y: the lowest bin (y < 2) and the highest
    (y > 3), where the reversed shortcut points the wrong way."""
    pred, y = np.asarray(pred), np.asarray(y)
    checks.same_length(pred=pred, y=y)
    tails = {"y < 2": y < BIN_EDGES[0], "y > 3": y > BIN_EDGES[1]}
    return {k: np.mean(pred[m] - y[m]) for k, m in tails.items()}


def peer_agreement(
    graphs: Sequence, *, hidden: int, layers: int, seeds: tuple[int, int] = (7, 0)
) -> float:
    """Max |ours − torch-geometric| over the predictions on `graphs` when the peer gets our
    ERM's weights (`copy_erm_weights`; the two are built from `seeds`)."""
    from torch_geometric.data import Batch

    if len(graphs) == 0:
        raise ValueError("graphs is empty: need at least one graph")
    size = dict(hidden=hidden, layers=layers)
    ours = make_model("erm", seed=seeds[0], **size).eval()
    peer = make_model("pyg-erm", seed=seeds[1], **size).eval()
    copy_erm_weights(ours, peer)
    diff = predict(ours, GraphSet(graphs).full()) - predict(
        peer, Batch.from_data_list(list(graphs))
    )
    return float(diff.abs().max())


def gate_part_lines(claims: Sequence, parts: Mapping[str, tuple]) -> list[str]:
    """For each claim whose gate is unmet, one line per part of that gate: `parts` maps a
    label to (criterion, remedy); a part belongs to a claim's gate when the gate reads
    every value the part reads. A line names the part, met or unmet, its values and, when
    unmet, the remedy. "every gated claim met its gate" when none is unmet."""
    unmet = [c for c in claims if c.gate and not c.gate["passed"]]
    lines = []
    for c in unmet:
        for label, (part, remedy) in parts.items():
            if not set(part.names()) <= set(c.gate["criterion"]["reads"]):
                continue
            passed = part.evaluate(c.measured).passed
            value = ", ".join(f"{n} = {c.measured[n]:.3f}" for n in part.names())
            line = f"claim {c.id}: {label} {'met' if passed else 'unmet'} ({value})"
            lines.append(line + ("" if passed else f"; what would check it: {remedy}"))
    return lines or ["every gated claim met its gate"]


def describe_sizes(name: str, sizes: Mapping) -> str:
    """One scale's size table in words (`name` the scale)."""
    z, abl = sizes, sizes["ablations"]
    n_models = 3 + 4 * abl
    sweep = (
        f"; shortcut sweep: {len(z['sweep'])} strengths × {z['sweep_seeds']} seeds × "
        "ERM and CGR"
        if z["sweep"]
        else "; no shortcut sweep"
    )
    return (
        f"{name} scale: {z['n_train']:,} training graphs, {z['n_val']:,} "
        f"OOD-validation and {z['n_test']:,} + {z['n_test']:,} test graphs, "
        f"hidden width {z['hidden']}, {z['layers']} GIN layers, "
        f"{z['epochs']} epochs, batch {z['batch']}, {z['seeds']} seeds × "
        f"{n_models} models ({'with' if abl else 'without'} the ablation models){sweep}"
    )


def paper_table1() -> pd.DataFrame:
    """The paper's Table 1 (GOOD-ZINC, test MAE, mean over 3 seeds) for ERM and CGR, as
    read from its text: quoted, not re-derived."""
    return pd.DataFrame(
        [
            ("scaffold", "covariate", 0.1188, 0.1660, 0.0514, 0.1046),
            ("scaffold", "concept", 0.1174, 0.1248, 0.0659, 0.0518),
            ("size", "covariate", 0.1222, 0.2331, 0.0466, 0.1484),
            ("size", "concept", 0.1304, 0.1406, 0.0577, 0.0580),
        ],
        columns=["domain", "shift", "ERM ID", "ERM OOD", "CGR ID", "CGR OOD"],
    )

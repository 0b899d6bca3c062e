"""The chapter's protocol: the training grid over seeds, generators, shot counts and variants
(`run_grid`), the per-seed paired gains and their means over cells, the partition summaries and
the λ grid of the full scale, and the tables the chapter prints from them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from repbook.core import checks

from .data import SeedData
from .partitions import kmeans_regions, online_regions, summarise_partition
from .training import Method, accuracy, bound_ingredients, fit


REAL_ONLY, SYN_ONLY, ORACLE = "real only", "synthetic only", "oracle (pool images)"
NAIVE = "real + synthetic"
RNG_FOR = "a callable stream → torch.Generator (e.g. run.torch_generator)"


def cell_stream(r: int, k: int, g_index: int) -> int:
    """The prototype stream of seed r's cell (k shots, generator number g_index): every
    regularised variant of a cell sees the same online partition."""
    return 1000 * (r + 1) + 10 * int(k) + int(g_index)


def run_grid(
    data: Sequence[SeedData],
    variants: Mapping[str, Method],
    *,
    epochs: int,
    K: int,
    rng_for,
    only_on: Mapping[str, Sequence[str]] | None = None,
    kmeans_variants: Sequence[str] = (),
    naive: str = NAIVE,
) -> tuple[list[dict], list[dict]]:
    """The chapter's experiment. For every seed r (the index in `data`), generator and shot count
    k: the `variants` (name → Method, real and synthetic images), from the seed's
    initialisation and the cell's prototype stream `rng_for(cell_stream(r, k, g))`. Besides:
    synthetic only once per generator and real only and the oracle (naive objective with the
    pool's real images as the synthetic set) once per k, since they do not depend on the rest.
    `only_on` restricts a variant to some generators; each name in `kmeans_variants` is also
    trained with the k-means partition (as "<name> (k-means on S ∪ G)", gap-knob generators
    only). After each `naive` run the bound's ingredients are measured on the trained model,
    with k-means regions (K) on real ∪ synthetic inputs (`bound_ingredients`).

    Returns (rows, ingredients): one dict per trained model and test (seed, k, generator,
    method, acc; real only, synthetic only and the oracle listed under every generator) and one
    per naive run (seed, k, generator, error, discrepancy, robustness, shared, share)."""
    checks.function("rng_for", rng_for, RNG_FOR)
    only_on = dict(only_on or {})
    for name in list(only_on) + list(kmeans_variants) + [naive]:
        if name not in variants:
            raise ValueError(f"{name!r} is not one of the variants {sorted(variants)}")
    if not data:
        raise ValueError("data must hold at least one seed, got none")
    rows, ingredients = [], []
    for r, d in enumerate(data):
        gens, shots = list(d.synthetic), sorted(d.x_real)

        def test(net, method, k, gens_, **extra):
            acc = accuracy(net, d.x_test, d.y_test)
            for name in gens_:
                rows.append(
                    dict(seed=r, k=k, generator=name, method=method, acc=acc, **extra)
                )
            return acc

        empty_x, empty_y = d.x_real[shots[0]][:0], d.y_real[shots[0]][:0]
        for name in gens:
            x_syn, y_syn = d.synthetic[name]
            net = fit(
                Method(0, 1, 0, 0), empty_x, empty_y, x_syn, y_syn, init=d.init,
                epochs=epochs, K=K, generator=rng_for(r),
            )  # fmt: skip
            for k in shots:
                test(net, SYN_ONLY, k, [name])
        for k in shots:
            x_real, y_real = d.x_real[k], d.y_real[k]
            x0, y0 = d.synthetic[gens[0]]
            net = fit(
                Method(1, 0, 0, 0), x_real, y_real, x0, y0, init=d.init,
                epochs=epochs, K=K, generator=rng_for(r),
            )  # fmt: skip
            test(net, REAL_ONLY, k, gens)
            net = fit(
                variants[naive], x_real, y_real, d.x_oracle, d.y_oracle, init=d.init,
                epochs=epochs, K=K, generator=rng_for(r),
            )  # fmt: skip
            test(net, ORACLE, k, gens)
            for gi, name in enumerate(gens):
                x_syn, y_syn = d.synthetic[name]
                stream = cell_stream(r, k, gi)
                for vname, meth in variants.items():
                    if vname in only_on and name not in only_on[vname]:
                        continue
                    net = fit(
                        meth, x_real, y_real, x_syn, y_syn, init=d.init,
                        epochs=epochs, K=K, generator=rng_for(stream),
                    )  # fmt: skip
                    acc = test(net, vname, k, [name])
                    if vname == naive:
                        reg_r, reg_g = kmeans_regions(
                            x_real.numpy(), x_syn.numpy(), K, seed=d.init
                        )
                        ing = bound_ingredients(net, x_real, x_syn, reg_r, reg_g, K)
                        ingredients.append(
                            dict(
                                seed=r, k=k, generator=name, error=1 - acc,
                                discrepancy=ing.discrepancy,
                                robustness=ing.robustness,
                                shared=ing.regions_shared,
                                share=ing.synthetic_share,
                            )
                        )  # fmt: skip
                if name == "fonts":
                    continue
                for vname in kmeans_variants:
                    net = fit(
                        variants[vname], x_real, y_real, x_syn, y_syn, init=d.init,
                        epochs=epochs, K=K, generator=rng_for(stream),
                        partition="kmeans",
                    )  # fmt: skip
                    test(net, f"{vname} (k-means on S ∪ G)", k, [name])
    return rows, ingredients


def paired_gains(
    rows: Sequence[Mapping],
    method: str,
    reference: str,
    cells: Sequence[tuple[str, int]],
) -> dict[tuple[str, int], list[float]]:
    """Per (generator, k) cell, the per-seed accuracy differences `method` − `reference`
    (seeds in order). Every seed must have both in every cell."""
    acc: dict[tuple, float] = {}
    for row in rows:
        acc[(row["generator"], row["k"], row["method"], row["seed"])] = row["acc"]
    seeds = sorted({row["seed"] for row in rows})
    out = {}
    for name, k in cells:
        gains = []
        for s in seeds:
            a = acc.get((name, k, method, s))
            b = acc.get((name, k, reference, s))
            if a is None or b is None:
                missing = method if a is None else reference
                raise ValueError(
                    f"no {missing!r} accuracy for seed {s} in cell ({name!r}, k={k})"
                )
            gains.append(a - b)
        out[(name, k)] = gains
    return out


def mean_over_cells(gains: Mapping[tuple[str, int], Sequence[float]]) -> list[float]:
    """Per seed, the mean of a `paired_gains` result over its cells (the average over our
    benchmark cells, as the paper averages over data sets)."""
    if not gains:
        raise ValueError("gains must hold at least one cell, got none")
    return np.asarray(list(gains.values()), dtype=float).mean(axis=0).tolist()


def partition_summaries(
    data: Sequence[SeedData],
    generators: Sequence[str],
    *,
    K: int,
    steps: int,
    rng_for,
) -> list[dict]:
    """For each seed, shot count and generator: `summarise_partition` of the online partition
    at training's last step (the same prototype stream as `run_grid`'s cell) and of k-means on
    real ∪ synthetic. One dict per (seed, k, generator, partition)."""
    checks.function("rng_for", rng_for, RNG_FOR)
    out = []
    for r, d in enumerate(data):
        gens = list(d.synthetic)
        for k in sorted(d.x_real):
            x_real = d.x_real[k]
            for name in generators:
                if name not in d.synthetic:
                    raise ValueError(f"generator {name!r} is not in the data {gens}")
                x_syn, y_syn = d.synthetic[name]
                stream = cell_stream(r, k, gens.index(name))
                online = online_regions(x_real, x_syn, K, steps, rng_for(stream))
                kmeans = kmeans_regions(x_real.numpy(), x_syn.numpy(), K, seed=d.init)
                for label, (a, b) in [
                    ("online (training)", online),
                    ("k-means on S ∪ G", kmeans),
                ]:
                    s = summarise_partition(a, b, y_syn.numpy(), K)
                    out.append(
                        dict(
                            seed=r, k=k, generator=name, partition=label,
                            regions=s.regions_used, purity=s.purity,
                            share=s.synthetic_share,
                        )
                    )  # fmt: skip
    return out


def lambda_grid(
    data: Sequence[SeedData],
    lams: Sequence[float],
    *,
    k: int,
    generator: str,
    ce_real: float,
    ce_syn: float,
    epochs: int,
    K: int,
    rng_for,
) -> np.ndarray:
    """Mean test accuracy over the seeds for every (λ_dis, λ_rob) in lams × lams (rows λ_dis),
    with the given cross-entropy weights, in one cell (k shots, `generator`), online partition
    on the cell's stream."""
    checks.function("rng_for", rng_for, RNG_FOR)
    lams = [checks.number("each λ", v, at_least=0) for v in lams]
    grid = np.full((len(lams), len(lams)), np.nan)
    for a, lam_dis in enumerate(lams):
        for b, lam_rob in enumerate(lams):
            accs = []
            for r, d in enumerate(data):
                x_syn, y_syn = d.synthetic[generator]
                stream = cell_stream(r, k, list(d.synthetic).index(generator))
                net = fit(
                    Method(ce_real, ce_syn, lam_dis, lam_rob), d.x_real[k], d.y_real[k],
                    x_syn, y_syn, init=d.init, epochs=epochs, K=K,
                    generator=rng_for(stream),
                )  # fmt: skip
                accs.append(accuracy(net, d.x_test, d.y_test))
            grid[a, b] = float(np.mean(accs))
    return grid


# ----------------------------------------------------------------------------------------------
# the tables the chapter prints and judges
def _frame(rows: Sequence[Mapping], columns: Sequence[str], what: str) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows))
    missing = [c for c in columns if c not in frame.columns]
    if frame.empty or missing:
        raise ValueError(
            f"{what} must be non-empty dicts with keys {list(columns)}, missing "
            f"{missing or 'every row'}"
        )
    return frame


def cell_means(rows: Sequence[Mapping]) -> pd.Series:
    """Mean test accuracy over the seeds per (generator, k, method) of `run_grid`'s rows."""
    res = _frame(rows, ["generator", "k", "method", "acc"], "rows")
    return res.groupby(["generator", "k", "method"]).acc.mean()


def accuracy_table(
    rows: Sequence[Mapping], *, first: Sequence[str], names: Mapping[str, str]
) -> pd.DataFrame:
    """`run_grid`'s accuracies as text "mean ± sd" over the seeds: one row per (generator, k)
    in the rows' order, one column per method, the methods of `first` first (in that order),
    then the others as they first appear; columns renamed by `names`, cells not run "—"."""
    res = _frame(rows, ["generator", "k", "method", "acc"], "rows")
    absent = [m for m in first if m not in set(res.method)]
    if absent:
        raise ValueError(f"first names methods that are not in the rows: {absent}")
    table = res.groupby(["generator", "k", "method"], sort=False).acc.agg(
        ["mean", "std"]
    )
    cols = list(first) + [c for c in res.method.unique() if c not in first]
    text = table.apply(lambda t: f"{t['mean']:.3f} ± {t['std']:.3f}", axis=1)
    return text.unstack("method")[cols].rename(columns=dict(names)).fillna("—")


@dataclass(frozen=True)
class Comparison:
    """Paired per-seed accuracy gains of one method over a reference (`compare`)."""

    per_cell: dict[tuple[str, int], list[float]]  # (generator, k) → the gain per seed
    over_cells: list[float]  # per seed, the mean gain over the cells
    by_cell: dict[str, float]  # "gap 1.0, k=5" → the mean gain over the seeds


def compare(
    rows: Sequence[Mapping],
    method: str,
    reference: str,
    cells: Sequence[tuple[str, int]],
) -> Comparison:
    """`paired_gains` of `method` over `reference` in the cells, with their per-seed mean over
    the cells (`mean_over_cells`) and their per-cell mean over the seeds."""
    gains = paired_gains(rows, method, reference, cells)
    by_cell = {f"{n}, k={k}": float(np.mean(v)) for (n, k), v in gains.items()}
    return Comparison(gains, mean_over_cells(gains), by_cell)


@dataclass(frozen=True)
class IngredientSummary:
    """The bound's terms after naive training (`run_grid`'s ingredients), on the gap knob."""

    by_gap: (
        pd.DataFrame
    )  # mean discrepancy, robustness, error, share per (k, generator)
    rho: dict[
        int, float
    ]  # per k, Spearman's ρ(discrepancy, error) over (gap, seed) runs
    shared: float  # mean number of regions holding both real and synthetic points


def summarise_ingredients(
    ingredients: Sequence[Mapping], *, leave_out: Sequence[str] = ("fonts",)
) -> IngredientSummary:
    """Means over the seeds per (k, generator) and Spearman's ρ per k, over the generators
    not in `leave_out` (the gap knob's levels)."""
    from scipy import stats

    columns = [
        "k",
        "generator",
        "discrepancy",
        "robustness",
        "error",
        "share",
        "shared",
    ]
    ing = _frame(ingredients, columns, "ingredients")
    on_knob = ing[~ing.generator.isin(list(leave_out))]
    if on_knob.empty:
        raise ValueError(f"every generator is left out ({list(leave_out)})")
    by_gap = on_knob.groupby(["k", "generator"])[columns[2:6]].mean()
    rho = {
        int(k): stats.spearmanr(sub.discrepancy, sub.error).statistic
        for k, sub in on_knob.groupby("k")
    }
    return IngredientSummary(by_gap, rho, on_knob.shared.mean())


def partition_table(summaries: Sequence[Mapping]) -> pd.DataFrame:
    """`partition_summaries` averaged over the seeds: regions used, class purity and the share
    of synthetic points in a region with a real one, per (partition, k, generator)."""
    parts = _frame(
        summaries,
        ["partition", "k", "generator", "regions", "purity", "share"],
        "summaries",
    )
    return parts.groupby(["partition", "k", "generator"])[
        ["regions", "purity", "share"]
    ].mean()

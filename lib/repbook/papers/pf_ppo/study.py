"""The chapter's study, as functions of the replicates ("worlds") and the trained filters: the
replicates' summary, the RM's pair accuracy by reward decile, R² of every filter on the initial
policy's samples (with a bootstrap over prompts), training every filter, and the paired
comparisons the claims read. No printing, plotting or file writing."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from repbook.core import checks

from .filters import BATCH_LEVEL, PER_PROMPT, STRATEGIES, filtered_r_squared
from .filters import keep_count, r_squared, select, verl_resample
from .protocols import World, initial_samples, make_world, pair_accuracy
from .protocols import pair_accuracy_by_bin
from .protocols import train_filter

LABELS = {
    "all": "PPO-M",
    "bon": "PF-PPO (BoN)",
    "br": "PF-PPO (BR)",
    "bw": "PF-PPO (BW)",
    "worst": "worst only",
    "random2": "random 2",
    "random1": "random 1",
    "verl-pow": "verl pow",
    "verl-max_min": "verl max_min",
    "verl-max_random": "verl max_random",
}
"""The filters' names as the chapter shows them."""

TOP_PICK = "pass rate of the RM's top pick"
RMS = ("learned", "homoscedastic")


# ----------------------------------------------------------------------------------------------
# the replicates and the RM
SFT = ("sft_steps", "sft_batch", "sft_lr")


def make_worlds(
    sizes: Mapping,
    *,
    child_rng: Callable,
    seed: int,
    torch_generator: Callable | None = None,
    device: str = "cpu",
    stream: int = 100,
) -> list[World]:
    """`make_world` for each of `sizes["replicates"]` replicates, replicate k from
    child_rng(stream + k); at full scale (`sizes["policy"] == "tokens"`) with the SFT sizes
    of `SFT`, torch_generator(stream + k) and the noise seed 100·seed + k."""
    checks.function(
        "child_rng", child_rng, "callable (stream -> numpy.random.Generator)"
    )
    tokens = sizes["policy"] == "tokens"
    if tokens and torch_generator is None:
        raise ValueError(
            "full scale trains an SFT model with torch: pass torch_generator"
        )
    worlds = []
    for k in range(sizes["replicates"]):
        token = None
        if tokens:
            token = {key: sizes[key] for key in SFT} | dict(
                generator=torch_generator(stream + k),
                noise_seed=seed * 100 + k,
                device=device,
            )
        worlds.append(
            make_world(
                sizes["prompts"],
                child_rng(stream + k),
                rm_prompts=sizes["rm_prompts"],
                pairs=sizes["pairs"],
                label_noise=sizes["label_noise"],
                pool=tuple(sizes["pool"]),
                token=token,
            )
        )
    return worlds


def world_summary(worlds: Sequence[World]) -> pd.DataFrame:
    """One row per replicate: the initial policy's pass rate and share of correct responses,
    the RM's flipped labels, its correlation with the actual score, both RMs' pair accuracy
    and, at quick scale, the pass rate of each RM's top pick."""
    rows = []
    for k, w in enumerate(worlds):
        R, S = w.initial["learned"]
        row = {
            "initial pass rate": S.mean(),
            "correct among initial responses": (S == 1).mean(),
            "labels flipped": w.flipped,
            "corr(RM, actual)": w.corr,
            "pair accuracy, learned RM": pair_accuracy(R, S),
            "pair accuracy, homoscedastic RM": pair_accuracy(
                *w.initial["homoscedastic"]
            ),
        }
        if not w.tokens:
            row[TOP_PICK] = S[np.arange(len(S)), R.argmax(1)].mean()
            row["same, homoscedastic RM"] = S[
                np.arange(len(S)), w.rm["homoscedastic"].argmax(1)
            ].mean()
        rows.append(dict(replicate=k, **row))
    return pd.DataFrame(rows).set_index("replicate")


def decile_contents(rewards, scores, n_bins: int = 10) -> dict[str, list]:
    """What each of `n_bins` equal-count reward bins holds (all prompts pooled, ties in
    reward kept in order): the mean pass rate and the shares passing every test and none."""
    order = np.argsort(np.asarray(rewards).ravel(), kind="stable")
    bins = np.array_split(np.asarray(scores).ravel()[order], n_bins)
    return {
        "mean pass rate": [b.mean() for b in bins],
        "share passing every test": [np.mean(b == 1) for b in bins],
        "share passing no test": [np.mean(b == 0) for b in bins],
    }


@dataclass(frozen=True)
class DecileGaps:
    """`table`: per replicate, RM and reward decile, the pair accuracy, pairs and mean reward;
    `gaps[rm]`: per replicate, the top decile's pair accuracy minus the mean of the middle
    deciles'."""

    table: pd.DataFrame
    gaps: dict


def decile_gaps(
    worlds: Sequence[World], *, n_bins: int = 10, middle=slice(3, 7), top: int = 9
) -> DecileGaps:
    """`pair_accuracy_by_bin` of both RMs on every replicate's initial samples, and the gap
    of the `top` bin over the `middle` bins (deciles 10 and 4–7 by default)."""
    rows, gaps = [], {rm: [] for rm in RMS}
    for k, w in enumerate(worlds):
        for rm in RMS:
            b = pair_accuracy_by_bin(*w.initial[rm], n_bins)
            rows += [
                dict(replicate=k, rm=rm, decile=d + 1, accuracy=a, pairs=m, reward=r)
                for d, (a, m, r) in enumerate(
                    zip(b["accuracy"], b["pairs"], b["reward"])
                )
            ]
            gaps[rm].append(b["accuracy"][top] - b["accuracy"][middle].mean())
    return DecileGaps(pd.DataFrame(rows), gaps)


# ----------------------------------------------------------------------------------------------
# R² on the filtered samples of the initial policy
def _r2_all(R, S, masks, rows) -> dict:
    return {s: r_squared(R[rows][m[rows]], S[rows][m[rows]]) for s, m in masks.items()}


def initial_r2(
    worlds: Sequence[World],
    Ns: Sequence[int],
    *,
    child_rng: Callable,
    boot: int,
    stream: int = 300,
    device: str = "cpu",
) -> tuple[pd.DataFrame, dict]:
    """R² of every filter on N fresh initial samples per prompt of each replicate (replicate
    k, size N drawing from child_rng(stream + 10 k + N)): a table (N, replicate, strategy, r2;
    NaN where a verl batch holds a single actual score) and, per N, `boot` bootstrap draws over
    prompts of the per-prompt filters' R², averaged over replicates."""
    checks.function(
        "child_rng", child_rng, "callable (stream -> numpy.random.Generator)"
    )
    boot = checks.integer("boot", boot, at_least=1)
    rows, boot_r2 = [], {}
    for n in Ns:
        per_rep = []
        for k, w in enumerate(worlds):
            rng = child_rng(stream + 10 * k + n)
            P = w.bandit.shape[0]
            R, S = initial_samples(w, n, rng, device=device)
            masks = {s: select(R, s, rng) for s in PER_PROMPT}
            r2 = _r2_all(R, S, masks, np.arange(P))
            for s in BATCH_LEVEL:
                try:
                    r2[s] = filtered_r_squared(R, S, s, rng)
                except ValueError:  # the resampled batch holds a single actual score
                    r2[s] = np.nan
            rows += [dict(N=n, replicate=k, strategy=s, r2=v) for s, v in r2.items()]
            draws = [
                list(_r2_all(R, S, masks, rng.integers(P, size=P)).values())
                for _ in range(boot)
            ]
            per_rep.append(np.array(draws))
        boot_r2[n] = pd.DataFrame(np.mean(per_rep, axis=0), columns=list(PER_PROMPT))
    return pd.DataFrame(rows), boot_r2


def bootstrap_contrasts(boot_r2: Mapping) -> dict:
    """Per (N, contrast): the 95 % bootstrap interval of R²(BR) − R²(PPO-M), R²(BW) − R²(PPO-M)
    and R²(BoN) − min(PPO-M, BR, BW)."""
    out = {}
    for n, b in boot_r2.items():
        contrasts = {
            "BR − PPO-M": b["br"] - b["all"],
            "BW − PPO-M": b["bw"] - b["all"],
            "BoN − min(PPO-M, BR, BW)": b["bon"] - b[["all", "br", "bw"]].min(axis=1),
        }
        for name, v in contrasts.items():
            out[(n, name)] = np.quantile(v, [0.025, 0.975])
    return out


def r2_gains(r2: pd.DataFrame, Ns: Sequence[int]) -> dict[str, list]:
    """Claim 2's paired differences per replicate and N: R² BR − PPO-M, BW − PPO-M and
    min(PPO-M, BR, BW) − BoN."""
    rep = r2.pivot_table(index=["N", "replicate"], columns="strategy", values="r2")
    out = {}
    for n in Ns:
        d = rep.loc[n]
        out[f"N={n}: R² BR − PPO-M, per replicate"] = (d["br"] - d["all"]).tolist()
        out[f"N={n}: R² BW − PPO-M, per replicate"] = (d["bw"] - d["all"]).tolist()
        out[f"N={n}: R² min(PPO-M, BR, BW) − BoN, per replicate"] = (
            d[["all", "br", "bw"]].min(axis=1) - d["bon"]
        ).tolist()
    return out


# ----------------------------------------------------------------------------------------------
# training every filter
def train_all(
    worlds: Sequence[World],
    Ns: Sequence[int],
    config,
    *,
    child_rng: Callable,
    torch_generator: Callable | None = None,
    homoscedastic: Sequence[str] = ("all", "br", "bw"),
    device: str = "cpu",
) -> dict:
    """`train_filter` of every strategy on every replicate k and N against the learned RM, and
    of the `homoscedastic` strategies against the control RM; run (k, rm j, N, strategy i)
    draws from child_rng(s) (and torch_generator(s), full scale) with
    s = 10000 + 1000 k + 100 N + 10 i + j. {(k, rm, N, strategy): TrainTrace}. A
    per-prompt filter must have trained on keep count × prompts × updates samples (the
    trace counts what the actor trained on); anything else raises."""
    checks.function(
        "child_rng", child_rng, "callable (stream -> numpy.random.Generator)"
    )
    traces = {}
    for k, w in enumerate(worlds):
        for j, rm in enumerate(RMS):
            for n in Ns:
                for i, s in enumerate(STRATEGIES):
                    if rm == "learned" or s in homoscedastic:
                        stream = 10_000 + 1000 * k + 100 * n + 10 * i + j
                        gen = torch_generator(stream) if torch_generator else None
                        traces[(k, rm, n, s)] = t = train_filter(
                            w, rm, n, s, config, child_rng(stream), generator=gen,
                            device=device,
                        )  # fmt: skip
                        kept = keep_count(s, n) * config.prompts * config.n_updates
                        if s in PER_PROMPT and t.trained != kept:
                            raise RuntimeError(
                                f"{s} at N={n} trained on {t.trained} samples, not {kept}"
                            )
    return traces


def final_table(traces: Mapping) -> pd.DataFrame:
    """One row per trained run: its final actual score, RM reward, KL and rollouts."""
    return pd.DataFrame(
        [
            dict(
                replicate=k,
                rm=rm,
                N=n,
                strategy=s,
                actual=t.actual[-1],
                reward=t.reward[-1],
                kl=t.kl[-1],
                rollouts=t.rollouts,
            )
            for (k, rm, n, s), t in traces.items()
        ]
    )


# ----------------------------------------------------------------------------------------------
# what the claims read from the trained runs
def rank_blocks(r2: pd.DataFrame, traces: Mapping, Ns, replicates: int, filters):
    """Claim 3's blocks (one per N and replicate): the filters' R² on the initial samples and
    their final actual scores (learned RM)."""
    xs, ys = [], []
    for n in Ns:
        for k in range(replicates):
            sub = r2[(r2.N == n) & (r2.replicate == k)].set_index("strategy").r2
            xs.append([sub[s] for s in filters])
            ys.append([traces[(k, "learned", n, s)].actual[-1] for s in filters])
    return xs, ys


@dataclass(frozen=True)
class KeepCount:
    """How the number of samples a filter keeps per prompt (at N = 4; PPO-M counted as the
    most) relates to the rank test's axes: ρ(mean R², mean final score) within each group of
    equal keep count (`groups`: kept → (filters, ρ)), and ρ of the keep count with each axis."""

    groups: dict
    rho_r2: float
    rho_final: float


def keep_count_effect(xs, ys, filters: Sequence[str], *, n: int = 4) -> KeepCount:
    """`KeepCount` of claim 3's blocks (`rank_blocks`)."""
    kc = {s: keep_count(s, n) for s in filters}
    mean_r2, mean_fin = np.mean(xs, axis=0), np.mean(ys, axis=0)
    groups = {}
    for kept in sorted({v for v in kc.values() if v < n}):
        idx = [i for i, s in enumerate(filters) if kc[s] == kept]
        rho = spearmanr(mean_r2[idx], mean_fin[idx]).statistic
        groups[kept] = ([filters[i] for i in idx], rho)
    kvec = [kc[s] if s != "all" else 99 for s in filters]
    return KeepCount(
        groups, spearmanr(kvec, mean_r2).statistic, spearmanr(kvec, mean_fin).statistic
    )


def per_replicate(traces: Mapping, rm: str, n: int, a: str, b: str, replicates: int):
    """Final expected actual score of filter `a` minus `b`'s, one number per replicate."""
    return [
        traces[(k, rm, n, a)].actual[-1] - traces[(k, rm, n, b)].actual[-1]
        for k in range(replicates)
    ]


def gains_against(
    traces: Mapping, against: str, Ns, replicates: int, *, rm: str = "learned"
) -> dict[str, list]:
    """BR and BW against `against` per N, per replicate (named as the ledger shows them)."""
    return {
        f"N={n}: {LABELS[a]} − {LABELS[against]}, per replicate": per_replicate(
            traces, rm, n, a, against, replicates
        )
        for n in Ns
        for a in ("br", "bw")
    }


def count_controlled(traces: Mapping, Ns, replicates: int):
    """Claim 4d: per N, random 2 − random 1 per replicate (the effect of keeping two samples
    instead of one), and BR and BW's gain over BoN minus that effect, per replicate.
    Returns ({N: random 2 − random 1}, {name: gains})."""
    counts, gains = {}, {}
    for n in Ns:
        counts[n] = c = per_replicate(
            traces, "learned", n, "random2", "random1", replicates
        )
        for a in ("br", "bw"):
            over = per_replicate(traces, "learned", n, a, "bon", replicates)
            name = f"N={n}: ({LABELS[a]} − {LABELS['bon']}) − (random 2 − random 1), "
            gains[name + "per replicate"] = [x - y for x, y in zip(over, c)]
    return counts, gains


def keep_ranking(final: pd.DataFrame, n: int):
    """The per-prompt filters by final actual score (learned RM, size N), highest first, the
    samples each keeps per prompt, and Spearman's ρ between the two."""
    f = (
        final[(final.rm == "learned") & (final.N == n)]
        .groupby("strategy")
        .actual.mean()
    )
    order = f.reindex(list(PER_PROMPT)).sort_values(ascending=False)
    kept = [keep_count(s, n) for s in order.index]
    return order, kept, spearmanr(kept, order.to_numpy()).statistic


def matched_reward(traces: Mapping, worlds: Sequence[World], n: int, filters, reach):
    """The actual score each filter has when its running best RM reward first reaches r*, the
    lowest final-best reward among the `reach` filters and replicates (NaN-mean: not reached
    on some replicate), and its mean gain in actual score per unit of final reward.
    Returns (r*, {filter: (actual at r*, gain per unit reward)})."""
    K = range(len(worlds))
    r_star = min(traces[(k, "learned", n, s)].reward.max() for k in K for s in reach)
    out = {}
    for s in filters:
        at = []
        for k in K:
            t = traces[(k, "learned", n, s)]
            r_run = np.maximum.accumulate(t.reward)
            at.append(
                np.interp(r_star, r_run, t.actual) if r_run[-1] >= r_star else np.nan
            )
        slope = np.mean(
            [
                (
                    traces[(k, "learned", n, s)].actual[-1]
                    - worlds[k].initial["learned"][1].mean()
                )
                / traces[(k, "learned", n, s)].reward[-1]
                for k in K
            ]
        )
        out[s] = (np.nan if np.isnan(at).any() else np.mean(at), slope)
    return r_star, out


def filtering_advantage(traces: Mapping, n: int, replicates: int) -> dict[str, list]:
    """Per RM: the mean of BR − PPO-M and BW − PPO-M, per replicate (claim 4b)."""
    return {
        rm: np.mean(
            [per_replicate(traces, rm, n, a, "all", replicates) for a in ("br", "bw")],
            axis=0,
        ).tolist()
        for rm in RMS
    }


def verl_distinct(
    world: World, Ns, *, child_rng: Callable, stream: int = 500, device: str = "cpu"
) -> dict[int, int]:
    """How many distinct samples verl's max_min resampling leaves of N initial samples per
    prompt of `world` (size N drawing from child_rng(stream + N))."""
    out = {}
    for n in Ns:
        rng = child_rng(stream + n)
        r = initial_samples(world, n, rng, device=device)[0].ravel()
        out[n] = len(np.unique(verl_resample(r, "max_min", rng)))
    return out

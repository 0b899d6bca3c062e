"""What the chapter reads from its runs: the tables it prints, the values its claims
record and the sentences that read them, generated from the numbers (claims 1–4 here;
check 5, claim 6 and the times in `late_readings`, re-exported). Pure functions of the
protocols' results (tables as pandas DataFrames); no printing, plotting or file
writing."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .late_readings import (  # noqa: F401 (check 5, claim 6, the times: re-exported)
    READ5,
    LearnabilityStudy,
    StageTimes,
    by_row,
    contrast_gains,
    contrast_table,
    fixed_split_gains,
    full_scale_estimate,
    gain_cells,
    learnability_lines,
    learnability_reading,
    learnability_report,
    learnability_study,
    learnability_table,
    lobo_gains,
    lobo_lines,
    lobo_report,
    lobo_table,
    means,
    note_6,
    note_6b,
    record_time_line,
    shortening_measured,
    spearman_line,
    stage_line,
    tokens_per_face_table,
)
from .meshes import TOKENIZERS
from .ptme import formula_agreement, helpful_merges

NAMES = {
    "RAW": "MeshXL (RAW)",
    "AMT": "MeshAnything V2 (AMT)",
    "EDR": "EdgeRunner (EDR)",
}
"""The tokenizers' names as the chapter writes them."""

_AB = {c: c for c in "abcd"}
TOY_STRINGS = [
    ("aadabbacc", _AB, "base"),
    ("Xdabbacc", {**_AB, "X": "aa"}, "merge (MC), X = aa"),
    ("aaaabcdbc", _AB, "rearranged (RAC)"),
    ("XXYdY", {**_AB, "X": "aa", "Y": "bb"}, "rearrange + merge (RMC), X = aa, Y = bb"),
]
"""The official repository's toy strings (`intuition.py`): the string, its vocabulary
(each symbol → the base symbols it stands for) and what it shows."""
TOY_PTME = [1.837, 2.0, 1.837, 0.846]
"""The PTME the repository's `intuition.py` prints for them."""


def toy_line(toy_ptme, official) -> str:
    """Whether the repository's four toy strings agree with ours, and what MC, RAC and RMC do."""
    same = all(abs(a - b) < 5e-4 for a, b in zip(toy_ptme, official))
    mc_word = "raises" if toy_ptme[1] > toy_ptme[0] else "does not raise"
    rac_word = "leaves" if abs(toy_ptme[2] - toy_ptme[0]) < 1e-12 else "changes"
    rmc_word = "lowers" if toy_ptme[3] < toy_ptme[0] else "does not lower"
    return (
        f"{'all four agree' if same else 'they differ'} to the repository's 3 decimals: "
        f"MC {mc_word} the base PTME, RAC alone {rac_word} it, RMC {rmc_word} it"
    )


def corpus_summary(meshes: pd.DataFrame) -> pd.DataFrame:
    """Per base mesh: median faces, faces dropped over all rotations, mean CR of AMT and EDR,
    and the split."""
    return meshes.groupby("mesh", sort=False).agg(
        faces=("faces", "median"),
        dropped_all_rotations=("dropped", "sum"),
        CR_AMT=("CR_AMT", "mean"),
        CR_EDR=("CR_EDR", "mean"),
        split=("split", "first"),
    )


def ptme_table(res: pd.DataFrame) -> pd.DataFrame:
    """Held-out PTME, one row per (tokenizer, method), one column per vocabulary size."""
    return res.pivot_table(
        index=["tokenizer", "method"], columns="V", values="ptme", sort=False
    )


def sweep_report(sweep, res: pd.DataFrame, seconds: float) -> str:
    """What the merging sweep printed: its vocabularies, its time and `ptme_table`."""
    return (
        f"{len(sweep.mergers)} BPE vocabularies trained and applied in {seconds:.1f} s\n"
        "held-out PTME (bits per raw coordinate):\n"
        + ptme_table(res).round(3).to_string()
    )


@dataclass(frozen=True)
class Compression:
    """Claim 1's numbers: base PTME and entropy per tokenizer, RAW / max(AMT, EDR), and for AMT
    and EDR the tokens per face on the real meshes (faces-weighted), the mean CR over all
    meshes and its per-mesh range."""

    base_ptme: pd.Series
    base_entropy: pd.Series
    ratio: float
    real_tokens_per_face: dict
    cr_mean: dict
    cr_range: dict
    n_meshes: int


def compression(meshes: pd.DataFrame, res: pd.DataFrame, real) -> Compression:
    """Claim 1 from the corpus table (`meshes`) and the sweep's rows (`res`); `real`: the real
    base meshes' names."""
    base = res[res.method == "base"].set_index("tokenizer")
    base_ptme = base.ptme
    ratio = float(base_ptme["RAW"] / max(base_ptme["AMT"], base_ptme["EDR"]))
    is_real = meshes.mesh.isin(real)
    real_tpf = {  # all tokens over all faces of the real meshes
        tk: float(
            9
            * (meshes[f"CR_{tk}"] * meshes.faces)[is_real].sum()
            / meshes.faces[is_real].sum()
        )
        for tk in ("AMT", "EDR")
    }
    cr_mean = {tk: float(meshes[f"CR_{tk}"].mean()) for tk in ("AMT", "EDR")}
    cr_range = {
        tk: (float(meshes[f"CR_{tk}"].min()), float(meshes[f"CR_{tk}"].max()))
        for tk in ("AMT", "EDR")
    }
    return Compression(
        base_ptme, base.entropy, ratio, real_tpf, cr_mean, cr_range, len(meshes)
    )


def compression_lines(c: Compression) -> list[str]:
    """The lines printed under claim 1."""
    lines = [
        "base PTME: "
        + ", ".join(f"{tk} {c.base_ptme[tk]:.3f}" for tk in TOKENIZERS)
        + f"; RAW / max(AMT, EDR) = {c.ratio:.2f}",
        "entropy per token H (bits): "
        + ", ".join(f"{tk} {c.base_entropy[tk]:.3f}" for tk in TOKENIZERS),
    ]
    for tk in ("AMT", "EDR"):
        lo, hi = c.cr_range[tk]
        lines.append(
            f"{tk}: {c.real_tokens_per_face[tk]:.2f} tokens per face on the real meshes "
            "(faces-weighted); "
            f"over all {c.n_meshes} meshes, mean CR {c.cr_mean[tk]:.3f} "
            f"({9 * c.cr_mean[tk]:.2f} tokens per face, unweighted), per-mesh range "
            f"{lo:.3f}–{hi:.3f}"
        )
    return lines


def merging_table(res: pd.DataFrame) -> pd.DataFrame:
    """One row per (tokenizer, V) with merges: base, MC and RMC PTME and their ratios."""
    wide = res.pivot_table(
        index=["tokenizer", "V"], columns="method", values="ptme"
    ).reset_index()
    wide["base"] = wide.tokenizer.map(
        res[res.method == "base"].set_index("tokenizer").ptme
    )
    mc = wide.dropna(subset=["MC"]).copy()
    mc["MC / base"] = mc.MC / mc.base
    mc["RMC / base"] = mc.RMC / mc.base
    return mc[["tokenizer", "V", "base", "MC", "RMC", "MC / base", "RMC / base"]]


def by_cell(mc: pd.DataFrame, values) -> dict:
    """{"<tokenizer> V=<V>": value} over the rows of `mc`; `values` a column name or a
    function of a row."""
    get = values if callable(values) else (lambda r: r[values])
    return {f"{r.tokenizer} V={r.V}": get(r) for _, r in mc.iterrows()}


def rmc_checks(mc: pd.DataFrame) -> pd.DataFrame:
    """Claim 3 per tokenizer: RMC below base and below MC at every V, strictly decreasing in
    V, and its reduction from the base at the largest V."""
    checks = {}
    for tk in TOKENIZERS:
        d = mc[mc.tokenizer == tk].sort_values("V")
        checks[tk] = dict(
            below_base=bool((d.RMC < d.base).all()),
            below_mc=bool((d.RMC < d.MC).all()),
            decreasing=bool(np.all(np.diff(d.RMC.values) < 0)),
            reduction=float(1 - d.RMC.values[-1] / d.base.values[-1]),
        )
    return pd.DataFrame(checks).T


def rmc_measured(mc: pd.DataFrame, checks: pd.DataFrame, v_max: int) -> dict:
    """Claim 3's measured values (the ratios per cell, the reduction at `v_max`, RMC by V)."""
    v3 = {
        "PTME(RMC) / PTME(base)": by_cell(mc, "RMC / base"),
        "PTME(RMC) / PTME(MC)": by_cell(mc, lambda r: r.RMC / r.MC),
        f"reduction at V={v_max}": checks.reduction.to_dict(),
    }
    for tk in TOKENIZERS:
        v3[f"PTME(RMC) by V, {tk}"] = (
            mc[mc.tokenizer == tk].sort_values("V").RMC.to_numpy()
        )
    return v3


def merging_lines(mc: pd.DataFrame, checks: pd.DataFrame, v_max: int) -> list[str]:
    """The ranges of MC / base and RMC / base, the reductions, and the reading of claim 2."""
    mc_range = (float(mc["MC / base"].min()), float(mc["MC / base"].max()))
    rmc_range = (float(mc["RMC / base"].min()), float(mc["RMC / base"].max()))
    first = (
        f"MC / base ranges {mc_range[0]:.3f}–{mc_range[1]:.3f} over the "
        f"{len(mc)} tokenizer × V cells; RMC / base {rmc_range[0]:.3f}–"
        f"{rmc_range[1]:.3f}; the reduction at V = {v_max} is "
        + ", ".join(f"{tk} {checks.reduction[tk]:.1%}" for tk in TOKENIZERS)
    )
    lowers2, raises2 = [], []
    for tk in TOKENIZERS:
        r2 = mc[mc.tokenizer == tk]["MC / base"]
        n_below = int((r2 < 1).sum())
        span = f"{r2.min():.3f}–{r2.max():.3f} of the base"
        if n_below:
            lowers2.append(f"{NAMES[tk]} at {n_below} of {len(r2)} sizes ({span})")
        else:
            raises2.append(f"{NAMES[tk]} ({span})")
    second = (
        "Claim 2 reads: MC lowers PTME on "
        + ("; ".join(lowers2) if lowers2 else "no tokenizer")
        + (
            f", and leaves it at or above the base on {', '.join(raises2)}"
            if raises2
            else ""
        )
        + f" — so the paper's direction holds on {len(raises2)} of {len(TOKENIZERS)} "
        f"tokenizers; the largest reduction, {1 - mc_range[0]:.1%}, is "
        + ("under" if mc_range[0] >= 0.97 else "over")
        + " our 3 % bar (2b)."
    )
    return [first, second]


def peer_difference(peer: pd.DataFrame) -> float:
    """The largest relative PTME difference between `tokenizers` and SentencePiece."""
    return (peer["PTME tokenizers"] / peer["PTME sentencepiece"] - 1).abs().max()


def peer_report(peer: pd.DataFrame, seconds: float) -> str:
    """The two BPE implementations side by side (`peer_merging`'s rows), their time and
    their largest relative PTME difference."""
    return (
        f"RMC with two BPE implementations ({seconds:.1f} s); held-out values:\n"
        + peer.round(3).to_string(index=False)
        + f"\nlargest relative PTME difference: {peer_difference(peer):.1%}"
    )


@dataclass(frozen=True)
class Pieces:
    """One held-out mesh under the largest RMC vocabulary (MeshXL order): its corpus index,
    the merged piece lengths in sequence order, each face's token cost, the number of
    tokens and the mesh itself (a `QuantMesh`)."""

    index: int
    lengths: np.ndarray
    face_cost: np.ndarray
    n_tokens: int
    mesh: object


def pieces(corpus, sweep, meshes: pd.DataFrame, V: int) -> Pieces:
    """The held-out mesh with the most faces, encoded by the RMC vocabulary of size `V`."""
    show = int(corpus.test[np.argmax(meshes.faces.values[corpus.test])])
    mg = sweep.mergers[("RAW", "RMC", V)]
    ids = mg.encode(corpus.sequences[("RAW", True)][show])
    lens = mg.piece_length[ids]
    cost = np.repeat(1.0 / lens, lens)  # token cost of every base coordinate
    face_cost = cost.reshape(-1, 9).sum(axis=1)  # RAC keeps a face's 9 coordinates
    return Pieces(show, lens, face_cost, len(ids), corpus.meshes[show])


def pieces_line(p: Pieces, meshes: pd.DataFrame) -> str:
    """The shown mesh, its tokens per face after merging and the range of the face cost."""
    fc = p.face_cost
    return (
        f"{meshes.mesh[p.index]} (rotation {meshes.rotation[p.index]}), "
        f"{p.mesh.n_faces} faces: "
        f"{p.n_tokens} tokens for {p.lengths.sum()} coordinates, {fc.mean():.2f} tokens "
        f"per face "
        f"(9 before merging); face cost ranges {fc.min():.2f}–{fc.max():.2f}"
    )


@dataclass(frozen=True)
class PairStudy:
    """Claim 4: the helpful merges per (tokenizer, order), the first-order rule's agreement
    per corpus, and the table the chapter prints."""

    helpful: pd.DataFrame
    agreement: dict
    table: pd.DataFrame


def pair_study(pairs: pd.DataFrame, *, min_pairs: int = 10) -> PairStudy:
    """From the pair sweep's rows: helpful merges, `formula_agreement` per corpus, and per
    corpus the order of the neglected terms (max p_ab / min(p_a, p_b)) and the number of
    pairs whose PMI lies that close to 1."""
    helpful = pd.DataFrame(helpful_merges(pairs.to_dict("records"))).set_index(
        ["tokenizer", "order"]
    )
    agreement = {}
    for (tk, order), d in pairs.groupby(["tokenizer", "order"], sort=False):
        agreement[(tk, order)] = formula_agreement(
            d.exact, d.predicted, d.kind, d.pmi, min_pairs=min_pairs
        )
    rows = {}
    for key, a in agreement.items():
        d = pairs[(pairs.tokenizer == key[0]) & (pairs.order == key[1])]
        reach = float((d.p_ab / np.minimum(d.p_a, d.p_b)).max())  # neglected terms
        rows[key] = {
            "helpful (exact)": helpful.loc[key, "helpful_exact"],
            "helpful (F* > 0)": helpful.loc[key, "helpful_first_order"],
            "mean p_ab": helpful.loc[key, "mean_p_ab"],
            "sign agreement": a.sign_agreement,
            "min |PMI − 1|": a.closest_pmi_to_one,
            "max p_ab / p_a": reach,
            "pairs near PMI = 1": int((np.abs(d.pmi - 1) < reach).sum()),
            "Spearman pooled": a.spearman_pooled,
            "Spearman self": a.spearman_by_kind.get("self", np.nan),
            "Spearman distinct": a.spearman_by_kind.get("distinct", np.nan),
            "self pairs": a.pairs_by_kind.get("self", 0),
        }
    table = pd.DataFrame(rows).T
    table = table.astype({"self pairs": int, "pairs near PMI = 1": int})
    table.index.names = ["tokenizer", "order"]
    return PairStudy(helpful, agreement, table)


def helpful_shares(s: PairStudy) -> dict:
    """{"as is": {tokenizer: share}, "RAC": {...}}: the share of helpful merges."""
    return {
        order: {
            tk: float(s.helpful.loc[(tk, order), "helpful_exact"]) for tk in TOKENIZERS
        }
        for order in ("as is", "RAC")
    }


def share_measured(share: dict) -> dict:
    """Claim 4's measured values from `helpful_shares`: the shares as is and rearranged, and
    the rise (rearranged − as is) per tokenizer."""
    return {
        "share of helpful merges, as is": share["as is"],
        "share of helpful merges, rearranged": share["RAC"],
        "rise in the share (rearranged − as is)": {
            tk: share["RAC"][tk] - share["as is"][tk] for tk in TOKENIZERS
        },
    }


def sign_agreements(s: PairStudy) -> dict:
    """{"<tokenizer> <order>": the share of candidates whose sign the rule gets right}."""
    return {f"{tk} {order}": a.sign_agreement for (tk, order), a in s.agreement.items()}


def within_kind(s: PairStudy) -> dict:
    """{"<tokenizer> <order>: <kind>": Spearman} over the kinds with enough pairs."""
    return {
        f"{tk} {order}: {kind}": rho
        for (tk, order), a in s.agreement.items()
        for kind, rho in a.spearman_by_kind.items()
    }


def pair_lines(s: PairStudy, top: int) -> list[str]:
    """The readings of claim 4, 4s and 4b."""
    share = helpful_shares(s)
    h = s.helpful
    lines = [
        f"Claim 4 reads: among the {top} most frequent pairs, the share whose "
        "merge lowers PTME goes from "
        + ", ".join(
            f"{share['as is'][tk]:.0%} to {share['RAC'][tk]:.0%} ({tk})"
            for tk in TOKENIZERS
        )
        + " when the coordinates are rearranged; the mean p_ab of the candidates goes "
        "from "
        + ", ".join(
            f"{h.loc[(tk, 'as is'), 'mean_p_ab']:.4f} to "
            f"{h.loc[(tk, 'RAC'), 'mean_p_ab']:.4f} ({tk})"
            for tk in TOKENIZERS
        )
        + "."
    ]
    n_near = s.table["pairs near PMI = 1"]
    lines.append(
        "4s: the rule gets the sign of "
        + ", ".join(
            f"{round(a.sign_agreement * a.n_pairs)} of {a.n_pairs} ({tk} {order})"
            for (tk, order), a in s.agreement.items()
        )
        + f" right; the corpora hold {n_near.min()}–{n_near.max()} pairs whose PMI "
        "lies within max p_ab/p_a of 1, the only ones the neglected terms could flip."
    )
    within = within_kind(s)
    low = [
        f"{tk} {order}, {kind} pairs: {rho:.3f} over {a.pairs_by_kind[kind]}"
        for (tk, order), a in s.agreement.items()
        for kind, rho in a.spearman_by_kind.items()
        if rho < 0.9
    ]
    lines.append(
        f"4b: the ranking within kind reaches 0.9 in {len(within) - len(low)} of "
        f"{len(within)} (corpus, kind) cells"
        + ("; below: " + "; ".join(low) if low else "")
    )
    return lines


def pair_report(s: PairStudy, pairs: pd.DataFrame, top: int) -> str:
    """The readings of claim 4, 4s and 4b (`pair_lines`), then MeshXL's rearranged pairs by
    kind (`by_kind`)."""
    return "\n".join(
        [*pair_lines(s, top), "RAW + RAC, by kind of pair:"]
        + [by_kind(pairs, "RAW", "RAC").round(3).to_string()]
    )


def by_kind(pairs: pd.DataFrame, tokenizer="RAW", order="RAC") -> pd.DataFrame:
    """One corpus's pairs by kind: how many, the mean exact / predicted, and the largest
    p_ab / min(p_a, p_b)."""
    d = pairs[(pairs.tokenizer == tokenizer) & (pairs.order == order)]
    return d.groupby("kind").apply(
        lambda d: pd.Series(
            {
                "pairs": len(d),
                "mean exact / predicted": float((d.exact / d.predicted).mean()),
                "max p_ab / min(p_a, p_b)": float(
                    (d.p_ab / np.minimum(d.p_a, d.p_b)).max()
                ),
            }
        ),
        include_groups=False,
    )


def corpus_line(corpus, n_bases: int, rotations: int, seconds: float) -> str:
    """How many meshes the corpus holds, its split, and the time it took."""
    n = len(corpus.rows)
    return (
        f"{n_bases} base meshes × {rotations} rotations = {n} meshes "
        f"({corpus.train.size} train, {corpus.test.size} test); every one of the "
        f"{6 * n} tokenisations decodes to its mesh's faces; data prepared in "
        f"{seconds:.1f} s"
    )


def corpus_report(corpus, meshes: pd.DataFrame, test_bases, *, rotations: int,
                  seconds: float) -> str:  # fmt: skip
    """What the data preparation printed: `corpus_line` (over the base meshes of `meshes`,
    the corpus table), the held-out base meshes and `corpus_summary`."""
    return "\n".join(
        [
            corpus_line(corpus, meshes.mesh.nunique(), rotations, seconds),
            "held-out base meshes: " + ", ".join(sorted(test_bases)),
            corpus_summary(meshes).round(3).to_string(),
        ]
    )


def piece_strip(lengths, *, width: int, rows: int) -> tuple[list, int]:
    """The first `width · rows` coordinates laid out row by row: (piece index, column, row)
    of every square, and the number of pieces that start there."""
    cells, pos, k = [], 0, 0
    while pos < width * rows:
        n = int(lengths[k])
        for j in range(n):
            r, c = divmod(pos + j, width)
            if r >= rows:
                break
            cells.append((k, c, r))
        pos += n
        k += 1
    return cells, k

"""What the chapter reads under check 5 (leave-one-base-out) and claim 6 (learnability),
and its timing lines: tables, recorded values and sentences generated from the numbers,
and the timer of the chapter's stages (`StageTimes`). Pure functions otherwise (tables as
pandas DataFrames); no printing, plotting or file writing. Every name is also reachable as
`readings.<name>`."""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pandas as pd

from repbook.core import paired_gain

from .meshes import TOKENIZERS
from .protocols import METHODS, tokens_per_face_by_base
from .ptme import spearman


class StageTimes(dict):
    """Seconds per stage of a run, {name: seconds} in the order the stages ran; a stage is
    timed by `with times.timing(name): ...` (wall time, recorded when the block ends)."""

    @contextmanager
    def timing(self, name: str):
        t0 = time.perf_counter()
        yield
        self[name] = time.perf_counter() - t0


def by_row(table: pd.DataFrame, column: str, second: str) -> dict:
    """{"<tokenizer> <row[second]>": row[column]} over the rows of `table`."""
    return {f"{r.tokenizer} {r[second]}": r[column] for _, r in table.iterrows()}


def gain_cells(gains: dict, names=None) -> list[tuple[str, float, float, int]]:
    """(name, mean, t·SE, n) of each paired gain in `gains` (the book's paired rule)."""
    out = []
    for name in names or gains:
        m, _, half, n = paired_gain(name, k="t").interval(gains)
        out.append((name, m, half, n))
    return out


def lobo_gains(lobo: pd.DataFrame) -> dict:
    """Check 5's gains: {"RMC shortening vs MC, <tokenizer> V=<V>": {mesh: gain}}; adds the
    column `gain` = 1 − RMC / MC to `lobo`."""
    lobo["gain"] = 1 - lobo.RMC / lobo.MC
    return {
        f"RMC shortening vs MC, {tk} V={V}": dict(zip(d.mesh, d.gain))
        for (tk, V), d in lobo.groupby(["tokenizer", "V"], sort=False)
    }


def lobo_table(lobo: pd.DataFrame) -> pd.DataFrame:
    """Check 5's shortening 1 − RMC / MC (the column `gain`, see `lobo_gains`): one row per
    held-out base mesh, one column per (tokenizer, V)."""
    return lobo.pivot_table(
        index="mesh", columns=["tokenizer", "V"], values="gain", sort=False
    )


def lobo_report(lobo: pd.DataFrame, seconds: float) -> str:
    """What leave-one-base-out printed: its vocabularies, its time and `lobo_table`."""
    return (
        f"leave-one-base-out: {2 * len(lobo)} vocabularies trained and applied in "
        f"{seconds:.1f} s; shortening 1 − RMC/MC per held-out base mesh:\n"
        + lobo_table(lobo).round(3).to_string()
    )


def tokens_per_face_table(res: pd.DataFrame) -> pd.DataFrame:
    """Held-out tokens per face per (tokenizer, V): base, MC and RMC."""
    tpf = res.pivot_table(
        index=["tokenizer", "V"], columns="method", values="tokens_per_face"
    ).reset_index()
    tpf["base"] = tpf.tokenizer.map(
        res[res.method == "base"].set_index("tokenizer").tokens_per_face
    )
    return tpf.dropna(subset=["RMC"])


def fixed_split_gains(corpus, sweep, vocab) -> pd.DataFrame:
    """RMC's shortening against MC paired over the fixed split's held-out base meshes, at
    every tokenizer and V: mean, t·SE and n."""
    rows = []
    for tk in TOKENIZERS:
        for V in vocab:
            t_mc = tokens_per_face_by_base(corpus, sweep, tk, "MC", V)
            t_rmc = tokens_per_face_by_base(corpus, sweep, tk, "RMC", V)
            g = [1 - t_rmc[b] / t_mc[b] for b in t_mc]
            m, _, half, n = paired_gain("g", k="t").interval({"g": g})
            rows.append(dict(tokenizer=tk, V=V, mean=m, half=half, n=n))
    return pd.DataFrame(rows)


def shortening_measured(tpf: pd.DataFrame, context: int) -> dict:
    """Sanity check 5s's values: RMC / base and RMC by V, and faces per `context` tokens."""
    v5 = {}
    for tk in TOKENIZERS:
        d = tpf[tpf.tokenizer == tk].sort_values("V")
        v5[f"tokens per face, RMC / base, {tk}"] = (d.RMC / d.base).to_numpy()
        v5[f"tokens per face by V, {tk}"] = d.RMC.to_numpy()
        v5[f"faces per {context} tokens, {tk}: base"] = context / d.base.values[0]
        v5[f"faces per {context} tokens, {tk}: RMC V={d.V.values[-1]}"] = (
            context / d.RMC.values[-1]
        )
    return v5


READ5 = {
    "reproduced": "above 0 beyond the noise",
    "within noise": "within the noise",
    "not reproduced": "at or below 0 beyond the noise",
}


def lobo_lines(claim, gains: dict, lobo: pd.DataFrame, fixed: pd.DataFrame, *,
               tpf: pd.DataFrame, context: int, v_max: int) -> list[str]:  # fmt: skip
    """The reading of check 5 (`claim`: its ledger record) and the fixed split's context."""
    cells = [f"{name.split(', ')[1]} {m:+.3f} ± {half:.3f}"
             for name, m, half, _ in gain_cells(gains)]  # fmt: skip
    n_neg = int((lobo.gain <= 0).sum())
    first = (
        f"Check 5 ({claim.verdict_word()}): mean shortening ± t·SE over "
        f"{lobo.mesh.nunique()} base meshes: "
        + ", ".join(cells)
        + "; the weakest cell "
        f"({claim.binding}) is {READ5.get(claim.verdict, claim.verdict)}; RMC is no "
        f"shorter than MC on {n_neg} of {len(lobo)} (base mesh, tokenizer, V)"
        + (
            ": "
            + ", ".join(
                f"{r.mesh} ({r.tokenizer})" for r in lobo[lobo.gain <= 0].itertuples()
            )
            if n_neg
            else ""
        )
        + "."
    )
    lines5 = []
    for tk in TOKENIZERS:
        d = tpf[tpf.tokenizer == tk].sort_values("V")
        lines5.append(
            f"{tk} {context / d.base.values[0]:.0f} → {context / d.RMC.values[-1]:.0f}"
        )
    n_res = int((fixed["mean"] - fixed["half"] > 0).sum())
    n_fix = int(fixed.n.iloc[0])
    second = (
        f"For context, the fixed split's {n_fix} held-out base meshes resolve "
        f"{n_res} of the {len(fixed)} tokenizer × V cells (mean − t·SE > 0; t on "
        f"{n_fix - 1} d.f. is {paired_gain('g', k='t').k_for(n_fix):.2f}); "
        f"faces in a {context}-token context, base → RMC at V = {v_max}: "
        + ", ".join(lines5)
    )
    return [first, second]


def learnability_table(lm_rows) -> pd.DataFrame:
    """Claim 6's tokenisations: the learnability rows with the model's distance to the
    unigram (< 0: learned) and to 9·PTME (< 0: below the unigram line)."""
    lm = pd.DataFrame(lm_rows).drop(
        columns=["tokens", "sequence_bits"], errors="ignore"
    )
    lm["model − unigram"] = lm.bits_per_face - lm.unigram_bits_per_face
    lm["model − 9·PTME"] = lm.bits_per_face - 9 * lm.ptme
    return lm


def contrast_gains(contrasts) -> dict:
    """{"<tokenizer> <contrast>: gain in PTME's direction": {mesh: gain}}."""
    return {
        f"{c['tokenizer']} {c['contrast']}: gain in PTME's direction": c["gains"]
        for c in contrasts
    }


def contrast_table(contrasts) -> pd.DataFrame:
    """Per contrast: PTME's direction, ΔPTME, and the mean gain ± t·SE over the meshes."""
    gains = contrast_gains(contrasts)
    rows = []
    for c, (_, m, half, n) in zip(contrasts, gain_cells(gains)):
        a, b = c["contrast"].split(" vs ")
        rows.append(
            {
                "tokenizer": c["tokenizer"],
                "contrast": c["contrast"],
                "PTME says": f"{a} {'easier' if c['direction'] > 0 else 'harder'}",
                "ΔPTME (A − B)": c["ptme_a"] - c["ptme_b"],
                "mean gain (bits/face)": m,
                "± t·SE": half,
                "meshes": n,
            }
        )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class LearnabilityStudy:
    """Claim 6 read from the learnability runs: the tokenisations' table
    (`learnability_table`), the per-mesh contrasts with their gains (`contrast_gains`) and
    table (`contrast_table`), the Spearman correlations of PTME and of tokens per face with
    the model's bits per face, the model's name and on how many tokenisations it beats the
    unigram (`n_learn`; the gate asks for all)."""

    lm: pd.DataFrame
    contrasts: list
    gains: dict
    table: pd.DataFrame
    rho: float
    rho_len: float
    model: str
    n_learn: int

    @property
    def gate_met(self) -> bool:
        """The model beats the unigram on every tokenisation."""
        return self.n_learn == len(self.lm)

    @property
    def n_meshes(self) -> int:
        """The held-out base meshes each contrast is paired over."""
        return len(self.contrasts[0]["gains"])

    @property
    def gaps(self) -> dict:
        """{"<tokenizer> <method>": the model's bits per face − the unigram's} (the gate)."""
        return by_row(self.lm, "model − unigram", "method")

    @property
    def bits(self) -> dict:
        """{"<tokenizer> <method>": the model's held-out bits per face}."""
        return by_row(self.lm, "bits_per_face", "method")

    @property
    def mean_gains(self) -> dict:
        """{"<tokenizer> <contrast>": mean gain in PTME's direction, bits per face}."""
        return by_row(self.table, "mean gain (bits/face)", "contrast")


def learnability_study(lm_rows, contrasts, *, lm) -> LearnabilityStudy:
    """Claim 6 from `learnability`'s rows and `learnability_contrasts`' contrasts; `lm`: the
    transformer's settings that `learnability` was given (None: the trigram)."""
    table = learnability_table(lm_rows)
    return LearnabilityStudy(
        lm=table,
        contrasts=list(contrasts),
        gains=contrast_gains(contrasts),
        table=contrast_table(contrasts),
        rho=spearman(table.ptme, table.bits_per_face),
        rho_len=spearman(table.tokens_per_face, table.bits_per_face),
        model="trigram" if lm is None else "transformer",
        n_learn=int((table["model − unigram"] < 0).sum()),
    )


def spearman_line(s: LearnabilityStudy) -> str:
    """Claim 6b's correlation beside that of tokens per face (length alone)."""
    return (
        f"Spearman(PTME, bits per face) = {s.rho:.3f}; for comparison, "
        f"Spearman(tokens per face, bits per face) = {s.rho_len:.3f}"
    )


def learnability_report(s: LearnabilityStudy, seconds: float) -> str:
    """What the learnability runs printed: the model and its time, the tokenisations' table,
    `spearman_line`, and the contrasts' table."""
    return "\n".join(
        [
            f"next-token model: {s.model} ({seconds:.1f} s)",
            s.lm.round(3).to_string(index=False),
            spearman_line(s),
            "per held-out base mesh, the gain in PTME's direction (> 0: the model "
            "agrees):",
            s.table.round(3).to_string(index=False),
        ]
    )


def learnability_reading(s: LearnabilityStudy, verdict: str) -> list[str]:
    """`learnability_lines` of a study (`verdict`: claim 6's verdict word)."""
    return learnability_lines(
        s.lm, s.table, model=s.model, verdict=verdict, gate_met=s.gate_met
    )


def learnability_lines(lm: pd.DataFrame, table: pd.DataFrame, *, model: str,
                       verdict: str, gate_met: bool) -> list[str]:  # fmt: skip
    """The readings of claim 6: the gate, the contrasts, and where the model lies below
    9·PTME (`verdict`: claim 6's verdict word)."""
    lost = lm[lm["model − unigram"] >= 0]
    n_learn = int((lm["model − unigram"] < 0).sum())
    weak = lm[lm["model − 9·PTME"] > 0]
    first = (
        f"The {model} beats the unigram fitted on the training split on {n_learn} of "
        f"{len(lm)} tokenisations"
        + (
            "; it does not on "
            + ", ".join(
                f"{r.tokenizer} {r.method} ({r['model − unigram']:+.2f} bits per face)"
                for _, r in lost.iterrows()
            )
            if len(lost)
            else ""
        )
        + f", so claim 6 is {verdict}."
    )
    agree = table[table["mean gain (bits/face)"] - table["± t·SE"] > 0]
    against = table[table["mean gain (bits/face)"] + table["± t·SE"] <= 0]
    second = (
        ("Judged" if gate_met else "Read anyway (not judged)")
        + f": the {model} orders the pair as PTME does beyond the noise in "
        f"{len(agree)} of {len(table)} contrasts"
        + (
            " ("
            + ", ".join(f"{r.tokenizer} {r.contrast}" for r in agree.itertuples())
            + ")"
            if len(agree)
            else ""
        )
        + f", against it beyond the noise in {len(against)}"
        + (
            " ("
            + ", ".join(
                f"{r.tokenizer} {r.contrast}, where PTME says {r['PTME says']}"
                for _, r in against.iterrows()
            )
            + ")"
            if len(against)
            else ""
        )
        + "."
    )
    third = (
        f"The {model}'s bits per face lie below 9·PTME (it learns from context beyond "
        f"the held-out unigram entropy) on {len(lm) - len(weak)} of {len(lm)} "
        "tokenisations"
        + (
            ": "
            + ", ".join(
                f"{r.tokenizer} {r.method}"
                for _, r in lm[lm["model − 9·PTME"] <= 0].iterrows()
            )
            if len(lm) > len(weak)
            else ""
        )
        + "."
    )
    return [first, second, third]


def stage_line(stage_s: dict, meshes: pd.DataFrame) -> str:
    """The stages' times and the serialisation time per mesh (load-dependent)."""
    ser = {tk: meshes[f"time_{tk}"] for tk in TOKENIZERS}
    return (
        "stages (s): " + ", ".join(f"{k} {v:.1f}" for k, v in stage_s.items()) + "; "
        "serialisation time per mesh (median / max, ms): "
        + ", ".join(
            f"{tk} {1e3 * s.median():.1f} / {1e3 * s.max():.1f}"
            for tk, s in ser.items()
        )
        + f"; largest mesh {meshes.faces.max()} faces"
    )


def record_time_line(record) -> str:
    """The runner's time per quick run in the stability record (`record`: its object or
    None); empty when it holds none."""
    runs = [
        r["seconds"]
        for r in (record.runs if record else [])
        if isinstance(r.get("seconds"), (int, float))
    ]
    if not runs:
        return ""
    return (
        f"the runner's time per quick run in the stability record (kernel start "
        f"included, on a shared machine): {min(runs):.0f}–{max(runs):.0f} s "
        f"over {len(runs)} seeds; the budget is 90 s on 2 quiet cores"
    )


def full_scale_estimate(step: float, *, sizes: dict, stage_s: dict, device,
                        n_tok: int = len(TOKENIZERS) * len(METHODS)) -> str:  # fmt: skip
    """The time of a full-scale run, from one timed step of its transformer (`step`, s) and
    this quick run's other stages (`sizes`: the chapter's table of both scales); `n_tok`
    models (one per tokenisation) are trained."""
    full, quick = sizes["full"], sizes["quick"]
    full_lm = full["lm"]
    lm_min = n_tok * full_lm["steps"] * step / 60
    rest = sum(v for k, v in stage_s.items() if k != "next-token models")
    grow = full["rotations"] / quick["rotations"]
    faces_ratio = full["max_faces"] / quick["max_faces"]
    return (
        f"one training step of the full-scale transformer took {step:.2f} s of wall "
        f"time in this run ({device}, under this machine's present load), so the "
        f"{n_tok} models' {full_lm['steps']} steps take about "
        f"{lm_min:.0f} min, before their evaluation; this run's other stages took "
        f"{rest:.0f} s, and full scale has {grow:.1f}× the meshes, up to "
        f"{faces_ratio:.1f}× the faces each, "
        f"{len(full['vocab'])} vocabulary sizes and a leave-one-base-out at "
        f"{len(full['lobo_vocab'])}: at least {grow * rest / 60:.0f} min "
        "more. "
        f"In all at least {lm_min + grow * rest / 60:.0f} min: "
        + (
            "over the book's 30-minute rule for a CPU run — a GPU or a long CPU run."
            if lm_min + grow * rest / 60 > 30
            else "within the book's 30-minute rule for a CPU run."
        )
    )


def note_6(s: LearnabilityStudy, *, scale: str) -> str:
    """Claim 6's note: the model, the scale and the pairing, and that the full-scale
    transformer would check it where the trigram ran."""
    return (
        f"{s.model} at {scale} scale; gains paired over the {s.n_meshes} held-out base "
        "meshes"
        + (
            "; the full-scale transformer would check it"
            if s.model == "trigram"
            else ""
        )
    )


def note_6b(lm: pd.DataFrame, *, model: str, scale: str) -> str:
    """Check 6b's note: the model and scale, and a weak test where the model's bits per face
    lie above 9·PTME (the unigram line) on any tokenisation."""
    weak = lm[lm["model − 9·PTME"] > 0]
    return f"{model} at {scale} scale, 9 tokenisations" + (
        f"; a weak test: the model's bits per face lie above 9·PTME (the unigram "
        f"line) on {len(weak)} of {len(lm)} tokenisations"
        if len(weak)
        else ""
    )


def means(gains: dict) -> dict:
    """{"<tokenizer> V=<V>": mean gain} from check 5's {"…, <tokenizer> V=<V>": {mesh: gain}}."""
    return {
        name.split(", ")[1]: float(np.mean(list(g.values())))
        for name, g in gains.items()
    }

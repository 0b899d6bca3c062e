"""Readings of chapter 19's pre-training records (Liu, Suganuma & Okatani, ICML 2025).

The study itself — scenes, the crop-tied field, position masking, the tiny ViT, pre-training,
the probes and `vit_positional_ssl.study_values` — lives in `repbook.papers.vit_positional_ssl`.
This module holds the chapter's own tables, sentences and figure helpers over the records
under `data/19_vit_positional_ssl/` (each record carries the sha256 of the code and of the
script that made it). Everything here reads plain records (the JSON-able dicts
`Study.record()` returns and the shipped files hold, and the {name: per-seed values} of
`study_values`); nothing imports the study package, trains, prints, plots or writes files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from repbook.core import checks
from repbook.core.stats import t_quantile

PROBES = ("position R²", "masked-position R²", "count accuracy", "type accuracy")
"""The probes of a record's runs, read at step 0 and trained."""
RUN_KEYS = (
    "loss step 0",
    "loss end",
    "loss end / step 0",
    "field change",
    "field smoothness step 0",
    "field smoothness",
    "feature std end",
)
"""The per-run numbers of a record besides the probes."""


def _runs(record: Mapping, label: str) -> list:
    runs = [r for r in record["runs"] if r["label"] == label]
    if not runs:
        have = sorted({r["label"] for r in record["runs"]})
        raise ValueError(f"the record has no runs labelled {label!r}; it has {have}")
    return runs


def run_table(record: Mapping) -> pd.DataFrame:
    """Means over seeds per label (columns): each probe and detection head's AP at step 0
    and trained, and the run keys."""
    heads = [k for k in record["runs"][0]["trained"] if k.startswith("AP ")]
    cols = {}
    for lab in record["labels"]:
        rs = _runs(record, lab)
        col = {}
        for key in list(PROBES) + heads:
            col[f"{key} · step 0"] = np.mean([r["step 0"][key] for r in rs])
            col[f"{key} · trained"] = np.mean([r["trained"][key] for r in rs])
        for key in RUN_KEYS:
            col[key] = np.mean([r[key] for r in rs])
        cols[lab] = col
    return pd.DataFrame(cols)


def recorded_regime(record: Mapping) -> str:
    """The regime string of a recorded run (data, model, field, share, steps, seeds,
    machine), as the ledger records it for the claims judged on it."""
    reg, size = record["regime"], record["data"]["size"]
    share = reg["pos_mask_share"]
    return (
        f"recorded CPU run (study_record.json): synthetic {size}×{size} shape scenes; "
        f"tiny ViT (dim {reg['arch']['dim']}, depth {reg['arch']['depth']}; sin-cos "
        f"field, field lr ×{reg['field_lr']:g}); content:position "
        f"{round(100 * (1 - share))}:{round(100 * share)}; {reg['steps']} steps × "
        f"{reg['batch']} images per variant; seeds "
        f"{', '.join(str(s) for s in record['seeds'])}; frozen probes; {record['machine']}"
    )


def seconds_line(record: Mapping) -> str:
    """How many pre-trainings a record holds, their mean time and the record's total."""
    secs = [r["seconds"] for r in record["runs"]]
    return (
        f"{len(secs)} pre-trainings of {np.mean(secs):.0f} s on average, "
        f"{record['seconds']:.0f} s in all"
    )


def gate_table(values: Mapping, met: Mapping[str, bool]) -> pd.DataFrame:
    """The trained gate per variant (`met`: {variant: whether it holds}): the loss at the end
    over step 0 and the count/type probe's rise on each seed (`study_values` keys)."""
    return pd.DataFrame(
        [
            {
                "variant": v,
                "loss end / step 0 per seed": ", ".join(
                    f"{x:.2f}" for x in values[f"loss end / step 0 · {v}"]
                ),
                "count/type rise per seed": ", ".join(
                    f"{x:+.3f}" for x in values[f"content probe rise · {v}"]
                ),
                "trained (gate a and b)": "met" if ok else "unmet",
            }
            for v, ok in met.items()
        ]
    )


def gate_line(values: Mapping, variants: Sequence[str]) -> str:
    """The trained gate's two parts over every run of `variants`, with B's linear-head AP
    rise beside them when the record has detection heads."""
    loss = [x for v in variants for x in values[f"loss end / step 0 · {v}"]]
    rise = [x for v in variants for x in values[f"content probe rise · {v}"]]
    b_up = values.get("pre-training AP gain of B · linear", [])
    n_a, n_b = sum(x <= 0.5 for x in loss), sum(x >= 0.05 for x in rise)
    return (
        f"(a) the loss at the end is {min(loss):.2f}–{max(loss):.2f} of its step-0 "
        f"value, at most 0.5 on {n_a} of {len(loss)} runs; (b) the count/type probes "
        f"rose by at most {max(rise):+.3f}, at least 0.05 on {n_b} of {len(rise)} runs"
        + (
            ". B's linear-head AP, the other probe the gate could have read, rose by "
            + ", ".join(f"{x:+.3f}" for x in b_up)
            + (" (below 0.05 on every seed)" if max(b_up) < 0.05 else "")
            if b_up
            else ""
        )
    )


def field_lines(table: pd.DataFrame) -> list[str]:
    """Per label of a `run_table`: its position R² trained and at step 0, how far its field
    moved and its smoothness."""
    return [
        f"{v:8s} position R² {col['position R² · trained']:.3f} (step 0 "
        f"{col['position R² · step 0']:.3f}), field moved {col['field change']:.2f} of "
        f"its initial norm, smoothness {col['field smoothness']:.2f} (step 0 "
        f"{col['field smoothness step 0']:.2f})"
        for v, col in table.items()
    ]


def ap_per_seed(record: Mapping, label: str, stage: str, head: str) -> list[float]:
    """The AP@0.5 of `head` at `stage` ("step 0" or "trained") for `label`, one per seed of
    the record, in its seed order."""
    checks.one_of("stage", stage, ("step 0", "trained"))
    return [
        r[stage][f"AP {head}"]
        for s in record["seeds"]
        for r in record["runs"]
        if r["label"] == label and r["seed"] == s
    ]


def ap_lines(
    record: Mapping, values: Mapping, variants: Sequence[str], head: str
) -> str:
    """Claim 3's reading of one head: AP@0.5 per seed of each variant trained and of B and
    B+PE at step 0, B's rise over step 0 and the gain of B+PE+PM over B (mean ± t·SE), and
    the chance AP of B's features."""
    n = len(record["seeds"])
    t = t_quantile(n)
    parts = [
        f"{v} " + ", ".join(f"{a:.3f}" for a in ap_per_seed(record, v, "trained", head))
        for v in variants
    ]
    b0 = ap_per_seed(record, "B", "step 0", head)
    pe0 = ap_per_seed(record, "B+PE", "step 0", head)
    gain = values[f"AP gain (B+PE+PM − B) · {head}"]
    up = values[f"pre-training AP gain of B · {head}"]
    return (
        f"{head} head, AP@0.5 per seed: " + "; ".join(parts)
        + "\n  at step 0: B " + ", ".join(f"{a:.3f}" for a in b0)
        + ", B+PE and B+PE+PM (the same weights) " + ", ".join(f"{a:.3f}" for a in pe0)
        + f"\n  B trained − step 0: mean {np.mean(up):+.3f} ± "
        f"{t * np.std(up, ddof=1) / np.sqrt(n):.3f}; B+PE+PM − B: mean "
        f"{np.mean(gain):+.3f} ± {t * np.std(gain, ddof=1) / np.sqrt(n):.3f} "
        f"(± t·SE, t = {t:.2f})"
        + "\n  chance AP of B's features: "
        + ", ".join(
            f"{r['trained'][f'chance AP {head}']:.4f}"
            for r in record["runs"] if r["label"] == "B"
        )
    )  # fmt: skip


def scan_rows(text: str) -> list[dict]:
    """The first scan's rows (`regime_scan.jsonl`: one JSON object per line)."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def scan_table(text: str) -> pd.DataFrame:
    """The first scan as a table: per field learning rate and variant, each probe at step 0
    → trained, the field's change and smoothness."""
    rows = []
    for r in scan_rows(text):
        u, t = r["untrained"], r["trained"]
        rows.append(
            {
                "field lr": f"×{r['lr']:g}",
                "variant": r["v"],
                "R² step 0 → trained": f"{u['pos']:.3f} → {t['pos']:.3f}",
                "masked R²": f"{u['masked']:.3f} → {t['masked']:.3f}",
                "AP c0": f"{u['ap_c0']:.3f} → {t['ap_c0']:.3f}",
                "AP c1": f"{u['ap_c1']:.3f} → {t['ap_c1']:.3f}",
                "field change": r["field"],
                "smoothness": r["smooth"],
            }
        )
    return pd.DataFrame(rows)


def pilot_table(
    pilot: Mapping, values: Mapping, met: Mapping[str, bool]
) -> pd.DataFrame:
    """The pilot's runs (`met`: {label: whether the trained gate holds}): the loss ratio, the
    count/type rise, the gate, the rises of the position probes, the linear head's AP at step
    0 and trained, and the seconds."""
    rows = []
    for r in pilot["runs"]:
        lab, s0, tr = r["label"], r["step 0"], r["trained"]
        rows.append(
            {
                "run": lab,
                "loss end / step 0": r["loss end / step 0"],
                "count/type rise": values[f"content probe rise · {lab}"][0],
                "trained gate": "met" if met[lab] else "unmet",
                "position R² rise": tr["position R²"] - s0["position R²"],
                "masked R² rise": tr["masked-position R²"] - s0["masked-position R²"],
                "AP linear step 0": s0["AP linear"],
                "AP linear trained": tr["AP linear"],
                "seconds": r["seconds"],
            }
        )
    return pd.DataFrame(rows).set_index("run")


def share_rule(table: pd.DataFrame) -> tuple[float, bool, bool]:
    """The pilot's rule: the share 0:100 (1.0) if B+PE+PM at 50:50 fails the trained gate
    while 0:100 meets it, else 50:50 (0.5). Returns (share, 50:50 met, 0:100 met)."""
    half, whole = (
        table.loc[k, "trained gate"] == "met"
        for k in ("B+PE+PM 50:50", "B+PE+PM 0:100")
    )
    return (1.0 if (not half and whole) else 0.5), bool(half), bool(whole)


def audit_lines(old: Mapping, scan_text: str) -> str:
    """What the second audit knew: the earlier claim-3 record's B at step 0 and trained and its
    old gate (B trained − step 0, mean ± t·SE), and the first scan's linear-head APs."""
    up = np.subtract(old["ap"]["B"], old["untrained_ap"]["B"])
    n = len(up)
    t = t_quantile(n)
    half = t * np.std(up, ddof=1) / np.sqrt(n)
    scan = scan_rows(scan_text)
    c1 = sorted({r["trained"]["ap_c1"] for r in scan})
    c0 = sorted({r["trained"]["ap_c0"] for r in scan})
    return (
        "earlier record (random-feature head): B's AP at step 0 "
        + ", ".join(f"{a:.3f}" for a in old["untrained_ap"]["B"])
        + ", trained " + ", ".join(f"{a:.3f}" for a in old["ap"]["B"])
        + f"; its old claim-3 gate (B trained − step 0) failed beyond noise: mean "
        f"{up.mean():+.3f} ± {half:.3f} (t = {t:.2f})"
        + "\nfirst scan (one seed, 800 steps), linear heads: 3×3 AP "
        f"{scan[0]['untrained']['ap_c1']:.3f} at step 0 → {c1[0]:.3f}–{c1[-1]:.3f} "
        "trained; "
        f"one-token AP {scan[0]['untrained']['ap_c0']:.3f} → {c0[0]:.3f}–{c0[-1]:.3f}"
    )  # fmt: skip


def full_scale_line(record: Mapping, full: Mapping, n_variants: int) -> str:
    """A lower bound of the full scale's pre-training time on the recorded run's machine: its
    step time scaled by the batch and the token count alone."""
    step_s = np.mean([r["seconds"] for r in record["runs"]]) / record["regime"]["steps"]
    factor = (full["batch"] / record["regime"]["batch"]) * (
        full["size"] / record["data"]["size"]
    ) ** 2
    n_steps = (n_variants * full["train_seeds"] + len(full["ablations"])) * full[
        "steps"
    ]
    return (
        f"recorded run: {step_s:.3f} s per pre-training step at quick size; full scale at "
        f"least {factor:.0f}× that, so {n_steps:,} steps take at least "
        f"{n_steps * step_s * factor / 3600:.1f} h on this CPU before any probe: the full "
        f"scale is for a GPU. The recorded run itself took {record['seconds']:.0f} s."
    )


def field_colours(field: torch.Tensor):
    """For the figure: a function that maps a field (or a crop of it) to an RGB image, the
    field's top three principal components scaled to [0, 1] per channel."""
    P = torch.as_tensor(field).detach().cpu()
    mean = P.flatten(1).mean(1)
    basis = torch.linalg.svd(
        P.flatten(1) - P.flatten(1).mean(1, keepdim=True), full_matrices=False
    )[0][:, :3]

    def rgb(f):
        z = torch.einsum("dc,dhw->chw", basis, f - mean[:, None, None])
        z = (z - z.amin((1, 2), keepdim=True)) / (
            z.amax((1, 2), keepdim=True) - z.amin((1, 2), keepdim=True)
        )
        return z.permute(1, 2, 0).numpy()

    return rgb

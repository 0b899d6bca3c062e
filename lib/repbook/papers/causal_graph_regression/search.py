"""The bounded mechanism search: quick-scale set-ups of CGR alone, chosen for whether its
causal mask can separate the cycle from the base graph (never for an MAE), trained by
`attention_search`, recorded once by `write_mechanism_search` in
data/16_causal_graph_regression/mechanism_search.json and read back by
`read_mechanism_search`; `search_summary` and `search_report` summarise the record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from .data import make_splits
from .losses import CGRLoss
from .training import Method, train_methods


SETUP_KEYS = (
    "info",
    "per_width",
    "noise",
    "att_temperature",
    "lr",
    "epochs",
    "n_train",
    "layers",
)

# The bounded mechanism search (`write_mechanism_search`): quick-scale set-ups of CGR
# alone, chosen for whether its causal mask can separate the cycle, never for an MAE.
# Each changes one or two things from the paper's form as the chapter runs it.
MECHANISM_SETUPS = {
    name: dict(zip(SETUP_KEYS, values))
    for name, values in {
        "as the chapter (α/D, noise 1)": (
            "embedding",
            True,
            1.0,
            1.0,
            1e-3,
            20,
            600,
            3,
        ),
        "α on ½‖μ‖² (no /D)": ("embedding", False, 1.0, 1.0, 1e-3, 20, 600, 3),
        "deterministic h_o (noise 0)": ("embedding", True, 0.0, 1.0, 1e-3, 20, 600, 3),
        "GSAT KL, no noise": ("kl", True, 0.0, 1.0, 1e-3, 20, 600, 3),
        "lr 3e-3": ("embedding", True, 1.0, 1.0, 3e-3, 20, 600, 3),
        "lr 1e-2": ("embedding", True, 1.0, 1.0, 1e-2, 20, 600, 3),
        "τ 0.3, lr 3e-3": ("embedding", True, 1.0, 0.3, 3e-3, 20, 600, 3),
        "1,200 graphs, lr 3e-3": ("embedding", True, 1.0, 1.0, 3e-3, 20, 1200, 3),
        "100 epochs, lr 3e-3": ("embedding", True, 1.0, 1.0, 3e-3, 100, 600, 3),
    }.items()
}


def attention_search(
    setups: dict[str, dict],
    seeds: Sequence[int],
    *,
    n_val: int,
    n_test: int,
    hidden: int,
    batch: int,
    select_after: int,
    shortcut: float,
    device: str | torch.device = "cpu",
) -> list[dict]:
    """A bounded search for a set-up where CGR's causal attention separates the cycle:
    for each named set-up (keys SETUP_KEYS) and seed, train CGR alone on
    `make_splits(default_rng([seed, 100]))` and return a row with its OOD and IID MAE,
    a_o on cycle and base nodes and their difference. The set-ups are chosen for the
    attention, never for an MAE."""
    if not setups:
        raise ValueError("setups is empty: name at least one set-up")
    if len(seeds) == 0:
        raise ValueError("seeds is empty: name at least one seed")
    rows = []
    for name, s in setups.items():
        if set(s) != set(SETUP_KEYS):
            raise ValueError(
                f"setup {name!r} must have exactly the keys {sorted(SETUP_KEYS)}, got "
                f"{sorted(s)}"
            )
        for r in seeds:
            sp = make_splits(
                np.random.default_rng([int(r), 100]),
                n_train=s["n_train"],
                n_val=n_val,
                n_test=n_test,
                shortcut=shortcut,
            )
            loss = CGRLoss(info=s["info"], per_width=s["per_width"])
            method = Method("cgr", loss, s["att_temperature"], s["noise"])
            (row,), _ = train_methods(
                sp,
                {name: method},
                model_seed=int(r),
                batch_seed=int(r),
                hidden=hidden,
                layers=s["layers"],
                epochs=s["epochs"],
                batch=batch,
                select_after=select_after,
                lr=s["lr"],
                device=device,
            )
            row = dict(row, setup=name, seed=int(r), **s)
            row["a_o cycle − base"] = row["a_o cycle"] - row["a_o base"]
            rows.append(row)
    return rows


def _git_commit() -> str:
    """The checkout's commit, with "+uncommitted changes" when the tree is dirty."""
    import subprocess

    from repbook.core.data import repo_root

    def git(*args):
        return subprocess.run(
            ["git", *args], cwd=repo_root(), capture_output=True, text=True
        ).stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+uncommitted changes" if git("status", "--porcelain") else "")


SEARCH_FILE = ("16_causal_graph_regression", "mechanism_search.json")


def write_mechanism_search(
    path=None,
    *,
    setups: dict[str, dict] | None = None,
    seeds: Sequence[int] = (0, 1),
    n_val: int = 200,
    n_test: int = 300,
    hidden: int = 32,
    batch: int = 64,
    select_after: int = 10,
    shortcut: float = 0.9,
    gate: float = 0.05,
    commit: str | None = None,
) -> dict:
    """Run `attention_search` (default: MECHANISM_SETUPS on seeds 0 and 1 at the quick
    scale's sizes) and write its rows, with the parameters and the commit that made
    them, as JSON to `path` (default: data/16_causal_graph_regression/, file
    mechanism_search.json, whose SHA256SUMS is rewritten). The one file-writing function of this module.
    Returns what it wrote."""
    import json
    import time
    from pathlib import Path

    from repbook.core.data import repo_root, sha256

    setups = MECHANISM_SETUPS if setups is None else setups
    params = dict(
        seeds=[int(r) for r in seeds],
        n_val=n_val,
        n_test=n_test,
        hidden=hidden,
        batch=batch,
        select_after=select_after,
        shortcut=shortcut,
    )
    start = time.perf_counter()
    rows = attention_search(setups, **params)
    record = dict(
        commit=_git_commit() if commit is None else commit,
        torch=torch.__version__,
        seconds=round(time.perf_counter() - start, 1),
        gate=gate,
        params=params,
        setups=setups,
        rows=rows,
    )
    default = path is None
    path = Path(
        repo_root() / "data" / SEARCH_FILE[0] / SEARCH_FILE[1] if default else path
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    if default:
        (path.parent / "SHA256SUMS").write_text(f"{sha256(path)}  {path.name}\n")
    return record


def search_summary(record: dict) -> list[dict]:
    """Per set-up of a `write_mechanism_search` record: the a_o gap per seed, its mean,
    whether every seed meets the record's gate, and the mean OOD and IID MAE."""
    if not record.get("rows"):
        raise ValueError("record has no rows: is it a write_mechanism_search record?")
    out = []
    for name in record["setups"]:
        rs = [r for r in record["rows"] if r["setup"] == name]
        gaps = [r["a_o cycle − base"] for r in rs]
        out.append(
            dict(
                setup=name,
                gaps=gaps,
                mean_gap=float(np.mean(gaps)),
                meets_gate=bool(min(gaps) >= record["gate"]),
                OOD=float(np.mean([r["OOD"] for r in rs])),
                IID=float(np.mean([r["IID"] for r in rs])),
            )
        )
    return out


def read_mechanism_search(path=None) -> dict:
    """The stored record of `write_mechanism_search` (default: the committed file)."""
    import json

    from repbook.core.data import data_file

    return json.loads((data_file(*SEARCH_FILE) if path is None else path).read_text())


@dataclass(frozen=True)
class SearchReport:
    """A mechanism-search record read for the chapter: `table` has one row per set-up
    (the a_o gap per seed, its mean, whether every seed meets the gate, the mean OOD and
    IID MAE), `passing` the set-ups that met the gate on every seed, and `text` one
    sentence saying what the search found."""

    table: pd.DataFrame
    passing: list[str]
    text: str


def search_report(record: dict) -> SearchReport:
    """`search_summary` of `record` as a table indexed by set-up, and its reading."""
    found = pd.DataFrame(search_summary(record)).set_index("setup")
    seeds = record["params"]["seeds"]
    for k, r in enumerate(seeds):
        found[f"gap, seed {r}"] = [g[k] for g in found.gaps]
    per_seed = [f"gap, seed {r}" for r in seeds]
    table = found[per_seed + ["mean_gap", "meets_gate", "OOD", "IID"]]
    passing = list(found.index[found.meets_gate])
    if passing:
        text = f"set-ups that met the gate on every seed: {', '.join(passing)}"
    else:
        some = int((found[per_seed] >= record["gate"]).any(axis=1).sum())
        text = (
            f"no set-up met the gate on every seed; the largest mean gap was "
            f"{found.mean_gap.max():+.3f} ({found.mean_gap.idxmax()}), and "
            f"{some} of {len(found)} set-ups met it on at least one seed"
        )
    return SearchReport(table=table, passing=passing, text=text)

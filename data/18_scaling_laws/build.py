"""Rebuild curves.csv from a checkout of IBM/ColPret (the paper's data; MIT licence).

Usage:  python data/18_scaling_laws/build.py PATH_TO_COLPRET [OUT.csv]

PATH_TO_COLPRET is a work tree of https://github.com/IBM/ColPret, or its bare git directory
(then files are read with `git show HEAD:<path>`). Nothing is downloaded. Written by the book; no
code of ColPret is used — the unit conversions follow its loader (util/read_data.py), as the
README beside this file explains family by family.
"""

from __future__ import annotations

import io
import math
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd

OUT_COLUMNS = ["family", "model", "params", "tokens", "loss"]
SCALE = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


def size(text) -> float:
    """'125m' → 1.25e8, '2.8B' → 2.8e9, '13.0B' → 1.3e10 (plain numbers pass through)."""
    text = str(text).strip()
    try:
        return float(text)
    except ValueError:
        pass
    m = re.fullmatch(r"([\d.]+)\s*([kmbtKMBT])", text)
    if not m:
        raise ValueError(f"cannot read a model size from {text!r}")
    return float(m.group(1)) * SCALE[m.group(2).lower()]


class Source:
    """Reads files of a ColPret work tree or bare repository."""

    def __init__(self, path: str):
        self.path = Path(path)
        self.bare = not (self.path / "aggregated_eval").is_dir()

    def read(self, name: str) -> bytes:
        if not self.bare:
            return (self.path / name).read_bytes()
        return subprocess.run(
            ["git", "-C", str(self.path), "show", f"HEAD:{name}"],
            check=True,
            capture_output=True,
        ).stdout

    def csv(self, name: str, **kw) -> pd.DataFrame:
        return pd.read_csv(io.BytesIO(self.read(name)), **kw)

    def commit(self) -> str:
        if not self.bare and not (self.path / ".git").exists():
            return "unknown"
        return subprocess.run(
            ["git", "-C", str(self.path), "rev-parse", "HEAD"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()


def opt(src: Source) -> pd.DataFrame:
    """OPT training trajectories: validation perplexity by step; tokens = steps × batch."""
    d = src.csv("aggregated_eval/opt_trajectories.csv")
    params = d.model_size.map(size)
    # OPT's batch sizes (tokens per step) by model size, as ColPret's loader sets them
    batch = params.map(
        lambda n: (
            5e5
            if n < 1e9
            else 1e6
            if n < 6e9
            else 2e6
            if n < 10e9
            else 4e6
            if n < 60e9
            else 2e6
        )
    )
    return pd.DataFrame(
        dict(
            family="OPT",
            model="OPT-" + d.model_size,
            params=params,
            tokens=d.steps * batch,
            loss=d.ppl.map(math.log),
        )
    )


def t5_pile(src: Source) -> pd.DataFrame:
    """Pile-T5: validation perplexity by step; tokens = steps × 10^6 (ColPret's conversion)."""
    d = src.csv(
        "aggregated_eval/t5_pile.csv", usecols=["model_name", "steps", "val_perplexity"]
    )
    d = d[(d.steps > 0) & d.val_perplexity.notna()]
    params = {
        "base": 247586304,
        "large": 783173632,
        "xl": 2849804288,
        "xxl": 11135426560,
    }
    return pd.DataFrame(
        dict(
            family="t5-pile",
            model="pile-t5-" + d.model_name,
            params=d.model_name.map(params).astype(float),
            tokens=d.steps * 1e6,
            loss=d.val_perplexity.map(math.log),
        )
    )


def lamda(src: Source) -> pd.DataFrame:
    """'Revisiting neural scaling laws' language models: validation loss by examples seen."""
    d = src.csv("aggregated_eval/revisiting_lang.csv")
    d = d[(d.Domain == "LM") & (d.Task == "val_loss")]
    d = d[pd.to_numeric(d.Model, errors="coerce").notna()]
    params = d.Model.astype(float)
    return pd.DataFrame(
        dict(
            family="lambda",
            model="lambda-" + d.Model.astype(str),
            params=params,
            tokens=d["Seen Examples"].astype(float),
            loss=d.Loss.astype(float),
        )
    )


def _xlsx_rows(blob: bytes) -> list[list[str]]:
    """The cells of the first sheet of a small .xlsx file, as text (standard library only)."""
    z = zipfile.ZipFile(io.BytesIO(blob))
    shared = re.findall(r"<t[^>]*>(.*?)</t>", z.read("xl/sharedStrings.xml").decode())
    sheet = z.read("xl/worksheets/sheet1.xml").decode()
    rows = []
    for row in re.findall(r"<row[^>]*>(.*?)</row>", sheet):
        cells = []
        for attrs, value in re.findall(r"<c ([^>]*)>\s*<v>(.*?)</v>", row):
            cells.append(shared[int(value)] if 't="s"' in attrs else value)
        rows.append(cells)
    return rows


def gpt3(src: Source) -> pd.DataFrame:
    """GPT-3's validation-loss curves as ColPret digitised them; tokens = step × 10^9."""
    d = src.csv("raw_data/gpt3/extracted.csv").dropna(subset=["val_loss"])
    meta = {
        r[0]: size(r[1])
        for r in _xlsx_rows(src.read("raw_data/gpt3/gpt3_metadata.xlsx"))
    }

    def full_name(short):
        hits = [name for name in meta if short.lower() in name.lower()]
        if not hits:
            raise ValueError(f"no GPT-3 size for {short!r}")
        return hits[0]

    names = d.model.map(full_name).str.split(" or ").str[0]  # "GPT-3 175B or “GPT-3”"
    meta = {name.split(" or ")[0]: n for name, n in meta.items()}
    return pd.DataFrame(
        dict(
            family="gpt3",
            model=names,
            params=names.map(meta),
            tokens=d.step * 1e9,
            loss=d.val_loss.astype(float),
        )
    )


def datablations(src: Source) -> pd.DataFrame:
    """Data-constrained GPT-2 models: loss by tokens; a family = one data set × epochs."""
    d = src.csv("aggregated_eval/datablations_losses.csv")
    return pd.DataFrame(
        dict(
            family="GPT2-" + d.data + "-" + d.epochs.astype(str),
            model="GPT2-" + d.num_params + "-" + d.data + "-" + d.epochs.astype(str),
            params=d.num_params.map(size),
            tokens=d.token_num.astype(float),
            loss=d.loss.astype(float),
        )
    )


def chinchilla(src: Source) -> pd.DataFrame:
    """Chinchilla's IsoFLOP points as ColPret digitised them from a figure of Hoffmann et al.
    (2022): sizes rounded to 10^7 parameters (points of one rounded size form one "model"),
    tokens = FLOPs / (6 N) with the rounded N, points with no tokens dropped."""
    d = src.csv("raw_data/chinchila_extracted.csv")
    params = d["Model Size"].astype(int).map(lambda n: round(n, -7)).astype(float)
    tokens = d["Training FLOP"].astype(float) / 6 / params
    out = pd.DataFrame(
        dict(
            family="chinchilla",
            model="chin" + params.astype(int).astype(str),
            params=params,
            tokens=tokens,
            loss=d["loss"].astype(float),
        )
    )
    return out[out.tokens != 0]


FAMILIES = (opt, t5_pile, lamda, gpt3, datablations, chinchilla)


def build(path: str) -> tuple[pd.DataFrame, str]:
    src = Source(path)
    parts = [f(src) for f in FAMILIES]
    out = pd.concat(parts, ignore_index=True)[OUT_COLUMNS]
    out = out[(out.tokens > 0) & (out.loss > 0)]
    out = out.sort_values(["family", "params", "tokens", "loss"], kind="stable")
    return out.reset_index(drop=True), src.commit()


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    out, commit = build(argv[1])
    target = Path(argv[2]) if len(argv) == 3 else Path(__file__).with_name("curves.csv")
    out.to_csv(target, index=False, float_format="%.10g")
    print(
        f"{len(out)} rows, {out.model.nunique()} models, {out.family.nunique()} families "
        f"from ColPret {commit} → {target}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""Numerical environments: how far a chapter's measured numbers move when other kernels compute them.

`repbook numerics NN` runs a chapter at quick scale, seed 0, in this process's environment and in
each numerical environment below, and records in `data/numerics/<stem>.json`, for every measured
value of every claim, the largest difference any environment made (element by element), with the
margins and verdicts each environment gave. A claim whose values moved declares a tolerance where
it is checked (`tol(...)`), about three times what the record shows; `tests/test_tolerances.py`
holds every reference's tolerances to its chapter's record.

The environments change what a user's machine changes: the instruction set torch's kernels, MKL,
oneDNN and numpy's OpenBLAS use (another CPU), and the thread count. They are x86-64 settings;
elsewhere the variables are ignored or refused by the libraries.
"""

from __future__ import annotations

import json
import math
import platform
import re
from datetime import datetime, timezone
from pathlib import Path

from .. import layout
from ..core.ledger.records import read_numerics as read_record
from ..core.ledger.values import stored_items, stored_shape
from .chapters import Chapter

ENVIRONMENTS: dict[str, dict[str, str]] = {
    "avx2": {
        "ATEN_CPU_CAPABILITY": "avx2",
        "MKL_ENABLE_INSTRUCTIONS": "AVX2",
        "ONEDNN_MAX_CPU_ISA": "AVX2",
        "OPENBLAS_CORETYPE": "Haswell",
    },
    "generic": {
        "ATEN_CPU_CAPABILITY": "default",
        "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
        "ONEDNN_MAX_CPU_ISA": "SSE41",
        "OPENBLAS_CORETYPE": "Nehalem",
    },
    "one-thread": {layout.THREADS_ENV: "1"},
}
"""Name → environment variables. `generic` is the most different from a modern CPU's defaults:
torch's scalar kernels and the SSE4 code paths of MKL, oneDNN and OpenBLAS."""
HEADROOM = 3.0
"""A declared tolerance is about this many times the largest difference seen (rounded up)."""
MIN_HEADROOM = 2.0
"""The tests refuse a declared tolerance under this many times the difference seen."""


def environment(name: str) -> dict[str, str]:
    try:
        return ENVIRONMENTS[name]
    except KeyError:
        raise ValueError(
            f"unknown numerical environment {name!r}; choose from "
            f"{', '.join(ENVIRONMENTS)}"
        ) from None


def env_tag(name: str) -> str:
    """The run folder of a chapter's quick run in environment `name`."""
    environment(name)
    return f"quick-numerics-{name}"


def record_path(root: Path, chapter: Chapter) -> Path:
    return layout.numerics_path(root, chapter.stem)


def round_up(x: float) -> float:
    """`x` rounded up to one significant figure (0.0234 → 0.03)."""
    if x <= 0 or not math.isfinite(x):
        raise ValueError(f"round_up needs a positive finite number, got {x!r}")
    e = math.floor(math.log10(x))
    m = math.ceil(round(x / 10**e, 9))
    return float(f"{m}e{e}")


def _rebuild(value, numbers):
    if isinstance(value, dict):
        return dict(zip(value, numbers))
    if isinstance(value, list):
        return list(numbers)
    return numbers[0]


def value_difference(reference, others: list) -> object:
    """The largest |other − reference| over the environments, element by element, in the shape of
    the value. An element that is not a number in one run but is in another, or a value whose shape
    differs, gives inf (no tolerance covers it)."""
    ref_el = stored_items(reference)
    out = [0.0] * len(ref_el)
    for other in others:
        if stored_shape(other) != stored_shape(reference):
            return _rebuild(reference, [math.inf] * len(ref_el))
        for i, ((_, r), (_, o)) in enumerate(zip(ref_el, stored_items(other))):
            if r is None and o is None:
                continue
            d = math.inf if (r is None or o is None) else abs(o - r)
            out[i] = max(out[i], d)
    return _rebuild(reference, out)


def _json_number(x: float):
    return "inf" if math.isinf(x) else x


def differences(reference, runs: dict) -> list[dict]:
    """Per claim of the reference ledger: each value's largest difference over the ledgers in
    `runs` ({environment: ledger}), and every run's verdict and margin."""
    out = []
    for c in reference.claims:
        others = {
            name: next((x for x in led.claims if x.id == c.id), None)
            for name, led in runs.items()
        }
        entry = {
            "id": c.id,
            "load_dependent": c.load_dependent,
            "verdicts": {"reference": c.verdict},
            "margins": {"reference": c.margin},
            "values": {},
        }
        for name, o in others.items():
            entry["verdicts"][name] = o.verdict if o else "missing"
            entry["margins"][name] = o.margin if o else None
        for vname, value in c.measured.items():
            moved = [
                o.measured[vname]
                if o is not None and vname in o.measured
                else {"missing": None}
                for o in others.values()
            ]
            diff = value_difference(value, moved)
            entry["values"][vname] = {
                "reference": value,
                "difference": _rebuild(
                    value, [_json_number(d) for _, d in stored_items(diff)]
                ),
            }
        out.append(entry)
    return out


def largest(difference) -> float:
    """The largest element of a recorded difference ("inf" read as inf)."""
    vals = [math.inf if d == "inf" else d for _, d in stored_items(difference)]
    return max(vals) if vals else 0.0


def observed_differences(record: dict) -> dict[tuple[str, str], float]:
    """{(claim id, value name or "margin"): largest difference observed elsewhere}."""
    out: dict[tuple[str, str], float] = {}
    for o in record.get("observed elsewhere", []):
        key = (o["claim"], o["value"])
        d = math.inf if o["difference"] == "inf" else float(o["difference"])
        out[key] = max(out.get(key, 0.0), d)
    return out


def element_differences(claim_entry: dict, name: str, observed: dict) -> list:
    """(reference element, largest difference) of one value: the environments' and what was
    observed elsewhere (which counts for every element of the value)."""
    v = claim_entry["values"][name]
    seen = observed.get((claim_entry["id"], name), 0.0)
    return [
        (r, max(math.inf if d == "inf" else d, seen))
        for (_, r), (_, d) in zip(
            stored_items(v["reference"]), stored_items(v["difference"])
        )
    ]


def suggestion(claim_entry: dict, observed: dict | None = None) -> dict[str, float]:
    """{value name: HEADROOM × its largest difference, rounded up} for values that moved beyond
    the default tolerance: what the chapter may declare."""
    from ..core.tolerance import DEFAULT

    out = {}
    if claim_entry.get("load_dependent"):
        return out  # timed on the machine: never compared, so never given a tolerance
    for name in claim_entry["values"]:
        moved = [
            d
            for r, d in element_differences(claim_entry, name, observed or {})
            if d > DEFAULT.allowed(r)
        ]
        if moved:
            big = max(moved)
            out[name] = math.inf if math.isinf(big) else round_up(HEADROOM * big)
    return out


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def kept_observations(path: Path, reference) -> list[dict]:
    """The observations of an earlier record that still describe the chapter's claims (the same
    claim, value and criterion text)."""
    if not path.is_file():
        return []
    claims = {c.id: c for c in reference.claims}
    keep = []
    for o in read_record(path).get("observed elsewhere", []):
        c = claims.get(o["claim"])
        if c is None or c.criterion_text != o.get("criterion"):
            continue
        if o["value"] == "margin" or o["value"] in c.measured:
            keep.append(o)
    return keep


def write_record(
    root: Path,
    chapter: Chapter,
    reference,
    runs: dict,
    run_info: dict,
    commit: str,
    observed: list[dict] = (),
) -> Path:
    """data/numerics/<stem>.json for one chapter (see the module). `observed` adds differences
    seen elsewhere (`observe_table`); those of the previous record are kept while they still
    describe the claims."""
    import os

    path = record_path(root, chapter)
    kept = kept_observations(path, reference)
    new = [o for o in observed if o not in kept]
    record = {
        "chapter": chapter.stem,
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "commit": commit,
        "machine": f"{cpu_name()}, {platform.machine()}, {os.cpu_count()} cores",
        "environments": {name: ENVIRONMENTS[name] for name in runs},
        "runs": run_info,
        "headroom": HEADROOM,
        "claims": differences(reference, runs),
        "observed elsewhere": kept + new,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    return path


# ---------------------------------------------------------------------------------------------
# Differences observed elsewhere: another machine's verdict table, read back against our ledger
# ---------------------------------------------------------------------------------------------
_SPLIT = re.compile(r"(?<!\\)\|")


def _cells(row: str) -> list[str]:
    return [c.strip().replace("\\|", "|") for c in _SPLIT.split(row.strip())[1:-1]]


def _number(text: str) -> float | None:
    """A number as the table prints it (3 significant figures; `< 1e-14` is rounding noise)."""
    text = text.strip()
    if text.startswith(("< ", "> -")):
        return 0.0
    if text == "nan":
        return None
    return float(text)


def _shown_elements(text: str, value) -> list[tuple[str, object]]:
    """(printed text, our number) for each element the table shows of `value`."""
    text = text.strip()
    if isinstance(value, dict):
        inner = text.removeprefix("{").removesuffix("}").split(", … (")[0]
        out, rest = [], inner
        keys = list(value)
        for i, k in enumerate(keys):
            if not rest.startswith(f"{k} "):
                break
            rest = rest[len(k) + 1 :]
            nxt = f", {keys[i + 1]} " if i + 1 < len(keys) else None
            end = rest.find(nxt) if nxt else -1
            shown, rest = (rest, "") if end < 0 else (rest[:end], rest[end + 2 :])
            out.append((shown, value[k]))
        return out
    if isinstance(value, list):
        inner = text.removeprefix("[").removesuffix("]").split(", … (")[0]
        return list(zip(inner.split(", "), value))
    return [(text, value)]


def observe_row(ours_text: str, margin_text: str, claim) -> dict:
    """{value name: largest difference between what the table printed and our value} and the
    margin's, for one claim. Printed numbers are rounded to 3 significant figures, so an element
    that prints the same counts as no difference; one that prints otherwise counts as the
    difference between the printed number and ours."""
    from ..core.ledger import LOAD_MARK
    from ..core.ledger.values import show_number

    text = ours_text.removeprefix(LOAD_MARK + " ")
    names = claim.shown or list(claim.measured)
    out: dict[str, float] = {}
    pos = 0
    for i, name in enumerate(names):
        if not text.startswith(name, pos):
            raise ValueError(f"claim {claim.id}: the table has no value {name!r}")
        pos += len(name)
        pos += 3 if text.startswith(" = ", pos) else 1
        nxt = f"; {names[i + 1]}" if i + 1 < len(names) else None
        end = text.find(nxt, pos) if nxt else len(text)
        shown, pos = text[pos:end], end + 2
        diff = 0.0
        for printed, ours in _shown_elements(shown, claim.measured[name]):
            mine = "nan" if ours is None else show_number(ours)
            if printed.strip() == mine:
                continue
            theirs = _number(printed)
            if theirs is None or ours is None:
                diff = math.inf
            else:
                diff = max(diff, abs(theirs - ours))
        out[name] = diff
    margin = 0.0
    printed = margin_text.split(" (")[0].strip()
    if claim.margin is not None and printed not in ("—", "n/a"):
        from ..core.ledger import fmt_margin

        if printed != fmt_margin(claim.margin):
            margin = abs(float(printed) - claim.margin)
    return {"values": out, "margin": margin}


def observe_table(markdown: str, ledger, source: str) -> list[dict]:
    """Observations from another run's verdict table (the same claims): one per measured value
    that printed otherwise than ours, with the claim's criterion text (to tell when it is stale)."""
    rows = {}
    for line in markdown.splitlines():
        cells = _cells(line) if line.startswith("| ") else []
        if len(cells) >= 7 and cells[0] not in ("#", "---"):
            rows[cells[0]] = cells
    out = []
    for c in ledger.claims:
        if c.load_dependent or not c.measured or c.id not in rows:
            continue
        cells = rows[c.id]
        seen = observe_row(cells[3], cells[5], c)
        for name, diff in seen["values"].items():
            if diff > 0:
                out.append(
                    {
                        "claim": c.id,
                        "value": name,
                        "difference": _json_number(diff),
                        "criterion": c.criterion_text,
                        "source": source,
                    }
                )
        if seen["margin"] > 0:
            out.append(
                {
                    "claim": c.id,
                    "value": "margin",
                    "difference": seen["margin"],
                    "criterion": c.criterion_text,
                    "source": source,
                }
            )
    return out


def observe_run(reference, other, source: str) -> list[dict]:
    """Observations from another machine's run of the same chapter, read at full precision from
    its ledger: one per measured value (and margin) that differs from the reference ledger's."""
    entries = {e["id"]: e for e in differences(reference, {"elsewhere": other})}
    out = []
    for c in reference.claims:
        if c.load_dependent or not c.measured:
            continue
        e = entries[c.id]
        for name, v in e["values"].items():
            d = largest(v["difference"])
            if d > 0:
                out.append(
                    {
                        "claim": c.id,
                        "value": name,
                        "difference": _json_number(d),
                        "criterion": c.criterion_text,
                        "source": source,
                    }
                )
        ref_m, other_m = e["margins"]["reference"], e["margins"]["elsewhere"]
        if ref_m is not None and other_m is not None and other_m != ref_m:
            out.append(
                {
                    "claim": c.id,
                    "value": "margin",
                    "difference": abs(other_m - ref_m),
                    "criterion": c.criterion_text,
                    "source": source,
                }
            )
    return out


def checked_table(nb: dict) -> str:
    """The verdict table a notebook's checked cell shows (Markdown)."""
    for cell in nb.get("cells", []):
        if "nbval-check-output" in cell.get("metadata", {}).get("tags", []):
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                if "text/markdown" in data:
                    return "".join(data["text/markdown"])
    return ""


def observe_git(root: Path, chapter: Chapter, ledger, rev: str) -> list[dict]:
    """Observations from the reference notebook of `chapter` at git commit `rev`."""
    import subprocess

    where = f"{rev}:tests/reference/{chapter.stem}.ipynb"
    proc = subprocess.run(
        ["git", "show", where], cwd=root, capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise ValueError(f"cannot read {where}: {proc.stderr.strip()}")
    source = (
        f"the reference at {rev}, made on another machine (its table's 3 significant "
        "figures)"
    )
    return observe_table(checked_table(json.loads(proc.stdout)), ledger, source)


def add_observations(
    root: Path, chapter: Chapter, found: list[dict]
) -> tuple[Path, int]:
    """Append observations to the chapter's numerics record (which must exist); (path, added)."""
    path = record_path(root, chapter)
    if not path.is_file():
        raise ValueError(
            f"{chapter.stem} has no numerics record to add to: run "
            f"`repbook numerics {chapter.number}` first"
        )
    record = read_record(path)
    have = record.setdefault("observed elsewhere", [])
    new = [o for o in found if o not in have]
    have += new
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    return path, len(new)

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
from datetime import datetime, timezone
from pathlib import Path

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
    "one-thread": {"REPBOOK_THREADS": "1"},
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
    return root / "data" / "numerics" / f"{chapter.stem}.json"


def round_up(x: float) -> float:
    """`x` rounded up to one significant figure (0.0234 → 0.03)."""
    if x <= 0 or not math.isfinite(x):
        raise ValueError(f"round_up needs a positive finite number, got {x!r}")
    e = math.floor(math.log10(x))
    m = math.ceil(round(x / 10**e, 9))
    return float(f"{m}e{e}")


def _elements(value):
    if isinstance(value, dict):
        return list(value.items())
    if isinstance(value, list):
        return list(enumerate(value))
    return [(None, value)]


def _rebuild(value, numbers):
    if isinstance(value, dict):
        return dict(zip(value, numbers))
    if isinstance(value, list):
        return list(numbers)
    return numbers[0]


def _shape(value):
    if isinstance(value, dict):
        return ("map", tuple(value))
    if isinstance(value, list):
        return ("list", len(value))
    return ("number",)


def value_difference(reference, others: list) -> object:
    """The largest |other − reference| over the environments, element by element, in the shape of
    the value. An element that is not a number in one run but is in another, or a value whose shape
    differs, gives inf (no tolerance covers it)."""
    ref_el = _elements(reference)
    out = [0.0] * len(ref_el)
    for other in others:
        if _shape(other) != _shape(reference):
            return _rebuild(reference, [math.inf] * len(ref_el))
        for i, ((_, r), (_, o)) in enumerate(zip(ref_el, _elements(other))):
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
                    value, [_json_number(d) for _, d in _elements(diff)]
                ),
            }
        out.append(entry)
    return out


def largest(difference) -> float:
    """The largest element of a recorded difference ("inf" read as inf)."""
    vals = [math.inf if d == "inf" else d for _, d in _elements(difference)]
    return max(vals) if vals else 0.0


def suggestion(claim_entry: dict) -> dict[str, float]:
    """{value name: HEADROOM × its largest difference, rounded up} for values that moved beyond
    the default tolerance: what the chapter may declare."""
    from ..core.tolerance import DEFAULT

    out = {}
    for name, v in claim_entry["values"].items():
        moved = [
            d if d != "inf" else math.inf
            for (_, r), (_, d) in zip(
                _elements(v["reference"]), _elements(v["difference"])
            )
            if (d == "inf") or d > DEFAULT.allowed(r)
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


def write_record(
    root: Path,
    chapter: Chapter,
    reference,
    runs: dict,
    run_info: dict,
    commit: str,
) -> Path:
    """data/numerics/<stem>.json for one chapter (see the module)."""
    import os

    record = {
        "chapter": chapter.stem,
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "commit": commit,
        "machine": f"{cpu_name()}, {platform.machine()}, {os.cpu_count()} cores",
        "environments": {name: ENVIRONMENTS[name] for name in runs},
        "runs": run_info,
        "headroom": HEADROOM,
        "claims": differences(reference, runs),
    }
    path = record_path(root, chapter)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    return path


def read_record(path: Path) -> dict:
    d = json.loads(Path(path).read_text())
    for key in ("chapter", "environments", "claims"):
        if key not in d:
            raise ValueError(f"{path} is not a numerics record: no {key!r}")
    return d

"""The committed records the runner writes from its runs: a chapter's stability record (its
claims' verdicts on seeds 0..K−1) and its full-scale record, each with where, when and from which
commit it was made. The record formats are `repbook.core.ledger.records`'; the paths `layout`'s."""

from __future__ import annotations

import importlib.metadata as md
import os
import platform
import subprocess
from pathlib import Path

from .. import layout
from .chapters import Chapter
from .execute import RunRecord, load_ledger, run_dir


def _git(root: Path, *args: str) -> str:
    try:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, timeout=30
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def provenance_of(root: Path) -> dict:
    """Where and from which commit a committed record was made."""
    commit = _git(root, "rev-parse", "--short", "HEAD") or "unknown"
    if _git(
        root,
        "status",
        "--porcelain",
        "--",
        "lib",
        "notebooks",
        "data",
        "requirements.txt",
    ):
        commit += "+uncommitted changes"
    try:
        torch_version = md.version("torch")
    except md.PackageNotFoundError:
        torch_version = "not installed"
    return {
        "commit": commit,
        "python": platform.python_version(),
        "torch": torch_version,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {_memory_gib()}",
    }


def _memory_gib() -> str:
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        return f"{pages / 2**30:.0f} GiB"
    except (ValueError, OSError, AttributeError):
        return "unknown"


def record_stability(root: Path, chapter: Chapter, records: list) -> Path:
    """Write data/stability/<stem>.json from the chapter's runs on several seeds (RunRecords, in
    seed order). A failed run is kept, as a failed seed of every claim."""
    from datetime import datetime, timezone

    from ..core.ledger import stability_record, write_stability

    runs = []
    for rec in records:
        folder = run_dir(root, chapter, rec.tag)
        led = load_ledger(folder) if rec.status == "ok" else None
        runs.append(
            (
                int(rec.params["seed"]),
                led,
                {
                    "status": rec.status if led is not None else "failed",
                    "seconds": rec.seconds,
                    "error": rec.error or None,
                },
            )
        )
    runs.sort(key=lambda r: r[0])
    prov = {
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(sum(r[2]["seconds"] or 0 for r in runs), 1),
        "device": next((r[1].device for r in runs if r[1] is not None), ""),
        **provenance_of(root),
    }
    return write_stability(
        layout.stability_path(root, chapter.stem),
        stability_record(chapter.stem, runs, prov),
    )


def load_stability(root: Path, chapter: Chapter):
    from ..core.ledger import read_stability

    f = layout.stability_path(root, chapter.stem)
    return read_stability(f) if f.is_file() else None


def record_full_run(root: Path, chapter: Chapter, tag: str) -> Path:
    """Write data/full_runs/<stem>.json from a successful full-scale run: its ledger plus where,
    when and from which commit it ran, so the book shows it without re-running."""
    from ..core.ledger import write_record

    folder = run_dir(root, chapter, tag)
    rec = RunRecord.load(folder)
    ledger = load_ledger(folder)
    if rec is None or rec.status != "ok" or ledger is None:
        raise FileNotFoundError(f"{chapter.stem} has no successful run in {folder}")
    if ledger.scale != "full":
        raise ValueError(f"{folder} is a {ledger.scale!r} run, not a full-scale one")
    provenance = {
        "params": rec.params,
        "finished": rec.finished,
        "seconds": rec.seconds,
        **provenance_of(root),
    }
    if not ledger.device:
        ledger.device = rec.device
    return write_record(layout.full_run_path(root, chapter.stem), ledger, provenance)


def load_full_run(root: Path, chapter: Chapter):
    """(ledger, provenance) of the chapter's committed full-scale record, or None."""
    from ..core.ledger import read_record

    f = layout.full_run_path(root, chapter.stem)
    return read_record(f) if f.is_file() else None

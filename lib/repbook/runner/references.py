"""References: a chapter's quick run under tests/reference/, compared claim by claim.

Each chapter has two reference files, written together by `repbook references NN`:
- `<stem>.json`, the run's claims ledger: what the tests compare. Each claim's verdict, its
  measured numbers and its margin within the tolerances the claim declares, and its statement,
  paper value, source and criterion exactly (`repbook.core.tolerance.compare_claims`);
- `<stem>.ipynb`, the executed notebook with its images stripped: the code the reference came from
  (a structure test holds it to the chapter's source), and what `pytest --nbval-lax` re-executes
  and compares as text by hand.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from .. import layout
from .chapters import Chapter
from .execute import describe_failure, ledger_path, run_dir
from .jobs import current_run as _current_run

IMAGE_TYPES = ("image/png", "image/jpeg", "image/svg+xml", "application/pdf")


class ReferenceMismatch(AssertionError):
    """A chapter's claims differ from its reference beyond what the claims allow."""


def reference_path(root: Path, chapter: Chapter) -> Path:
    return layout.reference_notebook(root, chapter.stem)


def reference_ledger_path(root: Path, chapter: Chapter) -> Path:
    return layout.reference_ledger(root, chapter.stem)


def strip_notebook(nb: dict) -> dict:
    """Drop image outputs and papermill's timing metadata; nbval compares neither."""
    for cell in nb.get("cells", []):
        meta = cell.get("metadata", {})
        meta.pop("papermill", None)
        meta.pop("execution", None)
        for out in cell.get("outputs", []):
            data = out.get("data")
            if data:
                for kind in IMAGE_TYPES:
                    data.pop(kind, None)
    pm = nb.get("metadata", {}).get("papermill")
    if pm:
        nb["metadata"]["papermill"] = {"parameters": pm.get("parameters", {})}
    return nb


def load_reference(root: Path, chapter: Chapter):
    """The reference ledger of a chapter (core.ledger reads it)."""
    from ..core.ledger import Ledger

    path = reference_ledger_path(root, chapter)
    if not path.is_file():
        raise ReferenceMismatch(
            f"{chapter.stem} has no reference ledger ({path.name}); write it: "
            f"python -m repbook references {chapter.number}"
        )
    return Ledger.load(path)


def current_run(root: Path, chapter: Chapter) -> Path:
    """The run folder of the chapter's default quick run, as the runner left it for the book.
    When it is missing or out of date (its inputs changed since), the chapter is executed here,
    once, exactly as the runner executes it for the book (`jobs.current_run`)."""
    rec, folder = _current_run(root, chapter)
    if rec.status != "ok":
        raise ReferenceMismatch(f"{chapter.stem} {describe_failure(rec)}")
    return folder


def current_ledger(root: Path, chapter: Chapter):
    from ..core.ledger import Ledger

    path = ledger_path(current_run(root, chapter))
    if not path.is_file():
        raise ReferenceMismatch(f"{chapter.stem} ran but wrote no claims ledger")
    return Ledger.load(path)


def claim_report(chapter: str, comparison) -> str:
    """The failure message of one claim: chapter, claim, and every difference."""
    return f"{chapter} claim {comparison.id}: " + "; ".join(comparison.failures)


GATE_NOTE = "gate unmet: "


def comparable(claim):
    """The claim as the reference comparison reads it. The note the ledger writes for an unmet
    gate names the gate and shows its values ("gate unmet: <gate> (<values>)"); the gate's
    definition is compared exactly and its values within their tolerances with the other
    measured values, so the note is compared without the values it repeats."""
    import dataclasses

    note, gate = claim.note or "", claim.gate or {}
    base = GATE_NOTE + gate.get("criterion", {}).get("text", "")
    if not gate or gate.get("passed") or not note.startswith(base + " ("):
        return claim
    _, sep, rest = note[len(base) :].partition("; ")
    return dataclasses.replace(claim, note=base + sep + rest)


def compare_chapter(reference, current) -> tuple[list[str], list[str]]:
    """(failures, near-boundary notes) of a whole ledger against its reference."""
    from ..core.tolerance import compare_claims, compare_ledgers

    failures = [
        f"{reference.chapter}: {p}" for p in compare_ledgers(reference, current)
    ]
    near = []
    now = {c.id: c for c in current.claims}
    for ref in reference.claims:
        if ref.id not in now:
            continue
        cmp = compare_claims(comparable(ref), comparable(now[ref.id]))
        if cmp.failures:
            failures.append(claim_report(reference.chapter, cmp))
        if cmp.near_boundary:
            near.append(f"{reference.chapter} claim {ref.id}: {cmp.near_boundary}")
    return failures, near


def write_reference(root: Path, chapter: Chapter) -> tuple[Path, list[str]]:
    """Write both reference files from the chapter's default quick run; return the notebook's
    path and what changed in the claims since the previous reference (empty: nothing)."""
    from ..core.ledger import Ledger

    folder = run_dir(root, chapter)
    src = layout.notebook_file(folder)
    if not src.is_file() or not ledger_path(folder).is_file():
        raise FileNotFoundError(
            f"{chapter.stem} has no quick run to take a reference from"
        )
    new = Ledger.load(ledger_path(folder))
    old_path = reference_ledger_path(root, chapter)
    changes = ["a new reference"]
    if old_path.is_file():
        failures, near = compare_chapter(Ledger.load(old_path), new)
        changes = failures + [f"(within tolerance) {n}" for n in near]
    dst = reference_path(root, chapter)
    dst.parent.mkdir(parents=True, exist_ok=True)
    nb = strip_notebook(json.loads(src.read_text()))
    dst.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    shutil.copyfile(ledger_path(folder), old_path)
    return dst, changes

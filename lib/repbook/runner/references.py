"""nbval references: a chapter's quick run, images stripped, under tests/reference/."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from .chapters import Chapter, parameters_of
from .execute import DEFAULT_TAG, cached_record, describe_failure, execute, run_dir

IMAGE_TYPES = ("image/png", "image/jpeg", "image/svg+xml", "application/pdf")


def reference_path(root: Path, chapter: Chapter) -> Path:
    return root / "tests" / "reference" / f"{chapter.stem}.ipynb"


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


def checked_outputs(nb: dict) -> list[str]:
    """The text of the outputs nbval compares (cells tagged nbval-check-output)."""
    texts = []
    for cell in nb.get("cells", []):
        if "nbval-check-output" in cell.get("metadata", {}).get("tags", []):
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                texts.append(
                    "".join(
                        data.get(
                            "text/markdown", data.get("text/plain", out.get("text", ""))
                        )
                    )
                )
    return texts


def write_reference(root: Path, chapter: Chapter) -> tuple[Path, list[str], list[str]]:
    """Write the reference from the chapter's default quick run; return old and new checked text."""
    src = run_dir(root, chapter) / "notebook.ipynb"
    if not src.is_file():
        raise FileNotFoundError(
            f"{chapter.stem} has no quick run to take a reference from"
        )
    dst = reference_path(root, chapter)
    old = checked_outputs(json.loads(dst.read_text())) if dst.is_file() else []
    nb = strip_notebook(json.loads(src.read_text()))
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return dst, old, checked_outputs(nb)


class ReferenceMismatch(AssertionError):
    """A chapter's checked output differs from its reference."""


def current_run(root: Path, chapter: Chapter) -> Path:
    """The executed notebook of the chapter's default quick run, as the runner left it for the
    book. When it is missing or out of date (its inputs changed since), the chapter is executed
    here, once, exactly as the runner executes it for the book."""
    params = parameters_of(chapter.path)
    if cached_record(root, chapter, params, DEFAULT_TAG) is None:
        rec = execute(root, chapter, params, DEFAULT_TAG)
        if rec.status != "ok":
            raise ReferenceMismatch(f"{chapter.stem} {describe_failure(rec)}")
    return run_dir(root, chapter) / "notebook.ipynb"


def checked_cells(nb: dict) -> list[dict]:
    return [
        c
        for c in nb.get("cells", [])
        if "nbval-check-output" in c.get("metadata", {}).get("tags", [])
    ]


def _output_texts(cell: dict) -> list[str]:
    from ..core.ledger import sanitize

    texts = []
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        text = data.get("text/markdown", data.get("text/plain", out.get("text", "")))
        texts.append(sanitize("".join(text)))
    return texts


def compare_cell(reference: dict, executed: dict) -> None:
    """Raise ReferenceMismatch unless the two cells have the same code and the same outputs (text,
    after load-dependent values are reduced to their mark; images are not compared)."""
    if "".join(reference.get("source", "")) != "".join(executed.get("source", "")):
        raise ReferenceMismatch(
            "the checked cell's code differs from the reference's; "
            "regenerate it: python -m repbook references NN"
        )
    want, got = _output_texts(reference), _output_texts(executed)
    if want != got:
        diff = "\n".join(
            difflib.unified_diff(
                "\n".join(want).splitlines(),
                "\n".join(got).splitlines(),
                "reference",
                "this run",
                lineterm="",
                n=1,
            )
        )
        raise ReferenceMismatch(f"checked output differs from the reference:\n{diff}")

"""nbval references: a chapter's quick run, images stripped, under tests/reference/."""
from __future__ import annotations

import json
from pathlib import Path

from .chapters import Chapter
from .execute import run_dir

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
                texts.append("".join(data.get("text/markdown", data.get("text/plain", out.get("text", "")))))
    return texts


def write_reference(root: Path, chapter: Chapter) -> tuple[Path, list[str], list[str]]:
    """Write the reference from the chapter's default quick run; return old and new checked text."""
    src = run_dir(root, chapter) / "notebook.ipynb"
    if not src.is_file():
        raise FileNotFoundError(f"{chapter.stem} has no quick run to take a reference from")
    dst = reference_path(root, chapter)
    old = checked_outputs(json.loads(dst.read_text())) if dst.is_file() else []
    nb = strip_notebook(json.loads(src.read_text()))
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return dst, old, checked_outputs(nb)

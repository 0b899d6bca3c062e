"""Finding chapters and reading what the runner needs from their source, without a kernel."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

CHAPTER_GLOB = "[0-9][0-9]_*.py"
PARAMETERS_MARK = re.compile(r'^# %%.*tags=\[[^\]]*"parameters"[^\]]*\]', re.M)
CELL_MARK = re.compile(r"^# %%", re.M)
PAPER_IMPORT = re.compile(r"\brepbook\.papers\.([A-Za-z_][A-Za-z0-9_]*)"
                          r"|\bfrom\s+repbook\.papers\s+import\s+([A-Za-z_][\w, ]*)")


class ChapterError(ValueError):
    """A chapter cannot be found, or its source breaks a convention the runner relies on."""


@dataclass(frozen=True)
class Chapter:
    number: str  # "04"
    stem: str    # "04_aurc"
    path: Path   # notebooks/04_aurc.py

    @property
    def slug(self) -> str:
        return self.stem.split("_", 1)[1]


def discover(root: Path) -> list[Chapter]:
    """All chapters `notebooks/NN_slug.py`, in order."""
    paths = sorted((root / "notebooks").glob(CHAPTER_GLOB))
    return [Chapter(p.stem[:2], p.stem, p) for p in paths]


def resolve(root: Path, selectors: list[str]) -> list[Chapter]:
    """Chapters named by number ("4", "04"), stem ("04_aurc") or slug ("aurc"); all if none."""
    chapters = discover(root)
    if not selectors:
        return chapters
    chosen = []
    for sel in selectors:
        s = sel.strip().removesuffix(".py").split("/")[-1]
        match = [c for c in chapters
                 if s in (c.stem, c.slug) or (s.isdigit() and int(s) == int(c.number))]
        if not match:
            known = ", ".join(c.stem for c in chapters) or "none"
            raise ChapterError(f"no chapter matches {sel!r}; chapters: {known}")
        chosen += [c for c in match if c not in chosen]
    return chosen


def parameters_cell(source: str) -> str:
    """The code of the one cell tagged `parameters`."""
    marks = list(PARAMETERS_MARK.finditer(source))
    if len(marks) != 1:
        raise ChapterError(f"a chapter needs exactly one cell tagged 'parameters', found {len(marks)}")
    start = marks[0].end()
    nxt = CELL_MARK.search(source, start)
    return source[start: nxt.start() if nxt else len(source)]


def parameters_of(path: Path) -> dict:
    """The defaults declared in a chapter's `parameters` cell (literal assignments only)."""
    code = parameters_cell(Path(path).read_text())
    out = {}
    for node in ast.parse(code).body:
        if not (isinstance(node, (ast.Assign, ast.AnnAssign))):
            raise ChapterError(f"{path}: the parameters cell may only hold assignments, found "
                               f"{ast.dump(node)[:60]}")
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if len(targets) != 1 or not isinstance(targets[0], ast.Name):
            raise ChapterError(f"{path}: each parameter must be assigned to one plain name")
        try:
            out[targets[0].id] = ast.literal_eval(node.value)
        except ValueError as exc:
            raise ChapterError(f"{path}: parameter {targets[0].id!r} must be a literal") from exc
    return out


def paper_modules(path: Path) -> list[str]:
    """The `repbook.papers` modules a chapter imports (their sources enter its cache key)."""
    names = set()
    for a, b in PAPER_IMPORT.findall(Path(path).read_text()):
        if a:
            names.add(a)
        for part in b.split(","):
            if part.strip():
                names.add(part.strip().split(" as ")[0].strip())
    return sorted(names)

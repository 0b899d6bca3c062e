"""Finding chapters and reading what the runner needs from their source, without a kernel."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

CHAPTER_GLOB = "[0-9][0-9]_*.py"


class ChapterError(ValueError):
    """A chapter cannot be found, or its source breaks a convention the runner relies on."""


@dataclass(frozen=True)
class Chapter:
    number: str  # "04"
    stem: str  # "04_aurc"
    path: Path  # notebooks/04_aurc.py

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
        match = [
            c
            for c in chapters
            if s in (c.stem, c.slug) or (s.isdigit() and int(s) == int(c.number))
        ]
        if not match:
            known = ", ".join(c.stem for c in chapters) or "none"
            raise ChapterError(f"no chapter matches {sel!r}; chapters: {known}")
        chosen += [c for c in match if c not in chosen]
    return chosen


def parameters_cell(source: str) -> str:
    """The code of the one cell tagged `parameters` (read with jupytext, as the kernels see it)."""
    import jupytext

    nb = jupytext.reads(source, fmt="py:percent")
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise ChapterError(
            f"a chapter needs exactly one cell tagged 'parameters', found {len(cells)}"
        )
    return cells[0].source


def parameters_of(path: Path) -> dict:
    """The defaults declared in a chapter's `parameters` cell (literal assignments only)."""
    code = parameters_cell(Path(path).read_text())
    out = {}
    for node in ast.parse(code).body:
        if not (isinstance(node, (ast.Assign, ast.AnnAssign))):
            raise ChapterError(
                f"{path}: the parameters cell may only hold assignments, found "
                f"{ast.dump(node)[:60]}"
            )
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if len(targets) != 1 or not isinstance(targets[0], ast.Name):
            raise ChapterError(
                f"{path}: each parameter must be assigned to one plain name"
            )
        try:
            out[targets[0].id] = ast.literal_eval(node.value)
        except ValueError as exc:
            raise ChapterError(
                f"{path}: parameter {targets[0].id!r} must be a literal"
            ) from exc
    return out


PAPERS = "repbook.papers"


def paper_modules(path: Path) -> list[str]:
    """The `repbook.papers` modules (or packages) a chapter imports: their sources enter its cache
    key. Read from the syntax tree of every code cell, so that every form counts: `import
    repbook.papers.x[.sub] [as y]`, `from repbook.papers import x, y as z` (parenthesised too),
    `from repbook.papers.x[.sub] import f`, and `from repbook import papers` followed by
    `papers.x` (every paper module then counts, since any of them may be reached)."""
    import jupytext

    nb = jupytext.read(Path(path))
    names: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        code = "\n".join(
            line
            for line in cell.source.splitlines()
            if not line.lstrip().startswith(("%", "!"))
        )  # IPython magics
        try:
            tree = ast.parse(code)
        except SyntaxError as exc:
            raise ChapterError(f"{path}: a code cell does not parse: {exc}") from None
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[:2] == ["repbook", "papers"] and len(parts) > 2:
                        names.add(parts[2])
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                parts = node.module.split(".")
                if node.module == PAPERS:
                    names.update(a.name for a in node.names if a.name != "*")
                    if any(a.name == "*" for a in node.names):
                        names.add("*")
                elif parts[:2] == ["repbook", "papers"] and len(parts) > 2:
                    names.add(parts[2])
                elif node.module == "repbook" and any(
                    a.name == "papers" for a in node.names
                ):
                    names.add("*")
    return sorted(names)

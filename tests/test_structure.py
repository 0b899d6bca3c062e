"""The book's conventions: every chapter is in the toc, has one parameters cell, a verdict table and
an nbval reference whose code matches the chapter source; paper modules stay independent."""

import ast
import json
import re
import unicodedata

import jupytext
import pytest
import yaml

from repbook.core.data import repo_root
from repbook.runner.chapters import discover, paper_modules, parameters_of

ROOT = repo_root()
CHAPTERS = discover(ROOT)
IDS = [c.stem for c in CHAPTERS]


def toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = []

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(toc)
    return files


def code_cells(nb):
    return [
        c.source.strip()
        for c in nb.cells
        if c.cell_type == "code"
        and "injected-parameters" not in c.metadata.get("tags", [])
    ]


def test_there_are_chapters():
    assert CHAPTERS, "no notebooks/NN_slug.py chapters found"


def test_toc_lists_exactly_the_chapters():
    chapters_in_toc = sorted(
        f.split("/")[-1] for f in toc_files() if f.startswith("book/chapters/")
    )
    assert chapters_in_toc == sorted(IDS)
    for f in toc_files():
        if not f.startswith("book/chapters/") and f not in (
            "book/scoreboard",
            "book/environment",
        ):
            assert (ROOT / f"{f}.md").is_file(), (
                f"_toc.yml names {f}, which does not exist"
            )


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_chapter_conventions(chapter):
    nb = jupytext.read(chapter.path)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1
    defaults = parameters_of(chapter.path)
    assert defaults.get("scale") == "quick" and defaults.get("seed") == 0
    checked = [
        c for c in nb.cells if "nbval-check-output" in c.metadata.get("tags", [])
    ]
    assert any("ledger.show()" in c.source for c in checked), (
        "no verdict table cell checked by nbval"
    )
    text = chapter.path.read_text()
    for heading in (
        "Claims we test",
        "## Deviations from the paper",
        "## Run it at full scale",
    ):
        assert heading in text, f"missing {heading!r}"
    assert "setup(scale=scale, seed=seed" in text, (
        "set up through core.setup(scale=, seed=, ...)"
    )
    assert not re.search(r"setup\(\s*[\"']", text), (
        "the runner names the chapter; setup takes no slug"
    )
    for call in ("torch.manual_seed(", "np.random.seed(", "random.seed("):
        assert call not in text, (
            f"{call}...) seeds a global generator: use run.child_rng / "
            "run.torch_generator / torch.random.fork_rng"
        )


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_reference_matches_chapter_source(chapter):
    ref = ROOT / "tests" / "reference" / f"{chapter.stem}.ipynb"
    assert ref.is_file(), (
        f"no nbval reference; run `python -m repbook references {chapter.number}`"
    )
    ref_nb = jupytext.read(ref)
    assert code_cells(ref_nb) == code_cells(jupytext.read(chapter.path)), (
        f"{ref.name} is out of date with {chapter.path.name}: "
        f"run `python -m repbook references {chapter.number}`"
    )
    assert ref_nb.metadata["papermill"]["parameters"]["scale"] == "quick"
    raw = json.loads(ref.read_text())
    for cell in raw["cells"]:
        for out in cell.get("outputs", []):
            assert "image/png" not in out.get("data", {}), (
                "reference keeps images; strip them"
            )
            # The rendered page must not show a warning (tests/test_browser.py); catch it here,
            # before the book is built. A usual cause: fig.tight_layout() under the house style's
            # constrained layout.
            assert out.get("name") != "stderr", (
                f"a cell of {ref.name} wrote to stderr: {''.join(out.get('text', ''))[:200]}"
            )
    checked = [
        c for c in raw["cells"] if "nbval-check-output" in c["metadata"].get("tags", [])
    ]
    assert checked and all(c.get("outputs") for c in checked), (
        "checked cells need stored outputs"
    )
    ledger = ROOT / "tests" / "reference" / f"{chapter.stem}.json"
    assert ledger.is_file(), (
        f"no reference ledger beside {ref.name}; run `python -m repbook references "
        f"{chapter.number}`"
    )
    assert json.loads(ledger.read_text())["chapter"] == chapter.stem


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_paper_modules_have_tests(chapter):
    for mod in paper_modules(chapter.path):
        assert (ROOT / "tests" / "lib" / f"test_{mod}.py").is_file(), (
            f"{mod} has no unit tests"
        )


def test_paper_modules_do_not_import_each_other():
    papers = ROOT / "lib" / "repbook" / "papers"
    for path in papers.rglob("*.py"):
        own = path.relative_to(papers).parts[0].removesuffix(".py")
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                parts = name.split(".")
                if parts[:2] == ["repbook", "papers"] and len(parts) > 2:
                    assert parts[2] == own, (
                        f"{path.name} imports another paper's module {name}"
                    )


def test_nothing_generated_is_tracked():
    import subprocess

    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    for f in tracked:
        assert not f.startswith(
            ("_build/", ".venv/", "book/chapters/", "book/generated/")
        ), f
        assert not (f.endswith(".ipynb") and not f.startswith("tests/reference/")), f


def display_width(line: str) -> int:
    """Columns a line takes in a monospace font: combining marks take none, wide characters two
    (as ruff counts them)."""
    return sum(
        0
        if unicodedata.combining(ch)
        else 2
        if unicodedata.east_asian_width(ch) in "WF"
        else 1
        for ch in line
    )


CODE_COLUMNS = 88
"""What a code cell shows without horizontal scrolling at 1280 px (the browser test measures it)."""


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_code_lines_fit_the_page(chapter):
    nb = jupytext.read(chapter.path)
    long = [
        (i, line)
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        for line in c.source.splitlines()
        if display_width(line) > CODE_COLUMNS
    ]
    assert not long, (
        f"{len(long)} code line(s) longer than {CODE_COLUMNS} characters, e.g. cell "
        f"{long[0][0]}: {long[0][1][:60]}…"
    )


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_plotting_cells_are_folded(chapter):
    """The book's rule (README, "Adding a chapter"): a code cell that draws (calls `plt.`) and records no
    claim is folded with the `hide-input` tag; method cells and criteria stay in view."""
    nb = jupytext.read(chapter.path)
    bad = [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        and re.search(r"\bplt\.", c.source)
        and "ledger." not in c.source
        and not {"hide-input", "remove-input"} & set(c.metadata.get("tags", []))
    ]
    assert not bad, f"plotting cells {bad} are not folded: tag them hide-input"


# -- A chapter a newcomer can read: thin chapters, small paper modules -------------------------
MAX_CHAPTER_CODE_LINES = 400
"""Code lines (non-blank, non-comment) of a chapter at most: the story, the calls, the figures and
the verdicts; the machinery lives in its tested paper module."""
MAX_MEDIAN_CELL = 12
"""The median code cell (about 10 lines: a call and its reading, not a script)."""
MAX_MODULE_LINES = 600
"""Lines of one paper-module file at most; a larger module is a package split at its sections."""


def code_lines(source: str) -> int:
    return sum(
        1
        for line in source.splitlines()
        if line.strip() and not line.strip().startswith("#")
    )


def _python(source: str) -> str:
    return "\n".join(
        line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))
    )


def _imports(nb) -> list:
    return [
        node
        for c in nb.cells
        if c.cell_type == "code"
        for node in ast.walk(ast.parse(_python(c.source)))
        if isinstance(node, (ast.Import, ast.ImportFrom))
    ]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_chapters_are_thin(chapter):
    import statistics

    cells = [c for c in jupytext.read(chapter.path).cells if c.cell_type == "code"]
    sizes = [code_lines(c.source) for c in cells]
    assert sum(sizes) <= MAX_CHAPTER_CODE_LINES, (
        f"{sum(sizes)} code lines; move protocols into the paper module (at most "
        f"{MAX_CHAPTER_CODE_LINES})"
    )
    assert statistics.median(sizes) <= MAX_MEDIAN_CELL, (
        f"median code cell {statistics.median(sizes)} lines (at most {MAX_MEDIAN_CELL})"
    )


PLOTTING = re.compile(r"\b(plt|ax|axes|axs|fig|bx|ax\d|sns)\b")


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_folded_cells_only_plot(chapter):
    """A folded (hide-input) cell draws; it neither records a claim nor runs the paper's
    method: what computes a result, and each criterion, stays in view."""
    nb = jupytext.read(chapter.path)
    papers = set(paper_modules(chapter.path))
    for node in _imports(nb):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "repbook.papers"
        ):
            papers |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import):
            papers |= {
                a.asname or a.name
                for a in node.names
                if a.name.startswith("repbook.papers")
            }
    bad = []
    for i, c in enumerate(nb.cells):
        if c.cell_type != "code" or "hide-input" not in c.metadata.get("tags", []):
            continue
        tree = ast.parse(_python(c.source))
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        if "ledger" in used or used & papers or not PLOTTING.search(c.source):
            bad.append(i)
    assert not bad, (
        f"folded cells {bad} compute or record claims (or draw nothing): keep them in view"
    )


def test_paper_modules_are_small():
    papers = ROOT / "lib" / "repbook" / "papers"
    big = {
        str(p.relative_to(papers)): n
        for p in papers.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert not big, (
        f"paper modules over {MAX_MODULE_LINES} lines: "
        f"{big}; split them at their sections"
    )


OPTIONAL_HEADINGS = {
    "quot": "## Quoted from the paper · ",
    "full scale only": "## At full scale only · ",
}


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_optional_sections_have_fixed_headings(chapter):
    heads = [
        line[2:]
        for line in chapter.path.read_text().splitlines()
        if line.startswith("# ## ")
    ]
    for h in heads:
        for word, fixed in OPTIONAL_HEADINGS.items():
            if word in h.lower() and not h.startswith(fixed):
                pytest.fail(f"heading {h!r}: an optional section is titled {fixed!r}…")


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_full_scale_section_records_the_run(chapter):
    section = chapter.path.read_text().split("## Run it at full scale", 1)[1]
    assert f"repbook full {chapter.number}" in section, (
        "'Run it at full scale' must give the command that records the run: "
        f"`.venv/bin/python -m repbook full {chapter.number}`"
    )


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_paper_modules_are_imported_by_their_full_name(chapter):
    """`A`, `S`, `F` meant different modules in different chapters: import a paper module as
    itself (`from repbook.papers import aurc`) or by a descriptive name."""
    for node in _imports(jupytext.read(chapter.path)):
        module = getattr(node, "module", None) or ""
        for a in node.names:
            full = f"{module}.{a.name}" if module else a.name
            ours = full.startswith("repbook.") or full == "torch.nn.functional"
            assert not (ours and a.asname and len(a.asname) <= 2), (
                f"`import {a.name} as {a.asname}`: use the module's own name"
            )

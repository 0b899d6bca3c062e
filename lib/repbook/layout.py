"""Where the book keeps things: the one owner of the run folders' file names, the environment
variables through which the runner talks to a chapter's kernel, the committed records' paths and
the book's staging paths.

The core (a chapter's ledger, its set-up), the runner, the book pages and the tests all ask this
module; none of them spells a file name, a folder or a variable name of its own. It imports
nothing of the package, so every floor may use it.

    _build/runs/<stem>/<tag>/        a run: notebook.ipynb, ledger.json, run.json
    _build/ledgers/<stem>.json       the ledger of a chapter run by hand (no runner)
    _build/html/                     the rendered book
    data/<stem>/                     the chapter's shipped data
    data/stability/<stem>.json       verdicts on seeds 0..K−1 (`repbook stability`)
    data/full_runs/<stem>.json       the full-scale record (`repbook full`)
    data/numerics/<stem>.json        how far values move across kernels (`repbook numerics`)
    data/budgets.json                each chapter's quick-scale time budget
    tests/reference/<stem>.ipynb     the reference notebook (images stripped) ...
    tests/reference/<stem>.json      ... and its ledger, compared claim by claim
    book/chapters/<stem>.ipynb       a staged executed chapter (generated)
    book/generated/                  claims.csv, claims.json, margins.png (generated)
    book/scoreboard.md, book/environment.md   generated pages
"""

from __future__ import annotations

import os
from pathlib import Path

# -- run folders ------------------------------------------------------------------------------
BUILD = Path("_build")
RUNS = BUILD / "runs"
HAND_LEDGERS = BUILD / "ledgers"
HTML = BUILD / "html"
SCREENSHOTS = BUILD / "screenshots"
DEFAULT_TAG = "quick"
"""The run folder of a chapter's default parameters (the book's run)."""
NOTEBOOK_FILE = "notebook.ipynb"
LEDGER_FILE = "ledger.json"
RUN_FILE = "run.json"
RUN_FILES = (NOTEBOOK_FILE, LEDGER_FILE, RUN_FILE)


def run_dir(root: Path, stem: str, tag: str = DEFAULT_TAG) -> Path:
    """The folder of one run of chapter `stem` (`tag`: its parameters, see the runner)."""
    return Path(root) / RUNS / stem / tag


def notebook_file(folder: Path) -> Path:
    return Path(folder) / NOTEBOOK_FILE


def ledger_file(folder: Path) -> Path:
    return Path(folder) / LEDGER_FILE


def run_file(folder: Path) -> Path:
    return Path(folder) / RUN_FILE


def hand_ledger(root: Path, stem: str) -> Path:
    """Where a chapter run by hand (no runner) writes its ledger."""
    return Path(root) / HAND_LEDGERS / f"{stem}.json"


# -- the runner ↔ kernel environment ----------------------------------------------------------
LEDGER_ENV = "REPBOOK_LEDGER"
"""The ledger file the runner wants the chapter to write."""
CHAPTER_ENV = "REPBOOK_CHAPTER"
"""The running chapter's stem; the set-up names the chapter from it."""
THREADS_ENV = "REPBOOK_THREADS"
"""The quick scale's thread count, when not the default (one of the numerical environments)."""
KERNEL_LOG_ENV = "REPBOOK_KERNEL_LOG"
"""A file the runner appends one line to per kernel start (the tests count them)."""
ALLOW_NETWORK_ENV = "REPBOOK_ALLOW_NETWORK"
"""Set to 1 to run kernels without the network guard (a chapter's optional LLM endpoint)."""
ALLOW_SKIPS_ENV = "REPBOOK_ALLOW_SKIPS"
"""Set to 1 to accept skipped tests knowingly (a skip fails the session otherwise)."""
KERNEL_ENV_NAMES = (LEDGER_ENV, CHAPTER_ENV, THREADS_ENV, KERNEL_LOG_ENV)


def kernel_environment(folder: Path, stem: str) -> dict[str, str]:
    """What the runner tells a chapter's kernel: where its ledger goes and which chapter it is."""
    return {LEDGER_ENV: str(ledger_file(folder)), CHAPTER_ENV: stem}


def chapter_from_environment() -> str:
    """The chapter stem the runner set ("" when the chapter runs by hand)."""
    return os.environ.get(CHAPTER_ENV, "")


def ledger_from_environment() -> Path | None:
    """The ledger file the runner chose (None when the chapter runs by hand)."""
    chosen = os.environ.get(LEDGER_ENV)
    return Path(chosen) if chosen else None


# -- committed records ------------------------------------------------------------------------
DATA = Path("data")
STABILITY = DATA / "stability"
FULL_RUNS = DATA / "full_runs"
NUMERICS = DATA / "numerics"
REFERENCES = Path("tests") / "reference"
BUDGETS = DATA / "budgets.json"
"""Each chapter's quick-scale time budget (see `repbook.runner.budgets`)."""


def data_dir(root: Path, stem: str) -> Path:
    """The chapter's shipped data (`data/<stem>/`)."""
    return Path(root) / DATA / stem


def stability_path(root: Path, stem: str) -> Path:
    return Path(root) / STABILITY / f"{stem}.json"


def full_run_path(root: Path, stem: str) -> Path:
    return Path(root) / FULL_RUNS / f"{stem}.json"


def numerics_path(root: Path, stem: str) -> Path:
    return Path(root) / NUMERICS / f"{stem}.json"


def reference_notebook(root: Path, stem: str) -> Path:
    return Path(root) / REFERENCES / f"{stem}.ipynb"


def reference_ledger(root: Path, stem: str) -> Path:
    return Path(root) / REFERENCES / f"{stem}.json"


# -- the book's staging -----------------------------------------------------------------------
BOOK = Path("book")
STAGED = BOOK / "chapters"
GENERATED = BOOK / "generated"
SCOREBOARD_PAGE = BOOK / "scoreboard.md"
ENVIRONMENT_PAGE = BOOK / "environment.md"
CLAIMS_CSV = "claims.csv"
CLAIMS_JSON = "claims.json"
MARGIN_FIGURE = "margins.png"
GENERATED_PATHS = (STAGED, GENERATED, SCOREBOARD_PAGE, ENVIRONMENT_PAGE)
"""What `repbook book` writes under book/ (git-ignored; `repbook clean` removes it)."""


def staged_chapter(root: Path, stem: str) -> Path:
    """Where the book reads an executed chapter from (`book/chapters/<stem>.ipynb`)."""
    return Path(root) / STAGED / f"{stem}.ipynb"


def chapter_page(root: Path, stem: str) -> Path:
    """A chapter's rendered page in the HTML book."""
    return Path(root) / HTML / STAGED / f"{stem}.html"


def relative_to_book(path: Path) -> str:
    """A path under book/ as the pages there link it (POSIX, without the `book/` prefix)."""
    return Path(path).relative_to(BOOK).as_posix()

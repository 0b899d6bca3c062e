"""Test-wide settings, the reference comparison, and the rule that nothing is skipped in silence.

- Ledgers written by notebooks run under the tests go to a scratch file, not _build.
- `tests/reference/*.ipynb` are compared with the runner's executed chapters (the runs `make book`
  made), cell by cell for the cells tagged `nbval-check-output`: no chapter runs twice. A chapter
  whose run is missing or out of date is executed once, as the runner does. `pytest --nbval-lax
  tests/reference/X.ipynb` still runs nbval itself on a reference (see README).
- A skipped test fails the session: an optional dependency that is missing is an error with the
  command that installs it, never a quiet pass.
"""

import os
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ["REPBOOK_LEDGER"] = os.path.join(
    tempfile.mkdtemp(prefix="repbook-test-ledgers-"), "ledger.json"
)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from repbook.runner.netguard import ipython_dir  # noqa: E402

# every kernel the tests start (nbval, papermill) runs with the network guard
os.environ["IPYTHONDIR"] = ipython_dir()


def _nbval_requested(config) -> bool:
    return bool(
        getattr(config.option, "nbval", False)
        or getattr(config.option, "nbval_lax", False)
    )


def pytest_collect_file(file_path: Path, parent):
    if (
        file_path.suffix == ".ipynb"
        and file_path.parent.name == "reference"
        and not _nbval_requested(parent.config)
    ):
        return ReferenceFile.from_parent(parent, path=file_path)
    return None


class ReferenceFile(pytest.File):
    """One reference notebook: an item per checked cell, compared with the chapter's current run."""

    def collect(self):
        import json

        from repbook.runner.references import checked_cells

        nb = json.loads(self.path.read_text())
        for k, cell in enumerate(checked_cells(nb)):
            yield ReferenceCell.from_parent(
                self, name=f"checked cell {k}", index=k, cell=cell
            )

    def executed(self) -> dict:
        if not hasattr(self, "_executed"):
            import json

            from repbook.core.data import repo_root
            from repbook.runner.chapters import resolve
            from repbook.runner.references import current_run

            root = repo_root()
            chapter = resolve(root, [self.path.stem])[0]
            self._executed = json.loads(current_run(root, chapter).read_text())
        return self._executed


class ReferenceCell(pytest.Item):
    def __init__(self, *, index: int, cell: dict, **kw):
        super().__init__(**kw)
        self.index, self.cell = index, cell

    def runtest(self):
        from repbook.runner.references import (
            ReferenceMismatch,
            checked_cells,
            compare_cell,
        )

        cells = checked_cells(self.parent.executed())
        if self.index >= len(cells):
            raise ReferenceMismatch(
                f"the chapter has {len(cells)} checked cell(s); the reference "
                f"has more: regenerate it (python -m repbook references NN)"
            )
        compare_cell(self.cell, cells[self.index])

    def repr_failure(self, excinfo):
        from repbook.runner.references import ReferenceMismatch

        if isinstance(excinfo.value, ReferenceMismatch):
            return f"{self.path.name}: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"{self.path.name}::{self.name}"


def pytest_sessionfinish(session, exitstatus):
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped and exitstatus == 0 and not os.environ.get("REPBOOK_ALLOW_SKIPS"):
        reporter.write_line(
            f"{len(skipped)} test(s) skipped: a skip is not a pass. Install what "
            "they need (see their reasons above; `make test-deps`), or set "
            "REPBOOK_ALLOW_SKIPS=1 to accept them knowingly.",
            red=True,
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Under `--nbval(-lax)`, tell the reference's kernel which chapter it is, as the runner would
    (nbval starts the notebook's kernel when its first cell is set up, after this hook)."""
    if _nbval_requested(item.config) and item.path.suffix == ".ipynb":
        os.environ["REPBOOK_CHAPTER"] = item.path.stem

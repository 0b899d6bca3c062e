"""Test-wide settings, the reference comparison, and the rule that nothing is skipped in silence.

- Ledgers written by notebooks run under the tests go to a scratch file, not _build.
- Each reference (`tests/reference/<stem>.ipynb` and its ledger `<stem>.json`) is compared with
  the runner's executed chapter (the run `make book` made) claim by claim, within the tolerances
  the claims declare: no chapter runs twice. A chapter whose run is missing or out of date is
  executed once, as the runner does. `pytest --nbval-lax tests/reference/X.ipynb` still runs nbval
  itself on a reference: a text comparison (see README).
- A skipped test fails the session: an optional dependency that is missing is an error with the
  command that installs it, never a quiet pass.
"""

import os
import tempfile
from pathlib import Path

import pytest

from repbook import layout

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ[layout.LEDGER_ENV] = os.path.join(
    tempfile.mkdtemp(prefix="repbook-test-ledgers-"), layout.LEDGER_FILE
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
    """One chapter's reference: an item for its set of claims, and one per reference claim,
    compared with the chapter's current run (see repbook.runner.references)."""

    def _chapter(self):
        from repbook.runner.chapters import resolve

        root = self.path.resolve().parents[2]  # <root>/tests/reference/<stem>.ipynb
        return root, resolve(root, [self.path.stem])[0]

    def collect(self):
        from repbook.runner.references import load_reference

        root, chapter = self._chapter()
        self.reference = load_reference(root, chapter)
        yield ReferenceClaims.from_parent(self, name="claims")
        for claim in self.reference.claims:
            yield ReferenceClaim.from_parent(
                self, name=f"claim {claim.id}", claim=claim
            )

    def current(self):
        if not hasattr(self, "_current"):
            from repbook.runner.references import current_ledger

            self._current = current_ledger(*self._chapter())
        return self._current


class _ReferenceItem(pytest.Item):
    def repr_failure(self, excinfo):
        from repbook.runner.references import ReferenceMismatch

        if isinstance(excinfo.value, ReferenceMismatch):
            return f"{self.path.name}: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"{self.path.name}::{self.name}"


class ReferenceClaims(_ReferenceItem):
    """No claim added, dropped or reordered since the reference."""

    def runtest(self):
        from repbook.core.tolerance import compare_ledgers
        from repbook.runner.references import ReferenceMismatch

        problems = compare_ledgers(self.parent.reference, self.parent.current())
        if problems:
            raise ReferenceMismatch(
                f"{self.parent.reference.chapter}: "
                + "; ".join(problems)
                + ". Regenerate the reference: python -m repbook references NN"
            )


class ReferenceClaim(_ReferenceItem):
    """One claim: its definition exactly, its numbers and margin within tolerance, its verdict."""

    def __init__(self, *, claim, **kw):
        super().__init__(**kw)
        self.claim = claim

    def runtest(self):
        from repbook.core.tolerance import compare_claims
        from repbook.runner.references import (
            ReferenceMismatch,
            claim_report,
            comparable,
        )

        now = {c.id: c for c in self.parent.current().claims}
        chapter = self.parent.reference.chapter
        if self.claim.id not in now:
            raise ReferenceMismatch(
                f"{chapter} claim {self.claim.id}: in the reference but not in this run"
            )
        cmp = compare_claims(comparable(self.claim), comparable(now[self.claim.id]))
        if cmp.near_boundary:
            self.user_properties.append(
                (
                    "near_boundary",
                    f"{chapter} claim {self.claim.id}: {cmp.near_boundary}",
                )
            )
        if cmp.failures:
            raise ReferenceMismatch(claim_report(chapter, cmp))


def pytest_runtest_logreport(report):
    """Collect (also from xdist workers) the verdicts that differ within tolerance."""
    if report.when == "call":
        for key, text in getattr(report, "user_properties", []):
            if key == "near_boundary":
                NEAR_BOUNDARY.append(text)


NEAR_BOUNDARY: list[str] = []


def pytest_terminal_summary(terminalreporter):
    if NEAR_BOUNDARY:
        terminalreporter.section("verdicts within tolerance of their boundary")
        terminalreporter.write_line(
            "These claims' verdicts differ from the reference, but the deciding value lies "
            "within tolerance of both the reference and the criterion's boundary: not a "
            "regression, and not failed."
        )
        for text in sorted(set(NEAR_BOUNDARY)):
            terminalreporter.write_line(f"  {text}")


def pytest_sessionfinish(session, exitstatus):
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped and exitstatus == 0 and not os.environ.get(layout.ALLOW_SKIPS_ENV):
        reporter.write_line(
            f"{len(skipped)} test(s) skipped: a skip is not a pass. Install what "
            "they need (see their reasons above; `make test-deps`), or set "
            f"{layout.ALLOW_SKIPS_ENV}=1 to accept them knowingly.",
            red=True,
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Under `--nbval(-lax)`, tell the reference's kernel which chapter it is, as the runner would
    (nbval starts the notebook's kernel when its first cell is set up, after this hook)."""
    if _nbval_requested(item.config) and item.path.suffix == ".ipynb":
        os.environ[layout.CHAPTER_ENV] = item.path.stem

"""Every tolerance a reference declares is measured: held to its chapter's numerics record.

`data/numerics/<stem>.json` (written by `repbook numerics NN`) holds, for each measured value, the
largest difference between this environment and the numerical environments of
`repbook.runner.numerics` (other instruction sets for torch, MKL, oneDNN and OpenBLAS; one thread).
For each chapter's reference ledger:
- a value that moved beyond the default tolerance declares one, at least MIN_HEADROOM times the
  difference seen (the rule is about HEADROOM times, rounded up);
- a declared tolerance (one for the claim, or one per value) belongs to values that moved, and is at
  most MAX_HEADROOM times the largest difference among them: measured, not wished;
- the margin's tolerance (derived from the values') covers the margins the environments gave.
"""

import json
import math

import pytest

from repbook.core.data import repo_root
from repbook.core.ledger import Ledger
from repbook.core.tolerance import DEFAULT, Tolerance, margin_tolerance
from repbook.runner.chapters import discover
from repbook.runner.numerics import (
    MIN_HEADROOM,
    element_differences,
    largest,
    observed_differences,
    read_record,
)

ROOT = repo_root()
CHAPTERS = discover(ROOT)
MAX_HEADROOM = 10.0


@pytest.fixture(params=CHAPTERS, ids=lambda c: c.stem)
def chapter(request):
    return request.param


def test_every_reference_tolerance_is_measured(chapter):
    ref_path = ROOT / "tests" / "reference" / f"{chapter.stem}.json"
    rec_path = ROOT / "data" / "numerics" / f"{chapter.stem}.json"
    assert ref_path.is_file(), (
        f"no reference ledger: repbook references {chapter.number}"
    )
    assert rec_path.is_file(), (
        f"{chapter.stem} has no numerics record: run `repbook numerics {chapter.number}`"
    )
    ledger, record = Ledger.load(ref_path), read_record(rec_path)
    entries = {c["id"]: c for c in record["claims"]}
    observed = observed_differences(record)
    problems = []
    for c in ledger.claims:
        if c.load_dependent or not c.measured:
            continue
        entry = entries.get(c.id)
        if entry is None or list(entry["values"]) != list(c.measured):
            problems.append(
                f"claim {c.id}: the numerics record does not have its values; rerun "
                f"`repbook numerics {chapter.number}`"
            )
            continue
        groups: dict[str, list] = {}  # a declared tolerance -> (element, difference)s
        for name in c.measured:
            t = Tolerance.from_dict(c.tolerance[name]) if c.tolerance else DEFAULT
            for r, d in element_differences(entry, name, observed):
                if math.isinf(d):
                    problems.append(
                        f"claim {c.id}: {name!r} is not a number, or changes shape, in "
                        "another environment: no tolerance covers it"
                    )
                    break
                moved = d > DEFAULT.allowed(r)
                if moved and t.allowed(r) < MIN_HEADROOM * d:
                    problems.append(
                        f"claim {c.id}: {name!r} moved by {d:.3g} between "
                        f"environments; its tolerance {t.text()} allows "
                        f"{t.allowed(r):.3g}, under {MIN_HEADROOM:g}× that: declare "
                        "about 3× the difference (`repbook numerics` suggests one)"
                    )
                    break
                if t.basis == "numerics":
                    groups.setdefault(json.dumps(t.to_dict()), []).append((t, r, d))
        for items in groups.values():
            t = items[0][0]
            moved = [(r, d) for _, r, d in items if d > DEFAULT.allowed(r)]
            if not moved:
                problems.append(
                    f"claim {c.id}: declares {t.text()} for values that no environment "
                    "moved: drop the tolerance"
                )
                continue
            big = max(d for _, d in moved)
            allowed = max(t.allowed(r) for r, _ in moved)
            if allowed > MAX_HEADROOM * big:
                problems.append(
                    f"claim {c.id}: declares {t.text()}, over {MAX_HEADROOM:g}× the "
                    f"largest difference seen ({big:.3g})"
                )
        if c.margin is not None:
            spread = max(
                [abs(m - c.margin) for m in entry["margins"].values() if m is not None]
                + [observed.get((c.id, "margin"), 0.0)]
            )
            if spread > margin_tolerance(c) * (1 + 1e-9):
                problems.append(
                    f"claim {c.id}: its margin moved by {spread:.3g} between "
                    f"environments, beyond its tolerance ±{margin_tolerance(c):.3g}"
                )
    assert not problems, f"{chapter.stem}:\n  " + "\n  ".join(problems)


def test_numerics_records_name_their_environments():
    from repbook.runner.numerics import ENVIRONMENTS

    for path in sorted((ROOT / "data" / "numerics").glob("*.json")):
        record = read_record(path)
        assert record["environments"], f"{path.name}: no environment"
        for name, env in record["environments"].items():
            assert ENVIRONMENTS.get(name) == env, f"{path.name}: {name} is not ours"
        failed = [n for n, r in record["runs"].items() if r["status"] != "ok"]
        assert not failed, f"{path.name}: runs failed in {failed}"
        json.dumps(record)  # plain JSON
        assert all(largest(v["difference"]) >= 0 for c in record["claims"]
                   for v in c["values"].values())  # fmt: skip

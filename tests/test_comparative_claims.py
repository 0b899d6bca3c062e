"""Every claim that says something is better is judged on paired per-seed gains or says why not,
in every branch of a chapter: the ledger refuses it at run time, but a branch that only the full
scale runs (`if run[...]`) would meet the refusal only there. Read from the chapters' source."""

import ast

import pytest

from repbook.core.data import repo_root
from repbook.core.ledger import COMPARATIVE
from repbook.runner.chapters import discover

ROOT = repo_root()
CHAPTERS = discover(ROOT)


def _assignments(tree: ast.Module) -> dict[str, list[ast.expr]]:
    out: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out.setdefault(target.id, []).append(node.value)
    return out


def _uses_paired_gain(expr: ast.expr, names: dict, seen=()) -> bool:
    for node in ast.walk(expr):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "paired_gain"
        ):
            return True
        if isinstance(node, ast.Name) and node.id in names and node.id not in seen:
            if any(
                _uses_paired_gain(v, names, (*seen, node.id)) for v in names[node.id]
            ):
                return True
    return False


def comparative_claims_without_pairing(source: str) -> list[str]:
    """`ledger.check` / `ledger.ours` calls whose statement says "better" (COMPARATIVE) with
    neither a paired_gain criterion nor `unpaired_because`: 'line N: statement'."""
    tree = ast.parse(source)
    names = _assignments(tree)
    bad = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("check", "ours")
            and getattr(node.func.value, "id", None) == "ledger"
        ):
            continue
        kw = {k.arg: k.value for k in node.keywords}
        statement = node.args[1] if len(node.args) > 1 else kw.get("statement")
        if not isinstance(statement, ast.Constant) or not isinstance(
            statement.value, str
        ):
            continue
        if not COMPARATIVE.search(statement.value) or "unpaired_because" in kw:
            continue
        if "criterion" in kw and _uses_paired_gain(kw["criterion"], names):
            continue
        bad.append(f"line {node.lineno}: {statement.value!r}")
    return bad


def test_the_source_check_sees_branches_and_names():
    src = (
        "crit = paired_gain('g', 0)\n"
        "if full:\n"
        "    ledger.check(1, 'A beats B', criterion=crit)\n"
        "    ledger.check(2, 'A beats C', criterion=at_least('x', 0))\n"
        "    ledger.check(3, 'A helps', criterion=at_least('x', 0), unpaired_because='y')\n"
        "    ledger.ours('4', 'A improves', criterion=all_of(crit, at_least('x', 0)))\n"
        "ledger.check(5, 'A is fast', criterion=at_least('x', 0))\n"
    )
    assert comparative_claims_without_pairing(src) == ["line 4: 'A beats C'"]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.stem)
def test_comparative_claims_are_paired_in_every_branch(chapter):
    bad = comparative_claims_without_pairing(chapter.path.read_text())
    assert not bad, (
        f"{chapter.stem}: a claim says something is better without paired_gain or "
        "unpaired_because=...:\n  " + "\n  ".join(bad)
    )

"""The claims ledger: one record per claim, its verdict decided by a typed criterion.

This module is the only owner of the ledger format. It writes and reads the JSON files (a chapter's
ledger, the full-scale records under `data/full_runs/`), and it renders every claims table: the
chapter's verdict table, the scoreboard's rows and details. The runner and the book pages call it;
they know nothing of verdict names or table markup.

A checked claim stores the measured values as numbers at full precision, the criterion (its kind,
parameters and the text rendered from it), the verdict the criterion decided, and the margin: how
far the deciding value lies from the criterion's boundary.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from .criteria import Criterion, CriterionError, Outcome
from .tolerance import tolerances_for

VERDICTS = (
    "reproduced",
    "not reproduced",
    "within noise",
    "not checked at this scale",
    "quoted",
    "blocked",
)
MARKS = {
    "reproduced": "✓",
    "not reproduced": "✗",
    "within noise": "≈",
    "not checked at this scale": "○",
    "quoted": "❝",
    "blocked": "⊘",
}
"""Plain symbols (in DejaVu Sans), not emoji: they render in every browser and terminal.
`blocked` is a claim no scale of ours can test: what the test needs (the paper's construction, an
unreadable statement) is missing, so a larger run would not check it either."""
COMPARATIVE = re.compile(
    r"\b(beats?|better|improves?|outperforms?|helps)\b", re.IGNORECASE
)
"""A statement that says one thing is better than another: its criterion is a paired gain over
seeds (`paired_gain`), or the claim says why not (`unpaired_because=`)."""
JUDGED = ("reproduced", "not reproduced", "within noise")
"""Verdicts a criterion gave: `within noise` is neither ✓ nor ✗ (a paired gain whose interval
straddles its bar), counted apart from both."""
ROLES = ("paper", "ours", "sanity")
"""Whose claim it is: the paper's (`check`; counted in the paper's tally), ours (`ours`: an
extension, a diagnostic or a check of our benchmark; shown under its own heading, never counted),
or a sanity check (`sanity`: true by construction or by our own design; shown, never a verdict)."""
ROLE_HEADINGS = {
    "ours": "Our own checks (not the paper's claims; not counted in its tally)",
    "sanity": "Sanity checks (true by construction; they show the set-up works, not the paper)",
}

SOURCES = (
    "paper",
    "abstract",
    "official code",
    "secondary summary",
    "literature",
    "ours",
)
"""Where a claim's paper value comes from: the paper's text (theorems, tables, figures), only its
abstract, the official code or repository, a secondary summary of the paper, other literature, or
our own formulation of the claim (a derivation or a check we set)."""
EVIDENCE = ("derivation", "simulation", "real data", "peer agreement")
"""The kind of evidence a check gives: an exact derivation or identity checked numerically, a
simulation of a model we control, an experiment on real data, or agreement with a peer package."""

LOAD_MARK = "◷"
"""Marks what was timed on this machine: load-dependent, shown but never compared by the tests."""
LOAD_DEPENDENT = re.compile(LOAD_MARK + r"(?:\\.|[^\\|\n])*")
"""What the reference comparison replaces by `LOAD_MARK` on both sides before comparing: the
rest of the table cell, whose text may hold escaped pipes (`\\|`, as in "|V| ≥ 16k")."""

LEDGER_ENV = "REPBOOK_LEDGER"
"""The runner sets this to the ledger file it wants (name and place are the runner's choice)."""
CHAPTER_ENV = "REPBOOK_CHAPTER"
"""The runner sets this to the chapter's stem; `setup` reads it."""


def sanitize(text: str) -> str:
    """Text with every load-dependent cell reduced to its mark (what the references compare)."""
    return LOAD_DEPENDENT.sub(LOAD_MARK, text)


# ---------------------------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------------------------
def fmt(value: Any, digits: int = 3) -> str:
    """Format a value for display: numbers to `digits` significant figures.

    Sequences are formatted element-wise; strings pass through. Rounding makes re-runs print the
    same text even when the last float digits move.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value == 0:
            return "0"
        out = f"{value:.{digits}g}"
        return out.replace("e-0", "e-").replace("e+0", "e+")
    if value is None:
        return "nan"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={fmt(v, digits)}" for k, v in value.items())
    if isinstance(value, Sequence) or hasattr(value, "tolist"):
        seq = value.tolist() if hasattr(value, "tolist") else value
        return "[" + ", ".join(fmt(v, digits) for v in seq) + "]"
    raise TypeError(f"cannot format a value of type {type(value).__name__}: {value!r}")


def fmt_margin(margin: float | None) -> str:
    if margin is None or (isinstance(margin, float) and math.isnan(margin)):
        return "n/a"
    return ("+" if margin > 0 else "") + fmt(float(margin))


MAX_SHOWN = 6
"""A measured sequence longer than this is shown as its first elements plus its range."""
TINY = 1e-14
"""Non-zero values below this in size are rounding noise whose digits vary with the machine's
floating-point paths: the table shows them as `< 1e-14` (the JSON keeps the number)."""


def _show_number(x: Any) -> str:
    if isinstance(x, float) and x != 0 and abs(x) < TINY:
        return f"< {TINY:g}" if x > 0 else f"> -{TINY:g}"
    return fmt(x)


def _show_value(value: Any) -> str:
    if isinstance(value, Mapping):
        items = list(value.items())
        text = ", ".join(f"{k} {_show_number(v)}" for k, v in items[:MAX_SHOWN])
        if len(items) > MAX_SHOWN:
            nums = [v for _, v in items if v is not None]
            text += f", … ({len(items)} values, {fmt(min(nums))} to {fmt(max(nums))})"
        return "{" + text + "}"
    if isinstance(value, list):
        if len(value) > MAX_SHOWN:
            nums = [v for v in value if v is not None]
            return (
                f"[{', '.join(_show_number(v) for v in value[:MAX_SHOWN])}, … ({len(value)} "
                f"values, {_show_number(min(nums))} to {_show_number(max(nums))})]"
            )
        return "[" + ", ".join(_show_number(v) for v in value) + "]"
    return _show_number(value)


# ---------------------------------------------------------------------------------------------
# Measured values: plain JSON numbers at full precision
# ---------------------------------------------------------------------------------------------
def _plain_number(name: str, x: Any) -> float | int | None:
    if isinstance(x, (bool, np.bool_)):
        return int(bool(x))
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else None  # JSON has no NaN or inf
    if hasattr(x, "item") and getattr(x, "ndim", None) == 0:
        return _plain_number(name, x.item())
    raise CriterionError(
        f"measured value {name!r} must be a number (or numbers), "
        f"got {type(x).__name__}: {x!r}"
    )


def plain_values(measured: Mapping[str, Any]) -> dict[str, Any]:
    """Measured values as JSON-ready numbers, lists of numbers or {label: number} maps."""
    if not isinstance(measured, Mapping) or not measured:
        raise CriterionError(
            "measured must be a non-empty mapping of value names to numbers, "
            f"got {measured!r}"
        )
    out = {}
    for name, value in measured.items():
        if not isinstance(name, str) or not name.strip():
            raise CriterionError(f"a measured value needs a name, got {name!r}")
        if isinstance(value, Mapping):
            out[name] = {
                str(k): _plain_number(f"{name}[{k}]", v) for k, v in value.items()
            }
        elif isinstance(value, (str, bytes)):
            raise CriterionError(
                f"measured value {name!r} must be a number (or numbers), "
                f"got the text {value!r}"
            )
        elif isinstance(value, (Sequence, np.ndarray)) and np.ndim(value) > 0:
            out[name] = [
                _plain_number(f"{name}[{i}]", v)
                for i, v in enumerate(np.asarray(value, dtype=object).ravel())
            ]
        else:
            out[name] = _plain_number(name, value)
    return out


def _evaluable(values: Mapping[str, Any]) -> dict[str, Any]:
    """JSON nulls back to NaN for the criterion."""

    def back(v):
        return math.nan if v is None else v

    out = {}
    for k, v in values.items():
        if isinstance(v, dict):
            out[k] = {a: back(b) for a, b in v.items()}
        elif isinstance(v, list):
            out[k] = [back(b) for b in v]
        else:
            out[k] = back(v)
    return out


def _json_float(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


# ---------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Claim:
    """One claim of a paper as the chapter tested it."""

    chapter: str
    id: str
    statement: str
    paper: str
    source: str
    verdict: str
    scale: str
    measured: dict = field(default_factory=dict)
    criterion: dict = field(default_factory=dict)  # kind, text, reads, parameters
    margin: float | None = None  # own units; None: no margin (or NaN)
    normalized_margin: float | None = None
    binding: str = ""  # the value that decided the margin
    note: str = ""
    load_dependent: bool = False
    shown: list = field(default_factory=list)  # names the table shows (empty: all)
    measured_text: str = ""  # converted records only: the old free text
    evidence: str = ""  # one of EVIDENCE ("" for quotes and older records)
    regime: str = ""  # what was tested: data, model, scale
    tolerance: dict = field(default_factory=dict)  # value name -> Tolerance.to_dict()
    role: str = "paper"  # one of ROLES
    gate: dict = field(default_factory=dict)  # criterion, passed, margin, binding
    unpaired_because: str = ""  # why a "better" claim is not a paired gain over seeds

    @property
    def criterion_text(self) -> str:
        return self.criterion.get("text", "—") if self.criterion else "—"

    @property
    def gate_text(self) -> str:
        """The gate as the table shows it, with whether it was met ("" without a gate)."""
        if not self.gate:
            return ""
        met = "met" if self.gate.get("passed") else "unmet"
        return f"gate ({met}): {self.gate['criterion']['text']}"

    @property
    def definition_text(self) -> str:
        """What the claim tests, for telling when a committed record is stale: its criterion,
        after its gate, and its role when it is not the paper's."""
        text = self.criterion_text
        if self.gate:
            text = f"gate: {self.gate['criterion']['text']}; then {text}"
        return text if self.role == "paper" else f"({self.role}) {text}"

    @property
    def checked(self) -> bool:
        return self.verdict in JUDGED

    def ours(self) -> str:
        """The measured values as the table shows them (rounded)."""
        if self.measured_text:
            return self.measured_text
        if not self.measured:
            return "—"

        def one(k, v):
            shown = _show_value(v)
            return f"{k} {shown}" if shown.startswith(("<", ">")) else f"{k} = {shown}"

        names = self.shown or list(self.measured)
        return "; ".join(one(k, self.measured[k]) for k in names)

    def margin_text(self) -> str:
        if not self.checked:
            return "—"
        text = fmt_margin(self.margin)
        several = len(self.criterion.get("reads", [])) > 1 or "[" in self.binding
        if self.binding and several and text != "n/a":
            text += f" ({self.binding})"
        return text

    def verdict_word(self) -> str:
        """The verdict as the table says it: a paper's claim is reproduced or not; a check of
        ours or a sanity check holds or does not."""
        if self.role != "paper" and self.verdict in ("reproduced", "not reproduced"):
            return "holds" if self.verdict == "reproduced" else "does not hold"
        if self.verdict == "blocked":
            return "not checked: blocked"
        return self.verdict

    def verdict_text(self) -> str:
        return f"{MARKS[self.verdict]} {self.verdict_word()}" + (
            f" — {self.note}" if self.note else ""
        )

    def reading_line(self) -> str:
        """One line for a chapter's "reading the verdicts": id, role, verdict, margin when a
        criterion judged it, and whether its gate was met (with the gate's margin)."""
        margin = f", margin {self.margin_text()}" if self.checked else ""
        gate = ""
        if self.gate:
            gate = f"; gate {'met' if self.gate.get('passed') else 'unmet'}"
            if self.gate.get("margin") is not None:
                gate += f" (margin {fmt_margin(self.gate['margin'])})"
        return f"{self.id} ({self.role}): {self.verdict_word()}{margin}{gate}"

    @classmethod
    def from_dict(cls, d: Mapping) -> "Claim":
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(
                f"unknown claim field(s) {sorted(unknown)} in a ledger record"
            )
        if d.get("verdict") not in VERDICTS:
            raise ValueError(
                f"claim {d.get('id')!r}: unknown verdict {d.get('verdict')!r}"
            )
        if d.get("role", "paper") not in ROLES:
            raise ValueError(f"claim {d.get('id')!r}: unknown role {d.get('role')!r}")
        return cls(**d)


def _uses(criterion: Criterion, kind: str) -> bool:
    """Whether `criterion`, or a part of it, is of `kind`."""
    if criterion.kind == kind:
        return True
    return any(_uses(p, kind) for p in getattr(criterion, "parts", []))


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


class Ledger:
    """Collects a chapter's claims in the order they are checked.

    `check` lets a typed criterion decide `reproduced` / `not reproduced` from the measured values;
    `not_checked` records a claim this scale cannot test and what would test it; `quote` shows a
    paper's number for context (never counted as reproduced).
    """

    def __init__(
        self,
        chapter: str,
        scale: str,
        *,
        seed: int | None = None,
        device: str | None = None,
        claims: Sequence[Claim] = (),
        regime: str = "",
    ):
        self.chapter, self.scale, self.seed, self.device = chapter, scale, seed, device
        self.claims: list[Claim] = list(claims)
        self.regime = regime

    @classmethod
    def for_run(cls, run, *, regime: str = "") -> "Ledger":
        """The chapter's ledger. `regime` says what its checks run on (data, model, scale), for
        the claims data set; a claim may say otherwise."""
        return cls(
            run.chapter,
            run.scale,
            seed=run.seed,
            device=run.device_name or run.device,
            regime=regime,
        )

    def _evidence(self, claim_id: str, evidence: str) -> str:
        if evidence not in EVIDENCE:
            raise ValueError(
                f"claim {claim_id!r}: evidence must be one of {', '.join(EVIDENCE)}; "
                f"got {evidence!r}"
            )
        return evidence

    # -- recording ------------------------------------------------------------------------------
    def _common(self, claim_id, statement, paper, source, note) -> str:
        claim_id = str(claim_id)
        if any(c.id == claim_id for c in self.claims):
            raise ValueError(
                f"claim id {claim_id!r} is already in the ledger of {self.chapter}"
            )
        if not str(statement).strip():
            raise ValueError(f"claim {claim_id!r}: statement must not be empty")
        if source not in SOURCES:
            raise ValueError(
                f"claim {claim_id!r}: source must be one of {', '.join(SOURCES)}; "
                f"got {source!r}"
            )
        if not isinstance(note, str):
            raise TypeError(f"claim {claim_id!r}: note must be text, got {note!r}")
        return claim_id

    def _print(self, c: Claim) -> None:
        mark = LOAD_MARK + " " if c.load_dependent else ""
        whose = {"paper": "claim", "ours": "our check", "sanity": "sanity check"}[
            c.role
        ]
        line = f"{whose} {c.id}: {mark}{MARKS[c.verdict]} {c.verdict_word()}"
        if c.checked:
            line += f" — {c.ours()} (margin {c.margin_text()})"
        elif c.gate and not c.gate.get("passed"):
            line += f" — {c.note}"
        print(line)

    def check(
        self,
        claim_id,
        statement: str,
        *,
        paper: str,
        source: str,
        measured: Mapping[str, Any],
        criterion: Criterion,
        gate: Criterion | None = None,
        note: str = "",
        load_dependent: bool = False,
        show: Sequence[str] = (),
        evidence: str = "simulation",
        regime: str = "",
        tolerance=None,
        unpaired_because: str = "",
    ) -> Outcome:
        """Record a claim of the paper: `criterion` (fixed before the run) decides from `measured`.

        `measured` maps value names (the names the criterion reads) to numbers, sequences of
        numbers or {label: number} maps. `gate` (fixed before the run, like the criterion) says
        whether the run reached the regime where the paper's mechanism can show (the model
        trained, the gap exists); when it is unmet the claim is `not checked at this scale` and
        the criterion is not judged. `load_dependent` marks a timing claim: its values and
        verdict are shown but kept out of what the reference tests compare. `show` names the
        values the table shows when not all of them fit (the JSON keeps all). `tolerance` says
        how far values that training or a fit moves may differ from the reference on another
        machine: `tol(abs=...)` for all, or {value name: tol(...)}; the rest are exact to about
        1e-9 relative (see `repbook.core.tolerance`). A statement that says something is better
        (beats, improves, outperforms, helps) is judged with `paired_gain` over seeds, or says
        why not in `unpaired_because`. Returns the outcome (of the gate, when it is unmet).

        A check of our own (an extension, a diagnostic, a check of our benchmark) is not the
        paper's claim: record it with `ours`; one that holds by construction with `sanity`.
        """
        if source == "ours":
            raise ValueError(
                f"claim {claim_id!r}: source 'ours' is not the paper's claim; record a check of "
                "our own with ledger.ours(...) (or a sanity check with ledger.sanity(...)), "
                "shown apart and never counted in the paper's tally"
            )
        return self._judge(
            "paper", claim_id, statement, paper=paper, source=source,
            measured=measured, criterion=criterion, gate=gate, note=note,
            load_dependent=load_dependent, show=show, evidence=evidence,
            regime=regime, tolerance=tolerance, unpaired_because=unpaired_because,
        )  # fmt: skip

    def ours(
        self,
        claim_id,
        statement: str,
        *,
        measured: Mapping[str, Any],
        criterion: Criterion,
        why: str,
        gate: Criterion | None = None,
        note: str = "",
        show: Sequence[str] = (),
        evidence: str = "simulation",
        regime: str = "",
        tolerance=None,
        load_dependent: bool = False,
        unpaired_because: str = "",
    ) -> Outcome:
        """A check of our own, judged by its criterion but not a claim of the paper: shown under
        its own heading and never counted in the paper's tally. `why` says what it adds (an
        extension, a diagnostic, a check of our benchmark). Arguments as in `check`."""
        if not isinstance(why, str) or not why.strip():
            raise ValueError(
                f"claim {claim_id!r}: say what this check of ours adds (why=...)"
            )
        return self._judge(
            "ours", claim_id, statement, paper=why, source="ours",
            measured=measured, criterion=criterion, gate=gate, note=note,
            load_dependent=load_dependent, show=show, evidence=evidence,
            regime=regime, tolerance=tolerance, unpaired_because=unpaired_because,
        )  # fmt: skip

    def sanity(
        self,
        claim_id,
        statement: str,
        *,
        measured: Mapping[str, Any],
        criterion: Criterion,
        why: str,
        note: str = "",
        show: Sequence[str] = (),
        evidence: str = "derivation",
        tolerance=None,
    ) -> Outcome:
        """A check that holds by construction or by our own design (an identity of our gadget, a
        quantity that shrinks by design): it shows the set-up works, not the paper. `why` says why
        it must hold. Shown apart, never a verdict about the paper."""
        if not isinstance(why, str) or not why.strip():
            raise ValueError(
                f"claim {claim_id!r}: say why it holds by construction (why=...)"
            )
        return self._judge(
            "sanity", claim_id, statement, paper=why, source="ours",
            measured=measured, criterion=criterion, gate=None, note=note,
            load_dependent=False, show=show, evidence=evidence, regime="",
            tolerance=tolerance,
        )  # fmt: skip

    def _judge(
        self,
        role: str,
        claim_id,
        statement: str,
        *,
        paper: str,
        source: str,
        measured: Mapping[str, Any],
        criterion: Criterion,
        gate: Criterion | None,
        note: str,
        load_dependent: bool,
        show: Sequence[str],
        evidence: str,
        regime: str,
        tolerance,
        unpaired_because: str = "",
    ) -> Outcome:
        claim_id = self._common(claim_id, statement, paper, source, note)
        if not isinstance(unpaired_because, str):
            raise TypeError(f"claim {claim_id!r}: unpaired_because must be text")
        if (
            role != "sanity"
            and COMPARATIVE.search(statement)
            and not _uses(criterion, "paired gain")
            and not unpaired_because.strip()
        ):
            raise ValueError(
                f"claim {claim_id!r} says something is better ({statement!r}): judge it "
                "with paired_gain over seeds, beyond their noise, or say why not "
                "(unpaired_because=...)"
            )
        if not isinstance(criterion, Criterion):
            raise TypeError(
                f"claim {claim_id!r}: criterion must be a typed criterion "
                f"(repbook.core.criteria), got {type(criterion).__name__}"
            )
        if gate is not None and not isinstance(gate, Criterion):
            raise TypeError(
                f"claim {claim_id!r}: gate must be a typed criterion "
                f"(repbook.core.criteria), got {type(gate).__name__}"
            )
        evidence = self._evidence(claim_id, evidence)
        values = plain_values(measured)
        tolerances = tolerances_for(claim_id, list(values), tolerance)
        hidden = [n for n in show if n not in values]
        if hidden:
            raise CriterionError(
                f"claim {claim_id!r}: show names {hidden}, which are not measured"
            )
        gate_record: dict = {}
        gate_note = ""
        if gate is not None:
            g = gate.evaluate(_evaluable(values))
            gate_record = {
                "criterion": gate.to_dict(),
                "passed": bool(g.passed),
                "margin": _json_float(g.margin),
                "binding": g.binding,
            }
            if not g.passed:
                shown = ", ".join(
                    f"{n} = {_show_value(values[n])}"
                    for n in gate.names()
                    if n in values
                )
                gate_note = f"gate unmet: {gate.text()} ({shown})"
        if gate_note:
            outcome = None
            verdict, margin, normalized, binding = (
                "not checked at this scale", None, None, "",
            )  # fmt: skip
            note = gate_note + (f"; {note}" if note else "")
        else:
            outcome = criterion.evaluate(_evaluable(values))
            verdict = (
                "reproduced"
                if outcome.passed
                else "within noise"
                if outcome.undecided
                else "not reproduced"
            )
            margin, normalized = (
                _json_float(outcome.margin),
                _json_float(outcome.normalized),
            )
            binding = outcome.binding
        claim = Claim(
            self.chapter,
            claim_id,
            statement,
            paper,
            source,
            verdict,
            self.scale,
            measured=values,
            criterion=criterion.to_dict(),
            margin=margin,
            normalized_margin=normalized,
            binding=binding,
            note=note,
            load_dependent=bool(load_dependent),
            shown=list(show),
            evidence=evidence,
            regime=regime or self.regime,
            tolerance=tolerances,
            role=role,
            gate=gate_record,
            unpaired_because=unpaired_because.strip(),
        )
        self.claims.append(claim)
        self._print(claim)
        if outcome is None:
            return gate.evaluate(_evaluable(values))
        return outcome

    def not_checked(
        self,
        claim_id,
        statement: str,
        *,
        paper: str,
        source: str,
        criterion: Criterion,
        note: str,
        measured: Mapping[str, Any] | None = None,
        evidence: str = "simulation",
        regime: str = "",
        tolerance=None,
        blocked: bool = False,
    ) -> None:
        """A claim this scale cannot test; `note` says what would test it. `measured` may hold
        what a stand-in of ours gave (shown and stored as numbers; it decides no verdict), with
        its `tolerance` as in `check`. With `blocked`, no scale of ours can test it (the paper's
        construction or a readable statement is missing): the verdict is `blocked`, and `note`
        says what is missing."""
        if not isinstance(blocked, bool):
            raise TypeError(f"claim {claim_id!r}: blocked must be True or False")
        claim_id = self._common(claim_id, statement, paper, source, note)
        if not isinstance(criterion, Criterion):
            raise TypeError(f"claim {claim_id!r}: criterion must be a typed criterion")
        if not note.strip():
            raise ValueError(f"claim {claim_id!r}: say what would check it (note=...)")
        evidence = self._evidence(claim_id, evidence)
        values = plain_values(measured) if measured is not None else {}
        tolerances = tolerances_for(claim_id, list(values), tolerance)
        claim = Claim(
            self.chapter,
            claim_id,
            statement,
            paper,
            source,
            "blocked" if blocked else "not checked at this scale",
            self.scale,
            measured=values,
            criterion=criterion.to_dict(),
            note=note,
            evidence=evidence,
            regime=regime or self.regime,
            tolerance=tolerances,
        )
        self.claims.append(claim)
        self._print(claim)

    def quote(
        self, claim_id, statement: str, *, paper: str, source: str, note: str = ""
    ) -> None:
        """A paper's number shown for context, not re-derived."""
        claim_id = self._common(claim_id, statement, paper, source, note)
        claim = Claim(
            self.chapter,
            claim_id,
            statement,
            paper,
            source,
            "quoted",
            self.scale,
            note=note,
        )
        self.claims.append(claim)
        self._print(claim)

    # -- summaries and tables -------------------------------------------------------------------
    def of_role(self, role: str = "paper") -> list[Claim]:
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
        return [c for c in self.claims if c.role == role]

    def counts(self, role: str = "paper") -> dict[str, int]:
        """Verdict counts of the paper's claims (or of `role`'s)."""
        mine = self.of_role(role)
        return {v: sum(c.verdict == v for c in mine) for v in VERDICTS}

    def tally(self) -> str:
        """The paper's claims: `reproduced / decided` (✓ and ✗), e.g. `5 / 6`, and the claims
        within the noise apart, e.g. `5 / 6 · 1 within noise`."""
        n = self.counts()
        text = f"{n['reproduced']} / {n['reproduced'] + n['not reproduced']}"
        if n["within noise"]:
            text += f" · {n['within noise']} within noise"
        return text

    def _role_summary(self, role: str) -> str:
        mine = [c for c in self.of_role(role) if c.checked]
        if not mine:
            return ""
        ok = sum(c.verdict == "reproduced" for c in mine)
        what = "our own checks" if role == "ours" else "sanity checks"
        return f"; {what}: {ok}/{len(mine)} hold"

    def summary(self) -> str:
        paper = self.of_role("paper")
        stable = [c for c in paper if not c.load_dependent]
        timed = [c for c in paper if c.load_dependent and c.checked]
        n = {v: sum(c.verdict == v for c in stable) for v in VERDICTS}
        decided = n["reproduced"] + n["not reproduced"]
        text = (
            f"{self.chapter}: {n['reproduced']}/{decided} of the paper's checked claims "
            "reproduced"
            + (f", {n['within noise']} within noise" if n["within noise"] else "")
            + (
                f", {n['not checked at this scale']} not checked at this scale"
                if n["not checked at this scale"]
                else ""
            )
            + (f", {n['quoted']} quoted" if n["quoted"] else "")
            + (f", {n['blocked']} blocked" if n["blocked"] else "")
            + f" ({self.scale} scale)"
        )
        if timed:
            ok = sum(c.verdict == "reproduced" for c in timed)
            text += f"; timing claims: {LOAD_MARK} {ok}/{len(timed)} reproduced"
        return text + self._role_summary("ours") + self._role_summary("sanity")

    def short_summary(self) -> str:
        """One line for progress output, e.g. `5/6 reproduced, 1 not checked`."""
        n = self.counts()
        text = f"{n['reproduced']}/{n['reproduced'] + n['not reproduced']} reproduced"
        if n["within noise"]:
            text += f", {n['within noise']} within noise"
        if n["not checked at this scale"]:
            text += f", {n['not checked at this scale']} not checked"
        if n["blocked"]:
            text += f", {n['blocked']} blocked"
        return text

    HEADER = (
        "| # | claim | paper (source) | ours | criterion (fixed before the run) | margin | "
        "verdict | seeds |\n|---|---|---|---|---|---|---|---|"
    )
    OURS_HEADER = (
        "| # | check | what it adds | ours | criterion (fixed before the run) | margin | "
        "verdict | seeds |\n|---|---|---|---|---|---|---|---|"
    )

    def rows(
        self, stability: "StabilityRecord | None" = None, role: str = "paper"
    ) -> list[str]:
        seeds = stability_cells(self, stability)
        out = []
        for c in self.of_role(role):
            mark = LOAD_MARK + " " if c.load_dependent else ""
            if role == "paper":
                paper = f"{c.paper} [{c.source}]" if c.paper else f"[{c.source}]"
            else:
                paper = c.paper
            criterion = c.criterion_text
            if c.gate:
                criterion = f"{c.gate_text}; then {criterion}"
            cells = [
                c.id,
                c.statement,
                paper,
                mark + c.ours(),
                criterion,
                mark + c.margin_text(),
                mark + c.verdict_text(),
                mark + seeds[c.id],
            ]
            out.append("| " + " | ".join(_cell(x) for x in cells) + " |")
        return out

    def stability(self) -> "StabilityRecord | None":
        """The committed stability record of this chapter, if there is one."""
        path = stability_path(self.chapter)
        return read_stability(path) if path.is_file() else None

    def markdown(self, stability: "StabilityRecord | None | str" = "auto") -> str:
        """The verdict table as Markdown; values are rounded, so re-runs print the same. The seeds
        column comes from the committed stability record (`stability="auto"`) or the one given."""
        if stability == "auto":
            stability = self.stability()
        legend = (
            "Margin: how far the deciding value lies from the criterion's boundary, in its own "
            "units (negative: fails by that much)."
        )
        if stability is None:
            legend += " Seeds: no stability record of this chapter yet (`repbook stability NN`)."
        else:
            legend += (
                f" Seeds: verdicts of the quick scale on seeds {stability.seeds[0]}–"
                f"{stability.seeds[-1]} (`data/stability/`); a *stale* record predates the "
                "current claims."
            )
        if any(c.load_dependent for c in self.claims):
            legend += (
                f" {LOAD_MARK} timed on this machine: it depends on the machine's load and is "
                "not compared by the tests."
            )
        if any(c.gate for c in self.claims):
            legend += (
                " A gate (fixed before the run) says whether the run reached the regime where "
                "the paper's mechanism can show; unmet, the claim is not checked at this scale."
            )
        if any(c.verdict == "blocked" for c in self.claims):
            legend += (
                f" {MARKS['blocked']} blocked: no scale of ours can test the claim (what the "
                "test needs, such as the paper's construction, is missing); the note says what."
            )
        if any(c.verdict == "within noise" for c in self.claims):
            legend += (
                f" {MARKS['within noise']} within noise: the paired gain's interval (mean ± k "
                "standard errors over seeds) straddles the bar, neither ✓ nor ✗."
            )
        text = "\n".join([self.HEADER, *self.rows(stability)])
        for role in ("ours", "sanity"):
            if self.of_role(role):
                header = (
                    self.OURS_HEADER
                    if role == "ours"
                    else self.OURS_HEADER.replace("what it adds", "why it holds")
                )
                text += f"\n\n**{ROLE_HEADINGS[role]}**\n\n" + "\n".join(
                    [header, *self.rows(stability, role)]
                )
        text += f"\n\n{legend}"
        unstable = unstable_sentence(self, stability)
        if unstable:
            text += f"\n\n{unstable}"
        return text + f"\n\n**{self.summary()}**"

    # -- files ----------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "chapter": self.chapter,
            "scale": self.scale,
            "seed": self.seed,
            "device": self.device,
            "counts": self.counts(),
            "claims": [asdict(c) for c in self.claims],
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> "Ledger":
        try:
            claims = [Claim.from_dict(c) for c in d["claims"]]
            return cls(
                d["chapter"],
                d["scale"],
                seed=d.get("seed"),
                device=d.get("device"),
                claims=claims,
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a ledger record: {exc}") from None

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Ledger":
        return cls.from_dict(json.loads(Path(path).read_text()))

    @staticmethod
    def default_path(chapter: str) -> Path:
        """Where the ledger goes: $REPBOOK_LEDGER (the runner's choice) or, when a chapter runs by
        hand, `<repo>/_build/ledgers/<chapter>.json`."""
        chosen = os.environ.get(LEDGER_ENV)
        if chosen:
            return Path(chosen)
        from .data import repo_root

        return repo_root() / "_build" / "ledgers" / f"{chapter}.json"

    def output_dir(self) -> Path:
        """Folder for a run's other outputs (next to the ledger). Created if missing."""
        path = self.default_path(self.chapter).parent
        path.mkdir(parents=True, exist_ok=True)
        return path

    def save(self, path: str | os.PathLike | None = None) -> Path:
        path = Path(path) if path else self.default_path(self.chapter)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            json.dumps(self.to_dict(), indent=1, ensure_ascii=False, allow_nan=False)
            + "\n"
        )
        return path

    def show(self):
        """Save the JSON and display the verdict table (Markdown in the book, text elsewhere)."""
        self.save()
        from IPython.display import Markdown, display

        display(Markdown(self.markdown()))


# ---------------------------------------------------------------------------------------------
# Committed records (full-scale runs): ledger plus provenance
# ---------------------------------------------------------------------------------------------
def write_record(
    path: str | os.PathLike, ledger: Ledger, provenance: Mapping[str, Any]
) -> Path:
    """A ledger with where, when and how it ran (`data/full_runs/<stem>.json`)."""
    out = {**dict(provenance), **ledger.to_dict()}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(out, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    )
    return path


def read_record(path: str | os.PathLike) -> tuple[Ledger, dict]:
    """(ledger, provenance) of a committed record."""
    d = json.loads(Path(path).read_text())
    keys = ("chapter", "scale", "seed", "device", "counts", "claims")
    return Ledger.from_dict(d), {
        k: v for k, v in d.items() if k not in keys or k == "device"
    }


def convert_old_claim(old: Mapping, scale: str) -> Claim:
    """A claim of the old free-text format (measured and criterion as text) in the new format:
    the text is kept as it was recorded, no number is invented, and no margin is given."""
    crit = old.get("criterion", "—")
    return Claim(
        old["chapter"],
        str(old["id"]),
        old["statement"],
        old["paper"],
        "ours" if old["verdict"] != "quoted" else "paper",
        old["verdict"],
        scale,
        criterion={"kind": "text (converted)", "text": crit, "reads": []}
        if crit != "—"
        else {},
        note=old.get("note", ""),
        measured_text=old.get("measured", "") if old.get("measured") != "—" else "",
    )


# ---------------------------------------------------------------------------------------------
# Stability records: the same chapter on several seeds (`data/stability/<stem>.json`)
FAILED = "failed"
"""A seed whose run failed: counted in a claim's tally, never dropped."""


def _deciding_value(c: Claim) -> float | None:
    """The measured number a one-value criterion reads (None when it reads several)."""
    reads = c.criterion.get("reads", []) if c.criterion else []
    if len(reads) == 1 and isinstance(c.measured.get(reads[0]), (int, float)):
        return float(c.measured[reads[0]])
    return None


@dataclass
class ClaimStability:
    """One claim across seeds: each seed's verdict (or FAILED), its deciding value and margin."""

    id: str
    statement: str
    criterion: str
    verdicts: dict = field(default_factory=dict)  # seed (str) -> verdict or FAILED
    values: dict = field(
        default_factory=dict
    )  # seed -> deciding value (one-value criteria)
    margins: dict = field(
        default_factory=dict
    )  # seed -> margin in the criterion's units

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for v in self.verdicts.values():
            out[v] = out.get(v, 0) + 1
        return out

    @property
    def checked(self) -> bool:
        """A criterion judged it on some seed (✓, ✗ or ≈ within noise: a claim within noise on
        every seed is a stable reading, shown as such, not as "—")."""
        return any(v in JUDGED for v in self.verdicts.values())

    @property
    def unstable(self) -> bool:
        """Its verdict differs between seeds (a failed seed counts as a different outcome)."""
        return self.checked and len(set(self.verdicts.values())) > 1

    def spread(self) -> str:
        def span(lo: str, hi: str) -> str:
            return lo if lo == hi else f"{lo} to {hi}"

        vals = [v for v in self.values.values() if v is not None]
        if vals:
            return "value " + span(fmt(min(vals)), fmt(max(vals)))
        ms = [m for m in self.margins.values() if m is not None]
        return "margin " + span(fmt_margin(min(ms)), fmt_margin(max(ms))) if ms else ""

    def cell(self) -> str:
        n = len(self.verdicts)
        if not self.checked:
            return "—"
        counts = self.counts()
        parts = [
            f"{MARKS.get(v, '!')} {k}/{n}" if v != FAILED else f"{k}/{n} failed"
            for v, k in sorted(counts.items(), key=lambda kv: -kv[1])
        ]
        text = ", ".join(parts)
        spread = self.spread()
        if self.unstable:
            return f"unstable: {text}" + (f" ({spread})" if spread else "")
        return text + (f" ({spread})" if spread and n > 1 else "")


@dataclass
class StabilityRecord:
    chapter: str
    seeds: list
    claims: list  # [ClaimStability]
    runs: list  # [{seed, status, seconds, error}]
    provenance: dict = field(default_factory=dict)

    def claim(self, claim_id: str) -> ClaimStability | None:
        return next((c for c in self.claims if c.id == str(claim_id)), None)

    def current(self, claim: Claim) -> ClaimStability | None:
        """This record's entry for `claim` if it describes the claim as it is now (the same
        statement and definition), else None: a stale entry."""
        st = self.claim(claim.id)
        if st is None or (st.statement, st.criterion) != (
            claim.statement,
            claim.definition_text,
        ):
            return None
        return st

    def unstable(self) -> list[ClaimStability]:
        return [c for c in self.claims if c.unstable]

    def signature(self) -> list[tuple[str, str, str]]:
        return [(c.id, c.statement, c.criterion) for c in self.claims]

    def is_stale(self, current: Ledger) -> bool:
        """The chapter's claims changed since the record was made (see `is_stale`)."""
        return sorted(self.signature()) != sorted(claims_signature(current))

    def to_dict(self) -> dict:
        return {
            **self.provenance,
            "chapter": self.chapter,
            "seeds": self.seeds,
            "runs": self.runs,
            "claims": [asdict(c) for c in self.claims],
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> "StabilityRecord":
        keys = ("chapter", "seeds", "runs", "claims")
        try:
            claims = [ClaimStability(**c) for c in d["claims"]]
            return cls(
                d["chapter"],
                list(d["seeds"]),
                claims,
                list(d["runs"]),
                {k: v for k, v in d.items() if k not in keys},
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a stability record: {exc}") from None


def stability_record(
    chapter: str,
    runs: Sequence[tuple[int, Ledger | None, Mapping]],
    provenance: Mapping[str, Any] | None = None,
) -> StabilityRecord:
    """Combine one chapter's runs on several seeds. `runs` holds (seed, ledger or None when the run
    failed, run info {status, seconds, error}). A failed seed counts as FAILED for every claim."""
    if not runs:
        raise ValueError("a stability record needs at least one run")
    order: list[Claim] = []
    for _, led, _ in runs:
        for c in led.claims if led else []:
            if all(o.id != c.id for o in order):
                order.append(c)
    claims = []
    for proto in order:
        cs = ClaimStability(proto.id, proto.statement, proto.definition_text)
        for seed, led, _ in runs:
            key = str(seed)
            c = next((x for x in led.claims if x.id == proto.id), None) if led else None
            if c is None:
                cs.verdicts[key] = FAILED
                continue
            cs.verdicts[key] = c.verdict
            cs.values[key] = _deciding_value(c)
            cs.margins[key] = c.margin
        claims.append(cs)
    info = [
        {"seed": int(seed), **{k: r.get(k) for k in ("status", "seconds", "error")}}
        for seed, _, r in runs
    ]
    return StabilityRecord(
        chapter, [int(s) for s, _, _ in runs], claims, info, dict(provenance or {})
    )


def write_stability(path: str | os.PathLike, record: StabilityRecord) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(record.to_dict(), indent=1, ensure_ascii=False, allow_nan=False)
        + "\n"
    )
    return path


def read_stability(path: str | os.PathLike) -> StabilityRecord:
    return StabilityRecord.from_dict(json.loads(Path(path).read_text()))


def stability_path(chapter: str) -> Path:
    from .data import repo_root

    return repo_root() / "data" / "stability" / f"{chapter}.json"


def full_run_path(chapter: str) -> Path:
    from .data import repo_root

    return repo_root() / "data" / "full_runs" / f"{chapter}.json"


def full_run_lines(ledger: Ledger, path: str | os.PathLike | None = None) -> list[str]:
    """What a chapter prints about its committed full-scale record (`repbook full NN`): when, how
    long and where it ran, each claim's verdict and margin there, then one line per claim whose
    verdict differs from this run's. A stale record (its claims are not this run's) is named and
    not paired; a missing one says how to make it."""
    path = Path(path) if path is not None else full_run_path(ledger.chapter)
    if ledger.scale == "full":
        return ["This is a full-scale run: the committed record is not read."]
    if not path.is_file():
        return [
            f"No full-scale record is committed yet (`repbook full {ledger.chapter[:2]}` "
            "writes one)."
        ]
    full, prov = read_record(path)
    stale = is_stale(full, ledger)
    seconds = prov.get("seconds")
    took = (
        f"{seconds:.0f} s"
        if isinstance(seconds, (int, float))
        else "an unrecorded time"
    )
    finished = prov.get("finished")
    when = str(finished)[:10] if finished else "on an unrecorded date"
    lines = [
        f"Full scale, recorded {when} in {took} on "
        f"{prov.get('device', 'an unrecorded device')}"
        + (" (stale: the checks changed since)" if stale else "")
        + ": "
        + "; ".join(
            f"{c.id} {c.verdict_word()}"
            + (f" (margin {fmt_margin(c.margin)})" if c.checked else "")
            for c in full.claims
        )
        + "."
    ]
    if stale:
        return lines
    quick = {c.id: c for c in ledger.claims}
    differ = [
        c for c in full.claims if c.id in quick and c.verdict != quick[c.id].verdict
    ]
    lines += [
        f"  claim {c.id}: quick scale {quick[c.id].verdict_word()}; full scale "
        f"{c.verdict_word()}"
        for c in differ
    ]
    if not differ:
        lines.append("  every claim's verdict is the same at both scales")
    return lines


def stability_cells(ledger: Ledger, record: StabilityRecord | None) -> dict[str, str]:
    """The seeds column of a chapter's table: one cell per claim id."""
    if record is None:
        return {c.id: "not measured" if c.checked else "—" for c in ledger.claims}
    out = {}
    for c in ledger.claims:
        st = record.current(c)
        if st is not None:
            out[c.id] = st.cell()
        elif record.claim(c.id) is not None:
            out[c.id] = "stale record" if c.checked else "—"
        else:
            out[c.id] = "not measured" if c.checked else "—"
    return out


def unstable_sentence(ledger: Ledger, record: StabilityRecord | None) -> str:
    """Names every claim whose verdict flips between seeds, with its spread (empty if none)."""
    if record is None:
        return ""
    bad = [st for c in ledger.claims if (st := record.current(c)) and st.unstable]
    if not bad:
        return ""
    items = "; ".join(
        f"claim {c.id} ({c.cell().removeprefix('unstable: ')})" for c in bad
    )
    return f"Unstable across seeds {record.seeds[0]}–{record.seeds[-1]}: {items}."


# ---------------------------------------------------------------------------------------------
# Book pages: the claims parts of the scoreboard
# ---------------------------------------------------------------------------------------------
SCOREBOARD_DETAIL_HEADER = (
    "| # | claim | criterion | quick: ours | quick: margin | quick verdict | "
    "seeds | full: ours | full verdict |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def claims_signature(ledger: Ledger) -> list[tuple[str, str, str]]:
    """What a claim *is*: its id, statement and what it tests (criterion, gate, role; not its
    values)."""
    return [(c.id, c.statement, c.definition_text) for c in ledger.claims]


def is_stale(record: Ledger, current: Ledger | None) -> bool:
    """A committed record (full run, stability run) no longer describes the chapter's claims when
    the claim ids, or any claim's statement or criterion, differ from the current quick run's. (A
    claim checked only at full scale keeps its id, statement and criterion at quick scale, where it
    is recorded as not checked, so it compares equal.)"""
    if current is None:
        return False
    return sorted(claims_signature(record)) != sorted(claims_signature(current))


def scoreboard_details(
    quick: Ledger, full: Ledger | None, stability: "StabilityRecord | None" = None
) -> str:
    """One chapter's claims, quick and full side by side (a stale full record is not paired)."""
    if full is not None and is_stale(full, quick):
        full = None
    full_claims = {c.id: c for c in (full.claims if full else [])}
    seeds = stability_cells(quick, stability)
    lines = [SCOREBOARD_DETAIL_HEADER]
    for c in quick.claims:
        f = full_claims.get(c.id)
        mark = LOAD_MARK + " " if c.load_dependent else ""
        whose = {"paper": "", "ours": "(ours) ", "sanity": "(sanity check) "}[c.role]
        criterion = (
            f"{c.gate_text}; then {c.criterion_text}" if c.gate else c.criterion_text
        )
        cells = [
            c.id,
            whose + c.statement,
            criterion,
            mark + c.ours(),
            mark + c.margin_text(),
            mark + f"{MARKS[c.verdict]} {c.verdict_word()}",
            seeds[c.id],
            f.ours() if f else "—",
            f"{MARKS[f.verdict]} {f.verdict_word()}" if f else "—",
        ]
        lines.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    return "\n".join(lines)


def _seeds_summary(quick: Ledger | None, stability: "StabilityRecord | None") -> str:
    if quick is None:
        return "—"
    if stability is None:
        return "not measured"
    current = [st for c in quick.claims if (st := stability.current(c))]
    if not current:
        return "stale record"
    n = sum(st.unstable for st in current)
    stale = sum(1 for c in quick.claims if c.checked and stability.current(c) is None)
    return (
        f"{len(stability.seeds)} seeds, "
        + (f"**{n} unstable**" if n else "all stable")
        + (f", {stale} stale" if stale else "")
    )


def scoreboard_cells(quick: Ledger | None) -> list[str]:
    """The claims cells of a chapter's scoreboard row: tally, not checked, quoted, closest margin."""
    if quick is None:
        return ["—", "—", "—", "—"]
    n = quick.counts()
    checked = [
        c
        for c in quick.of_role("paper")
        if c.checked and c.normalized_margin is not None
    ]
    closest = min(checked, key=lambda c: abs(c.normalized_margin), default=None)
    close = f"claim {closest.id}: {fmt_margin(closest.margin)}" if closest else "—"
    unchecked = str(n["not checked at this scale"])
    if n["blocked"]:
        unchecked += f" (+{n['blocked']} blocked)"
    return [quick.tally(), unchecked, str(n["quoted"]), close]


def totals(ledgers: Sequence[Ledger]) -> dict[str, int]:
    out = {v: 0 for v in VERDICTS}
    for led in ledgers:
        for v, k in led.counts().items():
            out[v] += k
    return out


def totals_text(ledgers: Sequence[Ledger], n_chapters: int) -> str:
    t = totals(ledgers)
    ours = sum(len([c for c in led.claims if c.role != "paper"]) for led in ledgers)
    return (
        f"In all: {t['reproduced']} of {t['reproduced'] + t['not reproduced']} of the papers' "
        f"checked claims reproduced at quick scale across {n_chapters} chapter(s); "
        + (f"{t['within noise']} within noise, " if t["within noise"] else "")
        + f"{t['not checked at this scale']} not checked at this scale, {t['quoted']} quoted"
        + (f", {t['blocked']} blocked" if t["blocked"] else "")
        + (
            f" (and {ours} checks of our own or sanity checks, not counted)."
            if ours
            else "."
        )
    )


@dataclass
class BookEntry:
    """What the scoreboard shows of one chapter; the runner fills in how its run went."""

    stem: str
    link: str
    quick: Ledger | None = None
    full: Ledger | None = None
    full_finished: str = ""
    run_time: str = "—"
    status: str = "not run"
    stability: "StabilityRecord | None" = None


SCOREBOARD_INTRO = (
    "Every claim each chapter checked, as recorded in its claims ledger. A criterion is fixed "
    "before the run; *not reproduced* is a result, not a failure of the chapter. *Quoted* numbers "
    "are the paper's, shown for context and never counted. The margin says how far the deciding "
    "value lies from the criterion's boundary (in its own units), so a close call is visible. "
    "A *gate*, fixed before the run like the criterion, says whether the run reached the regime "
    "where the paper's mechanism can show; when it is unmet the claim is *not checked at this "
    'scale*. A "better" claim is judged on paired per-seed gains: *within noise* (≈) when the '
    "interval of the mean gain straddles its bar, counted apart from ✓ and ✗. The tallies count "
    "the paper's claims only; our own checks and sanity checks are listed, marked, and never "
    "counted. Quick-scale results come from this build; full-scale results from the committed "
    "records in `data/full_runs/` (when and where each ran: see the environment page).\n"
)


def scoreboard_markdown(
    entries: Sequence[BookEntry],
    *,
    figure: str = "",
    data: tuple[str, str] | None = None,
) -> str:
    """The scoreboard: the book-wide margin figure, one row per chapter, the totals, then every
    chapter's claims. `figure` and `data` are paths (relative to the page) of the margin figure
    and of claims.csv / claims.json."""
    lines = ["# Scoreboard\n", SCOREBOARD_INTRO]
    if figure:
        lines += [
            f"![Every checked claim as a dot at its normalised margin, by chapter]({figure})\n",
            "Each dot is one checked claim at its margin divided by the criterion's scale (the "
            "size of its bound, or half the width of its interval): right of the dashed line it "
            "holds, left of it it fails, and the nearer the line the closer the call. The axis is "
            "linear near 0 and logarithmic beyond.\n",
        ]
    if data:
        lines.append(
            f"The claims as data: {{download}}`claims.csv <{data[0]}>` and "
            f"{{download}}`claims.json <{data[1]}>`, one record per claim of every chapter "
            "(statement, paper value and source, measured values, criterion, margin, verdict, "
            "role (the paper's claim, our own check or a sanity check), gate, kind of "
            "evidence, regime, tolerances, seeds, scale, date, commit).\n"
        )
    lines += [
        "| chapter | quick: reproduced / checked | not checked at this scale | quoted | "
        "closest margin | seeds | quick run time | status | full: reproduced / checked |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    details, ledgers = [], []
    for e in entries:
        full_cell = (
            f"{e.full.tally()} ({e.full_finished[:10]}, {e.full.device})"
            if e.full
            else "—"
        )
        if e.full is not None and is_stale(e.full, e.quick):
            full_cell += " · stale: the claims changed since this run"
        lines.append(
            f"| {e.link} | "
            + " | ".join(scoreboard_cells(e.quick))
            + f" | {_seeds_summary(e.quick, e.stability)} | {e.run_time} | {e.status} | "
            f"{full_cell} |"
        )
        if e.quick is not None:
            ledgers.append(e.quick)
            details.append(
                f"\n## {e.stem}\n\n" + scoreboard_details(e.quick, e.full, e.stability)
            )
            unstable = unstable_sentence(e.quick, e.stability)
            if unstable:
                details.append("\n" + unstable)
    lines.append(f"\n**{totals_text(ledgers, len(entries))}**\n")
    return "\n".join(lines + details) + "\n"


# ---------------------------------------------------------------------------------------------
# The claims as a data set (claims.csv, claims.json) and the book-wide margin figure
CLAIM_FIELDS = (
    "chapter",
    "claim",
    "statement",
    "paper",
    "source",
    "role",
    "ours",
    "measured",
    "criterion",
    "gate",
    "margin",
    "normalized_margin",
    "verdict",
    "note",
    "evidence",
    "regime",
    "tolerance",
    "seeds",
    "scale",
    "seed",
    "date",
    "commit",
)


def claims_dataset(
    entries: Sequence[BookEntry], *, date: str, commit: str
) -> list[dict]:
    """Every claim of every chapter's quick run, one record each (the ledgers' own values)."""
    rows = []
    for e in entries:
        if e.quick is None:
            continue
        seeds = stability_cells(e.quick, e.stability)
        for c in e.quick.claims:
            rows.append(
                {
                    "chapter": e.stem,
                    "claim": c.id,
                    "statement": c.statement,
                    "paper": c.paper,
                    "source": c.source,
                    "role": c.role,
                    "ours": c.ours(),
                    "measured": c.measured,
                    "criterion": c.criterion_text,
                    "gate": c.gate,
                    "margin": c.margin,
                    "normalized_margin": c.normalized_margin,
                    "verdict": c.verdict,
                    "note": c.note,
                    "evidence": c.evidence
                    or ("quoted" if c.verdict == "quoted" else ""),
                    "regime": c.regime,
                    "tolerance": c.tolerance,
                    "seeds": seeds[c.id],
                    "scale": c.scale,
                    "seed": e.quick.seed,
                    "date": date,
                    "commit": commit,
                }
            )
    return rows


def write_claims_dataset(
    rows: Sequence[Mapping], folder: str | os.PathLike
) -> tuple[Path, Path]:
    """claims.json (values as JSON) and claims.csv (the measured values as a JSON string)."""
    import csv

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    as_json = folder / "claims.json"
    as_json.write_text(
        json.dumps(list(rows), indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    )
    as_csv = folder / "claims.csv"
    with open(as_csv, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CLAIM_FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow(
                {
                    **r,
                    "measured": json.dumps(r["measured"], ensure_ascii=False),
                    "tolerance": json.dumps(r.get("tolerance", {}), ensure_ascii=False),
                    "gate": json.dumps(r.get("gate", {}), ensure_ascii=False),
                }
            )
    return as_csv, as_json


def margin_points(entries: Sequence[BookEntry]) -> list[dict]:
    """(chapter, claim, normalised margin, verdict) of every checked claim that has a margin."""
    return [
        {
            "chapter": e.stem,
            "claim": c.id,
            "normalized": c.normalized_margin,
            "verdict": c.verdict,
            "load_dependent": c.load_dependent,
        }
        for e in entries
        if e.quick is not None
        for c in e.quick.claims
        if c.role == "paper" and c.checked and c.normalized_margin is not None
    ]

"""Claims and the ledger that records them: one record per claim, its verdict decided by a typed
criterion.

A checked claim stores the measured values as numbers at full precision (`values`), the criterion
(its kind, parameters and the text rendered from it), the verdict the criterion decided, and the
margin: how far the deciding value lies from the criterion's boundary. The tables that render a
ledger live in `tables`, the committed records in `records`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import layout
from ..criteria import Criterion, CriterionError, Outcome
from ..tolerance import tolerances_for
from .values import (
    evaluable,
    fmt_margin,
    json_float,
    plain_values,
    show_value,
)

if TYPE_CHECKING:
    from .records import StabilityRecord

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


PRINT_WIDTH = 100
"""Printed lines wrap at this width (a 1280-px page shows about 100 output characters)."""


def wrapped(line: str, width: int = PRINT_WIDTH) -> str:
    """A long printed line wrapped at `width`, its continuation lines indented."""
    import textwrap

    return textwrap.fill(
        line,
        width,
        subsequent_indent="    ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def sanitize(text: str) -> str:
    """Text with every load-dependent cell reduced to its mark (what the references compare)."""
    return LOAD_DEPENDENT.sub(LOAD_MARK, text)


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
    measured_text: str = (
        ""  # free text of records older than typed criteria (none left)
    )
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
            shown = show_value(v)
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
        print(wrapped(line))

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
            g = gate.evaluate(evaluable(values))
            gate_record = {
                "criterion": gate.to_dict(),
                "passed": bool(g.passed),
                "margin": json_float(g.margin),
                "binding": g.binding,
            }
            if not g.passed:
                shown = ", ".join(
                    f"{n} = {show_value(values[n])}"
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
            outcome = criterion.evaluate(evaluable(values))
            verdict = (
                "reproduced"
                if outcome.passed
                else "within noise"
                if outcome.undecided
                else "not reproduced"
            )
            margin, normalized = (
                json_float(outcome.margin),
                json_float(outcome.normalized),
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
            return gate.evaluate(evaluable(values))
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
    def claim(self, claim_id) -> Claim:
        """The recorded claim with this id (a KeyError names the ids there are)."""
        for c in self.claims:
            if c.id == str(claim_id):
                return c
        have = ", ".join(c.id for c in self.claims) or "none"
        raise KeyError(
            f"no claim {claim_id!r} in the ledger of {self.chapter}; it has: {have}"
        )

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

    def rows(
        self, stability: "StabilityRecord | None" = None, role: str = "paper"
    ) -> list[str]:
        """The verdict table's rows of `role`'s claims (see `tables.claim_rows`)."""
        from .tables import claim_rows

        return claim_rows(self, stability, role)

    def stability(self) -> "StabilityRecord | None":
        """The committed stability record of this chapter, if there is one."""
        from .records import load_stability

        return load_stability(self.chapter)

    def markdown(self, stability: "StabilityRecord | None | str" = "auto") -> str:
        """The verdict table as Markdown (see `tables.verdict_table`); the seeds column comes from
        the committed stability record (`stability="auto"`) or the one given."""
        from .tables import verdict_table

        return verdict_table(
            self, self.stability() if stability == "auto" else stability
        )

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
        """Where the ledger goes: the file the runner chose (`layout.LEDGER_ENV`) or, when a
        chapter runs by hand, `layout.hand_ledger`."""
        chosen = layout.ledger_from_environment()
        if chosen is not None:
            return chosen
        from ..data import repo_root

        return layout.hand_ledger(repo_root(), chapter)

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

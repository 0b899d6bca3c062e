"""Every table of claims: a chapter's verdict table and the scoreboard's rows and details."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ... import layout
from .claims import LOAD_MARK, MARKS, ROLE_HEADINGS, VERDICTS, Ledger
from .records import StabilityRecord, is_stale_across_scales
from .values import fmt_margin


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


# ---------------------------------------------------------------------------------------------
# A chapter's verdict table
# ---------------------------------------------------------------------------------------------
HEADER = (
    "| # | claim | paper (source) | ours | criterion (fixed before the run) | margin | "
    "verdict | seeds |\n|---|---|---|---|---|---|---|---|"
)
OURS_HEADER = (
    "| # | check | what it adds | ours | criterion (fixed before the run) | margin | "
    "verdict | seeds |\n|---|---|---|---|---|---|---|---|"
)


def claim_rows(
    ledger: Ledger, stability: StabilityRecord | None = None, role: str = "paper"
) -> list[str]:
    """The verdict table's rows of `role`'s claims; the seeds column from `stability`."""
    seeds = stability_cells(ledger, stability)
    out = []
    for c in ledger.of_role(role):
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


def verdict_table(ledger: Ledger, stability: StabilityRecord | None) -> str:
    """The verdict table as Markdown; values are rounded, so re-runs print the same. The seeds
    column comes from `stability` (None: no record)."""
    legend = (
        "Margin: how far the deciding value lies from the criterion's boundary, in its own "
        "units (negative: fails by that much)."
    )
    if stability is None:
        legend += (
            " Seeds: no stability record of this chapter yet (`repbook stability NN`)."
        )
    else:
        legend += (
            f" Seeds: verdicts of the quick scale on seeds {stability.seeds[0]}–"
            f"{stability.seeds[-1]} (`{layout.STABILITY.as_posix()}/`); a *stale* record "
            "predates the "
            "current claims."
        )
    if any(c.load_dependent for c in ledger.claims):
        legend += (
            f" {LOAD_MARK} timed on this machine: it depends on the machine's load and is "
            "not compared by the tests."
        )
    if any(c.gate for c in ledger.claims):
        legend += (
            " A gate (fixed before the run) says whether the run reached the regime where "
            "the paper's mechanism can show; unmet, the claim is not checked at this scale."
        )
    if any(c.verdict == "blocked" for c in ledger.claims):
        legend += (
            f" {MARKS['blocked']} blocked: no scale of ours can test the claim (what the "
            "test needs, such as the paper's construction, is missing); the note says what."
        )
    if any(c.verdict == "within noise" for c in ledger.claims):
        legend += (
            f" {MARKS['within noise']} within noise: the paired gain's interval (mean ± k "
            "standard errors over seeds) straddles the bar, neither ✓ nor ✗."
        )
    text = "\n".join([HEADER, *claim_rows(ledger, stability)])
    for role in ("ours", "sanity"):
        if ledger.of_role(role):
            header = (
                OURS_HEADER
                if role == "ours"
                else OURS_HEADER.replace("what it adds", "why it holds")
            )
            text += f"\n\n**{ROLE_HEADINGS[role]}**\n\n" + "\n".join(
                [header, *claim_rows(ledger, stability, role)]
            )
    text += f"\n\n{legend}"
    unstable = unstable_sentence(ledger, stability)
    if unstable:
        text += f"\n\n{unstable}"
    return text + f"\n\n**{ledger.summary()}**"


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
# The scoreboard's claims parts
# ---------------------------------------------------------------------------------------------
SCOREBOARD_DETAIL_HEADER = (
    "| # | claim | criterion | quick: ours | quick: margin | quick verdict | "
    "seeds | full: ours | full verdict |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def scoreboard_details(
    quick: Ledger, full: Ledger | None, stability: "StabilityRecord | None" = None
) -> str:
    """One chapter's claims, quick and full side by side (a stale full record is not paired)."""
    if full is not None and is_stale_across_scales(full, quick):
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
    f"records in `{layout.FULL_RUNS.as_posix()}/` (when and where each ran: see the "
    "environment page).\n"
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
        "| chapter | quick scale: reproduced / checked | not checked | quoted | "
        "closest margin | seeds | run time | status | full scale (when) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    details, ledgers = [], []
    for e in entries:
        # the device and machine of a full run are on the environment page
        full_cell = f"{e.full.tally()} ({e.full_finished[:10]})" if e.full else "—"
        if e.full is not None and is_stale_across_scales(e.full, e.quick):
            full_cell += " · stale"
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

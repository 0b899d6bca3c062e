"""The lines a chapter prints under its verdict table, generated from its ledger and its
committed records, so that no sentence reading a verdict is typed by hand:

- each judged or gated claim: its verdict, margin and gate (`Claim.reading_line`);
- the claims whose verdict flips between the stability record's seeds, or that none does;
- the claims the stability record no longer describes (new or changed since it was made);
- the claims whose verdict moves under other kernels and thread counts (the numerics record).
"""

from __future__ import annotations

from .claims import Ledger
from .records import environment_verdicts, load_numerics
from .tables import unstable_sentence
from .values import fmt_margin

NO_FLIPS = "No claim the record still describes flips between its seeds."


def stale_claims(ledger: Ledger, record=None) -> list[str]:
    """Ids of the judged claims the stability record does not describe as they are now."""
    stab = ledger.stability() if record is None else record
    return [
        c.id
        for c in ledger.claims
        if c.checked and (stab is None or not stab.current(c))
    ]


def reading_lines(ledger: Ledger, *, numerics: bool = True) -> list[str]:
    """The reading of a chapter's verdicts (see the module), one line each."""
    lines = [c.reading_line() for c in ledger.claims if c.checked or c.gate]
    stab = ledger.stability()
    if stab is None:
        lines.append(
            "No stability record of this chapter yet (`repbook stability NN`)."
        )
    else:
        lines.append(unstable_sentence(ledger, stab) or NO_FLIPS)
        stale = stale_claims(ledger, stab)
        if stale:
            lines.append(
                f"The stability record does not describe claim {', '.join(stale)} as it is "
                "now (new or changed since it was made)."
            )
    if numerics:
        moved = environment_verdicts(load_numerics(ledger.chapter))
        for cid, by_env in moved.items():
            lines.append(
                f"claim {cid} under other kernels and thread counts (numerics record, seed 0): "
                + ", ".join(
                    f"{env} {v} ({fmt_margin(m)})" for env, (v, m) in by_env.items()
                )
            )
    return lines

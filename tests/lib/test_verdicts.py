"""Verdicts about the paper: gates, gains beyond noise, our own checks kept apart."""

import dataclasses
import math

import numpy as np
import pytest

from repbook.core.criteria import CriterionError, all_of, at_least, paired_gain
from repbook.core.ledger import (
    BookEntry,
    Ledger,
    claims_dataset,
    margin_points,
    scoreboard_details,
    totals_text,
)
from repbook.core.tolerance import compare_claims, tol


# -- paired gains -----------------------------------------------------------------------------
def evaluate(gains, bar=0.0, **kw):
    return paired_gain("gain", bar, **kw).evaluate({"gain": gains})


def test_a_gain_beyond_its_noise_holds():
    gains = [0.05, 0.06, 0.07]  # mean 0.06, SE 0.00577
    out = evaluate(gains)
    se = np.std(gains, ddof=1) / math.sqrt(3)
    assert out.passed and not out.undecided
    assert out.margin == pytest.approx(0.06 - 2 * se)


def test_a_gain_inside_its_noise_is_neither():
    # per-seed gains +0.065, −0.128, −0.121: a mean gain inside a wide interval
    out = evaluate([0.065, -0.128, -0.121])
    assert not out.passed and out.undecided
    assert out.margin < 0
    gains = [0.01, 0.03, 0.02]
    out = evaluate(gains, bar=0.02)  # the interval straddles the bar
    assert out.undecided and out.margin == pytest.approx(
        -2 * np.std(gains, ddof=1) / 3**0.5
    )


def test_a_loss_beyond_its_noise_fails():
    out = evaluate([-0.05, -0.06, -0.07])
    assert not out.passed and not out.undecided and out.margin < 0
    assert not evaluate([0.0, 0.0, 0.0]).passed  # no gain is no win


def test_k_and_the_bar_set_the_interval():
    gains = [0.01, 0.03, 0.02]
    assert evaluate(gains, k=1.0).passed and evaluate(gains, k=4.0).undecided


@pytest.mark.parametrize("n", [3, 5, 8])
def test_k_t_is_students_quantile_for_the_number_of_seeds(n):
    from scipy import stats

    gains = list(0.02 + 0.01 * np.sin(np.arange(n)))
    se = np.std(gains, ddof=1) / math.sqrt(n)
    k = stats.t.ppf(0.975, n - 1)
    out = evaluate(gains, k="t")
    assert out.margin == pytest.approx(np.mean(gains) - k * se)
    assert out.margin == pytest.approx(evaluate(gains, k=float(k)).margin)


def test_k_t_keeps_one_text_whatever_the_seed_count():
    """A record made with more seeds (full scale) describes the same claim: the criterion text
    names the rule, not the quantile's value."""
    from repbook.core.ledger import is_stale

    def run(gains):
        lg = led()
        lg.check("1", "A beats B", paper="p", source="paper", measured={"gain": gains},
                 criterion=paired_gain("gain", k="t"))  # fmt: skip
        return lg

    three, five = run([0.03, 0.04, 0.05]), run([0.03, 0.04, 0.05, 0.02, 0.06])
    assert "Student's 97.5 % quantile" in three.claims[0].criterion_text
    assert not is_stale(five, three)
    numeric = led()
    numeric.check("1", "A beats B", paper="p", source="paper",
                  measured={"gain": [0.03, 0.04, 0.05]},
                  criterion=paired_gain("gain", k=4.30265))  # fmt: skip
    assert is_stale(numeric, three)


@pytest.mark.parametrize(
    "kw, msg",
    [
        ({"k": 0}, "k must be a positive number"),
        ({"k": "z"}, "k must be a positive number or .t."),
        ({"min_seeds": 1}, "min_seeds must be an integer ≥ 2"),
        ({"bar": "other"}, "numeric bar"),
    ],
)
def test_bad_paired_gains_are_refused(kw, msg):
    bar = kw.pop("bar", 0.0)
    with pytest.raises(CriterionError, match=msg):
        paired_gain("gain", bar, **kw)


def test_too_few_seeds_is_an_error_not_a_verdict():
    with pytest.raises(CriterionError, match="at least 3 seeds in 'gain', got 2"):
        evaluate([0.1, 0.2])


def test_nan_gain_fails():
    out = evaluate([0.1, math.nan, 0.2])
    assert not out.passed and not out.undecided and math.isnan(out.margin)


def test_all_of_with_a_noisy_part_is_within_noise_unless_another_part_fails():
    crit = all_of(at_least("x", 0.0), paired_gain("gain"))
    noisy = {"x": 1.0, "gain": [0.1, -0.1, 0.05]}
    assert crit.evaluate(noisy).undecided
    assert not crit.evaluate({**noisy, "x": -1.0}).undecided


# -- the ledger's verdicts ---------------------------------------------------------------------
def led():
    return Ledger("99_demo", "quick", seed=0)


def test_within_noise_is_counted_apart(capsys):
    lg = led()
    lg.check(
        "1", "A beats B", paper="better", source="paper",
        measured={"gain": [0.065, -0.128, -0.121]}, criterion=paired_gain("gain"),
    )  # fmt: skip
    lg.check(
        "2", "x", paper="p", source="paper", measured={"x": 1.0},
        criterion=at_least("x", 0.0),
    )  # fmt: skip
    assert lg.claims[0].verdict == "within noise" and lg.claims[0].checked
    assert "claim 1: ≈ within noise" in capsys.readouterr().out
    assert lg.tally() == "1 / 1 · 1 within noise"
    assert (
        "1/1 of the paper's checked claims reproduced, 1 within noise" in lg.summary()
    )
    assert "≈ within noise: the paired gain's interval" in lg.markdown(stability=None)
    assert "1 within noise" in totals_text([lg], 1)


# -- gates ------------------------------------------------------------------------------------
def gated(gap):
    lg = led()
    lg.check(
        "3", "LangDAug beats ERM on the unseen domain", paper="beats ERM",
        source="abstract",
        measured={"ERM gap": gap, "gain": [0.03, 0.04, 0.05]},
        gate=at_least("ERM gap", 0.03), criterion=paired_gain("gain", 0.02),
        tolerance={"ERM gap": tol(abs=0.005)},
    )  # fmt: skip
    return lg


def test_an_unmet_gate_means_not_checked_and_says_why(capsys):
    lg = gated(0.0004)
    c = lg.claims[0]
    assert c.verdict == "not checked at this scale" and c.margin is None
    assert c.note == "gate unmet: ERM gap ≥ 0.03 (ERM gap = 0.0004)"
    assert c.gate["passed"] is False and c.gate["margin"] == pytest.approx(-0.0296)
    assert "gate unmet: ERM gap ≥ 0.03" in capsys.readouterr().out
    table = lg.markdown(stability=None)
    assert "gate (unmet): ERM gap ≥ 0.03; then mean gain − 2 SE > 0.02" in table
    assert lg.counts()["not checked at this scale"] == 1


def test_a_met_gate_lets_the_criterion_judge():
    c = gated(0.05).claims[0]
    assert c.verdict == "reproduced" and c.gate["passed"] is True
    assert c.gate_text == "gate (met): ERM gap ≥ 0.03"


def test_a_gate_must_read_measured_values_and_be_typed():
    with pytest.raises(CriterionError, match="reads the value 'gap'"):
        led().check(
            "1", "s", paper="p", source="paper", measured={"x": 1.0},
            gate=at_least("gap", 0.1), criterion=at_least("x", 0.0),
        )  # fmt: skip
    with pytest.raises(TypeError, match="gate must be a typed criterion"):
        led().check(
            "1", "s", paper="p", source="paper", measured={"x": 1.0},
            gate="gap > 0.1", criterion=at_least("x", 0.0),
        )  # fmt: skip


def test_a_gate_that_flips_within_tolerance_is_reported_not_failed():
    met, unmet = gated(0.032).claims[0], gated(0.029).claims[0]
    out = compare_claims(met, unmet)
    assert out.ok and "gate's value lies within tolerance" in out.near_boundary
    far = gated(0.09).claims[0]
    out = compare_claims(far, unmet)
    assert not out.ok and any("gate" in f for f in out.failures)


def test_a_changed_gate_is_a_changed_claim():
    c = gated(0.05).claims[0]
    other = dataclasses.replace(
        c,
        gate={**c.gate, "criterion": {**c.gate["criterion"], "text": "ERM gap ≥ 0.01"}},
    )
    assert any("its gate changed" in f for f in compare_claims(c, other).failures)


# -- whose claim it is ------------------------------------------------------------------------
def test_a_claim_of_ours_cannot_be_recorded_as_the_papers():
    with pytest.raises(ValueError, match=r"ledger\.ours\(\.\.\.\)"):
        led().check(
            "1", "s", paper="p", source="ours", measured={"x": 1.0},
            criterion=at_least("x", 0.0),
        )  # fmt: skip


def test_ours_and_sanity_checks_are_shown_apart_and_never_counted(capsys):
    lg = led()
    lg.check(
        "1", "the paper's", paper="p", source="paper", measured={"x": 1.0},
        criterion=at_least("x", 2.0),
    )  # fmt: skip
    lg.ours(
        "1b", "our benchmark has a gap", measured={"gap": 0.2},
        criterion=at_least("gap", 0.1), why="a check of our benchmark",
    )  # fmt: skip
    lg.sanity(
        "2s", "the confidence set shrinks as N^-1/2", measured={"slope": -0.5},
        criterion=at_least("slope", -0.6), why="by design of the estimator",
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "our check 1b: ✓ holds" in out and "sanity check 2s: ✓ holds" in out
    assert lg.counts() == {
        "reproduced": 0, "not reproduced": 1, "within noise": 0,
        "not checked at this scale": 0, "quoted": 0, "blocked": 0,
    }  # fmt: skip
    assert lg.counts("ours")["reproduced"] == 1
    assert lg.tally() == "0 / 1"
    table = lg.markdown(stability=None)
    head, rest = table.split("**Our own checks")
    assert "the paper's" in head and "our benchmark" not in head
    assert "| 1b | our benchmark has a gap | a check of our benchmark |" in rest
    assert "**Sanity checks" in rest and "✓ holds" in rest
    assert lg.summary().endswith("; our own checks: 1/1 hold; sanity checks: 1/1 hold")
    entry = BookEntry("99_demo", "99", quick=lg)
    rows = claims_dataset([entry], date="d", commit="c")
    assert [r["role"] for r in rows] == ["paper", "ours", "sanity"]
    assert [p["claim"] for p in margin_points([entry])] == ["1"]
    assert "(ours) our benchmark" in scoreboard_details(lg, None)
    text = totals_text([lg], 1)
    assert text.startswith("In all: 0 of 1 of the papers' checked claims reproduced")
    assert "(and 2 checks of our own or sanity checks, not counted)" in text


@pytest.mark.parametrize("method", ["ours", "sanity"])
def test_ours_and_sanity_say_why(method):
    with pytest.raises(ValueError, match="why="):
        getattr(led(), method)(
            "1", "s", measured={"x": 1.0}, criterion=at_least("x", 0.0), why=" "
        )


def test_a_changed_role_is_a_changed_claim():
    a, b = led(), led()
    a.check("1", "s", paper="p", source="paper", measured={"x": 1.0},
            criterion=at_least("x", 0.0))  # fmt: skip
    b.ours("1", "s", measured={"x": 1.0}, criterion=at_least("x", 0.0), why="p")
    out = compare_claims(a.claims[0], b.claims[0])
    assert any("its role changed" in f for f in out.failures)


def test_records_go_stale_when_a_gate_or_role_is_added():
    from repbook.core.ledger import is_stale

    plain = led()
    plain.check("3", "LangDAug beats ERM on the unseen domain", paper="beats ERM",
                source="abstract", measured={"gain": [0.03, 0.04, 0.05]},
                criterion=paired_gain("gain", 0.02))  # fmt: skip
    assert is_stale(plain, gated(0.05))
    assert not is_stale(gated(0.05), gated(0.0))  # a gate met or not: the same claim


def test_a_stability_record_goes_stale_claim_by_claim():
    from repbook.core.ledger import stability_cells, stability_record, unstable_sentence

    def run(gap, x):
        lg = gated(gap)
        lg.check("4", "x", paper="p", source="paper", measured={"x": x},
                 criterion=at_least("x", 0.0))  # fmt: skip
        return lg

    rec = stability_record(
        "99_demo", [(0, run(0.05, 1.0), {}), (1, run(0.05, -1.0), {})]
    )
    now = run(0.05, 1.0)
    now.claims[0] = dataclasses.replace(now.claims[0], statement="another statement")
    cells = stability_cells(now, rec)
    assert cells == {"3": "stale record", "4": "unstable: ✓ 1/2, ✗ 1/2 (value -1 to 1)"}
    assert unstable_sentence(now, rec).startswith("Unstable across seeds 0–1: claim 4")


def test_a_better_claim_is_a_paired_gain_or_says_why_not():
    with pytest.raises(ValueError, match="judge it with paired_gain over seeds"):
        led().check(
            "1", "A beats B", paper="p", source="paper", measured={"x": 1.0},
            criterion=at_least("x", 0.0),
        )  # fmt: skip
    lg = led()
    lg.check(
        "1", "A beats B", paper="p", source="paper", measured={"x": 1.0},
        criterion=at_least("x", 0.0), unpaired_because="one real data stream",
    )  # fmt: skip
    lg.check(
        "2", "A improves on B", paper="p", source="paper",
        measured={"x": 1.0, "gain": [0.1, 0.2, 0.3]},
        criterion=all_of(at_least("x", 0.0), paired_gain("gain")),
    )  # fmt: skip
    assert lg.claims[0].unpaired_because == "one real data stream"
    lg.sanity("3", "the better bound holds", measured={"x": 1.0},
              criterion=at_least("x", 0.0), why="by construction")  # fmt: skip
    with pytest.raises(ValueError, match="say why not"):
        led().ours("4", "ours helps", measured={"x": 1.0},
                   criterion=at_least("x", 0.0), why="w")  # fmt: skip


def test_a_claim_within_noise_on_every_seed_has_a_seeds_cell():
    """≈ on every seed is a stable reading (shown with its count), and ≈ on some seeds with an
    unmet gate on others is a verdict that moves between seeds."""
    from repbook.core.ledger import stability_cells, stability_record

    def run(gap, gains):
        lg = led()
        lg.check("3", "LangDAug beats ERM on the unseen domain", paper="beats ERM",
                 source="abstract", measured={"ERM gap": gap, "gain": gains},
                 gate=at_least("ERM gap", 0.03), criterion=paired_gain("gain", 0.0))  # fmt: skip
        return lg

    noisy = [0.065, -0.128, -0.121]
    rec = stability_record(
        "99_demo", [(0, run(0.05, noisy), {}), (1, run(0.05, noisy[::-1]), {})]
    )
    assert stability_cells(run(0.05, noisy), rec)["3"].startswith("≈ 2/2")
    mixed = stability_record(
        "99_demo", [(0, run(0.05, noisy), {}), (1, run(0.0, noisy), {})]
    )
    assert mixed.claim("3").unstable
    assert stability_cells(run(0.05, noisy), mixed)["3"].startswith("unstable: ")

"""Tolerances and the claim-by-claim comparison with a reference."""

import math

import pytest

from repbook.core.criteria import all_of, at_least, at_most, same_order, within
from repbook.core.ledger import Ledger
from repbook.core.tolerance import (
    DEFAULT,
    TINY,
    Tolerance,
    compare_claims,
    compare_ledgers,
    margin_tolerance,
    note_words,
    tol,
    tolerances_for,
)


def claim(criterion=None, tolerance=None, cid="1", **measured):
    led = Ledger("99_demo", "quick")
    led.check(
        cid,
        "a statement",
        paper="a value",
        source="paper",
        measured=measured or {"x": 1.0},
        criterion=criterion or at_least("x", 0.5),
        tolerance=tolerance,
    )
    return led.claims[0]


# -- the tolerance itself ---------------------------------------------------------------------
def test_allowed_is_the_larger_of_abs_and_rel():
    t = tol(abs=0.01, rel=0.1)
    assert t.allowed(0.05) == 0.01
    assert t.allowed(-2.0) == pytest.approx(0.2)
    assert DEFAULT.allowed(3.0) == pytest.approx(3e-9)
    assert DEFAULT.allowed(0.0) == TINY  # rounding noise compares equal


@pytest.mark.parametrize(
    "kw, msg",
    [
        ({"abs": -1.0}, "abs must be a finite number ≥ 0"),
        ({"rel": math.inf}, "rel must be a finite number ≥ 0"),
        ({"abs": True}, "abs must be"),
        ({}, "needs abs > 0 or rel > 0"),
    ],
)
def test_bad_tolerances_are_refused(kw, msg):
    with pytest.raises(ValueError, match=msg):
        tol(**kw)


def test_unknown_basis_is_refused():
    with pytest.raises(ValueError, match="basis must be one of"):
        Tolerance(abs=1.0, basis="a wish")


def test_round_trip_and_text():
    t = tol(abs=0.03)
    assert Tolerance.from_dict(t.to_dict()) == t
    assert t.text() == "±0.03 (declared, data/numerics)"
    assert DEFAULT.text() == "±1e-09 relative (the default)"
    with pytest.raises(ValueError, match="not a tolerance"):
        Tolerance.from_dict({"abs": 1})


def test_tolerances_for_fills_the_default():
    out = tolerances_for("1", ["a", "b"], {"a": tol(abs=0.1)})
    assert out["a"] == tol(abs=0.1).to_dict() and out["b"] == DEFAULT.to_dict()
    assert tolerances_for("1", ["a"], tol(rel=0.01))["a"]["rel"] == 0.01
    assert tolerances_for("1", ["a"], None)["a"] == DEFAULT.to_dict()


def test_tolerances_for_names_what_is_wrong():
    with pytest.raises(ValueError, match=r"claim '1': tolerance names \['c'\]"):
        tolerances_for("1", ["a"], {"c": tol(abs=1)})
    with pytest.raises(TypeError, match="tolerance of 'a' must be a tol"):
        tolerances_for("1", ["a"], {"a": 0.1})
    with pytest.raises(TypeError, match="tolerance must be tol"):
        tolerances_for("1", ["a"], 0.1)


def test_the_ledger_stores_each_values_tolerance():
    c = claim(tolerance={"x": tol(abs=0.2)}, x=1.0, y=[1.0, 2.0])
    assert c.tolerance == {"x": tol(abs=0.2).to_dict(), "y": DEFAULT.to_dict()}
    led = Ledger("99_demo", "quick", claims=[c])
    again = Ledger.from_dict(led.to_dict()).claims[0]
    assert again.tolerance == c.tolerance


# -- margins ----------------------------------------------------------------------------------
def test_margin_tolerance_follows_the_values_it_reads():
    c = claim(at_least("x", 0.5), tol(abs=0.1), x=1.0)
    assert margin_tolerance(c) == pytest.approx(0.1)  # x − 0.5
    c = claim(at_least("x", "y", factor=3.0), tol(abs=0.1), x=1.0, y=0.1)
    assert margin_tolerance(c) == pytest.approx(0.4)  # x − 3·y
    c = claim(same_order("a", "b"), {"a": tol(rel=0.1)}, a=[1.0, 4.0], b=[1.0, 2.0])
    assert margin_tolerance(c) == pytest.approx(0.8)  # a[i] − a[j]
    c = claim(at_least("x", 0.5), None, x=1.0)
    assert margin_tolerance(c) == pytest.approx(1e-9)
    c = claim(
        all_of(at_least("x", 0.5), same_order("a", "b")),
        tol(abs=0.1),
        x=1.0,
        a=[1.0, 2.0],
        b=[1.0, 2.0],
    )
    assert margin_tolerance(c) == pytest.approx(0.2)


# -- comparing a claim with its reference -----------------------------------------------------
def moved(c, **changes):
    import dataclasses

    return dataclasses.replace(c, **changes)


def test_an_unchanged_claim_passes():
    c = claim()
    assert compare_claims(c, moved(c)).ok


def test_a_value_within_tolerance_passes_and_beyond_it_fails():
    ref = claim(at_least("x", 0.5), tol(abs=0.05), x=1.0)
    near = claim(at_least("x", 0.5), tol(abs=0.05), x=1.04)
    far = claim(at_least("x", 0.5), tol(abs=0.05), x=1.07)
    assert compare_claims(ref, near).ok
    out = compare_claims(ref, far)
    assert not out.ok
    text = " ".join(out.failures)
    assert "value 'x' = 1.07, reference 1" in text
    assert "±0.05 (declared, data/numerics)" in text


def test_an_exact_value_fails_on_a_tiny_change():
    ref, cur = claim(x=1.0), claim(x=1.0 + 1e-6)
    out = compare_claims(ref, cur)
    assert "beyond its tolerance ±1e-09 relative (the default)" in out.failures[0]


def test_sequences_and_maps_compare_element_by_element():
    ref = claim(at_least("s", 0), tol(abs=0.1), s={"a": 1.0, "b": 2.0})
    cur = claim(at_least("s", 0), tol(abs=0.1), s={"a": 1.0, "b": 2.5})
    assert "value 's[b]' = 2.5, reference 2" in compare_claims(ref, cur).failures[0]
    cur = claim(at_least("s", 0), tol(abs=0.1), s={"a": 1.0, "c": 2.0})
    assert "is a map with keys ['a', 'c']" in compare_claims(ref, cur).failures[0]
    ref = claim(at_least("s", 0), None, s=[1.0, 2.0])
    cur = claim(at_least("s", 0), None, s=[1.0, 2.0, 3.0])
    assert "is 3 numbers; the reference has 2" in compare_claims(ref, cur).failures[0]


def test_nan_equals_nan_but_not_a_number():
    ref, cur = claim(x=math.nan), claim(x=math.nan)
    assert compare_claims(ref, cur).ok
    out = compare_claims(ref, claim(x=1.0))
    assert "one is not a number" in out.failures[0]


def test_a_changed_definition_fails_whatever_the_numbers():
    ref = claim()
    assert (
        "its statement changed"
        in compare_claims(ref, moved(ref, statement="another")).failures[0]
    )
    out = compare_claims(ref, claim(at_least("x", 0.6)))
    assert (
        "its criterion changed: reference 'x ≥ 0.5', this run 'x ≥ 0.6'"
        in (out.failures[0])
    )
    out = compare_claims(ref, claim(tolerance=tol(abs=1.0)))
    assert "its tolerances changed" in out.failures[0]
    out = compare_claims(ref, moved(ref, source="abstract"))
    assert "its source changed" in out.failures[0]


def test_a_note_keeps_its_words_but_not_its_numbers():
    ref = moved(claim(), note="its longest build 19 s, far from tens of minutes")
    assert compare_claims(
        ref, moved(ref, note="its longest build 16.2 s, far from tens of minutes")
    ).ok
    assert compare_claims(
        ref, moved(ref, note="its longest build −1e-3 s, far from tens of minutes")
    ).ok
    out = compare_claims(
        ref, moved(ref, note="its longest build 19 s, in the regime of tens of minutes")
    )
    assert "its note changed" in out.failures[0]
    assert (
        note_words("W=4 (drift 0.25), 1,024 runs, 47.8%") == "W=# (drift #), # runs, #%"
    )


def test_a_flipped_verdict_fails_unless_both_sides_are_within_tolerance_of_the_boundary():
    crit = at_least("x", 1.0)
    ref = claim(crit, tol(abs=0.1), x=1.02)  # reproduced, margin +0.02
    near = compare_claims(ref, claim(crit, tol(abs=0.1), x=0.97))
    assert near.ok and "within tolerance of the boundary" in near.near_boundary
    # a verdict that flips because a value moved beyond its tolerance is a regression
    ref = claim(crit, tol(abs=0.1), x=1.5)
    out = compare_claims(ref, claim(crit, tol(abs=0.1), x=0.9))
    assert not out.ok and any("verdict 'not reproduced'" in f for f in out.failures)


def test_an_exact_claim_cannot_flip():
    crit = at_least("x", 1.0)
    out = compare_claims(claim(crit, x=1.0), claim(crit, x=0.99))
    assert not out.ok and not out.near_boundary


def test_timed_claims_compare_their_definition_only():
    def timed(x):
        led = Ledger("99_demo", "quick")
        led.check(
            "t",
            "fast",
            paper="2×",
            source="paper",
            measured={"ratio": x},
            criterion=at_most("ratio", 2.0),
            load_dependent=True,
        )
        return led.claims[0]

    assert compare_claims(timed(1.5), timed(3.5)).ok


def test_all_of_compares_every_part():
    crit = all_of(at_least("a", 0.0), within("b", 0.0, 1.0))
    ref = claim(crit, {"a": tol(abs=0.1)}, a=0.5, b=0.5)
    assert compare_claims(ref, claim(crit, {"a": tol(abs=0.1)}, a=0.55, b=0.5)).ok
    out = compare_claims(ref, claim(crit, {"a": tol(abs=0.1)}, a=0.5, b=0.51))
    assert "value 'b' = 0.51" in out.failures[0]


def test_added_dropped_and_reordered_claims_are_named():
    a, b, c = (claim(cid=i) for i in "abc")
    ref = Ledger("99_demo", "quick", claims=[a, b])
    assert compare_ledgers(ref, Ledger("99_demo", "quick", claims=[a, b])) == []
    (p,) = compare_ledgers(ref, Ledger("99_demo", "quick", claims=[a, b, c]))
    assert "['c'] are in this run but not in the reference" in p
    (p,) = compare_ledgers(ref, Ledger("99_demo", "quick", claims=[a]))
    assert "['b'] are in the reference but not in this run" in p
    (p,) = compare_ledgers(ref, Ledger("99_demo", "quick", claims=[b, a]))
    assert "order changed" in p

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from repbook.core.criteria import (
    CriterionError,
    all_of,
    any_of,
    at_least,
    at_most,
    custom,
    each_of,
    monotone,
    same_order,
    same_sign,
    within,
)


# --- comparisons: verdict, margin and text come from one object --------------------------------
@pytest.mark.parametrize(
    "x, passed, margin", [(0.5, True, 0.1), (0.4, True, 0.0), (0.39, False, -0.01)]
)
def test_at_least_boundary_is_inclusive(x, passed, margin):
    out = at_least("gap", 0.4).evaluate({"gap": x})
    assert out.passed is passed and out.margin == pytest.approx(margin)
    assert out.normalized == pytest.approx(margin / 0.4) and out.binding == "gap"


def test_strict_comparison_fails_at_the_boundary():
    assert not at_least("gain", 0, strict=True).evaluate({"gain": 0.0}).passed
    assert at_least("gain", 0, strict=True).evaluate({"gain": 1e-9}).passed
    assert at_most("d", 0).evaluate({"d": 0}).passed
    assert not at_most("d", 0, strict=True).evaluate({"d": 0}).passed
    assert at_least("gain", 0, strict=True).text() == "gain > 0"
    assert at_most("d", 0.5, strict=True).text() == "d < 0.5"


def test_at_most_margin_sign():
    out = at_most("ratio", 3).evaluate({"ratio": 1.5})
    assert out.passed and out.margin == 1.5 and out.normalized == 0.5
    out = at_most("ratio", 3).evaluate({"ratio": 4.5})
    assert not out.passed and out.margin == -1.5


def test_zero_bound_normalises_by_the_given_scale():
    assert at_least("g", 0).evaluate({"g": 0.3}).normalized == 0.3
    assert at_least("g", 0, scale=0.1).evaluate({"g": 0.3}).normalized == pytest.approx(
        3.0
    )


def test_bound_can_be_another_value_times_a_factor():
    c = at_most("questions (info)", "questions (random)", factor=0.9)
    assert c.text() == "questions (info) ≤ 0.9 × questions (random)"
    out = c.evaluate({"questions (info)": 6.0, "questions (random)": 10.0})
    assert out.passed and out.margin == pytest.approx(3.0)
    assert not c.evaluate({"questions (info)": 9.5, "questions (random)": 10.0}).passed
    assert at_least("a", "b").text() == "a ≥ b"
    with pytest.raises(CriterionError, match="factor applies"):
        at_least("a", 1.0, factor=2)
    with pytest.raises(CriterionError, match="compared with itself"):
        at_least("a", "a")


def test_within_is_closed_and_margin_is_distance_to_nearest_end():
    c = within("slope", -0.6, -0.4)
    assert c.text() == "slope in [-0.6, -0.4]"
    assert c.evaluate({"slope": -0.4}).passed
    out = c.evaluate({"slope": -0.399})  # chapter 04's claim 4: just outside
    assert not out.passed and out.margin == pytest.approx(-0.001)
    out = c.evaluate({"slope": -0.5})
    assert out.margin == pytest.approx(0.1) and out.normalized == pytest.approx(1.0)
    with pytest.raises(CriterionError, match="lo < hi"):
        within("x", 1, 1)


# --- each-of: several names, or one value per seed -----------------------------------------------
def test_each_element_of_a_sequence_must_hold_and_the_worst_decides():
    out = at_least("gap", 0.4).evaluate({"gap": [0.9, 0.45, 0.7]})
    assert out.passed and out.margin == pytest.approx(0.05) and out.binding == "gap[1]"
    out = at_least("gap", 0.4).evaluate({"gap": np.array([0.9, 0.35, 0.2])})
    assert (
        not out.passed and out.margin == pytest.approx(-0.2) and out.binding == "gap[2]"
    )


def test_mapping_values_keep_their_labels():
    out = within("slope", -1.2, -0.8).evaluate({"slope": {"MC": -0.99, "ln": -0.81}})
    assert (
        out.passed and out.binding == "slope[ln]" and out.margin == pytest.approx(0.01)
    )


def test_each_of_names():
    c = each_of(["MC slope", "ln slope"], within, -1.2, -0.8)
    assert c.text() == "each of MC slope, ln slope in [-1.2, -0.8]"
    out = c.evaluate({"MC slope": -1.0, "ln slope": -0.7})
    assert not out.passed and out.binding == "ln slope"
    assert at_least(["a", "b"], 1).text() == "each of a, b ≥ 1"


# --- rank, sign and monotone ------------------------------------------------------------------
def test_same_order_margin_is_the_closest_pair():
    c = same_order("estimate", "population")
    vals = {
        "estimate": {"a": 0.10, "b": 0.20, "c": 0.21},
        "population": {"a": 1, "b": 2, "c": 3},
    }
    out = c.evaluate(vals)
    assert out.passed and out.margin == pytest.approx(0.01) and "b" in out.binding
    vals["estimate"]["c"] = 0.19
    assert not c.evaluate(vals).passed
    # pairs whose reference values barely differ are not counted
    gapped = same_order("estimate", "population", min_gap=1.5)
    out = gapped.evaluate(
        vals
    )  # only a–c differs by > 1.5, and it is ordered; b–c is not counted
    assert out.passed and out.binding == "estimate[a] vs estimate[c]"
    vals2 = {"estimate": [0.1, 0.2, 0.19], "population": [1.0, 3.0, 3.1]}
    assert same_order("estimate", "population", min_gap=0.5).evaluate(vals2).passed
    with pytest.raises(CriterionError, match="nothing to rank"):
        same_order("estimate", "population", min_gap=10).evaluate(vals2)


def test_same_order_requires_matching_keys_and_lengths():
    with pytest.raises(CriterionError, match="same keys"):
        same_order("x", "r").evaluate({"x": {"a": 1, "b": 2}, "r": {"b": 1, "a": 2}})
    with pytest.raises(CriterionError, match="has 2 elements"):
        same_order("x", "r").evaluate({"x": [1, 2], "r": [1, 2, 3]})


def test_same_sign():
    c = same_sign("first-order", "exact")
    assert c.evaluate({"first-order": [-1, 2, -0.5], "exact": [-3, 1, -0.1]}).passed
    out = c.evaluate({"first-order": [-1, 2, 0.5], "exact": [-3, 1, -0.1]})
    assert not out.passed and out.binding == "first-order[2]" and out.margin == -0.5
    assert not c.evaluate(
        {"first-order": [1.0], "exact": [0.0]}
    ).passed  # no sign to agree with


def test_monotone():
    c = monotone("PTME", "decreasing")
    assert c.text() == "PTME strictly decreasing at every step"
    out = c.evaluate({"PTME": [3.0, 2.5, 2.4]})
    assert (
        out.passed
        and out.margin == pytest.approx(0.1)
        and out.binding == "PTME[1] → PTME[2]"
    )
    assert not c.evaluate({"PTME": [3.0, 3.0]}).passed
    assert (
        monotone("PTME", "decreasing", strict=False)
        .evaluate({"PTME": [3.0, 3.0]})
        .passed
    )
    with pytest.raises(CriterionError, match="at least two"):
        c.evaluate({"PTME": [1.0]})
    with pytest.raises(CriterionError, match="direction"):
        monotone("x", "up")


# --- all-of ------------------------------------------------------------------------------------
def test_all_of_takes_the_closest_part_and_joins_the_texts():
    c = all_of(at_least("gap", 0.4), at_most("p", 0.05))
    assert c.text() == "gap ≥ 0.4; p ≤ 0.05"
    out = c.evaluate({"gap": 0.8, "p": 0.04})  # normalised: 1.0 vs 0.2
    assert out.passed and out.binding == "p" and out.margin == pytest.approx(0.01)
    out = c.evaluate({"gap": 0.3, "p": 0.01})
    assert not out.passed and out.binding == "gap"
    assert c.names() == ["gap", "p"]


def test_all_of_reports_the_part_failing_by_most():
    c = all_of(at_least("a", 1), at_least("b", 1))
    out = c.evaluate({"a": 0.9, "b": 0.5})
    assert not out.passed and out.binding == "b"


# --- any-of ------------------------------------------------------------------------------------
def test_any_of_holds_when_one_part_holds_and_reports_the_best():
    c = any_of(at_least("trained", 0.05), at_least("masked", 0.5, strict=True))
    assert c.text() == "(trained ≥ 0.05) or (masked > 0.5)"
    assert c.names() == ["trained", "masked"]
    out = c.evaluate(
        {"trained": 0.0, "masked": 0.7}
    )  # a gate that must not hide a pass
    assert out.passed and out.binding == "masked" and out.margin == pytest.approx(0.2)
    out = c.evaluate({"trained": 0.01, "masked": 0.1})
    assert (
        not out.passed and out.binding == "trained"
    )  # closest to holding (normalised)
    assert out.margin == pytest.approx(-0.04)


def test_any_of_needs_two_criteria_and_nan_never_holds():
    with pytest.raises(CriterionError, match="two or more"):
        any_of(at_least("a", 1))
    with pytest.raises(CriterionError):
        any_of(at_least("a", 1), "b > 1")
    out = any_of(at_least("a", 1), at_least("b", 1)).evaluate(
        {"a": math.nan, "b": math.nan}
    )
    assert not out.passed


# --- NaN, missing and malformed values ---------------------------------------------------------
def test_nan_never_passes():
    for c in (
        at_least("x", 0),
        at_most("x", 1),
        within("x", 0, 1),
        monotone("x"),
        all_of(at_least("x", 0), at_most("x", 1)),
    ):
        vals = {
            "x": [0.5, math.nan] if isinstance(c, type(monotone("x"))) else math.nan
        }
        out = c.evaluate(vals)
        assert not out.passed and math.isnan(out.margin), c
    out = at_least("x", 0).evaluate({"x": [1.0, math.nan, 2.0]})
    assert not out.passed and out.binding == "x[1]"
    assert not at_least("x", "y").evaluate({"x": 1.0, "y": math.nan}).passed


def test_missing_value_is_a_clear_error():
    with pytest.raises(
        CriterionError, match=r"reads the value 'gap'.*measured values are: 'gaps'"
    ):
        at_least("gap", 0.4).evaluate({"gaps": 0.5})
    with pytest.raises(CriterionError, match="reads the value 'baseline'"):
        at_most("ours", "baseline").evaluate({"ours": 1.0})


@pytest.mark.parametrize("bad", ["≥ 3× at |V| ≥ 16k", None, object(), []])
def test_values_must_be_numbers(bad):
    with pytest.raises(CriterionError):
        at_least("x", 0).evaluate({"x": bad})


def test_malformed_criteria_are_rejected():
    with pytest.raises(CriterionError):
        at_least("", 1)
    with pytest.raises(CriterionError):
        at_least("x", math.inf)
    with pytest.raises(CriterionError):
        at_least("x", True)
    with pytest.raises(CriterionError):
        all_of()
    with pytest.raises(CriterionError, match="why"):
        custom("a test", lambda v: True, why=" ")


# --- the escape hatch --------------------------------------------------------------------------
def test_custom_with_bool_and_with_margin():
    c = custom(
        "Wilcoxon one-sided p < 0.05 on the paired runs",
        lambda v: v["p"] < 0.05,
        why="the test statistic needs the paired samples",
        reads=["p"],
    )
    out = c.evaluate({"p": 0.01})
    assert out.passed and math.isnan(out.margin)
    assert c.to_dict()["why"].startswith("the test")
    assert not c.evaluate({"p": math.nan}).passed
    m = custom("margin test", lambda v: v["a"] - 2, why="demo", reads=["a"])
    assert m.evaluate({"a": 3}).margin == 1 and not m.evaluate({"a": 1}).passed


def test_to_dict_carries_the_rendered_text_and_what_it_reads():
    d = all_of(at_least("gap", 0.4), within("slope", -1, 0)).to_dict()
    assert d["kind"] == "all of" and d["text"] == "gap ≥ 0.4; slope in [-1, 0]"
    assert d["reads"] == ["gap", "slope"] and len(d["parts"]) == 2


# --- properties --------------------------------------------------------------------------------
finite = st.floats(-1e6, 1e6, allow_nan=False)


@given(x=finite, b=finite)
def test_verdict_agrees_with_margin_sign(x, b):
    for c in (at_least("x", b), at_most("x", b)):
        out = c.evaluate({"x": x})
        assert out.passed == (out.margin >= 0)
        assert out.passed == (x >= b if c.symbol == "≥" else x <= b)


@given(xs=st.lists(finite, min_size=2, max_size=8))
def test_monotone_agrees_with_sorting(xs):
    assert monotone("x", strict=False).evaluate({"x": xs}).passed == (xs == sorted(xs))


def test_same_order_within_groups_compares_only_pairs_of_a_group():
    c = same_order("estimate", "population", within="model", min_gap=0.002)
    assert c.text() == (
        "estimate ranks every pair as population does, within each model "
        "(pairs more than 0.002 apart in population)"
    )
    est = {"LR: MSP": 0.10, "LR: margin": 0.12, "RF: MSP": 0.05, "RF: margin": 0.04}
    pop = {"LR: MSP": 0.11, "LR: margin": 0.13, "RF: MSP": 0.06, "RF: margin": 0.05}
    out = c.evaluate(
        {"estimate": est, "population": pop}
    )  # across groups RF < LR: not compared
    assert out.passed and out.margin == pytest.approx(0.01)
    est["LR: margin"] = 0.09
    assert not c.evaluate({"estimate": est, "population": pop}).passed
    with pytest.raises(CriterionError, match="must read '<model>: <item>'"):
        c.evaluate({"estimate": [1.0, 2.0], "population": [1.0, 2.0]})


def test_non_strict_monotone_reads_never_decreasing():
    assert monotone("norm", strict=False).text() == "norm never decreasing"
    assert (
        monotone("loss", "decreasing", strict=False).text() == "loss never increasing"
    )


def test_an_outcome_displays_nothing_in_a_notebook(capsys):
    out = at_least("x", 0).evaluate({"x": 1.0})
    assert out._ipython_display_() is None and capsys.readouterr().out == ""

import json
import math
from dataclasses import asdict

import numpy as np
import pytest
from repbook import layout
from repbook.core.criteria import CriterionError, all_of, at_least, at_most, within
from repbook.core.ledger import (
    LOAD_MARK,
    VERDICTS,
    Claim,
    Ledger,
    fmt,
    full_run_lines,
    read_record,
    sanitize,
    scoreboard_cells,
    scoreboard_details,
    totals_text,
    write_record,
)


@pytest.mark.parametrize(
    "value, text",
    [
        (0.123456, "0.123"),
        (123456.0, "1.23e+5"),
        (1.5e-15, "1.5e-15"),
        (0.0, "0"),
        (3, "3"),
        (np.float64(2.0 / 3), "0.667"),
        (np.int64(7), "7"),
        ("as is", "as is"),
        (True, "yes"),
        ([0.5, 1 / 3], "[0.5, 0.333]"),
        (np.array([1.0, 2.5]), "[1, 2.5]"),
        ({"a": 0.25}, "a=0.25"),
        (float("nan"), "nan"),
    ],
)
def test_fmt_rounds_to_three_significant_figures(value, text):
    assert fmt(value) == text


def test_fmt_rejects_unknown_types():
    with pytest.raises(TypeError, match="cannot format"):
        fmt(object())


def make_ledger():
    led = Ledger("99_demo", "quick", seed=0, device="cpu")
    led.check(
        1,
        "a | b",
        paper="x",
        source="paper",
        measured={"gap": 0.123456},
        criterion=at_least("gap", 0.1),
    )
    led.check(
        2,
        "two",
        paper="y",
        source="abstract",
        measured={"err": np.float64(2.0)},
        criterion=at_most("err", 1),
        note="why",
    )
    led.not_checked(
        3,
        "three",
        paper="z",
        source="paper",
        criterion=at_least("rho", 0.8),
        note="full scale",
    )
    led.quote(4, "four", paper="17.7×", source="abstract")
    return led


def test_verdicts_counts_and_summary(capsys):
    led = make_ledger()
    assert [c.verdict for c in led.claims] == [
        v for v in VERDICTS if v not in ("within noise", "blocked")
    ]
    assert led.counts() == {
        v: int(v not in ("within noise", "blocked")) for v in VERDICTS
    }
    assert led.summary() == (
        "99_demo: 1/2 of the paper's checked claims reproduced, 1 not checked at this scale, "
        "1 quoted (quick scale)"
    )
    assert (
        "claim 1: ✓ reproduced — gap = 0.123 (margin +0.0235)"
        in capsys.readouterr().out
    )


def test_a_blocked_claim_is_counted_and_shown_apart(capsys):
    led = make_ledger()
    led.not_checked(
        5,
        "five",
        paper="Ω(n)",
        source="abstract",
        criterion=at_least("slope", 0.9),
        note="needs the paper's construction",
        blocked=True,
    )
    claim = led.claims[-1]
    assert claim.verdict == "blocked" and not claim.checked
    assert claim.verdict_text() == (
        "⊘ not checked: blocked — needs the paper's construction"
    )
    assert "claim 5: ⊘ not checked: blocked" in capsys.readouterr().out
    assert led.summary().endswith("1 quoted, 1 blocked (quick scale)")
    assert led.short_summary() == "1/2 reproduced, 1 not checked, 1 blocked"
    assert scoreboard_cells(led)[1] == "1 (+1 blocked)"
    assert "1 blocked" in totals_text([led], 1)
    assert "⊘ blocked: no scale of ours" in led.markdown(stability=None)
    assert Claim.from_dict(json.loads(json.dumps(asdict(claim)))) == claim
    with pytest.raises(TypeError, match="blocked must be True or False"):
        led.not_checked(
            6, "six", paper="p", source="abstract",
            criterion=at_least("x", 1), note="n", blocked="yes",
        )  # fmt: skip


def test_the_criterion_decides_and_renders_its_own_text():
    led = Ledger("99_demo", "quick")
    out = led.check(
        "4",
        "rate",
        paper="√(ln n/n)",
        source="paper",
        measured={"slope": -0.399},
        criterion=within("slope", -0.6, -0.4),
    )
    c = led.claims[0]
    assert (
        not out.passed and c.verdict == "not reproduced"
    )  # the text and the test agree
    assert c.criterion_text == "slope in [-0.6, -0.4]"
    assert c.margin == pytest.approx(-0.001) and c.margin_text() == "-0.001"
    assert "| slope = -0.399 | slope in [-0.6, -0.4] | -0.001 |" in led.markdown()


def test_measured_values_are_stored_as_numbers_at_full_precision(tmp_path):
    led = Ledger("99_demo", "quick")
    led.check(
        1,
        "s",
        paper="p",
        source="paper",
        measured={
            "gap": np.array([0.5641234567891, 0.7]),
            "by model": {"lr": 0.25},
            "n": np.int64(7),
            "bad run": math.nan,
        },
        criterion=at_least("gap", 0.4),
    )
    data = json.loads(led.save(tmp_path / "l.json").read_text())
    claim = data["claims"][0]
    assert claim["measured"] == {
        "gap": [0.5641234567891, 0.7],
        "by model": {"lr": 0.25},
        "n": 7,
        "bad run": None,
    }
    assert claim["margin"] == pytest.approx(0.1641234567891)
    assert claim["criterion"]["text"] == "gap ≥ 0.4" and claim["criterion"][
        "reads"
    ] == ["gap"]
    assert claim["binding"] == "gap[0]"


def test_text_or_missing_values_are_rejected():
    led = Ledger("99_demo", "quick")
    with pytest.raises(CriterionError, match="the text"):
        led.check(
            1,
            "s",
            paper="p",
            source="paper",
            measured={"ratio": "≥ 3× at |V| ≥ 16k"},
            criterion=at_least("ratio", 3),
        )
    with pytest.raises(CriterionError, match="reads the value 'ratio'"):
        led.check(
            1,
            "s",
            paper="p",
            source="paper",
            measured={"speed-up": 4.0},
            criterion=at_least("ratio", 3),
        )
    with pytest.raises(TypeError, match="typed criterion"):
        led.check(
            1, "s", paper="p", source="paper", measured={"x": 1}, criterion="x > 0"
        )
    with pytest.raises(CriterionError, match="non-empty mapping"):
        led.check(
            1, "s", paper="p", source="paper", measured=0.5, criterion=at_least("x", 0)
        )
    assert not led.claims


def test_nan_measurement_is_not_reproduced_with_no_margin():
    led = Ledger("99_demo", "quick")
    led.check(
        1,
        "s",
        paper="p",
        source="paper",
        measured={"loss": math.nan},
        criterion=at_most("loss", 1.0),
    )
    c = led.claims[0]
    assert (
        c.verdict == "not reproduced" and c.margin is None and c.margin_text() == "n/a"
    )
    assert "loss = nan" in c.ours()


def test_duplicate_ids_bad_sources_and_empty_statements_are_rejected():
    led = make_ledger()
    with pytest.raises(ValueError, match="already in the ledger"):
        led.quote(1, "again", paper="", source="paper")
    with pytest.raises(ValueError, match="source must be one of"):
        led.quote(9, "s", paper="", source="a blog")
    with pytest.raises(ValueError, match="statement must not be empty"):
        led.quote(10, " ", paper="", source="paper")
    with pytest.raises(ValueError, match="what would check it"):
        led.not_checked(
            11, "s", paper="", source="paper", criterion=at_least("x", 1), note=""
        )


def test_markdown_escapes_pipes_shows_margins_and_is_stable():
    a, b = make_ledger().markdown(), make_ledger().markdown()
    assert a == b
    assert "a \\| b" in a and "| 1 |" in a and "✗ not reproduced — why" in a
    assert "| +0.0235 |" in a and "| -1 |" in a
    assert "x [paper]" in a and "17.7× [abstract]" in a


def test_compound_margin_names_the_deciding_value():
    led = Ledger("99_demo", "quick")
    led.check(
        1,
        "s",
        paper="p",
        source="paper",
        measured={"gap": [0.9, 0.45], "p": 0.01},
        criterion=all_of(at_least("gap", 0.4), at_most("p", 0.05)),
    )
    assert led.claims[0].margin_text() == "+0.05 (gap[1])"


def test_load_dependent_claims_are_marked_and_sanitised():
    def timed(ratio):
        led = Ledger("99_demo", "quick")
        led.check(
            1,
            "exact",
            paper="p",
            source="paper",
            measured={"diffs": 0},
            criterion=at_most("diffs", 0),
        )
        led.check(
            2,
            "fast",
            paper="p",
            source="paper",
            measured={"p50 ratio": ratio},
            criterion=at_most("p50 ratio", 3),
            load_dependent=True,
        )
        return led.markdown()

    fast, slow = timed(1.52), timed(3.4)  # the verdict flips on a busy machine
    assert (
        fast != slow
        and LOAD_MARK + " ✓ reproduced" in fast
        and LOAD_MARK + " ✗" in slow
    )
    assert sanitize(fast) == sanitize(slow)
    assert "p50 ratio = 1.52" not in sanitize(fast) and "exact" in sanitize(fast)
    assert (
        "1/1 of the paper's checked claims reproduced" in fast
        and f"timing claims: {LOAD_MARK} 1/1" in fast
    )


def test_sanitising_covers_the_whole_cell_even_with_escaped_pipes():
    def timed(ratio):
        led = Ledger("99_demo", "quick")
        led.check(
            1,
            "fast at large vocabularies",
            paper="p",
            source="paper",
            measured={"|V| ≥ 16k": ratio, "others": 2 * ratio},
            criterion=at_least("|V| ≥ 16k", 3),
            load_dependent=True,
        )
        return led.markdown()

    fast, slow = timed(4.5), timed(3.9)
    assert "\\|V\\|" in fast and fast != slow
    assert sanitize(fast) == sanitize(slow)
    clean = sanitize(fast)
    assert "4.5" not in clean and "fast at large vocabularies" in clean


def test_round_trip_through_json(tmp_path):
    led = make_ledger()
    path = led.save(tmp_path / "x.json")
    back = Ledger.load(path)
    assert back.to_dict() == led.to_dict() and back.markdown() == led.markdown()


def test_default_path_is_the_runners_choice(tmp_path, monkeypatch):
    monkeypatch.setenv(layout.LEDGER_ENV, str(layout.ledger_file(tmp_path / "run")))
    assert make_ledger().save() == layout.ledger_file(tmp_path / "run")
    assert make_ledger().output_dir() == tmp_path / "run"


def test_records_keep_provenance_and_round_trip(tmp_path):
    led = make_ledger()
    path = write_record(tmp_path / "r.json", led, {"commit": "abc", "seconds": 3.5})
    back, prov = read_record(path)
    assert back.to_dict() == led.to_dict() and prov["commit"] == "abc"


def test_scoreboard_parts_come_from_the_ledger():
    led = make_ledger()
    cells = scoreboard_cells(led)
    assert cells[:3] == ["1 / 2", "1", "1"] and cells[3].startswith("claim 1: +0.0235")
    details = scoreboard_details(led, None)
    assert (
        "| 1 | a \\| b | gap ≥ 0.1 | gap = 0.123 | +0.0235 | ✓ reproduced | not measured | — | — |"
        in details
    )
    assert totals_text([led, led], 2).startswith(
        "In all: 2 of 4 of the papers' checked claims reproduced"
    )


def test_unknown_fields_or_verdicts_in_a_record_are_errors():
    d = make_ledger().to_dict()
    d["claims"][0]["verdict"] = "sort of"
    with pytest.raises(ValueError, match="unknown verdict"):
        Ledger.from_dict(d)
    d = make_ledger().to_dict()
    d["claims"][0]["extra"] = 1
    with pytest.raises(ValueError, match="unknown claim field"):
        Ledger.from_dict(d)


def test_rounding_noise_is_shown_as_a_bound():
    led = Ledger("99_demo", "quick")
    led.check(
        1,
        "s",
        paper="p",
        source="paper",
        measured={"max diff": 2.78e-16, "zero": 0.0},
        criterion=at_most("max diff", 1e-12),
    )
    assert led.claims[0].ours() == "max diff < 1e-14; zero = 0"
    assert led.claims[0].measured["max diff"] == 2.78e-16


def test_show_limits_the_table_not_the_record():
    led = Ledger("99_demo", "quick")
    led.check(
        1,
        "s",
        paper="p",
        source="paper",
        measured={"a": 1.0, "detail": [1, 2, 3]},
        criterion=at_least("detail", 1),
        show=["a"],
    )
    assert led.claims[0].ours() == "a = 1" and led.claims[0].measured["detail"] == [
        1,
        2,
        3,
    ]
    with pytest.raises(CriterionError, match="not measured"):
        led.check(
            2,
            "s",
            paper="p",
            source="paper",
            measured={"a": 1.0},
            criterion=at_least("a", 0),
            show=["b"],
        )


def test_not_checked_may_show_what_a_stand_in_gave():
    led = Ledger("99_demo", "quick")
    led.not_checked(
        "1",
        "s",
        paper="p",
        source="paper",
        criterion=within("slope", 0.9, 1.1),
        note="needs the paper's construction",
        measured={"slope on ours": 0.989},
    )
    c = led.claims[0]
    assert c.ours() == "slope on ours = 0.989" and c.margin is None and not c.checked
    assert led.counts()["not checked at this scale"] == 1


def test_a_record_is_stale_when_the_claims_changed():
    from repbook.core.ledger import is_stale

    a, b = make_ledger(), make_ledger()
    assert not is_stale(a, b) and not is_stale(a, None)
    b.claims[0] = Claim(**{**b.claims[0].__dict__, "criterion": {"text": "gap ≥ 0.2"}})
    assert is_stale(a, b)
    c = make_ledger()
    c.quote(9, "new claim", paper="x", source="paper")
    assert is_stale(a, c)
    d = make_ledger()
    d.claims[1] = Claim(
        **{**d.claims[1].__dict__, "measured": {"err": 0.5}, "verdict": "reproduced"}
    )
    assert not is_stale(a, d)  # other values, same claims: current


def _seeded(gap):
    led = Ledger("99_demo", "quick")
    led.check(
        1,
        "gap",
        paper="p",
        source="paper",
        measured={"gap": gap},
        criterion=at_least("gap", 0.4),
    )
    led.check(
        2,
        "pair",
        paper="p",
        source="paper",
        measured={"a": 1.0, "b": 2.0},
        criterion=all_of(at_least("a", 0), at_least("b", 0)),
    )
    led.quote(3, "q", paper="x", source="abstract")
    return led


def test_stability_record_counts_flips_and_failures(tmp_path):
    from repbook.core.ledger import (
        FAILED,
        read_stability,
        stability_cells,
        stability_record,
        unstable_sentence,
        write_stability,
    )

    runs = [
        (0, _seeded(0.5), {"status": "ok", "seconds": 1.0}),
        (1, _seeded(0.35), {"status": "ok", "seconds": 1.2}),
        (2, None, {"status": "failed", "seconds": 0.3, "error": {"ename": "Boom"}}),
    ]
    rec = stability_record("99_demo", runs, {"commit": "abc"})
    c1, c2 = rec.claim("1"), rec.claim("2")
    assert c1.verdicts == {"0": "reproduced", "1": "not reproduced", "2": FAILED}
    assert c1.unstable and c2.unstable  # a failed seed is a different outcome
    assert c1.cell() == "unstable: ✓ 1/3, ✗ 1/3, 1/3 failed (value 0.35 to 0.5)"
    assert "margin" in c2.cell()
    back = read_stability(write_stability(tmp_path / "s.json", rec))
    assert back.to_dict() == rec.to_dict() and back.runs[2]["status"] == "failed"
    cells = stability_cells(_seeded(0.5), back)
    assert cells["1"].startswith("unstable") and cells["3"] == "—"
    assert (
        "claim 1 (✓ 1/3, ✗ 1/3, 1/3 failed (value 0.35 to 0.5))"
        in unstable_sentence(_seeded(0.5), back)
    )


def test_stable_claims_stale_records_and_no_record():
    from repbook.core.ledger import stability_cells, stability_record

    rec = stability_record(
        "99_demo", [(s, _seeded(0.5 + s / 10), {"status": "ok"}) for s in range(3)]
    )
    assert rec.claim("1").cell() == "✓ 3/3 (value 0.5 to 0.7)" and not rec.unstable()
    changed = _seeded(0.5)
    changed.claims[0] = Claim(
        **{**changed.claims[0].__dict__, "statement": "gap, restated"}
    )
    assert (
        rec.is_stale(changed) and stability_cells(changed, rec)["1"] == "stale record"
    )
    assert stability_cells(changed, None)["1"] == "not measured"
    table = _seeded(0.5).markdown(stability=rec)
    assert "| seeds |" in table and "✓ 3/3 (value 0.5 to 0.7)" in table
    assert "not measured" in _seeded(0.5).markdown(stability=None)


def test_reading_line_gives_verdict_margin_and_gate(capsys):
    led = Ledger("99_demo", scale="quick")
    led.check(
        "1", "x holds", paper="p", source="abstract",
        measured={"gap": 0.5, "trained": 1.0},
        gate=at_least("trained", 0.5), criterion=at_least("gap", 0.2),
    )  # fmt: skip
    led.check(
        "2", "z holds", paper="p", source="abstract",
        measured={"gap": 0.5, "trained": 0.1},
        gate=at_least("trained", 0.5), criterion=at_least("gap", 0.2),
    )  # fmt: skip
    led.ours(
        "3", "ours holds", why="a diagnostic", measured={"v": 1.0},
        criterion=at_most("v", 0.5),
    )  # fmt: skip
    capsys.readouterr()
    one, two, three = (c.reading_line() for c in led.claims)
    assert one == "1 (paper): reproduced, margin +0.3; gate met (margin +0.5)"
    assert two == "2 (paper): not checked at this scale; gate unmet (margin -0.4)"
    assert three == "3 (ours): does not hold, margin -0.5"


def _gap_ledger(scale: str, gap: float, statement: str = "x holds") -> Ledger:
    led = Ledger("99_demo", scale=scale, device="cpu")
    led.check(
        "1", statement, paper="p", source="abstract",
        measured={"gap": gap}, criterion=at_least("gap", 0.2),
    )  # fmt: skip
    return led


def test_full_run_lines_read_the_record_and_pair_its_verdicts(tmp_path, capsys):
    path = tmp_path / "99_demo.json"
    quick = _gap_ledger("quick", 0.1)
    assert full_run_lines(quick, path) == [
        "No full-scale record is committed yet (`repbook full 99` writes one)."
    ]
    prov = {"finished": "2026-12-04T05:00:00", "seconds": 1234.4}
    write_record(path, _gap_ledger("full", 0.5), prov)
    capsys.readouterr()
    assert full_run_lines(quick, path) == [
        "Full scale, recorded 2026-12-04 in 1234 s on cpu: 1 reproduced (margin +0.3).",
        "  claim 1: quick scale not reproduced; full scale reproduced",
    ]
    # paired and agreeing: said, not left to silence
    assert full_run_lines(_gap_ledger("quick", 0.4), path)[1:] == [
        "  every claim's verdict is the same at both scales"
    ]
    # a record without its time and date says so
    write_record(path, _gap_ledger("full", 0.5), {})
    assert full_run_lines(quick, path)[0].startswith(
        "Full scale, recorded on an unrecorded date in an unrecorded time on cpu"
    )
    write_record(path, _gap_ledger("full", 0.5), prov)
    # a record of other checks is named stale and not paired with this run's verdicts
    stale = full_run_lines(_gap_ledger("quick", 0.1, "y holds"), path)
    assert len(stale) == 1 and "(stale: the checks changed since)" in stale[0]
    assert full_run_lines(_gap_ledger("full", 0.5), path)[0].startswith(
        "This is a full-scale run"
    )


def test_reading_lines_are_generated_from_the_ledger_and_records(monkeypatch, tmp_path):
    from repbook.core.ledger import records, reading

    led = make_ledger()
    monkeypatch.setattr(records, "numerics_path", lambda ch: tmp_path / "none.json")
    monkeypatch.setattr(Ledger, "stability", lambda self: None)
    lines = reading.reading_lines(led)
    assert lines[0].startswith("1 (paper): reproduced, margin +0.0235")
    assert "No stability record" in lines[-1]
    (tmp_path / "n.json").write_text(
        json.dumps(
            {
                "chapter": led.chapter,
                "environments": ["avx2"],
                "claims": [
                    {"id": "1", "verdicts": {"reference": "reproduced", "avx2": "within noise"},
                     "margins": {"reference": 0.02, "avx2": -0.01}},
                    {"id": "2", "verdicts": {"reference": "reproduced", "avx2": "reproduced"}},
                ],
            }
        )
    )  # fmt: skip
    monkeypatch.setattr(records, "numerics_path", lambda ch: tmp_path / "n.json")
    lines = reading.reading_lines(led)
    assert lines[-1] == (
        "claim 1 under other kernels and thread counts (numerics record, seed 0): "
        "reference reproduced (+0.02), avx2 within noise (-0.01)"
    )


def test_a_claim_is_found_by_its_id():
    led = make_ledger()
    assert led.claim(1).id == "1" and led.claim("1") is led.claims[0]
    with pytest.raises(KeyError, match="no claim '9'.*it has: 1"):
        led.claim("9")


def test_a_full_record_pairs_with_the_quick_run_across_the_scales_sizes():
    from repbook.core.ledger import is_stale, is_stale_across_scales

    def led(n, statement="RMSE falls at the largest n"):
        out = Ledger("04_demo", "quick")
        out.check(
            "5", statement, paper="p", source="abstract",
            measured={f"RMSE({n})": 0.1}, criterion=at_most(f"RMSE({n})", 0.25),
        )  # fmt: skip
        return out

    quick, full = led(4096), led(16384)
    assert is_stale(full, quick)  # the criterion names the scale's n
    assert not is_stale_across_scales(full, quick)  # the same claim at another scale
    assert is_stale_across_scales(led(16384, "RMSE falls (JSON and Java)"), quick)
    assert not is_stale_across_scales(led(10, "at n = 10"), led(4096, "at n = 4,096"))
    # a statement that lists the scale's sizes pairs with one that names a single size
    assert not is_stale_across_scales(
        led(10, "at V = 256, 4096, RMC wins"), led(4, "at V = 256, RMC wins")
    )
    assert not is_stale_across_scales(
        led(10, "at n = 8 and 16 it falls"), led(4, "at n = 8 it falls")
    )

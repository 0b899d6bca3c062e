import json

import numpy as np
import pytest

from repbook.core.ledger import VERDICTS, Ledger, fmt


@pytest.mark.parametrize("value, text", [
    (0.123456, "0.123"), (123456.0, "1.23e+5"), (1.5e-15, "1.5e-15"), (0.0, "0"), (3, "3"),
    (np.float64(2.0 / 3), "0.667"), (np.int64(7), "7"), ("as is", "as is"), (True, "yes"),
    ([0.5, 1 / 3], "[0.5, 0.333]"), (np.array([1.0, 2.5]), "[1, 2.5]"), ({"a": 0.25}, "a=0.25"),
    (float("nan"), "nan"),
])
def test_fmt_rounds_to_three_significant_figures(value, text):
    assert fmt(value) == text


def test_fmt_rejects_unknown_types():
    with pytest.raises(TypeError, match="cannot format"):
        fmt(object())


def make_ledger():
    led = Ledger("99_demo", "quick", seed=0, device="cpu")
    led.check(1, "a | b", paper="x", measured=0.123456, criterion="≤ 1", passed=True)
    led.check(2, "two", paper="y", measured=2.0, criterion="≤ 1", passed=np.bool_(False), note="why")
    led.not_checked(3, "three", paper="z", criterion="needs a GPU", note="full scale")
    led.quote(4, "four", paper="17.7×")
    return led


def test_verdicts_counts_and_summary(capsys):
    led = make_ledger()
    assert [c.verdict for c in led.claims] == list(VERDICTS)
    assert led.counts() == {v: 1 for v in VERDICTS}
    assert led.summary() == ("99_demo: 1/2 checked claims reproduced, 1 not checked at this scale, "
                             "1 quoted (quick scale)")
    assert "claim 1: ✓ reproduced (ours: 0.123)" in capsys.readouterr().out


def test_markdown_escapes_pipes_and_is_stable():
    a, b = make_ledger().markdown(), make_ledger().markdown()
    assert a == b
    assert "a \\| b" in a and "| 1 |" in a and "✗ not reproduced — why" in a


def test_duplicate_ids_and_non_bool_passed_are_rejected():
    led = make_ledger()
    with pytest.raises(ValueError, match="already in the ledger"):
        led.check(1, "again", paper="", measured=1, criterion="c", passed=True)
    with pytest.raises(TypeError, match="passed must be a bool"):
        led.check(9, "s", paper="", measured=1, criterion="c", passed=1)
    with pytest.raises(ValueError, match="criterion must not be empty"):
        led.check(10, "s", paper="", measured=1, criterion=" ", passed=True)


def test_save_writes_json(tmp_path, monkeypatch):
    monkeypatch.setenv("REPBOOK_LEDGER_DIR", str(tmp_path))
    path = make_ledger().save()
    data = json.loads(path.read_text())
    assert path.name == "99_demo.json" and data["counts"]["reproduced"] == 1
    assert data["claims"][0]["measured"] == "0.123"

"""Readings of chapter 19's records (`vit_positional_ssl_records`): known answers on small
hand-made records, and agreement with the shipped records they read."""

import json

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from repbook.core import data_file
from repbook.papers import vit_positional_ssl_records as records

PROBE_KEYS = ["position R²", "masked-position R²", "count accuracy", "type accuracy"]


def run(label, seed, base, ap=0.1):
    numbers = {k: base + i / 10 for i, k in enumerate(PROBE_KEYS)}
    return {
        "label": label,
        "variant": label,
        "seed": seed,
        "step 0": {**numbers, "AP linear": ap, "chance AP linear": 0.001},
        "trained": {
            **{k: v + 0.05 for k, v in numbers.items()},
            "AP linear": ap + 0.02 * (seed + 1),
            "chance AP linear": 0.002,
        },
        "loss step 0": 2.0,
        "loss end": 0.5 + seed / 10,
        "loss end / step 0": 0.25 + seed / 20,
        "field change": 0.1,
        "field smoothness step 0": 0.9,
        "field smoothness": 0.8,
        "feature std end": 1.0,
        "seconds": 10.0 * (seed + 1),
    }


@pytest.fixture
def record():
    labels = ["B", "B+PE", "B+PE+PM"]
    return {
        "labels": labels,
        "seeds": [0, 1],
        "runs": [run(lab, s, 0.1 * j) for s in (0, 1) for j, lab in enumerate(labels)],
        "regime": {
            "steps": 100,
            "batch": 16,
            "field_lr": 1.0,
            "pos_mask_share": 0.5,
            "arch": {"dim": 48, "depth": 2},
        },  # fmt: skip
        "data": {"size": 48},
        "machine": "x86_64, 2 threads",
        "seconds": 95.0,
    }


def test_run_table_means_over_seeds(record):
    table = records.run_table(record)
    assert list(table.columns) == record["labels"]
    assert table.loc["position R² · step 0", "B+PE"] == pytest.approx(0.1)
    assert table.loc["AP linear · trained", "B"] == pytest.approx(0.1 + 0.03)
    assert table.loc["loss end / step 0", "B"] == pytest.approx(0.275)
    lines = records.field_lines(table)
    assert lines[0].startswith("B        position R² 0.050 (step 0 0.000)")
    record["runs"] = [r for r in record["runs"] if r["label"] != "B+PE"]
    with pytest.raises(ValueError, match="no runs labelled 'B\\+PE'"):
        records.run_table(record)


def test_regime_and_seconds(record):
    regime = records.recorded_regime(record)
    assert regime.startswith("recorded CPU run (study_record.json): synthetic 48×48")
    assert (
        "content:position 50:50; 100 steps × 16 images per variant; seeds 0, 1"
        in regime
    )
    assert records.seconds_line(record) == (
        "6 pre-trainings of 15 s on average, 95 s in all"
    )


def test_gate_table_and_line():
    values = {
        "loss end / step 0 · B": [0.3, 0.6],
        "content probe rise · B": [0.1, 0.01],
        "loss end / step 0 · B+PE": [0.2, 0.2],
        "content probe rise · B+PE": [0.2, 0.3],
        "pre-training AP gain of B · linear": [0.01, 0.02],
    }
    table = records.gate_table(values, {"B": False, "B+PE": True})
    assert table["trained (gate a and b)"].tolist() == ["unmet", "met"]
    assert table.iloc[0, 1] == "0.30, 0.60" and table.iloc[0, 2] == "+0.100, +0.010"
    line = records.gate_line(values, ["B", "B+PE"])
    assert "0.20–0.60 of its step-0 value, at most 0.5 on 3 of 4 runs" in line
    assert "at least 0.05 on 3 of 4 runs" in line
    assert line.endswith("+0.010, +0.020 (below 0.05 on every seed)")
    del values["pre-training AP gain of B · linear"]
    assert records.gate_line(values, ["B"]).endswith("on 1 of 2 runs")


def test_ap_per_seed_and_lines(record):
    assert records.ap_per_seed(record, "B", "trained", "linear") == pytest.approx(
        [0.12, 0.14]
    )
    with pytest.raises(ValueError, match="stage must be one of"):
        records.ap_per_seed(record, "B", "end", "linear")
    values = {
        "AP gain (B+PE+PM − B) · linear": [0.01, 0.03],
        "pre-training AP gain of B · linear": [0.02, 0.04],
    }
    text = records.ap_lines(record, values, ["B", "B+PE", "B+PE+PM"], "linear")
    t = stats.t.ppf(0.975, 1)
    half = t * np.std([0.01, 0.03], ddof=1) / np.sqrt(2)
    assert f"B+PE+PM − B: mean +0.020 ± {half:.3f} (± t·SE, t = {t:.2f})" in text
    assert text.splitlines()[-1] == "  chance AP of B's features: 0.0020, 0.0020"


def test_scan_pilot_and_audit():
    scan = "\n".join(
        json.dumps(
            dict(
                lr=lr,
                v="B+PE",
                field=0.1,
                smooth=0.9,
                untrained=dict(pos=0.4, masked=0.0, ap_c0=0.05, ap_c1=0.1),
                trained=dict(pos=0.5, masked=0.1, ap_c0=0.06 * lr, ap_c1=0.2 * lr),
            )
        )  # fmt: skip
        for lr in (1, 10)
    )
    table = records.scan_table(scan + "\n\n")
    assert table["field lr"].tolist() == ["×1", "×10"]
    assert table.loc[1, "AP c1"] == "0.100 → 2.000"
    pilot = {"runs": [run("B+PE+PM 50:50", 0, 0.1), run("B+PE+PM 0:100", 0, 0.1)]}
    values = {
        "content probe rise · B+PE+PM 50:50": [0.01],
        "content probe rise · B+PE+PM 0:100": [0.2],
    }
    met = {"B+PE+PM 50:50": False, "B+PE+PM 0:100": True}
    ptable = records.pilot_table(pilot, values, met)
    assert ptable.loc["B+PE+PM 0:100", "trained gate"] == "met"
    assert ptable.loc["B+PE+PM 50:50", "AP linear trained"] == pytest.approx(0.12)
    assert records.share_rule(ptable) == (1.0, False, True)
    ptable.loc["B+PE+PM 50:50", "trained gate"] = "met"
    assert records.share_rule(ptable) == (0.5, True, True)
    old = {"ap": {"B": [0.25, 0.5, 0.75]}, "untrained_ap": {"B": [0.25, 0.25, 0.25]}}
    text = records.audit_lines(old, scan)
    half = stats.t.ppf(0.975, 2) * 0.25 / np.sqrt(3)
    assert f"mean +0.250 ± {half:.3f} (t = 4.30)" in text
    assert "3×3 AP 0.100 at step 0 → 0.200–2.000 trained" in text


def test_full_scale_line(record):
    full = dict(batch=64, size=96, train_seeds=3, ablations=[1, 2], steps=3000)
    line = records.full_scale_line(record, full, 3)
    assert "0.150 s per pre-training step" in line  # mean 15 s over 100 steps
    assert "at least 16× that, so 33,000 steps" in line


def test_field_colours_span_the_unit_interval():
    field = torch.randn(6, 8, 8, generator=torch.Generator().manual_seed(0))
    rgb = records.field_colours(field)
    img = rgb(field)
    assert img.shape == (8, 8, 3)
    assert np.allclose(img.min(axis=(0, 1)), 0) and np.allclose(img.max(axis=(0, 1)), 1)


def test_the_shipped_records_read():
    study = json.loads(
        data_file("19_vit_positional_ssl", "study_record.json").read_text()
    )
    table = records.run_table(study)
    assert list(table.columns) == ["B", "B+PE", "B+PE+PM"]
    assert "AP linear · trained" in table.index
    assert records.recorded_regime(study).endswith(study["machine"])
    text = data_file("19_vit_positional_ssl", "regime_scan.jsonl").read_text()
    assert len(records.scan_table(text)) == len(records.scan_rows(text)) > 0
    assert isinstance(records.run_table(study), pd.DataFrame)

"""The chapter's protocols and readings of `online_conformal` (claims 1–4, check 6 and the
stability record): known answers, agreement with the plain computations they replace, and bad
inputs."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from repbook.papers import online_conformal

TRACKERS = {"SQT": 0, "LQT(1)": 1}
JUDGED = ["regime switches", "adversary"]
CPS = [100, 1000, 3000]


@pytest.fixture(scope="module")
def claim1():
    return online_conformal.bounded_coverage(
        3000, np.random.default_rng(0), trackers=TRACKERS, checkpoints=CPS,
        judged=JUDGED, alpha=0.1, lr=0.05, bound=1.0, n_cal=100, seeds=[0, 1], seed=0,
        rng_for=lambda sd: np.random.default_rng([sd, 1]), path_at=np.arange(0, 3000, 500),
        rounds=np.array([10, 100, 2999]),
    )  # fmt: skip


def test_bounded_coverage_reads_the_runs(claim1):
    runs, v = claim1.runs, claim1.values
    again = online_conformal.bounded_stream_runs(
        3000, np.random.default_rng(0), alpha=0.1, lr=0.05, ps=[0, 1], n_cal=100,
        path_at=np.arange(0, 3000, 500),
    )  # fmt: skip
    np.testing.assert_array_equal(runs["adversary", 1].q, again["adversary", 1].q)
    assert claim1.per_seed[0]["LQT(1)"] is runs["regime switches", 1]  # reused
    other = online_conformal.bounded_stream_runs(
        3000, np.random.default_rng([1, 1]), alpha=0.1, lr=0.05, ps=[0, 1],
        streams=["regime switches"], path_at=np.arange(0, 3000, 500),
    )  # fmt: skip
    np.testing.assert_array_equal(
        claim1.per_seed[1]["SQT"].q, other["regime switches", 0].q
    )
    tr = runs["adversary", 1]
    assert v.dev_at[1000]["adversary, LQT(1)"] == abs(tr.miscoverage(1000) - 0.1)
    assert v.bias_move["adversary, LQT(1)"] == 0.05 * abs(tr.E[2999])
    assert v.growth_a["seed 1, SQT"] == claim1.per_seed[1]["SQT"].growth(100, 1000)
    assert v.growth_b["sawtooth, LQT(1)"] == runs["sawtooth", 1].growth(1000, 3000)
    assert set(v.sqt_C) == {f"{s} @{T:,}" for s in online_conformal.BOUNDED_STREAMS
                            for T in CPS}  # fmt: skip
    assert v.split_q == {s: float(runs[s, "split"].q[0]) for s in JUDGED}
    assert v.max_theta >= float(np.linalg.norm(runs["regime switches", 1].theta[-1]))
    # the adversary answers a constant below the bound with the bound: 1 − α or α off
    assert claim1.best_const["adversary"] == pytest.approx(0.1)
    with pytest.raises(ValueError, match="checkpoints must hold 3 rounds"):
        online_conformal.claim1_values(runs, claim1.per_seed, TRACKERS, CPS[:2], JUDGED,
                                       alpha=0.1)  # fmt: skip


def test_claim1_tables_curves_and_lines(claim1):
    table = claim1.table
    assert list(table.method[:3]) == ["SQT", "LQT(1)", "split conformal (100)"]
    assert len(table) == 3 * len(online_conformal.BOUNDED_STREAMS)
    assert list(claim1.seed_table.index) == [0, 1]
    assert "SQT: C(1,000)/C(100)" in claim1.seed_table.columns
    x, y = claim1.curves["adversary"]["SQT"]
    E = claim1.runs["adversary", 0].E
    np.testing.assert_array_equal(y, np.abs(E[x - 1]) / x + 1e-7)
    x, _ = claim1.curves["adversary"]["split"]
    assert x[0] == 10 + 100  # after the calibration rounds
    text = online_conformal.table_text(pd.DataFrame({"a": [1 / 3]}))
    assert "0.3333" in text and "0.33333" not in text
    line = online_conformal.claim1_reading(
        claim1.values, "reproduced", bar=0.01, lr=0.05, bound=1.0,
        best_const=claim1.best_const,
    )  # fmt: skip
    assert line.startswith("Claim 1 (reproduced): after 3,000 rounds")
    assert "Diagnostic 1d" in line and line.endswith(".")
    old = online_conformal.old_bar_line(claim1.values, bar=0.01, lr=0.05)
    assert (
        "the old bar 0.01" in old and "fails at 2." in old
    )  # 0.01 · 0.05 · 3000 = 1.5


def test_regime_switch_seeds_needs_a_generator_maker(claim1):
    with pytest.raises(TypeError, match="rng_for must be"):
        online_conformal.regime_switch_seeds(
            claim1.runs, [0, 1], seed=0, T=3000, trackers=TRACKERS, rng_for=None,
            alpha=0.1, lr=0.05,
        )  # fmt: skip


# -- claim 2 ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ar2():
    coef = [0.3, -0.3]
    Y = np.stack(
        [
            online_conformal.ar_series(coef, 2000, np.random.default_rng(k))
            for k in (1, 2)
        ]
    )
    runs = {
        "LQT": online_conformal.lqt(Y, alpha=0.1, p=2, lr=1.0, schedule="decaying"),
        "fixed": online_conformal.lqt(Y, alpha=0.1, p=2, lr=0.01),
        "SQT": online_conformal.sqt(Y, alpha=0.1, lr=1.0, schedule="decaying"),
    }
    theta_star = np.array([-0.3, 0.3, stats.norm.ppf(0.9)])
    study = online_conformal.conditional_study(
        Y, runs, coef, theta_star, lqt="LQT", sqt="SQT", alpha=0.1,
        early=slice(200, 400), late=slice(1000, 2000), window=100,
    )  # fmt: skip
    return Y, runs, coef, theta_star, study


def test_conditional_study(ar2):
    Y, runs, coef, theta_star, study = ar2
    cc = study.cond_cov["LQT"]
    np.testing.assert_array_equal(
        cc[1], online_conformal.ar_conditional_coverage(Y[1], runs["LQT"].q[1], coef)
    )
    s = study.summary
    assert list(s.index) == ["LQT", "fixed", "SQT"]
    assert np.isnan(s.loc["SQT", "final ‖θ − θ*‖ (max over seeds)"])
    gap = np.mean(np.abs(cc[:, 1000:2000] - 0.9))
    assert s.loc["LQT", "conditional gap (mean)"] == gap
    v = study.values
    assert v.gap_lqt == gap and v.gap_sqt == s.loc["SQT", "conditional gap (mean)"]
    drop = np.abs(cc - 0.9)[:, 200:400].mean(1) - np.abs(cc - 0.9)[:, 1000:].mean(1)
    np.testing.assert_array_equal(v.drop, drop)
    assert v.cov_dev == max(
        abs(s["marginal coverage min"] - 0.9).max(),
        abs(s["marginal coverage max"] - 0.9).max(),
    )
    t, roll = study.rolling["LQT"]
    assert t[0] == 100 + 2 and roll.size == t.size
    line = online_conformal.conditional_reading(
        s, v.drop, t=12.7, lqt="LQT", sqt="SQT", fixed="fixed"
    )
    assert f"{gap:.4f} for decaying LQT" in line
    with pytest.raises(ValueError, match="must be \\(seeds, T\\)"):
        online_conformal.conditional_coverages(Y[0], runs["LQT"].q[0], coef)


# -- claim 3 ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sweep():
    return online_conformal.ar1_dependence_sweep(
        [0.0, 0.9], T=800, rngs=[np.random.default_rng(k) for k in range(3)], alpha=0.1,
        lrs=[0.1, 1.0], biases=[1.0], ps=[0, 1],
    )  # fmt: skip


def test_steps_tables_and_measured(sweep):
    red_loss = {b: sweep.reduction(b, "pinball") for b in online_conformal.BASELINES}
    steps = online_conformal.named_steps(red_loss, [0.0, 0.9])
    assert list(steps["ACI"]) == ["φ=0.0→0.9 vs ACI"]
    np.testing.assert_array_equal(
        steps["ACI"]["φ=0.0→0.9 vs ACI"], red_loss["ACI"][:, 1] - red_loss["ACI"][:, 0]
    )
    analytic = online_conformal.ar1_set_size_reduction([0.0, 0.9])
    tables = online_conformal.sweep_tables(
        sweep, online_conformal.BASELINES, steps, analytic, t=4.3
    )
    assert len(tables) == 5 and list(tables.values())[3].index.tolist() == ["0.0 → 0.9"]
    measured = online_conformal.sweep_measured(sweep, steps, online_conformal.BASELINES)
    assert list(measured)[:3] == [f"mean loss reduction vs {b}"
                                  for b in online_conformal.BASELINES]  # fmt: skip
    assert (
        measured["mean loss reduction vs SQT"]["φ=0.9"] == red_loss["SQT"][:, 1].mean()
    )
    oracle = online_conformal.oracle_measured(sweep, analytic)
    mean = sweep.reduction("oracle constant").mean(axis=0)
    assert oracle["max |mean reduction − analytic|"] == np.abs(mean - analytic).max()
    reading = online_conformal.sweep_reading(
        sweep, steps, analytic, t=4.3, binding="φ=0.0→0.9 vs SQT", margin=0.1
    )
    assert len(reading.split("\n")) == 4
    assert "the step the ledger binds on, φ=0.0→0.9 vs SQT" in reading
    assert "t_0.975,2 = 4.30" in online_conformal.old_gain_line(sweep, t=4.3)
    assert sweep.seconds > 0


def test_ar1_length_line():
    runs = [{"seconds": 50.0}, {"seconds": 60.0}, {"seconds": None}]
    line = online_conformal.ar1_length_line(runs, 30.0)
    assert "took 50.0–60.0 s" in line and "at least 80 s, over the 75 s bar." in line
    assert "below the 75 s bar" in online_conformal.ar1_length_line(runs, 10.0)
    assert online_conformal.ar1_length_line([], 10.0) == ""


# -- claim 4 ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def real():
    rng = np.random.default_rng(5)
    series = {
        "dependent": (np.abs(online_conformal.ar_series([0.8], 1200, rng)), 0.25),
        "noise": (np.abs(rng.standard_normal(1200)), 0.25),
    }
    fine = np.logspace(-2, 0, 3)
    res, lags = online_conformal.compare_series(
        series, alpha=0.1, hac_lags=5, fine_lrs=fine
    )
    return series, res, lags


def test_compare_series_and_its_readings(real):
    series, res, lags = real
    direct = online_conformal.series_comparison(
        series["noise"][0], val_frac=0.25, alpha=0.1, hac_lags=5
    )
    np.testing.assert_array_equal(res["noise"].q["LQT"], direct.q["LQT"])
    assert lags["noise"].baselines == ["SQT"]
    table = online_conformal.series_table(res, lags)
    assert len(table) == 2 * (1 + 3 + 1)
    reading = online_conformal.dependence_reading(res)
    r = res["noise"]
    assert reading.p_two["noise"] == 2 * stats.norm.sf(abs(r.hac[r.best_baseline].t))
    assert reading.read["noise"] in (0.0, reading.gain["noise"])
    v = online_conformal.claim4_values(res, lags, alpha=0.1)
    el = res["dependent"]
    assert v.loss_ratio == el.loss["LQT"] / el.loss[el.best_baseline]
    assert v.best == el.best_baseline and v.settings == el.settings["LQT"]
    assert set(v.base_cov) == {f"{k}, {m}" for k in res for m in res[k].baselines}
    assert "settings" not in online_conformal.lags_only_summary(lags)["noise"]
    overview = online_conformal.series_overview(series, res, lags, reading, hac_lags=5)
    assert overview.startswith("{'dependent': '1200 scores', 'noise': '1200 scores'} ;")
    assert "HAC lags: 5 on every series" in overview
    assert "of 2 series" in online_conformal.same_lags_line(res, lags)
    assert "Claim 4c under the default HAC lags" in online_conformal.default_lags_line(
        res, reading, hac_lags=5, alpha=0.1
    )
    assert (
        online_conformal.series_reading(res, lags, reading, alpha=0.1).count("\n") == 1
    )


def test_default_hac_lags_and_rounded_ratio():
    assert online_conformal.default_hac_lags(100) == 4
    assert online_conformal.default_hac_lags(10_000) == int(
        np.floor(4 * 100 ** (2 / 9))
    )
    ratio, lo, hi = online_conformal.rounded_ratio_interval(0.005, 0.011, 5e-4)
    assert ratio == 0.005 / 0.011
    assert (lo, hi) == pytest.approx((0.0045 / 0.0115, 0.0055 / 0.0105))


# -- check 6 and the stability record ----------------------------------------------------------
def test_peer_cases_and_agreement():
    pytest.importorskip("conformalopt")
    y = online_conformal.ar_series([0.3, -0.3], 300, np.random.default_rng(1))
    tuned = dict(p=1, lr=0.1, bias=1.0)
    cases = online_conformal.peer_cases(y[:200], np.abs(y[:200]), y[100:], tuned)
    assert [c[0].split(",")[0] for c in cases] == [
        "AR(2)",
        "AR(2)",
        "AR(2)",
        "regime switches",
        "electricity test part (normalised)",
    ]
    table = online_conformal.peer_agreement(cases, alpha=0.1, rows=[("first", 1, 0.0)])
    assert list(table.columns) == online_conformal.PEER_COLUMNS
    assert table.iloc[0, 0] == "first" and (table["max |Δq|"] < 1e-8).all()
    run = online_conformal.timed_peer(y, alpha=0.1, p=2, lr=0.01)
    assert run.max_dq < 1e-8 and run.seconds_ours > 0
    assert run.timing_line(300).startswith("300 rounds of LQT(2): ours ")


def test_margin_lines_read_the_record():
    verdicts = {"0": "reproduced", "1": "reproduced", "2": "reproduced"}
    entry = SimpleNamespace(margins={"0": 0.2, "1": 0.1, "2": 0.3}, verdicts=verdicts)
    line = online_conformal.margin_range_line("2", entry, binding="x", margin=0.2)
    assert "claim 2 is reproduced on every seed" in line
    assert "+0.10000 (seed 1) to +0.30000 (seed 2)" in line and "is +0.20000." in line
    entry.verdicts["2"] = "within noise"
    line = online_conformal.margin_range_line("2", entry, binding="x", margin=0)
    assert "verdicts differ" in line
    assert "missing or stale" in online_conformal.margin_range_line(
        "2", None, binding="x", margin=0
    )
    claims = [SimpleNamespace(id=i) for i in ("1", "1d", "4a")]
    margins = {"1": {0: 0.1, 1: 0.2}, "1d": {0: 0.5, 1: 0.5}, "4a": {0: 0.3, 1: 0.3}}
    record = SimpleNamespace(
        seeds=[0, 1], current=lambda c: SimpleNamespace(margins=margins[c.id])
    )
    lines = online_conformal.same_margin_lines(record, claims, pooled=["1d"])
    assert lines[0].startswith("Claim(s) 4a give the same margin")
    assert lines[1].startswith("Check(s) 1d give the same margin")
    assert online_conformal.same_margin_lines(None, claims) == []

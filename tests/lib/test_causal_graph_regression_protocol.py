"""The chapter's protocol (`causal_graph_regression.protocol` and the search report):
every seed, the shortcut sweep, seed 0's view, the readings and the size table."""

import types

import numpy as np
import pandas as pd
import pytest

from repbook.core import all_of, at_least
from repbook.papers import causal_graph_regression

SIZES = dict(n_train=24, n_val=8, n_test=12)
FIT = dict(hidden=4, layers=1, epochs=2, batch=8, select_after=0)


def splits_of(r, shortcut=0.9):
    rng = np.random.default_rng([5, 100 + r])
    return causal_graph_regression.make_splits(rng, shortcut=shortcut, **SIZES)


METHODS = {
    "ERM": causal_graph_regression.Method("erm", causal_graph_regression.erm_loss),
    "CGR": causal_graph_regression.Method("cgr", causal_graph_regression.CGRLoss()),
}


def test_seed_streams_known_answers():
    assert causal_graph_regression.seed_streams(0, 3) == dict(
        model_seed=3, batch_seed=3
    )
    assert causal_graph_regression.seed_streams(2, 1) == dict(
        model_seed=2001, batch_seed=2_000_007
    )
    with pytest.raises(ValueError, match="seed must be an int ≥ 0, got -1"):
        causal_graph_regression.seed_streams(-1, 0)


def test_train_seeds_is_train_methods_per_replicate():
    first = splits_of(0)
    rows, models = causal_graph_regression.train_seeds(
        splits_of, METHODS, first=first, seeds=2, seed=2, **FIT
    )
    assert [(r["method"], r["seed"]) for r in rows] == [
        ("ERM", 0),
        ("CGR", 0),
        ("ERM", 1),
        ("CGR", 1),
    ]
    assert list(models) == ["ERM", "CGR"]
    for r in (0, 1):
        streams = causal_graph_regression.seed_streams(2, r)
        want, _ = causal_graph_regression.train_methods(
            splits_of(r), METHODS, **streams, **FIT
        )
        got = [row for row in rows if row["seed"] == r]
        assert [dict(g, seed=None) for g in got] == [dict(w, seed=None) for w in want]
    # `first` stands in for splits_for(0), which is then not called
    calls = []

    def counted(r):
        calls.append(r)
        return splits_of(r)

    again, _ = causal_graph_regression.train_seeds(
        counted, METHODS, first=first, seeds=2, seed=2, **FIT
    )
    assert calls == [1] and again == rows
    with pytest.raises(ValueError, match="seeds must be a positive int, got 0"):
        causal_graph_regression.train_seeds(splits_of, METHODS, seeds=0, seed=0, **FIT)
    with pytest.raises(TypeError, match="splits_for must be a function"):
        causal_graph_regression.train_seeds(None, METHODS, seeds=1, seed=0, **FIT)


def test_shortcut_sweep_rows_and_streams():
    def rng_for(k):
        return np.random.default_rng([3, k])

    rows = causal_graph_regression.shortcut_sweep(
        [0.5, 0.95], 1, {"ERM": METHODS["ERM"]}, rng_for=rng_for, seed=3, **SIZES, **FIT
    )
    assert [(r["shortcut"], r["seed"], r["method"]) for r in rows] == [
        (0.5, 0, "ERM"),
        (0.95, 0, "ERM"),
    ]
    sp = causal_graph_regression.make_splits(
        rng_for(10_000), shortcut=0.95, ood_shortcut=0.9, **SIZES
    )
    streams = causal_graph_regression.seed_streams(3, 0)
    (want,), _ = causal_graph_regression.train_methods(
        sp, {"ERM": METHODS["ERM"]}, **streams, **FIT
    )
    assert rows[1] == dict(want, seed=0, shortcut=0.95)
    assert (
        causal_graph_regression.shortcut_sweep(
            [], 2, METHODS, rng_for=rng_for, seed=0, **SIZES, **FIT
        )
        == []
    )


def test_seed_view_matches_predict_and_attention():
    graphs = splits_of(0)["OOD test"]
    _, models = causal_graph_regression.train_seeds(
        splits_of, METHODS, seeds=1, seed=0, **FIT
    )
    view = causal_graph_regression.seed_view(
        models, graphs, names=["ERM", "CGR"], attention_of="CGR"
    )
    data = causal_graph_regression.GraphSet(graphs).full()
    np.testing.assert_array_equal(view.y, data.y.numpy())
    for name in ("ERM", "CGR"):
        np.testing.assert_array_equal(
            view.predictions[name],
            causal_graph_regression.predict(models[name], data).numpy(),
        )
    assert [int(g.base_type) for g in view.examples] == [0, 1, 2]
    for t, g in enumerate(view.examples):
        first = next(h for h in graphs if int(h.base_type) == t)
        assert g is first
        att = causal_graph_regression.node_attention(
            models["CGR"], causal_graph_regression.GraphSet([g]).full()
        )
        np.testing.assert_array_equal(view.attention[t], att.numpy())
        assert view.attention[t].shape == (g.x.size(0),)
    assert list(view.base_type) == [int(g.base_type) for g in graphs]
    with pytest.raises(ValueError, match="no model 'GIN'"):
        causal_graph_regression.seed_view(
            models, graphs, names=["GIN"], attention_of="CGR"
        )
    trees = [g for g in graphs if int(g.base_type) == 0]
    with pytest.raises(ValueError, match="no graph with a base of type"):
        causal_graph_regression.seed_view(
            models, trees, names=["ERM"], attention_of="CGR"
        )


def test_tail_errors_known_answer():
    y = np.array([1.0, 1.5, 2.5, 3.5, 4.0])
    pred = np.array([1.5, 2.5, 2.0, 3.0, 3.0])
    tails = causal_graph_regression.tail_errors(pred, y)
    assert list(tails) == ["y < 2", "y > 3"]
    assert tails["y < 2"] == pytest.approx(0.75) and tails["y > 3"] == pytest.approx(
        -0.75
    )
    with pytest.raises(ValueError, match="same length"):
        causal_graph_regression.tail_errors(pred[:2], y)


def test_peer_agreement_is_tiny():
    graphs = splits_of(0)["OOD test"]
    gap = causal_graph_regression.peer_agreement(graphs, hidden=8, layers=2)
    assert 0 <= gap < 1e-4
    with pytest.raises(ValueError, match="graphs is empty"):
        causal_graph_regression.peer_agreement([], hidden=8, layers=2)


def fake_claim(cid, gate, measured):
    outcome = gate.evaluate(measured)
    reads = sorted(gate.names())
    return types.SimpleNamespace(
        id=cid,
        measured=measured,
        gate={"passed": outcome.passed, "criterion": {"reads": reads}},
    )


def test_gate_part_lines_name_the_failing_part():
    shortcut = at_least("ERM OOD", "ERM IID", factor=1.4)
    mask = at_least("sep", 0.05)
    parts = {
        "the shortcut gate": (shortcut, "a stronger shortcut"),
        "the mask": (mask, "a mask"),
    }
    both = all_of(shortcut, mask)
    measured = {"ERM OOD": 2.0, "ERM IID": 1.0, "sep": 0.01}
    claims = [
        fake_claim("2", both, measured),
        fake_claim("3", mask, measured),
        fake_claim("4", shortcut, measured),  # met: no line
    ]
    lines = causal_graph_regression.gate_part_lines(claims, parts)
    assert lines == [
        "claim 2: the shortcut gate met (ERM OOD = 2.000, ERM IID = 1.000)",
        "claim 2: the mask unmet (sep = 0.010); what would check it: a mask",
        "claim 3: the mask unmet (sep = 0.010); what would check it: a mask",
    ]
    ok = [fake_claim("4", shortcut, measured)]
    assert causal_graph_regression.gate_part_lines(ok, parts) == [
        "every gated claim met its gate"
    ]


def test_describe_sizes():
    z = dict(n_train=10_000, n_val=1_000, n_test=2_000, hidden=300, layers=3)
    z |= dict(epochs=100, batch=128, seeds=10, ablations=True, sweep=[0.5, 0.7])
    z |= dict(sweep_seeds=3)
    assert causal_graph_regression.describe_sizes("full", z) == (
        "full scale: 10,000 training graphs, 1,000 OOD-validation and 2,000 + 2,000 "
        "test graphs, hidden width 300, 3 GIN layers, 100 epochs, batch 128, 10 seeds "
        "× 7 models (with the ablation models); shortcut sweep: 2 strengths × 3 seeds "
        "× ERM and CGR"
    )
    quick = dict(z, ablations=False, sweep=[], n_train=600)
    text = causal_graph_regression.describe_sizes("quick", quick)
    assert "3 models (without the ablation models); no shortcut sweep" in text


def test_split_table_counts_every_graph():
    sp = splits_of(0)
    table = causal_graph_regression.split_table(sp)
    assert table.to_numpy().sum() == sum(len(v) for v in sp.values())
    assert set(table.columns) <= set(causal_graph_regression.BASE_TYPES)
    for name, graphs in sp.items():
        assert table.loc[name].to_numpy().sum() == len(graphs)
    with pytest.raises(ValueError, match="splits is empty"):
        causal_graph_regression.split_table({})


def search_record(gaps, gate=0.05):
    rows = [
        {"setup": name, "seed": r, "a_o cycle − base": g, "OOD": 1.0 + g, "IID": 0.5}
        for name, per_seed in gaps.items()
        for r, g in zip((0, 1), per_seed)
    ]
    return dict(
        gate=gate, params=dict(seeds=[0, 1]), setups=dict.fromkeys(gaps), rows=rows
    )


def test_search_report_reads_the_record():
    report = causal_graph_regression.search_report(
        search_record({"a": [0.01, 0.02], "b": [0.06, 0.01], "c": [0.0, -0.01]})
    )
    assert list(report.table.index) == ["a", "b", "c"]
    assert list(report.table.columns) == [
        "gap, seed 0",
        "gap, seed 1",
        "mean_gap",
        "meets_gate",
        "OOD",
        "IID",
    ]
    assert report.passing == []
    assert report.text == (
        "no set-up met the gate on every seed; the largest mean gap was +0.035 (b), "
        "and 1 of 3 set-ups met it on at least one seed"
    )
    passing = causal_graph_regression.search_report(
        search_record({"a": [0.06, 0.07], "b": [0.1, 0.2]})
    )
    assert passing.passing == ["a", "b"]
    assert passing.text == "set-ups that met the gate on every seed: a, b"


def test_the_committed_search_record_reads(tmp_path):
    record = causal_graph_regression.read_mechanism_search()
    assert set(record["setups"]) == set(causal_graph_regression.MECHANISM_SETUPS)
    report = causal_graph_regression.search_report(record)
    assert len(report.table) == len(record["setups"])
    path = tmp_path / "search.json"
    path.write_text('{"rows": []}')
    assert causal_graph_regression.read_mechanism_search(path) == {"rows": []}


def test_paper_table1():
    table = causal_graph_regression.paper_table1()
    assert isinstance(table, pd.DataFrame) and table.shape == (4, 6)
    # the paper: CGR's OOD MAE below ERM's on every GOOD-ZINC split
    assert (table["CGR OOD"] < table["ERM OOD"]).all()
    assert table["CGR OOD"].sum() == pytest.approx(0.3628)


def rows_frame():
    rows = []
    for seed in (1, 0):  # out of order: the tables sort by seed
        for name, ood in (("A", 1.0), ("B", 2.0), ("C", 4.0), ("D", 8.0)):
            rows.append(
                dict(method=name, seed=seed, epoch=10 + seed, IID=0.5, OOD=ood + seed)
            )
    return pd.DataFrame(rows)


def test_mae_tables_follow_the_order():
    res = rows_frame()
    tables = causal_graph_regression.mae_tables(res, ["B", "A"])
    assert list(tables.per_seed.index) == ["B", "A"]
    assert tables.per_seed.loc["A", ("OOD", 1)] == 2.0
    assert tables.summary.loc["B", ("OOD", "mean")] == pytest.approx(2.5)
    assert tables.epochs == {"B": [11, 10], "A": [11, 10]}
    with pytest.raises(ValueError, match=r"no rows of the methods \['Z'\]"):
        causal_graph_regression.mae_tables(res, ["A", "Z"])


def test_ablation_measures_known_answer():
    res = rows_frame()
    by = {m: res[res.method == m].sort_values("seed") for m in "ABCD"}
    got = causal_graph_regression.ablation_measures(
        by, full="A", ignored="B", no_mix="C", variance="D"
    )
    assert got["4a"] == {
        "ignored − GIB OOD MAE, per seed": [1.0, 1.0],
        "GIB OOD MAE": 1.5,
        "confounder-ignored OOD MAE": 2.5,
        "variance-penalty OOD MAE (context)": 8.5,
    }
    assert got["4b"] == {
        "without L_mix − CGR OOD MAE, per seed": [3.0, 3.0],
        "without L_mix OOD MAE": 4.5,
        "CGR OOD MAE": 1.5,
    }
    with pytest.raises(ValueError, match="by has no rows of 'E'"):
        causal_graph_regression.ablation_measures(
            by, full="A", ignored="E", no_mix="C", variance="D"
        )

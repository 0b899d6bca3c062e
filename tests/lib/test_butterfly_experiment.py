"""The chapter's runs and readings (butterfly.experiment, .basins, .claims, .readings) on a tiny
recipe: the same streams give the same runs, the protocols equal their building blocks, and the
readings give known answers."""

import math
import types

import numpy as np
import pandas as pd
import pytest
import torch

from repbook.papers import butterfly

SIZES = dict(model="mlp", width=32, n_train=64, epochs=2, batch=16, lr=0.05, warmup=0.0)
SIZES |= dict(momentum=0.9, t_fracs=[0, 0.5], trace_every=2)


def rng_for(k):
    return torch.Generator().manual_seed(3 * 1_000_003 + k)


@pytest.fixture(scope="module")
def tiny():
    g = np.random.default_rng(0)
    X = g.random((96, 784)).astype(np.float32)
    y = g.integers(0, 10, 96)
    s = butterfly.make_setting(SIZES, X, y, rng_for=rng_for)
    b = butterfly.base_runs(s, n_orders=2, n_independent=2)
    names = s.weight_names
    perts = {"ulp": butterfly.Perturbation("ulp", tuple(names[1:]))}
    perts["g"] = butterfly.Perturbation("gaussian", tuple(names), sigma=1e-2)
    grid = butterfly.perturbation_grid(s, b, perts, reps_t0=3, reps=1)
    return types.SimpleNamespace(s=s, b=b, perts=perts, grid=grid)


def test_setting(tiny):
    s = tiny.s
    assert s.T == 2 * (64 // 16) == len(s.lrs)
    assert s.t_steps == [0, 4] and s.trace == [0, 2, 4, 6, 8]
    assert len(s.Xtr) == 64 and len(s.Xte) == 32
    assert s.init_scale == pytest.approx(
        math.sqrt(
            sum(s.stds[k] ** 2 * p.numel() for k, p in s.model.named_parameters())
        )
    )
    torch.testing.assert_close(s.init(1), s.init(1))
    assert torch.equal(s.make_order(1), s.make_order(1))
    assert torch.equal(s.make_order(0), s.order)
    with pytest.raises(ValueError, match="sizes\\['model'\\] must be one of"):
        butterfly.make_setting(
            dict(SIZES, model="vit"), np.zeros((4, 784)), [0] * 4, rng_for=rng_for
        )
    assert "MLPs on 64 real MNIST digits" in butterfly.regime(
        dict(SIZES, claim1_draws=5, reps_t0=3)
    )


def test_base_runs(tiny):
    s, b = tiny.s, tiny.b
    assert b.control_l2 == 0.0 and b.travel[0] == 0.0
    assert b.orders.finals[0] is b.theta_T and b.independent.finals[0] is b.theta_T
    again = s.fit(butterfly.TrainState.start(s.init(1)), batches=s.make_order(1))
    assert butterfly.l2_distance(again.final.params, b.orders.finals[1]) == 0.0
    assert b.order_l2.shape == (1,) and b.indep_l2[0] > 0
    assert 0 <= b.train_error <= 1 and b.test_loss > 0
    with pytest.raises(ValueError, match="n_orders must be an int ≥ 2, got 1"):
        butterfly.base_runs(s, n_orders=1, n_independent=2)


def test_grid_is_spawn_copy_per_stream(tiny):
    s, b, grid = tiny.s, tiny.b, tiny.grid
    runs = grid.runs
    assert len(runs) == 2 * (3 + 1) and list(runs.columns)[-1] == "eff_sigma"
    assert set(grid.curves) == {(k, r) for k in tiny.perts for r in range(3)}
    assert grid.followed["ulp"] == butterfly.typical_draws(
        list(runs[(runs.kind == "ulp") & (runs.t == 0)].l2), 1
    )
    c = butterfly.spawn_copy(
        b.runner,
        b.base.saved[4],
        tiny.perts["g"],
        s.stds,
        b.theta_T,
        s.order,
        generator=rng_for(butterfly.draw_stream(1, grid.followed["g"][0])),
    )
    row = runs[(runs.kind == "g") & (runs.t == 4)].iloc[0]
    assert row.l2 == c.l2 and row.eps == c.eps
    assert all(grid.where[("ulp", r)] is not None for r in range(3))
    assert grid.where[("g", 0)] is None
    assert butterfly.draw_stream(2, 3) == 10_203


def test_more_draws_keeps_what_it_has(tiny):
    s, b, runs = tiny.s, tiny.b, tiny.grid.runs
    have = runs[(runs.kind == "g") & (runs.t == 0)]
    kinds = {"g": (1, tiny.perts["g"])}
    d = butterfly.more_draws(s, b, kinds, draws=4, have=have)
    assert list(d.rep) == [0, 1, 2, 3] and list(d.l2[:3]) == list(
        have.sort_values("rep").l2
    )
    c1 = butterfly.claim1_draws(s, b, kinds, draws=4, have=have, noise=2.0)
    np.testing.assert_allclose(c1.draws.ratio, c1.draws.l2 / 2.0)
    assert c1.reach80["g"] == butterfly.reached_by(c1.draws.ratio)


def test_reached_by():
    assert butterfly.reached_by([0.5, 0.1, 0.3, 0.2, 0.4]) == 0.2  # 4 of 5 reach 0.2
    assert butterfly.reached_by([3.0, 1.0], share=1.0) == 1.0
    with pytest.raises(ValueError, match="non-empty"):
        butterfly.reached_by([])


def test_follow_draws_and_claim2(tiny):
    s, b, grid = tiny.s, tiny.b, tiny.grid
    at0 = grid.runs[(grid.runs.kind == "ulp") & (grid.runs.t == 0)].assign(where=None)
    at0 = at0.assign(kind="copy")
    followed, rows = butterfly.follow_draws(
        s, b, "copy", 0, tiny.perts["ulp"], at0, reps=1
    )
    assert followed == grid.followed["ulp"] and list(rows.t) == [0, 0, 0, 4]
    ulp4 = grid.runs[(grid.runs.kind == "ulp") & (grid.runs.t == 4)]
    assert rows.l2.iloc[-1] == ulp4.l2.iloc[0]  # the same stream: the same copy
    c2 = butterfly.claim2_copies(
        s,
        b,
        grid,
        "copy",
        0,
        tiny.perts["ulp"],
        at0,
        reps=1,
        kinds=["ulp", "copy"],
        t10=4,
    )
    assert c2.same_weight and c2.followed["copy"] == followed
    assert c2.tables.rho_of(["ulp"]) == {"ulp": c2.tables.rho["ulp"]}


def test_time_tables_known_answers():
    rows = []
    for kind, l2s in (("a", [4.0, 3.0, 1.0]), ("b", [2.0, 2.5, 0.5])):
        for t, l2 in zip((0, 1, 2), l2s):
            rows.append(dict(kind=kind, t=t, rep=0, eps=0.5, l2=l2))
    rows.append(dict(kind="a", t=0, rep=1, eps=0.5, l2=10.0))  # a draw not followed
    tt = butterfly.time_tables(
        pd.DataFrame(rows), {"a": [0], "b": [0]}, ["a", "b"], [0, 1, 2], 1
    )
    assert tt.excess.loc["a"].tolist() == [3.5, 2.5, 0.5]
    assert tt.rho["a"] == -1.0 and tt.rho["b"] == pytest.approx(-0.5)
    assert tt.excess_ratio["a"] == pytest.approx(2.5 / 3.5)
    assert tt.l2_ratio["b"] == pytest.approx(1.25)
    assert tt.rises == {"a": [], "b": [(0, 1, 0.5)]}
    assert tt.spread0["a"] == pytest.approx(6.0) and tt.eps["a"] == 0.5
    lines = butterfly.time_lines(tt, ["a", "b"], [0, 1, 2], 1)
    assert "b: swap t = 0 → 1 (rise 0.5), beyond the t = 0 draw spread 0" in lines
    assert "a: no swap, the excess falls at every step" in lines


@pytest.fixture(scope="module")
def measured(tiny):
    bar = butterfly.barrier_on(tiny.s, n_barrier=32, n_alpha=3)
    bars = butterfly.grid_barriers(tiny.b, tiny.grid, bar)
    return types.SimpleNamespace(bar=bar, bars=bars)


def test_grid_barriers(tiny, measured):
    bars = measured.bars
    assert {"loss_barrier", "error_barrier"} <= set(bars.runs.columns)
    assert len(bars.runs) == len(tiny.grid.runs) and len(bars.orders) == 1
    o = tiny.b.orders
    assert bars.order_lb[0] == measured.bar(o.finals[0], o.finals[1]).loss_barrier
    assert measured.bar(tiny.b.theta_T, tiny.b.theta_T).loss_barrier == 0.0
    table = bars.median_table(["g", "ulp"], [0, 4])
    assert list(table.index) == ["g", "ulp"] and list(table.columns) == [0, 4]
    assert bars.share == pytest.approx(bars.order_lb.mean() / bars.indep_lb.mean())


def test_alignment_and_claim4(tiny, measured):
    al = butterfly.alignment(
        tiny.s,
        tiny.b,
        tiny.grid,
        measured.bars,
        measured.bar,
        kinds=["ulp", "g"],
        reps_t0=3,
        orders_label="noise",
        indep_label="indep",
    )
    t = al.table
    assert list(t.kind) == ["ulp"] * 3 + ["g"] * 3 + ["noise", "indep"]
    assert (
        al.n_layers == 3 and t[t.kind == "noise"]["aligned L² / noise"].iloc[0] == 1.0
    )
    np.testing.assert_allclose(t["kept by alignment"], t.l2_aligned / t.l2)
    c4 = butterfly.claim4a_inputs(
        t,
        None,
        None,
        None,
        kinds=["ulp", "g"],
        indep_label="indep",
        floor=1e-9,
        one_weight=["ulp"],
    )
    assert len(c4.pairs) == 6 and c4.line.startswith("4a at no judged recipe:")
    m = butterfly.claim4a_measured(c4, gate_key="gate", gate_value=0.5)
    assert list(m)[:3] == [
        butterfly.KEPT_4A,
        "draws read (barrier ≥ 0.01)",
        butterfly.INDEP_4A,
    ]
    assert m["gate"] == 0.5 and m[butterfly.NONID_4A] == 6 - c4.n_identity
    m4b = butterfly.claim4b_measured(t, kinds=["ulp", "g"], one_weight=["ulp"])
    assert list(m4b) == [
        "CKA ratio − L² ratio",
        "angular-CKA ratio (median draw)",
        "aligned-L² ratio (median draw)",
    ]
    peers = butterfly.peer_checks(
        tiny.s, al.comparisons, skip="noise", every="indep", n_inputs=16, seed=0
    )
    assert list(peers.kind) == ["ulp", "g", "indep"]
    assert peers.cka_max_abs_diff.max() < 1e-6


def test_scan_and_judged_copies(tiny):
    s = tiny.s
    recipes = butterfly.scan_recipes_for(width=32, lr=0.05)
    assert [r.name for r in recipes] == [
        "no warm-up",
        "lr 0.15, no warm-up (ours)",
        "deep & narrow, no warm-up",
    ]
    scan = butterfly.scan_recipes(
        s, recipes[:1], save_at=[0, 4], n_barrier=32, n_alpha=3
    )
    again = butterfly.scan_recipes(
        s, recipes[:1], save_at=[0, 4], n_barrier=32, n_alpha=3
    )
    assert scan[0].noise_barrier == again[0].noise_barrier  # fresh generators each time
    table = butterfly.scan_table((0.1, 1.0, 0.3), scan, gate_share=0.1)
    assert list(table.index) == ["chapter recipe", "no warm-up"]
    assert table["meets gate"].iloc[0] and table["share"].iloc[0] == pytest.approx(0.1)
    jc = butterfly.judged_copies(
        s,
        scan[0],
        {"one": (1e-2, 1), "g": (1e-4, None)},
        reps_t0=2,
        t_half=4,
        n_barrier=32,
        n_alpha=3,
    )
    assert list(jc.runs.t) == [0, 0, 4, 0, 0, 4] and jc.kinds == ["one", "g"]
    assert {"barrier_aligned", "identity"} <= set(jc.runs.columns)
    assert "l2_aligned" in jc.independent


def test_judged_recipe_and_notes():
    table = pd.DataFrame(
        {
            "share": [0.05, 0.2, 0.3],
            "meets gate": [False, True, True],
            "train loss": [0.1] * 3,
        },
        index=["chapter recipe", "a", "b"],
    )
    j = butterfly.judged_recipe(table)
    assert (j.index, j.name, j.gate_value) == (1, "a", 0.2)
    none = butterfly.judged_recipe(table.assign(**{"meets gate": False}))
    assert none.index is None and none.gate_value == 0.3
    assert butterfly.claim3_note(None, 0.3).startswith("no recipe tried")
    assert butterfly.claim3_note("a", 0.2) == (
        "judged at a: training-noise barrier 20.0% of the independent-init barrier"
    )
    pairs = pd.DataFrame(dict(kind=["x", "x"], identity=[True, True]))
    c4 = butterfly.Claim4aInputs(pairs, {}, {"x": 1}, 2, [1.0], "")
    assert "already aligned" in butterfly.claim4a_note("a", c4)
    assert butterfly.claim4a_note(None, c4).startswith("no barrier to survive")
    c4 = butterfly.Claim4aInputs(pairs, {}, {"x": 1}, 1, [1.0], "")
    assert butterfly.claim4a_note("a", c4) == "judged at a; 1 draws read"


def test_per_kind_and_kept():
    df = pd.DataFrame(
        dict(
            kind=["u", "u", "u", "g", "g"],
            v=[1.0, 5.0, 3.0, 2.0, 4.0],
            barrier=[0.02, 0.001, 0.04, 0.05, 0.1],
            barrier_aligned=[0.01, 0.001, 0.04, 0.05, 0.02],
        )
    )
    assert butterfly.per_kind(df, "v", min, one_weight=["u"]) == {"u": 3.0, "g": 2.0}
    kept, read = butterfly.kept_by_alignment(df, floor=0.01, one_weight=["u"])
    assert read == {"u": 2, "g": 2} and kept == pytest.approx({"u": 0.75, "g": 0.2})
    m = butterfly.claim3_measured(
        df, {"u": 0.0}, column="v", independent=1.0, noise=0.5, one_weight=["u"]
    )
    assert m == {
        "barrier at t = 0": {"u": 3.0, "g": 2.0},
        "independent-init barrier": 1.0,
        "barrier at t = T/2, σ ≤ 1e-2": {"u": 0.0},
        "training-noise barrier": 0.5,
    }


def test_planned_steps():
    z = dict(epochs=2, n_train=64, batch=16, t_fracs=[0, 0.5], sigmas=[1e-4])
    z |= dict(n_orders=2, n_independent=2, reps_t0=3, reps=1, claim1_draws=5)
    T, steps = butterfly.planned_steps(z)
    # reference runs 4·8, grid 2·(3·8 + 4), one weight 5·8 + 4, Gaussian extra 2·8
    assert (T, steps) == (8, 32 + 56 + 44 + 16)
    assert butterfly.full_scale_line(z, step_seconds=1.0).startswith(
        "full scale: T = 8 steps a run, 148 optimiser steps in all"
    )


def test_readings_known_answers():
    assert butterfly.listed([1, 2.5], ".1f") == "1.0, 2.5"
    assert butterfly.keyed({"a": 0.5}, ".0%") == "a: 50%"
    draws = pd.DataFrame(dict(kind=["k", "k"], eps=[1e-3, 3e-3], ratio=[0.1, 0.3]))
    assert butterfly.draw_lines(draws, {"k": 0.1}) == [
        "k: ‖ε‖ = 2.00e-03 (median); final L² / training noise = 0.100, 0.300; "
        "reached by 80 % of draws: 0.100"
    ]
    m3 = {
        "barrier at t = 0": {"k": 0.02},
        "independent-init barrier": 0.1,
        "training-noise barrier": 0.04,
        "barrier at t = T/2, σ ≤ 1e-2": {"k": 0.0},
    }
    (line,) = butterfly.diagnostic_lines(m3)
    assert line.endswith(
        "(the old 10 % bar): k: 20.0%; as a multiple of the training-noise barrier: k: 0.500"
    )
    table = pd.DataFrame(
        {
            "share": [0.05, 0.2, 0.3],
            "meets gate": [False, True, True],
            "train loss": [0.1] * 3,
        },
        index=["chapter recipe", "a", "b"],
    )
    j0 = pd.DataFrame(dict(identity=[True, False]))
    text = butterfly.judged_paragraph(m3, table, 1, j0, gate_value=0.2, width=1000)
    assert text.startswith("Claims 3 and 4a are judged at the recipe 'a'")
    assert "identity for 1 of the 2 perturbed pairs" in text
    assert "The recipe 'b' also meets the gate (share 30.0%" in text
    assert (
        max(
            len(x)
            for x in butterfly.judged_paragraph(
                m3, table, 1, j0, gate_value=0.2
            ).splitlines()
        )
        <= 88
    )

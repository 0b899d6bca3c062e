"""The chapter's protocol (`fewshot_synthetic.protocol`): the grid, paired gains, the tables."""

import numpy as np
import pytest
import torch

from repbook.papers import fewshot_synthetic


# --- the released configurations and the chapter's protocol -----------------------------------
def test_released_configurations_known_answers():
    # configs/clip_vit_caltech.json and configs/clip_resnet.json of the lightweight code
    assert fewshot_synthetic.CONFIGS["clip_vit_caltech"] == fewshot_synthetic.Method(
        4, 1, 0.1, 1
    )
    assert fewshot_synthetic.CONFIGS["clip_resnet"] == fewshot_synthetic.Method(
        1, 1, 0.05, 1
    )


@pytest.fixture(scope="module")
def digits():
    from sklearn.datasets import load_digits

    d = load_digits()
    return d.data, d.target


def small_seed(digits, seed=0, fonts=False):
    X, y = digits
    return fewshot_synthetic.prepare_seed(
        X, y, pool=700, shots=[1, 5], n_syn=6, gaps=[0.0, 1.0],
        rng=np.random.default_rng(seed), fonts=fonts,
    )  # fmt: skip


def test_prepare_seed_shapes_normalisation_and_determinism(digits):
    X, y = digits
    d = small_seed(digits)
    assert list(d.synthetic) == ["gap 0.0", "gap 1.0"]
    assert d.x_real[5].shape == (50, 64) and d.y_real[1].shape == (10,)
    assert d.synthetic["gap 1.0"][0].shape == (60, 64)
    assert d.x_test.shape == (len(d.split.test), 64) and d.x_oracle.shape == (700, 64)
    # normalised by the pool's pixel statistics: the oracle (the pool) has mean 0, sd 1
    assert float(d.x_oracle.mean()) == pytest.approx(0, abs=1e-5)
    assert float(d.x_oracle.std(unbiased=False)) == pytest.approx(1, rel=1e-4)
    torch.testing.assert_close(d.y_oracle, torch.as_tensor(y[d.split.pool]))
    # gap 0 leaves the generator's images as drawn; the raw copy is on the 0–16 scale
    pool01 = X[d.split.pool] / 16
    back = d.synthetic["gap 0.0"][0].double() * pool01.std() + pool01.mean()
    np.testing.assert_allclose(back.numpy() * 16, d.raw["gap 0.0"][0], atol=1e-4)
    again = small_seed(digits)
    torch.testing.assert_close(again.synthetic["gap 1.0"][0], d.synthetic["gap 1.0"][0])
    assert again.init == d.init and small_seed(digits, 1).init != d.init
    with_fonts = small_seed(digits, fonts=True)
    assert list(with_fonts.synthetic)[-1] == "fonts"
    # fonts are drawn after the gaps: the gap images do not change
    torch.testing.assert_close(
        with_fonts.synthetic["gap 1.0"][0], d.synthetic["gap 1.0"][0]
    )


def test_prepare_seed_bad_inputs(digits):
    X, y = digits
    with pytest.raises(ValueError, match="gaps must list at least one gap"):
        fewshot_synthetic.prepare_seed(X, y, pool=700, shots=[5], n_syn=2, gaps=[],
                       rng=np.random.default_rng(0))  # fmt: skip
    with pytest.raises(ValueError, match="n_syn must be a positive int, got 0"):
        fewshot_synthetic.prepare_seed(X, y, pool=700, shots=[5], n_syn=0, gaps=[0.0],
                       rng=np.random.default_rng(0))  # fmt: skip


def rng_for(stream):
    return torch.Generator().manual_seed(17 * int(stream) + 3)


VARIANTS = {
    fewshot_synthetic.NAIVE: fewshot_synthetic.Method(1, 1, 0, 0),
    "full": fewshot_synthetic.CONFIGS["clip_vit_caltech"],
    "lam1": fewshot_synthetic.Method(1, 1, 1, 1),
}


@pytest.fixture(scope="module")
def grid(digits):
    data = [small_seed(digits, s) for s in (0, 1)]
    rows, ing = fewshot_synthetic.run_grid(
        data, VARIANTS, epochs=3, K=4, rng_for=rng_for,
        only_on={"lam1": ["gap 1.0"]}, kmeans_variants=["full"],
    )  # fmt: skip
    return data, rows, ing


def test_run_grid_rows_and_ingredients(grid):
    data, rows, ing = grid
    gens, shots = ["gap 0.0", "gap 1.0"], [1, 5]
    key = {(r["seed"], r["k"], r["generator"], r["method"]) for r in rows}
    assert len(key) == len(rows)  # one row per (seed, k, generator, method)
    per_cell = {
        fewshot_synthetic.REAL_ONLY,
        fewshot_synthetic.SYN_ONLY,
        fewshot_synthetic.ORACLE,
        fewshot_synthetic.NAIVE,
        "full",
    }
    per_cell |= {"full (k-means on S ∪ G)"}
    for s in (0, 1):
        for k in shots:
            for g in gens:
                got = {m for (s2, k2, g2, m) in key if (s2, k2, g2) == (s, k, g)}
                assert got == per_cell | ({"lam1"} if g == "gap 1.0" else set())
    # real only, the oracle and synthetic only do not depend on the rest: one model each
    acc = {(r["seed"], r["k"], r["generator"], r["method"]): r["acc"] for r in rows}
    for m in (fewshot_synthetic.REAL_ONLY, fewshot_synthetic.ORACLE):
        assert acc[(0, 5, "gap 0.0", m)] == acc[(0, 5, "gap 1.0", m)]
    assert (
        acc[(1, 1, "gap 1.0", fewshot_synthetic.SYN_ONLY)]
        == acc[(1, 5, "gap 1.0", fewshot_synthetic.SYN_ONLY)]
    )
    # the bound's ingredients after every naive run, its error = 1 − accuracy
    assert len(ing) == 2 * len(shots) * len(gens)
    for row in ing:
        a = acc[(row["seed"], row["k"], row["generator"], fewshot_synthetic.NAIVE)]
        assert row["error"] == pytest.approx(1 - a) and row["discrepancy"] >= 0
    assert max(row["discrepancy"] for row in ing) > 0


def test_run_grid_matches_a_single_fit(grid):
    data, rows, _ = grid
    d = data[1]
    net = fewshot_synthetic.fit(
        VARIANTS["full"], d.x_real[5], d.y_real[5], *d.synthetic["gap 1.0"],
        init=d.init, epochs=3, K=4, generator=rng_for(fewshot_synthetic.cell_stream(1, 5, 1)),
    )  # fmt: skip
    want = fewshot_synthetic.accuracy(net, d.x_test, d.y_test)
    got = [
        r["acc"]
        for r in rows
        if (r["seed"], r["k"], r["generator"], r["method"]) == (1, 5, "gap 1.0", "full")
    ]
    assert got == [want]


def test_paired_gains_and_mean_over_cells():
    rows = [
        dict(seed=s, k=5, generator=g, method=m, acc=a)
        for s, g, m, a in [
            (0, "a", "x", 0.9), (0, "a", "y", 0.8), (1, "a", "x", 0.7), (1, "a", "y", 0.75),
            (0, "b", "x", 0.5), (0, "b", "y", 0.5), (1, "b", "x", 0.6), (1, "b", "y", 0.4),
        ]
    ]  # fmt: skip
    gains = fewshot_synthetic.paired_gains(rows, "x", "y", [("a", 5), ("b", 5)])
    assert gains[("a", 5)] == pytest.approx([0.1, -0.05])
    assert gains[("b", 5)] == pytest.approx([0.0, 0.2])
    assert fewshot_synthetic.mean_over_cells(gains) == pytest.approx([0.05, 0.075])
    with pytest.raises(ValueError, match="no 'z' accuracy for seed 0"):
        fewshot_synthetic.paired_gains(rows, "z", "y", [("a", 5)])
    with pytest.raises(ValueError, match="gains must hold at least one cell"):
        fewshot_synthetic.mean_over_cells({})


def test_protocol_bad_inputs(grid):
    data = grid[0]
    with pytest.raises(
        TypeError, match="rng_for must be a callable stream .*, got int"
    ):
        fewshot_synthetic.run_grid(data, VARIANTS, epochs=1, K=2, rng_for=0)
    with pytest.raises(ValueError, match="'nope' is not one of the variants"):
        fewshot_synthetic.run_grid(
            data, VARIANTS, epochs=1, K=2, rng_for=rng_for, only_on={"nope": []}
        )
    with pytest.raises(ValueError, match="data must hold at least one seed"):
        fewshot_synthetic.run_grid([], VARIANTS, epochs=1, K=2, rng_for=rng_for)
    with pytest.raises(ValueError, match="generator 'fonts' is not in the data"):
        fewshot_synthetic.partition_summaries(
            data, ["fonts"], K=2, steps=1, rng_for=rng_for
        )


def test_partition_summaries_use_the_training_stream(grid):
    data = grid[0]
    out = fewshot_synthetic.partition_summaries(
        data[:1], ["gap 1.0"], K=4, steps=3, rng_for=rng_for
    )
    assert len(out) == 2 * 2  # two shot counts × two partitions
    d = data[0]
    x_syn, y_syn = d.synthetic["gap 1.0"]
    a, b = fewshot_synthetic.online_regions(
        d.x_real[5], x_syn, 4, 3, rng_for(fewshot_synthetic.cell_stream(0, 5, 1))
    )
    s = fewshot_synthetic.summarise_partition(a, b, y_syn.numpy(), 4)
    row = [r for r in out if r["k"] == 5 and r["partition"] == "online (training)"][0]
    assert (row["regions"], row["purity"], row["share"]) == (
        s.regions_used, s.purity, s.synthetic_share,
    )  # fmt: skip


def test_lambda_grid_corner_is_the_plain_objective(grid):
    data = grid[0][:1]
    g = fewshot_synthetic.lambda_grid(
        data, [0.0, 1.0], k=5, generator="gap 1.0", ce_real=1, ce_syn=1,
        epochs=3, K=4, rng_for=rng_for,
    )  # fmt: skip
    assert g.shape == (2, 2) and np.isfinite(g).all()
    d = data[0]
    net = fewshot_synthetic.fit(fewshot_synthetic.Method(1, 1, 0, 0), d.x_real[5], d.y_real[5], *d.synthetic["gap 1.0"],
                init=d.init, epochs=3, K=4, generator=rng_for(0))  # fmt: skip
    assert g[0, 0] == fewshot_synthetic.accuracy(net, d.x_test, d.y_test)


# --- the tables the chapter prints and judges ---------------------------------------------------
TOY = [
    dict(seed=s, k=5, generator=g, method=m, acc=a)
    for s, g, m, a in [
        (0, "a", "x", 0.9), (0, "a", "y", 0.8), (1, "a", "x", 0.7), (1, "a", "y", 0.75),
        (0, "b", "x", 0.5), (0, "b", "y", 0.5), (1, "b", "x", 0.6), (1, "b", "y", 0.4),
        (0, "b", "z", 0.1), (1, "b", "z", 0.3),
    ]
]  # fmt: skip


def test_cell_means_and_accuracy_table():
    means = fewshot_synthetic.cell_means(TOY)
    assert means[("a", 5, "x")] == pytest.approx(0.8)
    assert means[("b", 5, "z")] == pytest.approx(0.2)
    table = fewshot_synthetic.accuracy_table(TOY, first=["y"], names={"x": "ex"})
    assert list(table.columns) == [
        "y",
        "ex",
        "z",
    ]  # first, then as they appear, renamed
    assert list(table.index) == [("a", 5), ("b", 5)]  # the rows' order
    sd = float(np.std([0.8, 0.75], ddof=1))
    assert table.loc[("a", 5), "y"] == f"0.775 ± {sd:.3f}"
    assert table.loc[("a", 5), "z"] == "—"  # not run there
    with pytest.raises(
        ValueError, match=r"first names methods that are not in the rows: \['w'\]"
    ):
        fewshot_synthetic.accuracy_table(TOY, first=["w"], names={})
    with pytest.raises(ValueError, match="rows must be non-empty dicts"):
        fewshot_synthetic.cell_means([])


def test_compare_is_paired_gains_with_its_two_means():
    cells = [("a", 5), ("b", 5)]
    comp = fewshot_synthetic.compare(TOY, "x", "y", cells)
    assert comp.per_cell == fewshot_synthetic.paired_gains(TOY, "x", "y", cells)
    assert comp.over_cells == fewshot_synthetic.mean_over_cells(comp.per_cell)
    assert comp.by_cell == pytest.approx({"a, k=5": 0.025, "b, k=5": 0.1})
    assert list(comp.by_cell) == ["a, k=5", "b, k=5"]  # the cells' order


def test_summarise_ingredients():
    rows = [
        dict(seed=s, k=5, generator=g, error=e, discrepancy=d, robustness=1.0,
             share=0.5, shared=sh)
        for s, g, e, d, sh in [
            (0, "gap 0.0", 0.1, 1.0, 4), (1, "gap 0.0", 0.2, 2.0, 6),
            (0, "gap 1.0", 0.3, 3.0, 2), (1, "gap 1.0", 0.4, 4.0, 4),
            (0, "fonts", 0.9, 0.0, 0), (1, "fonts", 0.9, 0.0, 0),
        ]
    ]  # fmt: skip
    s = fewshot_synthetic.summarise_ingredients(rows)
    assert list(s.by_gap.columns) == ["discrepancy", "robustness", "error", "share"]
    assert s.by_gap.loc[5].discrepancy.to_dict() == pytest.approx(
        {"gap 0.0": 1.5, "gap 1.0": 3.5}
    )  # the fonts are left out
    assert s.rho == {5: pytest.approx(1.0)}  # error rises with the discrepancy
    assert s.shared == pytest.approx(4.0)
    kept = fewshot_synthetic.summarise_ingredients(rows, leave_out=())
    assert "fonts" in kept.by_gap.loc[5].index
    with pytest.raises(ValueError, match="every generator is left out"):
        fewshot_synthetic.summarise_ingredients(rows[:2], leave_out=["gap 0.0"])
    with pytest.raises(
        ValueError, match=r"ingredients must be non-empty dicts .*\['shared'\]"
    ):
        fewshot_synthetic.summarise_ingredients(
            [{k: v for k, v in r.items() if k != "shared"} for r in rows]
        )


def test_partition_table_averages_over_seeds(grid):
    data = grid[0]
    out = fewshot_synthetic.partition_summaries(
        data, ["gap 1.0"], K=4, steps=3, rng_for=rng_for
    )
    table = fewshot_synthetic.partition_table(out)
    assert len(table) == 2 * 2  # two partitions × two shot counts (one generator)
    both = [
        r["purity"] for r in out if r["k"] == 5 and r["partition"] == "k-means on S ∪ G"
    ]
    assert len(both) == 2  # two seeds
    got = table.loc[("k-means on S ∪ G", 5, "gap 1.0"), "purity"]
    assert got == pytest.approx(np.mean(both))

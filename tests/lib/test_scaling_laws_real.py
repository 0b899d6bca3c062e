import numpy as np
import pandas as pd
import pytest

from repbook.papers.scaling_laws import real as R
from repbook.papers.scaling_laws import synthetic as S

TRUTH = dict(E=1.7, A=400.0, alpha=0.34, B=410.0, beta=0.28)


def family(name="F", sizes=(1e8, 2e8, 4e8, 8e8, 1.6e9, 3.2e9), law=TRUTH, n=12):
    rows = []
    for N in sizes:
        for D in np.geomspace(1e9, 1e11, n):
            rows.append((name, f"{name}-{N:g}", N, D, float(S.chinchilla(N, D, **law))))
    return pd.DataFrame(rows, columns=R.REAL_COLUMNS)


def test_are_on_a_hand_made_curve():
    # target checkpoints at 10, 60, 70, 100 (×1e10 tokens); ARE uses 70 and 100 only
    c = pd.DataFrame(
        [
            ("F", "t", 1e9, d * 1e10, l)
            for d, l in [(10, 4.0), (60, 3.0), (70, 2.0), (100, 1.0)]
        ],
        columns=R.REAL_COLUMNS,
    )
    pts = R.target_points(c, "t")
    assert list(pts.tokens / 1e10) == [70, 100]
    # predictions 2.2 and 0.9: errors 0.1 and 0.1
    assert R.mean_are([2.2, 0.9], pts.loss) == pytest.approx(0.1)


def test_the_1e10_cut_and_the_fraction():
    c = pd.DataFrame(
        [("F", m, 1e9, d, 2.0) for m in ("a", "b") for d in (5e9, 1e10, 2e10, 4e10)]
        + [("F", "c", 2e9, 8e10, 2.0)],
        columns=R.REAL_COLUMNS,
    )
    # > 1e10 only, and < 100 % of the run (its final checkpoint is left out, as officially)
    assert sorted(R.train_points(c, ["a"]).tokens) == [2e10]
    assert len(R.train_points(c, ["a"], min_tokens=0)) == 3
    # fraction of the longest fitted run (c: 8e10): 0.5 keeps < 4e10, as the official code
    pts = R.train_points(c, ["a", "c"], fraction=0.5)
    assert sorted(pts.tokens) == [2e10]
    pts = R.train_points(c, ["a", "c"], fraction=0.6, min_fraction=0.5)
    assert sorted(pts.tokens) == [4e10]  # 4e10 ≤ tokens < 4.8e10
    assert len(R.train_points(c, ["c"])) == 0  # at 100 % the longest final is left out
    fin = R.train_points(c, ["a", "b"], final_only=True)
    assert list(fin.tokens) == [4e10, 4e10]


def test_windows_and_gains():
    assert R.windows(list("abcdef")) == [list("abcd"), list("bcde")]
    assert R.windows(list("abcd")) == []
    e = pd.DataFrame(
        dict(
            family="F",
            window=[0, 0, 1, 1],
            fraction=[0.5, 1, 0.5, 1],
            are=[0.3, 0.2, 0.1, 0.1],
        )
    )
    g = R.consecutive_gains(e)
    assert g.gain.iloc[0] == pytest.approx(0.15) and g.pair.iloc[0] == "F: 0→1"


def test_a_noiseless_family_is_predicted_exactly():
    c = family()
    ms = R.models_by_size(c, "F")
    for objective in R.OBJECTIVES:
        o = R.evaluate(c, ms[:4], ms[-1], min_tokens=0, objective=objective)
        assert o.are < 1e-4 and o.n_models == 4
    err = R.window_errors(c, "F", fractions=(1.0,))
    assert len(err) == 2 and (err.are < 1e-3).all()


def test_the_official_fit_recovers_a_law_and_fixes_parameters():
    N, D = np.meshgrid([1e8, 3e8, 1e9, 3e9], np.geomspace(1e9, 1e11, 10))
    L = S.chinchilla(N, D, **TRUTH)
    f = R.fit_official(N, D, L)
    for k, v in TRUTH.items():
        assert getattr(f, k) == pytest.approx(v, rel=1e-4)
    g = R.fit_official(N, D, L, fixed={"A": TRUTH["A"], "alpha": TRUTH["alpha"]})
    assert g.A == TRUTH["A"] and g.alpha == TRUTH["alpha"]
    assert g.B == pytest.approx(TRUTH["B"], rel=1e-4)
    with pytest.raises(ValueError, match="fixed may only"):
        R.fit_official(N, D, L, fixed={"gamma": 1.0})


def test_official_metric_and_groups():
    c = pd.DataFrame(
        [("OPT", "o", 1e9, 2e10, np.log(10.0)), ("t5-pile", "t", 1e9, 2e10, np.log(4.0)),
         ("gpt3", "g", 1e9, 2e10, 2.5)],
        columns=R.REAL_COLUMNS,
    )  # fmt: skip
    o = R.as_official(c)
    assert o.loss.tolist() == pytest.approx([10.0, 2.0, 2.5])
    assert R.official_group("GPT2-c4-14") == "GPT2-c4-all"
    assert R.official_group("GPT2-oscar-1") == "GPT2-oscar-all"
    assert R.official_group("OPT") == "OPT"


def test_grouped_gains_average_a_group_first():
    res = pd.DataFrame(
        dict(family=["GPT2-c4-1", "GPT2-c4-2", "OPT"], k=2, fraction=1.0,
             baseline=[0.3, 0.1, 0.5], method=[0.1, 0.1, 0.4],
             baseline_points=[10, 10, 10], method_points=[5, 10, 10])
    )  # fmt: skip
    g = R.grouped_gains(res)
    assert g["GPT2-c4-all"] == pytest.approx(0.1) and g["OPT"] == pytest.approx(0.1)
    share = R.removed_share(res)
    assert share["GPT2-c4-all"] == pytest.approx(0.25) and share["OPT"] == 0.0


def test_minimal_cut_and_one_model_on_a_noiseless_family():
    c = family().assign(tokens=lambda d: d.tokens * 10)
    r = R.minimal_cut_pair(c, "F", late=0.8)
    assert len(r) and (r.method <= r.baseline).all() and r.method.min() < 1e-3
    assert (r.baseline_points < r.method_points).all()
    one = R.one_model_errors(c, "F", fractions=(1.0,))
    assert len(one) == 5 and set(one.columns) >= {"fixed", "no_size", "free"}


def test_the_datablations_constants_are_the_official_start():
    # Muennighoff et al. (2023): A = e^6.255414 ≈ 521, α ≈ 0.3527 (not Chinchilla's 406.4, 0.34)
    assert R.DATABLATIONS_A_ALPHA["A"] == pytest.approx(521.0, rel=1e-3)
    assert R.DATABLATIONS_A_ALPHA["alpha"] == R.OFFICIAL_START[3]
    assert np.log(R.DATABLATIONS_A_ALPHA["A"]) == pytest.approx(R.OFFICIAL_START[0])
    assert "GPT2-c4-7".startswith(R.BORROWED_FROM) and not "OPT".startswith(
        R.BORROWED_FROM
    )


def test_one_model_laws_with_and_without_a_size_term():
    # a family whose law is exactly the datablations size term: fixing it predicts the target
    law = dict(
        TRUTH, A=R.DATABLATIONS_A_ALPHA["A"], alpha=R.DATABLATIONS_A_ALPHA["alpha"]
    )
    c = family(law=law).assign(tokens=lambda d: d.tokens * 10)
    one = R.one_model_errors(c, "F", fractions=(1.0,))
    assert (one.fixed < 1e-4).all()
    # without a size term, one small model cannot see that the target is larger
    assert (one.no_size > 10 * one.fixed).all()
    g = R.target_gains(one, "no_size")
    assert g.index.tolist() == ["F"] and g["F"] > 0
    expect = (one.no_size.mean() - one.fixed.mean()) / one.no_size.mean()
    assert R.target_gains(one, "no_size", relative=True)["F"] == pytest.approx(expect)
    # a family with no size dependence at all: the no-size-term law is exact
    flat = family(law=dict(TRUTH, A=1e-30)).assign(tokens=lambda d: d.tokens * 10)
    one = R.one_model_errors(flat, "F", fractions=(1.0,))
    assert (one.no_size < 1e-4).all() and (one.fixed > one.no_size).all()
    with pytest.raises(ValueError, match="column"):
        R.target_gains(one, "nope")


def test_enough_points_keeps_fits_that_can_determine_the_law():
    res = pd.DataFrame(
        dict(family=["a", "b", "c", "d"], k=2, fraction=0.7, baseline=0.1, method=0.1,
             baseline_points=[4, 5, 9, 9], method_points=9,
             baseline_models=[2, 2, 1, 3], method_models=2)
    )  # fmt: skip
    kept = R.enough_points(res, min_points=5, min_sizes=2)
    assert kept.family.tolist() == ["b", "d"]
    assert R.enough_points(res, side="method").family.tolist() == list("abcd")
    with pytest.raises(ValueError, match="side must be one of .*, got 'target'"):
        R.enough_points(res, side="target")
    with pytest.raises(ValueError, match="min_points must be a positive int, got 0"):
        R.enough_points(res, min_points=0)


def test_pairs_record_the_points_and_sizes_of_each_fit():
    c = family().assign(tokens=lambda d: d.tokens * 10)
    r = R.minimal_cut_pair(c, "F", late=0.8)
    assert list(r.columns) == R.PAIR_COLUMNS
    assert (r.baseline_models == r.k).all() and (r.method_models == r.k).all()


def test_run_tasks_matches_direct_calls():
    c = family()
    tasks = [("window_errors", "F", dict(fractions=(1.0,)))]
    direct = R.window_errors(c, "F", fractions=(1.0,))
    pd.testing.assert_frame_equal(R.run_tasks(c, tasks)[0], direct)
    with pytest.raises(ValueError, match="unknown protocol"):
        R.run_tasks(c, [("nope", "F", {})])


def test_final_only_needs_three_models():
    c = family()
    ms = R.models_by_size(c, "F")
    assert np.isnan(R.evaluate(c, ms[:2], ms[-1], final_only=True, min_tokens=0).are)
    assert np.isfinite(R.evaluate(c, ms[:3], ms[-1], final_only=True, min_tokens=0).are)


def test_borrowing_from_a_family_with_the_same_size_term():
    other = dict(TRUTH, E=2.5, B=900.0)
    c = pd.concat([family("F"), family("G", law=other)], ignore_index=True)
    c = c.assign(tokens=c.tokens * 10)  # every checkpoint above 1e10
    r = R.borrowed_errors(c, ["F", "G"])
    assert (r.borrowed < 1e-3).all() and (r.as_is > 0.1).all()


@pytest.mark.parametrize(
    "call, msg",
    [
        (
            lambda c: R.train_points(c, ["F-1e+08"], fraction=0),
            r"fraction must be a number in \(0, 1\], got 0",
        ),
        (lambda c: R.models_by_size(c, "nope"), "no family"),
        (lambda c: R.target_points(c, "nope"), "no checkpoints"),
        (lambda c: R.check_curves(c.drop(columns="loss")), "lack column"),
        (lambda c: R.windows(["a", "b"], size=1), "size must be an int ≥ 2, got 1"),
        (lambda c: R.mean_are([1.0], [1.0, 2.0]), "shapes"),
        (lambda c: R.fit_points(c, objective="nope"), "objective"),
        (lambda c: R.minimal_cut_pair(c, "F", early=0), "early must be .*, got 0"),
    ],
)
def test_bad_inputs(call, msg):
    with pytest.raises(ValueError, match=msg):
        call(family())

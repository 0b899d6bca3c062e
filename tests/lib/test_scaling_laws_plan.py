"""The chapter's plan on the real curves (`scaling_laws.plan`) and the readings of the
teacher–student demonstration (`scaling_laws.demonstration`)."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from repbook.papers import scaling_laws

TRUTH = dict(E=1.7, A=400.0, alpha=0.34, B=410.0, beta=0.28)


def family(name, n_sizes=6, law=TRUTH, n=8, scale=1.0):
    sizes = 1e8 * 2.0 ** np.arange(n_sizes)
    rows = [
        (
            name,
            f"{name}-{N:g}",
            N,
            D,
            scale * float(scaling_laws.chinchilla(N, D, **law)),
        )
        for N in sizes
        for D in np.geomspace(2e9, 1e11, n)
    ]
    return pd.DataFrame(rows, columns=scaling_laws.REAL_COLUMNS)


@pytest.fixture(scope="module")
def curves():
    return pd.concat(
        [
            family("gpt3", 7),
            family("chinchilla", 6),
            family("GPT2-c4-1", 4),
            family("lambda", 3, scale=0.3),
            family("OPT", 5),
        ],
        ignore_index=True,
    )


def test_families_and_the_claims_they_enter(curves):
    fams = scaling_laws.families(curves)
    assert fams.names == ("GPT2-c4-1", "OPT", "chinchilla", "gpt3", "lambda")
    assert fams.below == {
        "GPT2-c4-1": 3,
        "OPT": 4,
        "chinchilla": 5,
        "gpt3": 6,
        "lambda": 2,
    }
    assert fams.models["gpt3"] == scaling_laws.models_by_size(curves, "gpt3")
    assert fams.windows4 == ["chinchilla", "gpt3"]  # two windows of 4: ≥ 5 below
    assert fams.windows3 == ["OPT", "chinchilla", "gpt3"]
    assert "chinchilla" not in fams.checkpointed
    assert fams.one_model == ["OPT", "chinchilla", "gpt3", "lambda"]  # GPT-2 sets out
    assert fams.nats == ["OPT", "chinchilla", "gpt3"]  # lambda's metric is not nats
    target = curves[curves.model == fams.models["lambda"][-1]]
    assert fams.lowest["lambda"] == target.loss.min()


def test_plan_tasks(curves):
    fams = scaling_laws.families(curves)
    kw = dict(
        window_fractions=(1.0,), cut_fractions=(0.5, 1.0), one_model_fractions=(1.0,)
    )
    quick = scaling_laws.plan_tasks(fams, **kw, cut_counts="all", huber=False)
    full = scaling_laws.plan_tasks(fams, **kw, cut_counts="each", huber=True)
    count = lambda tasks, name: sum(t[0] == name for t in tasks)  # noqa: E731
    assert count(quick, "window_errors") == 2 + 3
    assert count(full, "window_errors") == 2 + 3 + 2  # and the Huber windows of 4
    assert count(quick, "minimal_cut_pair") == len(fams.names)
    assert count(quick, "one_model_errors") == 4
    cuts = [
        t for t in quick if t[0] == "protocol_pair" and "min_tokens" in t[2]["baseline"]
    ]
    assert [t[2]["counts"] for t in cuts] == [[fams.below[t[1]]] for t in cuts]
    cuts = [
        t for t in full if t[0] == "protocol_pair" and "min_tokens" in t[2]["baseline"]
    ]
    assert list(cuts[0][2]["counts"]) == list(range(2, fams.below[cuts[0][1]] + 1))
    finals = [
        t for t in quick if t[0] == "protocol_pair" and "final_only" in t[2]["baseline"]
    ]
    assert [t[1] for t in finals] == [
        f for f in fams.checkpointed if fams.below[f] >= 3
    ]
    with pytest.raises(ValueError, match="cut_counts must be one of .*, got 'some'"):
        scaling_laws.plan_tasks(fams, **kw, cut_counts="some", huber=False)


def test_run_plan_returns_the_plans_order_and_selects_by_protocol(curves):
    fams = scaling_laws.families(curves)
    tasks = scaling_laws.plan_tasks(
        fams, window_fractions=(1.0,), cut_fractions=(1.0,), cut_counts="all",
        one_model_fractions=(1.0,), huber=False,
    )  # fmt: skip
    res = scaling_laws.run_plan(curves, tasks, fams)
    direct = scaling_laws.run_tasks(curves, tasks)
    for got, want in zip(res.frames, direct):
        pd.testing.assert_frame_equal(got, want)
    win3 = res.collect("window_errors", size=3)
    assert set(win3.family) == set(fams.windows3)
    assert res.collect("nothing").empty
    cut = res.cut_pairs()
    assert (
        cut.baseline_points >= cut.method_points
    ).all()  # the cut only removes points
    assert set(res.final_only_pairs().family) <= set(fams.checkpointed)
    by_hand = scaling_laws.family_gains(
        scaling_laws.consecutive_gains(res.collect("window_errors", size=4))
    )
    pd.testing.assert_series_equal(res.family_gains(), by_hand)


def test_nats_errors_refit_only_the_families_fitted_on_another_unit(curves):
    official = scaling_laws.as_official(curves)
    res = scaling_laws.one_model_errors(official, "gpt3", fractions=(1.0,))
    res = pd.concat(
        [res, scaling_laws.one_model_errors(official, "OPT", fractions=(1.0,))],
        ignore_index=True,
    )
    got = scaling_laws.nats_errors(curves, res, ["OPT", "gpt3"], fractions=(1.0,))
    shipped = scaling_laws.one_model_errors(curves, "OPT", fractions=(1.0,))
    pd.testing.assert_frame_equal(
        got[got.family == "OPT"].reset_index(drop=True), shipped
    )
    pd.testing.assert_frame_equal(
        got[got.family == "gpt3"].reset_index(drop=True),
        res[res.family == "gpt3"].reset_index(drop=True),
    )
    lines = scaling_laws.sensitivity_lines(res, got)
    assert [line.split(":")[0] for line in lines] == [
        "against the free fit",
        "nats only",
        "relative gain",
    ]
    assert "(fraction of the comparator's ARE)" in lines[2]


def test_tables_of_claims_2_and_5():
    res = pd.DataFrame(
        dict(family=["GPT2-c4-1", "GPT2-c4-2", "gpt3"], k=2, fraction=0.7,
             baseline=[0.02, 0.04, 0.1], method=[0.01, 0.01, 0.2],
             baseline_points=[3, 9, 9], method_points=9,
             baseline_models=[1, 2, 2], method_models=2)
    )  # fmt: skip
    table = scaling_laws.minimal_cut_table(res)
    assert list(table.columns) == [
        "from 99 % (%)",
        "from 10 % (%)",
        "late-cut points",
        "late-cut sizes",
    ]
    assert table.loc[("gpt3", 2), "from 10 % (%)"] == 20.0
    gains = scaling_laws.grouped_gains(scaling_laws.enough_points(res))
    assert gains.to_dict() == pytest.approx({"GPT2-c4-all": 0.03, "gpt3": -0.1})
    no_pair, thin = scaling_laws.left_out_groups(res, gains[["gpt3"]], ["OPT", "gpt3"])
    assert no_pair == ["OPT"] and thin == ["GPT2-c4-all"]
    one = pd.DataFrame(
        dict(family=["a", "a", "b"], fixed=[1.0, 3.0, 5.0], no_size=[2.0, 2.0, 6.0],
             free=[0.0, 1.0, 2.0])
    )  # fmt: skip
    means = scaling_laws.one_model_means(one)
    assert means.loc["a"].tolist() == [2.0, 2.0, 0.5]
    assert list(means.index) == ["a", "b"]


def test_cut_gains_keep_the_groups_the_cut_bites():
    res = pd.DataFrame(
        dict(family=["OPT", "gpt3"], k=2, fraction=1.0, baseline=[0.3, 0.2],
             method=[0.1, 0.1], baseline_points=[100, 100], method_points=[90, 99])
    )  # fmt: skip
    share, bites, gains = scaling_laws.cut_gains(res, min_share=0.05)
    assert share.to_dict() == pytest.approx({"OPT": 0.1, "gpt3": 0.01})
    assert list(bites) == ["OPT"]
    assert gains.to_dict() == pytest.approx({"OPT": 0.2})
    with pytest.raises(ValueError, match="min_share must be a number in .*, got 2"):
        scaling_laws.cut_gains(res, min_share=2)


def test_borrowed_table():
    res = pd.DataFrame(
        dict(target=["a", "a", "b"], source=["b", "c", "a"], borrowed=[0.01, 0.03, 0.5],
             as_is=[0.1, 0.3, 0.2], own=0.02)
    )  # fmt: skip
    table = scaling_laws.borrowed_table(res)
    assert table.loc["a"].tolist() == [2.0, 20.0, 2.0]
    assert list(table.columns) == [
        "borrowed (median %)",
        "other as is (median %)",
        "own law (%)",
    ]


def test_printed_gains_intervals_and_signs():
    g = pd.Series({"OPT": -0.0027, "gpt3": 0.0432})
    assert scaling_laws.gains_text(g) == "OPT -0.27, gpt3 +4.32"
    assert scaling_laws.sign_count(g) == "1 of 2 pairs positive"
    assert scaling_laws.sign_count({"a": 1.0, "b": 2.0}) == "2 of 2 pairs positive"
    assert scaling_laws.gain_lines("gains", g) == (
        "gains (points of ARE): OPT -0.27, gpt3 +4.32\nsign count: 1 of 2 pairs positive"
    )
    # mean 2, sd 1 over 3 pairs: half-width t(0.975, 2) / √3
    half = stats.t.ppf(0.975, 2) / np.sqrt(3)
    text = scaling_laws.interval_text([1.0, 2.0, 3.0], scale=1.0)
    assert text == (
        f"+2.00, 95 % t interval [{2 - half:+.2f}, {2 + half:+.2f}] over 3; "
        "3 of 3 pairs positive"
    )
    # two pairs use the t quantile of 3 (as the chapter's k always did)
    two = scaling_laws.interval_text([1.0, 3.0], scale=1.0)
    assert f"[{2 - stats.t.ppf(0.975, 2) / 1:+.2f}" in two
    assert scaling_laws.interval_text([0.01]) == "+1.00 (n = 1: no interval)"


def test_full_run_gains():
    claims = [
        SimpleNamespace(id="1", measured={"ARE gain (per family)": {"OPT": -0.0457}}),
        SimpleNamespace(id="2", measured={"groups": 1, "ARE gain": {}}),
        SimpleNamespace(id="3", measured={"x": {"a": 1.0}, "a gain": {"b": 0.01}}),
    ]
    assert scaling_laws.record_gains(claims[0].measured) == "OPT -4.57"
    assert scaling_laws.record_gain_lines(claims) == [
        "  claim 1 at full scale, points of ARE: OPT -4.57",
        "  claim 3 at full scale, points of ARE: b +1.00",
    ]


# -- the teacher–student demonstration -------------------------------------------------------
@pytest.fixture(scope="module")
def demo():
    train = dict(steps=300, batch=8, lr=0.5, n_checkpoints=10)
    return scaling_laws.demo_families([8, 16, 32, 64], 3, 2, seed=1, **train), train


def test_demo_families_are_the_teacher_student_families(demo):
    (fam_a, fam_b), train = demo
    want_b = scaling_laws.teacher_student_family(
        scaling_laws.TeacherStudent(spectrum=1.5), [8, 16, 32, 64], range(2), family="B",
        seed_offset=1200, **train,
    )  # fmt: skip
    pd.testing.assert_frame_equal(fam_b, want_b)
    assert sorted(fam_a.seed.unique()) == [0, 1, 2] and set(fam_a.family) == {"A"}


def test_summarise_protocols_on_a_hand_made_table():
    rows = []
    for m, are_all, are_final in [(32, 0.3, 0.4), (64, 0.2, 0.1), (128, 0.1, 0.3)]:
        for s in range(2):
            rows += [
                dict(m=m, seed=s, protocol="all checkpoints", are=are_all + s / 100),
                dict(m=m, seed=s, protocol="final only", are=are_final),
                dict(m=m, seed=s, protocol="after 10 %", are=are_all),
            ]
    summary = scaling_laws.summarise_protocols(pd.DataFrame(rows))
    assert summary.sizes.tolist() == [32, 64, 128]
    assert summary.median_all == pytest.approx([0.305, 0.205, 0.105])
    assert summary.rho == -1.0
    assert (summary.pairs, summary.wins, summary.wins_after_10) == (6, 4, 3)
    assert summary.sign_p == pytest.approx(stats.binomtest(4, 6, 0.5, "greater").pvalue)
    assert summary.medians["final only"] == pytest.approx(0.3)


def test_seed_cv():
    c = pd.DataFrame(
        dict(N=[8, 8, 8, 16, 16], seed=[0, 1, 0, 0, 1], frac=[1.0, 1.0, 0.5, 1.0, 1.0],
             loss=[1.0, 3.0, 9.0, 2.0, 2.0])
    )  # fmt: skip
    cv = scaling_laws.seed_cv(c)
    assert cv[8] == pytest.approx(np.std([1.0, 3.0], ddof=1) / 2.0)
    assert cv[16] == 0.0


def test_several_small_and_borrowing_match_fitting_by_hand(demo):
    (fam_a, fam_b), _ = demo
    kw = dict(target_N=64, D_target=300 * 8, fit_kwargs=dict(exponent_inits=(0.5,)))
    small = scaling_laws.several_small(fam_a, big=32, small=16, **kw)
    finals = fam_a[fam_a.frac == 1.0]
    actual = finals[finals.N == 64].loss.mean()
    law = scaling_laws.fit_curves(
        scaling_laws.select(fam_a, max_N=16, seeds=[2, 0]), exponent_inits=(0.5,)
    )
    assert small.two_small[2] == scaling_laws.are(law.predict(64, 2400), actual)
    assert small.gains == pytest.approx(small.one_big - small.two_small)
    cost = scaling_laws.compute_cost
    ratio = cost(scaling_laws.select(fam_a, max_N=16, seeds=[0, 1])) / cost(
        scaling_laws.select(fam_a, max_N=32, seeds=[0])
    )
    assert small.cost_ratio == ratio
    res = scaling_laws.borrowing_errors(
        fam_a, fam_b, sizes=(16,), source_max_N=32, **kw
    )
    assert res.seed.tolist() == [0, 1] and res.n.tolist() == [16, 16]
    source = scaling_laws.fit_curves(
        scaling_laws.select(fam_a, max_N=32, seeds=[1]), exponent_inits=(0.5,)
    )
    assert res.as_is[1] == scaling_laws.are(
        source.predict(64, 2400), scaling_laws.final_loss(fam_b, 64, 1)
    )
    with pytest.raises(ValueError, match="at least 2 seeds"):
        scaling_laws.several_small(fam_a[fam_a.seed == 0], **kw)

"""Chapter 05's experiments (`langdaug.studies`) and its tables and generated sentences
(`langdaug.readings`), on small inputs: each against the steps done by hand, known answers and
bad inputs."""

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from repbook.core.stats import t_quantile
from langdaug_samples import EBM, SEG, gen, rng, small

from repbook.papers import langdaug
from repbook.papers.langdaug import readings


@pytest.fixture(scope="module")
def pair_set():
    train = small("AB")
    ps = langdaug.pair_augmentations(
        train, ["A", "B"], ebm=EBM, n_chain=3, save_every=2, generator=gen(5)
    )
    return train, ps


@pytest.fixture(scope="module")
def study(pair_set):
    train, ps = pair_set
    tasks = langdaug.method_tasks(
        train, ["A", "B"], [ps.augmentations], seeds=2, dr=langdaug.DRRange()
    )
    st = langdaug.train_segmenters(
        tasks, seeds=2, config=SEG, init=lambda s: gen(100 + s), batches=gen
    )
    return train, ps, tasks, st


# --- data and chains ---------------------------------------------------------------------------
def test_make_domains_draws_train_then_test_from_one_stream():
    train, test = langdaug.make_domains(
        ["A", "B"], ["A", "M"], n_train=3, n_test=2, rng=rng(7), size=16
    )
    r = rng(7)
    by_hand = [langdaug.make_domain(d, 3, r, size=16) for d in "AB"]
    by_hand += [langdaug.make_domain(d, 2, r, size=16) for d in "AM"]
    got = [train["A"], train["B"], test["A"], test["M"]]
    for a, b in zip(got, by_hand):
        assert torch.equal(a.images, b.images) and torch.equal(a.masks, b.masks)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        langdaug.make_domains(["A"], ["A"], n_train=1, n_test=1, rng=3)


def test_pairs_starts_and_target_means():
    train = small("AB")
    pairs = langdaug.ordered_pairs(["A", "B"])
    assert langdaug.pair_names(pairs) == ["A→B", "B→A"]
    x0, m0 = langdaug.chain_starts(train, pairs, 3)
    assert x0.shape == (2, 3, 3, 16, 16) and m0.shape == (2, 3, 16, 16)
    assert torch.equal(x0[1], train["B"].images[:3])
    means = langdaug.target_means(train, pairs)
    np.testing.assert_allclose(means[0], train["B"].images.mean(dim=(0, 2, 3)), 1e-6)
    with pytest.raises(ValueError, match="n_chain must be a positive int, got 0"):
        langdaug.chain_starts(train, pairs, 0)


def test_compare_samplers_equals_the_steps_by_hand(pair_set):
    train, ps = pair_set
    cmp = langdaug.compare_samplers(
        ps, train, n_chain=3, steps=4, beta=1e-4, temperature=5e-5, save_every=2,
        generator=gen(40),
    )  # fmt: skip
    x0, m0 = langdaug.chain_starts(train, ps.pairs, 3)
    lang = langdaug.langdaug_augment(
        ps.trace.ebm, x0, m0, steps=4, step_size=1e-4, sampler="langevin",
        temperature=5e-5, generator=gen(40), save_every=2,
    )  # fmt: skip
    means = langdaug.target_means(train, ps.pairs)
    code = langdaug.normalised_traversal(ps.augmentations.chains, means)
    by_hand = langdaug.normalised_traversal(lang.chains, means)
    assert cmp.steps == (0, 2, 4)
    np.testing.assert_array_equal(cmp.code["A→B"], code[0])
    np.testing.assert_array_equal(cmp.langevin["B→A"], by_hand[1])
    assert cmp.largest_gap == np.abs(code - by_hand).max()
    end = lang.chains[-1] - ps.augmentations.chains[-1]
    assert cmp.end_sd == float(end.std())
    assert torch.equal(cmp.langevin_augmentations.images, lang.images)


# --- the four methods --------------------------------------------------------------------------
def test_method_tasks(pair_set):
    train, ps = pair_set
    a = ps.augmentations
    tasks = langdaug.method_tasks(
        train, ["A", "B"], [a], seeds=3, dr=langdaug.DRRange()
    )
    assert list(tasks) == ["ERM", "DR", "LangDAug", "DR + LangDAug"]
    assert len(tasks["ERM"].images) == 24 and tasks["ERM"].randomize is None
    assert tasks["DR"].randomize == langdaug.DRRange()
    assert len(tasks["LangDAug"]) == 3 and len(tasks["LangDAug"][2].images) == 24 + 12
    assert torch.equal(tasks["LangDAug"][0].images[24:], a.images)
    assert tasks["DR + LangDAug"][1].randomize is not None
    with pytest.raises(ValueError, match="seeds must be a positive int, got 0"):
        langdaug.method_tasks(train, ["A"], [a], seeds=0, dr=langdaug.DRRange())
    with pytest.raises(ValueError, match="at least one set"):
        langdaug.method_tasks(train, ["A"], [], seeds=1, dr=langdaug.DRRange())


def test_label_check_equals_the_rows_by_hand(study):
    train, ps, _, st = study
    aug = ps.augmentations
    dice = {d: st.dice(train[d].images, train[d].masks) for d in "AB"}
    check = langdaug.label_check(st, aug, dice, domains=["A", "B"])
    all_dice = st.per_image(langdaug.segment_dice, aug.images, aug.masks)
    ref = all_dice[[st.labels.index(("DR", s)) for s in range(2)]]
    np.testing.assert_array_equal(check.referee, ref)
    np.testing.assert_array_equal(check.other, all_dice[[0, 1]])  # ERM's rows
    assert list(check.by_step) == ["step 2", "step 4"]
    assert check.by_step["step 4"] == ref[:, 6:].mean()  # 2 pairs × 3 chains per step
    assert check.real == {
        f"{d}, seed {s}": dice[d]["DR", s] for d in "AB" for s in range(2)
    }


def test_gain_measures_known_answers():
    in_dom = {("m", 0): 0.9, ("m", 1): 0.8, ("b", 0): 0.95, ("b", 1): 0.85}
    dice_d = {("m", 0): 0.7, ("m", 1): 0.6, ("b", 0): 0.5, ("b", 1): 0.7}
    g = langdaug.gain_measures(dice_d, in_dom, "m", "b", "D")
    assert g.gain == "m − b on D, per seed" and g.fit == langdaug.FIT
    assert list(g.measured) == [
        g.gain, g.gap, g.fit, g.resolution, "b Dice on D", "m Dice on D",
    ]  # fmt: skip
    np.testing.assert_allclose(g.measured[g.gain], [0.2, -0.1])
    assert g.measured[g.gap] == pytest.approx(0.9 - 0.6)
    assert g.measured[g.fit] == pytest.approx(0.85 - 0.9)
    assert g.measured[g.resolution] == pytest.approx(
        t_quantile(2) * 0.1
    )  # sd 0.1·√2, SE 0.1
    assert langdaug.domain_gap(in_dom, dice_d, "m") == pytest.approx(0.2)
    assert langdaug.mean_of(in_dom, "b") == pytest.approx(0.9)


def test_resolution_is_t_times_se():
    v = [0.1, 0.4, 0.7, 0.2]
    se = np.std(v, ddof=1) / 2
    assert langdaug.resolution(v) == pytest.approx(t_quantile(4) * se, rel=1e-12)
    with pytest.raises(ValueError, match="n must be an int ≥ 2"):
        langdaug.resolution([0.5])


def test_source_grad_norm_averages_the_domains(study):
    train, _, _, st = study
    got = langdaug.source_grad_norm(st, [train["A"], train["B"]], 4)
    a = st.grad_norm(train["A"].images[:4], train["A"].masks[:4])
    b = st.grad_norm(train["B"].images[:4], train["B"].masks[:4])
    assert got == {lab: float(np.mean([a[lab], b[lab]])) for lab in st.labels}
    with pytest.raises(ValueError, match="n must be a positive int, got 0"):
        langdaug.source_grad_norm(st, [train["A"]], 0)


# --- full scale --------------------------------------------------------------------------------
def streams(k):
    return gen(k)


def test_lodo_splits_use_the_documented_streams():
    train, tests = small("ABC", n=8), small("ABC", n=4, seed=12)
    kw = dict(seeds=2, ebm=EBM, seg=SEG, n_chain=2, save_every=2)
    lodo = langdaug.lodo_splits(train, tests, streams=streams, **kw)
    assert list(lodo) == ["A", "B", "C"]
    by_hand = langdaug.langdaug_split(
        train, tests, sources=["A", "C"],
        ebm_generator=lambda s: gen(3000 + 100 + 10 + s),
        init=lambda s: gen(100 + s), batches=lambda k: gen(4000 + 100 + k), **kw,
    )  # fmt: skip
    assert lodo["B"] == by_hand


def test_k_sweep_uses_the_documented_streams():
    train, test = small("AB", n=8), small("C", n=4, seed=12)["C"]
    kw = dict(seeds=2, seg=SEG, n_chain=2, save_every=2)
    rows = langdaug.k_sweep(
        train, "C", test, ks=[2, 4], sources=["A", "B"], ebm=EBM, streams=streams, **kw
    )
    assert [r["K"] for r in rows] == [2, 4] and set(rows[0]) == {"K", "ERM", "LangDAug"}
    by_hand = langdaug.langdaug_split(
        train, {"C": test}, sources=["A", "B"], ebm=dataclasses.replace(EBM, steps=2),
        ebm_generator=lambda s: gen(9000 + 2 + 10 + s), init=lambda s: gen(100 + s),
        batches=lambda k: gen(9500 + 2 + k), **kw,
    )["C"]  # fmt: skip
    assert rows[0]["LangDAug"] == np.mean(by_hand["LangDAug"])


LODO = {
    "A": {"A": {"ERM": [0.5, 0.7], "LangDAug": [0.6, 0.9]},
          "B": {"ERM": [0.9, 0.9], "LangDAug": [0.8, 0.9]}},
    "B": {"A": {"ERM": [1.0, 0.8], "LangDAug": [0.9, 0.9]},
          "B": {"ERM": [0.3, 0.5], "LangDAug": [0.3, 0.4]}},
}  # fmt: skip


def test_lodo_summary_known_answers():
    s = langdaug.lodo_summary(LODO)
    np.testing.assert_allclose(s.gain, [0.05, 0.05])
    assert s.erm_gap == pytest.approx(((0.9 - 0.6) + (0.9 - 0.4)) / 2)
    assert s.fit == pytest.approx(((0.85 - 0.9) + (0.9 - 0.9)) / 2)
    np.testing.assert_allclose(s.erm_held, [0.4, 0.6])
    assert s.by_domain == pytest.approx({"A": 0.15, "B": -0.05})
    table = readings.lodo_table(LODO)
    assert list(table.columns) == ["ERM", "LangDAug", "in-domain ERM"]
    assert table.loc["B", "in-domain ERM"] == pytest.approx(0.9)


# --- readings ----------------------------------------------------------------------------------
def test_style_table_and_hull_line():
    styles = readings.style_table(["A", "B", "C"], ["A", "M", "X"])
    assert list(styles.columns[:3]) == ["tint_R", "tint_G", "tint_B"]
    assert styles.shape == (3, 11) and styles.loc["A", "to hull"] < 1e-6
    line = readings.hull_line(styles, ["M", "X"])
    assert line.startswith("M: inside the sources' hull (distance 0.00); X: outside")


def test_chain_readings(pair_set):
    train, ps = pair_set
    line = readings.cd_loss_line(1, ["A→B", "B→A"], np.array([[1.0, -2.0]] * 12))
    assert line == (
        "1 set(s) of 2 pair EBMs; CD loss over the last 10 iterations (last set): "
        "A→B +1.00, B→A -2.00"
    )
    cmp = langdaug.compare_samplers(
        ps, train, n_chain=3, steps=4, beta=1e-4, temperature=5e-5, save_every=2,
        generator=gen(40),
    )  # fmt: skip
    table = readings.traversal_table(cmp)
    assert list(table.columns) == ["step 0", "step 2", "step 4"]
    assert (table["step 0"] == 1).all()
    first, second = readings.sampler_lines(cmp, 1e-4)
    assert first.startswith("Langevin sampler, at step 4: A→B ")
    assert f"by {cmp.end_sd:.4f} per pixel" in second and "√(Kβ) = 0.0200" in second


def test_segmentation_readings(study):
    train, ps, tasks, st = study
    assert readings.training_line(st, tasks, 4) == (
        "8 UNets (4 methods × 2 seeds), ERM 3, DR 3, LangDAug 3, DR + LangDAug 3 steps "
        "of 4 images; training sets: ERM 24 images, LangDAug 36 (12 augmentations)"
    )
    dice = {d: st.dice(train[d].images, train[d].masks) for d in "AB"}
    res = readings.results_table(st, dice, ["A"], ["B"])
    assert list(res.columns) == ["method", "seed", "in_domain", "B"]
    assert res.in_domain[3] == dice["A"]["DR", 1]
    table = readings.in_domain_table(res, st)
    assert list(table.index) == ["ERM", "DR", "LangDAug", "DR + LangDAug"]
    loss = st.losses["DR"][-20:].mean()
    assert table.loc["DR", "training loss (last 20 steps)"] == pytest.approx(loss)
    wide = readings.per_seed_tables(res, ["B"], ["LangDAug", "ERM"])
    assert list(wide["B"].columns) == ["LangDAug", "ERM"]
    assert wide["B"].loc[1, "ERM"] == dice["B"]["ERM", 1]
    line = readings.cost_line(
        {lab: v for lab, v in zip(st.labels, res.in_domain)}, dice, ["ERM"], ["B"]
    )
    gap = np.mean(res.in_domain[:2]) - np.mean([dice["B"]["ERM", s] for s in (0, 1)])
    assert line.endswith(f"B: ERM {gap:+.3f}")


def test_label_readings(study):
    train, ps, _, st = study
    aug = ps.augmentations
    dice = {d: st.dice(train[d].images, train[d].masks) for d in "AB"}
    check = langdaug.label_check(st, aug, dice, domains=["A"])
    auc = np.array([1.0, 0.85, 0.95, 0.5])
    lines = readings.label_lines(check, np.array([1.0, 0.99]), auc)
    assert lines[0].startswith("referee (DR) Dice on the 12 augmentations, per seed: ")
    assert lines[2].endswith("augmentations median 0.900, below 0.9 on 50.0% of them")
    contrast = readings.contrast_table(aug, train, ps.pairs, 3)
    assert list(contrast.columns) == ["step 0", "step 4", "domain j"]
    x0, m0 = langdaug.chain_starts(train, ps.pairs, 3)
    assert contrast.loc["B→A", "step 0"] == langdaug.disc_contrast(x0[1], m0[1])


def test_gain_readings():
    unchecked = SimpleNamespace(
        id="4", checked=False, note="D: held out", verdict_word=lambda: "not checked"
    )
    assert readings.gain_reading(unchecked) == "4: not checked (D: held out)"
    claim = SimpleNamespace(
        id="3", checked=True, verdict="within noise",
        measured={"gap": 0.1, "m − b on D, per seed": [0.1, -0.05, 0.2]},
    )  # fmt: skip
    half = t_quantile(3) * np.std([0.1, -0.05, 0.2], ddof=1) / 3**0.5
    assert readings.gain_reading(claim) == (
        f"3: m − b on D, per seed = +0.0833 ± {half:.4f} (t·SE, 3 seeds; positive on 2 "
        "of 3): within the noise (neither ✓ nor ✗)"
    )
    gn = {("ERM", 0): 2.0, ("ERM", 1): 4.0, ("LangDAug", 0): 1.0, ("LangDAug", 1): 2.0}
    line = readings.grad_ratio_line(gn, gn, [1.0, 2.0])
    assert line.startswith("LangDAug / ERM (means over seeds): 0.500 on M, 0.500 on")
    assert line.endswith("per seed: +1.0000, +2.0000")
    assert "beyond the noise where both fit" in readings.source_gradient_line(
        [1.0, 1.1]
    )
    assert "within the noise" in readings.source_gradient_line([1.0, -1.1])

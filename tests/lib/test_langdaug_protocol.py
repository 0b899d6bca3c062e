"""Protocols of chapter 05 (langdaug): measurements along the chains, the pair-EBM augmentation,
the segmenters trained side by side, and one domain-generalisation split."""

import math

import numpy as np
import pytest
import torch

from langdaug_samples import EBM, SEG, gen, small

from repbook.papers import langdaug


# --- the poly schedule ---------------------------------------------------------------------------
def test_poly_lr_known_values():
    assert langdaug.poly_lr(0.1, 0, 10) == pytest.approx(0.1)
    assert langdaug.poly_lr(0.1, 5, 10) == pytest.approx(0.1 * 0.5**0.9)
    assert langdaug.poly_lr(2.0, 9, 10, power=1.0) == pytest.approx(0.2)
    rates = [langdaug.poly_lr(1.0, s, 50) for s in range(50)]
    assert all(a > b for a, b in zip(rates, rates[1:])) and rates[-1] > 0


@pytest.mark.parametrize(
    "step, total, match",
    [
        (10, 10, r"step must be an int in \[0, 9\], got 10"),
        (-1, 10, r"step must be an int in \[0, 9\], got -1"),
        (0, 0, "total must be a positive int, got 0"),
    ],
)
def test_poly_lr_bad_arguments(step, total, match):
    with pytest.raises(ValueError, match=match):
        langdaug.poly_lr(0.1, step, total)


def test_train_unets_poly_schedule():
    d = small("A")["A"]
    task = langdaug.SegTask(d.images, d.masks)
    kw = dict(steps=4, batch=4, widths=(4, 8))
    p1 = langdaug.train_unets(
        [task], inits=[gen(1)], generator=gen(2), schedule="poly", **kw
    )
    p2 = langdaug.train_unets(
        [task], inits=[gen(1)], generator=gen(2), schedule="poly", **kw
    )
    c = langdaug.train_unets([task], inits=[gen(1)], generator=gen(2), **kw)
    np.testing.assert_array_equal(p1.losses, p2.losses)
    # the first step uses the full rate under both schedules, later ones differ
    assert p1.losses[0, 0] == c.losses[0, 0]
    assert not np.array_equal(p1.losses[1:], c.losses[1:])
    with pytest.raises(ValueError, match="schedule must be one of"):
        langdaug.train_unets(
            [task], inits=[gen(1)], generator=gen(2), schedule="cosine", **kw
        )


# --- measurements ---------------------------------------------------------------------------------
def test_ordered_pairs():
    assert langdaug.ordered_pairs("ABC") == [
        ("A", "B"), ("A", "C"), ("B", "A"), ("B", "C"), ("C", "A"), ("C", "B"),
    ]  # fmt: skip
    with pytest.raises(ValueError, match="at least two distinct"):
        langdaug.ordered_pairs(["A"])
    with pytest.raises(ValueError, match="at least two distinct"):
        langdaug.ordered_pairs(["A", "A"])


def test_normalised_traversal_known_answer():
    # two pairs, chains of constant colour moving linearly from 0 to the target 1 (and 0.5)
    ts = torch.tensor([0.0, 0.25, 0.5, 1.0])
    chains = torch.zeros(4, 2, 3, 3, 4, 4)
    chains[:, 0] = ts[:, None, None, None, None]
    chains[:, 1] = 0.5 * ts[:, None, None, None, None]
    out = langdaug.normalised_traversal(chains, [[1.0] * 3, [1.0] * 3])
    np.testing.assert_allclose(out[0], [1.0, 0.75, 0.5, 0.0], atol=1e-7)
    np.testing.assert_allclose(out[1], [1.0, 0.875, 0.75, 0.5], atol=1e-7)


def test_normalised_traversal_bad_inputs():
    with pytest.raises(ValueError, match="n_saved, G, n, 3, H, W"):
        langdaug.normalised_traversal(torch.zeros(2, 2, 3, 4, 4), [[1.0] * 3] * 2)
    with pytest.raises(ValueError, match="one mean colour per pair"):
        langdaug.normalised_traversal(torch.zeros(2, 2, 1, 3, 4, 4), [[1.0] * 3])
    with pytest.raises(ValueError, match="distance 0"):
        langdaug.normalised_traversal(torch.zeros(2, 1, 1, 3, 4, 4), [[0.0] * 3])


def test_disc_contrast_and_mask_auc_known_answers():
    masks = torch.zeros(2, 4, 4)
    masks[:, :2] = 1.0
    images = torch.full((2, 3, 4, 4), 0.2)
    images[:, :, :2] = 0.7  # the masked half is brighter by 0.5
    assert langdaug.disc_contrast(images, masks) == pytest.approx(0.5)
    np.testing.assert_allclose(langdaug.mask_auc(images, masks), [1.0, 1.0])
    np.testing.assert_allclose(langdaug.mask_auc(1 - images, masks), [0.0, 0.0])
    np.testing.assert_allclose(
        langdaug.mask_auc(torch.full_like(images, 0.3), masks), [0.5] * 2
    )


def test_mask_auc_matches_brute_force():
    g = gen(3)
    images = torch.rand(3, 3, 6, 6, generator=g).round(decimals=1)  # with ties
    masks = (torch.rand(3, 6, 6, generator=g) > 0.6).float()
    masks[:, 0, 0], masks[:, 0, 1] = 1.0, 0.0
    lum = images.mean(1).flatten(1)
    for k, auc in enumerate(langdaug.mask_auc(images, masks)):
        pos = lum[k][masks[k].flatten() > 0]
        neg = lum[k][masks[k].flatten() == 0]
        diff = pos[:, None] - neg[None, :]
        brute = ((diff > 0).float() + 0.5 * (diff == 0).float()).mean()
        assert auc == pytest.approx(float(brute), abs=1e-6)


def test_mask_measures_need_both_sides():
    images = torch.rand(1, 3, 4, 4, generator=gen())
    for fn in (langdaug.disc_contrast, langdaug.mask_auc):
        with pytest.raises(ValueError, match="both inside and outside"):
            fn(images, torch.ones(1, 4, 4))


def test_hull_distance():
    tri = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    assert langdaug.hull_distance([0.2, 0.2], tri) == pytest.approx(0.0, abs=1e-9)
    assert langdaug.hull_distance([1.0, 0.0], tri) == pytest.approx(0.0, abs=1e-9)
    assert langdaug.hull_distance([2.0, 0.0], tri) == pytest.approx(1.0, abs=1e-6)
    assert langdaug.hull_distance([1.0, 1.0], tri) == pytest.approx(
        math.sqrt(0.5), abs=1e-6
    )
    styles = np.stack([langdaug.STYLES[d].vector() for d in "ABC"])
    assert langdaug.hull_distance(langdaug.STYLES["M"].vector(), styles) < 1e-9
    assert langdaug.hull_distance(langdaug.STYLES["X"].vector(), styles) > 0.5
    with pytest.raises(ValueError, match="vertices must have shape"):
        langdaug.hull_distance([0.0, 0.0, 0.0], tri)
    with pytest.raises(ValueError, match="finite"):
        langdaug.hull_distance([np.nan, 0.0], tri)


# --- configurations ------------------------------------------------------------------------------
def test_seg_config_steps():
    assert (
        langdaug.SegConfig(batch=16, widths=(8, 16), steps=400).steps_for(1650) == 400
    )
    epochs = langdaug.SegConfig(batch=16, widths=(8, 16), epochs=2)
    assert epochs.steps_for(450) == 57  # ⌈2 · 450 / 16⌉
    assert epochs.steps_for(16) == 2
    with pytest.raises(ValueError, match="exactly one of epochs and steps"):
        langdaug.SegConfig(batch=16, widths=(8, 16))
    with pytest.raises(ValueError, match="exactly one of epochs and steps"):
        langdaug.SegConfig(batch=16, widths=(8, 16), epochs=1, steps=1)
    with pytest.raises(ValueError, match="schedule must be one of"):
        langdaug.SegConfig(batch=16, widths=(8, 16), steps=1, schedule="step")
    with pytest.raises(ValueError, match="SegConfig.batch"):
        langdaug.SegConfig(batch=0, widths=(8, 16), steps=1)


def test_ebm_config_checks():
    with pytest.raises(ValueError, match="EBMConfig.iters"):
        langdaug.EBMConfig(iters=0, batch=4, steps=4, step_size=1.0)
    with pytest.raises(ValueError, match="EBMConfig.step_size"):
        langdaug.EBMConfig(iters=1, batch=4, steps=4, step_size=-1.0)


# --- pair augmentations ----------------------------------------------------------------------------
def test_pair_augmentations_equal_the_steps_by_hand():
    train = small("AB")
    pa = langdaug.pair_augmentations(
        train, ["A", "B"], ebm=EBM, n_chain=3, save_every=2, generator=gen(5)
    )
    assert pa.pairs == (("A", "B"), ("B", "A"))
    trace = langdaug.train_pair_ebms(
        [train["A"].images, train["B"].images],
        [train["B"].images, train["A"].images],
        iters=2,
        batch=4,
        steps=4,
        step_size=1.0,
        generator=gen(5),
        widths=(4, 8, 8),
    )
    np.testing.assert_array_equal(pa.trace.losses, trace.losses)
    x0 = torch.stack([train["A"].images[:3], train["B"].images[:3]])
    m0 = torch.stack([train["A"].masks[:3], train["B"].masks[:3]])
    aug = langdaug.langdaug_augment(
        trace.ebm, x0, m0, steps=4, step_size=1.0, save_every=2
    )
    assert torch.equal(pa.augmentations.images, aug.images)
    assert torch.equal(pa.augmentations.masks, aug.masks)
    assert pa.augmentations.images.shape == (2 * 2 * 3, 3, 16, 16)


def test_pair_augmentations_bad_arguments():
    train = small("AB")
    kw = dict(ebm=EBM, save_every=2, generator=gen())
    with pytest.raises(ValueError, match="no images of source domain"):
        langdaug.pair_augmentations(train, ["A", "C"], n_chain=2, **kw)
    with pytest.raises(ValueError, match="exceeds the training images"):
        langdaug.pair_augmentations(train, ["A", "B"], n_chain=13, **kw)


# --- segmenters trained side by side ------------------------------------------------------------
def test_train_segmenters_pairs_by_seed_and_groups_by_steps():
    d = small("A")["A"]
    big = langdaug.SegTask(torch.cat([d.images] * 2), torch.cat([d.masks] * 2))
    sets = {
        "one": langdaug.SegTask(d.images, d.masks),
        "two": big,
        "copy": langdaug.SegTask(d.images, d.masks),
    }
    cfg = langdaug.SegConfig(batch=4, widths=(4, 8), epochs=1)
    study = langdaug.train_segmenters(
        sets,
        seeds=2,
        config=cfg,
        init=lambda s: gen(100 + s),
        batches=lambda k: gen(50 + k),
    )
    assert study.steps == {"one": 3, "two": 6, "copy": 3}
    assert study.labels == (
        ("one", 0), ("one", 1), ("two", 0), ("two", 1), ("copy", 0), ("copy", 1),
    )  # fmt: skip
    assert [len(members) for _, members in study.groups] == [4, 2]
    assert study.losses["two"].shape == (6, 2)
    dice = study.dice(d.images, d.masks)
    # the same task, the same start and the same batches: identical models
    assert dice["one", 0] == dice["copy", 0] and dice["one", 1] == dice["copy", 1]
    assert dice["one", 0] != dice["one", 1]
    assert langdaug.paired_gains(dice, "one", "copy") == [0.0, 0.0]
    g = study.grad_norm(d.images[:2], d.masks[:2])
    assert set(g) == set(study.labels) and all(v > 0 for v in g.values())


def test_train_segmenters_per_seed_tasks_and_seed_counts():
    d = small("A")["A"]
    t0 = langdaug.SegTask(d.images, d.masks)
    t1 = langdaug.SegTask(d.images.flip(-1), d.masks.flip(-1))
    study = langdaug.train_segmenters(
        {"base": t0, "per seed": [t0, t1], "referee": t0},
        seeds={"base": 2, "per seed": 2, "referee": 1},
        config=SEG,
        init=lambda s: gen(100 + s),
        batches=lambda k: gen(50 + k),
    )
    assert study.labels == (
        ("base", 0), ("base", 1), ("per seed", 0), ("per seed", 1), ("referee", 0),
    )  # fmt: skip
    dice = study.dice(d.images, d.masks)
    assert dice["base", 0] == dice["per seed", 0] == dice["referee", 0]
    assert langdaug.per_seed(dice, "base") == [dice["base", 0], dice["base", 1]]


def test_train_segmenters_bad_arguments():
    d = small("A")["A"]
    t = langdaug.SegTask(d.images, d.masks)
    kw = dict(config=SEG, init=lambda s: gen(s), batches=lambda k: gen(k))
    with pytest.raises(ValueError, match="must be a SegTask or 2 of them"):
        langdaug.train_segmenters({"a": [t]}, seeds=2, **kw)
    short = langdaug.SegTask(d.images[:4], d.masks[:4])
    with pytest.raises(ValueError, match="same size"):
        langdaug.train_segmenters({"a": [t, short]}, seeds=2, **kw)
    with pytest.raises(ValueError, match="must map method names"):
        langdaug.train_segmenters({}, seeds=1, **kw)
    with pytest.raises(TypeError, match="config must be a SegConfig"):
        langdaug.train_segmenters({"a": t}, seeds=1, config=None, init=gen, batches=gen)
    with pytest.raises(ValueError, match="seeds\\['a'\\]"):
        langdaug.train_segmenters({"a": t}, seeds=0, **kw)


def test_per_seed_and_paired_gains():
    values = {("a", 1): 0.5, ("a", 0): 0.25, ("b", 0): 0.125, ("b", 2): 1.0}
    assert langdaug.per_seed(values, "a") == [0.25, 0.5]
    assert langdaug.paired_gains(values, "a", "b") == [0.125]
    with pytest.raises(ValueError, match="no values for method"):
        langdaug.per_seed(values, "c")
    with pytest.raises(ValueError, match="share no seed"):
        langdaug.paired_gains({("a", 1): 0.0, ("b", 0): 0.0}, "a", "b")


# --- one domain-generalisation split -----------------------------------------------------------
def test_langdaug_split_is_deterministic_and_shaped():
    train = small("ABC", n=8)
    tests = small("CM", n=4, seed=12)
    kw = dict(
        sources=["A", "B"],
        seeds=2,
        ebm=EBM,
        seg=SEG,
        n_chain=2,
        save_every=2,
        ebm_generator=lambda s: gen(30 + s),
        init=lambda s: gen(100 + s),
        batches=lambda k: gen(50 + k),
    )
    out1 = langdaug.langdaug_split(train, tests, **kw)
    out2 = langdaug.langdaug_split(train, tests, **kw)
    assert out1 == out2
    assert set(out1) == {"C", "M"}
    for res in out1.values():
        assert set(res) == {"ERM", "LangDAug"}
        assert all(len(v) == 2 and all(0 <= x <= 1 for x in v) for v in res.values())
    with pytest.raises(ValueError, match="at least one test domain"):
        langdaug.langdaug_split(train, {}, **kw)

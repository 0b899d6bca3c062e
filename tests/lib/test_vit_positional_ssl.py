"""Tests of the crop-tied positional-encoding module (chapter 19)."""

import json

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score as sk_r2
from sklearn.preprocessing import StandardScaler

from repbook.papers import vit_positional_ssl as V


@pytest.fixture(scope="module")
def scenes():
    return V.make_scenes(60, np.random.default_rng(0))


# -- scenes ------------------------------------------------------------------------------------
def test_boxes_and_masks_agree_with_the_pixels(scenes):
    for i in range(len(scenes)):
        n = int(scenes.counts[i])
        assert 1 <= n <= 3
        assert (scenes.labels[i, :n] > 0).all() and (scenes.labels[i, n:] == 0).all()
        assert np.isnan(scenes.boxes[i, n:]).all()
        assert set(np.unique(scenes.instances[i])) == set(range(n + 1))
        for k in range(n):
            m = scenes.instances[i] == k + 1
            rows, cols = np.nonzero(m)
            box = (cols.min(), rows.min(), cols.max() + 1, rows.max() + 1)
            np.testing.assert_array_equal(scenes.boxes[i, k], box)
            # the class mask carries the box's label on exactly the instance's pixels
            assert (scenes.classes[i][m] == scenes.labels[i, k]).all()
            # an object is one flat colour plus noise, unlike the textured background
            pix = scenes.images[i][:, m]
            assert pix.std(axis=1).max() < 0.08
        assert (scenes.classes[i][scenes.instances[i] == 0] == 0).all()


def test_shapes_have_their_geometry():
    s = V.make_scenes(400, np.random.default_rng(3), side=(0.4, 0.45))
    fill = {k: [] for k in range(1, 5)}
    for i in range(len(s)):
        for k in range(int(s.counts[i])):
            x0, y0, x1, y1 = s.boxes[i, k]
            area = (s.instances[i] == k + 1).sum()
            fill[int(s.labels[i, k])].append(area / ((x1 - x0) * (y1 - y0)))
    mean = {k: np.mean(v) for k, v in fill.items()}
    assert mean[1] > 0.95  # square fills its box
    assert abs(mean[2] - np.pi / 4) < 0.05  # disk
    assert abs(mean[3] - 0.5) < 0.06  # triangle
    assert abs(mean[4] - 5 / 9) < 0.08  # cross with arms a third of the side


def test_scenes_are_reproducible_and_seed_dependent():
    a = V.make_scenes(5, np.random.default_rng(1))
    b = V.make_scenes(5, np.random.default_rng(1))
    c = V.make_scenes(5, np.random.default_rng(2))
    np.testing.assert_array_equal(a.images, b.images)
    assert not np.array_equal(a.images, c.images)


# -- crops and the field -----------------------------------------------------------------------
def test_identity_crop_returns_the_field():
    field = torch.randn(7, 16, 16)
    out = V.crop_resize(field, V.identity_boxes(2), (16, 16))
    torch.testing.assert_close(out[0], field)
    torch.testing.assert_close(out[1], field)


def test_image_and_field_flip_together():
    rng = np.random.default_rng(0)
    img = torch.rand(1, 3, 20, 20)
    box = np.array([[0.1, 0.2, 0.6, 0.5, 0.0]])
    flipped = box.copy()
    flipped[0, 4] = 1
    plain = V.crop_resize(img, box, (8, 8))
    torch.testing.assert_close(V.crop_resize(img, flipped, (8, 8)), plain.flip(-1))
    # the same box crops a per-view map and a shared map (the field) identically
    boxes = V.sample_view_boxes(5, rng)
    per_view = V.crop_resize(img.expand(5, -1, -1, -1), boxes, (6, 6))
    shared = V.crop_resize(img[0], boxes, (6, 6))
    torch.testing.assert_close(per_view, shared)


def test_crop_agrees_with_grid_sample():
    rng = np.random.default_rng(4)
    maps = torch.rand(6, 5, 12, 12, dtype=torch.float64)
    boxes = V.sample_view_boxes(6, rng, scale=(0.1, 1.0))
    jitter = V.sample_field_jitter(6, rng)
    for jit in (None, jitter):
        x, y = V.grid_coords(boxes, (4, 7))
        if jit is not None:
            x = jit[:, 1:2] + jit[:, :1] * x
            y = jit[:, 2:3] + jit[:, :1] * y
        grid = np.stack(np.broadcast_arrays(x[:, None, :], y[:, :, None]), axis=-1)
        ref = F.grid_sample(
            maps,
            torch.as_tensor(2 * grid - 1),
            mode="bilinear",
            padding_mode="border",
            align_corners=False,
        )
        ours = V.crop_resize(maps, boxes, (4, 7), jitter=jit)
        torch.testing.assert_close(ours, ref)


def test_jitter_identity_and_range():
    rng = np.random.default_rng(0)
    field = torch.randn(3, 16, 16)
    boxes = V.sample_view_boxes(4, rng)
    ident = V.sample_field_jitter(4, rng, law="none")
    torch.testing.assert_close(
        V.crop_resize(field, boxes, (8, 8), jitter=ident),
        V.crop_resize(field, boxes, (8, 8)),
    )
    j = V.sample_field_jitter(10_000, rng)
    a, t = j[:, 0], j[:, 1:]
    assert (a > 0).all() and (t >= 0).all() and (t + a[:, None] <= 1).all()
    assert abs((1 - a).mean() - 2 / 7) < 0.01  # s ~ Beta(2, 5) has mean 2/7


def test_view_boxes_stay_inside_the_image():
    b = V.sample_view_boxes(2000, np.random.default_rng(0), scale=(0.32, 1.0))
    V.check_boxes(b)
    assert 0.4 < b[:, 4].mean() < 0.6
    assert (b[:, 2] * b[:, 3]).min() > 0.3 * 0.99


def test_patch_positions_follow_the_box():
    box = np.array([[0.0, 0.5, 0.5, 0.5, 1.0]])
    pos = V.patch_positions(box, 2).reshape(2, 2, 2)
    # flipped: the first column lies at the right of the box
    np.testing.assert_allclose(pos[0, 0], [0.875, 0.125])
    np.testing.assert_allclose(pos[1, 1], [0.625, 0.375])


# -- masks -------------------------------------------------------------------------------------
@pytest.mark.parametrize("ratio", [0.1, 0.3, 0.45])
def test_cross_mask_is_a_cross_of_the_right_size(ratio):
    rng = np.random.default_rng(0)
    for _ in range(50):
        m = V.cross_mask(8, ratio, rng)
        assert abs(m.sum() - ratio * 64) <= 2
        rows = np.nonzero(m.any(1))[0]
        cols = np.nonzero(m.any(0))[0]
        # contiguous extents, and a cell is masked iff its row or column is a bar's
        assert (np.diff(rows) == 1).all() and (np.diff(cols) == 1).all()
        full_r = m.sum(1) == m.sum(1).max()
        full_c = m.sum(0) == m.sum(0).max()
        assert (m[np.ix_(full_r, full_c)]).all()
    assert not V.cross_mask(8, 0.0, rng).any()


def test_random_mask_count():
    m = V.random_mask(8, 0.3, np.random.default_rng(0))
    assert m.shape == (8, 8) and m.sum() == round(0.3 * 64)


# -- model and training -------------------------------------------------------------------------
def test_positional_encodings_are_tied_or_relative():
    rng = np.random.default_rng(0)
    boxes = V.sample_view_boxes(3, rng)
    tied = V.TinyViT(pe="crop-tied", dim=12, heads=3, depth=1)
    rel = V.TinyViT(pe="crop-relative", dim=12, heads=3, depth=1)
    rel.field.data = tied.field.data.clone()
    p_rel = rel.positional(boxes)
    torch.testing.assert_close(p_rel[0], p_rel[1])  # every crop gets the same encodings
    p_tied = tied.positional(boxes)
    assert not torch.allclose(p_tied[0], p_tied[1])
    torch.testing.assert_close(tied.positional(V.identity_boxes(1))[0], p_rel[0])


def test_position_mask_replaces_only_the_encoding():
    m = V.TinyViT(dim=12, heads=3, depth=1)
    x = torch.rand(2, 3, 48, 48)
    boxes = V.identity_boxes(2)
    mask = torch.zeros(2, 64, dtype=torch.bool)
    mask[:, :5] = True
    with torch.no_grad():
        m.pos_mask_token.fill_(0.0)
        m.field.fill_(0.0)
        a = m(x, boxes)
        b = m(x, boxes, pos_mask=mask)
    # with a zero field and a zero mask vector the encodings are equal either way
    torch.testing.assert_close(a, b)


def test_pretrain_is_deterministic_and_seeded(scenes):
    cfg = V.SSLConfig(
        variant="B+PE+PM", steps=3, batch=4, arch=(("dim", 12), ("depth", 1))
    )
    _, t1 = V.pretrain(scenes.images[:20], cfg, np.random.default_rng(0))
    _, t2 = V.pretrain(scenes.images[:20], cfg, np.random.default_rng(0))
    _, t3 = V.pretrain(scenes.images[:20], cfg, np.random.default_rng(1))
    np.testing.assert_array_equal(t1.loss, t2.loss)
    assert not np.array_equal(t1.loss, t3.loss)
    assert np.isfinite(t1.loss).all() and (t1.feature_std >= 0).all()


def test_encode_shapes(scenes):
    m = V.TinyViT(dim=12, heads=3, depth=1)
    cls, pat = V.encode(m, scenes.images[:5], batch=2)
    assert cls.shape == (5, 12) and pat.shape == (5, 64, 12)


# -- probes and detection-lite ------------------------------------------------------------------
def test_ridge_probe_and_r2_agree_with_sklearn():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 6)) * [1, 2, 3, 4, 5, 6]
    Y = X @ rng.normal(size=(6, 2)) + rng.normal(size=(200, 2))
    ours = V.ridge_probe(X, Y, alpha=3.0).predict(X)
    Z = StandardScaler().fit_transform(X)
    ref = Ridge(alpha=3.0).fit(Z, Y).predict(Z)
    np.testing.assert_allclose(ours, ref, rtol=1e-6, atol=1e-8)
    assert V.r2_score(Y, ours) == pytest.approx(sk_r2(Y, ours))


def test_average_precision_known_answers():
    gt = [np.array([[0, 0, 10, 10.0]]), np.array([[0, 0, 10, 10.0]])]
    hit, miss = np.array([[0, 0, 10, 10.0]]), np.array([[20, 20, 30, 30.0]])
    perfect = [(hit, np.array([0.9])), (hit, np.array([0.8]))]
    assert V.average_precision(perfect, gt) == pytest.approx(1.0)
    # ranked: hit (P=1, R=.5), false positive, hit (P=2/3, R=1) -> .5 * 1 + .5 * 2/3
    dets = [(np.vstack([hit, miss]), np.array([0.9, 0.8])), (hit, np.array([0.7]))]
    assert V.average_precision(dets, gt) == pytest.approx(0.5 + 0.5 * 2 / 3)
    # a duplicate of a matched box is a false positive
    dup = [(np.vstack([hit, hit]), np.array([0.9, 0.8])), (hit, np.array([0.1]))]
    assert V.average_precision(dup, gt) == pytest.approx(0.5 + 0.5 * 2 / 3)
    # the IoU threshold decides a match: IoU of [0,0,10,10] and [0,0,10,14] is 10/14
    shifted = [(np.array([[0, 0, 10, 14.0]]), np.array([0.5])), (hit, np.array([1.0]))]
    assert V.average_precision(shifted, gt, iou=0.7) == pytest.approx(1.0)
    assert V.average_precision(shifted, gt, iou=0.75) == pytest.approx(0.5)


def test_detection_lite_with_oracle_tokens(scenes):
    """Tokens that spell out the truth must give perfect maps and near-perfect boxes."""
    t = V.patch_targets(scenes, 6)
    oracle = np.concatenate(
        [np.eye(5)[t["label"]], t["centre"][..., None], t["box"]], axis=-1
    )
    half = len(scenes) // 2
    train = V.Scenes(
        *(getattr(scenes, f)[:half] for f in V.Scenes.__dataclass_fields__)
    )
    test = V.Scenes(*(getattr(scenes, f)[half:] for f in V.Scenes.__dataclass_fields__))
    res = V.detection_lite(
        oracle[:half], train, oracle[half:], test, patch=6, alpha=1e-6
    )
    assert res.miou == pytest.approx(1.0)
    assert res.ap50 > 0.95


def test_patch_targets_count_every_object(scenes):
    t = V.patch_targets(scenes, 6)
    np.testing.assert_array_equal(t["centre"].sum(1), scenes.counts)


# -- bad inputs ----------------------------------------------------------------------------------
def test_bad_inputs_give_clear_errors(scenes):
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="boxes\\[0\\].*not a view inside the image"):
        V.crop_resize(torch.rand(3, 8, 8), [[0.5, 0.0, 0.6, 0.5, 0.0]], (4, 4))
    with pytest.raises(ValueError, match="boxes must have shape"):
        V.check_boxes([[0, 0, 1, 1]])
    with pytest.raises(ValueError, match="flip"):
        V.check_boxes([[0, 0, 1, 1, 0.5]])
    with pytest.raises(ValueError, match="patch size 5 must divide image_size 48"):
        V.TinyViT(patch=5)
    with pytest.raises(ValueError, match="patch size 5 must divide"):
        V.patch_targets(scenes, 5)
    for bad in (-0.1, 1.0, 1.5):
        with pytest.raises(ValueError, match="mask_ratio must lie in \\[0, 1\\)"):
            V.cross_mask(8, bad, rng)
        with pytest.raises(ValueError, match="mask_ratio"):
            V.random_mask(8, bad, rng)
        with pytest.raises(ValueError, match="mask_ratio"):
            V.SSLConfig(variant="B", steps=1, mask_ratio=bad)
    with pytest.raises(ValueError, match="variant must be one of"):
        V.SSLConfig(variant="DINO", steps=1)
    with pytest.raises(ValueError, match="steps must be a positive integer"):
        V.SSLConfig(variant="B", steps=0)
    with pytest.raises(ValueError, match="jitter must have shape"):
        V.crop_resize(
            torch.rand(3, 8, 8), V.identity_boxes(2), (4, 4), jitter=np.ones((3, 3))
        )
    with pytest.raises(ValueError, match="maps has 3 images but boxes has 2 views"):
        V.crop_resize(torch.rand(3, 3, 8, 8), V.identity_boxes(2), (4, 4))
    with pytest.raises(ValueError, match="pe must be"):
        V.TinyViT(pe="sinusoidal")
    with pytest.raises(ValueError, match="n must be a positive integer"):
        V.make_scenes(0, rng)
    with pytest.raises(ValueError, match="side must satisfy"):
        V.make_scenes(2, rng, side=(0.5, 0.2))
    with pytest.raises(ValueError, match="images must be 48×48"):
        V.TinyViT()(torch.rand(1, 3, 36, 36), V.identity_boxes(1))
    with pytest.raises(ValueError, match="law must be one of"):
        V.sample_field_jitter(2, rng, law="gamma")
    with pytest.raises(ValueError, match="iou must lie in"):
        V.average_precision([], [], iou=0.0)
    with pytest.raises(ValueError, match="alpha must be >= 0"):
        V.ridge_probe(np.ones((3, 2)), np.ones(3), alpha=-1)


def test_field_scale_laws_share_their_mean():
    rng = np.random.default_rng(0)
    for law in ("beta", "uniform", "constant"):
        j = V.sample_field_jitter(20_000, rng, law=law)
        assert abs((1 - j[:, 0]).mean() - 2 / 7) < 0.01, law


def test_box_mask_is_one_rectangle():
    rng = np.random.default_rng(0)
    for _ in range(50):
        m = V.box_mask(8, 0.3, rng)
        rows, cols = np.nonzero(m.any(1))[0], np.nonzero(m.any(0))[0]
        assert m[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1].all()
        assert abs(m.sum() - 0.3 * 64) <= 5


def test_position_probe_uses_the_masked_tokens(scenes):
    rng = np.random.default_rng(0)
    m = V.TinyViT(dim=12, heads=3, depth=1)
    imgs = scenes.images[:20]
    boxes = V.sample_view_boxes(20, rng)
    masks = np.stack([V.cross_mask(8, 0.3, rng) for _ in range(20)])
    full = V.position_probe(m, imgs[:10], boxes[:10], imgs[10:], boxes[10:])
    assert full.true.shape == (640, 2) and np.isfinite(full.r2)
    part = V.position_probe(
        m,
        imgs[:10],
        boxes[:10],
        imgs[10:],
        boxes[10:],
        train_masks=masks[:10],
        test_masks=masks[10:],
    )
    assert len(part.true) == masks[10:].sum()
    with pytest.raises(ValueError, match="give both train_masks and test_masks"):
        V.position_probe(
            m, imgs[:10], boxes[:10], imgs[10:], boxes[10:], train_masks=masks
        )


def test_content_probe_with_oracle_features(scenes):
    present = np.stack([(scenes.labels == c + 1).any(1) for c in range(4)], 1)
    feats = np.concatenate([np.eye(4)[scenes.counts], present], 1).astype(float)
    half = len(scenes) // 2
    split = [
        V.Scenes(*(getattr(scenes, f)[sl] for f in V.Scenes.__dataclass_fields__))
        for sl in (slice(0, half), slice(half, None))
    ]
    res = V.content_probe(feats[:half], split[0], feats[half:], split[1], alpha=1e-6)
    assert res == {"count accuracy": 1.0, "type accuracy": 1.0}


def test_field_smoothness():
    smooth = torch.ones(4, 6, 6)
    assert V.field_smoothness(smooth) == pytest.approx(1.0)
    rough = torch.randn(512, 6, 6, generator=torch.Generator().manual_seed(0))
    assert abs(V.field_smoothness(rough)) < 0.05
    with pytest.raises(ValueError, match="field must be"):
        V.field_smoothness(torch.ones(4, 1, 6))


def test_spelled_out_attention_matches_the_fused_kernel():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 10, 8, generator=g) for _ in range(3))
    torch.testing.assert_close(V.attention(q, k, v, fused=False), V.attention(q, k, v))


# -- issue 36: the trainable regime and the chapter's protocols -----------------------------------
def test_sincos_field_encodes_both_axes_and_its_scale():
    f = V.sincos_field(8, 5, std=0.02)
    assert f.shape == (8, 5, 5)
    assert float(f.std()) == pytest.approx(0.02, rel=1e-5)
    # the first half varies along columns only, the second along rows only
    torch.testing.assert_close(f[:4], f[:4, :1].expand(-1, 5, -1))
    torch.testing.assert_close(f[4:], f[4:, :, :1].expand(-1, -1, 5))
    # every cell has its own code, and neighbours are more alike than far cells
    flat = f.flatten(1).T
    assert len(torch.unique(flat, dim=0)) == 25
    assert V.field_smoothness(V.sincos_field(48, 16)) > 0.5
    m = V.TinyViT(dim=12, heads=3, depth=1, field_init="sincos")
    torch.testing.assert_close(m.field.detach(), V.sincos_field(12, 16))
    with pytest.raises(ValueError, match="multiple of 4"):
        V.sincos_field(6, 4)
    with pytest.raises(ValueError, match="field_init"):
        V.TinyViT(field_init="zeros")


def test_initial_student_is_pretrains_starting_point(scenes):
    cfg = V.SSLConfig(
        variant="B+PE", steps=1, batch=4, arch=(("dim", 12), ("depth", 1))
    )
    m0 = V.initial_student(cfg, 48, np.random.default_rng(5))
    ref = V.build_model(cfg, 48, int(np.random.default_rng(5).integers(2**31)))
    for a, b in zip(m0.state_dict().values(), ref.state_dict().values()):
        torch.testing.assert_close(a, b)
    m1, _ = V.pretrain(scenes.images[:8], cfg, np.random.default_rng(5))
    # one step moves the weights a little, from exactly those weights
    change = V.field_change(m0.field, m1.field)
    assert 0 < change < 1
    assert V.field_change(m0.field, m0.field) == 0
    with pytest.raises(ValueError, match="zero"):
        V.field_change(torch.zeros(2, 2, 2), torch.ones(2, 2, 2))


def test_field_lr_scales_only_the_fields_update(scenes):
    arch = (("dim", 12), ("depth", 1))
    moved, other = {}, {}
    for lr in (1.0, 10.0):
        cfg = V.SSLConfig(
            variant="B+PE", steps=2, batch=4, arch=arch, field_lr=lr, warmup=1
        )
        m0 = V.initial_student(cfg, 48, np.random.default_rng(0))
        m1, _ = V.pretrain(scenes.images[:8], cfg, np.random.default_rng(0))
        moved[lr] = float((m1.field - m0.field).detach().abs().mean())
        other[lr] = float(
            (m1.patch_embed.weight - m0.patch_embed.weight).detach().abs().mean()
        )
    # Adam's first steps move each weight by about lr: ten times as far for the field
    assert 5 < moved[10.0] / moved[1.0] < 15
    assert other[10.0] == pytest.approx(other[1.0], rel=0.5)
    with pytest.raises(ValueError, match="field_lr"):
        V.SSLConfig(variant="B", steps=1, field_lr=0)
    with pytest.raises(ValueError, match="field_init"):
        V.SSLConfig(variant="B", steps=1, field_init="zeros")


def test_neighbourhood_and_random_features():
    t = np.arange(2 * 9 * 1, dtype=float).reshape(2, 9, 1)  # 3×3 grid, one channel
    nb = V.neighbourhood(t, 1)
    assert nb.shape == (2, 9, 9)
    # the centre patch sees the whole grid in row-major order; a corner sees zeros outside
    np.testing.assert_array_equal(nb[0, 4], np.arange(9))
    np.testing.assert_array_equal(nb[0, 0], [0, 0, 0, 0, 0, 1, 0, 3, 4])
    np.testing.assert_array_equal(V.neighbourhood(t, 0), t)
    a, b = V.random_features(t, t[:1], 7, seed=3)
    assert a.shape == (2, 9, 7) and (a >= 0).all()
    np.testing.assert_array_equal(a[:1], b)  # one map for train and test
    with pytest.raises(ValueError, match="square grid"):
        V.neighbourhood(np.zeros((1, 8, 2)), 1)
    with pytest.raises(ValueError, match="context"):
        V.neighbourhood(t, -1)


def test_detection_chance_ap_falls_to_priors(scenes):
    t = V.patch_targets(scenes, 6)
    oracle = np.concatenate(
        [np.eye(5)[t["label"]], t["centre"][..., None], t["box"]], axis=-1
    )
    half = len(scenes) // 2
    fields = V.Scenes.__dataclass_fields__
    train = V.Scenes(*(getattr(scenes, f)[:half] for f in fields))
    test = V.Scenes(*(getattr(scenes, f)[half:] for f in fields))
    res = V.detection_lite(
        oracle[:half], train, oracle[half:], test, patch=6, alpha=1e-6, context=1,
        features=256,
    )  # fmt: skip
    assert res.ap50 > 0.5
    # another image's tokens place boxes where that image's objects were
    assert res.chance_ap50 < 0.25 * res.ap50
    with pytest.raises(ValueError, match="features"):
        V.detection_lite(oracle, scenes, oracle, scenes, patch=6, features=-1)


def test_probe_set_suite_and_encoding_probe():
    rng = np.random.default_rng(0)
    data = V.make_probe_set(6, 10, rng, size=48, grid=8)
    assert data.n_pos == 6 and data.pos_images.shape == (12, 3, 48, 48)
    np.testing.assert_array_equal(data.pos_images[6:], data.det_test.images[:6])
    m = V.TinyViT(dim=12, heads=3, depth=1, field_init="sincos")
    out = V.probe_suite(m, data, patch=6)
    assert out["det"] == {} and set(out) >= {"pos", "masked", "count accuracy"}
    assert np.isfinite(out["pos"].r2)
    heads = {"lin": dict(context=1, features=0), "rf": dict(context=0, features=8)}
    out = V.probe_suite(m, data, patch=6, heads=heads)
    nums = V.suite_numbers(out)
    assert set(out["det"]) == {"lin", "rf"}
    assert {"AP lin", "chance AP rf", "mIoU rf", "type accuracy"} <= set(nums)
    assert nums["AP lin"] == out["det"]["lin"].ap50
    with pytest.raises(ValueError, match="context and features"):
        V.probe_suite(m, data, patch=6, heads={"x": dict(alpha=1.0)})
    # a sine-cosine field codes position smoothly: a linear probe reads most of it
    boxes = V.sample_view_boxes(40, rng)
    assert V.encoding_r2(V.sincos_field(48, 16), boxes, 8) > 0.8
    with pytest.raises(ValueError, match="n_pos"):
        V.make_probe_set(11, 10, rng, size=48, grid=8)


def test_detection_study_pairs_by_seed(scenes):
    data = V.make_probe_set(4, 8, np.random.default_rng(1), size=48, grid=8)
    arch = (("dim", 12), ("depth", 1))
    cfgs = {
        v: V.SSLConfig(variant=v, steps=2, batch=4, arch=arch) for v in ("B", "B+PE+PM")
    }
    st = V.detection_study(
        scenes.images[:8], data, cfgs, [0, 1], patch=6, features=16,
        untrained_of=("B",),
    )  # fmt: skip
    assert st.seeds == (0, 1) and len(st.ap["B"]) == 2 and len(st.chance_ap["B"]) == 2
    assert np.isnan(st.untrained_ap["B+PE+PM"]).all()
    assert np.isfinite(st.untrained_ap["B"]).all()
    np.testing.assert_allclose(
        st.gains("B+PE+PM"), np.subtract(st.ap["B+PE+PM"], st.ap["B"])
    )
    with pytest.raises(ValueError, match="config of variant"):
        V.detection_study(scenes.images[:8], data, {"B": cfgs["B+PE+PM"]}, [0], patch=6)


def test_loss_ratio_reads_the_ends_of_the_trace():
    loss = np.array([4.0, 3.0, 2.0, 1.0, 1.0])
    tr = V.SSLTrace(loss, loss, loss, np.ones(5))
    assert tr.loss_ratio(2) == pytest.approx(0.25)
    assert tr.loss_ratio(50) == pytest.approx(loss.mean() / 4)
    with pytest.raises(ValueError, match="window"):
        tr.loss_ratio(0)


def test_feature_std_reads_the_backbone_cls_token(scenes, monkeypatch):
    # a backbone whose CLS token is the same for every image reads 0, whatever the
    # BatchNorm projection head makes of it
    cfg = V.SSLConfig(variant="B", steps=2, batch=4, arch=(("dim", 12), ("depth", 1)))
    _, tr = V.pretrain(scenes.images[:8], cfg, np.random.default_rng(0))
    assert (tr.feature_std > 0).all()
    forward = V.TinyViT.forward

    def collapsed(self, *a, **kw):
        t = forward(self, *a, **kw)
        return torch.cat([t[:1, :1].expand(len(t), 1, -1), t[:, 1:]], dim=1)

    monkeypatch.setattr(V.TinyViT, "forward", collapsed)
    _, tr = V.pretrain(scenes.images[:8], cfg, np.random.default_rng(0))
    np.testing.assert_allclose(tr.feature_std, 0.0, atol=1e-6)


def test_pretraining_study_pairs_step0_and_trained(scenes):
    data = V.make_probe_set(4, 8, np.random.default_rng(1), size=48, grid=8)
    arch = (("dim", 12), ("depth", 1))
    cfgs = {
        v: V.SSLConfig(variant=v, steps=3, batch=4, arch=arch, field_init="sincos")
        for v in V.VARIANTS
    }
    heads = {"lin": dict(context=1, features=0)}
    st = V.pretraining_study(
        scenes.images[:8], data, cfgs, [0, 1], patch=6, heads=heads, keep=True,
        loss_window=2,
    )  # fmt: skip
    assert st.labels == V.VARIANTS and st.seeds == (0, 1) and len(st.runs) == 6
    row = {(r["label"], r["seed"]): r for r in st.runs}
    # B+PE and B+PE+PM start from the same weights and field: one step-0 probe
    assert row["B+PE", 0]["step 0"] == row["B+PE+PM", 0]["step 0"]
    assert row["B", 0]["step 0"] != row["B+PE", 0]["step 0"]
    tr = st.traces["B", 1]
    assert row["B", 1]["loss end / step 0"] == pytest.approx(tr.loss_ratio(2))
    assert row["B", 1]["loss step 0"] == pytest.approx(tr.loss[0])
    assert row["B", 0]["seconds"] is None
    # the step-0 student is the pre-training's starting point
    m0 = V.initial_student(cfgs["B+PE"], 48, np.random.default_rng(1))
    torch.testing.assert_close(m0.field, st.initial["B+PE", 1].field)
    # the record is JSON and study_values reads it in seed order
    rec = json.loads(json.dumps(st.record()))
    vals = V.study_values(rec)
    b, pe = (row[v, 1] for v in ("B", "B+PE"))
    g = pe["trained"]["position R²"] - b["trained"]["position R²"]
    g0 = pe["step 0"]["position R²"] - b["step 0"]["position R²"]
    assert vals["R² gain (B+PE − B)"][1] == pytest.approx(g)
    assert vals["learned part Δ (gain − gain at step 0)"][1] == pytest.approx(g - g0)
    up = max(
        b["trained"][k] - b["step 0"][k] for k in ("count accuracy", "type accuracy")
    )
    assert vals["content probe rise · B"][1] == pytest.approx(up)
    pm = row["B+PE+PM", 0]["trained"]["masked-position R²"]
    assert vals["masked R² gain over B+PE"][0] == pytest.approx(
        pm - row["B+PE", 0]["trained"]["masked-position R²"]
    )
    ap = [row["B+PE+PM", s]["trained"]["AP lin"] - row["B", s]["trained"]["AP lin"]
          for s in (0, 1)]  # fmt: skip
    assert vals["AP gain (B+PE+PM − B) · lin"] == pytest.approx(ap)
    assert vals["pre-training AP gain of B · lin"][0] == pytest.approx(
        row["B", 0]["trained"]["AP lin"] - row["B", 0]["step 0"]["AP lin"]
    )
    with pytest.raises(ValueError, match="lacks runs"):
        V.study_values({**rec, "seeds": [0, 1, 2]})
    with pytest.raises(ValueError, match="seeds"):
        V.pretraining_study(scenes.images[:8], data, cfgs, [], patch=6)
    with pytest.raises(ValueError, match="SSLConfig"):
        V.pretraining_study(scenes.images[:8], data, {"B": "x"}, [0], patch=6)


def test_source_sha256_covers_every_file_of_the_package(monkeypatch):
    """The provenance a record carries: one digest over the package's files, which moves
    when any of them changes and not otherwise."""
    import hashlib
    from pathlib import Path

    here = Path(V.__file__).parent
    files = sorted(here.glob("*.py"))
    assert {f.name for f in files} >= {
        "__init__.py",
        "scenes.py",
        "model.py",
        "study.py",
    }
    want = hashlib.sha256()
    for f in files:
        want.update(f.name.encode() + b"\0" + f.read_bytes())
    assert V.source_sha256() == want.hexdigest()
    # an edit of any one part moves the digest
    real = Path.read_bytes

    def edited(path):
        return real(path) + (b"#" if path.name == "probes.py" else b"")

    monkeypatch.setattr(Path, "read_bytes", edited)
    assert V.source_sha256() != want.hexdigest()

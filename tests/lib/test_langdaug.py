import numpy as np
import pytest
import torch

from repbook.papers import langdaug


def rng(seed=0):
    return np.random.default_rng(seed)


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


# --- synthetic domains -------------------------------------------------------------------------
def test_generator_is_deterministic():
    a, b = langdaug.make_domain("A", 5, rng(3)), langdaug.make_domain("A", 5, rng(3))
    assert torch.equal(a.images, b.images) and torch.equal(a.masks, b.masks)
    c = langdaug.make_domain("A", 5, rng(4))
    assert not torch.equal(a.images, c.images)


def test_masks_match_the_drawn_disc():
    scenes = langdaug.draw_scenes(20, rng(1))
    assert set(np.unique(scenes.masks)) == {0.0, 1.0}
    for lum, m, disc in zip(scenes.luminance, scenes.masks, scenes.discs):
        np.testing.assert_array_equal(m, langdaug.disc_mask(32, *disc))
        # the disc is the brightest structure: every disc pixel outshines every other pixel
        assert lum[m > 0].min() > lum[m == 0].max()


def test_disc_mask_known_answer():
    m = langdaug.disc_mask(9, 4.0, 4.0, 2.0, 2.0, 0.0)  # a radius-2 disc at the centre
    assert m.sum() == 13  # lattice points with i² + j² ≤ 4
    assert m[4, 4] == 1 and m[4, 6] == 1 and m[4, 7] == 0


def test_styles_differ_only_in_style():
    scenes = langdaug.draw_scenes(4, rng(2))
    xa = langdaug.apply_style(scenes.luminance, "A", rng(5))
    xb = langdaug.apply_style(scenes.luminance, "B", rng(5))
    assert xa.shape == (4, 3, 32, 32) and xa.min() >= 0 and xa.max() <= 1
    assert np.abs(xa - xb).mean() > 0.05
    noiseless = langdaug.Style((1.0, 1.0, 1.0), (1.0, 1.0, 1.0), (0.0, 0.0, 0.0), 0.0)
    x = langdaug.apply_style(scenes.luminance, noiseless, rng(0))
    np.testing.assert_allclose(x[:, 0], scenes.luminance, atol=1e-7)


def test_held_out_style_is_the_centroid_of_the_sources():
    v = np.mean([langdaug.STYLES[d].vector() for d in "ABC"], axis=0)
    np.testing.assert_allclose(langdaug.STYLES["M"].vector(), v)


def test_style_mix_errors():
    with pytest.raises(ValueError, match="weights must"):
        langdaug.Style.mix([langdaug.STYLES["A"], langdaug.STYLES["B"]], [0.7, 0.7])
    with pytest.raises(ValueError, match="gamma must be positive"):
        langdaug.Style((1, 1, 1), (1, 0, 1), (0, 0, 0), 0.0)


def test_unknown_domain():
    with pytest.raises(ValueError, match="domain must be a Style or one of"):
        langdaug.make_domain("Z", 3, rng())


def test_bad_generator_arguments():
    with pytest.raises(ValueError, match="n must be a positive int"):
        langdaug.draw_scenes(0, rng())
    with pytest.raises(ValueError, match="size must be at least 8"):
        langdaug.draw_scenes(2, rng(), size=4)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        langdaug.draw_scenes(2, 0)
    with pytest.raises(ValueError, match="luminance must be finite"):
        langdaug.apply_style(np.full((1, 8, 8), 2.0), "A", rng())


def test_channel_means_and_style_distance():
    x = torch.zeros(2, 3, 4, 4)
    x[:, 0] = 0.5
    np.testing.assert_allclose(
        langdaug.channel_means(x).numpy(), [[0.5, 0, 0], [0.5, 0, 0]]
    )
    assert langdaug.style_distance(x, [0.5, 0.0, 0.0]) == pytest.approx(0.0)
    assert langdaug.style_distance(x, [0.5, 0.3, 0.4]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="target_mean must hold 3"):
        langdaug.style_distance(x, [0.1, 0.2])


# --- Dice ----------------------------------------------------------------------------------------
def test_dice_known_answers():
    a = torch.zeros(1, 4, 4)
    a[0, :2, :2] = 1
    b = torch.zeros(1, 4, 4)
    b[0, 2:, 2:] = 1
    assert langdaug.dice_score(a, a)[0] == 1.0  # identical
    assert langdaug.dice_score(a, b)[0] == 0.0  # disjoint
    empty = torch.zeros(1, 4, 4)
    assert langdaug.dice_score(empty, empty)[0] == 1.0  # both empty: nothing to miss
    assert langdaug.dice_score(empty, a)[0] == 0.0  # one empty
    c = torch.zeros(1, 4, 4)
    c[0, :2, :1] = 1  # 2 of a's 4 pixels: 2·2/(2 + 4)
    assert langdaug.dice_score(c, a)[0] == pytest.approx(2 / 3)


def test_dice_rejects_non_binary_masks():
    with pytest.raises(ValueError, match="pred must be binary"):
        langdaug.dice_score(torch.full((1, 4, 4), 0.5), torch.zeros(1, 4, 4))
    with pytest.raises(ValueError, match="must have shape"):
        langdaug.dice_score(torch.zeros(1, 4, 4), torch.zeros(1, 4, 5))


# --- samplers ------------------------------------------------------------------------------------
def quadratic(x):
    return 0.5 * (x**2).flatten(1).sum(1)


def test_code_sampler_is_exact_gradient_descent_on_a_quadratic():
    x0 = torch.tensor([[2.0, -1.0], [0.5, 3.0]], dtype=torch.float64)
    eta = 0.3
    chain = langdaug.sample_chain(quadratic, x0, steps=10, step_size=eta, save_every=5)
    assert chain.shape == (3, 2, 2)
    for j, k in enumerate((0, 5, 10)):
        torch.testing.assert_close(chain[j], (1 - eta) ** k * x0, rtol=1e-12, atol=0)


def test_langevin_sampler_reaches_the_stationary_variance():
    # x ← (1 − β/2)x + √β ω has stationary variance β / (1 − (1 − β/2)²) = 1 / (1 − β/4)
    beta, n = 0.5, 40_000
    x0 = torch.zeros(n, 1, dtype=torch.float64)
    chain = langdaug.sample_chain(
        quadratic,
        x0,
        steps=60,
        step_size=beta,
        sampler="langevin",
        generator=gen(7),
        save_every=60,
    )
    var = chain[-1].var().item()
    target = 1 / (1 - beta / 4)
    # se of a sample variance ≈ var·√(2/n) ≈ 0.0076
    assert var == pytest.approx(target, abs=4 * target * np.sqrt(2 / n))


def test_sampler_clip_and_noise_reproducible():
    x0 = torch.full((3, 2), 0.9)
    up = langdaug.sample_chain(
        lambda x: -x.sum(1), x0, steps=3, step_size=0.1, clip=(0.0, 1.0)
    )
    assert up.max() == 1.0
    a = langdaug.sample_chain(
        quadratic, x0, steps=4, step_size=0.1, sampler="langevin", generator=gen(1)
    )
    b = langdaug.sample_chain(
        quadratic, x0, steps=4, step_size=0.1, sampler="langevin", generator=gen(1)
    )
    assert torch.equal(a, b)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(steps=0, step_size=0.1), "steps must be a positive int"),
        (dict(steps=-2, step_size=0.1), "steps must be a positive int"),
        (
            dict(steps=3, step_size=0.0),
            "step_size must be a finite number > 0, got 0.0",
        ),
        (dict(steps=3, step_size=0.1, sampler="hmc"), "sampler must be one of"),
        (dict(steps=3, step_size=0.1, sampler="langevin"), "needs a torch.Generator"),
    ],
)
def test_sampler_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        langdaug.sample_chain(quadratic, torch.zeros(2, 2), **kwargs)


def test_sampler_rejects_non_finite_start():
    with pytest.raises(ValueError, match="finite"):
        langdaug.sample_chain(
            quadratic, torch.tensor([[np.nan, 0.0]]), steps=2, step_size=0.1
        )


# --- networks ------------------------------------------------------------------------------------
def test_grouped_models_equal_their_members():
    g = gen(0)
    unets = [langdaug.make_unet(g, 4, 8) for _ in range(3)]
    grouped = langdaug.GroupedUNet(unets)
    x = torch.rand(3, 2, 3, 8, 8)
    out = grouped(x)
    assert out.shape == (3, 2, 8, 8)
    for k, m in enumerate(unets):
        torch.testing.assert_close(out[k], m(x[k]), atol=1e-6, rtol=1e-5)
        torch.testing.assert_close(grouped.member(k)(x[k]), m(x[k]))
    ebms = [langdaug.make_ebm(g, (4, 8, 8)) for _ in range(2)]
    ge = langdaug.GroupedStyleEBM(ebms)
    xe = torch.rand(2, 5, 3, 16, 16)
    for k, m in enumerate(ebms):
        torch.testing.assert_close(ge(xe)[k], m(xe[k]), atol=1e-6, rtol=1e-5)
        torch.testing.assert_close(ge.member(k)(xe[k]), m(xe[k]))


def test_same_generator_state_gives_the_same_unet():
    a, b = langdaug.make_unet(gen(5), 4, 8), langdaug.make_unet(gen(5), 4, 8)
    for p, q in zip(a.parameters(), b.parameters()):
        assert torch.equal(p, q)


def test_grouped_adam_step_equals_separate_steps():
    g = gen(1)
    members = [langdaug.make_unet(g, 4, 8) for _ in range(2)]
    grouped = langdaug.GroupedUNet(members)
    x, y = torch.rand(2, 3, 3, 8, 8), (torch.rand(2, 3, 8, 8) > 0.5).float()
    opt = torch.optim.Adam(grouped.parameters(), lr=0.01)
    sum(langdaug.seg_loss(grouped(x)[k], y[k]) for k in range(2)).backward()
    opt.step()
    for k, m in enumerate(members):
        o = torch.optim.Adam(m.parameters(), lr=0.01)
        langdaug.seg_loss(m(x[k]), y[k]).backward()
        o.step()
        torch.testing.assert_close(
            grouped.member(k)(x[k]), m(x[k]), atol=1e-5, rtol=1e-4
        )


def test_unet_needs_even_sizes():
    with pytest.raises(ValueError, match="H and W must be even"):
        langdaug.UNet2(4, 8)(torch.rand(1, 3, 9, 8))
    with pytest.raises(ValueError, match="H and W must be even"):
        langdaug.SegTask(torch.rand(2, 3, 7, 7), torch.zeros(2, 7, 7))


def test_grouped_members_must_match():
    with pytest.raises(ValueError, match="same widths"):
        langdaug.GroupedUNet([langdaug.UNet2(4, 8), langdaug.UNet2(8, 16)])
    with pytest.raises(ValueError, match="G=2"):
        langdaug.GroupedUNet([langdaug.UNet2(4, 8)] * 2)(torch.rand(3, 1, 3, 8, 8))


# --- training and augmentation -------------------------------------------------------------------
def small_domains():
    r = rng(11)
    return langdaug.make_domain("A", 12, r), langdaug.make_domain("B", 12, r)


def test_pair_ebms_train_deterministically_and_augment():
    a, b = small_domains()
    kw = dict(iters=3, batch=4, steps=4, step_size=1.0, widths=(4, 8, 8))
    t1 = langdaug.train_pair_ebms(
        [a.images, b.images], [b.images, a.images], generator=gen(2), **kw
    )
    t2 = langdaug.train_pair_ebms(
        [a.images, b.images], [b.images, a.images], generator=gen(2), **kw
    )
    assert t1.losses.shape == (3, 2)
    np.testing.assert_array_equal(t1.losses, t2.losses)
    x0, m0 = (
        torch.stack([a.images[:3], b.images[:3]]),
        torch.stack([a.masks[:3], b.masks[:3]]),
    )
    aug = langdaug.langdaug_augment(
        t1.ebm, x0, m0, steps=10, step_size=1.0, save_every=5
    )
    assert aug.steps == (0, 5, 10)
    assert aug.chains.shape == (3, 2, 3, 3, 32, 32)
    assert aug.images.shape == (12, 3, 32, 32) and aug.masks.shape == (12, 32, 32)
    assert torch.equal(aug.chains[0], x0)
    # every augmentation carries its source image's mask
    torch.testing.assert_close(aug.images[:6], aug.chains[1].reshape(6, 3, 32, 32))
    assert torch.equal(aug.masks[:6], m0.reshape(6, 32, 32))
    assert torch.equal(aug.masks[6:], m0.reshape(6, 32, 32))


def test_augment_bad_arguments():
    a, _ = small_domains()
    ebm = langdaug.make_ebm(gen(0), (4, 8, 8))
    with pytest.raises(ValueError, match="multiple of save_every"):
        langdaug.langdaug_augment(
            ebm, a.images, a.masks, steps=7, step_size=1.0, save_every=5
        )
    with pytest.raises(ValueError, match="masks must be binary"):
        langdaug.langdaug_augment(
            ebm, a.images, a.masks * 0.5 + 0.25, steps=5, step_size=1.0
        )
    with pytest.raises(ValueError, match="masks must have shape"):
        langdaug.langdaug_augment(ebm, a.images, a.masks[:3], steps=5, step_size=1.0)
    bad = a.images.clone()
    bad[0, 0, 0, 0] = float("inf")
    with pytest.raises(ValueError, match="images must be finite"):
        langdaug.langdaug_augment(ebm, bad, a.masks, steps=5, step_size=1.0)
    with pytest.raises(ValueError, match="steps must be a positive int"):
        langdaug.langdaug_augment(ebm, a.images, a.masks, steps=0, step_size=1.0)


def test_train_pair_ebms_bad_arguments():
    a, b = small_domains()
    with pytest.raises(ValueError, match="must pair up"):
        langdaug.train_pair_ebms(
            [a.images],
            [b.images, a.images],
            iters=1,
            batch=2,
            steps=1,
            step_size=1.0,
            generator=gen(),
        )
    with pytest.raises(ValueError, match="non-empty list"):
        langdaug.train_pair_ebms(
            a.images,
            b.images,
            iters=1,
            batch=2,
            steps=1,
            step_size=1.0,
            generator=gen(),
        )
    with pytest.raises(ValueError, match="iters must be a positive int"):
        langdaug.train_pair_ebms(
            [a.images],
            [b.images],
            iters=0,
            batch=2,
            steps=1,
            step_size=1.0,
            generator=gen(),
        )
    with pytest.raises(TypeError, match="torch.Generator"):
        langdaug.train_pair_ebms(
            [a.images],
            [b.images],
            iters=1,
            batch=2,
            steps=1,
            step_size=1.0,
            generator=3,
        )


def test_domain_randomize_stays_in_range():
    x = torch.rand(6, 3, 8, 8)
    y = langdaug.domain_randomize(x, gen(0))
    assert y.shape == x.shape and y.min() >= 0 and y.max() <= 1
    assert not torch.equal(x, y)
    with pytest.raises(ValueError, match="gain must be"):
        langdaug.DRRange(gain=(1.5, 1.0))


def test_train_unets_and_evaluate():
    a, b = small_domains()
    tasks = [
        langdaug.SegTask(a.images, a.masks),
        langdaug.SegTask(b.images, b.masks, langdaug.DRRange()),
    ]
    trace = langdaug.train_unets(
        tasks, inits=[gen(1), gen(1)], steps=3, batch=4, generator=gen(2), widths=(4, 8)
    )
    assert trace.losses.shape == (3, 2)
    d = langdaug.segment_dice(trace.model, a.images, a.masks)
    assert d.shape == (2, 12) and ((0 <= d) & (d <= 1)).all()
    # the grouped evaluation equals evaluating each member on its own
    m0 = trace.model.member(0)
    np.testing.assert_allclose(d[0], langdaug.segment_dice(m0, a.images, a.masks))
    gn = langdaug.input_grad_norm(trace.model, a.images, a.masks)
    np.testing.assert_allclose(
        gn[0], langdaug.input_grad_norm(m0, a.images, a.masks), rtol=1e-4
    )
    assert (gn > 0).all()
    with pytest.raises(ValueError, match="one generator per task"):
        langdaug.train_unets(tasks, inits=[gen(1)], steps=1, batch=2, generator=gen())
    with pytest.raises(ValueError, match="non-empty sequence of SegTask"):
        langdaug.train_unets([], inits=[], steps=1, batch=2, generator=gen())


def test_input_grad_norm_matches_finite_differences():
    torch.set_default_dtype(torch.float64)
    try:
        m = langdaug.make_unet(gen(3), 2, 4).double()
        x = torch.rand(1, 3, 4, 4)
        y = (torch.rand(1, 4, 4) > 0.5).double()
        g = langdaug.input_grad_norm(m, x, y)[0]

        def loss(z):
            lg = m(z)
            p = torch.sigmoid(lg)
            bce = torch.nn.functional.binary_cross_entropy_with_logits(lg, y)
            return bce + 1 - (2 * (p * y).sum() + 1) / (p.sum() + y.sum() + 1)

        eps, fd = 1e-6, torch.zeros_like(x)
        for i in range(x.numel()):
            e = torch.zeros(x.numel())
            e[i] = eps
            e = e.view_as(x)
            fd.view(-1)[i] = (loss(x + e) - loss(x - e)) / (2 * eps)
        assert g == pytest.approx(fd.norm().item(), rel=1e-5)
    finally:
        torch.set_default_dtype(torch.float32)


def test_segmentation_inputs_are_checked():
    with pytest.raises(ValueError, match="images must have shape"):
        langdaug.predict_masks(langdaug.UNet2(4, 8), torch.rand(2, 1, 8, 8))
    with pytest.raises(ValueError, match="masks must be binary"):
        langdaug.SegTask(torch.rand(2, 3, 8, 8), torch.full((2, 8, 8), 2.0))


# --- VQ-VAE --------------------------------------------------------------------------------------
def test_vq_quantises_to_the_nearest_code():
    with torch.random.fork_rng():
        torch.manual_seed(0)
        vq = langdaug.VQVAE(channels=4, embed_dim=3, n_embed=5)
    z = torch.randn(2, 3, 2, 2)
    q, _, _, idx = vq.quantize(z)
    flat = z.permute(0, 2, 3, 1).reshape(-1, 3)
    brute = torch.cdist(flat, vq.codebook.detach()).argmin(1)
    assert torch.equal(idx.reshape(-1), brute)
    torch.testing.assert_close(
        q.permute(0, 2, 3, 1).reshape(-1, 3), vq.codebook.detach()[brute]
    )


def test_vqvae_trains_and_decodes():
    a, _ = small_domains()
    trace = langdaug.train_vqvae(
        a.images,
        steps=20,
        batch=6,
        generator=gen(0),
        channels=8,
        embed_dim=4,
        n_embed=8,
    )
    assert trace.losses[-5:].mean() < trace.losses[:5].mean()
    z = trace.model.latent(a.images[:2])
    assert z.shape == (2, 4, 8, 8)
    x = trace.model.decode(z)
    assert x.shape == (2, 3, 32, 32) and 0 <= x.min() and x.max() <= 1
    with pytest.raises(ValueError, match="divisible by 4"):
        trace.model(torch.rand(1, 3, 30, 30))

import numpy as np
import pandas as pd
import pytest

from repbook.papers import scaling_laws as S

TRUTH = dict(E=1.7, A=400.0, alpha=0.34, B=410.0, beta=0.28)


def grid():
    N, D = np.meshgrid([1e6, 3e6, 1e7, 3e7, 1e8], np.geomspace(1e8, 1e10, 8))
    return N.ravel(), D.ravel()


def test_recovers_known_parameters_from_noiseless_data():
    N, D = grid()
    f = S.fit_scaling_law(N, D, S.chinchilla(N, D, **TRUTH))
    for k, v in TRUTH.items():
        assert getattr(f, k) == pytest.approx(v, rel=1e-3), k
    assert f.n_points == N.size and f.cost < 1e-12


def test_fixed_parameters_are_kept_and_the_rest_recovered():
    N, D = grid()
    f = S.fit_scaling_law(
        N, D, S.chinchilla(N, D, **TRUTH), fixed={"A": 400.0, "alpha": 0.34}
    )
    assert (f.A, f.alpha) == (400.0, 0.34)
    assert f.B == pytest.approx(410.0, rel=1e-3) and f.E == pytest.approx(1.7, rel=1e-4)


def test_final_only_fit_is_a_law_in_N():
    rows = [
        ("x", n, 0, 100, 1600.0, 1.0, 1.0 + 5.0 * n**-0.5) for n in (8, 16, 32, 64, 128)
    ]
    c = pd.DataFrame(rows, columns=S.COLUMNS)
    f = S.fit_final_only(c)
    assert f.predict(512, 1600.0) == pytest.approx(1.0 + 5.0 * 512**-0.5, rel=1e-4)


def test_huber_fit_resists_an_outlier():
    N, D = grid()
    L = S.chinchilla(N, D, **TRUTH)
    L[3] *= 1.5
    f = S.fit_scaling_law(N, D, L)
    assert f.alpha == pytest.approx(0.34, rel=0.02) and f.beta == pytest.approx(
        0.28, rel=0.02
    )


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        (dict(N=[1, 2], D=[1, 2], loss=[1.0, 0.5]), "need at least 5 points"),
        (
            dict(N=[1, 2, 3, 4, 5], D=[1, 2, 3, 4, 5], loss=[1, 0.5, 0.0, 0.2, 0.1]),
            "loss must be positive",
        ),
        (
            dict(N=[1, 2, 3, 4, 5], D=[1, 2, 3, 4, 5], loss=[1, 0.5, np.nan, 0.2, 0.1]),
            "NaN",
        ),
        (dict(N=[1, 2, 3], D=[1, 2], loss=[1, 0.5, 0.2]), "one length"),
        (
            dict(N=[-1, 2, 3, 4, 5], D=[1, 2, 3, 4, 5], loss=[1, 0.5, 0.4, 0.2, 0.1]),
            "N must be positive",
        ),
    ],
)
def test_bad_inputs(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        S.fit_scaling_law(kwargs["N"], kwargs["D"], kwargs["loss"])


def test_bad_fixed():
    N, D = grid()
    with pytest.raises(ValueError, match="fixed may only name"):
        S.fit_scaling_law(N, D, S.chinchilla(N, D, **TRUTH), fixed={"gamma": 1.0})
    with pytest.raises(ValueError, match="nothing to fit"):
        S.fit_scaling_law(N, D, S.chinchilla(N, D, **TRUTH), fixed=TRUTH)


def test_are():
    assert S.are(1.1, 1.0) == pytest.approx(0.1)
    np.testing.assert_allclose(S.are([0.9, 1.2], [1.0, 1.0]), [0.1, 0.2])
    with pytest.raises(ValueError, match="positive"):
        S.are(1.0, 0.0)


def test_lr_schedule_and_checkpoints():
    r = S.lr_schedule(100, 1.0, warmup_frac=0.1, decay="cosine")
    assert r[0] == pytest.approx(0.1) and r[9] == pytest.approx(1.0) and r[-1] < 1e-3
    assert np.all(S.lr_schedule(10, 0.5) == 0.5)
    with pytest.raises(ValueError, match="decay must be one of .*, got 'step'"):
        S.lr_schedule(10, 0.5, decay="step")
    with pytest.raises(ValueError, match="steps must be a positive int, got 0"):
        S.lr_schedule(0, 0.5)
    with pytest.raises(ValueError, match="lr must be a finite number > 0, got -1"):
        S.lr_schedule(10, -1)
    ck = S.checkpoints(3000, 40)
    assert ck[0] == 1 and ck[-1] == 3000 and np.all(np.diff(ck) > 0)


@pytest.fixture(scope="module")
def family():
    return S.teacher_student_family(
        S.TeacherStudent(K=64),
        [4, 8, 16],
        range(2),
        steps=300,
        batch=8,
        lr=0.3,
        n_checkpoints=10,
    )


def test_teacher_student_family(family):
    assert list(family.columns) == S.COLUMNS
    assert family.groupby(["N", "seed"]).ngroups == 6
    finals = family[family.frac == 1.0].groupby("N").loss.mean()
    assert finals.is_monotonic_decreasing  # bigger models do better
    model = S.TeacherStudent(K=64)
    for N in (4, 8, 16):  # and never beat their floor
        floor = 0.5 * (model.tail(N) + model.noise**2)
        assert family[family.N == N].loss.min() >= floor - 1e-12
    again = S.teacher_student_family(
        S.TeacherStudent(K=64),
        [4, 8, 16],
        range(2),
        steps=300,
        batch=8,
        lr=0.3,
        n_checkpoints=10,
    )
    pd.testing.assert_frame_equal(family, again)  # seeded: identical


def test_population_loss_is_exact():
    model = S.TeacherStudent(K=16)
    rng = np.random.default_rng(0)
    w = rng.normal(size=5)
    x = rng.normal(size=(400_000, 16)) * np.sqrt(model.lam)
    y = x @ model.w_star + model.noise * rng.normal(size=400_000)
    mc = 0.5 * np.mean((x[:, :5] @ w - y) ** 2)
    assert model.loss(5, w) == pytest.approx(mc, rel=0.01)


def test_select_and_compute_cost(family):
    assert set(S.select(family, max_N=8).N) == {4, 8}
    assert (S.select(family, final_only=True).frac == 1.0).all()
    assert (S.select(family, min_frac=0.1).frac > 0.1).all()
    assert S.compute_cost(S.select(family, seeds=[0])) == (4 + 8 + 16) * 300 * 8
    with pytest.raises(ValueError, match="min_frac"):
        S.select(family, min_frac=0.5, max_frac=0.2)
    with pytest.raises(ValueError, match="lack column"):
        S.select(family.drop(columns="frac"))
    with pytest.raises(ValueError, match="no unique final"):
        S.final_loss(family, 99, 0)


def test_protocol_errors_matches_fitting_by_hand():
    c = S.teacher_student_family(
        S.TeacherStudent(K=128),
        [4, 8, 16, 32, 64],
        range(2),
        steps=400,
        batch=8,
        lr=0.3,
        n_checkpoints=12,
    )
    res = S.protocol_errors(c, target_N=64, D_target=400 * 8, max_sizes=[32], seeds=[1])
    assert list(res.protocol) == list(S.PROTOCOLS) and (res.m == 32).all()
    pts = S.select(c, max_N=32, seeds=[1])
    by_hand = S.are(
        S.fit_curves(S.select(pts, min_frac=0.1)).predict(64, 3200),
        S.final_loss(c, 64, 1),
    )
    assert res.set_index("protocol").are["after 10 %"] == pytest.approx(
        by_hand, rel=1e-12
    )
    with pytest.raises(ValueError, match="unknown protocol"):
        S.protocol_errors(
            c, target_N=64, D_target=3200, max_sizes=[32], seeds=[0], protocols=["best"]
        )


def test_protocol_errors_in_parallel_equal_the_serial_ones():
    fam = S.teacher_student_family(
        S.TeacherStudent(spectrum=1.3),
        [8, 16, 32, 64, 128],
        range(2),
        steps=300,
        batch=8,
        lr=0.5,
        n_checkpoints=10,
    )
    kw = dict(target_N=128, D_target=300 * 8, max_sizes=[32, 64], seeds=range(2))
    serial = S.protocol_errors(fam, **kw)
    parallel = S.protocol_errors(fam, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(serial, parallel)
    with pytest.raises(ValueError, match="n_jobs must be a positive int, got 0"):
        S.protocol_errors(fam, n_jobs=0, **kw)

"""The data: scikit-learn's 8×8 digits (pixels 0–16), a generator pool disjoint from the few-shot
splits, per-class Gaussian mixtures fitted on the pool, a gap knob that degrades their samples,
digits rendered from matplotlib's fonts with Pillow, and one seed's normalised tensors
(`prepare_seed`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from repbook.core import checks, nets

SIDE = 8  # the digits are 8 × 8
PIX_MAX = 16.0  # load_digits pixels count on-pixels in 4 × 4 blocks of a 32 × 32 bitmap
N_CLASSES = 10


def single_thread():
    """Run torch, BLAS and OpenMP on one thread, then restore the previous settings
    (`repbook.core.nets.single_threaded`).

    The networks and data here are tiny (at most about 1,000 × 64 inputs): handing work between
    threads costs more than it saves (several-fold on a busy machine), and one thread also makes
    every float reduction independent of the machine's thread count."""
    return nets.single_threaded()


# checks of this paper's own objects (the argument checks are the house's: core.checks)
def _images(name: str, X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != SIDE * SIDE:
        raise ValueError(f"{name} must have shape (n, {SIDE * SIDE}), got {X.shape}")
    return X


def _labels(name: str, y, n: int | None = None) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or not np.issubdtype(y.dtype, np.integer):
        raise ValueError(
            f"{name} must be a 1-D integer array, got shape {y.shape}, dtype {y.dtype}"
        )
    if n is not None and len(y) != n:
        raise ValueError(f"{name} has {len(y)} labels but there are {n} images")
    if len(y) and (y.min() < 0 or y.max() >= N_CLASSES):
        raise ValueError(
            f"{name} must lie in 0..{N_CLASSES - 1}, got {y.min()}..{y.max()}"
        )
    return y.astype(np.int64)


# ----------------------------------------------------------------------------------------------
# splits and generators
@dataclass(frozen=True)
class DigitSplit:
    """Indices into the digits: the generator's pool, the k-shot sets (nested: the 1-shot set is
    part of the 5-shot set) and a common test set (everything else)."""

    pool: np.ndarray
    shots: Mapping[int, np.ndarray]
    test: np.ndarray


def split_digits(
    y, *, pool_size: int, shots: Sequence[int], rng: np.random.Generator
) -> DigitSplit:
    """Draw a generator pool of `pool_size` images, then, from the rest, max(shots) images per
    class; the k-shot set takes the first k of each class. The test set is every image in neither
    the pool nor the largest shot set, so all shot counts are tested on the same images."""
    y = _labels("y", y)
    pool_size = checks.integer("pool_size", pool_size, at_least=1)
    shots = (
        sorted({checks.integer("each shot count", k, at_least=1) for k in shots})
        if len(shots)
        else []
    )
    if not shots:
        raise ValueError("shots must list at least one shot count, got []")
    rng = checks.generator("rng", rng)
    if pool_size >= len(y):
        raise ValueError(
            f"pool_size must be below the {len(y)} images, got {pool_size}"
        )
    order = rng.permutation(len(y))
    pool, rest = np.sort(order[:pool_size]), order[pool_size:]
    k_max = shots[-1]
    per_class = []
    for c in range(N_CLASSES):
        mine = rest[y[rest] == c]
        if len(mine) <= k_max:
            raise ValueError(
                f"class {c} has {len(mine)} images outside the pool: cannot draw "
                f"{k_max} shots and keep a test image"
            )
        per_class.append(mine[:k_max])
    shot_sets = {k: np.sort(np.concatenate([p[:k] for p in per_class])) for k in shots}
    test = np.sort(np.setdiff1d(rest, shot_sets[k_max]))
    return DigitSplit(pool=pool, shots=shot_sets, test=test)


@dataclass(frozen=True)
class GMMGenerator:
    """One Gaussian mixture per class, fitted on the pool (scikit-learn objects, kept frozen)."""

    mixtures: tuple

    def sample(
        self, n_per_class: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """`n_per_class` images of every class (pixels on the 0–16 scale, not clipped), labels."""
        n_per_class = checks.integer("n_per_class", n_per_class, at_least=1)
        rng = checks.generator("rng", rng)
        X, y = [], []
        for c, gm in enumerate(self.mixtures):
            # GaussianMixture.sample draws from its own random_state: give it one from rng.
            gm.random_state = int(rng.integers(2**31 - 1))
            Xc, _ = gm.sample(n_per_class)
            X.append(Xc)
            y.append(np.full(n_per_class, c, dtype=np.int64))
        return np.concatenate(X), np.concatenate(y)


def fit_generator(
    X_pool,
    y_pool,
    *,
    n_components: int = 3,
    reg_covar: float = 0.5,
    rng: np.random.Generator,
) -> GMMGenerator:
    """Per-class `GaussianMixture(n_components, covariance_type='diag', reg_covar)` on the pool."""
    from sklearn.mixture import GaussianMixture

    X_pool = _images("X_pool", X_pool)
    y_pool = _labels("y_pool", y_pool, len(X_pool))
    n_components = checks.integer("n_components", n_components, at_least=1)
    reg_covar = checks.number("reg_covar", reg_covar, above=0)
    rng = checks.generator("rng", rng)
    mixtures = []
    for c in range(N_CLASSES):
        Xc = X_pool[y_pool == c]
        if len(Xc) < n_components:
            raise ValueError(
                f"class {c} has {len(Xc)} pool images, fewer than "
                f"n_components={n_components}"
            )
        gm = GaussianMixture(
            n_components,
            covariance_type="diag",
            reg_covar=reg_covar,
            random_state=int(rng.integers(2**31 - 1)),
        )
        with single_thread():
            mixtures.append(gm.fit(Xc))
    return GMMGenerator(tuple(mixtures))


def apply_gap(
    X,
    gap: float,
    rng: np.random.Generator,
    *,
    shift: int = 1,
    contrast: float = 0.3,
    noise: float = 2.0,
) -> np.ndarray:
    """The real–synthetic gap knob on 8 × 8 images (0–16 scale): interpolate by `gap` toward the
    image moved `shift` pixels to the right, multiply by 1 − contrast·gap and add Gaussian noise of
    standard deviation noise·gap. gap = 0 returns the images unchanged."""
    X = _images("X", X)
    gap = checks.probability("gap", gap)
    rng = checks.generator("rng", rng)
    shift = checks.integer("shift", shift, at_least=0, at_most=SIDE - 1)
    contrast = checks.probability("contrast", contrast)
    noise = checks.number("noise", noise, at_least=0)
    img = X.reshape(-1, SIDE, SIDE)
    moved = np.zeros_like(img)
    moved[:, :, shift:] = img[:, :, : SIDE - shift]
    out = (1 - gap) * img + gap * moved
    out = out * (1 - contrast * gap) + rng.normal(0.0, noise * gap, size=out.shape)
    return out.reshape(len(X), SIDE * SIDE)


def font_files() -> list[Path]:
    """matplotlib's bundled TrueType fonts (sorted by name)."""
    import matplotlib

    return sorted((Path(matplotlib.get_data_path()) / "fonts" / "ttf").glob("*.ttf"))


def _render(font, digit: str, height: int, dx: int, dy: int) -> np.ndarray:
    """A 32 × 32 binary bitmap of one glyph, scaled to `height` pixels and centred (+dx, +dy)."""
    from PIL import Image, ImageDraw

    big = Image.new("L", (96, 96), 0)
    ImageDraw.Draw(big).text((20, 10), digit, fill=255, font=font)
    box = big.getbbox()
    if box is None:
        return np.zeros((32, 32))
    glyph = big.crop(box)
    w, h = glyph.size
    scale = height / max(h, 1)
    w2 = max(1, min(32, round(w * scale)))
    glyph = glyph.resize((w2, height), Image.Resampling.LANCZOS)
    canvas = Image.new("L", (32, 32), 0)
    canvas.paste(glyph, ((32 - w2) // 2 + dx, (32 - height) // 2 + dy))
    return (np.asarray(canvas) > 127).astype(np.float64)


def _usable_fonts(fonts: Sequence[Path]) -> list:
    """The fonts (as Pillow fonts) whose ten digits render as ten different, non-empty glyphs
    (remembered per list of font files: the check renders every digit of every font)."""
    return list(_usable_fonts_cached(tuple(str(f) for f in fonts)))


@lru_cache(maxsize=8)
def _usable_fonts_cached(fonts: tuple[str, ...]) -> tuple:
    from PIL import ImageFont

    usable = []
    for path in fonts:
        font = ImageFont.truetype(str(path), 64)
        glyphs = [_render(font, str(d), 28, 0, 0) for d in range(N_CLASSES)]
        if (
            all(g.sum() > 0 for g in glyphs)
            and len({g.tobytes() for g in glyphs}) == N_CLASSES
        ):
            usable.append(font)
    return tuple(usable)


def render_font_digits(
    n_per_class: int, rng: np.random.Generator, fonts: Sequence[Path] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Digits drawn with Pillow from fonts (default: matplotlib's), reduced the way the UCI digits
    were: a 32 × 32 binary bitmap, then on-pixel counts in 4 × 4 blocks (0–16). Each image picks a
    font, a glyph height of 22–30 pixels and an offset of up to ±2 pixels at random. Fonts whose ten
    digits do not render as ten different glyphs (symbol fonts) are skipped."""

    n_per_class = checks.integer("n_per_class", n_per_class, at_least=1)
    rng = checks.generator("rng", rng)
    fonts = font_files() if fonts is None else [Path(f) for f in fonts]
    usable = _usable_fonts(fonts)
    if not usable:
        raise ValueError(f"none of the {len(fonts)} fonts renders the ten digits")
    X, y = [], []
    for c in range(N_CLASSES):
        for _ in range(n_per_class):
            font = usable[int(rng.integers(len(usable)))]
            height = int(rng.integers(22, 31))
            dx, dy = (int(v) for v in rng.integers(-2, 3, size=2))
            bitmap = _render(font, str(c), height, dx, dy)
            X.append(bitmap.reshape(SIDE, 4, SIDE, 4).sum(axis=(1, 3)).ravel())
            y.append(c)
    return np.asarray(X), np.asarray(y, dtype=np.int64)


def n_usable_fonts(fonts: Sequence[Path] | None = None) -> int:
    """How many of the fonts `render_font_digits` would use."""
    return len(
        _usable_fonts(font_files() if fonts is None else [Path(f) for f in fonts])
    )


# ----------------------------------------------------------------------------------------------
# one seed's data for the chapter
def _tensor(X) -> torch.Tensor:
    return torch.as_tensor(np.asarray(X), dtype=torch.float32)


@dataclass(frozen=True)
class SeedData:
    """One seed's data, inputs normalised by the pool's pixel mean and standard deviation
    (float32 tensors, labels int64). `raw` keeps every generator's images on the 0–16 scale
    (for figures); `x_oracle` are the pool's own real images, the images a perfect generator
    (one that reproduces its training pool) would give."""

    split: DigitSplit
    init: int  # the networks' initialisation seed
    x_real: Mapping[int, torch.Tensor]  # per shot count k
    y_real: Mapping[int, torch.Tensor]
    synthetic: Mapping[str, tuple[torch.Tensor, torch.Tensor]]  # per generator name
    raw: Mapping[str, tuple[np.ndarray, np.ndarray]]
    x_oracle: torch.Tensor
    y_oracle: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor


def gap_name(gap: float) -> str:
    """The name of the GMM generator at `gap` ("gap 0.5")."""
    return f"gap {float(gap)}"


def prepare_seed(
    X,
    y,
    *,
    pool: int,
    shots: Sequence[int],
    n_syn: int,
    gaps: Sequence[float],
    rng: np.random.Generator,
    fonts: bool = True,
) -> SeedData:
    """Split the digits (`split_digits`), fit the generator on the pool (`fit_generator`), draw
    `n_syn` images per class once and degrade them at every gap (`apply_gap`, names `gap_name`),
    add `n_syn` font digits per class ("fonts") when `fonts`, and normalise everything by the
    pool's pixel statistics. All randomness comes from `rng`, in that order."""
    X = _images("X", X)
    y = _labels("y", y, len(X))
    n_syn = checks.integer("n_syn", n_syn, at_least=1)
    gaps = [checks.number("each gap", g, at_least=0) for g in gaps]
    if not gaps:
        raise ValueError("gaps must list at least one gap, got []")
    rng = checks.generator("rng", rng)
    split = split_digits(y, pool_size=pool, shots=shots, rng=rng)
    generator = fit_generator(X[split.pool], y[split.pool], rng=rng)
    X_base, y_syn = generator.sample(n_syn, rng)
    raw = {gap_name(g): (apply_gap(X_base, g, rng), y_syn) for g in gaps}
    if fonts:
        raw["fonts"] = render_font_digits(n_syn, rng)
    pool01 = X[split.pool] / PIX_MAX
    mean, std = pool01.mean(), pool01.std()

    def norm(A):
        return _tensor((np.asarray(A) / PIX_MAX - mean) / std)

    def labels(a):
        return torch.as_tensor(np.asarray(a), dtype=torch.int64)

    return SeedData(
        split=split,
        init=int(rng.integers(2**31 - 1)),
        x_real={k: norm(X[idx]) for k, idx in split.shots.items()},
        y_real={k: labels(y[idx]) for k, idx in split.shots.items()},
        synthetic={name: (norm(A), labels(b)) for name, (A, b) in raw.items()},
        raw=raw,
        x_oracle=norm(X[split.pool]),
        y_oracle=labels(y[split.pool]),
        x_test=norm(X[split.test]),
        y_test=labels(y[split.test]),
    )

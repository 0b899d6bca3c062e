"""Few-shot classification with synthetic data: discrepancy and robustness terms (Nguyen et al., ICML
2025, arXiv 2505.24190), written from the objective of the official lightweight code
(`cuonglannguyen/ProtoAug_lightweight`, `trainers/example_trainer.py`; read, not copied).

Notation. S are the real few-shot images with labels, G the synthetic ones, g = |G| the synthetic
count in the batch, h(x) the logits (C classes). A partition of the input space into K regions
puts each point in one region; S_k and G_k are the real and synthetic points of region k, and
mse(a, b) = ‖a − b‖² / C (torch's `mse_loss`, averaged over the classes). The training objective is

    L = ce_real·CE(h(S), y_S) + ce_syn·CE(h(G), y_G)
        + λ_dis · Σ_k Σ_{i∈S_k, j∈G_k} mse(h(s_i), h(g_j)) / (g·|S_k|)          (discrepancy)
        + λ_rob · Σ_k Σ_{i,j∈G_k}      mse(h(g_i), h(g_j)) / (g·|G_k|)          (robustness)

where, as in the released code, both sums run over the regions that hold at least one real point
(`real_regions_only=True`; set it to False for the robustness over every region). The code's
double loops are quadratic Python; here both terms take one pass over the points, no pairs: the
discrepancy uses Σ_{i∈S_k, j∈G_k} ‖a_i − b_j‖² = |S_k| Σ_{j∈G_k} ‖b_j − ā_k‖² + |G_k| Σ_{i∈S_k}
‖a_i − ā_k‖² (ā_k the mean real logit of region k), and the robustness
Σ_{i,j∈G_k} ‖a_i − a_j‖² = 2|G_k| Σ_{i∈G_k} ‖a_i − b̄_k‖² (b̄_k the mean synthetic logit).

Partitions. `OnlineKMeans` is the code's: K centroids drawn from N(0, 1) in the (normalised) input
space; each step assigns the real and synthetic points to the nearest centroid, then moves the
centroids with the synthetic points only, MacQueen style c_k ← (1 − 1/n_k)·c_k + x/n_k per point
(n_k the running count), which keeps every centroid the running mean of the points it received.
`kmeans_regions` is the alternative: scikit-learn's k-means fitted on real ∪ synthetic.

Data for the chapter: scikit-learn's 8×8 digits (pixels 0–16), a generator pool disjoint from the
few-shot splits, per-class Gaussian mixtures fitted on the pool, a gap knob that degrades their
samples, and digits rendered from matplotlib's fonts with Pillow. No printing, plotting or files.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

SIDE = 8  # the digits are 8 × 8
PIX_MAX = 16.0  # load_digits pixels count on-pixels in 4 × 4 blocks of a 32 × 32 bitmap
N_CLASSES = 10


# ----------------------------------------------------------------------------------------------
@contextmanager
def single_thread() -> Iterator[None]:
    """Run torch, BLAS and OpenMP on one thread, then restore the previous settings.

    The networks and data here are tiny (at most about 1,000 × 64 inputs): handing work between
    threads costs more than it saves (several-fold on a busy machine), and one thread also makes
    every float reduction independent of the machine's thread count."""
    from threadpoolctl import threadpool_limits

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1):
            yield
    finally:
        torch.set_num_threads(before)


# input checks
def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def _nonnegative(name: str, value) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not np.isfinite(value)
        or value < 0
    ):
        raise ValueError(f"{name} must be a finite number ≥ 0, got {value!r}")
    return float(value)


def _rng(name: str, rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"{name} must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    return rng


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
    pool_size = _positive_int("pool_size", pool_size)
    shots = (
        sorted({_positive_int("each shot count", k) for k in shots})
        if len(shots)
        else []
    )
    if not shots:
        raise ValueError("shots must list at least one shot count, got []")
    rng = _rng("rng", rng)
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
        n_per_class = _positive_int("n_per_class", n_per_class)
        rng = _rng("rng", rng)
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
    n_components = _positive_int("n_components", n_components)
    if _nonnegative("reg_covar", reg_covar) == 0:
        raise ValueError("reg_covar must be > 0, got 0")
    rng = _rng("rng", rng)
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
    gap = _nonnegative("gap", gap)
    if gap > 1:
        raise ValueError(f"gap must lie in [0, 1], got {gap!r}")
    rng = _rng("rng", rng)
    if (
        isinstance(shift, bool)
        or not isinstance(shift, (int, np.integer))
        or not 0 <= shift < SIDE
    ):
        raise ValueError(f"shift must be an int in [0, {SIDE}), got {shift!r}")
    if not 0 <= contrast <= 1:
        raise ValueError(f"contrast must lie in [0, 1], got {contrast!r}")
    _nonnegative("noise", noise)
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

    n_per_class = _positive_int("n_per_class", n_per_class)
    rng = _rng("rng", rng)
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
# partitions
def _check_points(name: str, x) -> torch.Tensor:
    if not isinstance(x, torch.Tensor) or x.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D torch tensor (n, d), got "
            f"{getattr(x, 'shape', type(x).__name__)}"
        )
    return x


def assign_regions(x: torch.Tensor, centroids: torch.Tensor) -> torch.Tensor:
    """The index of the nearest centroid (Euclidean) for every row of x."""
    x, centroids = _check_points("x", x), _check_points("centroids", centroids)
    if x.shape[1] != centroids.shape[1]:
        raise ValueError(
            f"x has {x.shape[1]} features but the centroids have {centroids.shape[1]}"
        )
    return torch.cdist(x, centroids).argmin(dim=1)


@dataclass(frozen=True)
class OnlineKMeans:
    """The code's prototype partition: centroids and the running count of points each received."""

    centroids: torch.Tensor  # (K, d)
    counts: torch.Tensor  # (K,) int64

    @classmethod
    def init(cls, K: int, dim: int, generator: torch.Generator) -> "OnlineKMeans":
        """K centroids drawn from N(0, 1) in d dimensions, counts 0 (as the code does)."""
        K, dim = _positive_int("K", K), _positive_int("dim", dim)
        if not isinstance(generator, torch.Generator):
            raise TypeError(
                f"generator must be a torch.Generator, got {type(generator).__name__}"
            )
        return cls(
            torch.randn(K, dim, generator=generator), torch.zeros(K, dtype=torch.int64)
        )

    @property
    def K(self) -> int:
        return self.centroids.shape[0]

    def update(self, x: torch.Tensor, regions: torch.Tensor) -> "OnlineKMeans":
        """MacQueen updates with the points x in their `regions`, one point at a time in effect:
        c_k ← (1 − 1/n_k)·c_k + x/n_k after each point. After m new points, c_k is the running mean
        (n_old·c_old + Σx)/(n_old + m); a centroid's random start is forgotten at its first point."""
        x = _check_points("x", x).detach()
        if regions.shape != (x.shape[0],):
            raise ValueError(
                f"regions must have shape ({x.shape[0]},), got {tuple(regions.shape)}"
            )
        if x.shape[1] != self.centroids.shape[1]:
            raise ValueError(
                f"x has {x.shape[1]} features but the centroids have "
                f"{self.centroids.shape[1]}"
            )
        m = torch.bincount(regions, minlength=self.K)
        sums = torch.zeros_like(self.centroids).index_add_(
            0, regions, x.to(self.centroids.dtype)
        )
        counts = self.counts + m
        safe = counts.clamp(min=1).to(self.centroids.dtype)[:, None]
        moved = (
            self.counts.to(self.centroids.dtype)[:, None] * self.centroids + sums
        ) / safe
        centroids = torch.where((m > 0)[:, None], moved, self.centroids)
        return OnlineKMeans(centroids, counts)

    def step(
        self, x_real: torch.Tensor, x_syn: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, "OnlineKMeans"]:
        """One training step's partition: assign both sets to the current centroids, then update
        the centroids with the synthetic points. Returns (real regions, synthetic regions, new)."""
        r_real, r_syn = (
            assign_regions(x_real, self.centroids),
            assign_regions(x_syn, self.centroids),
        )
        return r_real, r_syn, self.update(x_syn, r_syn)


def online_regions(
    x_real: torch.Tensor,
    x_syn: torch.Tensor,
    K: int,
    steps: int,
    generator: torch.Generator,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The regions the online partition gives at its `steps`-th step (what `train` uses at its
    last step with the same generator): (real regions, synthetic regions)."""
    steps = _positive_int("steps", steps)
    state = OnlineKMeans.init(K, x_syn.shape[1], generator)
    with single_thread():
        for _ in range(steps):
            r_real, r_syn, state = state.step(x_real, x_syn)
    return r_real, r_syn


@dataclass(frozen=True)
class PartitionSummary:
    """How a partition splits the synthetic points (numbers)."""

    regions_used: int  # regions holding at least one synthetic point
    purity: float  # share of synthetic points whose region's majority class is theirs
    synthetic_share: (
        float  # share of synthetic points in regions that hold a real point
    )
    regions_shared: int  # regions holding both real and synthetic points


def summarise_partition(regions_real, regions_syn, y_syn, K: int) -> PartitionSummary:
    """Regions used, class purity and overlap with the real points of a partition."""
    K = _positive_int("K", K)
    r_real = np.asarray(regions_real, dtype=np.int64)
    r_syn = np.asarray(regions_syn, dtype=np.int64)
    y_syn = _labels("y_syn", np.asarray(y_syn), len(r_syn))
    for name, r in (("regions_real", r_real), ("regions_syn", r_syn)):
        if r.ndim != 1 or (len(r) and (r.min() < 0 or r.max() >= K)):
            raise ValueError(f"{name} must be 1-D with values in 0..K-1 = 0..{K - 1}")
    if len(r_syn) == 0:
        raise ValueError("regions_syn is empty: nothing to summarise")
    counts = np.zeros((K, N_CLASSES), dtype=np.int64)
    np.add.at(counts, (r_syn, y_syn), 1)
    has_real = np.bincount(r_real, minlength=K) > 0
    has_syn = counts.sum(1) > 0
    return PartitionSummary(
        int(has_syn.sum()),
        float(counts.max(1).sum() / len(r_syn)),
        float(has_real[r_syn].mean()),
        int((has_real & has_syn).sum()),
    )


def kmeans_regions(
    x_real, x_syn, K: int, *, seed: int, n_init: int = 3
) -> tuple[np.ndarray, np.ndarray]:
    """The alternative partition: scikit-learn k-means with K clusters fitted on real ∪ synthetic.
    Returns the region of every real and every synthetic point."""
    from sklearn.cluster import KMeans

    x_real, x_syn = (
        np.asarray(x_real, dtype=np.float64),
        np.asarray(x_syn, dtype=np.float64),
    )
    if x_real.ndim != 2 or x_syn.ndim != 2 or x_real.shape[1] != x_syn.shape[1]:
        raise ValueError(
            f"x_real and x_syn must be 2-D with the same number of features, got "
            f"{x_real.shape} and {x_syn.shape}"
        )
    K = _positive_int("K", K)
    both = np.concatenate([x_real, x_syn])
    if K > len(both):
        raise ValueError(f"K must be at most the {len(both)} points, got {K}")
    with single_thread():
        labels = KMeans(K, n_init=n_init, random_state=seed).fit_predict(both)
    return labels[: len(x_real)], labels[len(x_real) :]


# ----------------------------------------------------------------------------------------------
# the objective's terms
def _check_terms(h_real, h_syn, regions_real, regions_syn, K):
    K = _positive_int("K", K)
    for name, h in (("h_real", h_real), ("h_syn", h_syn)):
        if not isinstance(h, torch.Tensor) or h.ndim != 2:
            raise ValueError(
                f"{name} must be a 2-D tensor of logits (n, C), got "
                f"{getattr(h, 'shape', type(h).__name__)}"
            )
    if h_real.shape[1] != h_syn.shape[1]:
        raise ValueError(
            f"h_real and h_syn must have the same number of classes, got "
            f"{h_real.shape[1]} and {h_syn.shape[1]}"
        )
    if h_syn.shape[0] == 0:
        raise ValueError("h_syn is empty: the terms need at least one synthetic point")
    for name, r, h in (
        ("regions_real", regions_real, h_real),
        ("regions_syn", regions_syn, h_syn),
    ):
        if (
            not isinstance(r, torch.Tensor)
            or r.shape != (h.shape[0],)
            or r.dtype != torch.int64
        ):
            raise ValueError(
                f"{name} must be an int64 tensor of shape ({h.shape[0]},), got "
                f"{getattr(r, 'shape', type(r).__name__)}"
            )
        if len(r) and (int(r.min()) < 0 or int(r.max()) >= K):
            raise ValueError(
                f"{name} must lie in 0..K-1 = 0..{K - 1}, got "
                f"{int(r.min())}..{int(r.max())}"
            )
    return K


def discrepancy_term(
    h_real: torch.Tensor,
    h_syn: torch.Tensor,
    regions_real: torch.Tensor,
    regions_syn: torch.Tensor,
    K: int,
) -> torch.Tensor:
    """Σ_k Σ_{i∈S_k, j∈G_k} mse(h(s_i), h(g_j)) / (g·|S_k|), in one pass: for each region,
    Σ_{i∈S_k} Σ_{j∈G_k} ‖a_i − b_j‖² / |S_k| = Σ_{j∈G_k} ‖b_j − ā_k‖² + (|G_k|/|S_k|)·Σ_{i∈S_k}
    ‖a_i − ā_k‖², with ā_k the mean real logit of region k (the pairs split into the distance of
    each synthetic logit to the real mean and the spread of the real logits around it)."""
    K = _check_terms(h_real, h_syn, regions_real, regions_syn, K)
    g, C = h_syn.shape
    if h_real.shape[0] == 0:
        return h_syn.sum() * 0.0
    A_real = F.one_hot(regions_real, K).to(h_real.dtype)  # (n_S, K)
    size_real = A_real.sum(0)  # |S_k|
    size_syn = torch.bincount(regions_syn, minlength=K).to(h_real.dtype)  # |G_k|
    mean_real = (A_real.T @ h_real) / size_real.clamp(min=1)[:, None]  # ā_k, (K, C)
    has_real = (size_real > 0)[regions_syn].to(h_syn.dtype)
    to_mean = ((h_syn - mean_real[regions_syn]).pow(2).sum(1) * has_real).sum()
    spread = (h_real - mean_real[regions_real]).pow(2).sum(1)  # ‖a_i − ā_k(i)‖²
    weight = (size_syn / size_real.clamp(min=1))[regions_real]  # |G_k| / |S_k|
    return (to_mean + (weight * spread).sum()) / (g * C)


def robustness_term(
    h_syn: torch.Tensor,
    regions_syn: torch.Tensor,
    K: int,
    *,
    regions_real: torch.Tensor | None = None,
) -> torch.Tensor:
    """Σ_k Σ_{i,j∈G_k} mse(h(g_i), h(g_j)) / (g·|G_k|) = (2 / (g·C)) Σ_k Σ_{i∈G_k} ‖h(g_i) − μ_k‖²,
    μ_k the mean logit of G_k. With `regions_real`, only regions holding a real point count (the
    released code's loop); without, every region."""
    real = torch.zeros(0, dtype=torch.int64) if regions_real is None else regions_real
    n_real = len(real) if isinstance(real, torch.Tensor) else 0
    width = h_syn.shape[1] if isinstance(h_syn, torch.Tensor) and h_syn.ndim == 2 else 1
    K = _check_terms(torch.zeros(n_real, width), h_syn, real, regions_syn, K)
    g, C = h_syn.shape
    A_syn = F.one_hot(regions_syn, K).to(h_syn.dtype)  # (g, K)
    size = A_syn.sum(0)  # |G_k|
    mu = (A_syn.T @ h_syn) / size.clamp(min=1)[:, None]  # (K, C)
    resid = (h_syn - mu[regions_syn]).pow(2).sum(1)  # ‖h(g_i) − μ_k(i)‖²
    if regions_real is not None:
        has_real = torch.bincount(regions_real, minlength=K) > 0
        resid = resid * has_real[regions_syn].to(resid.dtype)
    return 2.0 * resid.sum() / (g * C)


@dataclass(frozen=True)
class ObjectiveTerms:
    """The objective's value and its four parts (tensors; `total` carries the gradient)."""

    total: torch.Tensor
    ce_real: torch.Tensor
    ce_syn: torch.Tensor
    discrepancy: torch.Tensor
    robustness: torch.Tensor


def objective(
    h_real,
    y_real,
    h_syn,
    y_syn,
    regions_real,
    regions_syn,
    K: int,
    *,
    lam_dis: float,
    lam_rob: float,
    ce_real: float = 1.0,
    ce_syn: float = 1.0,
    real_regions_only: bool = True,
) -> ObjectiveTerms:
    """ce_real·CE(real) + ce_syn·CE(synthetic) + λ_dis·discrepancy + λ_rob·robustness (see the
    module docstring). A weight of 0 skips its term (it is reported as 0)."""
    lam_dis, lam_rob = (
        _nonnegative("lam_dis", lam_dis),
        _nonnegative("lam_rob", lam_rob),
    )
    ce_real, ce_syn = _nonnegative("ce_real", ce_real), _nonnegative("ce_syn", ce_syn)
    K = _check_terms(h_real, h_syn, regions_real, regions_syn, K)
    for name, y, h in (("y_real", y_real, h_real), ("y_syn", y_syn, h_syn)):
        if not isinstance(y, torch.Tensor) or y.shape != (h.shape[0],):
            raise ValueError(
                f"{name} must be a tensor of shape ({h.shape[0]},), got "
                f"{getattr(y, 'shape', type(y).__name__)}"
            )
    zero = h_syn.sum() * 0.0
    l_real = F.cross_entropy(h_real, y_real) if ce_real and len(y_real) else zero
    l_syn = F.cross_entropy(h_syn, y_syn) if ce_syn else zero
    dis = (
        discrepancy_term(h_real, h_syn, regions_real, regions_syn, K)
        if lam_dis
        else zero
    )
    rob = (
        robustness_term(
            h_syn,
            regions_syn,
            K,
            regions_real=regions_real if real_regions_only else None,
        )
        if lam_rob
        else zero
    )
    total = ce_real * l_real + ce_syn * l_syn + lam_dis * dis + lam_rob * rob
    return ObjectiveTerms(total, l_real, l_syn, dis, rob)


# ----------------------------------------------------------------------------------------------
# training
@dataclass(frozen=True)
class Method:
    """Which losses a training run uses (weights of the objective)."""

    ce_real: float
    ce_syn: float
    lam_dis: float
    lam_rob: float


def methods(lam_dis: float = 1.0, lam_rob: float = 1.0) -> dict[str, Method]:
    """The five variants compared in the chapter (same data, splits and initialisation)."""
    _nonnegative("lam_dis", lam_dis), _nonnegative("lam_rob", lam_rob)
    return {
        "real only": Method(1, 0, 0, 0),
        "synthetic only": Method(0, 1, 0, 0),
        "real + synthetic": Method(1, 1, 0, 0),
        "+ λ_dis": Method(1, 1, lam_dis, 0),
        "+ λ_dis + λ_rob": Method(1, 1, lam_dis, lam_rob),
    }


def mlp(sizes: Sequence[int] = (64, 128, 10), *, seed: int) -> torch.nn.Sequential:
    """A ReLU MLP with the given layer sizes, initialised from `seed` without touching torch's
    global generator."""
    sizes = [_positive_int("each layer size", s) for s in sizes]
    if len(sizes) < 2:
        raise ValueError(
            f"sizes must list at least an input and an output size, got {sizes}"
        )
    layers = []
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        for a, b in zip(sizes, sizes[1:]):
            layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers[:-1])


def train(
    model: torch.nn.Module,
    method: Method,
    x_real: torch.Tensor,
    y_real: torch.Tensor,
    x_syn: torch.Tensor,
    y_syn: torch.Tensor,
    *,
    epochs: int,
    K: int,
    generator: torch.Generator,
    partition: str = "online",
    lr: float = 1e-3,
    weight_decay: float = 1e-4,
    kmeans_seed: int = 0,
) -> torch.nn.Module:
    """Full-batch Adam on the objective for `epochs` steps (in place; returns the model).

    `partition="online"`: the code's online k-means, centroids from `generator`, one assignment and
    MacQueen update per step; `"kmeans"`: k-means on real ∪ synthetic, fitted once. The partition
    does not depend on the model, so it is only computed when a regulariser uses it."""
    if not isinstance(method, Method):
        raise TypeError(f"method must be a Method, got {type(method).__name__}")
    epochs, K = _positive_int("epochs", epochs), _positive_int("K", K)
    if partition not in ("online", "kmeans"):
        raise ValueError(f"partition must be 'online' or 'kmeans', got {partition!r}")
    for name, x, y in (("real", x_real, y_real), ("synthetic", x_syn, y_syn)):
        if x.ndim != 2 or y.shape != (x.shape[0],):
            raise ValueError(
                f"the {name} images must be (n, d) with n labels, got "
                f"{tuple(x.shape)} and {tuple(y.shape)}"
            )
    if x_real.shape[1] != x_syn.shape[1]:
        raise ValueError(
            f"real and synthetic images differ in size: {x_real.shape[1]} and "
            f"{x_syn.shape[1]}"
        )
    if method.ce_real and len(y_real) == 0:
        raise ValueError("this method trains on real images, but there are none")
    if method.ce_syn and len(y_syn) == 0:
        raise ValueError("this method trains on synthetic images, but there are none")
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    regularised = bool(method.lam_dis or method.lam_rob)
    uses_syn = bool(method.ce_syn or regularised)
    uses_real = bool(method.ce_real or method.lam_dis)
    r_real, r_syn = (
        torch.zeros(len(y_real), dtype=torch.int64),
        torch.zeros(len(y_syn), dtype=torch.int64),
    )
    if regularised and partition == "kmeans":  # fitted once: the inputs do not change
        a, b = kmeans_regions(x_real.numpy(), x_syn.numpy(), K, seed=kmeans_seed)
        r_real, r_syn = (
            torch.as_tensor(a, dtype=torch.int64),
            torch.as_tensor(b, dtype=torch.int64),
        )
    state = (
        OnlineKMeans.init(K, x_syn.shape[1], generator)
        if regularised and partition == "online"
        else None
    )
    with single_thread():
        _train_loop(
            model,
            opt,
            method,
            x_real,
            y_real,
            x_syn,
            y_syn,
            epochs,
            K,
            state,
            r_real,
            r_syn,
            uses_real,
            uses_syn,
        )
    return model


def _train_loop(
    model,
    opt,
    method,
    x_real,
    y_real,
    x_syn,
    y_syn,
    epochs,
    K,
    state,
    r_real,
    r_syn,
    uses_real,
    uses_syn,
):
    empty = torch.zeros(0, dtype=torch.int64)
    for _ in range(epochs):
        if state is not None:
            r_real, r_syn, state = state.step(x_real, x_syn)
        h_real = model(x_real) if uses_real else model(x_real[:0])
        h_syn = model(x_syn) if uses_syn else model(x_syn[:0])
        if not uses_syn:  # real only: plain cross-entropy
            loss = F.cross_entropy(h_real, y_real)
        elif not uses_real and not method.lam_rob:  # synthetic only
            loss = F.cross_entropy(h_syn, y_syn)
        else:
            loss = objective(
                h_real,
                y_real if uses_real else empty,
                h_syn,
                y_syn,
                r_real if uses_real else empty,
                r_syn,
                K,
                lam_dis=method.lam_dis,
                lam_rob=method.lam_rob,
                ce_real=method.ce_real,
                ce_syn=method.ce_syn,
            ).total
        opt.zero_grad()
        loss.backward()
        opt.step()


@torch.no_grad()
def accuracy(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    """Share of rows of x whose largest logit is the label."""
    if x.shape[0] != y.shape[0] or x.shape[0] == 0:
        raise ValueError(
            f"x and y must hold the same, non-zero number of rows, got "
            f"{x.shape[0]} and {y.shape[0]}"
        )
    return float((model(x).argmax(1) == y).double().mean())


@dataclass(frozen=True)
class Ingredients:
    """The bound's data-dependent terms measured on a trained model (numbers)."""

    discrepancy: (
        float  # Σ_k Σ_{S_k×G_k} mse / (g·|S_k|), regions of the given partition
    )
    robustness: float  # Σ_k Σ_{G_k×G_k} mse / (g·|G_k|), every region
    regions_shared: int  # regions holding both real and synthetic points
    synthetic_share: (
        float  # share of synthetic points in regions that hold a real point
    )


@torch.no_grad()
def bound_ingredients(
    model: torch.nn.Module,
    x_real: torch.Tensor,
    x_syn: torch.Tensor,
    regions_real,
    regions_syn,
    K: int,
) -> Ingredients:
    """Model-based discrepancy between the real and synthetic points of each region, and local
    robustness (spread of the logits of the synthetic points within each region)."""
    r_real = torch.as_tensor(np.asarray(regions_real), dtype=torch.int64)
    r_syn = torch.as_tensor(np.asarray(regions_syn), dtype=torch.int64)
    h_real, h_syn = model(x_real), model(x_syn)
    dis = discrepancy_term(h_real, h_syn, r_real, r_syn, K)
    rob = robustness_term(h_syn, r_syn, K)
    has_real = torch.bincount(r_real, minlength=K) > 0
    shared = int((has_real & (torch.bincount(r_syn, minlength=K) > 0)).sum())
    return Ingredients(
        float(dis), float(rob), shared, float(has_real[r_syn].double().mean())
    )


# ----------------------------------------------------------------------------------------------
# the released configurations, and the chapter's protocol
#: The weights of the objective in the released configurations (`configs/*.json` of the
#: lightweight code): `clip_vit_caltech` (CLIP ViT, the paper's headline model) and
#: `clip_resnet` (a ResNet-50 trained from scratch on Oxford Pets).
CONFIGS: dict[str, Method] = {
    "clip_vit_caltech": Method(ce_real=4.0, ce_syn=1.0, lam_dis=0.1, lam_rob=1.0),
    "clip_resnet": Method(ce_real=1.0, ce_syn=1.0, lam_dis=0.05, lam_rob=1.0),
}


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
    n_syn = _positive_int("n_syn", n_syn)
    gaps = [_nonnegative("each gap", g) for g in gaps]
    if not gaps:
        raise ValueError("gaps must list at least one gap, got []")
    rng = _rng("rng", rng)
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


def fit(
    method: Method,
    x_real: torch.Tensor,
    y_real: torch.Tensor,
    x_syn: torch.Tensor,
    y_syn: torch.Tensor,
    *,
    init: int,
    epochs: int,
    K: int,
    generator: torch.Generator,
    partition: str = "online",
    **kw,
) -> torch.nn.Sequential:
    """A fresh `mlp(seed=init)` trained with `train` (arguments as there; `kmeans_seed` defaults
    to `init`)."""
    kw.setdefault("kmeans_seed", init)
    net = mlp(seed=init)
    return train(
        net, method, x_real, y_real, x_syn, y_syn, epochs=epochs, K=K,
        generator=generator, partition=partition, **kw,
    )  # fmt: skip


REAL_ONLY, SYN_ONLY, ORACLE = "real only", "synthetic only", "oracle (pool images)"
NAIVE = "real + synthetic"


def _check_rng_for(rng_for) -> None:
    if not callable(rng_for):
        raise TypeError(
            "rng_for must be a callable stream → torch.Generator "
            f"(e.g. run.torch_generator), got {type(rng_for).__name__}"
        )


def cell_stream(r: int, k: int, g_index: int) -> int:
    """The prototype stream of seed r's cell (k shots, generator number g_index): every
    regularised variant of a cell sees the same online partition."""
    return 1000 * (r + 1) + 10 * int(k) + int(g_index)


def run_grid(
    data: Sequence[SeedData],
    variants: Mapping[str, Method],
    *,
    epochs: int,
    K: int,
    rng_for,
    only_on: Mapping[str, Sequence[str]] | None = None,
    kmeans_variants: Sequence[str] = (),
    naive: str = NAIVE,
) -> tuple[list[dict], list[dict]]:
    """The chapter's experiment. For every seed r (the index in `data`), generator and shot count
    k: the `variants` (name → Method, real and synthetic images), from the seed's
    initialisation and the cell's prototype stream `rng_for(cell_stream(r, k, g))`. Besides:
    synthetic only once per generator and real only and the oracle (naive objective with the
    pool's real images as the synthetic set) once per k, since they do not depend on the rest.
    `only_on` restricts a variant to some generators; each name in `kmeans_variants` is also
    trained with the k-means partition (as "<name> (k-means on S ∪ G)", gap-knob generators
    only). After each `naive` run the bound's ingredients are measured on the trained model,
    with k-means regions (K) on real ∪ synthetic inputs (`bound_ingredients`).

    Returns (rows, ingredients): one dict per trained model and test (seed, k, generator,
    method, acc; real only, synthetic only and the oracle listed under every generator) and one
    per naive run (seed, k, generator, error, discrepancy, robustness, shared, share)."""
    _check_rng_for(rng_for)
    only_on = dict(only_on or {})
    for name in list(only_on) + list(kmeans_variants) + [naive]:
        if name not in variants:
            raise ValueError(f"{name!r} is not one of the variants {sorted(variants)}")
    if not data:
        raise ValueError("data must hold at least one seed, got none")
    rows, ingredients = [], []
    for r, d in enumerate(data):
        gens, shots = list(d.synthetic), sorted(d.x_real)

        def test(net, method, k, gens_, **extra):
            acc = accuracy(net, d.x_test, d.y_test)
            for name in gens_:
                rows.append(
                    dict(seed=r, k=k, generator=name, method=method, acc=acc, **extra)
                )
            return acc

        empty_x, empty_y = d.x_real[shots[0]][:0], d.y_real[shots[0]][:0]
        for name in gens:
            x_syn, y_syn = d.synthetic[name]
            net = fit(
                Method(0, 1, 0, 0), empty_x, empty_y, x_syn, y_syn, init=d.init,
                epochs=epochs, K=K, generator=rng_for(r),
            )  # fmt: skip
            for k in shots:
                test(net, SYN_ONLY, k, [name])
        for k in shots:
            x_real, y_real = d.x_real[k], d.y_real[k]
            x0, y0 = d.synthetic[gens[0]]
            net = fit(
                Method(1, 0, 0, 0), x_real, y_real, x0, y0, init=d.init,
                epochs=epochs, K=K, generator=rng_for(r),
            )  # fmt: skip
            test(net, REAL_ONLY, k, gens)
            net = fit(
                variants[naive], x_real, y_real, d.x_oracle, d.y_oracle, init=d.init,
                epochs=epochs, K=K, generator=rng_for(r),
            )  # fmt: skip
            test(net, ORACLE, k, gens)
            for gi, name in enumerate(gens):
                x_syn, y_syn = d.synthetic[name]
                stream = cell_stream(r, k, gi)
                for vname, meth in variants.items():
                    if vname in only_on and name not in only_on[vname]:
                        continue
                    net = fit(
                        meth, x_real, y_real, x_syn, y_syn, init=d.init,
                        epochs=epochs, K=K, generator=rng_for(stream),
                    )  # fmt: skip
                    acc = test(net, vname, k, [name])
                    if vname == naive:
                        reg_r, reg_g = kmeans_regions(
                            x_real.numpy(), x_syn.numpy(), K, seed=d.init
                        )
                        ing = bound_ingredients(net, x_real, x_syn, reg_r, reg_g, K)
                        ingredients.append(
                            dict(
                                seed=r, k=k, generator=name, error=1 - acc,
                                discrepancy=ing.discrepancy,
                                robustness=ing.robustness,
                                shared=ing.regions_shared,
                                share=ing.synthetic_share,
                            )
                        )  # fmt: skip
                if name == "fonts":
                    continue
                for vname in kmeans_variants:
                    net = fit(
                        variants[vname], x_real, y_real, x_syn, y_syn, init=d.init,
                        epochs=epochs, K=K, generator=rng_for(stream),
                        partition="kmeans",
                    )  # fmt: skip
                    test(net, f"{vname} (k-means on S ∪ G)", k, [name])
    return rows, ingredients


def paired_gains(
    rows: Sequence[Mapping],
    method: str,
    reference: str,
    cells: Sequence[tuple[str, int]],
) -> dict[tuple[str, int], list[float]]:
    """Per (generator, k) cell, the per-seed accuracy differences `method` − `reference`
    (seeds in order). Every seed must have both in every cell."""
    acc: dict[tuple, float] = {}
    for row in rows:
        acc[(row["generator"], row["k"], row["method"], row["seed"])] = row["acc"]
    seeds = sorted({row["seed"] for row in rows})
    out = {}
    for name, k in cells:
        gains = []
        for s in seeds:
            a = acc.get((name, k, method, s))
            b = acc.get((name, k, reference, s))
            if a is None or b is None:
                missing = method if a is None else reference
                raise ValueError(
                    f"no {missing!r} accuracy for seed {s} in cell ({name!r}, k={k})"
                )
            gains.append(a - b)
        out[(name, k)] = gains
    return out


def mean_over_cells(gains: Mapping[tuple[str, int], Sequence[float]]) -> list[float]:
    """Per seed, the mean of a `paired_gains` result over its cells (the average over our
    benchmark cells, as the paper averages over data sets)."""
    if not gains:
        raise ValueError("gains must hold at least one cell, got none")
    return np.asarray(list(gains.values()), dtype=float).mean(axis=0).tolist()


def partition_summaries(
    data: Sequence[SeedData],
    generators: Sequence[str],
    *,
    K: int,
    steps: int,
    rng_for,
) -> list[dict]:
    """For each seed, shot count and generator: `summarise_partition` of the online partition
    at training's last step (the same prototype stream as `run_grid`'s cell) and of k-means on
    real ∪ synthetic. One dict per (seed, k, generator, partition)."""
    _check_rng_for(rng_for)
    out = []
    for r, d in enumerate(data):
        gens = list(d.synthetic)
        for k in sorted(d.x_real):
            x_real = d.x_real[k]
            for name in generators:
                if name not in d.synthetic:
                    raise ValueError(f"generator {name!r} is not in the data {gens}")
                x_syn, y_syn = d.synthetic[name]
                stream = cell_stream(r, k, gens.index(name))
                online = online_regions(x_real, x_syn, K, steps, rng_for(stream))
                kmeans = kmeans_regions(x_real.numpy(), x_syn.numpy(), K, seed=d.init)
                for label, (a, b) in [
                    ("online (training)", online),
                    ("k-means on S ∪ G", kmeans),
                ]:
                    s = summarise_partition(a, b, y_syn.numpy(), K)
                    out.append(
                        dict(
                            seed=r, k=k, generator=name, partition=label,
                            regions=s.regions_used, purity=s.purity,
                            share=s.synthetic_share,
                        )
                    )  # fmt: skip
    return out


def lambda_grid(
    data: Sequence[SeedData],
    lams: Sequence[float],
    *,
    k: int,
    generator: str,
    ce_real: float,
    ce_syn: float,
    epochs: int,
    K: int,
    rng_for,
) -> np.ndarray:
    """Mean test accuracy over the seeds for every (λ_dis, λ_rob) in lams × lams (rows λ_dis),
    with the given cross-entropy weights, in one cell (k shots, `generator`), online partition
    on the cell's stream."""
    _check_rng_for(rng_for)
    lams = [_nonnegative("each λ", v) for v in lams]
    grid = np.full((len(lams), len(lams)), np.nan)
    for a, lam_dis in enumerate(lams):
        for b, lam_rob in enumerate(lams):
            accs = []
            for r, d in enumerate(data):
                x_syn, y_syn = d.synthetic[generator]
                stream = cell_stream(r, k, list(d.synthetic).index(generator))
                net = fit(
                    Method(ce_real, ce_syn, lam_dis, lam_rob), d.x_real[k], d.y_real[k],
                    x_syn, y_syn, init=d.init, epochs=epochs, K=K,
                    generator=rng_for(stream),
                )  # fmt: skip
                accs.append(accuracy(net, d.x_test, d.y_test))
            grid[a, b] = float(np.mean(accs))
    return grid

"""LangDAug: Langevin traversal between source domains as data augmentation (Tiwary,
Bhattacharyya, Prathosh A. P., ICML 2025, arXiv 2505.19659), on synthetic fundus-like domains.

Notation. Domains D_1..D_n share the anatomy and differ in acquisition style. For an ordered pair
i → j an energy-based model f_ij (a small conv net; f is the *negative* energy, E = −f) is trained
by contrastive divergence: chains start at images of domain i, move a few steps uphill on f, and
the loss −(f(x_j) − f(x_chain)) pulls f up on domain j and down where the chains stopped. The
samplers, started at an image x_0 of domain i:

- ``"langevin"`` (the paper): x_{k+1} = x_k − (β/2)∇E(x_k) + √β·ω_k, ω_k ~ N(0, I);
- ``"code"`` (the released code): x_{k+1} = x_k − η∇E(x_k), plain gradient descent on E
  (gradient ascent on f with an SGD learning rate η), no noise.

Every ``save_every``-th iterate (5, 10, …, K) becomes an augmentation labelled with the source
image's mask. A 2-level UNet trained with BCE + Dice segments the disc.

Images are float32 tensors (n, 3, H, W) in [0, 1]; masks are (n, H, W) with values 0 and 1.
Randomness comes in as ``numpy.random.Generator`` (data) or ``torch.Generator`` (chains, batches,
network initialisation). No printing, plotting or file writing.

The package, split at the sections of the former module: `domains` (the synthetic domains),
`networks` (Dice, the EBMs and UNets), `samplers` (chains, CD training, augmentations), `vqvae`,
`segmentation` (domain randomisation, UNet training and evaluation), `measures` (along the
chains), `protocols` (pair EBMs, segmenters side by side, one split), `studies` (the chapter's
experiments, built from those) and `readings` (its tables and generated sentences).
"""

from .domains import (
    STYLES,
    Domain,
    Scenes,
    Style,
    apply_style,
    channel_means,
    disc_mask,
    draw_scenes,
    get_style,
    hull_distance,
    make_domain,
    style_distance,
)
from .measures import disc_contrast, mask_auc, normalised_traversal, ordered_pairs
from .networks import (
    GroupedStyleEBM,
    GroupedUNet,
    StyleEBM,
    UNet2,
    dice_score,
    make_ebm,
    make_unet,
    seg_loss,
    soft_dice_loss,
)
from .protocols import (
    EBMConfig,
    PairAugmentation,
    SegConfig,
    SegStudy,
    langdaug_split,
    pair_augmentations,
    paired_gains,
    per_seed,
    train_segmenters,
)
from .samplers import (
    SAMPLERS,
    Augmentations,
    EBMTrace,
    ebm_energy,
    langdaug_augment,
    sample_chain,
    train_pair_ebms,
)
from .segmentation import (
    SCHEDULES,
    DRRange,
    SegTrace,
    SegTask,
    domain_randomize,
    input_grad_norm,
    poly_lr,
    predict_masks,
    segment_dice,
    train_unets,
)
from .vqvae import VQVAE, VQTrace, train_vqvae
from .studies import (
    FIT,
    GainMeasures,
    LabelCheck,
    LodoSummary,
    SamplerComparison,
    chain_starts,
    compare_samplers,
    domain_gap,
    gain_measures,
    k_sweep,
    label_check,
    lodo_splits,
    lodo_summary,
    make_domains,
    mean_of,
    method_tasks,
    pair_names,
    resolution,
    source_grad_norm,
    target_means,
)
from . import readings  # noqa: E402 (tables and sentences: a submodule)

__all__ = [
    "apply_style",
    "Augmentations",
    "chain_starts",
    "channel_means",
    "compare_samplers",
    "dice_score",
    "disc_contrast",
    "disc_mask",
    "Domain",
    "domain_gap",
    "domain_randomize",
    "draw_scenes",
    "DRRange",
    "ebm_energy",
    "EBMConfig",
    "EBMTrace",
    "FIT",
    "gain_measures",
    "GainMeasures",
    "get_style",
    "GroupedStyleEBM",
    "GroupedUNet",
    "hull_distance",
    "input_grad_norm",
    "k_sweep",
    "label_check",
    "LabelCheck",
    "langdaug_augment",
    "langdaug_split",
    "lodo_splits",
    "lodo_summary",
    "LodoSummary",
    "make_domain",
    "make_domains",
    "make_ebm",
    "make_unet",
    "mask_auc",
    "mean_of",
    "method_tasks",
    "normalised_traversal",
    "ordered_pairs",
    "pair_augmentations",
    "pair_names",
    "PairAugmentation",
    "paired_gains",
    "per_seed",
    "poly_lr",
    "predict_masks",
    "resolution",
    "sample_chain",
    "SamplerComparison",
    "SAMPLERS",
    "Scenes",
    "SCHEDULES",
    "seg_loss",
    "SegConfig",
    "segment_dice",
    "SegStudy",
    "SegTask",
    "SegTrace",
    "soft_dice_loss",
    "source_grad_norm",
    "Style",
    "style_distance",
    "StyleEBM",
    "STYLES",
    "target_means",
    "train_pair_ebms",
    "train_segmenters",
    "train_unets",
    "train_vqvae",
    "UNet2",
    "VQTrace",
    "VQVAE",
    "readings",
]

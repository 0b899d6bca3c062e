"""Crop-tied positional encodings and position masking for self-supervised ViTs, in miniature.

After Liu, Suganuma and Okatani, *Self-Supervised Learning of Intertwined Content and Positional
Features for Object Detection* (ICML 2025). No official code exists; the method follows the
paper's abstract and secondary summaries, and every detail beyond them is our choice.

Pieces:

- `make_scenes`: synthetic multi-object images (coloured squares, disks, triangles, crosses on a
  textured background) with instance and class masks and boxes.
- Views: a view is a box ``(top, left, height, width, flip)`` in image fractions. `crop_resize`
  samples any map (an image, or the positional field) at the centres of an output grid laid over
  that box, by separable bilinear interpolation (a matrix product, so its gradient is
  deterministic on every device).
- `TinyViT`: a small ViT whose positional encoding is a learnable *field* ``P`` of shape
  ``(dim, h_p, w_p)``. ``pe="crop-relative"`` samples ``P`` over the view itself (the usual
  encoding: every crop gets the same vectors); ``pe="crop-tied"`` samples ``P`` over the view's
  box in the original image, after a random scale ``a = 1 - s`` (``s ~ Beta(2, 5)``) and
  translation of the image inside the field.
- Position masking: the encodings of a cross-shaped set of patches are replaced by a learnable
  vector; the student then predicts the (unmasked) teacher's tokens there.
- `pretrain`: an EMA teacher, a cosine loss on the CLS token across two views (BYOL style), and a
  cosine regression of masked student patch tokens onto the teacher's.
- Frozen-feature probes: `ridge_probe` (position, image-level content), `detection_lite`
  (per-patch class and centre heads, box offsets, mIoU on the patch grid, AP at IoU 0.5).

Parts, one file each (every public name is re-exported here, so `vit_positional_ssl.f(...)`
works): `scenes` (scenes, views, the field, crops, masks), `model` (the tiny ViT and
pre-training), `probes` (frozen features, probes, detection-lite, the probe suite), `study`
(the chapter's protocols and the pre-training study over seeds). The committed records under
`data/19_vit_positional_ssl/` were made when this was one file, `vit_positional_ssl.py`, and
carry that file's sha256 (the study and pilot records its version of commit 1ee0107, the
detection record that of ed67848); the split moved code without changing it. A record made
now carries `source_sha256()`.
"""

import hashlib
from pathlib import Path

from .scenes import (
    SHAPES,
    VARIANTS,
    Scenes,
    make_scenes,
    check_boxes,
    identity_boxes,
    sample_view_boxes,
    FIELD_SCALES,
    sample_field_jitter,
    grid_coords,
    interp_weights,
    crop_resize,
    random_mask,
    cross_mask,
    box_mask,
)
from .model import (
    FIELD_INITS,
    sincos_field,
    attention,
    TinyViT,
    SMALL_ARCH,
    SSLConfig,
    SSLTrace,
    build_model,
    initial_student,
    field_change,
    pretrain,
)
from .probes import (
    encode,
    patch_positions,
    RidgeProbe,
    ridge_probe,
    r2_score,
    patch_targets,
    box_iou,
    average_precision,
    neighbourhood,
    random_features,
    DetectionResult,
    detection_lite,
    PositionResult,
    position_probe,
    content_probe,
    field_smoothness,
)
from .study import (
    ProbeSet,
    make_probe_set,
    HEADS,
    probe_suite,
    suite_numbers,
    encoding_r2,
    DetectionStudy,
    detection_study,
    Study,
    pretraining_study,
    study_values,
)

__all__ = [
    "source_sha256",
    "SHAPES",
    "VARIANTS",
    "Scenes",
    "make_scenes",
    "check_boxes",
    "identity_boxes",
    "sample_view_boxes",
    "FIELD_SCALES",
    "sample_field_jitter",
    "grid_coords",
    "interp_weights",
    "crop_resize",
    "random_mask",
    "cross_mask",
    "box_mask",
    "FIELD_INITS",
    "sincos_field",
    "attention",
    "TinyViT",
    "SMALL_ARCH",
    "SSLConfig",
    "SSLTrace",
    "build_model",
    "initial_student",
    "field_change",
    "pretrain",
    "encode",
    "patch_positions",
    "RidgeProbe",
    "ridge_probe",
    "r2_score",
    "patch_targets",
    "box_iou",
    "average_precision",
    "neighbourhood",
    "random_features",
    "DetectionResult",
    "detection_lite",
    "PositionResult",
    "position_probe",
    "content_probe",
    "field_smoothness",
    "ProbeSet",
    "make_probe_set",
    "HEADS",
    "probe_suite",
    "suite_numbers",
    "encoding_r2",
    "DetectionStudy",
    "detection_study",
    "Study",
    "pretraining_study",
    "study_values",
]


def source_sha256() -> str:
    """The sha256 of this package's source (each file's name and bytes, in name order): the
    provenance a record of the study carries."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()

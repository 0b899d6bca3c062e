"""Claim 3's recorded CPU run: detection-lite AP over three pre-training seeds.

The quick chapter pre-trains one seed per variant, too few for a paired gain; this script runs
its own regime (REGIME below: 600 steps of 16 images, the small ViT, the sine-cosine field at
10x the network's learning rate; its own data and seed streams, numpy default_rng(1) for the
pre-training images, default_rng(2) for the probe images, default_rng(s) per seed s) on seeds
0, 1 and 2 for B and B+PE+PM, and writes detection_record.json beside it, which the chapter
reads. The step-0 AP is scored for B only (B+PE+PM's is stored as null). The record names the
sha256 of this script and of the paper package it ran (`V.source_sha256()`). Run it from the
repository root, under the heavy-work lock on a shared machine:

    flock /tmp/repbook-heavy.lock .venv/bin/python data/19_vit_positional_ssl/record_detection.py
"""

import json
import hashlib
import math
import platform
import time
from pathlib import Path

import numpy as np
import torch

from repbook.papers import vit_positional_ssl as V

# the regime of this record (the quick chapter's before its steps were cut for time)
REGIME = dict(steps=600, batch=16, field_size=16, field_init="sincos", field_lr=10.0)
SEEDS = (0, 1, 2)
N_SSL, N_DET, N_POS, SIZE, PATCH = 2000, 1000, 500, 48, 6
HEAD = dict(context=1, features=1024)


def sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def nulls(xs):
    """NaN (a score not computed) as None, so that the record is valid JSON."""
    return {k: [None if math.isnan(x) else x for x in v] for k, v in xs.items()}


def main() -> None:
    torch.set_num_threads(2)
    torch.use_deterministic_algorithms(True)
    start = time.perf_counter()
    ssl = V.make_scenes(N_SSL, np.random.default_rng(1), size=SIZE)
    data = V.make_probe_set(
        N_POS, N_DET, np.random.default_rng(2), size=SIZE, grid=SIZE // PATCH
    )
    configs = {
        v: V.SSLConfig(variant=v, arch=V.SMALL_ARCH, head_dim=64, **REGIME)
        for v in ("B", "B+PE+PM")
    }
    study = V.detection_study(
        ssl.images,
        data,
        configs,
        SEEDS,
        patch=PATCH,
        clock=time.perf_counter,
        untrained_of=("B",),  # B+PE+PM starts from the same weights and field
        **HEAD,
    )
    record = {
        "what": "claim 3 of chapter 19: detection-lite AP@0.5 per pre-training seed",
        "regime": {**REGIME, "arch": dict(V.SMALL_ARCH), "head_dim": 64},
        "data": dict(n_ssl=N_SSL, n_det=N_DET, size=SIZE, patch=PATCH),
        "head": HEAD,
        "seeds": list(SEEDS),
        "ap": study.ap,
        "untrained_ap": nulls(study.untrained_ap),
        "chance_ap": nulls(study.chance_ap),
        "pretrain_seconds": {
            f"{v} seed {s}": round(t, 1) for (v, s), t in study.seconds.items()
        },
        "seconds": round(time.perf_counter() - start, 1),
        "sha256": {
            "lib/repbook/papers/vit_positional_ssl/": V.source_sha256(),
            "data/19_vit_positional_ssl/record_detection.py": sha256(__file__),
        },
        "machine": f"{platform.machine()}, {torch.get_num_threads()} threads",
        "torch": torch.__version__,
    }
    out = Path(__file__).with_name("detection_record.json")
    out.write_text(json.dumps(record, indent=1, allow_nan=False) + "\n")
    print(
        json.dumps(
            {k: record[k] for k in ("ap", "chance_ap", "untrained_ap", "seconds")}
        )
    )


if __name__ == "__main__":
    main()

"""The regime pilot of chapter 19 (second audit of issue 36): one seed, 1,500 steps.

B+PE and B+PE+PM pre-trained for 1,500 steps of 16 images (the small ViT, the sine-cosine
field at the network's learning rate, x1), B+PE+PM at the paper's content:position share
50:50 and at the paper's 0:100 ablation (every image position-masked). One pre-training seed,
1000 (numpy default_rng(1000)), apart from the recorded run's seeds 0-2; the same data streams
as the recorded run (default_rng(1) for the pre-training images, default_rng(2) for the probe
images). Every probe is read at step 0 and trained, with the linear detection head.

What it decides, fixed before it ran: the recorded run (record_study.py) uses the share 50:50
unless B+PE+PM at 50:50 fails the trained gate (the SSL loss at the end <= 0.5 x its step-0
value and the count or type probe up by >= 0.05 over step 0) while 0:100 meets it; then 0:100.
Writes pilot_share.json beside it, with the sha256 of this script and of the paper package (`V.source_sha256()`).
Run it from the repository root under the heavy-work lock:

    flock /tmp/repbook-heavy.lock .venv/bin/python data/19_vit_positional_ssl/pilot_share.py
"""

import hashlib
import json
import platform
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch

from repbook.papers import vit_positional_ssl as V

REGIME = dict(
    steps=1500, batch=16, field_size=16, field_init="sincos", field_lr=1.0,
    arch=V.SMALL_ARCH, head_dim=64,
)  # fmt: skip
SHARES = {"B+PE": ("B+PE", 0.5), "B+PE+PM 50:50": ("B+PE+PM", 0.5),
          "B+PE+PM 0:100": ("B+PE+PM", 1.0)}  # fmt: skip
SEED, N_SSL, N_DET, N_POS, SIZE, PATCH = 1000, 2000, 1000, 500, 48, 6
HEADS = {"linear": V.HEADS["linear"]}


def sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def main() -> None:
    torch.set_num_threads(2)
    torch.use_deterministic_algorithms(True)
    start = time.perf_counter()
    ssl = V.make_scenes(N_SSL, np.random.default_rng(1), size=SIZE)
    data = V.make_probe_set(
        N_POS, N_DET, np.random.default_rng(2), size=SIZE, grid=SIZE // PATCH
    )
    configs = {
        label: V.SSLConfig(variant=v, pos_mask_share=share, **REGIME)
        for label, (v, share) in SHARES.items()
    }
    study = V.pretraining_study(
        ssl.images, data, configs, [SEED], patch=PATCH, heads=HEADS,
        clock=time.perf_counter,
    )  # fmt: skip
    cfg = asdict(configs["B+PE"])
    record = {
        "what": "chapter 19's regime pilot: the content:position share at 1,500 steps",
        "regime": {k: cfg[k] for k in REGIME} | {"arch": dict(V.SMALL_ARCH)},
        "data": dict(n_ssl=N_SSL, n_det=N_DET, n_pos=N_POS, size=SIZE, patch=PATCH),
        "heads": HEADS,
        **study.record(),
        "seconds": round(time.perf_counter() - start, 1),
        "sha256": {
            "lib/repbook/papers/vit_positional_ssl/": V.source_sha256(),
            "data/19_vit_positional_ssl/pilot_share.py": sha256(__file__),
        },
        "machine": f"{platform.machine()}, {torch.get_num_threads()} threads",
        "torch": torch.__version__,
    }
    out = Path(__file__).with_name("pilot_share.json")
    out.write_text(json.dumps(record, indent=1, allow_nan=False) + "\n")
    print(json.dumps(V.study_values(record), indent=0))
    print(f"{record['seconds']} s")


if __name__ == "__main__":
    main()

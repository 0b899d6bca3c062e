"""Chapter 19's recorded CPU run: B, B+PE and B+PE+PM x 3 seeds x 1,500 steps.

The run the chapter's claims 1-3 are judged on (the quick chapter pre-trains one seed for
250 steps, a demonstration). Regime (REGIME below): the small ViT (width 48, depth 2), 1,500
pre-training steps of 16 images, the sine-cosine field learning at the network's rate (x1),
the content:position share chosen by the pilot (pilot_share.py, by the rule written there
before it ran). Data and seed streams: numpy default_rng(1) for the 2,000 pre-training images,
default_rng(2) for the probe images, default_rng(s) for pre-training seed s = 0, 1, 2 (the same
for every variant, so gains pair by seed). Each variant and seed is probed at step 0 and
trained: position and masked-position R^2, the count and type probes, the SSL loss, and both
detection heads (V.HEADS). Writes study_record.json beside it, with the sha256 of this script
and of the paper package (`V.source_sha256()`). Run it from the repository root under the heavy-work lock:

    flock /tmp/repbook-heavy.lock .venv/bin/python data/19_vit_positional_ssl/record_study.py
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

# the share: the paper's 50:50 unless the pilot found 50:50 untrained and 0:100 trained
SHARE = 0.5
REGIME = dict(
    steps=1500, batch=16, field_size=16, field_init="sincos", field_lr=1.0,
    pos_mask_share=SHARE, arch=V.SMALL_ARCH, head_dim=64,
)  # fmt: skip
SEEDS = (0, 1, 2)
N_SSL, N_DET, N_POS, SIZE, PATCH = 2000, 1000, 500, 48, 6


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
    configs = {v: V.SSLConfig(variant=v, **REGIME) for v in V.VARIANTS}
    study = V.pretraining_study(
        ssl.images, data, configs, SEEDS, patch=PATCH, heads=V.HEADS,
        clock=time.perf_counter,
    )  # fmt: skip
    cfg = asdict(configs["B+PE+PM"])
    record = {
        "what": "chapter 19's recorded run: every probe at step 0 and trained, 3 seeds",
        "regime": {k: cfg[k] for k in REGIME} | {"arch": dict(V.SMALL_ARCH)},
        "data": dict(n_ssl=N_SSL, n_det=N_DET, n_pos=N_POS, size=SIZE, patch=PATCH),
        "heads": V.HEADS,
        **study.record(),
        "seconds": round(time.perf_counter() - start, 1),
        "sha256": {
            "lib/repbook/papers/vit_positional_ssl/": V.source_sha256(),
            "data/19_vit_positional_ssl/record_study.py": sha256(__file__),
        },
        "machine": f"{platform.machine()}, {torch.get_num_threads()} threads",
        "torch": torch.__version__,
    }
    out = Path(__file__).with_name("study_record.json")
    out.write_text(json.dumps(record, indent=1, allow_nan=False) + "\n")
    print(json.dumps(V.study_values(record), indent=0))
    print(f"{record['seconds']} s")


if __name__ == "__main__":
    main()

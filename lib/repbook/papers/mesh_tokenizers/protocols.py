"""The chapter's experiment protocols: the corpus, the merging sweep, the peer BPE, the pair
sweep, learnability and its contrasts, leave-one-base-out."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from repbook.core import checks

from .merging import Merger, train_merger, train_merger_hf
from .meshes import (
    ALPHABET,
    BITS,
    SEPARATORS,
    TOKENIZERS,
    QuantMesh,
    make_edge_manifold,
    quantize_mesh,
    random_rotation,
    same_faces,
)
from .models import lm_bits_per_face, ngram_bits_per_face
from .ptme import PTME, corpus_ptme, pair_candidates, pair_effect
from .serializers import deserialize, rearrange, serialize


# ---------------------------------------------------------------------------------------------
# experiment protocols: the chapter's corpus, sweeps and learnability runs
def hold_out(groups, *, rng: np.random.Generator, fraction: float = 1 / 3) -> set[str]:
    """Names held out for testing: `int(len(g) * fraction)` drawn without replacement from each
    group of base-mesh names (e.g. {"real": [...], "primitives": [...]}), in the groups' order."""
    checks.generator("rng", rng)
    if not 0 < fraction < 1:
        raise ValueError(f"fraction must lie in (0, 1), got {fraction!r}")
    out: list[str] = []
    for name, members in dict(groups).items():
        members = list(members)
        k = int(len(members) * fraction + 1e-9)
        if k == 0:
            raise ValueError(
                f"group {name!r} has {len(members)} meshes: too few to hold out "
                f"{fraction:.2f} of them"
            )
        out += rng.choice(members, k, replace=False).tolist()
    return set(out)


@dataclass(frozen=True)
class MeshCorpus:
    """Rotated, quantised copies of base meshes and their six serialisations.

    `rows[i]` describes mesh i (base name, rotation, split, faces before and after clean-up,
    faces dropped, each tokenizer's base CR and serialisation time in seconds); `sequences[(tk,
    rearranged)][i]` its tokens; `train` / `test` the mesh indices of each split."""

    rows: tuple[dict, ...]
    sequences: dict
    meshes: tuple[QuantMesh, ...]
    train: np.ndarray
    test: np.ndarray

    def faces(self, split: str) -> np.ndarray:
        """Faces of each mesh of a split ("train" or "test")."""
        idx = self._indices(split)
        return np.asarray([self.meshes[i].n_faces for i in idx], dtype=np.int64)

    def sequences_of(self, tokenizer: str, rearranged: bool, split: str) -> list:
        idx = self._indices(split)
        seqs = self.sequences[(tokenizer, bool(rearranged))]
        return [seqs[i] for i in idx]

    def _indices(self, split: str) -> np.ndarray:
        if split not in ("train", "test"):
            raise ValueError(f"split must be 'train' or 'test', got {split!r}")
        return self.train if split == "train" else self.test


def build_corpus(
    bases, *, rotations: int, test_bases, rng: np.random.Generator, bits: int = BITS
) -> MeshCorpus:
    """Rotate every base mesh `rotations` times (uniform random rotations from `rng`), quantise,
    make it edge-manifold and serialise it with every tokenizer, as is and rearranged.

    Every tokenisation is decoded and compared with the mesh's faces; a mismatch raises
    RuntimeError (a serialiser bug must not pass silently). A mesh is a test mesh when its base
    name is in `test_bases`, so no rotated copy of a test mesh is trained on."""
    import time

    checks.integer("rotations", rotations, at_least=1)
    bases = dict(bases)
    unknown = sorted(set(test_bases) - set(bases))
    if unknown:
        raise ValueError(f"test_bases names meshes that are not bases: {unknown}")
    if not bases:
        raise ValueError("bases must hold at least one mesh")
    rows, meshes = [], []
    seqs: dict = {(tk, rac): [] for tk in TOKENIZERS for rac in (False, True)}
    for name, (v, f) in bases.items():
        for r in range(int(rotations)):
            q, dropped = make_edge_manifold(
                quantize_mesh(np.asarray(v) @ random_rotation(rng).T, f, bits=bits)
            )
            row = dict(
                mesh=name,
                rotation=r,
                split="test" if name in test_bases else "train",
                faces_in=len(f),
                faces=q.n_faces,
                dropped=dropped,
            )
            for tk in TOKENIZERS:
                t0 = time.perf_counter()
                base = serialize(q, tk)
                row[f"time_{tk}"] = time.perf_counter() - t0
                rac = rearrange(base, tk, bits=bits)
                if not (
                    same_faces(deserialize(base, tk, bits=bits), q.triangles())
                    and same_faces(
                        deserialize(rac, tk, rearranged=True, bits=bits),
                        q.triangles(),
                    )
                ):
                    raise RuntimeError(
                        f"{tk} does not decode to the faces of {name!r}, rotation {r}"
                    )
                seqs[(tk, False)].append(base)
                seqs[(tk, True)].append(rac)
                row[f"CR_{tk}"] = base.size / (9 * q.n_faces)
            rows.append(row)
            meshes.append(q)
    split = np.asarray([row["split"] for row in rows])
    train, test = np.flatnonzero(split == "train"), np.flatnonzero(split == "test")
    if train.size == 0 or test.size == 0:
        raise ValueError("both splits need meshes: check test_bases")
    return MeshCorpus(
        rows=tuple(rows),
        sequences={k: tuple(v) for k, v in seqs.items()},
        meshes=tuple(meshes),
        train=train,
        test=test,
    )


METHODS = ("base", "MC", "RMC")
"""A tokenisation: the serialisation as is (base), merged as is (MC), rearranged then merged
(RMC)."""


@dataclass(frozen=True)
class MergingSweep:
    """Held-out PTME of every tokenizer × method × vocabulary size, and the trained vocabularies.

    `rows`: dicts with tokenizer, method, V (the base alphabet for "base"), ptme, tokens_per_face,
    entropy and cr. `mergers[(tokenizer, method, V)]`: the trained Merger."""

    rows: tuple[dict, ...]
    mergers: dict

    def encode(self, corpus: MeshCorpus, tokenizer: str, method: str, V, split: str):
        """Token ids of one split under one tokenisation (V is ignored for "base")."""
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        seqs = corpus.sequences_of(tokenizer, method == "RMC", split)
        if method == "base":
            return list(seqs)
        mg = self.mergers.get((tokenizer, method, V))
        if mg is None:
            raise KeyError(f"no {method} vocabulary of size {V} for {tokenizer}")
        return [mg.encode(s) for s in seqs]

    def vocab_size(self, tokenizer: str, method: str, V) -> int:
        if method == "base":
            return ALPHABET[tokenizer]
        return self.mergers[(tokenizer, method, V)].vocab_size

    def value(self, tokenizer: str, method: str, V, key: str = "ptme") -> float:
        for r in self.rows:
            if (
                r["tokenizer"] == tokenizer
                and r["method"] == method
                and (method == "base" or r["V"] == V)
            ):
                return float(r[key])
        raise KeyError(f"no row for {tokenizer} {method} V={V}")


def _ptme_row(tokenizer, method, V, r: PTME) -> dict:
    return dict(
        tokenizer=tokenizer,
        method=method,
        V=V,
        ptme=r.ptme,
        tokens_per_face=r.tokens_per_face,
        entropy=r.entropy,
        cr=r.cr,
    )


def _train_many(jobs: list[dict], workers: int) -> list[Merger]:
    """`train_merger(**job)` for every job, in order, on `workers` threads (SentencePiece releases
    the GIL while it trains, and each training is single-threaded and deterministic, so the
    vocabularies do not depend on `workers`)."""
    if workers == 1 or len(jobs) < 2:
        return [train_merger(**job) for job in jobs]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda job: train_merger(**job), jobs))


def merging_sweep(
    corpus: MeshCorpus, vocab, *, tokenizers=TOKENIZERS, workers: int = 1
) -> MergingSweep:
    """For each tokenizer: held-out PTME of the base serialisation, then one SentencePiece
    vocabulary per size in `vocab` trained on the training meshes as they are (MC) and
    rearranged (RMC), each applied to the held-out meshes. `workers` threads train the
    vocabularies (the result does not depend on it)."""
    vocab = [int(v) for v in vocab]
    if not vocab or sorted(set(vocab)) != vocab:
        raise ValueError(f"vocab must be increasing sizes, got {vocab!r}")
    workers = checks.integer("workers", workers, at_least=1)
    for tk in tokenizers:
        if tk not in TOKENIZERS:
            raise ValueError(f"tokenizer must be one of {TOKENIZERS}, got {tk!r}")
    keys = [
        (tk, method, V) for tk in tokenizers for method in ("MC", "RMC") for V in vocab
    ]
    jobs = [
        dict(
            sequences=corpus.sequences_of(tk, method == "RMC", "train"),
            alphabet_size=ALPHABET[tk],
            vocab_size=V,
            separators=SEPARATORS[tk],
        )
        for tk, method, V in keys
    ]
    mergers = dict(zip(keys, _train_many(jobs, workers)))
    faces_test = corpus.faces("test")
    rows = []
    for tk in tokenizers:
        base = corpus_ptme(corpus.sequences_of(tk, False, "test"), faces_test)
        rows.append(_ptme_row(tk, "base", ALPHABET[tk], base))
        for method in ("MC", "RMC"):
            test = corpus.sequences_of(tk, method == "RMC", "test")
            for V in vocab:
                mg = mergers[(tk, method, V)]
                enc = [mg.encode(s) for s in test]
                r = corpus_ptme(enc, faces_test, piece_length=mg.piece_length)
                rows.append(_ptme_row(tk, method, V, r))
    return MergingSweep(rows=tuple(rows), mergers=mergers)


def tokens_per_face_by_base(
    corpus: MeshCorpus, sweep: MergingSweep, tokenizer: str, method: str, V
) -> dict[str, float]:
    """Held-out tokens per face of one tokenisation, for each held-out base mesh (its rotations
    pooled: total tokens / total faces), in the order the bases first appear."""
    enc = sweep.encode(corpus, tokenizer, method, V, "test")
    names = [corpus.rows[i]["mesh"] for i in corpus.test]
    faces = corpus.faces("test")
    tokens: dict[str, int] = {}
    total_faces: dict[str, int] = {}
    for name, e, f in zip(names, enc, faces):
        tokens[name] = tokens.get(name, 0) + int(np.asarray(e).size)
        total_faces[name] = total_faces.get(name, 0) + int(f)
    return {name: tokens[name] / total_faces[name] for name in tokens}


def peer_merging(
    corpus: MeshCorpus, sweep: MergingSweep, vocab, *, tokenizers=TOKENIZERS
) -> list[dict]:
    """RMC with a second BPE implementation (Hugging Face `tokenizers`) beside SentencePiece:
    held-out PTME and tokens per face of each at the sizes in `vocab` (which `sweep` must hold).
    Every held-out encoding is decoded back; a mismatch raises RuntimeError."""
    faces_test = corpus.faces("test")
    rows = []
    for tk in tokenizers:
        train = corpus.sequences_of(tk, True, "train")
        test = corpus.sequences_of(tk, True, "test")
        for V in vocab:
            hf = train_merger_hf(
                train,
                alphabet_size=ALPHABET[tk],
                vocab_size=int(V),
                separators=SEPARATORS[tk],
            )
            enc = [hf.encode(s) for s in test]
            if not all(np.array_equal(hf.decode(e), s) for e, s in zip(enc, test)):
                raise RuntimeError(f"tokenizers BPE does not round-trip {tk} at V={V}")
            r = corpus_ptme(enc, faces_test, piece_length=hf.piece_length)
            rows.append(
                {
                    "tokenizer": tk,
                    "V": int(V),
                    "PTME sentencepiece": sweep.value(tk, "RMC", V),
                    "PTME tokenizers": r.ptme,
                    "tokens/face sentencepiece": sweep.value(
                        tk, "RMC", V, "tokens_per_face"
                    ),
                    "tokens/face tokenizers": r.tokens_per_face,
                }
            )
    return rows


def pair_sweep(corpus: MeshCorpus, *, top: int, tokenizers=TOKENIZERS) -> list[dict]:
    """The paper's first-order formula against the exact change of PTME, for the `top` most
    frequent adjacent pairs of each training corpus (each tokenizer, as is and rearranged).

    Rows: tokenizer, order ("as is" / "RAC"), a, b, kind ("self" for a = b, "distinct"),
    p_ab, p_a, p_b, pmi, exact and predicted ΔPTME (bits per raw coordinate)."""
    faces_train = int(corpus.faces("train").sum())
    rows = []
    for tk in tokenizers:
        for rac in (False, True):
            seqs = corpus.sequences_of(tk, rac, "train")
            counts = np.bincount(np.concatenate(seqs), minlength=ALPHABET[tk]).astype(
                np.float64
            )
            cr = counts.sum() / (9 * faces_train)
            for a, b, n_ab in pair_candidates(seqs, top=top, exclude=SEPARATORS[tk]):
                e = pair_effect(counts, np.ones_like(counts), a, b, n_ab, cr=cr)
                rows.append(
                    dict(
                        tokenizer=tk,
                        order="RAC" if rac else "as is",
                        a=a,
                        b=b,
                        kind="self" if a == b else "distinct",
                        p_ab=e.p_ab,
                        p_a=e.p_a,
                        p_b=e.p_b,
                        pmi=e.pmi,
                        exact=e.exact,
                        predicted=e.first_order,
                    )
                )
    return rows


def learnability(
    corpus: MeshCorpus,
    sweep: MergingSweep,
    *,
    V: int,
    methods=METHODS,
    tokenizers=TOKENIZERS,
    lm: dict | None = None,
    generator=None,
    device: str = "cpu",
) -> list[dict]:
    """Held-out bits per face of a next-token model trained on each tokenisation (tokenizer ×
    method, merged ones at vocabulary size V), beside its held-out PTME and the bits per face of
    a unigram fitted on the same training split (`unigram_bits_per_face`: the model has learned
    something from context where it beats it).

    `lm=None`: a count-based trigram (interpolated absolute discounting, no randomness).
    Otherwise a causal transformer with the settings in `lm` (see `lm_bits_per_face`);
    `generator(i)` then gives the torch generator of the i-th tokenisation (in the order of the
    rows), so every model has its own stream. `sequence_bits` holds the model's bits of each
    held-out sequence (in the order of `corpus.test`)."""
    if lm is not None and not callable(generator):
        raise ValueError("a transformer run needs generator: i -> torch.Generator")
    faces_test = corpus.faces("test")
    rows = []
    for tk in tokenizers:
        for method in methods:
            tr = sweep.encode(corpus, tk, method, V, "train")
            te = sweep.encode(corpus, tk, method, V, "test")
            vocab = sweep.vocab_size(tk, method, V)
            unigram = ngram_bits_per_face(tr, te, faces_test, vocab=vocab, order=1)
            if lm is None:
                out = ngram_bits_per_face(tr, te, faces_test, vocab=vocab, order=3)
            else:
                out = lm_bits_per_face(
                    tr,
                    te,
                    faces_test,
                    vocab=vocab,
                    device=device,
                    generator=generator(len(rows)),
                    **lm,
                )
            rows.append(
                dict(
                    tokenizer=tk,
                    method=method,
                    ptme=sweep.value(tk, method, V),
                    tokens_per_face=sweep.value(tk, method, V, "tokens_per_face"),
                    unigram_bits_per_face=unigram["bits_per_face"],
                    **out,
                )
            )
    return rows


def bits_per_face_by_base(corpus: MeshCorpus, sequence_bits) -> dict[str, float]:
    """Bits per face of each held-out base mesh (its rotations pooled: total bits / total faces),
    from the bits of each held-out sequence (in the order of `corpus.test`)."""
    bits = np.asarray(sequence_bits, dtype=np.float64)
    if bits.shape != corpus.test.shape:
        raise ValueError(
            f"sequence_bits must hold one value per held-out mesh ({corpus.test.size}), "
            f"got shape {bits.shape}"
        )
    names = [corpus.rows[i]["mesh"] for i in corpus.test]
    total_bits: dict[str, float] = {}
    total_faces: dict[str, int] = {}
    for name, b, f in zip(names, bits, corpus.faces("test")):
        total_bits[name] = total_bits.get(name, 0.0) + float(b)
        total_faces[name] = total_faces.get(name, 0) + int(f)
    return {name: total_bits[name] / total_faces[name] for name in total_bits}


CONTRASTS = (("MC", "base"), ("RMC", "MC"))
"""The within-tokenizer contrasts of claim 6: (A, B) reads "A against B"."""


def learnability_contrasts(
    corpus: MeshCorpus, rows, *, contrasts=CONTRASTS
) -> list[dict]:
    """Does the model order two tokenisations of one tokenizer as PTME does, mesh by mesh?

    For each tokenizer in `rows` (from `learnability`) and each contrast (A, B): PTME's direction
    s = +1 when PTME(A) < PTME(B) (PTME calls A easier), −1 when it is above; and for every
    held-out base mesh the gain s · (bits per face of B − of A), positive when the model's bits
    per face on that mesh order A and B as PTME does. Rows: tokenizer, contrast ("A vs B"),
    ptme_a, ptme_b, direction (s), gains ({base mesh: gain})."""
    by = {(r["tokenizer"], r["method"]): r for r in rows}
    out = []
    for tk in dict.fromkeys(r["tokenizer"] for r in rows):
        for a, b in contrasts:
            if (tk, a) not in by or (tk, b) not in by:
                raise ValueError(f"rows lack {tk} {a} or {tk} {b} for the contrast")
            ra, rb = by[(tk, a)], by[(tk, b)]
            if ra["ptme"] == rb["ptme"]:
                raise ValueError(f"{tk}: PTME does not order {a} and {b} (equal)")
            s = 1.0 if ra["ptme"] < rb["ptme"] else -1.0
            bpf_a = bits_per_face_by_base(corpus, ra["sequence_bits"])
            bpf_b = bits_per_face_by_base(corpus, rb["sequence_bits"])
            out.append(
                dict(
                    tokenizer=tk,
                    contrast=f"{a} vs {b}",
                    ptme_a=float(ra["ptme"]),
                    ptme_b=float(rb["ptme"]),
                    direction=s,
                    gains={m: s * (bpf_b[m] - bpf_a[m]) for m in bpf_a},
                )
            )
    return out


def leave_one_base_out(
    corpus: MeshCorpus, vocab, *, tokenizers=TOKENIZERS, workers: int = 1
) -> list[dict]:
    """MC against RMC with each base mesh held out in turn: for every base mesh b, tokenizer and
    size V in `vocab`, MC and RMC vocabularies are trained on the meshes of every other base
    (both splits of `corpus`) and applied to b's rotations. Rows: tokenizer, V, mesh, faces,
    and the tokens per face of b (rotations pooled) as is (base), with MC and with RMC.
    `workers` threads train the vocabularies (the result does not depend on it)."""
    vocab = [int(v) for v in vocab]
    if not vocab or sorted(set(vocab)) != vocab:
        raise ValueError(f"vocab must be increasing sizes, got {vocab!r}")
    workers = checks.integer("workers", workers, at_least=1)
    for tk in tokenizers:
        if tk not in TOKENIZERS:
            raise ValueError(f"tokenizer must be one of {TOKENIZERS}, got {tk!r}")
    names = np.asarray([r["mesh"] for r in corpus.rows])
    faces = np.asarray([q.n_faces for q in corpus.meshes], dtype=np.int64)
    bases = list(dict.fromkeys(names.tolist()))
    if len(bases) < 2:
        raise ValueError("leave-one-base-out needs at least two base meshes")
    folds = [(tk, V, b) for tk in tokenizers for V in vocab for b in bases]
    jobs = []
    for tk, V, b in folds:
        rest = np.flatnonzero(names != b)
        for rac in (False, True):
            seqs = corpus.sequences[(tk, rac)]
            jobs.append(
                dict(
                    sequences=[seqs[i] for i in rest],
                    alphabet_size=ALPHABET[tk],
                    vocab_size=V,
                    separators=SEPARATORS[tk],
                )
            )
    trained = iter(_train_many(jobs, workers))
    rows = []
    for tk, V, b in folds:
        held = np.flatnonzero(names == b)
        n_faces = int(faces[held].sum())
        row = dict(tokenizer=tk, V=V, mesh=b, faces=n_faces)
        base_seqs = corpus.sequences[(tk, False)]
        row["base"] = sum(base_seqs[i].size for i in held) / n_faces
        for method, rac in (("MC", False), ("RMC", True)):
            mg = next(trained)
            seqs = corpus.sequences[(tk, rac)]
            row[method] = sum(mg.encode(seqs[i]).size for i in held) / n_faces
        rows.append(row)
    return rows

"""Mesh tokenizers, coordinate rearrangement and merging, and PTME (Liu et al., FreeMesh, ICML 2025,
arXiv 2505.13573; official code freemesh2025/FreeMesh, MIT). Our own implementation.

Pipeline
--------
1. ``quantize_mesh``: centre the bounding box, scale its longest side to 1, quantise every coordinate to
   ``2**bits`` bins (7 bits = 0..127), merge equal vertices, drop degenerate (zero-area) and repeated faces, sort the
   vertices (primary key y, then x, then z) and the faces (by their sorted vertex ids).
2. Three serialisations of a ``QuantMesh`` into integer tokens, each with a decoder:
   - ``"RAW"`` (MeshXL): the 9 coordinates of every face; alphabet 0..127.
   - ``"AMT"`` (MeshAnything V2): strips of adjacent faces; a strip starts with a full face and every
     further face adds one vertex (3 coordinates); ``SEP_AMT = 128`` ends a strip; alphabet 0..128.
   - ``"EDR"`` (EdgeRunner): an Edgebreaker-style half-edge traversal. Every sub-mesh is ``OP_BOM`` + 9
     coordinates, then per face an ``OP_L``/``OP_R`` op + 3 coordinates; coordinates are shifted by
     ``EDR_OFFSET = 3``; alphabet 0..130. Iterative (no recursion).
3. ``rearrange`` (RAC) and its inverse ``restore``: inside every block of 3 vertices, emit the 3 x's,
   then the 3 y's, then the 3 z's (a 1- or 2-vertex tail likewise); AMT per strip, EDR per sub-mesh
   with the ops moved in front of the coordinates.
4. ``train_merger``: coordinate merging, a SentencePiece BPE over the token alphabet; separators
   (AMT 128, EDR BOM) are user-defined symbols and are never merged.
5. PTME (bits per raw coordinate): ``PTME = H / l̄ · CR`` with H the entropy (bits) of the token
   distribution, l̄ = Σ p_t l_t the mean number of base symbols per token and CR = base symbols /
   (9 · faces). Equivalently PTME = H · tokens / (9 · faces).
6. The paper's first-order change of PTME when one pair (a, b) is merged:
   ΔPTME ≈ −CR · F*_ab / l̄ with F*_ab = p_ab (ln(p_ab / (p_a p_b)) − 1) (nats; converted to bits).
7. The chapter's protocols: ``hold_out`` and ``build_corpus`` (rotated meshes split by base mesh, all
   six tokenisations, each decoded back), ``merging_sweep`` (MC and RMC vocabularies per size, held-out
   PTME), ``tokens_per_face_by_base``, ``peer_merging`` (a second BPE), ``pair_sweep`` and
   ``formula_agreement`` (the first-order rule against exact merges), ``helpful_merges`` (how many
   candidate merges lower PTME), ``leave_one_base_out`` (MC against RMC with each base mesh held
   out in turn), ``learnability`` (held-out bits per face of a trigram or a small transformer on each
   tokenisation, beside a unigram fitted on the training split), ``bits_per_face_by_base`` and
   ``learnability_contrasts`` (whether the model orders MC against base and RMC against MC as PTME
   does, per held-out base mesh), and ``lm_step_seconds`` (a timing probe of the transformer).

No printing, plotting or file writing; randomness comes in as numpy / torch generators.

Parts, one file each (every public name is re-exported here, so
``mesh_tokenizers.f(...)`` works): ``meshes`` (quantisation, clean-up, rotations, shipped
meshes), ``serializers`` (RAW, AMT, EDR, RAC), ``merging`` (SentencePiece and Hugging Face
BPE), ``ptme`` (PTME and the effect of one merge), ``models`` (transformer and n-gram),
``protocols`` (the chapter's experiments) and ``readings`` with ``late_readings`` (the
tables, recorded values and generated lines of the chapter; import
``mesh_tokenizers.readings``, which re-exports ``late_readings``).
"""

from .merging import (
    HFMerger,
    Merger,
    from_text,
    to_text,
    train_merger,
    train_merger_hf,
)
from .meshes import (
    ALPHABET,
    BITS,
    CHAR_BASE,
    EDR_OFFSET,
    OP_BOM,
    OP_L,
    OP_R,
    SAMPLE_FILES,
    SEP_AMT,
    SEPARATORS,
    TOKENIZERS,
    QuantMesh,
    canonical_faces,
    check_mesh,
    decimate,
    edge_face_counts,
    make_edge_manifold,
    mesh_kinds,
    package_file,
    primitive_meshes,
    quantize_mesh,
    random_rotation,
    same_faces,
    sample_meshes,
)
from .models import (
    lm_bits_per_face,
    lm_step_seconds,
    ngram_bits_per_face,
)
from .protocols import (
    CONTRASTS,
    METHODS,
    MergingSweep,
    MeshCorpus,
    bits_per_face_by_base,
    build_corpus,
    hold_out,
    learnability,
    learnability_contrasts,
    leave_one_base_out,
    merging_sweep,
    pair_sweep,
    peer_merging,
    tokens_per_face_by_base,
)
from .ptme import (
    PTME,
    FormulaAgreement,
    PairEffect,
    corpus_ptme,
    entropy_bits,
    formula_agreement,
    helpful_merges,
    merge_count,
    merge_pair,
    pair_candidates,
    pair_effect,
    ptme_from_counts,
    ptme_of_string,
    spearman,
)
from .serializers import (
    amt_vertex_order,
    deserialize,
    deserialize_amt,
    deserialize_edr,
    deserialize_raw,
    rac_decode,
    rac_encode,
    rearrange,
    restore,
    serialize,
    serialize_amt,
    serialize_edr,
    serialize_raw,
)

__all__ = [
    "ALPHABET",
    "BITS",
    "CHAR_BASE",
    "CONTRASTS",
    "EDR_OFFSET",
    "FormulaAgreement",
    "HFMerger",
    "METHODS",
    "Merger",
    "MergingSweep",
    "MeshCorpus",
    "OP_BOM",
    "OP_L",
    "OP_R",
    "PTME",
    "PairEffect",
    "QuantMesh",
    "SAMPLE_FILES",
    "SEPARATORS",
    "SEP_AMT",
    "TOKENIZERS",
    "amt_vertex_order",
    "bits_per_face_by_base",
    "build_corpus",
    "canonical_faces",
    "check_mesh",
    "corpus_ptme",
    "decimate",
    "deserialize",
    "deserialize_amt",
    "deserialize_edr",
    "deserialize_raw",
    "edge_face_counts",
    "entropy_bits",
    "formula_agreement",
    "from_text",
    "helpful_merges",
    "hold_out",
    "learnability",
    "learnability_contrasts",
    "leave_one_base_out",
    "lm_bits_per_face",
    "lm_step_seconds",
    "make_edge_manifold",
    "merge_count",
    "merge_pair",
    "mesh_kinds",
    "merging_sweep",
    "ngram_bits_per_face",
    "package_file",
    "pair_candidates",
    "pair_effect",
    "pair_sweep",
    "peer_merging",
    "primitive_meshes",
    "ptme_from_counts",
    "ptme_of_string",
    "quantize_mesh",
    "rac_decode",
    "rac_encode",
    "random_rotation",
    "rearrange",
    "restore",
    "same_faces",
    "sample_meshes",
    "serialize",
    "serialize_amt",
    "serialize_edr",
    "serialize_raw",
    "spearman",
    "to_text",
    "tokens_per_face_by_base",
    "train_merger",
    "train_merger_hf",
]

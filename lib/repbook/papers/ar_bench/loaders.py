"""Loaders for AR-Bench's three JSON schemas, tolerant of the keys that real records omit.

- GN: a JSON list of 4-digit strings with distinct digits (a leading "0" is allowed).
- SP: a list of puzzles ``{surface, bottom, core_sentence?, story_tree{value, based_question?,
  key_question?, children[]}, key_question[], supernatural?, someone_dies?, index?}``; booleans may
  be stored as the strings "True"/"False" and `index` as a string.
- DC: a list of cases ``{time?, location?, victim{...}, suspects[{name, motive, opportunity,
  access_to_weapon, is_murderer?, key_question?, ...}], initial_information{suspect[{name, ...}]},
  murderer?, key_question[], label, index?}``. A suspect *has* an attribute when its field is a
  non-empty list of statements; a string (a denial) or a missing field means it does not. `label`
  indexes `initial_information.suspect`, the order in which the benchmark lists the answer choices.

The upstream data has no licence, so the book ships only fixtures of its own in these schemas; point
`load_arbench` at your own copy of the benchmark's files to use them. Parsing only; no network.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ATTRIBUTES = ("motive", "opportunity", "access_to_weapon")
TASKS = ("gn", "sp", "dc")


class ArBenchFormatError(ValueError):
    """A file or record does not follow the AR-Bench schema it claims to follow."""


# ----------------------------------------------------------------------------------------------
def _read_json(path) -> Any:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"AR-Bench file {str(path)!r} does not exist")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ArBenchFormatError(f"{path.name} is not valid JSON: {exc}") from None


def _as_bool(value, where: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ArBenchFormatError(
        f"{where} must be a boolean or 'True'/'False', got {value!r}"
    )


def _require(record: dict, key: str, where: str):
    if not isinstance(record, dict):
        raise ArBenchFormatError(
            f"{where} must be a JSON object, got {type(record).__name__}"
        )
    if key not in record:
        raise ArBenchFormatError(f"{where} lacks the required key {key!r}")
    return record[key]


# ----------------------------------------------------------------------------------------------
# GN
def parse_gn(data) -> list[str]:
    if not isinstance(data, list) or not data:
        raise ArBenchFormatError(
            f"a GN file must be a non-empty JSON list of secrets, got {type(data).__name__}"
        )
    out = []
    for i, s in enumerate(data):
        if not (
            isinstance(s, str) and len(s) == 4 and s.isdigit() and len(set(s)) == 4
        ):
            raise ArBenchFormatError(
                f"GN record {i} must be a string of 4 distinct digits, got {s!r}"
            )
        out.append(s)
    return out


# ----------------------------------------------------------------------------------------------
# SP
@dataclass(frozen=True)
class StoryNode:
    value: str
    key_question: str = ""
    based_question: str = ""
    children: tuple["StoryNode", ...] = ()

    def walk(self):
        """Nodes in breadth-first order, root first."""
        queue = [self]
        while queue:
            node = queue.pop(0)
            yield node
            queue.extend(node.children)


@dataclass(frozen=True)
class Puzzle:
    surface: str
    bottom: str
    story_tree: StoryNode
    key_questions: tuple[str, ...]
    supernatural: bool | None = None
    someone_dies: bool | None = None
    core_sentence: str = ""
    index: str = ""


def _parse_node(node, where: str, depth: int = 0) -> StoryNode:
    if depth > 50:
        raise ArBenchFormatError(f"{where}: story_tree is deeper than 50 levels")
    value = _require(node, "value", where)
    children = node.get("children", []) or []
    if not isinstance(children, list):
        raise ArBenchFormatError(
            f"{where}.children must be a list, got {type(children).__name__}"
        )
    return StoryNode(
        str(value),
        str(node.get("key_question", "") or ""),
        str(node.get("based_question", "") or ""),
        tuple(
            _parse_node(c, f"{where}.children[{j}]", depth + 1)
            for j, c in enumerate(children)
        ),
    )


def parse_sp(data) -> list[Puzzle]:
    if not isinstance(data, list) or not data:
        raise ArBenchFormatError("an SP file must be a non-empty JSON list of puzzles")
    out = []
    for i, r in enumerate(data):
        where = f"SP record {i}"
        surface = _require(r, "surface", where)
        bottom = _require(r, "bottom", where)
        tree = _parse_node(_require(r, "story_tree", where), f"{where}.story_tree")
        kq = r.get("key_question")
        if kq is None:  # tolerate: take them from the tree
            kq = [n.key_question for n in tree.walk() if n.key_question]
        if not isinstance(kq, list) or not all(isinstance(q, str) for q in kq):
            raise ArBenchFormatError(f"{where}.key_question must be a list of strings")
        out.append(
            Puzzle(
                str(surface),
                str(bottom),
                tree,
                tuple(kq),
                _as_bool(r.get("supernatural"), f"{where}.supernatural"),
                _as_bool(r.get("someone_dies"), f"{where}.someone_dies"),
                str(r.get("core_sentence", "") or ""),
                str(r.get("index", i)),
            )
        )
    return out


# ----------------------------------------------------------------------------------------------
# DC
@dataclass(frozen=True)
class Case:
    """A detective case reduced to what questioning can reveal.

    `names`: suspects in answer-choice order; `facts[i][a]`: suspect i has attribute ATTRIBUTES[a];
    `label`: index of the murderer in `names`; `key_pairs`: the case's key questions as
    (suspect, attribute) pairs (those we could parse); `n_key_questions`: how many it lists.
    """

    names: tuple[str, ...]
    facts: tuple[tuple[bool, bool, bool], ...]
    label: int
    key_pairs: frozenset = field(default_factory=frozenset)
    n_key_questions: int = 0
    index: str = ""


_KQ = re.compile(
    r"deduce that (?P<name>.+?) (?P<neg>did not have|had) the "
    r"(?P<attr>motive|opportunity|access to the murder weapon)",
    re.I,
)
_ATTR_OF = {"motive": 0, "opportunity": 1, "access to the murder weapon": 2}


def parse_key_question(text: str, names) -> tuple[int, int] | None:
    """(suspect index, attribute index) that a DC key question is about, or None if unparsed."""
    m = _KQ.search(text or "")
    if not m:
        return None
    name = m.group("name").strip()
    if name not in names:
        return None
    return list(names).index(name), _ATTR_OF[m.group("attr").lower()]


def _has(value) -> bool:
    return isinstance(value, list) and len(value) > 0


def parse_dc(data) -> list[Case]:
    if not isinstance(data, list) or not data:
        raise ArBenchFormatError("a DC file must be a non-empty JSON list of cases")
    out = []
    for i, r in enumerate(data):
        where = f"DC record {i}"
        suspects = _require(r, "suspects", where)
        info = _require(r, "initial_information", where)
        order = _require(info, "suspect", f"{where}.initial_information")
        if not isinstance(suspects, list) or not isinstance(order, list) or not order:
            raise ArBenchFormatError(
                f"{where}: suspects and initial_information.suspect must be lists"
            )
        names = tuple(
            str(_require(s, "name", f"{where}.initial_information.suspect[{j}]"))
            for j, s in enumerate(order)
        )
        if len(set(names)) != len(names):
            raise ArBenchFormatError(
                f"{where}: suspect names must be distinct, got {names}"
            )
        by_name = {}
        for j, s in enumerate(suspects):
            by_name[str(_require(s, "name", f"{where}.suspects[{j}]"))] = s
        facts = tuple(
            tuple(_has(by_name.get(nm, {}).get(a)) for a in ATTRIBUTES) for nm in names
        )
        label = _require(r, "label", where)
        if (
            isinstance(label, bool)
            or not isinstance(label, int)
            or not 0 <= label < len(names)
        ):
            raise ArBenchFormatError(
                f"{where}.label must be an int in [0, {len(names)}), got {label!r}"
            )
        murderer = r.get("murderer")
        if murderer is not None and murderer != names[label]:
            raise ArBenchFormatError(
                f"{where}: murderer {murderer!r} is not choice {label} ({names[label]!r})"
            )
        flagged = [
            nm
            for nm, s in by_name.items()
            if _as_bool(s.get("is_murderer"), where) is True
        ]
        if flagged and flagged != [names[label]]:
            raise ArBenchFormatError(
                f"{where}: is_murderer marks {flagged}, but label points to {names[label]!r}"
            )
        kq = r.get("key_question", []) or []
        if not isinstance(kq, list):
            raise ArBenchFormatError(f"{where}.key_question must be a list of strings")
        pairs = frozenset(
            p for p in (parse_key_question(q, names) for q in kq) if p is not None
        )
        out.append(Case(names, facts, label, pairs, len(kq), str(r.get("index", i))))
    return out


# ----------------------------------------------------------------------------------------------
def detect_task(data) -> str:
    """'gn', 'sp' or 'dc' from the shape of the first record."""
    if not isinstance(data, list) or not data:
        raise ArBenchFormatError("an AR-Bench file must be a non-empty JSON list")
    first = data[0]
    if isinstance(first, str):
        return "gn"
    if isinstance(first, dict) and "story_tree" in first:
        return "sp"
    if isinstance(first, dict) and "suspects" in first:
        return "dc"
    raise ArBenchFormatError(
        "cannot tell the task from the first record: expected a secret string "
        "(GN), a record with 'story_tree' (SP) or with 'suspects' (DC)"
    )


def load_arbench(path, task: str | None = None):
    """Load an AR-Bench JSON file (the benchmark's own, or a fixture in its schema).

    `task` is "gn", "sp" or "dc"; None detects it from the content. Returns a list of secrets
    (GN), `Puzzle`s (SP) or `Case`s (DC).
    """
    if task is not None and task not in TASKS:
        raise ValueError(f"task must be one of {TASKS} or None, got {task!r}")
    data = _read_json(path)
    task = task or detect_task(data)
    return {"gn": parse_gn, "sp": parse_sp, "dc": parse_dc}[task](data)

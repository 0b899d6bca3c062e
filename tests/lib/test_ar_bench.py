import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repbook.core import data_file
from repbook.papers.ar_bench import dc, gn, metrics, sp
from repbook.papers.ar_bench.loaders import ArBenchFormatError, load_arbench

SECRETS = gn.secret_strings()
distinct4 = st.permutations(list(range(10))).map(lambda p: "".join(map(str, p[:4])))


# --- the judge ----------------------------------------------------------------------------------
def test_space_is_all_5040_secrets_with_leading_zeros():
    S = gn.all_secrets()
    assert S.shape == (5040, 4) and len(set(SECRETS)) == 5040
    assert all(len(set(s)) == 4 for s in SECRETS)
    assert sum(s.startswith("0") for s in SECRETS) == 504
    assert gn.index_of("0123") == 0 and gn.index_of("9876") == 5039


def test_known_feedback():
    assert gn.compare_guess("1234", "1234") == (4, 0, 8)
    assert gn.compare_guess("1234", "4321") == (0, 4, 4)
    assert gn.compare_guess("1234", "1243") == (2, 2, 6)
    assert gn.compare_guess("0521", "5678") == (0, 1, 1)
    assert gn.compare_guess("1234", "5678") == (0, 0, 0)
    assert gn.compare_guess([1, 2, 3, 4], "1111") == (
        1,
        0,
        2,
    )  # repeats: multiset intersection
    assert gn.feedback_text(1, 2).startswith(
        "1 digits are present in the answer and in the correct"
    )


def brute_feedback(secret, guess):
    bulls = sum(a == b for a, b in zip(secret, guess))
    shared = sum(min(secret.count(d), guess.count(d)) for d in set(guess))
    return bulls, shared - bulls


@settings(max_examples=200, deadline=None)
@given(distinct4, distinct4)
def test_judge_matches_brute_force_and_is_symmetric(s, g):
    b, c, score = gn.compare_guess(s, g)
    assert (b, c) == brute_feedback(s, g)
    assert score == 2 * b + c and 0 <= b + c <= 4
    assert gn.compare_guess(g, s) == (b, c, score)
    assert (b, c) != (3, 1)


def test_matrix_agrees_with_judge_exhaustively_on_rows():
    F = gn.feedback_matrix()
    assert F.dtype == np.uint8 and F.shape == (5040, 5040)
    assert np.array_equal(F, F.T) and np.all(np.diag(F) == gn.WIN)
    rng = random.Random(0)
    for g in rng.sample(range(5040), 3):  # three full rows, every secret
        for s in range(5040):
            b, c, _ = gn.compare_guess(SECRETS[s], SECRETS[g])
            assert F[g, s] == gn.encode(b, c)
    assert set(np.unique(F)) == set(gn.VALID_CODES.tolist())
    # every guess splits the space the same way (symmetry): the same multiset of class sizes
    sizes0 = np.sort(np.bincount(F[0], minlength=25))
    assert np.array_equal(np.sort(np.bincount(F[1234], minlength=25)), sizes0)
    assert sizes0.sum() == 5040 and np.bincount(F[0], minlength=25)[gn.WIN] == 1


def test_matrix_exhaustively_against_an_independent_construction():
    """All 25,401,600 pairs: bulls from one-hot digit positions, shared digits from digit sets."""
    S = gn.all_secrets().astype(np.int64)
    onehot = np.zeros((5040, 4, 10), dtype=np.float32)
    onehot[np.arange(5040)[:, None], np.arange(4)[None, :], S] = 1
    A = onehot.reshape(5040, 40)
    P = onehot.sum(1)
    bulls = np.rint(A @ A.T).astype(np.int64)
    shared = np.rint(P @ P.T).astype(np.int64)
    assert np.array_equal(gn.feedback_matrix(), 5 * bulls + (shared - bulls))


@pytest.mark.parametrize("bad", ["123", "12a4", None, 1234])
def test_judge_bad_inputs(bad):
    with pytest.raises(ValueError):
        gn.compare_guess("1234", bad)


def test_index_of_rejects_invalid():
    with pytest.raises(ValueError, match="distinct digits"):
        gn.index_of(["1123"])


# --- agents -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def entropy_tree():
    return gn.solve_tree("entropy")


def test_tree_agents_solve_every_secret(entropy_tree):
    r = entropy_tree
    assert np.all(r.turns >= 1) and r.turns.max() <= 9
    assert 5.1 < r.turns.mean() < 5.4
    assert r.turns[0] == 1  # the first guess is secret 0
    assert np.all(r.sizes[:, 0] == 5040)
    # candidate sets shrink along every game
    assert np.all(np.diff(r.sizes, axis=1) <= 0)


def test_tree_agent_is_consistent_with_a_replay(entropy_tree):
    """Replay one secret by hand: each guess is consistent-or-informative and the sizes match."""
    F = gn.feedback_matrix()
    s = 4321 % 5040
    cands = np.arange(5040)
    guess = 0
    for t in range(1, entropy_tree.turns[s] + 1):
        code = F[guess, s]
        cands = cands[F[guess, cands] == code]
        if code == gn.WIN:
            assert t == entropy_tree.turns[s]
            break
        assert entropy_tree.sizes[s, t] == len(cands)
        guess = gn._choose("entropy", F, cands, 4)


def test_minimax_worst_case_and_bad_agent():
    r = gn.solve_tree("minimax", max_turn=25)
    assert r.turns.max() <= 8 and np.all(r.turns > 0)
    with pytest.raises(ValueError, match="agent must be one of"):
        gn.solve_tree("oracle")
    with pytest.raises(ValueError, match="max_turn"):
        gn.solve_tree("entropy", max_turn=0)


def test_partition_entropy_known_values():
    F = gn.feedback_matrix()
    h = gn.partition_entropy(F, [0], np.arange(5040))[0]
    counts = np.bincount(F[0], minlength=25)
    p = counts[counts > 0] / 5040
    assert h == pytest.approx(-(p * np.log2(p)).sum())
    assert gn.partition_entropy(F, [7], [7])[0] == pytest.approx(0.0)


def test_consistent_random_always_solves_within_budget():
    rng = np.random.default_rng(1)
    secrets = rng.choice(5040, 60, replace=False)
    r = gn.consistent_random(secrets, rng)
    assert r.solved.all() and r.turns.max() <= 10
    # the information held only shrinks, and is 1 once solved
    assert np.all(np.diff(r.sizes, axis=1) <= 0) and np.all(r.sizes[:, -1] == 1)


def test_ignore_feedback_rarely_solves_and_same_seed_same_games():
    secrets = np.arange(0, 5040, 25)
    a = gn.ignore_feedback(secrets, np.random.default_rng(3))
    b = gn.ignore_feedback(secrets, np.random.default_rng(3))
    assert np.array_equal(a.turns, b.turns)
    assert a.solved.mean() < 0.05


def test_forgetful_with_full_memory_equals_consistent_random():
    secrets = np.arange(0, 5040, 97)
    a = gn.play_random(secrets, np.random.default_rng(5), memory=None)
    b = gn.play_random(secrets, np.random.default_rng(5), memory=25)
    assert np.array_equal(a.turns, b.turns)


def test_memory_and_noise_hurt():
    secrets = np.arange(0, 5040, 20)
    full = gn.consistent_random(secrets, np.random.default_rng(0)).solved.mean()
    k1 = gn.forgetful(secrets, np.random.default_rng(0), k=1).solved.mean()
    noisy = gn.noisy_reader(secrets, np.random.default_rng(0), p=0.5).solved.mean()
    assert full == 1.0 and k1 < 0.6 and noisy < 0.8


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(memory=-1), "memory"),
        (dict(p_misread=1.5), "p_misread"),
        (dict(max_turn=0), "max_turn"),
    ],
)
def test_random_agent_bad_inputs(kwargs, match):
    with pytest.raises(ValueError, match=match):
        gn.play_random([1, 2], np.random.default_rng(0), **kwargs)


def test_random_agent_needs_a_generator_and_valid_secrets():
    with pytest.raises(TypeError, match="Generator"):
        gn.consistent_random([1], 0)
    with pytest.raises(ValueError, match="secrets"):
        gn.consistent_random([5040], np.random.default_rng(0))


def test_passive_determination():
    rng = np.random.default_rng(0)
    d = gn.passive_determined(np.arange(0, 5040, 50), [0, 1, 4, 8, 12], rng)
    assert d.shape == (5, 101)
    assert not d[0].any()  # no clue: 5,040 candidates
    assert np.all(
        d[1:].mean(1) >= d[:-1].mean(1) - 1e-12
    )  # more clues never hurt (same clues)
    assert d[-1].mean() > 0.8
    assert gn.solved_by([1, 3, 0, 5], [1, 3, 5]).tolist() == [0.25, 0.5, 0.75]


# --- loaders ------------------------------------------------------------------------------------
def test_shipped_fixtures_load():
    secrets = load_arbench(data_file("01_ar_bench", "gn_mini.json"))
    assert len(secrets) == 100 and all(gn.is_valid_secret(s) for s in secrets)
    cases = load_arbench(data_file("01_ar_bench", "dc_mini.json"))
    assert len(cases) == 5
    for c in cases:
        assert (
            len(c.names) == 5
            and sum(all(f) for f in c.facts) == 1
            and all(c.facts[c.label])
        )
        assert len(c.key_pairs) == c.n_key_questions == 6
    puzzles = load_arbench(data_file("01_ar_bench", "sp_mini.json"), task="sp")
    assert len(puzzles) == 5
    for p in puzzles:
        keys = [n.key_question for n in p.story_tree.walk() if n.key_question]
        assert list(p.key_questions) == keys
        assert isinstance(p.supernatural, bool) and isinstance(p.someone_dies, bool)


def write(tmp_path, data, name="f.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def dc_record(**over):
    names = ["A", "B", "C"]
    rec = {
        "suspects": [
            {
                "name": "A",
                "motive": ["x"],
                "opportunity": ["y"],
                "access_to_weapon": ["z"],
                "is_murderer": True,
            },
            {
                "name": "B",
                "motive": "none",
                "opportunity": ["y"],
                "access_to_weapon": ["z"],
            },
            {"name": "C"},
        ],
        "initial_information": {"suspect": [{"name": n} for n in ["C", "A", "B"]]},
        "key_question": [
            "Can this question deduce that A had the motive?",
            "Can this question deduce that B did not have the motive",
            "An unparsable one",
        ],
        "label": 1,
    }
    rec.update(over)
    assert names
    return rec


def test_dc_loader_tolerates_missing_keys(tmp_path):
    (case,) = load_arbench(write(tmp_path, [dc_record()]))
    assert case.names == ("C", "A", "B") and case.label == 1
    assert case.facts == (
        (False, False, False),
        (True, True, True),
        (False, True, True),
    )
    assert case.key_pairs == {(1, 0), (2, 0)} and case.n_key_questions == 3


@pytest.mark.parametrize(
    "over, match",
    [
        (dict(label=3), "label must be an int"),
        (dict(label="1"), "label must be an int"),
        (dict(murderer="B"), "is not choice 1"),
        (dict(initial_information={}), "lacks the required key 'suspect'"),
    ],
)
def test_dc_loader_malformed(tmp_path, over, match):
    with pytest.raises(ArBenchFormatError, match=match):
        load_arbench(write(tmp_path, [dc_record(**over)]))


def test_dc_loader_label_disagrees_with_is_murderer(tmp_path):
    with pytest.raises(ArBenchFormatError, match="is_murderer marks"):
        load_arbench(write(tmp_path, [dc_record(label=2)]))


def test_sp_loader_strings_as_booleans_and_missing_key_questions(tmp_path):
    rec = {
        "surface": "s",
        "bottom": "b",
        "supernatural": "True",
        "someone_dies": False,
        "story_tree": {
            "value": "root",
            "children": [{"value": "a", "key_question": "qa?"}],
        },
    }
    (p,) = load_arbench(write(tmp_path, [rec]))
    assert (
        p.supernatural is True
        and p.someone_dies is False
        and p.key_questions == ("qa?",)
    )
    rec["supernatural"] = "maybe"
    with pytest.raises(ArBenchFormatError, match="supernatural"):
        load_arbench(write(tmp_path, [rec]))
    with pytest.raises(ArBenchFormatError, match="lacks the required key 'story_tree'"):
        load_arbench(write(tmp_path, [{"surface": "s", "bottom": "b"}]), task="sp")


@pytest.mark.parametrize(
    "content, match",
    [
        ("not json", "not valid JSON"),
        ([], "non-empty"),
        (["1123"], "4 distinct digits"),
        ([{"foo": 1}], "cannot tell the task"),
        ([12345], "cannot tell"),
    ],
)
def test_malformed_files(tmp_path, content, match):
    with pytest.raises(ArBenchFormatError, match=match):
        load_arbench(write(tmp_path, content))


def test_missing_file_and_bad_task(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_arbench(tmp_path / "nope.json")
    with pytest.raises(ValueError, match="task must be one of"):
        load_arbench(write(tmp_path, ["1234"]), task="xx")


# --- detective cases ----------------------------------------------------------------------------
def test_hypothesis_space():
    bits, mur = dc.hypotheses(5)
    assert bits.shape == (5 * 7**4, 15) and np.bincount(mur).tolist() == [7**4] * 5
    # the murderer has everything; every other suspect lacks something
    per = bits.reshape(-1, 5, 3).all(-1)
    assert np.array_equal(per.argmax(1), mur) and np.all(per.sum(1) == 1)
    with pytest.raises(ValueError, match="n_suspects"):
        dc.hypotheses(9)


@pytest.fixture(scope="module")
def cases():
    return load_arbench(data_file("01_ar_bench", "dc_mini.json"))


@pytest.mark.parametrize("strategy", dc.STRATEGIES)
def test_dc_agents_find_the_murderer(cases, strategy):
    rng = np.random.default_rng(0)
    for case in cases:
        g = dc.play_case(case, strategy, rng)
        assert g.correct and g.certain and g.turns <= 15
        assert len(set(g.questions)) == g.turns and 0 <= g.process_score <= 1


def test_dc_budget_zero_is_a_guess_and_bad_inputs(cases):
    g = dc.play_case(cases[0], "random", np.random.default_rng(0), max_turn=0)
    assert g.turns == 0 and not g.certain
    with pytest.raises(ValueError, match="strategy"):
        dc.play_case(cases[0], "psychic", np.random.default_rng(0))
    with pytest.raises(TypeError, match="Generator"):
        dc.play_case(cases[0], "random", 1)


def test_dc_info_gain_agrees_with_brute_force_first_question(cases):
    """The first question chosen maximises the expected entropy drop computed by hand."""
    case = cases[0]
    bits, mur = dc.hypotheses(5)

    def h(m):
        p = np.bincount(m, minlength=5) / len(m)
        p = p[p > 0]
        return -(p * np.log2(p)).sum()

    gains = []
    for q in range(15):
        yes = bits[:, q]
        gains.append(
            h(mur) - yes.mean() * h(mur[yes]) - (1 - yes.mean()) * h(mur[~yes])
        )
    g = dc.play_case(case, "info_gain", np.random.default_rng(0), max_turn=1)
    q0 = 3 * g.questions[0][0] + g.questions[0][1]
    assert gains[q0] == pytest.approx(max(gains))


def test_dc_passive_accuracy(cases):
    assert all(dc.passive_accuracy(c) == 1.0 for c in cases)


# --- situation puzzles --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def puzzles():
    return load_arbench(data_file("01_ar_bench", "sp_mini.json"))


def test_question_bank(puzzles):
    par, rev, n = sp.question_bank(puzzles[0], 2)
    assert n == 7 and (rev >= 0).sum() == 6 and (rev < 0).sum() == 14
    with pytest.raises(ValueError, match="n_distractors"):
        sp.question_bank(puzzles[0], -1)


def test_follow_up_solves_within_bank_size(puzzles):
    rng = np.random.default_rng(0)
    for p in puzzles:
        par, rev, n = sp.question_bank(p, 2)
        g = sp.play_puzzle(p, "follow_up", rng, max_turn=100)
        assert g.solved and g.turns <= len(par) and g.process_score == 1.0
        assert np.all(np.diff(g.hits_by_turn) >= 0) and g.hits_by_turn[-1] == n - 1


def test_random_questioner_also_solves_without_budget(puzzles):
    g = sp.play_puzzle(puzzles[0], "random", np.random.default_rng(1), max_turn=10_000)
    assert g.solved
    g = sp.play_puzzle(puzzles[0], "random", np.random.default_rng(1), max_turn=1)
    assert g.turns == 1 and not g.solved
    with pytest.raises(ValueError, match="strategy"):
        sp.play_puzzle(puzzles[0], "oracle", np.random.default_rng(0))


# --- metrics ------------------------------------------------------------------------------------
def test_metrics():
    assert metrics.accuracy([True, False, True, True]) == 0.75
    assert metrics.mean_turns([3, 0, 5], solved=[True, False, True]) == 4.0
    assert metrics.process_score(["a", "x"], ["a", "b"]) == 0.5
    assert metrics.f1_score("abc", "abd") == pytest.approx(2 / 3)
    assert metrics.f1_score("the cat".split(), "the dog".split()) == pytest.approx(0.5)
    assert metrics.f1_score("", "abc") == 0.0
    with pytest.raises(ValueError, match="at least one"):
        metrics.accuracy([])
    with pytest.raises(ValueError, match="key question"):
        metrics.process_score(["a"], [])


def test_both_questioners_ask_only_answerable_questions(puzzles):
    """The same rule for both: no question is asked before its premise is known, so every question
    asked resolves (the random questioner is not handicapped by 'irrelevant' answers)."""
    for strategy in sp.STRATEGIES:
        for p in puzzles:
            par, rev, n = sp.question_bank(p, 2)
            g = sp.play_puzzle(p, strategy, np.random.default_rng(3), max_turn=len(par))
            assert g.solved and g.turns <= len(par)


# --- the official final-answer rule, chance levels, final-answer credit -------------------------
def test_final_answer_is_one_more_guess_without_feedback():
    """Game by game with the same stream: the same guesses up to the budget; a final answer
    can only add a win, counted at turn max_turn + 1."""
    for i, s in enumerate(range(0, 5040, 126)):
        kw = dict(memory=1, max_turn=3)
        with_final = gn.play_random([s], np.random.default_rng(i), **kw)
        without = gn.play_random(
            [s], np.random.default_rng(i), final_answer=False, **kw
        )
        assert np.array_equal(with_final.sizes, without.sizes)
        if without.turns[0]:
            assert with_final.turns[0] == without.turns[0]
        else:
            assert with_final.turns[0] in (0, 4)
    with pytest.raises(TypeError, match="final_answer"):
        gn.play_random([1], np.random.default_rng(0), final_answer=1)


def test_final_answer_after_one_answer_wins_one_in_the_classes_left():
    """Budget 1, first guess 0: the secret 0 is won at turn 1; on every other secret the final
    answer (turn 2) is uniform over the first answer's class C, right with chance 1/|C|, so the
    expected number of final-answer wins is the number of other classes, 13 (variance
    Σ (1 − 1/|C|) ≤ 13). Without the final answer there would be none."""
    r = gn.play_random(
        np.arange(5040), np.random.default_rng(0), max_turn=1, first_guess=0
    )
    assert set(r.turns.tolist()) <= {0, 1, 2} and r.turns[0] == 1
    assert (r.turns == 1).sum() == 1
    final_wins = int((r.turns == 2).sum())
    assert final_wins >= 1
    assert abs(final_wins - 13) <= 4 * np.sqrt(13)
    assert r.solved.sum() == 1 + final_wins
    without = gn.play_random(
        np.arange(5040),
        np.random.default_rng(0),
        max_turn=1,
        first_guess=0,
        final_answer=False,
    )
    assert (without.turns == 2).sum() == 0 and without.solved.sum() == 1


def test_chance_accuracy_known_values_and_bad_inputs():
    assert gn.chance_accuracy(26, repeats=False) == pytest.approx(26 / 5040)
    assert gn.chance_accuracy(1, repeats=True) == pytest.approx(1 / 5040)
    assert gn.chance_accuracy(26, repeats=True) < gn.chance_accuracy(26, repeats=False)
    with pytest.raises(ValueError, match="n_guesses"):
        gn.chance_accuracy(-1, repeats=True)


def test_final_answer_credit_known_values_and_bad_inputs():
    sizes = np.array([[5040, 2, 1], [5040, 4, 4]])
    assert gn.final_answer_credit(sizes, [1, 2]).tolist() == [
        pytest.approx(0.375),
        pytest.approx(0.625),
    ]
    with pytest.raises(ValueError, match="k_values"):
        gn.final_answer_credit(sizes, [3])
    with pytest.raises(ValueError, match="sizes"):
        gn.final_answer_credit(np.zeros((2, 3)), [1])


def test_credit_is_the_expectation_of_the_realised_final_answer():
    """The consistent-random agent's guess k+1 is a uniform draw from C_k, so the share it wins
    by guess k+1 estimates E[1/|C_k|]: over all secrets the two agree within a few SE."""
    r = gn.consistent_random(np.arange(5040), np.random.default_rng(2))
    for k in (3, 4, 5):
        credit = gn.final_answer_credit(r.sizes, [k])[0]
        won = gn.solved_by(r.turns, [k + 1])[0]
        assert abs(won - credit) < 4 * np.sqrt(credit * (1 - credit) / 5040)


# --- detective cases: going on after certainty ----------------------------------------------------
def test_dc_keeps_asking_after_certainty(cases):
    for strategy in dc.STRATEGIES:
        stop = dc.play_case(cases[1], strategy, np.random.default_rng(3))
        go = dc.play_case(
            cases[1], strategy, np.random.default_rng(3), stop_when_certain=False
        )
        assert stop.certain_at == stop.turns and go.certain_at == stop.turns
        assert (
            go.questions[: stop.turns] == stop.questions
        )  # same draws up to certainty
        assert go.turns == 15 and go.correct and go.certain
        key, n = cases[1].key_pairs, cases[1].n_key_questions
        assert go.process_within(stop.turns, key, n) == pytest.approx(
            stop.process_score
        )
        assert go.process_within(15, key, n) == pytest.approx(len(key) / n)
    with pytest.raises(TypeError, match="stop_when_certain"):
        dc.play_case(cases[0], "random", np.random.default_rng(0), stop_when_certain=0)
    with pytest.raises(ValueError, match="q must"):
        stop.process_within(-1, cases[1].key_pairs, 6)


def test_dc_never_certain_with_no_budget(cases):
    g = dc.play_case(cases[0], "info_gain", np.random.default_rng(0), max_turn=0)
    assert g.certain_at == -1

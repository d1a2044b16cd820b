"""Records whose step fired but whose compare cannot decide (outcome `unresolved`): with no judge they
stay `unresolved`; with a `judge:` fallback the judge is asked about exactly those records (and the
ones no step decided), counted by `--judge-dry-run`, prefetched, cached. Replies replayed from a
judge cache here; the real vLLM server end to end at the bottom (skipped only without vllm)."""
from __future__ import annotations

import json
import sqlite3

import pytest

from rulekit.engine import judge
from rulekit.run import judging
from rulekit.engine.compiler import load_ruleset
from rulekit.language.math import Unresolved
from rulekit.core.records import Record
from judge_support import fresh_settings, invoke, write_records  # noqa: F401 (autouse fixture)
from vllm_support import PHYSICS_GRADES, PHYSICS_RECORDS, SERVED_NAME, free_port, requires_vllm

DEAD = "http://127.0.0.1:9/v1"

# physics: one record per path through the compare (behaviour.md §2.11)
PHYSICS = [Record(r["id"], "open", r["response"], r["answer"], None, question=r["question"]) for r in PHYSICS_RECORDS]
# With the judge: p-text 'True' → 1.0; p-sympy 'False' → 0; p-two: '3' judged "not true" (contains "true") → 2/2.
GRADES = PHYSICS_GRADES

MATHVISTA = [
    Record("m-int", "open", "42", "42", None, question="How many?", meta={"answer_type": "integer"}),
    Record("m-zero", "open", "0", "0", None, question="How many are left?", meta={"answer_type": "integer"}),
    Record("m-text", "open", "The answer is 41", "42", None, question="How many?", meta={"answer_type": "integer"}),
    Record("m-float", "open", "About 1.5 in total", "1.5", None, question="How long?", meta={"answer_type": "float"}),
    Record("m-list", "open", "[1, 2]", "[1, 2]", None, question="Which?", meta={"answer_type": "list"}),
    Record("m-mc", "multiple-choice", "I am not sure about this one at all, sorry.", "B", {"A": "3", "B": "4"},
           question="Which number is even?"),
    Record("m-mc-bad", "multiple-choice", "Hard to say without more context, really.", "A",
           {"A": "apple", "B": "stone"}, question="Which one is a fruit?"),
]
EXTRACTED = {"m-zero": ["0"], "m-text": ["41"], "m-float": ["1.5"], "m-list": ["[1, 2]"], "m-mc": ["B"],
             "m-mc-bad": ["no idea"]}


def fill_cache(cache, ruleset, records, replies, model="m"):
    """Store `replies[id]` (one per prompt, or per attempt) as the judge's replies to what it is asked
    about each record, as a judge run would have. Returns the number of rows written."""
    judge.configure(cache=str(cache), model=model, base_url=DEAD)
    rs = judging.with_overrides(load_ruleset(ruleset))
    rows = 0
    for section, record, prompts, _ in judging.pending(rs, records):
        client = judge.client_for(section.fallback.judge)
        said = [replies[record.id]] if isinstance(replies[record.id], str) else replies[record.id]
        asks = [(p, 1) for p in prompts] if len(prompts) > 1 else [(prompts[0], a) for a in range(1, len(said) + 1)]
        for (prompt, attempt), reply in zip(asks, said):
            client.cache.put(client.key(prompt, attempt), model, prompt, attempt, reply)
            rows += 1
    judge.configure()
    return rows


def run(ruleset, data, tmp_path, *extra):
    out = tmp_path / "out"
    result = invoke("eval", "-r", ruleset, data, "--output-dir", out, "--format", "json", *extra)
    assert result.exit_code == 0, result.output
    res = json.loads(result.stdout)["results"][0]
    rows = {r["id"]: r for r in map(json.loads, (out / f"{res['ruleset']}.decisions.jsonl").open())}
    return res, rows, result


def replayed(cache):
    return ("--judge-replay", "--judge-cache", cache, "--judge-model", "m", "--judge-url", DEAD)


# ---------------------------------------------------------------- (a) no judge: unresolved, as before
@pytest.mark.slow  # SymPy on many records (seconds)
def test_without_a_judge_what_the_compare_cannot_decide_stays_unresolved(tmp_path):
    _, rows, _ = run("physics", write_records(tmp_path / "p.jsonl", PHYSICS), tmp_path)
    assert {i: r["outcome"] for i, r in rows.items()} == {
        "p-rule": "rule", "p-text": "unresolved", "p-sympy": "unresolved", "p-two": "unresolved", "p-none": "rule"}
    assert rows["p-two"]["pred"] == ["2", "3"] and rows["p-two"]["step"] == "boxed"
    _, rows, _ = run("mathvista", write_records(tmp_path / "m.jsonl", MATHVISTA), tmp_path)
    assert {i for i, r in rows.items() if r["outcome"] == "unresolved"} == set(EXTRACTED)


# ---------------------------------------------------------------- (b) a judge: asked about exactly those
def test_dry_run_counts_the_records_a_compare_leaves_to_the_judge(tmp_path):
    cache = tmp_path / "c.sqlite"
    dry = invoke("eval", "-r", "physics+judge", "-r", "mathvista+judge", write_records(tmp_path / "in.jsonl",
                 PHYSICS + MATHVISTA), "--judge-dry-run", "--judge-cache", cache)
    assert dry.exit_code == 0, dry.output
    out = " ".join(dry.stdout.split())
    assert "physics+judge: 3 of 12 records would go to the judge" in out
    assert "3 of them because a step fired but its compare cannot decide, 3 prompts" in out
    # every record but the prefetched integer: the list answer and the physics records (no answer_type) never prefetch
    assert "mathvista+judge: 11 of 12 records would go to the judge" in out
    assert "3 of them because a step fired" in out and not cache.exists()


def test_physics_judge_grades_only_the_pairs_sympy_left(tmp_path):
    cache = tmp_path / "c.sqlite"
    assert fill_cache(cache, "physics+judge", PHYSICS, GRADES) == 3
    res, rows, _ = run("physics+judge", write_records(tmp_path / "p.jsonl", PHYSICS), tmp_path, *replayed(cache))
    # --judge-replay fails on any prompt not in the cache: only the three undecided records were asked.
    assert res["outcomes"]["judge"] == 3 and res["outcomes"]["rule"] == 2 and res["outcomes"]["unresolved"] == 0
    got = {i: (r["outcome"], r["correct"], r["score"]) for i, r in rows.items()}
    assert got == {"p-rule": ("rule", True, 1.0), "p-text": ("judge", True, 1.0), "p-sympy": ("judge", False, 0.0),
                   "p-two": ("judge", True, 1.0), "p-none": ("rule", False, 0.0)}
    with sqlite3.connect(cache) as db:
        prompts = [p for (p,) in db.execute("SELECT prompt FROM replies ORDER BY prompt")]
    assert any("Expression 1:\n20\n\nExpression 2:\n19\n" in p for p in prompts)
    assert any("Expression 1:\n3\n\nExpression 2:\n2\n" in p for p in prompts)  # only the box SymPy left


def test_mathvista_judge_answer_is_scored_by_the_same_rules_with_no_second_judge(tmp_path):
    cache = tmp_path / "c.sqlite"
    fill_cache(cache, "mathvista+judge", MATHVISTA, EXTRACTED)
    res, rows, _ = run("mathvista+judge", write_records(tmp_path / "m.jsonl", MATHVISTA), tmp_path, *replayed(cache))
    got = {i: (r["outcome"], r["pred"], r["correct"]) for i, r in rows.items()}
    assert got == {
        "m-int": ("rule", "42", True),            # prefetched, never asked
        "m-zero": ("judge", "0", True),           # a correct 0 is asked (falsy); the judge's 0 then counts
        "m-text": ("judge", "41", False),         # asked; the judge's 41 is wrong, not asked again
        "m-float": ("judge", "1.5", True),
        "m-list": ("judge", "None", False),       # the str(res) bug: never prefetched, so asked; read as "None" again
        "m-mc": ("judge", "B", True),             # no letter: asked, the judge's reply read by can_infer
        "m-mc-bad": ("abstain", None, False),     # one unreadable judge reply → `then: abstain` (wrong)
    }
    assert res["outcomes"]["unresolved"] == 0


def test_mathvista_before_april_2024_never_counts_an_answer_of_zero(tmp_path):
    """`mathvista@v0+judge` (mathvista_eval.py before c26761b8): post_check returned the falsy 0 it matched, so
    a correct 0 is asked as before (`falsy: judge-then-wrong`) and the judge's 0 is then wrong too; every
    other record is scored as by `mathvista+judge`."""
    cache = tmp_path / "c.sqlite"
    fill_cache(cache, "mathvista@v0+judge", MATHVISTA, EXTRACTED)
    res, rows, _ = run("mathvista@v0+judge", write_records(tmp_path / "m.jsonl", MATHVISTA), tmp_path, *replayed(cache))
    got = {i: (r["outcome"], r["pred"], r["correct"]) for i, r in rows.items()}
    assert got["m-zero"] == ("judge", "0", False)
    assert {i: v for i, v in got.items() if i != "m-zero"} == {
        "m-int": ("rule", "42", True), "m-text": ("judge", "41", False), "m-float": ("judge", "1.5", True),
        "m-list": ("judge", "None", False), "m-mc": ("judge", "B", True), "m-mc-bad": ("abstain", None, False)}


def test_prefetch_takes_these_records_and_a_rerun_is_served_from_the_cache(tmp_path):
    cache = tmp_path / "c.sqlite"
    fill_cache(cache, "physics+judge", PHYSICS, GRADES)
    _, _, result = run("physics+judge", write_records(tmp_path / "p.jsonl", PHYSICS), tmp_path,
                       "--judge-cache", cache, "--judge-model", "m", "--judge-url", f"http://127.0.0.1:{free_port()}/v1")
    assert "physics+judge: judged 3 records: 0 judge calls, 3 from the cache" in result.stderr


def test_explain_says_the_step_fired_and_why_the_judge_was_asked(tmp_path, monkeypatch):
    cache = tmp_path / "c.sqlite"
    fill_cache(cache, "physics+judge", PHYSICS, GRADES)
    for name, value in ((judge.ENV_CACHE, str(cache)), (judge.ENV_MODEL, "m"), (judge.ENV_URL, DEAD)):
        monkeypatch.setenv(name, value)  # explain takes the judge from the environment
    data = write_records(tmp_path / "p.jsonl", PHYSICS)
    out = invoke("explain", "-r", "physics+judge", "--id", "p-sympy", data)
    assert out.exit_code == 0, out.output
    text = " ".join(out.stdout.split())
    assert "unresolved compare" in text and "'20' vs '19': 'False'" in text and "outcome judge" in text
    trace = json.loads(invoke("explain", "-r", "physics+judge", "--id", "p-sympy", data, "--format", "json").stdout)["trace"]
    assert [(t["step"], t["status"]) for t in trace] == [("boxed", "fired"), ("compare", "unresolved"), ("judge", "fired")]
    assert "step `boxed` fired with ['20'], but its compare cannot decide" in trace[1]["reason"]
    assert trace[1]["reason"].endswith("the judge is asked")


# ---------------------------------------------------------------- any ruleset: the judge failing, `then:`
BOXED = """ruleset: boxed-judge
open:
  steps:
    - id: boxed
      find: {{regex: '\\\\boxed\\{{(?P<answer>[^}}]*)\\}}'}}
      pick: last
  compare:
    equivalent: {{tests: [identical], otherwise: judge}}
  fallback:
    judge: {{model: m, prompt: mathvista-judge, retries: 2{then}}}
"""


@pytest.mark.parametrize("replies,then,expect", [
    (["\\boxed{7}"], "", ("judge", "7", True, "judge")),                     # the judge's box is the gold
    (["\\boxed{8}"], "", ("judge", "8", False, "judge")),                    # the compare would ask again: settled, wrong
    (["no box", "none"], "", ("unresolved", "x", False, "boxed")),           # no usable reply, no then: the step's answer stays unresolved
    (["no box", "none"], ", then: {constant: '7'}", ("fallback", "7", True, "constant")),  # then decides, as for any record
])
def test_any_ruleset_whose_compare_cannot_decide_goes_to_its_judge(tmp_path, replies, then, expect):
    path = tmp_path / "boxed-judge.yaml"
    path.write_text(BOXED.format(then=then), encoding="utf-8")
    record = Record("b1", "open", "It is \\boxed{x}.", "7", None, question="What is it?")
    plain = tmp_path / "plain.yaml"
    plain.write_text(BOXED.format(then="").split("  fallback:")[0].replace("boxed-judge", "plain"), encoding="utf-8")
    _, rows, _ = run(str(plain), write_records(tmp_path / "b.jsonl", [record]), tmp_path)
    assert (rows["b1"]["outcome"], rows["b1"]["pred"]) == ("unresolved", "x")   # no judge: as before
    cache = tmp_path / "c.sqlite"
    fill_cache(cache, str(path), [record], {"b1": replies})
    _, rows, _ = run(str(path), tmp_path / "b.jsonl", tmp_path, *replayed(cache))
    row = rows["b1"]
    assert (row["outcome"], row["pred"], row["correct"], row["step"]) == expect
    if expect[0] == "unresolved":
        assert "the judge gave no usable answer in 2 tries" in row["message"]


def test_unresolved_carries_what_a_judge_needs():
    plain = Unresolved("m")
    assert plain.outcome == "unresolved" and plain.settled == (False, 0.0) and plain.pairs == ()
    u = Unresolved("m", pairs=[("a", "g"), ("b", "g")], matched=1, total=3, fraction=True)
    assert u.rescore(set()) == (False, 1 / 3) and u.rescore({"a"}) == (False, 2 / 3) and u.rescore({"a", "b"}) == (True, 1.0)
    assert Unresolved("m", pairs=[("a", "g")]).rescore({"a"}) == (True, 1.0)
    import pickle
    again = pickle.loads(pickle.dumps(u))
    assert again == "m" and again.pairs == u.pairs and again.rescore({"a"}) == u.rescore({"a"})


# ---------------------------------------------------------------- the real engine as judge
@requires_vllm
def test_physics_judge_through_vllm_serve_end_to_end(vllm_server, tmp_path):
    data = write_records(tmp_path / "p.jsonl", PHYSICS)
    # physics-judge asks for 4096 tokens (as Physics_yale); the tiny model's context is 1024.
    small = tmp_path / "physics-small.yaml"
    small.write_text("ruleset: physics-small\nextends: physics+judge\nopen:\n  fallback:\n    judge:\n"
                     "      prompt: physics-judge\n      equal-if-contains: 'true'\n      max-tokens: 16\n", encoding="utf-8")
    cache = tmp_path / "judge.sqlite"
    judged = ["--judge-url", vllm_server.url, "--judge-model", SERVED_NAME, "--judge-cache", cache]

    dry = invoke("eval", "-r", small, data, *judged, "--judge-dry-run")
    assert "3 of 5 records would go to the judge" in " ".join(dry.stdout.split()) and not cache.exists()

    first = invoke("eval", "-r", small, data, *judged, "--output-dir", tmp_path / "one", "--format", "json")
    assert first.exit_code == 0, first.output
    assert "judged 3 records: 3 judge calls, 0 from the cache" in first.stderr
    [res] = json.loads(first.stdout)["results"]
    assert res["outcomes"]["judge"] == 3 and res["outcomes"]["rule"] == 2 and res["outcomes"]["unresolved"] == 0
    rows = {r["id"]: r for r in map(json.loads, (tmp_path / "one" / "physics-small.decisions.jsonl").open())}
    assert {i: (r["outcome"], r["score"]) for i, r in rows.items()} == {
        "p-rule": ("rule", 1.0), "p-text": ("judge", 1.0), "p-sympy": ("judge", 0.0), "p-two": ("judge", 1.0),
        "p-none": ("rule", 0.0)}
    with sqlite3.connect(cache) as db:
        stored = sorted(reply for (reply,) in db.execute("SELECT reply FROM replies"))
    assert stored == sorted(PHYSICS_GRADES.values())

    # A rerun is served from the cache: no server needed, identical decisions.
    replay = invoke("eval", "-r", small, data, "--judge-url", f"http://127.0.0.1:{free_port()}/v1", "--judge-model",
                    SERVED_NAME, "--judge-cache", cache, "--judge-replay", "--output-dir", tmp_path / "two")
    assert replay.exit_code == 0, replay.output
    assert (tmp_path / "one" / "physics-small.decisions.jsonl").read_bytes() == \
        (tmp_path / "two" / "physics-small.decisions.jsonl").read_bytes()


@requires_vllm
def test_mmvet_scoring_judge_through_vllm_serve_end_to_end(vllm_server, tmp_path):
    """`vlmevalkit-mmvet+judge`'s scoring judge against the real `vllm serve`: each record is asked try after try,
    at temperatures 0, 0.5, 1.0, ... (the cache keys say which sampling each request carried), until a
    reply reads as a number from 0 to 1, which is its score; none in 5 tries: unresolved, score 0. A
    replayed rerun gives the same bytes."""
    records = [Record("mv-1", "open", "x = -1 or x = -5", "-1<AND>-5", None, question="What is x in the equation?",
                      meta={"category": "ocr,math"}),
               Record("mv-2", "open", "A cat on a mat.", "a cat", None, question="What is in the image?",
                      meta={"category": "rec"})]
    data = write_records(tmp_path / "mv.jsonl", records)
    # MMVet's few-shot prompt is longer than the tiny model's 1024-token context: a short scoring prompt
    # with the same last line stands in for it (the prompt itself is pinned by test_vlmevalkit_mmvet.py)
    short = tmp_path / "mmvet-short.yaml"
    short.write_text('prompt: mmvet-short\nimages: none\nopen:\n  - "Give a correctness score from 0.0 to 1.0.\\n'
                     '{question} | {gold} | {prediction} | "\n', encoding="utf-8")
    small = tmp_path / "mmvet-small.yaml"
    small.write_text(f"ruleset: mmvet-small\nextends: vlmevalkit-mmvet+judge\nopen:\n  fallback:\n    judge:\n"
                     f"      prompt: {short}\n      scores: true\n      retries: 5\n      temperature-step: 0.5\n"
                     "      max-tokens: 6\n", encoding="utf-8")
    cache = tmp_path / "judge.sqlite"
    judged = ["--judge-url", vllm_server.url, "--judge-model", SERVED_NAME, "--judge-cache", cache]
    first = invoke("eval", "-r", small, data, *judged, "--output-dir", tmp_path / "one", "--format", "json")
    assert first.exit_code == 0, first.output
    rows = {r["id"]: r for r in map(json.loads, (tmp_path / "one" / "mmvet-small.decisions.jsonl").open())}
    with sqlite3.connect(cache) as db:
        stored = list(db.execute("SELECT key, prompt, attempt, reply FROM replies ORDER BY prompt, attempt"))
    ruleset = load_ruleset(str(small))
    judge.configure(base_url=vllm_server.url, model=SERVED_NAME, cache=str(cache))
    client = judge.client_for(ruleset.sections["open"].fallback.judge)
    by_prompt: dict[str, list] = {}
    for key, prompt, attempt, reply in stored:
        sampling = {"temperature": 0.5 * (attempt - 1), "max_tokens": 6}
        assert client.sampling_for(attempt) == sampling and key == client.key(prompt, attempt)
        by_prompt.setdefault(prompt, []).append(reply)
    assert len(by_prompt) == 2
    for record in records:
        (replies,) = [r for p, r in by_prompt.items() if p.endswith(f" | {record.response} | ")]

        def read(reply):
            try:
                value = float(reply)
            except ValueError:
                return None
            return value if 0 <= value <= 1 else None
        scores = [read(r) for r in replies]
        assert all(s is None for s in scores[:-1]) and len(replies) <= 5  # asked again only after an unusable reply
        got = rows[record.id]
        if scores[-1] is None:
            assert len(replies) == 5 and (got["outcome"], got["score"]) == ("unresolved", 0.0)
        else:
            assert (got["outcome"], got["score"]) == ("judge", scores[-1])
    replay = invoke("eval", "-r", small, data, "--judge-url", f"http://127.0.0.1:{free_port()}/v1", "--judge-model",
                    SERVED_NAME, "--judge-cache", cache, "--judge-replay", "--output-dir", tmp_path / "two")
    assert replay.exit_code == 0, replay.output
    assert (tmp_path / "one" / "mmvet-small.decisions.jsonl").read_bytes() == \
        (tmp_path / "two" / "mmvet-small.decisions.jsonl").read_bytes()


def test_a_judge_scores_or_answers_equal_if_contains_not_both(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: bad\nextends: vlmevalkit-mmvet+judge\nopen:\n  fallback:\n    judge:\n"
                   "      scores: true\n      equal-if-contains: 'true'\n", encoding="utf-8")
    result = invoke("test", bad)
    assert result.exit_code == 2 and "either `scores` or answers `equal-if-contains`" in result.output


def test_a_prompt_style_replaces_only_known_variables(tmp_path):
    from rulekit.core.errors import RulesetError
    from rulekit.llm.prompts import load_prompt

    style = tmp_path / "p.yaml"
    style.write_text('prompt: p\nreplace: {gold: [["<AND>", " <AND> "]]}\nopen: ["{gold}|{prediction}"]\n', encoding="utf-8")
    assert load_prompt(str(style)).render("open", "q", None, prediction="<AND>", gold="1<AND>2").text == "1 <AND> 2|<AND>"
    bad = tmp_path / "bad.yaml"  # (a loaded style is kept by path)
    bad.write_text('prompt: p\nreplace: {answer: [["a", "b"]]}\nopen: ["{gold}"]\n', encoding="utf-8")
    with pytest.raises(RulesetError, match="unknown variable `answer`"):
        load_prompt(str(bad))


def test_mathverse_two_stage_judge_through_vllm_serve_end_to_end(vllm_server, tmp_path):
    """`vlmevalkit-mathverse+judge`'s two stages against the real `vllm serve`: every record's reply goes to the
    extracting judge; an extraction equal to the gold (stripped) is right without more; any other goes to the
    grader, asked try after try at temperatures 0, 0.5, ... until its stripped reply is 0 or 1 (then that is
    the score; none in 5 tries: wrong). A replayed rerun gives the same bytes."""
    records = [Record("mv-1", "open", "The answer is 5.", "5", None, meta={"question_for_eval": "What is 2 + 3?"}),
               Record("mv-2", "open", "It is blue, I think.", "red", None, meta={"question_for_eval": "Which color?"}),
               Record("mv-3", "open", "x = 12", "12", None, meta={"question_for_eval": "Solve for x."})]
    data = write_records(tmp_path / "mv.jsonl", records)
    # MathVerse's prompts are pinned by test_vlmevalkit_mathverse.py; short ones fit the tiny model's context
    extract = tmp_path / "extract-short.yaml"
    extract.write_text('prompt: extract-short\nimages: none\nreply: as-given\nopen:\n  - "Copy the final answer.\\n'
                       'Model response: \'{prediction}\'\\nExtracted Answer: "\n', encoding="utf-8")
    score = tmp_path / "score-short.yaml"
    score.write_text('prompt: score-short\nimages: none\nopen:\n  - "Answer 1 if they match, else 0.\\n'
                     '[Question]: {meta.question_for_eval}\\n[Standard Answer]: {gold}\\n[Model_answer] : {prediction}'
                     '\\nJudgement:"\n', encoding="utf-8")
    small = tmp_path / "mathverse-small.yaml"
    small.write_text(f"ruleset: mathverse-small\nextends: vlmevalkit-mathverse+judge\nopen:\n  fallback:\n    judge:\n"
                     f"      prompt: {extract}\n      retries: 1\n      max-tokens: 8\n      grader:\n"
                     f"        prompt: {score}\n        scores: true\n        retries: 5\n"
                     "        temperature-step: 0.5\n        max-tokens: 2\n", encoding="utf-8")
    cache = tmp_path / "judge.sqlite"
    judged = ["--judge-url", vllm_server.url, "--judge-model", SERVED_NAME, "--judge-cache", cache]
    first = invoke("eval", "-r", small, data, *judged, "--output-dir", tmp_path / "one", "--format", "json")
    assert first.exit_code == 0, first.output
    rows = {r["id"]: r for r in map(json.loads, (tmp_path / "one" / "mathverse-small.decisions.jsonl").open())}
    with sqlite3.connect(cache) as db:
        stored = list(db.execute("SELECT prompt, attempt, reply FROM replies ORDER BY prompt, attempt"))
    extractions = {p: r for p, a, r in stored if p.startswith("Copy the final answer.")}
    gradings: dict[str, list] = {}
    for p, a, r in stored:
        if p.startswith("Answer 1 if"):
            gradings.setdefault(p, []).append(r)
    assert len(extractions) == 3 and gradings  # the tiny model's extraction of mv-2 is not "red"
    for record in records:
        (extracted,) = [r for p, r in extractions.items() if f"'{record.response}'" in p]
        got = rows[record.id]
        asked = [replies for p, replies in gradings.items() if f"[Standard Answer]: {record.answer}\n" in p]
        if extracted.strip() == record.answer:  # prefetched: no grader
            assert not asked and got["correct"] is True
            continue
        (replies,) = asked
        usable = [r.strip() in ("0", "1") for r in replies]
        assert not any(usable[:-1]) and len(replies) <= 5  # asked again only after an unusable reply
        assert got["correct"] is (usable[-1] and replies[-1].strip() == "1"), (record.id, extracted, replies)
    replay = invoke("eval", "-r", small, data, "--judge-url", f"http://127.0.0.1:{free_port()}/v1", "--judge-model",
                    SERVED_NAME, "--judge-cache", cache, "--judge-replay", "--output-dir", tmp_path / "two")
    assert replay.exit_code == 0, replay.output
    assert (tmp_path / "one" / "mathverse-small.decisions.jsonl").read_bytes() == \
        (tmp_path / "two" / "mathverse-small.decisions.jsonl").read_bytes()

"""The `judge:` fallback: schema, cache, replay, dry run and dead servers (always), and the REAL
vLLM server as judge end to end (generate → eval -r vlmevalkit+judge), skipped only without vllm."""
from __future__ import annotations

import json
import sqlite3

import pytest

from rulekit.engine import judge
from rulekit.llm.cache import JudgeCache
from rulekit.engine.compiler import load_ruleset
from rulekit.core.records import Record
from judge_support import fresh_settings, invoke, write_records  # noqa: F401 (autouse fixture)
from vllm_support import GEN_PROMPT, JUDGE_REPLIES, SERVED_NAME, free_port, requires_vllm

UNDECIDED = Record("r1", "multiple-choice", "I am not sure about this one at all, sorry.", "B", {"A": "3", "B": "4"},
                   question="Which number is even?")


def fill_cache(cache, record, replies, model="m"):
    """Put judge replies for `record` (attempts 1..n) into the cache, as a judge run would have."""
    judge.configure(cache=str(cache), model=model, base_url="http://127.0.0.1:9/v1")
    spec = load_ruleset("vlmevalkit+judge").sections["multiple-choice"].fallback.judge
    client = judge.client_for(spec)
    prompt = client.render(record)
    for attempt, reply in enumerate(replies, 1):
        client.cache.put(client.key(prompt, attempt), model, prompt, attempt, reply)
    judge.configure()
    return prompt


def test_the_judge_ruleset_validates_and_ends_in_a_random_letter_or_z():
    rs = load_ruleset("vlmevalkit+judge")
    fb = rs.sections["multiple-choice"].fallback
    assert fb.judge.retries == 3 and fb.judge.prompt == "vlmevalkit-judge"
    assert fb.judge.then.random_option.extra == ["Z"]
    assert rs.seed == 0, "the seed of the final random fallback is the ruleset's seed"
    assert "fallback: judge" in invoke("vocabulary").stdout


def test_a_bad_judge_spec_is_a_located_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: bad\nextends: vlmevalkit\nmultiple-choice:\n  fallback:\n"
                   "    judge: {model: m, retries: 0}\n", encoding="utf-8")
    result = invoke("check", bad)
    assert result.exit_code == 2 and "retries" in result.stderr and "bad.yaml:5" in result.stderr


@pytest.mark.parametrize("replies,pred,outcome,step", [
    (["B"], "B", "judge", "judge"),                                   # parsed by single-letter
    (["Your output: Z"], "Z", "judge", "judge"),                      # Z by the z-token step: still a judge answer
    (["hmm", "The answer is B"], "B", "judge", "judge"),              # the second try answers
    (["hmm", "no idea", "A or B"], None, "fallback", "random-option"),  # 3 unusable replies → random letter or Z
])
def test_judge_replies_are_parsed_by_the_same_rules(tmp_path, replies, pred, outcome, step):
    cache = tmp_path / "judge.sqlite"
    fill_cache(cache, UNDECIDED, replies)
    data = write_records(tmp_path / "in.jsonl", [UNDECIDED])
    out = tmp_path / "out"
    result = invoke("eval", "-r", "vlmevalkit+judge", data, "--judge-replay", "--judge-cache", cache,
                    "--judge-model", "m", "--judge-url", "http://127.0.0.1:9/v1", "--output-dir", out, "--format", "json")
    assert result.exit_code == 0, result.output
    [row] = [json.loads(line) for line in (out / "vlmevalkit+judge.decisions.jsonl").open()]
    assert (row["outcome"], row["step"]) == (outcome, step)
    if pred is not None:
        assert row["pred"] == pred and row["correct"] == (pred == "B")
    else:
        assert row["pred"] in {"A", "B", "Z"}


def test_a_terminal_sees_the_judge_requests_and_cache_hits_live(tmp_path, monkeypatch):
    """While the judge is asked, eval shows a live line on a terminal: the try, requests answered of the
    round's, how many came from the cache, requests per second."""
    import io
    import re

    from rich.console import Console

    import rulekit.cli as cli

    cache = tmp_path / "judge.sqlite"
    records = [Record(f"r{i}", "multiple-choice", f"I am not sure about this one ({i}), sorry.", "B",
                      {"A": "3", "B": "4"}, question="Which number is even?") for i in range(3)]
    for r in records:
        fill_cache(cache, r, ["B"])
    data = write_records(tmp_path / "in.jsonl", records)
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=160, stderr=True)
    monkeypatch.setattr(cli, "_err", lambda: console)
    result = invoke("eval", "-r", "vlmevalkit+judge", data, "--judge-replay", "--judge-cache", cache,
                    "--judge-model", "m", "--judge-url", "http://127.0.0.1:9/v1")
    assert result.exit_code == 0, result.output
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", buf.getvalue()).replace("\r", "\n")
    lines = [line for line in text.split("\n") if line.startswith("judging vlmevalkit+judge")]
    assert any(re.search(r"try 1 .* 3/3 requests, 3 from the cache, [\d.,]+/s", line) for line in lines), lines


def test_dry_run_counts_without_calling_or_creating_the_cache(tmp_path):
    data = write_records(tmp_path / "in.jsonl", [UNDECIDED, Record("r2", "multiple-choice", "B", "B", {"A": "3", "B": "4"})])
    cache = tmp_path / "judge.sqlite"
    result = invoke("eval", "-r", "vlmevalkit+judge", data, "--judge-dry-run", "--judge-cache", cache)
    assert result.exit_code == 0, result.output
    assert "vlmevalkit+judge: 1 of 2 records would go to the judge" in result.stdout
    assert "0 already cached" in result.stdout and not cache.exists()


def test_a_dead_judge_server_is_an_error_not_another_scoring_mode(tmp_path):
    data = write_records(tmp_path / "in.jsonl", [UNDECIDED])
    out = tmp_path / "out"
    result = invoke("eval", "-r", "vlmevalkit+judge", data, "--judge-url", f"http://127.0.0.1:{free_port()}/v1",
                    "--judge-model", "m", "--judge-cache", tmp_path / "c.sqlite", "--output-dir", out)
    assert result.exit_code == 2 and "error[E500]" in result.stderr and "Connection refused" in result.stderr
    assert not (out / "vlmevalkit+judge.decisions.jsonl").exists()


def test_the_fingerprint_names_the_judge_model_actually_used(tmp_path):
    data = write_records(tmp_path / "in.jsonl", [Record("r2", "multiple-choice", "B", "B", {"A": "3", "B": "4"})])
    prints = []
    for model in ("judge-one", "judge-two", "judge-one"):
        result = invoke("eval", "-r", "vlmevalkit+judge", data, "--judge-model", model, "--format", "json",
                        "--judge-cache", tmp_path / "c.sqlite")
        prints.append(json.loads(result.stdout)["results"][0]["fingerprint"])
    assert prints[0] == prints[2] != prints[1]


def test_the_cache_key_covers_model_template_prompt_attempt_and_sampling():
    key = JudgeCache.key
    base = key("m", "t", "p", 1, {"temperature": 0.0})
    assert base == key("m", "t", "p", 1, {"temperature": 0.0})
    assert len({base, key("m2", "t", "p", 1, {"temperature": 0.0}), key("m", "t2", "p", 1, {"temperature": 0.0}),
                key("m", "t", "p2", 1, {"temperature": 0.0}), key("m", "t", "p", 2, {"temperature": 0.0}),
                key("m", "t", "p", 1, {"temperature": 0.5})}) == 6


# ---------------------------------------------------------------- the real engine as judge
@requires_vllm
def test_generate_then_judge_through_vllm_serve_end_to_end(vllm_server, items_file, tmp_path):
    outputs = tmp_path / "outputs.jsonl"
    gen = invoke("generate", "--base-url", vllm_server.url, "--model", SERVED_NAME, "--data", items_file,
                 "--prompt", GEN_PROMPT, "--output", outputs, "--max-tokens", 32)
    assert gen.exit_code == 0, gen.output
    cache = tmp_path / "judge.sqlite"
    judged = ["--judge-url", vllm_server.url, "--judge-model", SERVED_NAME, "--judge-cache", cache]

    dry = invoke("eval", "-r", "vlmevalkit+judge", outputs, *judged, "--judge-dry-run")
    assert "2 of 4 records would go to the judge" in dry.stdout and not cache.exists()

    first = invoke("eval", "-r", "vlmevalkit+judge", outputs, *judged, "--output-dir", tmp_path / "one",
                   "--format", "json")
    assert first.exit_code == 0, first.output
    assert "judged 2 records: 4 judge calls, 0 from the cache" in first.stderr
    [res] = json.loads(first.stdout)["results"]
    assert res["outcomes"]["rule"] == 2 and res["outcomes"]["judge"] == 1 and res["outcomes"]["fallback"] == 1
    rows = {r["id"]: r for r in map(json.loads, (tmp_path / "one" / "vlmevalkit+judge.decisions.jsonl").open())}
    assert (rows["q1"]["pred"], rows["q1"]["outcome"]) == ("B", "rule")
    assert (rows["q3"]["pred"], rows["q3"]["outcome"], rows["q3"]["step"], rows["q3"]["correct"]) == ("B", "judge", "judge", True)
    assert rows["q4"]["outcome"] == "fallback" and rows["q4"]["pred"] in {"A", "B", "Z"}
    with sqlite3.connect(cache) as db:
        stored = db.execute("SELECT attempt, reply FROM replies ORDER BY reply, attempt").fetchall()
    assert stored == [(1, JUDGE_REPLIES["q3"])] + [(a, JUDGE_REPLIES["q4"]) for a in (1, 2, 3)]

    # A rerun reads the cache only: the server is not even needed, and the decisions are identical.
    replay = invoke("eval", "-r", "vlmevalkit+judge", outputs, "--judge-url", "http://127.0.0.1:9/v1",
                    "--judge-model", SERVED_NAME, "--judge-cache", cache, "--judge-replay",
                    "--output-dir", tmp_path / "two", "--format", "json")
    assert replay.exit_code == 0, replay.output
    assert (tmp_path / "one" / "vlmevalkit+judge.decisions.jsonl").read_bytes() == \
        (tmp_path / "two" / "vlmevalkit+judge.decisions.jsonl").read_bytes()
    assert json.loads(replay.stdout)["results"][0]["fingerprint"] == res["fingerprint"]


def test_prompt_fingerprints_stay_put_when_the_prompt_language_grows():
    """A prompt style's fingerprint is part of every judge cache key: words added to the prompt language
    (`replace`, `reply`, `fill`, a part's `equals`) must not change the fingerprint of a style that does not
    use them, or every cached judge reply would be orphaned. Pinned as of 2026-11-25."""
    from rulekit.llm.prompts import load_prompt

    pinned = {"lmms-eval-mmmu-qwen3-vl": "369f8de787d5", "lmms-eval-mmmu": "d9f5a714aea5",
              "mathvista-judge": "5d1a004ead48", "mmevalpro-llm": "88d3befbc96e", "mmevalpro-lmm": "44d529dccece",
              "physics-judge": "92a351147d38", "vlmevalkit-judge": "aaecd26d6b34", "vlmevalkit-mcq": "20ab3de97746",
              "vlmevalkit-mmvet": "7788ab88bc86"}
    assert {name: load_prompt(name).fingerprint for name in pinned} == pinned

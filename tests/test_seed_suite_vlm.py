"""The seed suite end to end on a real VLM: every one of the 27 benchmarks' tiny releases (the
layouts' rows, written with their `datasets` Features) → `rulekit run` through `vllm serve` of the
session's tiny Idefics3 (tests/vllm_support.py: one model, one server) → its Atropos and VLMEvalKit
rulesets. One run asks every question (batched: the server takes them 8 at a time); a test per benchmark
then checks its folder: every item answered with the original prompt and its images (the prompt's token
count is the tiny model's count of the expected message, each image adding its tokens), both rulesets
scored every record, the diff and the report written. VLMEvalKit's judged scorers ask a scripted judge.
MMStar's replies are planned (seed_suite_support.PLANNED), so its scores are exact."""
from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
pytest.importorskip("datasets", reason="the `datasets` package is part of the test extra")

import seed_suite_support as S  # noqa: E402

try:
    from vllm_support import ENGINE_ARGS, IMAGE_TOKENS, SERVED_NAME, requires_vllm
except ImportError:  # the tiny-VLM support of branch vision is not here
    pytest.skip("tests/vllm_support.py has no tiny VLM (IMAGE_TOKENS, add_conversations)", allow_module_level=True)

from click.testing import CliRunner  # noqa: E402

from rulekit.cli import main  # noqa: E402
from rulekit.engine.compiler import load_ruleset  # noqa: E402
from rulekit.generate.suite import folder_name, load_suite  # noqa: E402

pytestmark = requires_vllm
SUITE = load_suite()
ATROPOS = json.loads((S.FIXTURES / "prompts.atropos.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def suite_run(vllm_server, tmp_path_factory):
    """One `rulekit run` of all 27 benchmarks; the output folder."""
    root = tmp_path_factory.mktemp("seed-suite")
    judge = S.ChatServer(reply=lambda messages: "A", model="judge")
    args = ["run", *SUITE, "--model", SERVED_NAME, "--base-url", vllm_server.url, "-o", str(root / "out"),
            "--max-tokens", "24", "--concurrency", "8", "--judge-url", judge.url, "--judge-model", "judge",
            "--judge-cache", str(root / "judge.sqlite")]
    for bench in SUITE.values():
        args += ["--data", f"{bench.name}={S.build(bench.layout, root / 'data' / bench.layout)}"]
    try:
        res = CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        judge.close()
    assert res.exit_code == 0, res.output
    return root / "out"


@pytest.fixture(scope="module")
def tokenizer(tiny_model):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tiny_model))


def expected_prompt_tokens(tokenizer, content: list[dict]) -> int:
    """The tiny model's prompt tokens for an expected message: the chat template's tokens of its text, and
    IMAGE_TOKENS for each image (what an image adds to the same prompt without it)."""
    text = "".join(p["text"] for p in content if "text" in p)
    images = sum(1 for p in content if "image" in p)
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": text}], tokenize=False,
                                           add_generation_prompt=True)
    return len(tokenizer(prompt, add_special_tokens=False)["input_ids"]) + images * IMAGE_TOKENS


@pytest.mark.parametrize("name", list(SUITE))
def test_benchmark_from_release_to_both_scores(name, suite_run, tokenizer):
    bench = SUITE[name]
    folder = suite_run / folder_name(name)
    rows = [json.loads(line) for line in (folder / "outputs.jsonl").read_text(encoding="utf-8").splitlines()]
    expected = ATROPOS[bench.layout]
    assert len(rows) == len(expected)
    for row, content in zip(rows, expected):
        gen = row["meta"]["generation"]
        assert isinstance(row["response"], str) and gen["prompt"] == bench.prompts["atropos"]
        assert gen["model"] == SERVED_NAME and gen["backend"] == "openai"
        assert gen["prompt_tokens"] == expected_prompt_tokens(tokenizer, content), row["id"]
    results = {r["ruleset"]: r for r in json.loads((folder / "results.json").read_text())["results"]}
    assert list(results) == [bench.rulesets["atropos"], bench.rulesets["vlmevalkit"]]
    for ruleset, r in results.items():
        # every record of a question type the ruleset has a section for (MMMU's open questions have none)
        covered = [row["id"] for row in rows if row["question_type"] in load_ruleset(ruleset).sections]
        # records a ruleset cannot read (multiple-choice without options: MMVP's release has none) are decided
        # `unreadable` and left out of `n`
        unreadable = (r.get("unreadable") or {}).get("n", 0)
        assert covered and r["n"] + unreadable == len(covered) and sum(r["outcomes"].values()) == len(covered), \
            ruleset
        decisions = (folder / f"{ruleset}.decisions.jsonl").read_text().splitlines()
        assert [json.loads(d)["id"] for d in decisions] == covered
    diff = json.loads((folder / "diff.json").read_text())
    assert (diff["a"], diff["b"]) == (bench.rulesets["atropos"], bench.rulesets["vlmevalkit"])


def test_where_the_frameworks_part_on_planned_replies(suite_run):
    folder = suite_run / "MMStar"
    rows = [json.loads(line) for line in (folder / "outputs.jsonl").read_text().splitlines()]
    assert [r["response"] for r in rows] == S.PLANNED["mmstar"]
    results = {r["ruleset"]: r for r in json.loads((folder / "results.json").read_text())["results"]}
    assert results["atropos-mmstar"]["metrics"]["accuracy"] == 1.0
    assert results["vlmevalkit"]["metrics"]["accuracy"] == 0.5 and results["vlmevalkit"]["outcomes"]["unresolved"] == 1
    diff = json.loads((folder / "diff.json").read_text())
    assert [d["id"] for d in diff["disagree"]] == ["1"]
    report = (suite_run / "report.html").read_text()
    assert all(f'id="{name}"' in report for name in SUITE)


def test_the_offline_engine_gives_the_same_run(shared_engine, tiny_model, tmp_path):
    """`rulekit run` on vLLM's offline engine (the session's): MMStar's planned replies and scores again."""
    engine = [x for k, v in ENGINE_ARGS.items() for x in ("--engine-arg", f"{k}={json.dumps(v)}")]
    data = S.build("mmstar", tmp_path / "data")
    res = CliRunner().invoke(main, ["run", "MMStar", "--model", str(tiny_model), "--data", data, "-o",
                                    str(tmp_path / "out"), "--max-tokens", "24", *engine], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in (tmp_path / "out" / "MMStar" / "outputs.jsonl").read_text().splitlines()]
    assert [r["response"] for r in rows] == S.PLANNED["mmstar"]
    assert {r["meta"]["generation"]["backend"] for r in rows} == {"vllm"}
    results = {r["ruleset"]: r["metrics"]["accuracy"] for r in
               json.loads((tmp_path / "out" / "MMStar" / "results.json").read_text())["results"]}
    assert results == {"atropos-mmstar": 1.0, "vlmevalkit": 0.5}

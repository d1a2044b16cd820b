"""`rulekit generate` with the REAL vLLM engine: offline (the session's `vllm.LLM`) and through `vllm serve`.

The model is built locally (tests/vllm_support.py); these tests are skipped, with the reason, only
when vllm is not importable.
"""
from __future__ import annotations

import json

from click.testing import CliRunner

from rulekit.cli import main
from vllm_support import ENGINE_ARGS, GEN_PROMPT, ITEMS, REPLIES, SERVED_NAME, requires_vllm

ENGINE = [x for k, v in ENGINE_ARGS.items() for x in ("--engine-arg", f"{k}={json.dumps(v)}")]


def invoke(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@requires_vllm
def test_offline_engine_writes_records_resumes_and_scores(shared_engine, tiny_model, items_file, tmp_path):
    out = tmp_path / "outputs.jsonl"
    base = ["generate", "--model", tiny_model, "--data", items_file, "--prompt", GEN_PROMPT, "--output", out,
            "--max-tokens", 32, *ENGINE]
    first = invoke(*base, "--limit", 2)
    assert first.exit_code == 0, first.output
    assert [r["id"] for r in rows(out)] == ["q1", "q2"]
    assert "generated 2 of 2 records" in first.stderr and "items/s" in first.stderr

    again = invoke(*base)
    assert again.exit_code == 2 and "already exists" in again.stderr and "--resume" in again.stderr

    resumed = invoke(*base, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert "generated 2 of 4 records (2 already there)" in resumed.stderr
    written = rows(out)
    assert [r["id"] for r in written] == [it["id"] for it in ITEMS]
    assert {r["id"]: r["response"] for r in written} == REPLIES
    for row, item in zip(written, ITEMS):
        assert row["choices"] == item["choices"] and row["answer"] == item["answer"]
        assert row["question_type"] == "multiple-choice" and row["model"] == str(tiny_model)
        gen = row["meta"]["generation"]
        assert gen["backend"] == "vllm" and gen["chat"] is True and gen["prompt"] == GEN_PROMPT
        assert gen["sampling"] == {"temperature": 0.0, "top_p": 1.0, "max_tokens": 32, "seed": None}
        assert len(gen["prompt_fingerprint"]) == 12 and gen["completion_tokens"] > 0 and gen["finish_reason"] == "stop"
    assert written[0]["meta"]["topic"] == "animals"

    scored = invoke("eval", "-r", "vlmevalkit", out, "--format", "json")
    [res] = json.loads(scored.stdout)["results"]
    assert res["n"] == 4 and res["outcomes"]["rule"] == 2 and res["outcomes"]["unresolved"] == 2
    assert res["metrics"]["accuracy"] == 0.25          # q1 right, q2 wrong, q3/q4 left to a judge


@requires_vllm
def test_resume_cuts_a_torn_last_line_and_skips_written_ids(tiny_model, items_file, tmp_path):
    out = tmp_path / "outputs.jsonl"
    done = [{"id": it["id"], "response": "x"} for it in ITEMS]
    out.write_text("".join(json.dumps(r) + "\n" for r in done) + '{"id": "q5", "respo', encoding="utf-8")
    result = invoke("generate", "--model", tiny_model, "--data", items_file, "--output", out, "--resume", *ENGINE)
    assert result.exit_code == 0, result.output
    assert "generated 0 of 4 records (4 already there)" in result.stderr and "torn last line" in result.stderr
    assert rows(out) == done


@requires_vllm
def test_generate_through_vllm_serve_matches_the_offline_engine(vllm_server, items_file, tmp_path):
    out = tmp_path / "served.jsonl"
    result = invoke("generate", "--base-url", vllm_server.url, "--model", SERVED_NAME, "--data", items_file,
                    "--prompt", GEN_PROMPT, "--output", out, "--max-tokens", 32, "--concurrency", 4)
    assert result.exit_code == 0, result.output
    written = rows(out)
    assert {r["id"]: r["response"] for r in written} == REPLIES
    gen = written[0]["meta"]["generation"]
    assert gen["backend"] == "openai" and gen["model"] == SERVED_NAME and gen["base_url"] == vllm_server.url
    assert gen["prompt_tokens"] > 0 and gen["completion_tokens"] > 0
    # --model may be left out when the server serves one model
    out2 = tmp_path / "served2.jsonl"
    result = invoke("generate", "--base-url", vllm_server.url, "--model", "", "--data", items_file,
                    "--output", out2, "--limit", 1, "--max-tokens", 32)
    assert result.exit_code == 0, result.output
    assert rows(out2)[0]["model"] == SERVED_NAME

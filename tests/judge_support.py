"""What the judge tests share: the CLI runner, clean judge settings, and records written as JSONL."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.engine import judge
from rulekit.cli import main


def invoke(*args):
    """Run `rulekit ARGS...` in-process; user errors (SystemExit) are results, anything else fails."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


@pytest.fixture(autouse=True)
def fresh_settings(monkeypatch):
    """No judge settings from the environment, and the defaults back after each test."""
    for name in (judge.ENV_URL, judge.ENV_MODEL, judge.ENV_CACHE):
        monkeypatch.delenv(name, raising=False)
    yield
    judge.configure()


def write_records(path, records):
    """Write Records as our JSONL schema; returns `path`."""
    path.write_text("".join(json.dumps({"id": r.id, "question_type": r.question_type, "question": r.question,
                                        "choices": r.choices, "answer": r.answer, "response": r.response,
                                        "meta": r.meta}) + "\n" for r in records), encoding="utf-8")
    return path


# ---------------------------------------------------------------- scripted judges (the fidelity tests)
SCRIPTED = ["--judge-url", "http://judge.invalid/v1", "--judge-model", "scripted-judge"]
FIDELITY = Path(__file__).parent / "fidelity" / "vlmevalkit"


def fidelity_labels(name: str) -> dict:
    """What the ORIGINAL decided on a fidelity test's rows: `tests/fidelity/vlmevalkit/NAME.json.gz`."""
    with gzip.open(FIDELITY / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def replayed(cache) -> list[str]:
    """The `eval` arguments that answer its judge only from the scripted replies in `cache`."""
    return ["--judge-cache", str(cache), "--judge-replay", *SCRIPTED]


def eval_decisions(name: str, data, out_dir, *extra) -> tuple[dict, dict]:
    """`rulekit eval -r NAME DATA --output-dir OUT --format json EXTRA...` in-process: (the decisions by id,
    in input order; the run's metrics)."""
    result = CliRunner().invoke(main, ["eval", "-r", name, str(data), "--output-dir", str(out_dir), "--format", "json",
                                       *map(str, extra)])
    assert result.exit_code == 0, result.output
    with (Path(out_dir) / f"{name}.decisions.jsonl").open(encoding="utf-8") as f:
        decisions = {d["id"]: d for d in map(json.loads, f)}
    return decisions, json.loads(result.stdout)["results"][0]["metrics"]


def write_rows(path, rows: list[dict]):
    """Write fidelity rows as JSONL without their scripted replies (`judge_replies`, `grader_replies`:
    those go into the judge cache, `replay_scripted`); returns `path`."""
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if not k.endswith("_replies")}) + "\n"
                            for r in rows), encoding="utf-8")
    return path


def replay_scripted(ruleset_name: str, rows: list[dict], path) -> dict[str, str]:
    """Write each row's scripted judge replies (`judge_replies`, one per try) into a judge cache at
    `path`, under the keys of the prompt rulekit's judge asks about the row's record (run it with
    `--judge-cache PATH --judge-replay *SCRIPTED`), then its `grader_replies` (a two-stage judge)
    under the keys of the grader prompts the first replies lead to; returns the prompt of each record
    asked about (with a grader: `prompts["grader"]`, those of the grader). Rows are records as our
    JSONL writes them (id, question_type, response, answer, choices, question, meta)."""
    from rulekit import load_ruleset
    from rulekit.core.records import Record
    from rulekit.run.judging import grader_pending, pending

    ruleset = load_ruleset(ruleset_name)
    records = [Record(r["id"], r["question_type"], r["response"], r["answer"], r.get("choices") or None,
                      question=r["question"], meta=r["meta"]) for r in rows]
    replies = {r["id"]: r["judge_replies"] for r in rows}
    prompts = {}
    judge.configure(cache=str(path), base_url=SCRIPTED[1], model=SCRIPTED[3])
    try:
        for section, record, asked, _ in pending(ruleset, records, 0):
            client = judge.client_for(section.fallback.judge)
            (prompt,) = asked
            prompts[record.id] = prompt
            for attempt, reply in enumerate(replies[record.id], 1):
                client.cache.put(client.key(prompt, attempt), client.model, prompt, attempt, reply)
        graders = {r["id"]: r["grader_replies"] for r in rows if "grader_replies" in r}
        if graders:
            prompts["grader"] = {}
            for _, record, client, asked in grader_pending(ruleset, records, 0):
                (prompt,) = asked
                prompts["grader"][record.id] = prompt
                for attempt, reply in enumerate(graders[record.id], 1):
                    client.cache.put(client.key(prompt, attempt), client.model, prompt, attempt, reply)
    finally:
        judge.configure()
    return prompts


def tries_temperatures(ruleset_name: str, section: str, tries: int, grader: bool = False) -> list[float]:
    """The temperatures of the first `tries` tries of a section's judge (its `temperature-step`), or of
    its `grader`."""
    from rulekit import load_ruleset

    client = judge.JudgeClient.__new__(judge.JudgeClient)
    client.spec = load_ruleset(ruleset_name).sections[section].fallback.judge
    if grader:
        client.spec = client.spec.grader_spec()
    client.sampling = {"temperature": client.spec.temperature}
    return [client.sampling_for(k)["temperature"] for k in range(1, tries + 1)]

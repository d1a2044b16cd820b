"""The harness adapters, run through the REAL harness code (lm-eval 0.4.13 and lmms-eval 0.7.3, which
.ci/run installs from requirements/harness.txt; skipped only where they are not installed): the
harness's own FilterEnsemble applies rulekit as a task's filter, and lmms-eval's own verification
pipeline uses rulekit's extractor and verifier. Rulekit's decisions must arrive unchanged."""
from __future__ import annotations

import json

import pytest

from conftest import CORPUS
from rulekit import Evaluator, Record, load_ruleset
from rulekit.adapters.harness import RulekitFilter, filter_fn, register


def _docs(n: int = 300):
    """Real corpus replies as harness docs: lm-eval style (`choices` as a list, gold letter in `answer`)."""
    out = []
    with CORPUS.open(encoding="utf-8") as f:
        for row in map(json.loads, f):
            if row["choices"] and row["answer"] and len(out) < n:
                out.append(({"id": row["id"], "question": row.get("question"), "choices": list(row["choices"].values()),
                             "answer": row["answer"]}, row["response"]))
    return out


def _expected(ruleset: str, docs) -> list[str]:
    ev = Evaluator(load_ruleset(ruleset), 0)
    preds = []
    for n, (doc, reply) in enumerate(docs):
        d = ev.decide(Record(doc["id"], "multiple-choice", reply, doc["answer"],
                             {chr(65 + i): c for i, c in enumerate(doc["choices"])}))
        preds.append("" if d.pred is None else d.pred)
    return preds


@pytest.mark.parametrize("harness", ["lm_eval", "lmms_eval"])
@pytest.mark.parametrize("ruleset", ["vlmevalkit", "lmms-eval"])
def test_a_ruleset_is_a_task_filter_in_the_real_harness(harness, ruleset):
    """As a task YAML's `custom` filter (`filter_fn: !function ...`) and as the registered `rulekit`
    filter: the harness's FilterEnsemble leaves rulekit's extracted letter in each instance's
    filtered_resps, for every real reply."""
    filters = pytest.importorskip(f"{harness}.filters")
    instance = pytest.importorskip(f"{harness}.api.instance")
    register(harness)
    docs = _docs()
    by_id = {"id": "id"}
    if harness == "lm_eval":  # Instance(doc=...); FilterEnsemble.apply(instances); a `custom` filter
        instances = [instance.Instance("generate_until", doc, ("prompt", {}), i) for i, (doc, _) in enumerate(docs)]
        run = lambda ensemble: ensemble.apply(instances)  # noqa: E731
        direct = ("custom", {"filter_fn": filter_fn(ruleset, **by_id)})
    else:  # lmms-eval 0.7: docs passed beside the instances; a filter class as `function:`
        instances = [instance.Instance("generate_until", ("prompt", {}), i, {"task": "t", "doc_id": i, "repeats": 1})
                     for i in range(len(docs))]
        run = lambda ensemble: ensemble.apply(instances, [doc for doc, _ in docs])  # noqa: E731
        direct = (RulekitFilter, {"ruleset": ruleset, **by_id})
    for inst, (_, reply) in zip(instances, docs):
        inst.resps = [reply]
    run(filters.build_filter_ensemble("direct", [direct]))
    run(filters.build_filter_ensemble("registered", [("rulekit", {"ruleset": ruleset, **by_id})]))
    want = _expected(ruleset, docs)
    assert [inst.filtered_resps["direct"] for inst in instances] == [[p] for p in want]
    assert [inst.filtered_resps["registered"] for inst in instances] == [[p] for p in want]
    assert sum(p == "" for p in want) < len(want)  # letters really arrived


def test_lmms_eval_verifiers_use_rulekit_through_their_own_pipeline():
    verifiers = pytest.importorskip("lmms_eval.verifiers")
    register("lmms_eval")
    docs = _docs(100)
    judge = verifiers.build_verification_pipeline({"verifier": {"type": "rulekit", "ruleset": "vlmevalkit"}})
    extract = verifiers.build_verification_pipeline({"extractors": [{"type": "rulekit", "ruleset": "vlmevalkit"}],
                                                     "verifier": {"type": "exact_match"}})
    ev = Evaluator(load_ruleset("vlmevalkit"), 0)
    for doc, reply in docs:
        d = ev.decide(Record(doc["id"], "multiple-choice", reply, doc["answer"],
                             {chr(65 + i): c for i, c in enumerate(doc["choices"])}))
        got = judge(doc["question"] or "", reply, doc["answer"], options=doc["choices"])
        assert (got.is_correct, got.metadata["pred"], got.metadata["step"]) == (d.correct is True, d.pred, d.step)
        via = extract(doc["question"] or "", reply, doc["answer"], options=doc["choices"])
        assert via.metadata["extracted_prediction"] == (d.pred or "")
        assert via.is_correct == (d.correct is True)


def _inspect_python():
    """The Python of a venv with Inspect AI and rulekit installed (.ci/run makes .venv-inspect:
    Inspect's dependency set is kept apart from the pinned vLLM one)."""
    import os
    from pathlib import Path

    here = os.environ.get("RULEKIT_INSPECT_PYTHON") or str(Path(__file__).resolve().parents[1] / ".venv-inspect" / "bin" / "python")
    return here if Path(here).exists() else None


@pytest.mark.skipif(_inspect_python() is None, reason="no venv with Inspect AI (.ci/run makes .venv-inspect)")
def test_inspect_score_with_the_rulekit_scorer(tmp_path):
    """`inspect score LOG --scorer rulekit/ruleset -S ruleset=vlmevalkit` (found through the entry point) on
    a log Inspect wrote for real replies: CORRECT / INCORRECT as rulekit decides, and a reply no step can
    read is NOANSWER with the reason, never INCORRECT."""
    import subprocess
    from pathlib import Path

    python = _inspect_python()
    bindir = Path(python).parent
    docs = _docs(60) + [({"id": "unreadable", "question": "q", "choices": ["cat", "dog"], "answer": "A"},
                         "I really cannot tell from this picture.")]
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({**doc, "question": doc["question"] or "q", "response": reply}) + "\n"
                            for doc, reply in docs), encoding="utf-8")
    fixtures = Path(__file__).parent / "fixtures" / "inspect"
    made = subprocess.run([python, fixtures / "make_log.py", rows, tmp_path / "logs"], capture_output=True, text=True,
                          timeout=300)
    assert made.returncode == 0, made.stderr[-3000:]
    log = made.stdout.strip().splitlines()[-1].removeprefix("file://")
    scored = subprocess.run([bindir / "inspect", "score", log, "--scorer", "rulekit/ruleset", "-S", "ruleset=vlmevalkit",
                             "--overwrite", "--display", "none"], capture_output=True, text=True, timeout=300)
    assert scored.returncode == 0, scored.stderr[-3000:]
    read = subprocess.run([python, fixtures / "read_scores.py", log], capture_output=True, text=True, timeout=120)
    assert read.returncode == 0, read.stderr[-3000:]
    out = json.loads(read.stdout)
    ev = Evaluator(load_ruleset("vlmevalkit"), 0)
    want = {}
    for doc, reply in docs:
        d = ev.decide(Record(doc["id"], "multiple-choice", reply, doc["answer"],
                             {chr(65 + i): c for i, c in enumerate(doc["choices"])}))
        want[doc["id"]] = ("N" if d.outcome in ("unresolved", "abstain", "error") else "C" if d.correct else "I",
                           d.pred, d.outcome, d.step)
    got = {k: (v[0], v[3]["pred"], v[3]["outcome"], v[3]["step"]) for k, v in out["scores"].items()}
    assert got == want
    assert out["scores"]["unreadable"][0] == "N" and out["scores"]["unreadable"][2].startswith("unresolved")
    assert {v[0] for v in want.values()} == {"C", "I", "N"}


def _venv_python(name: str):
    from pathlib import Path

    here = Path(__file__).resolve().parents[1] / name / "bin" / "python"
    return str(here) if here.exists() else None


def test_ray_refuses_a_ruleset_that_draws_in_stream_order():
    from rulekit.adapters.ray import score_dataset
    from rulekit.core.errors import UsageError

    with pytest.raises(UsageError, match="stream order"):
        score_dataset(None, "lmms-eval")


@pytest.mark.skipif(_venv_python(".venv-ray") is None, reason="no venv with Ray Data (.ci/run makes .venv-ray)")
@pytest.mark.parametrize("batch", [7, 1000])
def test_a_ray_dataset_is_scored_byte_identical_to_rulekit_eval(tmp_path, batch):
    """`score_dataset` on a local Ray (`ray.init(num_cpus=2)`, 4 blocks, 2 actors): its `row` column, in
    order, is byte for byte the decisions file `rulekit eval --output-dir` writes, for any batch size."""
    import subprocess
    from pathlib import Path

    from click.testing import CliRunner

    from rulekit.cli import main

    rows = [{"id": doc["id"], "question_type": "multiple-choice",
             "choices": {chr(65 + i): c for i, c in enumerate(doc["choices"])}, "answer": doc["answer"],
             "response": reply} for doc, reply in _docs(2000)]
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    ran = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit", str(data),
                                    "--output-dir", str(tmp_path / "eval"), "--format", "json"])
    assert ran.exit_code == 0, ran.output
    out = tmp_path / "ray.jsonl"
    script = Path(__file__).parent / "fixtures" / "ray" / "score.py"
    done = subprocess.run([_venv_python(".venv-ray"), script, data, "vlmevalkit", str(batch), out],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert out.read_bytes() == (tmp_path / "eval" / "vlmevalkit.decisions.jsonl").read_bytes()


@pytest.mark.skipif(_venv_python(".venv-ray") is None, reason="no venv with Ray Data (.ci/run makes .venv-ray)")
def test_ray_data_generates_through_vllm_serve_like_rulekit_generate(vllm_server, items_file, tmp_path):
    """Ray Data's HTTP request processor against the CI's real `vllm serve`: the same replies as
    `rulekit generate --base-url` gets for the same items, prompt style and greedy sampling."""
    import subprocess
    from pathlib import Path

    from vllm_support import GEN_PROMPT, REPLIES, SERVED_NAME

    out = tmp_path / "replies.jsonl"
    script = Path(__file__).parent / "fixtures" / "ray" / "generate.py"
    done = subprocess.run([_venv_python(".venv-ray"), script, items_file, vllm_server.url, SERVED_NAME, GEN_PROMPT,
                           "32", out], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert {r["id"]: r["response"] for r in map(json.loads, out.read_text().splitlines())} == REPLIES

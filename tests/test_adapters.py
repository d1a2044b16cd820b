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


@pytest.mark.slow  # runs the real harness or an adapter venv
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


@pytest.mark.slow  # runs the real harness or an adapter venv
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


@pytest.mark.slow  # runs the real harness or an adapter venv
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


def test_inspect_score_names_are_the_rulesets_names():
    """Inspect names scores by their scorer's registered name: `rulekit/NAME` per built-in gives NAME, a YAML
    file its stem; what Inspect cannot resolve in a `package/name` (a `.` or a `/`) never appears."""
    from rulekit.adapters import score_name

    assert score_name("vlmevalkit") == "vlmevalkit"
    assert score_name("vlmevalkit+judge") == "vlmevalkit+judge" and score_name("vlmevalkit@v1") == "vlmevalkit@v1"
    assert score_name("lmms-eval") != score_name("vlmevalkit")
    assert score_name("rules/my.rules.yaml") == "my_rules" and score_name("/x/mine.yml") == "mine"
    assert score_name("/x/strict vlmevalkit.yaml") == "strict_vlmevalkit"
    assert score_name(".yaml") == "ruleset"


@pytest.mark.slow  # an adapter venv, Inspect run twice
@pytest.mark.skipif(_inspect_python() is None, reason="no venv with Inspect AI (.ci/run makes .venv-inspect)")
def test_two_rulesets_on_one_inspect_log_keep_their_names(tmp_path):
    """`inspect score LOG --scorer rulekit/vlmevalkit`, then `--scorer rulekit/lmms-eval --action append`: the
    log's scores are named `vlmevalkit` and `lmms-eval` (with the generic scorer they were `ruleset`, `ruleset1`)."""
    import subprocess
    from pathlib import Path

    python = _inspect_python()
    bindir = Path(python).parent
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({**doc, "question": doc["question"] or "q", "response": reply}) + "\n"
                            for doc, reply in _docs(8)), encoding="utf-8")
    fixtures = Path(__file__).parent / "fixtures" / "inspect"
    made = subprocess.run([python, fixtures / "make_log.py", rows, tmp_path / "logs"], capture_output=True, text=True,
                          timeout=300)
    assert made.returncode == 0, made.stderr[-3000:]
    log = made.stdout.strip().splitlines()[-1].removeprefix("file://")
    for name, action in (("vlmevalkit", "overwrite"), ("lmms-eval", "append")):
        scored = subprocess.run([bindir / "inspect", "score", log, "--scorer", f"rulekit/{name}", "--action", action,
                                 "--overwrite", "--display", "none"], capture_output=True, text=True, timeout=300)
        assert scored.returncode == 0, scored.stderr[-3000:]
    read = subprocess.run([python, "-c", "import sys, json; from inspect_ai.log import read_eval_log; "
                           "log = read_eval_log(sys.argv[1]); print(json.dumps([s.name for s in log.results.scores]))",
                           log], capture_output=True, text=True, timeout=120)
    assert read.returncode == 0, read.stderr[-3000:]
    assert json.loads(read.stdout) == ["vlmevalkit", "lmms-eval"]


def _venv_python(name: str):
    from pathlib import Path

    here = Path(__file__).resolve().parents[1] / name / "bin" / "python"
    return str(here) if here.exists() else None


def test_ray_refuses_a_ruleset_that_draws_in_stream_order():
    from rulekit.adapters.ray import score_dataset
    from rulekit.core.errors import UsageError

    with pytest.raises(UsageError, match="stream order"):
        score_dataset(None, "lmms-eval")


@pytest.mark.slow  # runs the real harness or an adapter venv
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


@pytest.mark.slow  # runs the real harness or an adapter venv
@pytest.mark.skipif(_venv_python(".venv-ray") is None, reason="no venv with Ray Data (.ci/run makes .venv-ray)")
def test_ray_data_generates_through_vllm_serve_like_rulekit_generate(vllm_server, items_file, image_items_file,
                                                                     tmp_path):
    """Ray Data's HTTP request processor against the CI's real `vllm serve`: the same replies as
    `rulekit generate --base-url` gets for the same items, prompt style and greedy sampling — the images sent as
    data URLs (a different image, a different reply)."""
    import subprocess
    from pathlib import Path

    from click.testing import CliRunner

    from rulekit.cli import main
    from vllm_support import GEN_PROMPT, IMAGE_REPLIES, REPLIES, SERVED_NAME

    data = image_items_file.parent / "mixed.jsonl"
    data.write_text(items_file.read_text() + image_items_file.read_text(), encoding="utf-8")
    out = tmp_path / "replies.jsonl"
    script = Path(__file__).parent / "fixtures" / "ray" / "generate.py"
    done = subprocess.run([_venv_python(".venv-ray"), script, data, vllm_server.url, SERVED_NAME, GEN_PROMPT,
                           "32", out], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    replies = {r["id"]: r["response"] for r in map(json.loads, out.read_text().splitlines())}
    assert {k: replies[k] for k in REPLIES} == REPLIES and {k: replies[k] for k in IMAGE_REPLIES} == IMAGE_REPLIES
    served = tmp_path / "served.jsonl"
    result = CliRunner().invoke(main, ["generate", "--base-url", vllm_server.url, "--model", SERVED_NAME, "--data",
                                       str(data), "--prompt", GEN_PROMPT, "--max-tokens", "32", "--output", str(served)])
    assert result.exit_code == 0, result.output
    assert replies == {r["id"]: r["response"] for r in map(json.loads, served.read_text().splitlines())}


def _open_docs(n: int = 200):
    """Real open-ended corpus replies with their gold answers (one text, or several)."""
    out = []
    with CORPUS.open(encoding="utf-8") as f:
        for row in map(json.loads, f):
            if not row["choices"] and row["answer"] not in (None, "", []) and len(out) < n:
                golds = row["answer"] if isinstance(row["answer"], list) else [row["answer"]]
                out.append(({"id": row["id"], "question": row.get("question") or "q", "golds": [str(g) for g in golds]},
                            row["response"]))
    return out


@pytest.mark.slow  # runs the real harness or an adapter venv
@pytest.mark.skipif(_venv_python(".venv-lighteval") is None,
                    reason="no venv with lighteval (.ci/run makes .venv-lighteval)")
def test_lighteval_scores_with_the_rulekit_metric_through_its_own_apply_and_aggregate(tmp_path):
    """rulekit's SampleLevelMetric inside lighteval 0.13: lighteval's own `apply_metric` gives every real
    reply the score rulekit decides (letters of `choices` / `gold_index` for multiple choice; for open
    questions the gold answers kept in `choices`, with ANLS partial credit), and its MetricsLogger's
    corpus figure is their mean."""
    import subprocess
    from pathlib import Path

    mcq, open_ = _docs(300), _open_docs(200)
    rows = [{"id": doc["id"], "question": doc["question"] or "q", "choices": doc["choices"],
             "gold_index": ord(doc["answer"]) - 65, "response": reply, "open": False} for doc, reply in mcq]
    rows += [{"id": doc["id"], "question": doc["question"], "choices": doc["golds"],
              "gold_index": list(range(len(doc["golds"]))), "response": reply, "open": True} for doc, reply in open_]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    script = Path(__file__).parent / "fixtures" / "lighteval" / "score.py"
    done = subprocess.run([_venv_python(".venv-lighteval"), script, data, "vlmevalkit", "docvqa"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    want = {}
    for ruleset, docs, record in (
            ("vlmevalkit", mcq, lambda doc, reply: Record(doc["id"], "multiple-choice", reply, doc["answer"],
                                                          {chr(65 + i): c for i, c in enumerate(doc["choices"])})),
            ("docvqa", open_, lambda doc, reply: Record(doc["id"], "open", reply,
                                                        doc["golds"][0] if len(doc["golds"]) == 1 else doc["golds"]))):
        ev = Evaluator(load_ruleset(ruleset), 0)
        for doc, reply in docs:
            d = ev.decide(record(doc, reply))
            want[doc["id"]] = {f"rulekit_{ruleset}": float(d.score) if d.score is not None else float(d.correct is True)}
    assert got["samples"] == want
    mcq_scores = [want[doc["id"]]["rulekit_vlmevalkit"] for doc, _ in mcq]
    open_scores = [want[doc["id"]]["rulekit_docvqa"] for doc, _ in open_]
    assert got["aggregated"]["mcq"]["rulekit_vlmevalkit"] == pytest.approx(sum(mcq_scores) / len(mcq_scores), abs=1e-12)
    assert got["aggregated"]["open"]["rulekit_docvqa"] == pytest.approx(sum(open_scores) / len(open_scores), abs=1e-12)
    assert 0 < sum(mcq_scores) < len(mcq_scores)
    assert any(0 < s < 1 for s in open_scores)  # partial credit arrived as it is


def test_a_lighteval_doc_becomes_the_record_rulekit_decides():
    """How a Doc reads (no lighteval needed): choices lettered, gold_index to letters (several: a list),
    `open` golds taken from the choices, the id keying random fallbacks (else the query)."""
    from types import SimpleNamespace as Doc

    from rulekit.adapters.lighteval import doc_record

    one = doc_record(Doc(query="q?", choices=["cat", "dog"], gold_index=1, id="7"), "B")
    assert (one.id, one.question_type, one.choices, one.answer, one.question) == \
        ("7", "multiple-choice", {"A": "cat", "B": "dog"}, "B", "q?")
    assert doc_record(Doc(query="q?", choices=["a", "b", "c"], gold_index=[0, 2], id=""), "A").answer == ["A", "C"]
    assert doc_record(Doc(query="q?", choices=["a"], gold_index=0, id=None), "A").id == "q?"
    opened = doc_record(Doc(query="q?", choices=["42", "forty-two"], gold_index=[0, 1], id="8"), "42", open=True)
    assert (opened.question_type, opened.choices, opened.answer) == ("open", None, ["42", "forty-two"])
    assert doc_record(Doc(query="q?", choices=["42"], gold_index=0, id="9"), "42", open=True).answer == "42"


@pytest.mark.slow  # runs the real harness or an adapter venv
@pytest.mark.skipif(_venv_python(".venv-opencompass") is None,
                    reason="no venv with OpenCompass (.ci/run makes .venv-opencompass)")
def test_opencompass_eval_task_uses_rulekit_as_the_pred_postprocessor(tmp_path):
    """OpenCompass 0.5.4's own eval task, run the way its runner runs it (a dumped config, a fresh
    process), with `rulekit.adapters.opencompass.postprocess` as the dataset's pred_postprocessor: every
    real reply's processed prediction is rulekit's answer, and AccEvaluator's accuracy counts them."""
    import os
    import subprocess
    from pathlib import Path

    from rulekit.adapters.opencompass import postprocess

    docs = [(doc, reply) for doc, reply in _docs(3000) if len(doc["choices"]) == 4][:300]
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"question": doc["question"] or "q", "answer": doc["answer"], "response": reply})
                            + "\n" for doc, reply in docs), encoding="utf-8")
    script = Path(__file__).parent / "fixtures" / "opencompass" / "score.py"
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "HF_EVALUATE_OFFLINE": "1", "HOME": str(tmp_path)}
    done = subprocess.run([_venv_python(".venv-opencompass"), script, rows, tmp_path / "work", "vlmevalkit", "ABCD"],
                          capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout[done.stdout.index("{"):])
    ev = Evaluator(load_ruleset("vlmevalkit"), 0)
    want = []
    for doc, reply in docs:
        d = ev.decide(Record(reply, "multiple-choice", reply, None, dict.fromkeys("ABCD", "")))
        want.append("" if d.pred is None else d.pred)
    details = result["details"]
    assert [details[str(i)]["predictions"] for i in range(len(docs))] == want
    assert [details[str(i)]["origin_prediction"] for i in range(len(docs))] == [reply for _, reply in docs]
    assert want == [postprocess(reply) for _, reply in docs]
    right = sum(p == doc["answer"] for p, (doc, _) in zip(want, docs))
    assert result["accuracy"] == pytest.approx(100 * right / len(docs))
    assert 0 < right < len(docs) and "" in want  # letters arrived, and so did "nothing extracted"

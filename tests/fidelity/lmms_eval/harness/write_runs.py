"""Write lmms-eval `--log_samples` runs (results.json + samples logs) with the ORIGINAL scorers of an
lmms-eval checkout, unchanged: `LMMS_EVAL=/path/to/lmms-eval python write_runs.py OUT_DIR RUN_ID TASK...`
(RUN_ID the `YYYYMMDD_HHMMSS` of the file names; TASK among pope, gqa, docvqa_val, chartqa, ocrbench,
seedbench, seedbench_2_plus, mmstar, blink_art_style, blink_counting, cv_bench_2d, muirbench, vstar_bench, mmvp, mmerealworld, realworldqa, ai2d,
textvqa_val, ok_vqa_val2014, vizwiz_vqa_val, vqav2_val, mmmu_pro_standard, qbench_dev), from a scratch folder (SEED-Bench's aggregation writes
./seed_submission.json). `LMMS_LOG=0.3` writes the samples lines of lmms-eval 0.3 (with `doc`; see `_line_03`).

Loaded from the checkout (nothing copied): `lmms_eval/tasks/pope/utils.py` (pope_process_results and the
five aggregations), `lmms_eval/tasks/chartqa/utils.py` (chartqa_process_results), `lmms_eval/api/metrics.py`
(exact_match_hf_evaluate, anls, mean; its registry decorators and `sacrebleu` import are stubbed),
`lmms_eval/tasks/ocrbench/utils.py` (ocrbench_process_results, ocrbench_aggregate_accuracy; `loguru` and its
submission-file helper stubbed), `seedbench/utils.py` (seed_process_result, seed_aggregation_result[_all]),
`mmstar/utils.py` (mmstar_process_results with its exact_match, mmstar_aggregate_results; `loguru`, `PIL`
stubbed; from 9ca4445d with `_task_utils/mcq_extract.py`, loaded from the checkout too), `blink/utils.py` (blink_process_results, blink_aggregate_results; its default-template loader
stubbed: it only reads prompts), `cv_bench/utils.py` (cv_bench_process_results, cv_bench_aggregate_results),
`muirbench/utils.py` (muir_process_results, muir_aggregation; the base class of its filter stubbed: the
fixture's replies stand for the filter's output, the filter is not run), `vstar_bench/utils.py`
(vstar_process_results, vstar_aggregate_results; `loguru` stubbed), `mmvp/utils.py` (mmvp_doc_to_target,
mmvp_process_results, mmvp_aggregate_results, mmvp_aggregate_pair_results; `loguru` stubbed),
`mme_realworld/utils.py` (extract_characters_regex, mme_realworld_process_results,
mme_realworld_aggregate_results; `loguru`, `PIL`, the 2024 version's unused `cv2` and submission-file helper
stubbed), `realworldqa/utils.py` (realworldqa_process_results with `_task_utils/mcq_extract.py`; the base
classes of its filters stubbed: they are not run, its yaml's mean aggregates), `ai2d/utils.py` (ai2d_doc_to_target and
its MultiChoiceRegexFilter, RUN as the yaml's `flexible-extract` filter on the raw reply, with
api/instance.py, api/filter.py, api/reasoning.py, filters/extraction.py from the checkout; `datasets`
stubbed), `textvqa/utils.py`, `ok_vqa/utils.py`, `vizwiz_vqa/utils.py`, `vqav2/utils.py` (their process_results and submission
aggregations, with `_task_utils/vqa_eval_metric.py`; `loguru` and the submission-file helper stubbed),
`mmmu_pro/utils.py` (mmmu_pro_process_results, mmmu_pro_aggregate_results; `random` seeded 0 as simple_evaluate
seeds it), `qbench/utils.py` (q_bench_process_results, q_bench_aggregate_results; seeded the same); nothing else of lmms-eval is
imported. What the harness itself does, as the checkout does it (line numbers at
75571cfe): the built-in metric call of ConfigurableTask.process_results for generate_until
(lmms_eval/api/task.py:1673-1727: replies stripped, `references=gold` as a list, the metric's yaml kwargs),
the per-metric aggregation (evaluator_utils.py calculate_aggregate_metric: each metric of the yaml's
metric_list over the docs whose process_results returned it), and the
0.4+ slim samples line of EvaluationTracker.save_results_samples (loggers/evaluation_tracker.py:265-286:
`input` = the prompt, one-element `filtered_resps` flattened, `resps` dropped when equal, `target` as
str(), `arguments` and `doc` dropped). Docs and replies come from write_runs_data.json beside this file.
"""
import hashlib
import importlib.util
import json
import os
import sys
import types
from pathlib import Path

ROOT = Path(os.environ["LMMS_EVAL"])


def _load(name, rel):
    spec = importlib.util.spec_from_file_location(name, ROOT / rel)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _stubs():
    registry = types.ModuleType("lmms_eval.api.registry")
    registry.register_aggregation = lambda name: (lambda fn: fn)
    registry.register_metric = lambda **kw: (lambda fn: fn)
    for name in ("lmms_eval", "lmms_eval.api"):
        package = types.ModuleType(name)
        package.__path__ = []
        sys.modules.setdefault(name, package)
    sys.modules["lmms_eval.api.registry"] = registry
    sys.modules.setdefault("sacrebleu", types.ModuleType("sacrebleu"))


_stubs()


def builtin(metric, kwargs):
    """ConfigurableTask.process_results, generate_until branch, one built-in metric, no multiple_target."""
    metrics = _load("lmms_eval.api.metrics", "lmms_eval/api/metrics.py")
    fn = {"exact_match": metrics.exact_match_fn, "anls": metrics.anls}[metric]

    def process(doc, results, target):
        result = [res.strip() if res is not None else "" for res in results]
        gold = target if isinstance(target, list) else [target]
        score = fn(references=gold, predictions=result, **kwargs)
        if isinstance(score, dict):
            score = score[metric]
        return {metric: score}
    return process


def mean(arr):
    """lmms_eval/api/metrics.py `mean`, the aggregation `mean` names (the original, loaded)."""
    return _load("lmms_eval.api.metrics", "lmms_eval/api/metrics.py").mean(arr)


def _ocrbench():
    """ocrbench/utils.py with its logger and submission-file helper stubbed (the aggregation prints the
    category sums to that file: a temporary one here)."""
    import tempfile
    _stub_loguru()
    files = types.ModuleType("lmms_eval.tasks._task_utils.file_utils")
    scratch = tempfile.mkdtemp()
    files.generate_submission_file = lambda name, args, subpath=None: os.path.join(scratch, name)
    for name in ("lmms_eval.tasks", "lmms_eval.tasks._task_utils"):
        package = types.ModuleType(name)
        package.__path__ = []
        sys.modules.setdefault(name, package)
    sys.modules["lmms_eval.tasks._task_utils.file_utils"] = files
    return _load("ocrbench_utils", "lmms_eval/tasks/ocrbench/utils.py")


def load_task(name):
    """(process_results(doc, results, target), doc_to_target, {metric: aggregation}) of a task, loaded
    from the checkout when asked for (an older checkout has only some of them)."""
    if name == "pope":
        pope = _load("pope_utils", "lmms_eval/tasks/pope/utils.py")
        return (lambda doc, results, target: pope.pope_process_results(doc, results), lambda d: d["answer"],
                {"pope_accuracy": pope.pope_aggregate_accuracy, "pope_precision": pope.pope_aggregate_precision,
                 "pope_recall": pope.pope_aggregate_recall, "pope_f1_score": pope.pope_aggregate_f1_score,
                 "pope_yes_ratio": pope.pope_aggregate_yes_ratio})
    if name == "gqa":
        return (builtin("exact_match", {"ignore_case": True, "ignore_punctuation": True}), lambda d: d["answer"],
                {"exact_match": mean})
    if name == "docvqa_val":
        return builtin("anls", {}), lambda d: d["answers"], {"anls": mean}
    if name == "chartqa":
        chartqa = _load("chartqa_utils", "lmms_eval/tasks/chartqa/utils.py")
        return (lambda doc, results, target: chartqa.chartqa_process_results(doc, results), lambda d: d["answer"],
                {"relaxed_overall": mean, "relaxed_human_split": mean, "relaxed_augmented_split": mean})
    if name == "ocrbench":
        ocr = _ocrbench()

        def ocrbench_aggregate_accuracy(results):  # lmms-eval passes its CLI args (used for the file's path)
            return ocr.ocrbench_aggregate_accuracy(results, None)
        return (lambda doc, results, target: ocr.ocrbench_process_results(doc, results), lambda d: d["answer"],
                {"ocrbench_accuracy": ocrbench_aggregate_accuracy})
    if name in ("seedbench", "seedbench_2_plus"):
        seed = _load(f"{name}_utils", f"lmms_eval/tasks/{name}/utils.py")
        keys = ("seed_image", "seed_video", "seed_all") if name == "seedbench" else (
            "seedbench_2_plus_Chart", "seedbench_2_plus_Map", "seedbench_2_plus_Web", "seedbench_2_plus_all")
        aggregate = {k: seed.seed_aggregation_result for k in keys}
        if hasattr(seed, "seed_aggregation_result_all"):  # writes ./seed_submission.json: run from a scratch folder
            aggregate[keys[-1]] = seed.seed_aggregation_result_all
        return (lambda doc, results, target: seed.seed_process_result(doc, results), lambda d: d["answer"], aggregate)
    if name == "mmstar":
        _stub_loguru()
        pil = types.ModuleType("PIL")
        pil.Image = types.ModuleType("PIL.Image")
        sys.modules.setdefault("PIL", pil)
        if (ROOT / "lmms_eval/tasks/_task_utils/mcq_extract.py").exists():  # 9ca4445d (2026-04-11) on
            _stub_packages("lmms_eval.tasks", "lmms_eval.tasks._task_utils")
            _load("lmms_eval.tasks._task_utils.mcq_extract", "lmms_eval/tasks/_task_utils/mcq_extract.py")
        mmstar = _load("mmstar_utils", "lmms_eval/tasks/mmstar/utils.py")
        keys = ["coarse perception", "fine-grained perception", "instance reasoning", "logical reasoning",
                "science & technology", "math", "average"]
        return (lambda doc, results, target: mmstar.mmstar_process_results(doc, results), lambda d: d["answer"],
                {k: mmstar.mmstar_aggregate_results for k in keys})
    if name.startswith(("blink_", "cv_bench")):
        folder = "blink" if name.startswith("blink_") else "cv_bench"
        _stub_packages("lmms_eval.tasks", "lmms_eval.tasks._task_utils")
        template = types.ModuleType("lmms_eval.tasks._task_utils.default_template_yaml")
        template.load_default_template_yaml = lambda path: {}  # the yaml's prompts: not used for scoring
        sys.modules["lmms_eval.tasks._task_utils.default_template_yaml"] = template
        utils = _load(f"{folder}_utils", f"lmms_eval/tasks/{folder}/utils.py")
        if folder == "blink":
            return (lambda doc, results, target: utils.blink_process_results(doc, results), lambda d: d["answer"],
                    {"blink_acc": utils.blink_aggregate_results})
        return (lambda doc, results, target: utils.cv_bench_process_results(doc, results), lambda d: d["answer"],
                {"cv_bench_acc": utils.cv_bench_aggregate_results})
    if name == "muirbench":  # the filter class's base is stubbed: its output is given, not re-run
        _stub_packages("lmms_eval.filters")
        extraction = types.ModuleType("lmms_eval.filters.extraction")
        extraction.ExtendedRegexFilter = type("ExtendedRegexFilter", (), {})
        sys.modules["lmms_eval.filters.extraction"] = extraction
        muir = _load("muirbench_utils", "lmms_eval/tasks/muirbench/utils.py")
        return (lambda doc, results, target: muir.muir_process_results(doc, results), muir.muir_doc_to_target,
                {"muirbench_score_overall": muir.muir_aggregation})
    if name == "vstar_bench":
        _stub_loguru()
        vstar = _load("vstar_utils", "lmms_eval/tasks/vstar_bench/utils.py")
        # vstar_bench.yaml's metric_list names only the overall metric (the per-category keys are logged per
        # sample, aggregated only by the per-category tasks' yamls)
        return (lambda doc, results, target: vstar.vstar_process_results(doc, results), lambda d: d["label"],
                {"vstar_overall_acc": vstar.vstar_aggregate_results})
    if name == "mmvp":
        _stub_loguru()
        mmvp = _load("mmvp_utils", "lmms_eval/tasks/mmvp/utils.py")
        return (lambda doc, results, target: mmvp.mmvp_process_results(doc, results), mmvp.mmvp_doc_to_target,
                {"mmvp_accuracy": mmvp.mmvp_aggregate_results, "mmvp_pair_accuracy": mmvp.mmvp_aggregate_pair_results})
    if name == "mmerealworld":
        _stub_loguru()
        pil = types.ModuleType("PIL")
        pil.Image = types.ModuleType("PIL.Image")
        sys.modules.setdefault("PIL", pil)
        sys.modules.setdefault("cv2", types.ModuleType("cv2"))  # imported, unused, by the 2024 version
        _stub_packages("lmms_eval.tasks", "lmms_eval.tasks._task_utils")
        files = types.ModuleType("lmms_eval.tasks._task_utils.file_utils")
        files.generate_submission_file = lambda *a, **k: None
        sys.modules.setdefault("lmms_eval.tasks._task_utils.file_utils", files)
        mmerw = _load("mme_realworld_utils", "lmms_eval/tasks/mme_realworld/utils.py")
        return (lambda doc, results, target: mmerw.mme_realworld_process_results(doc, results), lambda d: d["answer"],
                {"mme_realworld_score": mmerw.mme_realworld_aggregate_results})
    if name == "realworldqa":  # 9ca4445d on: process_results with the shared extractor (the filters are not run)
        _stub_packages("lmms_eval.tasks", "lmms_eval.tasks._task_utils", "lmms_eval.filters")
        _load("lmms_eval.tasks._task_utils.mcq_extract", "lmms_eval/tasks/_task_utils/mcq_extract.py")
        for module, cls in (("lmms_eval.filters.extraction", "ExtendedRegexFilter"),
                            ("lmms_eval.filters.transformation", "MapFilter")):
            stub = types.ModuleType(module)
            setattr(stub, cls, type(cls, (), {}))
            sys.modules[module] = stub
        rwqa = _load("realworldqa_utils", "lmms_eval/tasks/realworldqa/utils.py")
        return (lambda doc, results, target: rwqa.realworldqa_process_results(doc, results), lambda d: d["answer"],
                {"exact_match": mean})
    if name == "ai2d":  # its yaml's `flexible-extract` filter, run as lmms-eval runs it, then the built-in metric
        _filters()
        ai2d = _load("ai2d_utils", "lmms_eval/tasks/ai2d/utils.py")
        keep = ai2d.MultiChoiceRegexFilter(regex_pattern="([A-Z])\\.", group_select=0, ignore_case=True,
                                           ignore_punctuation=True)
        FILTERS[name] = ("flexible-extract", keep)
        return (builtin("exact_match", {"ignore_case": True, "ignore_punctuation": True}),
                lambda d: ai2d.ai2d_doc_to_target(d, "mcq"), {"exact_match": mean})
    if name in VQA_TASKS:  # EvalAI VQA accuracy; process_results edits doc["answers"] in place (logged so)
        _stub_loguru()
        _stub_packages("lmms_eval.tasks", "lmms_eval.tasks._task_utils")
        import tempfile
        scratch = tempfile.mkdtemp()  # the submission aggregation writes its file there
        files = types.ModuleType("lmms_eval.tasks._task_utils.file_utils")
        files.generate_submission_file = lambda name, args=None, subpath=None: os.path.join(scratch, name)
        sys.modules["lmms_eval.tasks._task_utils.file_utils"] = files
        _load("lmms_eval.tasks._task_utils.vqa_eval_metric", "lmms_eval/tasks/_task_utils/vqa_eval_metric.py")
        folder, prefix = VQA_TASKS[name]
        if folder == "vqav2":  # `import lmms_eval.tasks._task_utils.file_utils as file_utils`
            sys.modules["lmms_eval.tasks._task_utils"].file_utils = files
        utils = _load(f"{folder}_utils", f"lmms_eval/tasks/{folder}/utils.py")
        # vqav2_val.yaml: process_results is vqav2_process_results_val (exact_match only)
        process = getattr(utils, f"{prefix}_process_results" + ("_val" if folder == "vqav2" else ""))
        # doc_to_target: "answer" names no field of these datasets: ConfigurableTask.doc_to_target renders it
        # as a template, the text "answer"; the yaml's metric_list aggregates only exact_match (mean)
        aggregate = {"exact_match": mean}
        if hasattr(utils, f"{prefix}_aggregate_submissions") and folder in ("textvqa", "ok_vqa"):  # the others' yaml: none
            submissions = getattr(utils, f"{prefix}_aggregate_submissions")

            def aggregate_submissions(results):  # lmms-eval passes its CLI args (the file's path); returns None
                return submissions(results, None)
            aggregate_submissions.__name__ = submissions.__name__
            aggregate["submission"] = aggregate_submissions
        return (lambda doc, results, target: process(doc, results), lambda d: "answer", aggregate)
    if name == "mmmu_pro_standard":  # parse_multi_choice_response with the doc's options; random.choice seeded 0
        _stub_loguru()
        _stub_packages("lmms_eval.tasks", "lmms_eval.tasks._task_utils")
        files = types.ModuleType("lmms_eval.tasks._task_utils.file_utils")
        files.generate_submission_file = lambda *a, **k: None
        sys.modules.setdefault("lmms_eval.tasks._task_utils.file_utils", files)
        pro = _load("mmmu_pro_utils", "lmms_eval/tasks/mmmu_pro/utils.py")
        import random
        random.seed(0)  # simple_evaluate's random_seed=0 (evaluator.py), the state its random.choice draws from
        return (lambda doc, results, target: pro.mmmu_pro_process_results(doc, results), lambda d: d["answer"],
                {"mmmu_acc": pro.mmmu_pro_aggregate_results})
    if name == "qbench_dev":  # parse_multi_choice_response over option0..3; random.choice seeded 0
        _stub_packages("lmms_eval.tasks", "lmms_eval.tasks._task_utils")
        files = types.ModuleType("lmms_eval.tasks._task_utils.file_utils")
        files.generate_submission_file = lambda *a, **k: None
        sys.modules.setdefault("lmms_eval.tasks._task_utils.file_utils", files)
        qbench = _load("qbench_utils", "lmms_eval/tasks/qbench/utils.py")
        import random
        random.seed(0)  # simple_evaluate's random_seed=0
        # qbench_dev.yaml's metric_list names only qbench_acc (process_results also returns `submission`)
        return (lambda doc, results, target: qbench.q_bench_process_results(doc, results),
                lambda d: d["correct_choice"], {"qbench_acc": qbench.q_bench_aggregate_results})
    raise SystemExit(f"unknown task {name}")


# task -> (folder under lmms_eval/tasks, prefix of its process_results)
VQA_TASKS = {"textvqa_val": ("textvqa", "textvqa"), "ok_vqa_val2014": ("ok_vqa", "ok_vqa"),
             "vizwiz_vqa_val": ("vizwiz_vqa", "vizwiz_vqa"), "vqav2_val": ("vqav2", "vqav2")}


FILTERS = {}  # task -> (filter name, the filter object whose `apply` lmms-eval calls)


def _filters():
    """lmms_eval/api/instance.py, api/filter.py (its `datasets` import, a type hint, stubbed), api/reasoning.py and
    filters/extraction.py, loaded from the checkout: the filter classes a task's utils.py builds on."""
    _stub_packages("lmms_eval.filters", "lmms_eval.tasks", "lmms_eval.tasks._task_utils")
    datasets = types.ModuleType("datasets")
    datasets.Dataset = type("Dataset", (), {})
    sys.modules.setdefault("datasets", datasets)
    for module, path in (("lmms_eval.api.instance", "lmms_eval/api/instance.py"),
                         ("lmms_eval.api.filter", "lmms_eval/api/filter.py"),
                         ("lmms_eval.api.reasoning", "lmms_eval/api/reasoning.py"),
                         ("lmms_eval.filters.extraction", "lmms_eval/filters/extraction.py")):
        if (ROOT / path).exists():
            _load(module, path)


def _stub_loguru():
    loguru = types.ModuleType("loguru")
    loguru.logger = types.SimpleNamespace(info=lambda *a, **k: None, warning=lambda *a, **k: None,
                                          debug=lambda *a, **k: None)
    sys.modules["loguru"] = loguru


def _stub_packages(*names):
    for name in names:
        package = types.ModuleType(name)
        package.__path__ = []
        sys.modules.setdefault(name, package)


# LMMS_LOG=0.3: the samples line of lmms-eval 0.3 (v0.3.0 2024-11-29 ... v0.3.5 2025-07-30; 0.2.4 the same keys),
# evaluator.py evaluate() and loggers/evaluation_tracker.py save_results_samples at v0.3.5: the doc (keys holding
# "image" left out) copied AFTER process_results ran on it, so a field the scorer edited in place is logged edited
LOG_03 = os.environ.get("LMMS_LOG") == "0.3"


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _line_03(doc_id, doc, target, reply, filtered, metrics):
    """One 0.3 samples line: {doc_id, doc, target, arguments, resps, filtered_resps, doc_hash, prompt_hash,
    target_hash, <metrics>}, then save_results_samples adds `input` (the prompt), makes `arguments` the
    enumerate() of the generation kwargs (their key names by position) and `target` str()."""
    prompt = doc.get("question", "")
    gen_kwargs = {"until": ["ASSISTANT:"]}
    line = {"doc_id": doc_id, "doc": {k: v for k, v in doc.items() if "image" not in k},
            "target": target, "arguments": [prompt, gen_kwargs, doc_id], "resps": [[reply]],
            "filtered_resps": [filtered],
            "doc_hash": _hash(json.dumps(doc, indent=2, ensure_ascii=False)), "prompt_hash": _hash(prompt),
            "target_hash": _hash(str(target))}
    line.update(metrics)
    line["input"] = line["arguments"][0]
    line["arguments"] = {key: value for key, value in enumerate(line["arguments"][1])}
    line["target"] = str(line["target"])
    return line


def run(out: Path, data: dict, tasks: list[str], date: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    results, configs, n_samples = {}, {}, {}
    for task_name in tasks:
        process, to_target, aggregations = load_task(task_name)
        task = task_name
        per_metric = {}
        with open(out / f"{date}_samples_{task}.jsonl", "w", encoding="utf-8") as f:
            filter_name, keep = FILTERS.get(task, ("none", None))
            for doc_id, (doc, reply) in enumerate(data[task]):
                target = to_target(doc)
                filtered = reply if keep is None else keep.apply([[reply]], [doc])[0]
                metrics = process(doc, [filtered], target)
                for k, v in metrics.items():
                    per_metric.setdefault(k, []).append(v)
                if LOG_03:
                    line = _line_03(doc_id, doc, target, reply, filtered, metrics)
                else:
                    line = {"doc_id": doc_id, "target": str(target)}
                    if filtered != reply:  # save_results_samples keeps `resps` only when the filter changed it
                        line["resps"] = [reply]
                    line |= {"filtered_resps": filtered,
                            "token_counts": [None],
                            "doc_hash": hashlib.sha256(json.dumps(doc, indent=2, ensure_ascii=False).encode("utf-8")).hexdigest()}
                    line.update(metrics)
                    line["input"] = doc.get("question", "")
                f.write(json.dumps(line, ensure_ascii=False) + "\n")
        values = {"alias": task}
        for metric, agg in aggregations.items():
            values[f"{metric},{filter_name}"] = agg(per_metric[metric])
            values[f"{metric}_stderr,{filter_name}"] = "N/A"
        results[task] = values
        configs[task] = {"task": task, "output_type": "generate_until",
                         "metric_list": [{"metric": m, "aggregation": "mean" if a is mean else
                                          f"<function {a.__name__}>", "higher_is_better": True}
                                         for m, a in aggregations.items()]}
        n_samples[task] = {"original": len(data[task]), "effective": len(data[task])}
    report = {"results": results, "configs": configs, "versions": {t: "Yaml" for t in tasks},
              "n-samples": n_samples, "model_name": data["model_name"], "date": date}
    (out / f"{date}_results.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    # write_runs.py OUT_DIR RUN_ID TASK... (RUN_ID: the YYYYMMDD_HHMMSS of the file names)
    run(Path(sys.argv[1]), json.loads((here / "write_runs_data.json").read_text(encoding="utf-8")), sys.argv[3:],
        sys.argv[2])

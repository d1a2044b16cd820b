"""lmms-eval's run layout: `<date>_results.json` with, per task, `<date>_samples_<task>.jsonl` (the
per-sample metric values stand in for VLMEvalKit's result sheet)."""
from __future__ import annotations

import json
from pathlib import Path

from rulekit.core.limits import limit
from rulekit.report.reproduce.files import json_of
from rulekit.report.reproduce.found import Artifact, Note, error_note
from rulekit.report.reproduce.numbers import figure, mean
from rulekit.report.reproduce.published import Published
from rulekit.report.reproduce.registry import Family, families_for

# `lmms-eval --log_samples` writes, per run, `<date>_results.json` ({"results": {task: {"<metric>,<filter>":
# value, "<metric>_stderr,<filter>": ...}}, "configs": {task: {"metric_list": [{metric, aggregation}]}},
# "model_name", ...}) and `<date>_samples_<task>.jsonl` (one line per document, with its per-sample metric
# values); older versions write `results.json` and `<task>.jsonl` / `*_samples_<task>.jsonl`.
_STDERR = ("_stderr", "_stderr_clt", "_stderr_clustered")


def _lmms_samples(results: Path, task: str, files: list[Path]) -> Path | None:
    """The samples log of `task` written by the run of `results`: `<prefix>_samples_<task>.jsonl` beside
    it, else the one `*samples_<task>.jsonl` (or `<task>.jsonl`) there."""
    prefix = results.name[: -len("results.json")]
    here = [f for f in files if f.parent == results.parent]
    named = [f for f in here if f.name in (f"{prefix}samples_{task}.jsonl", f"{prefix}samples_{task}.jsonl.gz")]
    if named:
        return named[0]
    loose = [f for f in here if f.name.endswith((f"samples_{task}.jsonl", f"samples_{task}.jsonl.gz"))
             or f.name in (f"{task}.jsonl", f"{task}.jsonl.gz")]
    return loose[0] if len(loose) == 1 else None


def _model_label(name: str) -> str:
    """A model name for the table: a Hugging Face cache path (`.../models--ORG--NAME/snapshots/...`) as
    ORG/NAME, another local path as its last part, a hub id as it is."""
    cached = _hf_cache_name(name)
    if cached:
        return cached
    return name.rstrip("/").rsplit("/", 1)[-1] if name.startswith(("/", "./", "~")) else name


def _hf_cache_name(name: str) -> str | None:
    """ORG/NAME of the first `models--ORG--NAME` in a path (ORG the shortest, NAME the longest run of
    characters other than `/`), as re.search(r"models--([^/]+?)--([^/]+)") finds it, in linear time: the
    name comes from a results.json, and that pattern is quadratic on a long name without a match."""
    at = name.find("models--")
    while at >= 0:
        start = at + 8
        end = name.find("/", start)
        end = len(name) if end < 0 else end
        cut = name.find("--", start + 1, end)
        if cut >= 0 and cut + 2 < end:
            return f"{name[start:cut]}/{name[cut + 2:end]}"
        at = name.find("models--", end)  # any later start in this segment fails the same way
    return None


def lmms_eval_runs(files: list[Path]):
    """(Artifact, None) per task of each lmms-eval results.json whose samples log is beside it, (None, Note)
    for a task that cannot be reproduced (no samples log, no task in the registry) or a results.json that
    cannot be read (the other files go on)."""
    for f in files:
        if not f.name.endswith("results.json"):
            continue
        try:
            found = list(_run_tasks(f, files))
        except Exception as exc:  # one file that cannot be read never ends the run (issue 30)
            found = [(None, error_note(f, exc))]
        yield from found


def _run_tasks(f: Path, files: list[Path]):
    """What lmms_eval_runs yields for one results.json."""
    data = json_of(f, limit=limit("report-bytes"), strict=True)
    if not (isinstance(data, dict) and isinstance(data.get("results"), dict)
            and ("configs" in data or "versions" in data or "n-samples" in data)):
        return
    configs = data.get("configs") if isinstance(data.get("configs"), dict) else {}
    model = _model_label(str(data.get("model_name") or data.get("model_name_sanitized") or f.parent.name))
    for task, values in sorted(data["results"].items()):
        if not isinstance(values, dict):
            continue
        numbers = []
        for key, value in values.items():
            metric, comma, filt = key.partition(",")
            if comma and type(value) in (int, float) and not metric.endswith(_STDERR):
                numbers.append(Published(filt, key, repr(value)))
        if not numbers:
            continue
        samples = _lmms_samples(f, task, files)
        if samples is None:
            yield None, Note(str(f), f"task `{task}` has no samples log beside it ({f.name[:-len('results.json')]}"
                                     f"samples_{task}.jsonl; run lmms-eval with --log_samples); not reproduced", True)
            continue
        family = next((fm for fm in families_for(task) if fm.framework == "lmms-eval"), None)
        if family is None:
            yield None, Note(str(samples), f"not supported: lmms-eval task `{task}` (no ruleset for it in "
                                           "rulekit/data/benchmarks.yaml); not reproduced", True)
            continue
        needs = (family.spec or {}).get("needs-doc")
        if needs and not _has_doc(samples):
            yield None, Note(str(samples), f"not supported: lmms-eval task `{task}` (its samples log has no `doc`, "
                                           f"lmms-eval 0.4+'s default: {needs} are not in the files); not reproduced",
                             True)
            continue
        config = configs.get(task)  # as lmms-eval writes it, {metric_list: [{metric, aggregation}, ...]}
        metric_list = config.get("metric_list") if isinstance(config, dict) else None
        aggregations = {str(m.get("metric")): str(m.get("aggregation"))
                        for m in (metric_list if isinstance(metric_list, list) else []) if isinstance(m, dict)}
        yield Artifact("lmms-eval", model, task, family, samples, f, numbers, aggregations=aggregations), None


def _has_doc(samples: Path) -> bool:
    """Whether the first line of a samples log carries the task's `doc` (a JSON object); an unreadable
    or empty log counts as carrying it, so its scoring says what is wrong with it."""
    from rulekit.readers.jsonl import READ_ERRORS, open_bytes

    try:
        with open_bytes(str(samples)) as f:
            first = f.readline(limit("line-bytes") + 1)
        obj = json.loads(first)
    except (READ_ERRORS, ValueError, UnicodeDecodeError):
        return True
    return not isinstance(obj, dict) or isinstance(obj.get("doc"), dict)


def lmms_numbers(art: Artifact, family: Family, result, scores: list[float]) -> tuple[dict, list[str]]:
    """Our value of each published lmms-eval metric: a `mean` aggregation is the mean of our per-record
    scores over the records whose samples log line carries that metric (lmms-eval aggregates a metric over
    the documents whose process_results returned it: ChartQA's `relaxed_human_split` only over human_test
    ones); a metric the registry names (`metrics:`) is the figure it says (`_figure_of`); any other
    aggregation is not recomputed."""
    named = dict(family.metrics)
    out, notes = {}, []
    for n in art.numbers:
        metric = n.metric.partition(",")[0]
        spec = named.get(metric)
        if spec is None and art.aggregations.get(metric, "mean") != "mean":
            out[(n.split, n.metric)] = None
            notes.append(f"`{n.metric}` is aggregated by {art.aggregations[metric]}, which rulekit does not "
                         "recompute for this task")
        else:
            out[(n.split, n.metric)] = _figure_of(spec, metric, result, scores)
    return out, notes


def _figure_of(spec, metric: str, result, scores: list[float]) -> float | None:
    """One metric's figure as the registry's `metrics:` entry says: none or `mean` (the mean over the records
    that logged the metric: also for a task's own aggregation function that computes it, SEED-Bench's), a
    dotted path of the ruleset's figures, or a mapping: `{path: P}`, `{mean-by: FIELD}` (the mean over FIELD's
    values of each value's mean, over the same records: MMStar's l2 categories) or `{mean: true}`, each with
    an optional `scale` (OCRBench's right answers / 1000, V*Bench's percent)."""
    if spec is None or spec == "mean":
        spec = {"mean": True}
    elif not isinstance(spec, dict):
        spec = {"path": spec}
    if "path" in spec:
        value = figure(result.metrics, str(spec["path"]))
    else:
        logged = [metric in (r.meta.get("metrics") or {}) for r in result.records]
        kept = [(r, s) for r, s, has in zip(result.records, scores, logged) if has or not any(logged)]
        value = _mean_by(kept, str(spec["mean-by"])) if "mean-by" in spec else mean([s for _, s in kept])
    scale = float(spec.get("scale", 1))
    return None if value is None else value * scale if scale != 1 else value


def _mean_by(kept: list, field: str) -> float | None:
    """The mean over the values of a record field (in order of first appearance) of each value's mean score;
    a record without the field counts under None."""
    groups: dict = {}
    for record, score in kept:
        groups.setdefault(record.field(field), []).append(score)
    return mean([sum(v) / len(v) for v in groups.values()])


def lmms_sample_scores(records: list, metric: str) -> dict[str, float]:
    """{record id: the per-sample value lmms-eval logged for `metric`} where it is a number (or a dict
    with a numeric `score`, else a boolean `is_correct`)."""
    out = {}
    for r in records:
        value = (r.meta.get("metrics") or {}).get(metric)
        if isinstance(value, dict):  # MME logs {question_id, category, score}; CV-Bench and BLINK {..., is_correct}
            value = value.get("score", value.get("is_correct"))
        if type(value) in (int, float, bool):
            out[r.id] = float(value)
    return out

"""`rulekit reproduce`: give back the numbers a framework published, from its own artifacts.

A VLMEvalKit work dir holds, per model and dataset, the prediction sheet `<model>_<dataset>.xlsx`
(or .tsv) and what its evaluation reported, `<model>_<dataset>_acc.csv` (or `_acc.xlsx`): one row
per split, an `Overall` column and one column per value of the `category` / `l2-category` fields.
For every reported number this package finds the prediction file, names model and benchmark from
the file names, looks the benchmark up in the registry (`rulekit/data/benchmarks.yaml`: which
built-in rulesets score it, newest generation first), scores the predictions with each of them in
one pass, and reports the first generation that gives back every number of the file to all its
printed digits. When none does, the closest one is reported with the records that account for the
difference — compared row by row with the evaluation's own result sheet
(`<model>_<dataset>_*_result.xlsx`, column `hit`) when it is there.

An lmms-eval run (`<date>_results.json` + `<date>_samples_<task>.jsonl`) is reproduced per task the
same way, its per-sample metric values standing in for the result sheet; an MMEvalPro run is its
model-output JSON and `auto_score.py`'s score JSON.

The modules follow the data: `registry` (the families, as data) and `names` (model and dataset of a
file stem); `files`, `published` (a report's numbers) and `found` (Artifact, Row); one module per
framework's file layout (`vlmevalkit`, `lmms_eval`, `mmevalpro`) and `artifacts`, which walks the
work dirs and hands each layout its files; `numbers` (our value of each published number), `sheets`
(what a framework's per-row sheet says), `replay` (its judge replies replayed); `generations` (every
generation scored, one chosen), `pool` (the files read and scored apart, in
forked workers with `workers` > 1, and merged in their order) and `render`.
"""
from __future__ import annotations

from rulekit.report.reproduce.artifacts import find_artifacts
from rulekit.report.reproduce.found import HEADLINES, Artifact, Row, is_headline
from rulekit.report.reproduce.generations import Scored, generation, rows_of, score_artifact
from rulekit.report.reproduce.pool import artifact_record, reproduce
from rulekit.report.reproduce.names import split_name
from rulekit.report.reproduce.published import Published, is_finite_number, read_report
from rulekit.report.reproduce.registry import Family, families_for, registry
from rulekit.report.reproduce.render import (as_json, exit_code, render_markdown, render_table, same_digits,
                                             summary_line)
from rulekit.report.reproduce.sheets import roll_failed, rolls_judged_right

__all__ = ["HEADLINES", "Artifact", "Family", "Published", "Row", "Scored", "as_json", "exit_code", "families_for",
           "find_artifacts", "generation", "is_finite_number", "is_headline", "read_report", "registry",
           "render_markdown", "render_table", "reproduce", "roll_failed", "rolls_judged_right", "rows_of",
           "same_digits", "score_artifact", "split_name", "summary_line"]

"""VLMEvalKit's ORIGINAL `ImageVQADataset.evaluate` of any commit from 2024-07 (image_vqa.py, its source taken
unchanged with `ast`) with the unchanged vlmeval/dataset/utils/vqa_eval.py and vlmeval/smp/misc.py of the
same commit (all three beside the harness), run on an EXISTING prediction sheet (a real work dir's
`<model>_<dataset>.xlsx`): the sheet is copied to OUT, `evaluate` writes OUT/<model>_<dataset>_acc.csv as
dump_csv writes it, and each row's hit_calculate score goes to HITS.json ({index: score}).
`mp.Pool(16).map` runs as `map` (same rows, same order).
    python rate_vqa_workdir.py DATASET SHEET.xlsx OUT HITS.json [METHOD]
METHOD: `evaluate` (default; 2024-07 to 2024-12) or `evaluate_heuristic` (where evaluate only dispatches to it)."""
import json, shutil, sys, types
from functools import partial
from pathlib import Path

import numpy as np

from smp_any_era import smp
from modules import load_module
from workdir_original import run_method

vqa_eval = load_module("vlmeval.dataset.utils.vqa_eval", "vqa_eval.py")
dataset, sheet, out, hits_path = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
out.mkdir(parents=True, exist_ok=True)
eval_file = out / sheet.name
shutil.copyfile(sheet, eval_file)
hits = {}
real_hit = vqa_eval.hit_calculate


def hit_calculate(result, dataset_name, *args, **kwargs):  # the original, its per-row scores kept once
    scores = real_hit(result, dataset_name, *args, **kwargs)
    if not hits and len(result) == len(rows):
        hits.update({str(i): float(s) for i, s in zip(rows, scores)})
    return scores


vqa_eval.hit_calculate = hit_calculate
rows = list(smp.load(str(eval_file))["index"])
run_method("image_vqa.py", "ImageVQADataset", sys.argv[5] if len(sys.argv) > 5 else "evaluate", str(eval_file), attributes={"dataset_name": dataset},
           names={**{k: v for k, v in vars(smp).items() if not k.startswith("__")}, "partial": partial, "np": np,
                  "mp": types.SimpleNamespace(Pool=lambda n: types.SimpleNamespace(map=lambda f, xs: list(map(f, xs))))})
json.dump(hits, open(hits_path, "w"), sort_keys=True)

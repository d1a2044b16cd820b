"""VLMEvalKit's ORIGINAL VQA evaluation of a REAL prediction file: `ImageVQADataset.evaluate` (2024, before
#265 split it) or `.evaluate_heuristic` (later), its source taken unchanged from the image_vqa.py beside
the harness with `ast`, with the unchanged vqa_eval.py and smp/misc.py of the same commit (`git show
COMMIT:vlmeval/dataset/image_vqa.py > image_vqa.py`, likewise vlmeval/dataset/utils/vqa_eval.py and
vlmeval/smp/misc.py). The prediction sheet is read by `load` (pd.read_excel), the report written to
OUT/<stem>_acc.csv as dump_csv writes it (QUOTE_ALL); `mp.Pool(16).map` runs as `map` (same rows, same
order); each row's hit_calculate score goes to OUT/<stem>_hits.json ({index: score}). Modules misc.py
imports at load time that only its other functions use (requests, matplotlib, seaborn, huggingface_hub,
sty, ...) are stubbed when missing.
    python rate_vqa_file.py DATASET PREDICTIONS.xlsx OUT [evaluate|evaluate_heuristic]
(needs pandas, numpy, openpyxl, tabulate, tqdm)."""
import csv, importlib, json, os, shutil, sys, types
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from modules import load_module, stub_packages

for name in ("requests", "matplotlib", "matplotlib.pyplot", "seaborn", "huggingface_hub", "huggingface_hub.utils",
             "huggingface_hub.utils._cache_manager", "sty", "validators",
             "xlsxwriter", "portalocker", "dotenv", "decord", "imageio", "omegaconf", "timeout_decorator"):
    try:
        importlib.import_module(name)
    except ImportError:
        stub = types.ModuleType(name)
        stub.__getattr__ = lambda attr: None
        sys.modules[name] = stub

stub_packages("vlmeval", "vlmeval.dataset", "vlmeval.dataset.utils")
misc = load_module("vlmeval.smp", "misc.py")  # `from ...smp import *` finds istype, listinstr, process_punctuation
for name in ("np", "pd"):
    setattr(misc, name, {"np": np, "pd": pd}[name])
vqa_eval = load_module("vlmeval.dataset.utils.vqa_eval", "vqa_eval.py")

dataset, predictions, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
method = sys.argv[4] if len(sys.argv) > 4 else "evaluate"
out.mkdir(parents=True, exist_ok=True)
eval_file = str(out / predictions.name)
shutil.copyfile(predictions, eval_file)
hits_path = out / (predictions.stem + "_hits.json")


def load(f):
    return pd.read_excel(f)


def dump(data, f):
    if f.endswith(".csv"):
        data.to_csv(f, index=False, encoding="utf-8", quoting=csv.QUOTE_ALL)
    else:  # the `_results` sheet of later versions: each row's hit_calculate score
        hits = {str(i): float(vqa_eval.hit_calculate([{"match": m}], dataset)[0])
                for i, m in zip(data["index"], data["eval_match"])}
        json.dump(hits, open(hits_path, "w"), sort_keys=True)


def d2df(D):
    return pd.DataFrame({x: [D[x]] for x in D})


source = open("image_vqa.py", encoding="utf-8").read()
import ast  # noqa: E402

cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "ImageVQADataset")
fn = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == method)
pool = types.SimpleNamespace(map=lambda f, xs: list(map(f, xs)))
namespace = {"__name__": "vlmeval.dataset.image_vqa", "__package__": "vlmeval.dataset", "load": load, "dump": dump,
             "d2df": getattr(misc, "d2df", d2df), "listinstr": misc.listinstr, "np": np, "pd": pd, "partial": partial,
             "mp": types.SimpleNamespace(Pool=lambda n: pool), "osp": os.path, "os": os,
             "get_intermediate_file_path": lambda f, suffix, fmt=None: f.replace(".xlsx", f"{suffix}.{fmt or ('csv' if suffix == '_acc' else 'xlsx')}")}
exec(compile(ast.get_source_segment(source, fn), "image_vqa.py", "exec"), namespace)
result = namespace[method](types.SimpleNamespace(dataset_name=dataset), eval_file)
if not hits_path.exists():  # 2024: no `_results` sheet; score each row again with the same functions
    data = load(eval_file)
    data["prediction"] = [str(x) for x in data["prediction"]]
    data["answer"] = [str(x) for x in data["answer"]]
    how = ("vqa_score" if misc.listinstr(["TextVQA"], dataset) else "relaxed_accuracy" if misc.listinstr(["ChartQA"], dataset)
           else "accuracy" if misc.listinstr(["OCRVQA", "GQA"], dataset) else "anls" if misc.listinstr(["DocVQA", "InfoVQA"], dataset)
           else "vqa_score")
    res = [vqa_eval.process_line(data.iloc[i], method=how) for i in range(len(data))]
    json.dump({str(i): float(h) for i, h in zip(data["index"], vqa_eval.hit_calculate(res, dataset))},
              open(hits_path, "w"), sort_keys=True)
os.remove(eval_file)
print(result)

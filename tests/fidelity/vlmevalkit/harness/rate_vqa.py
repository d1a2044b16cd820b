"""VLMEvalKit's ORIGINAL VQA scoring as a work dir: `ImageVQADataset.evaluate_heuristic` (its source taken
unchanged from vlmeval/dataset/image_vqa.py @ e8e78f05 with `ast`) with the unchanged
vlmeval/dataset/utils/vqa_eval.py and vlmeval/smp/misc.py (`istype`, `listinstr`, `process_punctuation`,
`d2df`). The predictions are written as VLMEvalKit's dump_xlsx writes them (pandas, xlsxwriter) to
OUT/<MODEL>_<DATASET>.xlsx and read back by `load` (pd.read_excel); the report goes to
OUT/<MODEL>_<DATASET>_acc.csv as dump_csv writes it (QUOTE_ALL); `mp.Pool(16).map` runs as `map`
(same rows, same order); the per-row `_results.xlsx` is not written: instead each row's score as
hit_calculate gives it goes to HITS.json ({index: score}).
    python rate_vqa.py DATASET MODEL records.jsonl OUT HITS.json   (image_vqa.py, vqa_eval.py, misc.py beside it;
    needs pandas, numpy, xlsxwriter, openpyxl; I/O: workdir_original.py)
A record: id (its `index`), question, response (prediction), answer, and `meta` columns (split, category)."""
import csv, json, sys, types
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from misc_original import misc
from modules import load_module, stub_packages
from workdir_original import dump as dump_xlsx, run_method

stub_packages("vlmeval", "vlmeval.dataset", "vlmeval.dataset.utils")
sys.modules["vlmeval.smp"] = types.SimpleNamespace(istype=misc.istype, listinstr=misc.listinstr,
                                                   process_punctuation=misc.process_punctuation)
vqa_eval = load_module("vlmeval.dataset.utils.vqa_eval", "vqa_eval.py")

dataset, model, records, out, hits_path = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4]), sys.argv[5]
out.mkdir(parents=True, exist_ok=True)
rows = [json.loads(line) for line in open(records, encoding="utf-8")]
meta = sorted({k for r in rows for k in r.get("meta", {})})
frame = pd.DataFrame({"index": [r["id"] for r in rows], "question": [r["question"] for r in rows],
                      "answer": [r["answer"] for r in rows], **{k: [r["meta"][k] for r in rows] for k in meta},
                      "prediction": [r["response"] for r in rows]})
eval_file = str(out / f"{model}_{dataset}.xlsx")
dump_xlsx(frame, eval_file)


def dump(data, f):
    if f.endswith(".csv"):
        data.to_csv(f, index=False, encoding="utf-8", quoting=csv.QUOTE_ALL)
    else:  # the `_results` sheet: each row's hit_calculate score
        hits = {str(i): float(vqa_eval.hit_calculate([{"match": m}], dataset)[0])
                for i, m in zip(data["index"], data["eval_match"])}
        json.dump(hits, open(hits_path, "w"), sort_keys=True)


run_method("image_vqa.py", "ImageVQADataset", "evaluate_heuristic", eval_file, attributes={"dataset_name": dataset},
           names={"dump": dump, "d2df": misc.d2df, "listinstr": misc.listinstr, "np": np, "partial": partial,
                  "mp": types.SimpleNamespace(Pool=lambda n: types.SimpleNamespace(map=lambda f, xs: list(map(f, xs))))})

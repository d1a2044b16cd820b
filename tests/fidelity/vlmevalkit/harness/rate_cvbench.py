"""A VLMEvalKit CV-Bench-2D work dir written by the ORIGINAL `CVBench.evaluate` (its source taken unchanged
from vlmeval/dataset/image_mcq.py with `ast`, run by workdir_original.run_method) with the unchanged
vlmeval/dataset/utils/multiple_choice.py (mcq_vanilla_eval, eval_vanilla, extract_answer_from_item) and
vlmeval/utils/matching_util.py (can_infer) of the same commit, under the `exact_matching` policy (no judge:
what can_infer cannot match is option Z, a miss). The rows (`cvbench_rows`, below) become OUT/<MODEL>_CV-Bench-2D.xlsx
as dump_xlsx writes it; the method writes OUT/<MODEL>_CV-Bench-2D_exact_matching_result.xlsx (hit, log) and
report_accuracy's OUT/<MODEL>_CV-Bench-2D_acc.csv (a column per source in a Python set's order, Overall = the
mean of the sources' accuracies). The .pkl is removed. The dataset's meta is the sheet itself (its answers).
    python rate_cvbench.py MODEL OUT [N SEED]   (image_mcq.py, multiple_choice.py, matching_util.py,
    modules.py, workdir_original.py, matching_original.py beside it; needs pandas, numpy, xlsxwriter, openpyxl)
Rows: N real multiple-choice replies of ../shared/corpus with two to six options (their question, options,
gold and reply), split "2D", source ADE20K (60%) or COCO, task Count or Relation, drawn with random.Random(SEED)."""
import glob, json, logging, os, random, string, sys, types
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

import matching_original  # noqa: F401  (vlmeval.utils with the original can_infer)
from modules import load_module, stub_packages
from workdir_original import dump, load, run_method, track_progress_rich

CORPUS = "/work/shared/corpus/responses.jsonl"


def cvbench_rows(n, seed):
    rng = random.Random(seed)
    out = []
    for line in open(CORPUS, encoding="utf-8"):
        r = json.loads(line)
        ch = r.get("choices") or {}
        if r["question_type"] != "multiple-choice" or not 2 <= len(ch) <= 6 or list(ch) != list("ABCDEF"[:len(ch)]):
            continue
        if r["answer"] not in ch or rng.random() > 0.05:
            continue
        row = {"index": len(out), "question": r["question"] or "Which option?"}
        row.update({k: ch.get(k) for k in "ABCDEF"})
        row.update(answer=r["answer"], prediction=r["response"], split="2D",
                   source="ADE20K" if rng.random() < 0.6 else "COCO", task=rng.choice(["Count", "Relation"]))
        out.append(row)
        if len(out) == n:
            break
    return out


model, out = sys.argv[1], Path(sys.argv[2])
n, seed = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (300, 30)
smp = sys.modules["vlmeval.smp"]
for name, value in dict(cn_string=lambda s: False, d2df=None, dump=dump, load=load, get_logger=logging.getLogger,
                        get_pred_file_format=lambda: "xlsx", istype=None, timestr=None).items():
    setattr(smp, name, value)
vlm = types.ModuleType("vlmeval.smp.vlm")
vlm.build_option_str = lambda choices: ""  # the judge's prompt only; no judge here
sys.modules["vlmeval.smp.vlm"] = vlm
utils = sys.modules["vlmeval.utils"]
utils.can_infer_lego, utils.track_progress_rich = None, track_progress_rich
stub_packages("vlmeval.dataset", "vlmeval.dataset.utils")
load_module("vlmeval.dataset.utils.multiple_choice", "multiple_choice.py")

out.mkdir(parents=True, exist_ok=True)
rows = cvbench_rows(n, seed)
frame = pd.DataFrame({k: [r[k] for r in rows] for k in rows[0]})
eval_file = str(out / f"{model}_CV-Bench-2D.xlsx")
dump(frame, eval_file)
meta = load(eval_file)
print(run_method("image_mcq.py", "CVBench", "evaluate", eval_file, model="exact_matching", nproc=1,
                 names={"string": string, "np": np, "defaultdict": defaultdict, "warnings": None},
                 attributes={"data": meta, "dataset_name": "CV-Bench-2D",
                             "report_accuracy": lambda data: run_method(
                                 "image_mcq.py", "CVBench", "report_accuracy", data,
                                 names={"np": np, "defaultdict": defaultdict})}))
for pkl in glob.glob(str(out / "*.pkl")):
    os.remove(pkl)

"""A VLMEvalKit TDBench work dir written by the ORIGINAL `TDBench.evaluate` (vlmeval/dataset/image_mcq.py, its source
taken unchanged with `ast` and run by workdir_original.run_method; `do_evaluate` likewise) with the unchanged
vlmeval/dataset/utils/tdbench.py (rotational_eval), utils/multiple_choice.py (mcq_vanilla_eval, report_acc) and
vlmeval/utils/matching_util.py (can_infer) of the same commit, under the `exact_matching` policy (no judge: what
can_infer cannot match is option Z, a miss). For each rotation rot0, rot90, rot180, rot270 in that order the rows
(`rotation_rows`, below) become OUT/<MODEL>_tdbench_<rot>.xlsx and evaluate writes its
`_exact_matching_result.xlsx` and `_acc.csv`; the last one's rotational_eval writes OUT/<MODEL>_tdbench_REresult.csv
over all four (each earlier call wrote it over the rotations there so far; its link in OUT's parent is removed).
    python rate_tdbench.py MODEL OUT [N SEED]   (image_mcq.py, tdbench.py, multiple_choice.py, matching_util.py,
    modules.py, workdir_original.py, matching_original.py beside it; needs pandas, numpy, xlsxwriter, openpyxl)
Rows: N questions (index 1..N, a category drawn among three of TDBench's nine); for each rotation, N real
multiple-choice replies of ../shared/corpus with two to four options (their options, gold and reply) drawn with
random.Random(SEED + rotation), so a question is right in some rotations and wrong in others."""
import glob, json, logging, os, random, string, sys, types
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

import matching_original  # noqa: F401  (vlmeval.utils with the original can_infer)
from modules import load_module, stub_packages
from workdir_original import dump, load, run_method, track_progress_rich

CORPUS = "/work/shared/corpus/responses.jsonl"
CATEGORIES = ["attribute_comparison", "counting", "spatial_relation"]
ROTATIONS = ["rot0", "rot90", "rot180", "rot270"]


def rotation_rows(n, seed, categories):
    rng = random.Random(seed)
    out = []
    for line in open(CORPUS, encoding="utf-8"):
        r = json.loads(line)
        ch = r.get("choices") or {}
        if r["question_type"] != "multiple-choice" or not 2 <= len(ch) <= 4 or list(ch) != list("ABCD"[:len(ch)]):
            continue
        if r["answer"] not in ch or rng.random() > 0.05:
            continue
        i = len(out) + 1
        row = {"index": i, "question": f"Question {i}?", "category": categories[i - 1]}
        row.update({k: ch.get(k) for k in "ABCD"})
        row.update(answer=r["answer"], prediction=r["response"])
        out.append(row)
        if len(out) == n:
            break
    return out


model, out = sys.argv[1], Path(sys.argv[2])
n, seed = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (120, 47)
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
load_module("vlmeval.dataset.utils.tdbench", "tdbench.py")

out.mkdir(parents=True, exist_ok=True)
pick = random.Random(seed)
categories = [pick.choice(CATEGORIES) for _ in range(n)]
names = {"string": string, "np": np, "defaultdict": defaultdict, "warnings": None, "tabulate": lambda *a, **k: ""}
for k, rot in enumerate(ROTATIONS):
    rows = rotation_rows(n, seed + k, categories)
    frame = pd.DataFrame({c: [r[c] for r in rows] for c in rows[0]})
    eval_file = str(out / f"{model}_tdbench_{rot}.xlsx")
    dump(frame, eval_file)
    meta = load(eval_file)
    attributes = {"data": meta, "dataset_name": f"tdbench_{rot}"}
    attributes["do_evaluate"] = lambda f, **kw: run_method("image_mcq.py", "TDBench", "do_evaluate", f, names=names,
                                                          attributes=attributes, **kw)
    print(run_method("image_mcq.py", "TDBench", "evaluate", eval_file, model="exact_matching", nproc=1,
                     names=names, attributes=attributes))
for pkl in glob.glob(str(out / "*.pkl")):
    os.remove(pkl)
link = out.parent / f"{model}_tdbench_REresult.csv"
if link.is_symlink():
    link.unlink()

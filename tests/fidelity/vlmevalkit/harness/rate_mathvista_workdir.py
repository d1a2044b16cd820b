"""A VLMEvalKit MathVista work dir written by the ORIGINAL `MathVista.evaluate_heuristic` (its source taken
unchanged from vlmeval/dataset/image_vqa.py @ e8e78f05 with `ast`) with the unchanged
vlmeval/dataset/utils/mathvista.py and can_infer (vlmeval/utils/matching_util.py) and a scripted judge
(workdir_original.py): the rows `mathvista_rows.py` writes become OUT/<MODEL>_MathVista_MINI.xlsx (their
VLMEvalKit columns, as dump_xlsx writes them); the method asks the judge (each row's scripted reply, found by
its prompt) and writes OUT/<MODEL>_MathVista_MINI_<JUDGE>.xlsx (res, log) and
OUT/<MODEL>_MathVista_MINI_<JUDGE>_score.csv (MathVista_acc). The .pkl is removed.
    python rate_mathvista_workdir.py MODEL JUDGE rows.jsonl OUT   (image_vqa.py, mathvista.py and
    matching_util.py beside it; needs pandas, xlsxwriter, openpyxl)"""
import json, os, sys, types
from pathlib import Path

import pandas as pd

import matching_original  # noqa: F401  (vlmeval.utils.can_infer, before mathvista.py imports it)
from modules import load_module, stub_packages
from workdir_original import ScriptedJudge, dump, load, run_method

stub_packages("vlmeval.dataset", "vlmeval.dataset.utils")
smp_file = types.ModuleType("vlmeval.smp.file")
smp_file.load = load
sys.modules["vlmeval.smp.file"] = smp_file
mathvista = load_module("vlmeval.dataset.utils.mathvista", "mathvista.py")

model_name, judge_name, records, out = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
out.mkdir(parents=True, exist_ok=True)
rows = [json.loads(line) for line in open(records, encoding="utf-8")]
eval_file = str(out / f"{model_name}_MathVista_MINI.xlsx")
dump(pd.DataFrame({k: [r["columns"][k] for r in rows] for k in rows[0]["columns"]}), eval_file)
back = load(eval_file)  # the prompt of each row as the method builds it, from the sheet read back
judge = ScriptedJudge({mathvista.build_mathvista_gpt4_prompt(back.iloc[i]): r["judge_reply"] for i, r in enumerate(rows)})
run_method("image_vqa.py", "MathVista", "evaluate_heuristic", eval_file, judge=judge, model=judge_name, nproc=4)
os.remove(str(out / f"{model_name}_MathVista_MINI_{judge_name}.pkl"))

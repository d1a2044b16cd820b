"""A VLMEvalKit LogicVista or MMVet work dir written by the ORIGINAL `LogicVista.evaluate` / `MMVet.evaluate`
(their source taken unchanged from vlmeval/dataset/image_vqa.py @ e8e78f05 with `ast`) with the unchanged
vlmeval/dataset/utils/logicvista.py / mmvet.py and a scripted judge (workdir_original.py): the rows
`judged_rows.py` writes become OUT/<MODEL>_<BENCH>.xlsx (their VLMEvalKit columns, as dump_xlsx writes them);
the method asks the judge (each row's scripted replies, found by its prompt, one per try) and writes the judge's
sheet and score files — LogicVista: OUT/<MODEL>_LogicVista_<judge>.xlsx (res, log, hit) and
OUT/<MODEL>_LogicVista_<judge>_score.csv (evaluate_logicvista; <judge> is the method's short name, `gpt4o-mini`
for gpt-4o-mini); MMVet: OUT/<MODEL>_MMVet_<JUDGE>.xlsx (score, log), OUT/<MODEL>_MMVet_<JUDGE>_score.csv and
_score_fine.csv (MMVet_acc). The .pkl is removed.
    python rate_judged_workdir.py LogicVista|MMVet MODEL JUDGE rows.jsonl OUT   (image_vqa.py and
    logicvista.py / mmvet.py beside it; needs pandas, xlsxwriter, openpyxl)"""
import contextlib, glob, io, json, os, sys, types
from pathlib import Path

import pandas as pd

from modules import load_module, stub_packages
from workdir_original import ScriptedJudge, dump, load, run_method

UTILS = {"LogicVista": ("logicvista", "build_prompt_logicvista"), "MMVet": ("mmvet", "build_mmvet_gpt4_prompt")}

bench, model_name, judge_name, records, out = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], Path(sys.argv[5])
stub_packages("vlmeval", "vlmeval.smp", "vlmeval.dataset", "vlmeval.dataset.utils")
sys.modules["vlmeval.smp"].load = load  # mmvet.py: `from vlmeval.smp import load`
smp_file = types.ModuleType("vlmeval.smp.file")
smp_file.load = load  # logicvista.py: `from vlmeval.smp.file import load`
sys.modules["vlmeval.smp.file"] = smp_file
name, prompt_of = UTILS[bench]
utils = load_module(f"vlmeval.dataset.utils.{name}", f"{name}.py")

out.mkdir(parents=True, exist_ok=True)
rows = [json.loads(line) for line in open(records, encoding="utf-8")]
eval_file = str(out / f"{model_name}_{bench}.xlsx")
dump(pd.DataFrame({k: [r["columns"][k] for r in rows] for k in rows[0]["columns"]}), eval_file)
back = load(eval_file)  # the prompt of each row as the method builds it, from the sheet read back
replies = {}
for i, r in enumerate(rows):  # records that make the same prompt get the first one's replies
    replies.setdefault(getattr(utils, prompt_of)(back.iloc[i]), r["judge_replies"])
with contextlib.redirect_stdout(io.StringIO()):  # LogicVista_auxeval prints every prompt
    run_method("image_vqa.py", bench, "evaluate", eval_file, judge=ScriptedJudge(replies), model=judge_name, nproc=4)
for pkl in glob.glob(str(out / "*.pkl")):
    os.remove(pkl)

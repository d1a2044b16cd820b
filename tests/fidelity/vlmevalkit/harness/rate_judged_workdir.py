"""A VLMEvalKit LogicVista, MMVet or MathVerse work dir written by the ORIGINAL `LogicVista.evaluate` /
`MMVet.evaluate` / `MathVerse.evaluate` (their source taken unchanged from vlmeval/dataset/image_vqa.py @ e8e78f05
with `ast`) with the unchanged vlmeval/dataset/utils/logicvista.py / mmvet.py / mathverse.py and a scripted
judge (workdir_original.py): the rows
`judged_rows.py` writes become OUT/<MODEL>_<BENCH>.xlsx (their VLMEvalKit columns, as dump_xlsx writes them);
the method asks the judge (each row's scripted replies, found by its prompt, one per try) and writes the judge's
sheet and score files — LogicVista: OUT/<MODEL>_LogicVista_<judge>.xlsx (res, log, hit) and
OUT/<MODEL>_LogicVista_<judge>_score.csv (evaluate_logicvista; <judge> is the method's short name, `gpt4o-mini`
for gpt-4o-mini); MMVet: OUT/<MODEL>_MMVet_<JUDGE>.xlsx (score, log), OUT/<MODEL>_MMVet_<JUDGE>_score.csv and
_score_fine.csv (MMVet_acc); MathVerse (DATASET MathVerse_MINI...): OUT/<MODEL>_<DATASET>_<JUDGE>_extract.xlsx
(extract, log_extract), _score.xlsx (score, log_score) and _score.csv (MathVerse_acc) — its grader's replies are
not in the rows (its prompt holds the extract read back from the sheet): the five tries' replies are drawn
from GRADES by the sha256 of the prompt and the try. The .pkl files are removed.
    python rate_judged_workdir.py LogicVista|MMVet|MathVerse_MINI MODEL JUDGE rows.jsonl OUT   (image_vqa.py
    and logicvista.py / mmvet.py / mathverse.py beside it; needs pandas, numpy, xlsxwriter, openpyxl)"""
import contextlib, glob, hashlib, io, json, os, sys, types
from pathlib import Path

import pandas as pd

from modules import load_module, stub_packages
from workdir_original import ScriptedJudge, dump, load, run_method

UTILS = {"LogicVista": ("logicvista", "build_prompt_logicvista"), "MMVet": ("mmvet", "build_mmvet_gpt4_prompt"),
         "MathVerse": ("mathverse", "build_mathverse_gpt4_extract_prompt")}
GRADES = ["1", "0", " 1\n", "0 ", "Judgement: 1", "2", "", "yes", "1", "0"]

dataset, model_name, judge_name, records, out = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], Path(sys.argv[5])
bench = dataset.split("_")[0]  # the class: MathVerse for MathVerse_MINI, ...
stub_packages("vlmeval", "vlmeval.smp", "vlmeval.dataset", "vlmeval.dataset.utils")
sys.modules["vlmeval.smp"].load = load  # mmvet.py: `from vlmeval.smp import load`
smp_file = types.ModuleType("vlmeval.smp.file")
smp_file.load = load  # logicvista.py: `from vlmeval.smp.file import load`
sys.modules["vlmeval.smp.file"] = smp_file
name, prompt_of = UTILS[bench]
utils = load_module(f"vlmeval.dataset.utils.{name}", f"{name}.py")

out.mkdir(parents=True, exist_ok=True)
rows = [json.loads(line) for line in open(records, encoding="utf-8")]
eval_file = str(out / f"{model_name}_{dataset}.xlsx")
dump(pd.DataFrame({k: [r["columns"][k] for r in rows] for k in rows[0]["columns"]}), eval_file)
back = load(eval_file)  # the prompt of each row as the method builds it, from the sheet read back
replies = {}
for i, r in enumerate(rows):  # records that make the same prompt get the first one's replies
    replies.setdefault(getattr(utils, prompt_of)(back.iloc[i]), r["judge_replies"])


class Judge(ScriptedJudge):
    """The rows' scripted replies; a prompt none of them made (MathVerse's grading prompt) gets the GRADES
    reply its sha256 and the try draw."""

    def generate(self, prompt, temperature=0, **sampling):
        if prompt in self.replies:
            return super().generate(prompt, temperature)
        digest = hashlib.sha256(f"{prompt}\0{round(temperature / 0.5)}".encode("utf-8")).digest()
        return GRADES[int.from_bytes(digest[:8], "big") % len(GRADES)]


with contextlib.redirect_stdout(io.StringIO()):  # LogicVista_auxeval prints every prompt
    run_method("image_vqa.py", bench, "evaluate", eval_file, judge=Judge(replies), model=judge_name, nproc=4)
for pkl in glob.glob(str(out / "*.pkl")):
    os.remove(pkl)

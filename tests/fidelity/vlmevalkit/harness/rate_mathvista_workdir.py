"""A VLMEvalKit MathVista work dir written by the ORIGINAL `MathVista.evaluate_heuristic` (its source taken
unchanged from vlmeval/dataset/image_vqa.py @ e8e78f05 with `ast`) with the unchanged
vlmeval/dataset/utils/mathvista.py and can_infer (vlmeval/utils/matching_util.py) and a scripted judge
(workdir_original.py): the rows `mathvista_rows.py` writes become OUT/<MODEL>_MathVista_MINI.xlsx (their
VLMEvalKit columns, as dump_xlsx writes them); the method asks the judge (each row's scripted reply, found by
its prompt) and writes OUT/<MODEL>_MathVista_MINI_<JUDGE>.xlsx (res, log) and
OUT/<MODEL>_MathVista_MINI_<JUDGE>_score.csv (MathVista_acc). The .pkl is removed.
    python rate_mathvista_workdir.py MODEL JUDGE rows.jsonl OUT   (image_vqa.py, mathvista.py and
    matching_util.py beside it; needs pandas, xlsxwriter, openpyxl)"""
import importlib.util, json, logging, os, sys, types
from pathlib import Path

import pandas as pd

from workdir_original import ScriptedJudge, dump, load, run_method


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec); sys.modules[name] = module; spec.loader.exec_module(module)
    return module


log = types.ModuleType("vlmeval.smp.log"); log.get_logger = logging.getLogger
smp_file = types.ModuleType("vlmeval.smp.file"); smp_file.load = load
for name in ("vlmeval", "vlmeval.smp", "vlmeval.dataset", "vlmeval.dataset.utils"):
    pkg = types.ModuleType(name); pkg.__path__ = []; sys.modules[name] = pkg
sys.modules.update({"vlmeval.smp.log": log, "vlmeval.smp.file": smp_file})
matching = _load("vlmeval.utils.matching_util", "matching_util.py")
utils = types.ModuleType("vlmeval.utils"); utils.can_infer = matching.can_infer; sys.modules["vlmeval.utils"] = utils
mathvista = _load("vlmeval.dataset.utils.mathvista", "mathvista.py")

model_name, judge_name, records, out = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
out.mkdir(parents=True, exist_ok=True)
rows = [json.loads(line) for line in open(records, encoding="utf-8")]
eval_file = str(out / f"{model_name}_MathVista_MINI.xlsx")
dump(pd.DataFrame({k: [r["columns"][k] for r in rows] for k in rows[0]["columns"]}), eval_file)
back = load(eval_file)  # the prompt of each row as the method builds it, from the sheet read back
judge = ScriptedJudge({mathvista.build_mathvista_gpt4_prompt(back.iloc[i]): r["judge_reply"] for i, r in enumerate(rows)})
run_method("image_vqa.py", "MathVista", "evaluate_heuristic", judge, eval_file, model=judge_name, nproc=4)
os.remove(str(out / f"{model_name}_MathVista_MINI_{judge_name}.pkl"))

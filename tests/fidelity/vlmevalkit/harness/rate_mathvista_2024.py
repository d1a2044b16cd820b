"""A VLMEvalKit MathVista work dir of early 2024 written by the ORIGINAL `MathVista_eval` of
vlmeval/evaluate/mathvista_eval.py (before the dataset classes), unchanged, with its commit's can_infer
(matching_util.py) and misc.py (as vlmeval.smp, smp_any_era.py) and a scripted judge (workdir_original.py): the
rows `mathvista_rows.py` writes become OUT/<MODEL>_MathVista_MINI.xlsx; MathVista_eval asks the judge and writes
OUT/<MODEL>_MathVista_MINI_<JUDGE>.xlsx (res, log) and `_<JUDGE>_score.csv` (MathVista_acc). The .pkl is removed.
    git show COMMIT:vlmeval/evaluate/mathvista_eval.py > mathvista_eval.py   (and vlmeval/utils/matching_util.py,
    vlmeval/smp/misc.py beside it), then: python rate_mathvista_2024.py MODEL JUDGE rows.jsonl OUT
tests/fixtures/reproduce/vlmevalkit-mathvista-eras/mv0-model was written so at 74ada5bb (2024-04-20, the last
commit before c26761b8)."""
import json, logging, os, sys, types
from pathlib import Path

import pandas as pd

import smp_any_era  # noqa: F401  (vlmeval.smp from the commit's misc.py)
import matching_original  # vlmeval.utils.can_infer, from the commit's matching_util.py
from modules import load_module, stub_packages
from workdir_original import ScriptedJudge, dump, load, track_progress_rich

judge = None
sys.modules["vlmeval.smp"].get_logger = logging.getLogger  # vlmeval/smp/log.py's, logging only
stub_packages("vlmeval.evaluate")
misc_eval = types.ModuleType("vlmeval.evaluate.misc")
misc_eval.build_judge = lambda **_: judge
sys.modules["vlmeval.evaluate.misc"] = misc_eval
sys.modules["vlmeval.utils"].track_progress_rich = track_progress_rich
sys.modules["vlmeval.utils.matching_util"] = matching_original.matching
mathvista = load_module("vlmeval.evaluate.mathvista_eval", "mathvista_eval.py")

model_name, judge_name, records, out = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
out.mkdir(parents=True, exist_ok=True)
rows = [json.loads(line) for line in open(records, encoding="utf-8")]
eval_file = str(out / f"{model_name}_MathVista_MINI.xlsx")
dump(pd.DataFrame({k: [r["columns"][k] for r in rows] for k in rows[0]["columns"]}), eval_file)
back = load(eval_file)  # the prompt of each row as the function builds it, from the sheet read back
judge = ScriptedJudge({mathvista.build_mathvista_gpt4_prompt(back.iloc[i]): r["judge_reply"] for i, r in enumerate(rows)})
mathvista.MathVista_eval(eval_file, model=judge_name, nproc=4)
os.remove(str(out / f"{model_name}_MathVista_MINI_{judge_name}.pkl"))

"""A VLMEvalKit VGRPBench work dir written by the ORIGINAL `VGRPBench.evaluate` (vlmeval/dataset/image_vqa.py, its
source taken unchanged with `ast`, run by workdir_original.run_method) with the unchanged VGRPBench_score,
build_prompt and VGRPBench_get_system_prompt of vlmeval/dataset/utils/vgrpbench/evaluation.py of the same commit.
The per-row verdicts are NOT the original's: `VGRPBench_atomeval` (an LLM judge parses the reply, the puzzle
checkers of utils/vgrpbench/score.py grade it) is replaced by a scripted stand-in returning
{perception_correct, answer_correct, number_of_samples} drawn with random.Random(SEED) — what rulekit replays. The
original then writes OUT/<MODEL>_VGRPBench_openai_result.xlsx (the rows with the verdicts) and
OUT/<MODEL>_VGRPBench_score.csv (per category round(mean * 100, 2), then .round(1)).
    python rate_vgrpbench.py MODEL OUT [N SEED]   (image_vqa.py, evaluation.py, modules.py, workdir_original.py
    beside it; needs pandas, numpy, xlsxwriter, openpyxl)
Rows: N puzzles (index 1..N) of five VGRPBench categories (drawn after the verdicts), each with a placeholder question and reply."""
import os, random, sys, types
from pathlib import Path

import numpy as np
import pandas as pd

from modules import load_module, stub_packages
from workdir_original import dump, load, run_method

CATEGORIES = ["nonogram_5x5", "sudoku_4x4", "thermometers_4x4", "starbattle_5x5", "kakuro_4x4"]

model, out = sys.argv[1], Path(sys.argv[2])
n, seed = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (100, 918)
rng = random.Random(seed)
stub_packages("vlmeval", "vlmeval.dataset", "vlmeval.dataset.utils", "vlmeval.dataset.utils.vgrpbench")
score = types.ModuleType("vlmeval.dataset.utils.vgrpbench.score")
score.evaluate_single_puzzle = None  # the checkers: not run (see above)
sys.modules["vlmeval.dataset.utils.vgrpbench.score"] = score
evaluation = load_module("vlmeval.dataset.utils.vgrpbench.evaluation", "evaluation.py")
verdicts = {}
for i in range(1, n + 1):
    perceived = rng.random() < 0.6
    verdicts[i] = {"perception_correct": perceived, "answer_correct": perceived and rng.random() < 0.4,
                   "number_of_samples": 1}
evaluation.VGRPBench_atomeval = lambda judge, prompt, line: verdicts[int(line["index"])]

out.mkdir(parents=True, exist_ok=True)
frame = pd.DataFrame({"index": list(range(1, n + 1)), "question": [f"Solve puzzle {i}." for i in range(1, n + 1)],
                      "category": [rng.choice(CATEGORIES) for _ in range(n)],
                      "prediction": [f"My answer to puzzle {i}." for i in range(1, n + 1)]})
eval_file = str(out / f"{model}_VGRPBench.xlsx")
dump(frame, eval_file)
print(run_method("image_vqa.py", "VGRPBench", "evaluate", eval_file, nproc=1, names={"np": np}))

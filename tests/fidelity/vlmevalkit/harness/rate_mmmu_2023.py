"""MMMU's four-sheet `_acc.xlsx` as the ORIGINAL wrote it on VLMEvalKit's MMMU pull-request branch: `MMMU_eval` of
vlmeval/eval/mmmu_eval.py at 21e33c39 (2023-12-24, never on main), with that commit's own build_choices
(vlmeval/eval/multiple_choice.py), can_infer (vlmeval/utils/matching_util.py) and smp (vlmeval/smp.py: load,
dump), all loaded unchanged from VLMEVALKIT_SRC:

    C=21e33c39
    git show $C:vlmeval/eval/mmmu_eval.py > mmmu_eval.py; git show $C:vlmeval/eval/multiple_choice.py > multiple_choice.py
    git show $C:vlmeval/utils/matching_util.py > matching_util.py; git show $C:vlmeval/smp.py > misc.py
    VLMEVALKIT_SRC=. python rate_mmmu_2023.py MODEL OUT [N SEED]

The rows (`mmmu_rows`, below) become OUT/<MODEL>_MMMU_DEV_VAL.xlsx (the era's dump); MMMU_eval writes
OUT/<MODEL>_MMMU_DEV_VAL_acc.xlsx (sheets field, subfield, difficulty, image_type). Rows: N real MMMU replies of
../shared/corpus (options, gold, reply, question type; every open one there is, the multiple-choice ones drawn
with random.Random(SEED)), their `subject` as subfield and its MMMU discipline as field; topic_difficulty and
image_type drawn with the same generator. build_choices reads every letter column A-Z (`item[ch]`): the sheet
has them all, empty past the row's options."""
import json, os, random, string, sys, types

src = os.environ["VLMEVALKIT_SRC"]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
model, out = sys.argv[1], os.path.abspath(sys.argv[2])
n, seed = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (240, 1223)
os.chdir(src)
try:  # smp.py of 2023 imports Pillow at load time; MMMU_eval never opens an image
    import PIL  # noqa: F401
except ImportError:
    pil = types.ModuleType("PIL")
    pil.Image = types.ModuleType("PIL.Image")
    sys.modules["PIL"], sys.modules["PIL.Image"] = pil, pil.Image
from modules import load_module, stub_packages  # noqa: E402
from smp_any_era import _Anything, smp  # noqa: E402

import pandas as pd  # noqa: E402

era = sys.modules["vlmeval.smp.misc"]
smp.load, smp.dump = era.load, era.dump  # the era's own file I/O, not the harness's
for name in ("vlmeval.chat_api", "vlmeval.api"):  # the judge: not called by MMMU_eval
    sys.modules[name] = _Anything(name)
matching = load_module("vlmeval.utils.matching_util", "matching_util.py")
utils = types.ModuleType("vlmeval.utils")
utils.__path__ = []
utils.can_infer, utils.track_progress_rich, utils.TSVDataset = matching.can_infer, None, None
sys.modules["vlmeval.utils"] = utils
stub_packages("vlmeval.eval")
load_module("vlmeval.eval.multiple_choice", "multiple_choice.py")
mmmu = load_module("vlmeval.eval.mmmu_eval", "mmmu_eval.py")

FIELDS = {"Art": "Art & Design", "Art_Theory": "Art & Design", "Design": "Art & Design", "Music": "Art & Design",
          "Accounting": "Business", "Economics": "Business", "Finance": "Business", "Manage": "Business",
          "Marketing": "Business", "Biology": "Science", "Chemistry": "Science", "Geography": "Science",
          "Math": "Science", "Physics": "Science"}


def mmmu_rows(n, seed):
    rng = random.Random(seed)
    records = [json.loads(line) for line in open("/work/shared/corpus/responses.jsonl", encoding="utf-8")]
    records = [r for r in records if r.get("benchmark") == "MMMU" and (r["meta"] or {}).get("subject") in FIELDS
               and len(r.get("choices") or {}) <= 9 and isinstance(r["answer"], str)]
    opens = [r for r in records if r["question_type"] == "open"]
    mcq = [r for r in records if r["question_type"] == "multiple-choice" and len(r["response"]) > 3]
    picked = opens + rng.sample(mcq, n - len(opens))
    rows = []
    for i, r in enumerate(picked, 1):
        row = {"index": i, "question": r["question"] or f"Question {i}?"}
        row.update({k: (r["choices"] or {}).get(k) for k in string.ascii_uppercase})
        row.update(answer=r["answer"], question_type=r["question_type"], subfield=r["meta"]["subject"],
                   field=FIELDS[r["meta"]["subject"]], topic_difficulty=rng.choice(["Easy", "Medium", "Hard"]),
                   image_type=rng.choice(["Diagrams", "Tables", "Plots and Charts", "Photographs"]),
                   prediction=r["response"])
        rows.append(row)
    return rows


os.makedirs(out, exist_ok=True)
rows = mmmu_rows(n, seed)
result_file = os.path.join(out, f"{model}_MMMU_DEV_VAL.xlsx")
smp.dump(pd.DataFrame({c: [r[c] for r in rows] for c in rows[0]}), result_file)
print(mmmu.MMMU_eval(result_file).to_string())

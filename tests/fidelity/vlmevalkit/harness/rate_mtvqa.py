"""A VLMEvalKit MTVQA work dir written by the ORIGINAL `MTVQADataset.evaluate` (its source taken unchanged from
vlmeval/dataset/image_vqa.py with `ast`, run by workdir_original.run_method; unchanged in its scoring since
abaa7e06, 2024-07-22): the rows (`mtvqa_rows`, below) become OUT/<MODEL>_MTVQA_TEST.xlsx as dump_xlsx writes
it; the method writes OUT/<MODEL>_MTVQA_TEST_acc.json ({language: percent, Average: percent}) as dump_json
writes it (indent 4, ensure_ascii off, numpy numbers as floats).
    python rate_mtvqa.py MODEL OUT [N SEED]   (image_vqa.py, modules.py, workdir_original.py beside it;
    needs pandas, numpy, xlsxwriter, openpyxl)
Rows: N real open-ended replies of ../shared/corpus with their golds, 40% replaced by a variant that stresses
the scoring (case, periods inside and around, spaces, the gold inside a longer reply, pandas' NA texts),
a language category each (AR DE FR IT JA KR RU TH VI), split "test", drawn with random.Random(SEED)."""
import json, random, sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

from workdir_original import dump as dump_table, load, run_method

CORPUS = "/work/shared/corpus/responses.jsonl"
LANGS = ["AR", "DE", "FR", "IT", "JA", "KR", "RU", "TH", "VI"]
STRESS = ["None", "NA", "", "n/a", "3.", "3.5", "U.S.A.", "e.g.", "...", "."]


def variant(gold, rng):
    return rng.choice([gold, gold.upper(), f" {gold} ", gold + ".", "." + gold, gold.replace(" ", ". "),
                       f"The answer is {gold}.", f"{gold[:-1]}" if len(gold) > 1 else gold, gold + "\n",
                       rng.choice(STRESS)])


def mtvqa_rows(n, seed):
    rng = random.Random(seed)
    out = []
    for line in open(CORPUS, encoding="utf-8"):
        r = json.loads(line)
        if r["question_type"] != "open" or not isinstance(r["answer"], str) or not r["answer"].strip():
            continue
        if rng.random() > 0.2:
            continue
        gold = r["answer"].strip()
        if rng.random() < 0.1:
            gold = rng.choice(STRESS[4:])
        pred = variant(gold, rng) if rng.random() < 0.4 else r["response"]
        out.append({"index": len(out), "question": r["question"] or "q", "answer": gold, "category": rng.choice(LANGS),
                    "split": "test", "prediction": pred})
        if len(out) == n:
            break
    return out


class NumpyEncoder(json.JSONEncoder):  # smp/file.py's, for np numbers
    def default(self, obj):
        if isinstance(obj, (np.integer,)):
            return int(obj)
        if isinstance(obj, (np.floating,)):
            return float(obj)
        return json.JSONEncoder.default(self, obj)


def dump(data, f):
    if f.endswith(".json"):
        json.dump(data, open(f, "w"), indent=4, ensure_ascii=False, cls=NumpyEncoder)
    else:
        dump_table(data, f)


model, out = sys.argv[1], Path(sys.argv[2])
n, seed = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (400, 30)
out.mkdir(parents=True, exist_ok=True)
rows = mtvqa_rows(n, seed)
eval_file = str(out / f"{model}_MTVQA_TEST.xlsx")
dump(pd.DataFrame({k: [r[k] for r in rows] for k in rows[0]}), eval_file)
print(run_method("image_vqa.py", "MTVQADataset", "evaluate", eval_file, names={"np": np, "defaultdict": defaultdict, "dump": dump},
                 attributes={"dataset_name": "MTVQA_TEST"}))

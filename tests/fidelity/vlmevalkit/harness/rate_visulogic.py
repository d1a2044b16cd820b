"""VLMEvalKit's ORIGINAL visulogic.py (vlmeval/dataset/utils/visulogic.py @ e8e78f05, unchanged; only
`vlmeval.smp.load` stubbed to take the DataFrame itself) on records: per record what extract_answer
returns (the answer and its method: box, lang or error), and VisuLogic_acc's table on all of them (as
VisuLogic.evaluate calls it: no judge is ever used). Writes JSON: the sha256 of the records' ids in
order, the extracted answers and the methods' first letters as two strings in record order (every
answer is one character: A-D or Z), and the table (category → tot, hit, acc).
    python rate_visulogic.py records.jsonl out.json   (visulogic.py beside it; needs pandas and tqdm;
    scripted.py beside this file)"""
import contextlib, hashlib, io, json, sys

import pandas as pd

from scripted import load_original

visulogic = load_original("visulogic.py")

rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
answers, methods = [], []
for r in rows:
    answer, method = visulogic.extract_answer(r["response"])
    assert len(answer) == 1, answer
    answers.append(answer)
    methods.append(method[0])
frame = pd.DataFrame({"prediction": [r["response"] for r in rows], "answer": [r["answer"] for r in rows],
                      "category": [r["meta"]["category"] for r in rows]})
with contextlib.redirect_stderr(io.StringIO()):  # VisuLogic_acc draws a tqdm bar
    table = visulogic.VisuLogic_acc(frame)
ids = hashlib.sha256("\n".join(r["id"] for r in rows).encode("utf-8")).hexdigest()
json.dump({"ids_sha256": ids, "answers": "".join(answers), "methods": "".join(methods),
           "table": {c: [int(t), int(h), float(a)] for c, t, h, a in zip(table["category"], table["tot"], table["hit"],
                                                                         table["acc"])}},
          open(sys.argv[2], "w"), indent=None, sort_keys=True)

"""VLMEvalKit's ORIGINAL charxiv.py (vlmeval/dataset/charxiv.py @ e8e78f05, unchanged; the vlmeval package
imports it names stubbed) on records with scripted judge replies: `auxeval` runs with a judge model whose
generate(prompt, **sampling) returns the record's next scripted reply and notes the prompt and sampling;
then CharXiv.get_scores on the rows, in both modes (descriptive: by qid; reasoning: by inst_category).
Writes JSON: per record the sha256 of the prompt (UTF-8), the number of tries, the sampling and the
result (score, extracted_answer); and both get_scores tables.
    python rate_charxiv.py records.jsonl out.json   (charxiv.py beside it; needs pandas; scripted.py beside
    this file)"""
import importlib.util, json, sys, types

import pandas as pd

from scripted import sha256

for name in ("vlmeval", "vlmeval.dataset", "vlmeval.dataset.image_base", "vlmeval.dataset.utils", "vlmeval.smp",
             "vlmeval.smp.file", "vlmeval.smp.misc"):
    sys.modules[name] = types.ModuleType(name)
sys.modules["vlmeval"].utils = types.ModuleType("vlmeval.utils")
sys.modules["vlmeval.dataset.image_base"].ImageBaseDataset = type("ImageBaseDataset", (), {})
sys.modules["vlmeval.dataset.utils"].build_judge = None
sys.modules["vlmeval.smp.file"].load = lambda frame: frame
sys.modules["vlmeval.smp.file"].get_intermediate_file_path = None
sys.modules["vlmeval.smp"].file = sys.modules["vlmeval.smp.file"]
sys.modules["vlmeval.smp"].misc = sys.modules["vlmeval.smp.misc"]
spec = importlib.util.spec_from_file_location("vlmeval_charxiv", "charxiv.py")
charxiv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(charxiv)


class Scripted:
    """The judge: scripted replies, one per call, noting each prompt and the sampling asked for."""

    def __init__(self, replies):
        self.replies, self.prompts, self.sampling = list(replies), [], []

    def generate(self, prompt, **sampling):
        self.prompts.append(prompt)
        self.sampling.append(sampling)
        return self.replies[len(self.prompts) - 1]


rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
out, scores = {}, []
for r in rows:
    judge = Scripted(r["judge_replies"])
    line = pd.Series({"grading_query": r["meta"]["grading_query"], "prediction": r["response"]})
    result = charxiv.auxeval(judge, line)
    assert len(set(judge.prompts)) == 1
    out[r["id"]] = {"prompt_sha256": sha256(judge.prompts[0]), "tries": len(judge.prompts),
                    "sampling": judge.sampling[0], "score": result["score"],
                    "extracted_answer": result["extracted_answer"]}
    scores.append(result["score"])
frame = pd.DataFrame({"qid": [r["meta"]["qid"] for r in rows], "inst_category": [r["meta"]["inst_category"] for r in rows],
                      "score": scores})
tables = {}
for mode in ("descriptive", "reasoning"):
    table = charxiv.CharXiv.get_scores(types.SimpleNamespace(dataset_name=f"CharXiv_{mode}_val"), frame)
    tables[mode] = {k: float(v) for k, v in table.iloc[0].items()}
json.dump({"records": out, "tables": tables}, open(sys.argv[2], "w"), indent=None, sort_keys=True)

"""VLMEvalKit's ORIGINAL MMMU-Pro CoT scoring, on records: `MMMUProDataset.cot_postproc` (its source taken
unchanged from vlmeval/dataset/image_mcq.py @ e8e78f05 with `ast`), the replies so changed written to an
.xlsx and read back as MMMUProDataset.evaluate does (vlmeval/smp/file.py's dump_xlsx: pandas with
xlsxwriter, strings_to_formulas off; load_xlsx: pd.read_excel), `str()` of each as
ImageMCQDataset.evaluate does, then the ORIGINAL can_infer (vlmeval/utils/matching_util.py @ e8e78f05,
unchanged; `vlmeval.smp.log` stubbed) with the record's options. Writes JSON: the sha256 of the ids in
order, the prediction the matcher reads for each record whose reply it changed ({id: text}), and what
can_infer returned for every record ({id: letter}; False as null).
    python rate_mmmu_pro_cot.py records.jsonl out.json   (image_mcq.py and matching_util.py beside it;
    needs pandas, xlsxwriter, openpyxl)"""
import ast, hashlib, json, string, sys, textwrap
from collections import defaultdict

import pandas as pd

from matching_original import matching

source = open("image_mcq.py", encoding="utf-8").read()
cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "MMMUProDataset")
method = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "cot_postproc")
namespace = {"string": string, "defaultdict": defaultdict}
exec(compile(textwrap.dedent(ast.get_source_segment(source, method)), "image_mcq.py", "exec"), namespace)
cot_postproc = namespace["cot_postproc"]

rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
frame = pd.DataFrame({"index": range(len(rows)), "prediction": [cot_postproc(None, r["response"]) for r in rows]})
with pd.ExcelWriter("cotpost.xlsx", engine="xlsxwriter",
                    engine_kwargs={"options": {"strings_to_formulas": False}}) as writer:
    frame.to_excel(writer, index=False)
back = pd.read_excel("cotpost.xlsx")
predictions = [str(x) for x in back["prediction"]]
changed, inferred = {}, {}
for r, pred in zip(rows, predictions):
    if pred != r["response"]:
        changed[r["id"]] = pred
    found = matching.can_infer(pred, r["choices"])
    inferred[r["id"]] = found if found else None
ids = hashlib.sha256("\n".join(r["id"] for r in rows).encode("utf-8")).hexdigest()
json.dump({"ids_sha256": ids, "changed": changed, "inferred": inferred}, open(sys.argv[2], "w"), sort_keys=True)

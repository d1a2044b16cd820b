"""VLMEvalKit's ORIGINAL YOrN_Extraction (yorn.py + smp/misc.py @ e8e78f05, unchanged; sty stubbed) on
records: writes {"id", "pred", "correct"} with the score rule of ImageYORNDataset.evaluate."""
import json, sys

from yorn_original import yorn

src, out = sys.argv[1], sys.argv[2]
with open(out, "w", encoding="utf-8") as f:
    for line in open(src, encoding="utf-8"):
        r = json.loads(line)
        extracted = yorn.YOrN_Extraction(str(r["response"]))
        f.write(json.dumps({"id": r["id"], "preds": [extracted], "correct": [r["answer"] == extracted]}) + "\n")

"""VLMEvalKit's ORIGINAL yorn.py (and smp/misc.py) @ e8e78f05, loaded unchanged from the files beside
this one (`git show e8e78f05:vlmeval/dataset/utils/yorn.py > yorn.py`, same for misc.py: misc_original.py), with
only what they import at load time stubbed: `sty`, huggingface_hub's cache manager, and `vlmeval.smp`,
whose `load` takes the DataFrame itself so the rating functions run on rows built here."""
import sys, types

from misc_original import misc
from modules import load_module as load

sys.modules["vlmeval"] = types.ModuleType("vlmeval")
sys.modules["vlmeval.smp"] = types.SimpleNamespace(d2df=misc.d2df, load=lambda frame: frame,
                                                   process_punctuation=misc.process_punctuation)
yorn = load("vlmeval_yorn", "yorn.py")


def scored_frame(rows, **columns):
    """The rows as VLMEvalKit's result sheet: index, answer, the given meta columns, `extracted` by the
    ORIGINAL YOrN_Extraction and `score` = answer == extracted (ImageYORNDataset.evaluate)."""
    import pandas as pd

    frame = pd.DataFrame({"index": [r["id"] for r in rows], "answer": [r["answer"] for r in rows],
                          **{column: [(r.get("meta") or {}).get(field) for r in rows] for column, field in columns.items()}})
    frame["extracted"] = [yorn.YOrN_Extraction(str(r["response"])) for r in rows]
    frame["score"] = frame["answer"] == frame["extracted"]
    return frame

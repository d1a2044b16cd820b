"""A VLMEvalKit multiple-choice work dir whose dataset repeats an `index` (SEEDBench2; issue 30 class 8), scored
by the ORIGINAL vlmeval/dataset/utils/multiple_choice.py (`mcq_vanilla_eval`, `report_acc`) and
vlmeval/utils/matching_util.py (`can_infer`) of one commit, loaded unchanged from VLMEVALKIT_SRC (files
`multiple_choice.py`, `matching_util.py`, `misc.py`, `vlm.py` = `git show COMMIT:<path>`), exact matching (no judge).
What ImageMCQDataset.evaluate does around them is the four lines before `mcq_vanilla_eval` (load, sort by index,
`str` the predictions, lower-case the column names), as image_mcq.py @8419a76a:166-184 has them.
The rows of rows.jsonl ({"columns": {...}}) are both the dataset (`meta`) and the prediction file (`data`), as
VLMEvalKit's own inference writes it: each row keeps its own question, options and answer, and a repeated index
shares the prediction made for its first row (infer_data keys its results by index).
    VLMEVALKIT_SRC=DIR python rate_index_join.py MODEL DATASET rows.jsonl OUT
writes OUT/<MODEL>_<DATASET>.xlsx (the prediction file) and OUT/<MODEL>_<DATASET>_acc.csv (report_acc)."""
import collections, json, logging, os, random, string, sys
from pathlib import Path

import pandas as pd

src = os.environ["VLMEVALKIT_SRC"]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.chdir(src)  # smp_any_era and load_module read misc.py etc. from the current directory
from modules import load_module  # noqa: E402
from smp_any_era import smp  # noqa: E402
import workdir_original  # noqa: E402
from workdir_original import dump, load  # noqa: E402

matching = load_module("vlmeval.utils.matching_util", os.path.join(src, "matching_util.py"))
utils = sys.modules["vlmeval.utils"]
utils.can_infer, utils.track_progress_rich = matching.can_infer, workdir_original.track_progress_rich
# what vlmeval/smp/__init__.py gathers from file.py and log.py besides misc.py, for `from ...smp import *`
smp.get_logger, smp.string, smp.osp, smp.rd = logging.getLogger, string, os.path, random
smp.defaultdict = collections.defaultdict
if "PIL" not in sys.modules:  # vlm.py imports Pillow at load time; scoring never opens an image
    try:
        import PIL  # noqa: F401
    except ImportError:
        from smp_any_era import _Anything
        sys.modules["PIL"] = _Anything("PIL")
vlm = load_module("vlmeval.smp.vlm", os.path.join(src, "vlm.py"))
smp.build_option_str = vlm.build_option_str
mc = load_module("vlmeval.dataset.utils.multiple_choice", os.path.join(src, "multiple_choice.py"))

model_name, dataset, rows_path, out = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
out.mkdir(parents=True, exist_ok=True)
rows = [json.loads(line)["columns"] for line in open(rows_path, encoding="utf-8")]
first = {}
for r in rows:
    first.setdefault(r["index"], r["prediction"])
for r in rows:
    r["prediction"] = first[r["index"]]
eval_file = str(out / f"{model_name}_{dataset}.xlsx")
dump(pd.DataFrame(rows), eval_file)
meta = pd.DataFrame(rows).drop(columns=["prediction"])

# image_mcq.py @8419a76a:166-171, 184 (ImageMCQDataset.evaluate, exact matching)
data = load(eval_file)
data = data.sort_values(by="index")
data["prediction"] = [str(x) for x in data["prediction"]]
for k in data.keys():
    data[k.lower() if k not in list(string.ascii_uppercase) else k] = data.pop(k)
result_file = str(out / "result.pkl")
data = mc.mcq_vanilla_eval(None, data, meta, 1, result_file, dataset)
os.remove(result_file)
acc = mc.report_acc(data)
dump(acc, str(out / f"{model_name}_{dataset}_acc.csv"))
print(acc.to_string())

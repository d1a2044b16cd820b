"""A VLMEvalKit EMMA work dir written by the ORIGINAL `ImageShortQADataset.evaluate` (EMMADataset's: emma.py
defines no evaluate of its own) of vlmeval/dataset/image_shortqa.py, with the unchanged
vlmeval/dataset/utils/multiple_choice.py (eval_vanilla, extract_answer_from_item, report_acc),
vlmeval/dataset/utils/shortqa.py (ShortQA_prompt), vlmeval/utils/matching_util.py (can_infer) and vlmeval/smp's
misc.py and vlm.py of one commit (files beside the harness: `git show COMMIT:<path> > <basename>`), and a
scripted judge (workdir_original.py): the rows `emma_rows.py` writes become OUT/<MODEL>_EMMA.xlsx; the method asks
the judge (multiple choice: the extraction prompt of a row can_infer cannot match; open: ShortQA's prompt, up to
3 tries at temperatures 0, 0.5, 1.0) and writes OUT/<MODEL>_EMMA_judge.xlsx (hit, log) and OUT/<MODEL>_EMMA_acc.csv
(report_acc). The `_tmp.pkl` is removed.
The method is called as run.py calls it for EMMA (no `--judge`): judge_kwargs without `model`, so the judge is its
default, gpt-4o-mini (the 2025 code's `build_judge(model=model, **judge_kwargs)` raises when they hold one).
    python rate_emma.py MODEL rows.jsonl OUT"""
import collections, json, logging, os, random, string, sys, types
from pathlib import Path

import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from modules import load_module, stub_packages  # noqa: E402
from smp_any_era import smp  # noqa: E402  (vlmeval.smp: the commit's misc.py)
import workdir_original  # noqa: E402
from workdir_original import ScriptedJudge, dump, load  # noqa: E402

smp.__path__ = []  # a package: vlmeval.smp.log and vlmeval.smp.vlm below
log = types.ModuleType("vlmeval.smp.log")
log.get_logger = logging.getLogger  # vlmeval/smp/log.py's, logging only
sys.modules["vlmeval.smp.log"] = log
matching = load_module("vlmeval.utils.matching_util", "matching_util.py")
utils = sys.modules["vlmeval.utils"]
utils.can_infer, utils.track_progress_rich = matching.can_infer, workdir_original.track_progress_rich
utils.can_infer_lego = getattr(matching, "can_infer_lego", None)
# what vlmeval/smp/__init__.py gathers from file.py and log.py besides misc.py (file.py's defaults, no env set)
smp.get_logger, smp.string, smp.osp, smp.rd = logging.getLogger, string, os.path, random
smp.defaultdict = collections.defaultdict
smp.get_intermediate_file_path = workdir_original.intermediate_path
smp.get_pred_file_format = lambda: "xlsx"
if "PIL" not in sys.modules:  # vlm.py imports Pillow at load time; scoring never opens an image
    try:
        import PIL  # noqa: F401
    except ImportError:
        from smp_any_era import _Anything
        sys.modules["PIL"] = _Anything("PIL")
vlm = load_module("vlmeval.smp.vlm", "vlm.py")
smp.__dict__.update({k: v for k, v in vars(vlm).items() if not k.startswith("_")})  # smp/__init__: from .vlm import *
# image_shortqa.py of 2025 asks gpt_key_set() (vlm.py: an `sk-` OPENAI_API_KEY) before building its judge: the
# scripted one here, so no key is used and nothing is sent
os.environ["OPENAI_API_KEY"] = "sk-scripted-judge"
judge = None
stub_packages("vlmeval.dataset", "vlmeval.dataset.utils")
dataset_utils = sys.modules["vlmeval.dataset.utils"]
dataset_utils.DEBUG_MESSAGE, dataset_utils.build_judge = "", lambda **_: judge
image_base = types.ModuleType("vlmeval.dataset.image_base")
image_base.ImageBaseDataset = object  # only evaluate is run: nothing of the base class is used
sys.modules["vlmeval.dataset.image_base"] = image_base
# `from vlmeval import *` (image_shortqa.py before 2025-09): vlmeval/__init__.py's `from .smp import *` and the rest
vlmeval_package = sys.modules["vlmeval"]
vlmeval_package.__dict__.update({k: v for k, v in vars(smp).items() if not k.startswith("_")})
vlmeval_package.DEBUG_MESSAGE = ""
mc = load_module("vlmeval.dataset.utils.multiple_choice", "multiple_choice.py")
shortqa = load_module("vlmeval.dataset.utils.shortqa", "shortqa.py")
image_shortqa = load_module("vlmeval.dataset.image_shortqa", "image_shortqa.py")

model_name, records, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
out.mkdir(parents=True, exist_ok=True)
rows = [json.loads(line) for line in open(records, encoding="utf-8")]
eval_file = str(out / f"{model_name}_EMMA.xlsx")
dump(pd.DataFrame([r["columns"] for r in rows]), eval_file)
back = load(eval_file)  # each row's prompt as the method builds it, from the sheet read back (as evaluate does)
back["prediction"] = [str(x) for x in back["prediction"]]
back["answer"] = [str(x) for x in back["answer"]]
replies = {}
for i, r in enumerate(rows):
    item = back.iloc[i]
    if r["columns"]["type"] == "MCQ":
        prompt = mc.build_prompt(item["question"], vlm.build_option_str(mc.build_choices(item)), item["prediction"])
    else:
        prompt = shortqa.ShortQA_prompt(item)
    replies[prompt] = r["judge_reply"]
judge = ScriptedJudge(replies)
image_shortqa.ImageShortQADataset.evaluate(types.SimpleNamespace(dataset_name="EMMA"), eval_file, nproc=4)
os.remove(str(out / f"{model_name}_EMMA_tmp.pkl"))

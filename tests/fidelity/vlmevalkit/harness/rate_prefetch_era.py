"""VLMEvalKit's 2023-2024 prefetch table as the ORIGINAL wrote it: `prefetch_acc` of the era's inference.py
(vlmeval/infer/inference.py at 1711b013 / 7057afc9, vlmeval/inference.py at e9eeb1df), with that commit's own
build_choices (multiple_choice.py), can_infer (matching_util.py) and file I/O (smp.py, or smp/misc.py + smp/file.py +
smp/vlm.py from 2024-01), all loaded unchanged from VLMEVALKIT_SRC:

    git show C:vlmeval/infer/inference.py > inference.py     # (vlmeval/inference.py from 2024-01)
    git show C:vlmeval/eval/multiple_choice.py > multiple_choice.py   # (vlmeval/evaluate/ from 2024-01)
    git show C:vlmeval/utils/matching_util.py > matching_util.py
    git show C:vlmeval/smp.py > misc.py    # 2024-01: smp/misc.py, smp/file.py, smp/vlm.py
    VLMEVALKIT_SRC=DIR python rate_prefetch_era.py PREDICTIONS.xlsx [MODULE]

MODULE is where the era's prefetch_acc imports build_choices from (`vlmeval.eval.multiple_choice` until 2024-01,
`vlmeval.evaluate.multiple_choice` after). The table is dumped as the era's run.py / main() does, with one line:
`dump(res, result_file.replace('.xlsx', '_prefetch.xlsx'))`. Torch, the model zoo and the judge are stubbed (never
called by prefetch_acc)."""
import os, sys, types

src = os.environ["VLMEVALKIT_SRC"]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
result_file = os.path.abspath(sys.argv[1])
where = sys.argv[2] if len(sys.argv) > 2 else "vlmeval.eval.multiple_choice"
os.chdir(src)  # smp_any_era loads misc.py from the current directory
try:  # smp.py of 2023 imports Pillow at load time; prefetch_acc never opens an image
    import PIL  # noqa: F401
except ImportError:
    pil = types.ModuleType("PIL")
    pil.Image = types.ModuleType("PIL.Image")
    sys.modules["PIL"], sys.modules["PIL.Image"] = pil, pil.Image
from modules import load_module, stub_packages  # noqa: E402
from smp_any_era import _Anything, smp  # noqa: E402

era = sys.modules["vlmeval.smp.misc"]
for part in ("vlm", "file"):  # 2024-01 on: vlmeval/smp/ is a package (`from .file import *`, `from .vlm import *`)
    if os.path.exists(f"{part}.py"):
        era = load_module(f"vlmeval.smp.{part}", f"{part}.py")
        smp.__dict__.update({k: v for k, v in vars(era).items() if not k.startswith("__")})
smp.load, smp.dump = era.load, era.dump  # the era's own file I/O, not the harness's
for name in ("torch", "torch.distributed", "vlmeval.vlm", "vlmeval.config", "vlmeval.chat_api",
             "vlmeval.eval.mme_rating", "vlmeval.evaluate.misc"):
    sys.modules[name] = _Anything(name)
sys.modules["torch"].distributed = sys.modules["torch.distributed"]
matching = load_module("vlmeval.utils.matching_util", "matching_util.py")
utils = types.ModuleType("vlmeval.utils")
utils.__path__ = []
utils.can_infer, utils.track_progress_rich, utils.TSVDataset, utils.split_MMMU = matching.can_infer, None, None, None
sys.modules["vlmeval.utils"] = utils
stub_packages("vlmeval.infer", "vlmeval.eval", "vlmeval.evaluate")
sys.modules["vlmeval.eval"].MME_rating = sys.modules["vlmeval.eval"].MME_postproc = None
load_module(where, "multiple_choice.py")
inference = load_module("vlmeval.infer.inference", "inference.py")
res = inference.prefetch_acc(result_file)
smp.dump(res, result_file.replace(".xlsx", "_prefetch.xlsx"))
print(res.to_string())

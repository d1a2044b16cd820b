"""VLMEvalKit's ORIGINAL vlmeval/smp/misc.py @ e8e78f05, loaded unchanged from the file beside the harness
(`git show e8e78f05:vlmeval/smp/misc.py > misc.py`), with only what it imports at load time stubbed:
`sty` and huggingface_hub's cache manager. `load_module` loads any file under a module name."""
import importlib.util, sys, types

sys.modules.setdefault("sty", types.SimpleNamespace(fg=None))
try:
    import huggingface_hub.utils._cache_manager  # noqa: F401
except ImportError:
    m = types.ModuleType("huggingface_hub.utils._cache_manager"); m._scan_cached_repo = None
    sys.modules["huggingface_hub.utils._cache_manager"] = m


def load_module(name, path):
    """The file at `path`, executed as module `name` (and registered in sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec); sys.modules[name] = mod; spec.loader.exec_module(mod); return mod


misc = load_module("vlmeval_misc", "misc.py")

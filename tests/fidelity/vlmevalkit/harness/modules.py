"""How the VLMEvalKit harnesses load an ORIGINAL file: `load_module` runs a file beside the harness as a named
module (registered in sys.modules, so the original's own imports of that name find it), and `stub_packages`
makes empty packages (vlmeval, vlmeval.dataset, ...) for the relative and absolute imports the originals
make, so nothing of VLMEvalKit but the files named is loaded."""
import importlib.util, sys, types


def load_module(name, path):
    """The file at `path`, executed as module `name` (and registered in sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def stub_packages(*names):
    """An empty package for each name not loaded yet (an existing one is kept)."""
    for name in names:
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = []
            sys.modules[name] = package

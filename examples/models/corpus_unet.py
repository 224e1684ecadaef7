"""Shrink-model spec for the corpus model ``unet`` (``tools/gen_corpus_models.py``, the models
``smt2_corpus/torch/`` is generated from): the same module, example inputs and dynamic dims
(``Dim.AUTO(min, max)``), so the emitted test exercises exactly a corpus model. See
``docs/shrink_model.md``.
"""

import importlib.util
from pathlib import Path

from torch import nn
from torch.export import Dim

NAME = "corpus_unet"
CORPUS_MODEL = "unet"

_path = Path(__file__).resolve().parents[2] / "tools" / "gen_corpus_models.py"
_spec = importlib.util.spec_from_file_location("gen_corpus_models", _path)
assert _spec is not None and _spec.loader is not None, _path
_models = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_models)
_description, _build, _dims = _models.MODELS[CORPUS_MODEL]


def build_model() -> nn.Module:
    return _build()[0]


def example_inputs() -> tuple:
    return tuple(_build()[1])


dynamic_shapes = tuple({d: Dim.AUTO(min=lo, max=hi) for d, (lo, hi) in _dims.get(i, {}).items()} or None
                       for i in range(len(example_inputs())))

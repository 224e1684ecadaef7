"""Data-dependent sizes: ``nonzero`` and ``.item()`` make unbacked symbols next to the backed
batch and length, with ``torch._check`` bounds on them.

Dynamo captures them only with ``capture_scalar_outputs`` and
``capture_dynamic_output_shape_ops`` (``DYNAMO_CONFIG``, read by ``symguard prune-guards``);
the unbacked bounds become runtime asserts inside the graph, not guards. A shrink-model /
prune-guards spec: see ``docs/shrink_model.md``.
"""

import torch
from torch import nn
from torch.export import Dim

NAME = "unbacked_nonzero"
DYNAMO_CONFIG = {"capture_scalar_outputs": True, "capture_dynamic_output_shape_ops": True}


class Gather(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        n = k.item()
        torch._check(n >= 1)
        torch._check(n <= x.shape[1])
        head = self.proj(x[:, :n])                      # unbacked length n
        idx = torch.nonzero(x.sum(-1) > 0)              # unbacked row count
        rows = x.reshape(-1, 8)[: x.shape[0] * (x.shape[1] // 2) * 2]
        pairs = rows.view(-1, 2, 8).mean(1)             # needs an even split: guards on the length
        return head.mean() + idx.float().sum() + pairs.sum()


def build_model() -> nn.Module:
    return Gather()


def example_inputs() -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 10, 8), torch.tensor(4))


def make_inputs(shapes: dict[str, tuple[int, ...]]) -> tuple[torch.Tensor, ...]:
    x = torch.randn(shapes["x"])
    return (x, torch.tensor(max(1, min(4, x.shape[1]))))


dynamic_shapes = ({0: Dim.AUTO(min=1, max=64), 1: Dim.AUTO(min=2, max=512), 2: None}, None)

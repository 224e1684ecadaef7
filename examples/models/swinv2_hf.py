"""HF ``Swinv2Model`` (small config: embed 16, depths [1, 1], heads [1, 2], window 4), random init
from a config (no weights), dynamic batch, height and width.

The third Swin-class model of the zoo: Swin V2's log-spaced continuous position bias and scaled
cosine attention on the same window arithmetic as ``swin_hf`` (pad to the patch size, every stage
padded to the window size, 2x2 patch merging after padding to even). Needs ``transformers`` (the
torch extra). A shrink-model / prune-guards spec: see ``docs/shrink_model.md``.
"""

import torch
from torch import nn
from torch.export import Dim

NAME = "swinv2_hf"
REQUIRES = ("transformers",)


class SwinV2(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        from transformers import Swinv2Config, Swinv2Model

        cfg = Swinv2Config(image_size=32, patch_size=4, num_channels=3, embed_dim=16, depths=[1, 1],
                           num_heads=[1, 2], window_size=4)
        self.m = Swinv2Model(cfg)

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        return self.m(pixel_values=pixel_values).last_hidden_state


def build_model() -> nn.Module:
    return SwinV2()


def example_inputs() -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 37, 45),)


dynamic_shapes = ({0: Dim.AUTO(min=1, max=64), 2: Dim.AUTO(min=16, max=1024), 3: Dim.AUTO(min=16, max=1024)},)

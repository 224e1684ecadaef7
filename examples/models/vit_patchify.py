"""ViT-style patch embedding: crop to a multiple of the patch size, patchify with reshape/permute,
a class token, and bicubic interpolation of the position embedding to the patch grid.

The reshape to ``(B, C, H//p, p, W//p, p)`` makes PyTorch guard on divisibility and on every
product of sizes. A shrink-model spec: see ``docs/shrink_model.md``.
"""

import torch
from torch import nn
from torch.export import Dim

NAME = "vit_patchify"
PATCH = 4


class PatchEmbed(nn.Module):
    def __init__(self, channels: int = 3, dim: int = 8, grid: int = 4) -> None:
        super().__init__()
        self.proj = nn.Linear(channels * PATCH * PATCH, dim)
        self.cls = nn.Parameter(torch.randn(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, dim, grid, grid))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, c, h, w = x.shape
        x = x[:, :, : h - h % PATCH, : w - w % PATCH]  # crop to whole patches
        gh, gw = x.shape[2] // PATCH, x.shape[3] // PATCH
        x = x.reshape(b, c, gh, PATCH, gw, PATCH).permute(0, 2, 4, 1, 3, 5).reshape(b, gh * gw, -1)
        x = self.proj(x)
        pos = nn.functional.interpolate(self.pos, size=(gh, gw), mode="bicubic", align_corners=False)
        x = x + pos.flatten(2).transpose(1, 2)
        return torch.cat([self.cls.expand(b, -1, -1), x], dim=1)


def build_model() -> nn.Module:
    return PatchEmbed()


def example_inputs() -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 34, 45),)


dynamic_shapes = ({0: Dim.AUTO(min=2, max=32), 2: Dim.AUTO(min=8, max=1024), 3: Dim.AUTO(min=8, max=1024)},)

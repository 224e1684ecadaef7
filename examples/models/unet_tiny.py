"""A two-level UNet: strided downsampling, nearest upsampling and skip connections by concat.

Upsampled maps must match the skip connection's size, so the export guards tie the input size to
multiples of 4 (or the model would fail at ``cat``). A shrink-model spec: see ``docs/shrink_model.md``.
"""

import torch
from torch import nn
from torch.export import Dim

NAME = "unet_tiny"


def _conv(cin: int, cout: int) -> nn.Module:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU())


class TinyUNet(nn.Module):
    def __init__(self, c: int = 4) -> None:
        super().__init__()
        self.enc1, self.enc2, self.mid = _conv(3, c), _conv(c, 2 * c), _conv(2 * c, 2 * c)
        self.dec2, self.dec1 = _conv(4 * c, c), _conv(2 * c, c)
        self.pool = nn.MaxPool2d(2)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.head = nn.Conv2d(c, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        m = self.mid(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up(m), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up(d2), e1], dim=1))
        return self.head(d1)


def build_model() -> nn.Module:
    return TinyUNet()


def example_inputs() -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 48, 36),)


_h = Dim("h4", min=2, max=256)
_w = Dim("w4", min=2, max=256)
dynamic_shapes = ({0: Dim.AUTO(min=1, max=16), 2: 4 * _h, 3: 4 * _w},)

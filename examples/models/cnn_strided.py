"""A small CNN with strided convolutions, max pooling and global average pooling.

Strides and pooling floor-divide the spatial sizes (``(s - 1)//2 + 1``), so the guards keep every
intermediate size above 1. A shrink-model spec: see ``docs/shrink_model.md``.
"""

import torch
from torch import nn
from torch.export import Dim

NAME = "cnn_strided"


class StridedCNN(nn.Module):
    def __init__(self, channels: int = 3, width: int = 4, classes: int = 5) -> None:
        super().__init__()
        self.stem = nn.Conv2d(channels, width, 3, stride=2, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.block = nn.Conv2d(width, 2 * width, 3, stride=2, padding=1)
        self.head = nn.Linear(2 * width, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(torch.relu(self.stem(x)))
        x = torch.relu(self.block(x))
        return self.head(x.mean(dim=(2, 3)))


def build_model() -> nn.Module:
    return StridedCNN()


def example_inputs() -> tuple[torch.Tensor, ...]:
    return (torch.randn(4, 3, 40, 56),)


dynamic_shapes = ({0: Dim.AUTO(min=1, max=64), 2: Dim.AUTO(min=8, max=1024), 3: Dim.AUTO(min=8, max=1024)},)

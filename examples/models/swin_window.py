"""A Swin-class stage written out in plain PyTorch: patch embedding with pad-to-patch, window
attention with pad-to-window, a cyclic shift (``torch.roll``) and patch merging with pad-to-even.

The same size arithmetic as HF ``SwinModel`` (padding to multiples, window partition by
``view``/``permute``, the 2x2 merge), without ``transformers``, so Dynamo traces it in seconds.
A shrink-model / prune-guards spec: see ``docs/shrink_model.md``.
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

NAME = "swin_window"
PATCH, WINDOW, DIM = 4, 4, 16


class WindowBlock(nn.Module):
    def __init__(self, dim: int, window: int, shift: int) -> None:
        super().__init__()
        self.window, self.shift = window, shift
        self.norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, h: int, w: int) -> torch.Tensor:
        b, _, c = x.shape
        ws = self.window
        y = self.norm(x).view(b, h, w, c)
        pad_b, pad_r = (ws - h % ws) % ws, (ws - w % ws) % ws
        y = F.pad(y, (0, 0, 0, pad_r, 0, pad_b))
        hp, wp = h + pad_b, w + pad_r
        if self.shift:
            y = torch.roll(y, shifts=(-self.shift, -self.shift), dims=(1, 2))
        win = y.view(b, hp // ws, ws, wp // ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, ws * ws, c)
        q, k, v = self.qkv(win).chunk(3, dim=-1)
        att = torch.softmax(q @ k.transpose(1, 2) / c**0.5, dim=-1) @ v
        y = self.proj(att).view(b, hp // ws, wp // ws, ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b, hp, wp, c)
        if self.shift:
            y = torch.roll(y, shifts=(self.shift, self.shift), dims=(1, 2))
        return x + y[:, :h, :w, :].reshape(b, h * w, c)


class SwinStage(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Conv2d(3, DIM, PATCH, stride=PATCH)
        self.block = WindowBlock(DIM, WINDOW, WINDOW // 2)
        self.merge = nn.Linear(4 * DIM, 2 * DIM)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _, _, hh, ww = x.shape
        x = F.pad(x, (0, (PATCH - ww % PATCH) % PATCH, 0, (PATCH - hh % PATCH) % PATCH))
        x = self.embed(x)
        b, c, h, w = x.shape
        x = x.flatten(2).transpose(1, 2)
        x = self.block(x, h, w)
        y = F.pad(x.view(b, h, w, c), (0, 0, 0, w % 2, 0, h % 2))  # patch merging: pad to even
        y = torch.cat([y[:, 0::2, 0::2], y[:, 1::2, 0::2], y[:, 0::2, 1::2], y[:, 1::2, 1::2]], dim=-1)
        h2, w2 = y.shape[1], y.shape[2]
        return self.merge(y.reshape(b, h2 * w2, 4 * c))


def build_model() -> nn.Module:
    return SwinStage()


def example_inputs() -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 37, 45),)


dynamic_shapes = ({0: Dim.AUTO(min=1, max=64), 2: Dim.AUTO(min=8, max=512), 3: Dim.AUTO(min=8, max=512)},)

"""A reshape/view-heavy attention block: split heads with view, fold the sequence into chunks,
pad it to a multiple of the chunk length, and unfold it again.

Views of products of sizes make PyTorch guard on divisibility and on exact products. Two inputs,
one of them integer token ids. A shrink-model spec: see ``docs/shrink_model.md``.
"""

import torch
from torch import nn
from torch.export import Dim

NAME = "reshape_heads"
HEADS, HEAD_DIM, CHUNK, VOCAB = 2, 4, 4, 50


class ChunkedAttention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        d = HEADS * HEAD_DIM
        self.embed = nn.Embedding(VOCAB, d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, tokens: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        b, t = tokens.shape
        x = self.embed(tokens) + bias.unsqueeze(-1)
        pad = (CHUNK - t % CHUNK) % CHUNK
        x = nn.functional.pad(x, (0, 0, 0, pad))
        n = x.shape[1] // CHUNK
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (z.view(b * n, CHUNK, HEADS, HEAD_DIM).transpose(1, 2) for z in (q, k, v))
        att = torch.softmax(q @ k.transpose(-1, -2) / HEAD_DIM**0.5, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, n * CHUNK, HEADS * HEAD_DIM)
        return self.out(y[:, :t])


def build_model() -> nn.Module:
    return ChunkedAttention()


def example_inputs() -> tuple[torch.Tensor, ...]:
    return (torch.randint(0, VOCAB, (3, 23)), torch.randn(3, 23))


# Dim.AUTO: export may narrow the ranges to what the guards allow (a named Dim must hold for its
# whole range, and this model really does need ``seq`` to avoid some values).
_auto = {0: Dim.AUTO(min=1, max=64), 1: Dim.AUTO(min=2, max=4096)}
dynamic_shapes = {"tokens": _auto, "bias": _auto}

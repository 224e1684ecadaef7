"""The models of the PyTorch corpus: tiny, randomly initialised, built from configs (no weights).

Each entry: ``name -> (description, build() -> (module, args), dims)`` where ``dims`` maps each
positional argument index to ``{dim: (min, max)}`` (the dynamic dims, for ``Dim.AUTO`` in export;
compile uses ``dynamic=True`` on every dim).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

Build = Callable[[], tuple[nn.Module, tuple[torch.Tensor, ...]]]


class _Hidden(nn.Module):
    """A transformers model called with keyword tensors, returning ``last_hidden_state``."""

    def __init__(self, model: nn.Module, names: tuple[str, ...], **extra: Any) -> None:
        super().__init__()
        self.model, self.names, self.extra = model, names, extra

    def forward(self, x0: torch.Tensor, x1: torch.Tensor | None = None) -> torch.Tensor:
        args = (x0,) if x1 is None else (x0, x1)
        out = self.model(**dict(zip(self.names, args)), **self.extra)
        return out.last_hidden_state


def transformer_encoder() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, batch_first=True, dropout=0.0)
    return nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False), (torch.randn(3, 11, 16),)


def gpt2() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    from transformers import GPT2Config, GPT2Model
    cfg = GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=128, n_positions=64)
    return _Hidden(GPT2Model(cfg), ("input_ids",)), (torch.randint(0, 128, (3, 13)),)


def bert() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    from transformers import BertConfig, BertModel
    cfg = BertConfig(num_hidden_layers=2, hidden_size=32, num_attention_heads=2, intermediate_size=64,
                     vocab_size=128, max_position_embeddings=64)
    return _Hidden(BertModel(cfg), ("input_ids", "attention_mask")), (
        torch.randint(0, 128, (3, 13)), torch.ones(3, 13, dtype=torch.long))


def t5() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    from transformers import T5Config, T5Model
    cfg = T5Config(num_layers=2, num_decoder_layers=2, d_model=32, d_kv=16, d_ff=64, num_heads=2, vocab_size=128)
    return _Hidden(T5Model(cfg), ("input_ids", "decoder_input_ids")), (
        torch.randint(0, 128, (3, 13)), torch.randint(0, 128, (3, 7)))


def llama() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    from transformers import LlamaConfig, LlamaModel
    cfg = LlamaConfig(num_hidden_layers=2, hidden_size=32, num_attention_heads=2, num_key_value_heads=1,
                      intermediate_size=64, vocab_size=128, max_position_embeddings=128)
    return _Hidden(LlamaModel(cfg), ("input_ids",), use_cache=False), (torch.randint(0, 128, (3, 13)),)


def swin() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    from transformers import SwinConfig, SwinModel
    cfg = SwinConfig(image_size=32, patch_size=4, num_channels=3, embed_dim=16, depths=[1, 1], num_heads=[1, 2],
                     window_size=4)
    return _Hidden(SwinModel(cfg), ("pixel_values",)), (torch.randn(2, 3, 37, 45),)


def vit() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    from transformers import ViTConfig, ViTModel
    cfg = ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=32, num_hidden_layers=2,
                    num_attention_heads=2, intermediate_size=64)
    return _Hidden(ViTModel(cfg, add_pooling_layer=False), ("pixel_values",), interpolate_pos_encoding=True), (
        torch.randn(2, 3, 40, 56),)


def wav2vec2() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    from transformers import Wav2Vec2Config, Wav2Vec2Model
    cfg = Wav2Vec2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                         conv_dim=(16, 16, 16), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3),
                         num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2, do_stable_layer_norm=False,
                         mask_time_prob=0.0)
    return _Hidden(Wav2Vec2Model(cfg), ("input_values",)), (torch.randn(2, 1600),)


class ResNetCNN(nn.Module):
    """Strided convs, padding, maxpool, ceil-mode avgpool, adaptive pool."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 7, stride=2, padding=3)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.b1 = nn.Conv2d(8, 8, 3, padding=1)
        self.down = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.skip = nn.Conv2d(8, 16, 1, stride=2)
        self.avg = nn.AvgPool2d(2, ceil_mode=True)
        self.head = nn.AdaptiveAvgPool2d((2, 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(F.relu(self.stem(x)))
        x = x + F.relu(self.b1(x))
        x = F.relu(self.down(x)) + self.skip(x)
        return self.head(self.avg(x)).flatten(1)


def resnet_cnn() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return ResNetCNN(), (torch.randn(2, 3, 61, 45),)


class UNet(nn.Module):
    """Maxpool down, transposed-conv and bilinear up, F.pad to the skip's size, cat."""

    def __init__(self) -> None:
        super().__init__()
        self.d1, self.d2, self.d3 = nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(8, 16, 3, padding=1), nn.Conv2d(16, 16, 3,
                                                                                                          padding=1)
        self.up1 = nn.ConvTranspose2d(16, 16, 2, stride=2)
        self.u1, self.u2 = nn.Conv2d(32, 8, 3, padding=1), nn.Conv2d(16, 4, 3, padding=1)

    @staticmethod
    def _fit(x: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
        dh, dw = ref.shape[2] - x.shape[2], ref.shape[3] - x.shape[3]
        return F.pad(x, [dw // 2, dw - dw // 2, dh // 2, dh - dh // 2])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = F.relu(self.d1(x))
        b = F.relu(self.d2(F.max_pool2d(a, 2)))
        c = F.relu(self.d3(F.max_pool2d(b, 2)))
        u = self._fit(self.up1(c), b)
        u = F.relu(self.u1(torch.cat([u, b], 1)))
        u = F.interpolate(u, size=a.shape[2:], mode="bilinear", align_corners=False)
        return self.u2(torch.cat([u, a], 1))


def unet() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return UNet(), (torch.randn(2, 3, 50, 37),)


class ViTPatchify(nn.Module):
    """Patchify by reshape/permute (crop to a multiple of the patch), cls token, bicubic pos-emb."""

    def __init__(self, p: int = 4, d: int = 16) -> None:
        super().__init__()
        self.p = p
        self.proj = nn.Linear(3 * p * p, d)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(torch.randn(1, d, 4, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, c, h, w = x.shape
        p = self.p
        x = x[:, :, : h - h % p, : w - w % p]
        gh, gw = x.shape[2] // p, x.shape[3] // p
        x = x.reshape(b, c, gh, p, gw, p).permute(0, 2, 4, 1, 3, 5).reshape(b, gh * gw, c * p * p)
        x = self.proj(x)
        pos = F.interpolate(self.pos, size=(gh, gw), mode="bicubic", align_corners=False).flatten(2).transpose(1, 2)
        return torch.cat([self.cls.expand(b, -1, -1), x + pos], 1)


def vit_patchify() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return ViTPatchify(), (torch.randn(2, 3, 34, 45),)


class Recurrent(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.gru = nn.GRU(16, 8, batch_first=True, bidirectional=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.lstm(x)
        z, _ = self.gru(y)
        return z[:, -1]


def lstm_gru() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return Recurrent(), (torch.randn(3, 11, 8),)


class ReshapeZoo(nn.Module):
    """view/reshape/flatten/chunk/split/unfold and pad-to-multiple on a (B, T, 12) sequence."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        x = F.pad(x, [0, 0, 0, (-t) % 4])
        heads = x.view(b, x.shape[1] // 4, 4, d).transpose(1, 2).reshape(b * 4, -1, d)
        y = heads.flatten(0, 1).view(b, -1)
        lo, hi = x.chunk(2, dim=1)
        s = lo.sum() + hi.sum()
        win = x.unfold(1, 5, 2)
        parts = torch.split(x, x.shape[1] // 2, dim=1)
        return y.sum(1) + s + win.mean() + parts[0].mean()


def reshape_zoo() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return ReshapeZoo(), (torch.randn(2, 23, 12),)


class DataDependent(nn.Module):
    """nonzero, .item() and torch._check: unbacked symbols."""

    def forward(self, x: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        idx = torch.nonzero(x > 0)
        n = k.item()
        torch._check(n >= 1)
        torch._check(n <= x.shape[0])
        top = x[:n]
        m = idx.shape[0]
        torch._check(m < x.numel() + 1)
        return top.sum() + idx.float().sum() + torch.zeros(m).sum()


def data_dependent() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return DataDependent(), (torch.randn(7, 5), torch.tensor(3))


# name -> (description, build, dynamic dims per positional arg: {arg: {dim: (min, max)}})
MODELS: dict[str, tuple[str, Build, dict[int, dict[int, tuple[int, int]]]]] = {
    "swin": ("HF SwinModel (depths [1,1], heads [1,2], window 4, embed 16), dynamic batch/H/W", swin,
             {0: {0: (2, 64), 2: (16, 1024), 3: (16, 1024)}}),
    "transformer_encoder": ("nn.TransformerEncoder (2 layers, d_model 16), dynamic batch/seq",
                            transformer_encoder, {0: {0: (2, 64), 1: (2, 512)}}),
    "gpt2": ("HF GPT2Model (2 layers, 32 wide), dynamic batch/seq", gpt2, {0: {0: (2, 64), 1: (2, 64)}}),
    "bert": ("HF BertModel (2 layers, 32 wide) with attention mask, dynamic batch/seq", bert,
             {0: {0: (2, 64), 1: (2, 64)}, 1: {0: (2, 64), 1: (2, 64)}}),
    "t5": ("HF T5Model (2+2 layers, 32 wide), dynamic batch/encoder/decoder seq", t5,
           {0: {0: (2, 64), 1: (2, 512)}, 1: {0: (2, 64), 1: (2, 512)}}),
    "llama": ("HF LlamaModel (2 layers, GQA 2/1 heads, 32 wide), dynamic batch/seq", llama,
              {0: {0: (2, 64), 1: (2, 128)}}),
    "vit": ("HF ViTModel (patch 8, 32 wide) with interpolate_pos_encoding=True, dynamic batch/H/W", vit,
            {0: {0: (2, 64), 2: (16, 1024), 3: (16, 1024)}}),
    "wav2vec2": ("HF Wav2Vec2Model (3 conv layers, 2 transformer layers), dynamic batch/samples", wav2vec2,
                 {0: {0: (2, 64), 1: (400, 160000)}}),
    "resnet_cnn": ("ResNet-style CNN (strided convs, maxpool, ceil-mode avgpool, adaptive pool)", resnet_cnn,
                   {0: {0: (2, 64), 2: (16, 2048), 3: (16, 2048)}}),
    "unet": ("UNet (maxpool down, transposed-conv/bilinear up, F.pad + cat skips)", unet,
             {0: {0: (2, 64), 2: (16, 2048), 3: (16, 2048)}}),
    "vit_patchify": ("ViT-style patchify via reshape/permute, cls token, bicubic pos-emb interpolation",
                     vit_patchify, {0: {0: (2, 64), 2: (8, 1024), 3: (8, 1024)}}),
    "lstm_gru": ("2-layer LSTM then bidirectional GRU, dynamic batch/seq", lstm_gru, {0: {0: (2, 64), 1: (2, 512)}}),
    "reshape_zoo": ("view/reshape/flatten/chunk/split/unfold/pad-to-multiple sequence model", reshape_zoo,
                    {0: {0: (2, 64), 1: (8, 4096)}}),
    "data_dependent": ("nonzero, .item() and torch._check (unbacked symbols)", data_dependent,
                       {0: {0: (2, 64), 1: (2, 64)}}),
}

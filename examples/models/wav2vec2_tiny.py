"""The convolutional feature encoder and one transformer layer of a tiny ``transformers`` Wav2Vec2
(random init from a config, no weights).

Three strided 1-D convolutions (kernel 10 stride 5, then 3/2 twice) floor-divide the audio length;
the positional convolution and attention then need enough frames, so the guards bound the length
from below. Needs ``transformers`` (the torch extra). A shrink-model spec: see
``docs/shrink_model.md``.
"""

import torch
from torch import nn
from torch.export import Dim

NAME = "wav2vec2_tiny"
REQUIRES = ("transformers",)


class Features(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        from transformers import Wav2Vec2Config, Wav2Vec2Model

        cfg = Wav2Vec2Config(hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16,
                             conv_dim=(8, 8, 8), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3),
                             num_conv_pos_embeddings=4, num_conv_pos_embedding_groups=2, do_stable_layer_norm=False)
        self.m = Wav2Vec2Model(cfg)

    def forward(self, input_values: torch.Tensor) -> torch.Tensor:
        return self.m(input_values=input_values).last_hidden_state


def build_model() -> nn.Module:
    return Features()


def example_inputs() -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1000),)


dynamic_shapes = ({0: Dim.AUTO(min=1, max=16), 1: Dim.AUTO(min=2, max=100000)},)

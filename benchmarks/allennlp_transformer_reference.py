"""A PyTorch reference of AllenNLP's transformer ELMo, for the tests and the benchmarks: its forward pass and its
state-dict keys.

A compact copy of the modules the transformer ELMo runs, from allenai/allennlp at commit 2368760 (January 2019, the
released archive's era): ``modules/layer_norm.py`` (``LayerNorm``), ``modules/highway.py`` (``Highway``),
``modules/seq2vec_encoders/cnn_highway_encoder.py`` (``CnnHighwayEncoder``),
``modules/token_embedders/token_characters_encoder.py`` with ``modules/time_distributed.py``,
``modules/seq2seq_encoders/bidirectional_language_model_transformer.py`` (attention, ``PositionalEncoding``,
``PositionwiseFeedForward``, ``TransformerEncoder``, ``SublayerConnection``, ``EncoderLayer``,
``MultiHeadedAttention``, ``BidirectionalLanguageModelTransformer``) and the module layout of
``models/language_model.py`` (``LanguageModel``, its ``SampledSoftmaxLoss`` weights and ``_last_average_loss``).
The computations are AllenNLP's line for line; the registry, Params, initialisers and losses are left out. The
attribute names are AllenNLP's, so ``LanguageModel(...).state_dict()`` has the keys of an AllenNLP ``weights.th``.
"""

from __future__ import annotations

import copy
import io
import math

import torch
import torch.nn.functional as F


class LayerNorm(torch.nn.Module):
    def __init__(self, dimension: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.gamma = torch.nn.Parameter(torch.ones(dimension))
        self.beta = torch.nn.Parameter(torch.zeros(dimension))
        self.eps = eps

    def forward(self, tensor):
        mean = tensor.mean(-1, keepdim=True)
        std = tensor.std(-1, unbiased=False, keepdim=True)
        return self.gamma * (tensor - mean) / (std + self.eps) + self.beta


class Highway(torch.nn.Module):
    def __init__(self, input_dim: int, num_layers: int = 1) -> None:
        super().__init__()
        self._layers = torch.nn.ModuleList([torch.nn.Linear(input_dim, input_dim * 2) for _ in range(num_layers)])

    def forward(self, inputs):
        current_input = inputs
        for layer in self._layers:
            projected_input = layer(current_input)
            linear_part = current_input
            nonlinear_part, gate = projected_input.chunk(2, dim=-1)
            nonlinear_part = F.relu(nonlinear_part)
            gate = torch.sigmoid(gate)
            current_input = gate * linear_part + (1 - gate) * nonlinear_part
        return current_input


class CnnHighwayEncoder(torch.nn.Module):
    def __init__(self, embedding_dim, filters, num_highway, projection_dim, activation="relu",
                 projection_location="after_highway", do_layer_norm=False) -> None:
        super().__init__()
        self._projection_location = projection_location
        self._activation = torch.tanh if activation == "tanh" else F.relu
        self._convolutions = []
        for i, (width, num) in enumerate(filters):
            conv = torch.nn.Conv1d(in_channels=embedding_dim, out_channels=num, kernel_size=width, bias=True)
            self.add_module(f"char_conv_{i}", conv)
            self._convolutions.append(conv)
        num_filters = sum(num for _, num in filters)
        highway_dim = projection_dim if projection_location == "after_cnn" else num_filters
        self._highways = Highway(highway_dim, num_highway)
        self._projection = torch.nn.Linear(num_filters, projection_dim, bias=True)
        self._layer_norm = LayerNorm(projection_dim) if do_layer_norm else (lambda tensor: tensor)

    def forward(self, inputs, mask=None):
        inputs = inputs.transpose(1, 2)
        convolutions = []
        for i in range(len(self._convolutions)):
            convolved, _ = torch.max(getattr(self, f"char_conv_{i}")(inputs), dim=-1)
            convolutions.append(self._activation(convolved))
        token_embedding = torch.cat(convolutions, dim=-1)
        if self._projection_location == "after_cnn":
            token_embedding = self._projection(token_embedding)
        token_embedding = self._highways(token_embedding)
        if self._projection_location == "after_highway":
            token_embedding = self._projection(token_embedding)
        return self._layer_norm(token_embedding)


class TimeDistributed(torch.nn.Module):
    def __init__(self, module) -> None:
        super().__init__()
        self._module = module

    def forward(self, inputs, *rest):
        outputs = self._module(inputs.reshape(-1, *inputs.shape[2:]), *rest)
        return outputs.reshape(*inputs.shape[:2], *outputs.shape[1:])


class TokenCharactersEncoder(torch.nn.Module):
    def __init__(self, embedding, encoder) -> None:
        super().__init__()
        self._embedding = TimeDistributed(embedding)
        self._encoder = TimeDistributed(encoder)

    def forward(self, token_characters):
        return self._encoder(self._embedding(token_characters))


def attention(query, key, value, mask=None, dropout=None):
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = F.softmax(scores, dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


def subsequent_mask(size: int):
    return torch.tril(torch.ones(size, size, dtype=torch.int32)).unsqueeze(0)


class PositionalEncoding(torch.nn.Module):
    def __init__(self, input_dim: int, max_len: int = 5000) -> None:
        super().__init__()
        positional_encoding = torch.zeros(max_len, input_dim, requires_grad=False)
        position = torch.arange(0, max_len).unsqueeze(1).float()
        div_term = torch.exp(torch.arange(0, input_dim, 2).float() * -(math.log(10000.0) / input_dim))
        positional_encoding[:, 0::2] = torch.sin(position * div_term)
        positional_encoding[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("positional_encoding", positional_encoding.unsqueeze(0))

    def forward(self, x):
        return x + self.positional_encoding[:, :x.size(1)]


class PositionwiseFeedForward(torch.nn.Module):
    def __init__(self, input_dim: int, ff_dim: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.w_1 = torch.nn.Linear(input_dim, ff_dim)
        self.w_2 = torch.nn.Linear(ff_dim, input_dim)
        self.dropout = torch.nn.Dropout(dropout)

    def forward(self, x):
        return self.w_2(self.dropout(F.relu(self.w_1(x))))


def clone(module, count):
    return torch.nn.ModuleList([copy.deepcopy(module) for _ in range(count)])


class TransformerEncoder(torch.nn.Module):
    def __init__(self, layer, num_layers: int, return_all_layers: bool = False) -> None:
        super().__init__()
        self.layers = clone(layer, num_layers)
        self.norm = LayerNorm(layer.size)
        self.return_all_layers = return_all_layers

    def forward(self, x, mask):
        all_layers = []
        for layer in self.layers:
            x = layer(x, mask)
            if self.return_all_layers:
                all_layers.append(x)
        if self.return_all_layers:
            all_layers[-1] = self.norm(all_layers[-1])
            return all_layers
        return self.norm(x)


class SublayerConnection(torch.nn.Module):
    def __init__(self, size: int, dropout: float) -> None:
        super().__init__()
        self.norm = LayerNorm(size)
        self.dropout = torch.nn.Dropout(dropout)

    def forward(self, x, sublayer):
        return x + self.dropout(sublayer(self.norm(x)))


class EncoderLayer(torch.nn.Module):
    def __init__(self, size: int, self_attn, feed_forward, dropout: float) -> None:
        super().__init__()
        self.self_attn = self_attn
        self.feed_forward = feed_forward
        self.sublayer = clone(SublayerConnection(size, dropout), 2)
        self.size = size

    def forward(self, x, mask):
        x = self.sublayer[0](x, lambda x: self.self_attn(x, x, x, mask))
        return self.sublayer[1](x, self.feed_forward)


class MultiHeadedAttention(torch.nn.Module):
    def __init__(self, num_heads: int, input_dim: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.d_k = input_dim // num_heads
        self.num_heads = num_heads
        self.linears = clone(torch.nn.Linear(input_dim, input_dim), 4)
        self.dropout = torch.nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        if mask is not None:
            mask = mask.unsqueeze(1).expand([-1, self.num_heads, -1, -1])
        nbatches = query.size(0)
        query, key, value = [layer(x).view(nbatches, -1, self.num_heads, self.d_k).transpose(1, 2)
                             for layer, x in zip(self.linears, (query, key, value))]
        x, _ = attention(query, key, value, mask=mask, dropout=self.dropout)
        x = x.transpose(1, 2).contiguous().view(nbatches, -1, self.num_heads * self.d_k)
        return self.linears[-1](x)


def make_model(num_layers=6, input_size=512, hidden_size=2048, heads=8, dropout=0.1, return_all_layers=False):
    attn = MultiHeadedAttention(heads, input_size, dropout)
    ff = PositionwiseFeedForward(input_size, hidden_size, dropout)
    return TransformerEncoder(EncoderLayer(input_size, attn, ff, dropout), num_layers, return_all_layers)


class BidirectionalLanguageModelTransformer(torch.nn.Module):
    def __init__(self, input_dim, hidden_dim, num_layers, dropout=0.1, input_dropout=None,
                 return_all_layers=False) -> None:
        super().__init__()
        self._return_all_layers = return_all_layers
        self.num_layers = num_layers
        self._forward_transformer = make_model(num_layers, input_dim, hidden_dim, 8, dropout, return_all_layers)
        self._backward_transformer = make_model(num_layers, input_dim, hidden_dim, 8, dropout, return_all_layers)
        self._position = PositionalEncoding(input_dim)
        self._dropout = torch.nn.Dropout(input_dropout) if input_dropout else (lambda x: x)

    def get_attention_masks(self, mask):
        subsequent = subsequent_mask(mask.size(1))
        forward_mask = mask.unsqueeze(-1) & subsequent
        return forward_mask, forward_mask.transpose(1, 2)

    def forward(self, token_embeddings, mask):
        forward_mask, backward_mask = self.get_attention_masks(mask.int())
        token_embeddings = self._dropout(self._position(token_embeddings))
        forward_output = self._forward_transformer(token_embeddings, forward_mask)
        backward_output = self._backward_transformer(token_embeddings, backward_mask)
        if self._return_all_layers:
            return [torch.cat([f, b], -1) for f, b in zip(forward_output, backward_output)]
        return torch.cat([forward_output, backward_output], -1)


class _TextFieldEmbedder(torch.nn.Module):
    def __init__(self, token_characters) -> None:
        super().__init__()
        self.token_embedder_token_characters = token_characters


class _SampledSoftmaxWeights(torch.nn.Module):
    """``SampledSoftmaxLoss``'s parameters (sparse embeddings): ``softmax_w`` (words, dim), ``softmax_b`` (words, 1)."""

    def __init__(self, num_words: int, dim: int) -> None:
        super().__init__()
        self.softmax_w = torch.nn.Embedding(num_words, dim)
        self.softmax_b = torch.nn.Embedding(num_words, 1)


class LanguageModel(torch.nn.Module):
    """The ``LanguageModel`` of a transformer-ELMo archive (its config as ``tests.support.allennlp_archive_files``
    writes it):
    ``forward(char ids)`` → ``(noncontextual_token_embeddings, lm_embeddings as a list of every layer, mask)``."""

    def __init__(self, config: dict, num_words: int = 12) -> None:
        super().__init__()
        model = config["model"]
        embedder = model["text_field_embedder"]["token_embedders"]["token_characters"]
        encoder = {key: value for key, value in embedder["encoder"].items() if key != "type"}
        embedding = torch.nn.Embedding(embedder["embedding"]["num_embeddings"], embedder["embedding"]["embedding_dim"])
        self._text_field_embedder = _TextFieldEmbedder(TokenCharactersEncoder(embedding, CnnHighwayEncoder(**encoder)))
        contextualizer = {key: value for key, value in model["contextualizer"].items() if key != "type"}
        self._contextualizer = BidirectionalLanguageModelTransformer(**contextualizer, return_all_layers=True)
        self._softmax_loss = _SampledSoftmaxWeights(num_words, contextualizer["input_dim"])
        self.register_buffer("_last_average_loss", torch.zeros(1))

    def forward(self, char_ids):
        mask = (char_ids > 0).any(-1)
        embeddings = self._text_field_embedder.token_embedder_token_characters(char_ids)
        return embeddings, self._contextualizer(embeddings, mask), mask


def random_language_model(config: dict, seed: int = 0, scale: float = 0.3) -> LanguageModel:
    """A ``LanguageModel`` of ``config`` in eval mode with every parameter drawn from N(0, scale²) (LayerNorm gains
    around 1), so that a tensor put in the wrong place shows."""
    torch.manual_seed(seed)
    model = LanguageModel(config).eval()
    for name, parameter in model.named_parameters():
        torch.nn.init.normal_(parameter, mean=1.0 if name.endswith("gamma") else 0.0, std=scale)
    return model


def state_dict_bytes(model: torch.nn.Module, form: str = "zip") -> bytes:
    """``model``'s ``state_dict`` as the bytes of a ``weights.th``: torch's ``"zip"`` or ``"legacy"`` format."""
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer, _use_new_zipfile_serialization=form == "zip")
    return buffer.getvalue()

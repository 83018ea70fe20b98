"""AllenNLP's ELMo (``Elmo`` / ``ElmoEmbedder``, what ELMo users actually run), rewritten in plain PyTorch: the
reference our ELMo inference is benchmarked against.

    python benchmarks/allennlp_reference.py [--size elmo-small] [--batch 32] [--tokens 20]

Optional: needs PyTorch (not a project dependency) and h5py; it imports nothing from elmo_keras. It follows
AllenNLP's ``allennlp/modules/elmo.py``, ``elmo_lstm.py`` and ``lstm_cell_with_projection.py`` equation by
equation, with their weight loading and their loop, so that its time is AllenNLP's time:

- character ids: ``ELMoCharacterMapper`` (UTF-8 bytes in begin/end-of-word markers, padded to 50, every id + 1 so
  that 0 is padding), ``<S>``/``</S>`` added to every sentence;
- ``_ElmoCharacterEncoder``: embedding with a zero row prepended, one ``Conv1d`` per filter width, max over
  characters, relu/tanh, AllenNLP's ``Highway`` (``g ⊙ x + (1 − g) ⊙ relu(·)``, hence its negated ``W_carry`` and
  ``b_carry`` at load time: bilm-tf's gate multiplies the transform), the projection;
- ``ElmoLstm``: the batch sorted by length (``sort_and_run_forward``), then per direction and layer a
  ``LstmCellWithProjection``: a Python loop over time steps that updates only the rows still inside their
  sentence, gates ``[input, forget, memory, output]`` (TensorFlow's ``W_0`` and ``B`` are ``[i, j, f, o]``: the
  middle blocks are swapped and TF's run-time forget bias 1.0 is added to ``B`` at load time), the cell clipped
  to ±cell_clip, the projection to ±proj_clip; skip connections into layers 2..n. (AllenNLP refuses models
  without skip connections and always adds them; here ``use_skip_connections`` decides, as in bilm-tf, so the
  bilm-tf test model runs too.)

Output as our ``ElmoEmbedder.embed_batch``: per sentence `(n_layers + 1, tokens, 2 * projection_dim)`, layer 0
the token vectors ``[x; x]``, boundaries removed. Stateless (each call starts from zero state), eval mode,
``torch.no_grad()``, float32. Checked by ``tests/pretrained/test_allennlp_reference.py``: the bilm-tf test model's
expected
top layers (the stateless rows) and all layers of our ``ElmoEmbedder`` on both original test models, to 1e-5.
``random_elmo`` / ``write_model_files`` give untrained models of ELMo's published sizes (``SIZES``) for timing.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import h5py
import numpy as np
import torch
from torch import nn
from torch.nn import functional

MAX_CHARS_PER_TOKEN = 50
# ELMoCharacterMapper's special characters, before the +1 shift
BEGIN_OF_SENTENCE, END_OF_SENTENCE, BEGIN_OF_WORD, END_OF_WORD, PADDING = 256, 257, 258, 259, 260
TF_FORGET_BIAS = 1.0  # tf.nn.rnn_cell.LSTMCell adds it at run time; AllenNLP adds it to B at load time

ORIGINAL_FILTERS = ((1, 32), (2, 32), (3, 64), (4, 128), (5, 256), (6, 512), (7, 1024))


def elmo_options(filters=ORIGINAL_FILTERS, cells=4096, projection=512, layers=2, n_highway=2, char_dim=16,
                 use_skip_connections=True, clip=3.0, activation="relu"):
    """An ``options.json`` dict (bilm-tf's fields) for a model of these sizes."""
    return {
        "lstm": {"dim": cells, "projection_dim": projection, "n_layers": layers, "cell_clip": clip,
                 "proj_clip": clip, "use_skip_connections": use_skip_connections},
        "char_cnn": {"embedding": {"dim": char_dim}, "filters": [list(f) for f in filters], "n_highway": n_highway,
                     "n_characters": 262, "max_characters_per_token": MAX_CHARS_PER_TOKEN, "activation": activation},
    }


SIZES = {  # AllenNLP's published models: elmo_2x1024_128_2048cnn_1xhighway and elmo_2x4096_512_2048cnn_2xhighway
    "elmo-small": elmo_options(cells=1024, projection=128, n_highway=1),
    "original": elmo_options(cells=4096, projection=512, n_highway=2),
}


# -- input ------------------------------------------------------------------------------------------------------


def token_char_ids(token: str) -> list[int]:
    """``ELMoCharacterMapper.convert_word_to_char_ids``: 50 ids, each + 1."""
    if token in ("<S>", "</S>"):
        ids = [BEGIN_OF_WORD, BEGIN_OF_SENTENCE if token == "<S>" else END_OF_SENTENCE, END_OF_WORD]
    else:
        ids = [BEGIN_OF_WORD, *token.encode("utf-8", "ignore")[: MAX_CHARS_PER_TOKEN - 2], END_OF_WORD]
    return [c + 1 for c in ids + [PADDING] * (MAX_CHARS_PER_TOKEN - len(ids))]


def batch_to_ids(sentences) -> tuple[torch.Tensor, torch.Tensor]:
    """``(ids (batch, 2 + longest, 50) int64, lengths (batch,))`` with ``<S>``/``</S>`` added, rows past a
    sentence's end all 0: ``batch_to_ids`` followed by ``add_sentence_boundary_token_ids``."""
    lengths = torch.tensor([len(s) + 2 for s in sentences], dtype=torch.int64)
    ids = torch.zeros(len(sentences), int(lengths.max()), MAX_CHARS_PER_TOKEN, dtype=torch.int64)
    for i, sentence in enumerate(sentences):
        ids[i, : len(sentence) + 2] = torch.tensor([token_char_ids(t) for t in ["<S>", *sentence, "</S>"]])
    return ids, lengths


# -- the network --------------------------------------------------------------------------------------------------


def _linear(weight: np.ndarray, bias: np.ndarray | None = None) -> nn.Linear:
    """``nn.Linear`` holding ``weight`` `(out, in)` (and ``bias``)."""
    layer = nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None)
    layer.weight.data.copy_(torch.from_numpy(np.ascontiguousarray(weight, dtype=np.float32)))
    if bias is not None:
        layer.bias.data.copy_(torch.from_numpy(np.ascontiguousarray(bias, dtype=np.float32)))
    return layer


class CharacterEncoder(nn.Module):
    """``_ElmoCharacterEncoder``: character ids `(batch, steps, 50)` → token vectors `(batch, steps, projection)`."""

    def __init__(self, options, tensors):
        super().__init__()
        cnn = options["char_cnn"]
        embed = tensors["char_embed"]
        weights = np.concatenate([np.zeros((1, embed.shape[1]), np.float32), embed])  # row 0: padding id 0
        self.char_embedding = nn.Parameter(torch.from_numpy(weights.astype(np.float32)), requires_grad=False)
        self.convolutions = nn.ModuleList()
        for i, (width, count) in enumerate(cnn["filters"]):
            conv = nn.Conv1d(embed.shape[1], count, width, bias=True)
            # (1, width, dim, count) → Conv1d's (count, dim, width)
            kernel = np.transpose(tensors[f"CNN/W_cnn_{i}"][0], (2, 1, 0))
            conv.weight.data.copy_(torch.from_numpy(np.ascontiguousarray(kernel, dtype=np.float32)))
            conv.bias.data.copy_(torch.from_numpy(tensors[f"CNN/b_cnn_{i}"].astype(np.float32)))
            self.convolutions.append(conv)
        self.activation = {"relu": torch.relu, "tanh": torch.tanh}[cnn["activation"]]
        self.highways = nn.ModuleList()
        for k in range(cnn["n_highway"]):  # AllenNLP's Highway: one Linear giving [nonlinear part; gate]
            high = {name: tensors[f"CNN_high_{k}/{name}"]
                    for name in ("W_transform", "b_transform", "W_carry", "b_carry")}
            weight = np.concatenate([high["W_transform"].T, -high["W_carry"].T])
            self.highways.append(_linear(weight, np.concatenate([high["b_transform"], -high["b_carry"]])))
        self.projection = _linear(tensors["CNN_proj/W_proj"].T, tensors["CNN_proj/b_proj"])

    def forward(self, ids):
        batch, steps, chars = ids.shape
        x = functional.embedding(ids.view(-1, chars), self.char_embedding).transpose(1, 2)  # (B*T, dim, chars)
        x = torch.cat([self.activation(torch.max(conv(x), dim=-1)[0]) for conv in self.convolutions], dim=-1)
        for layer in self.highways:
            nonlinear, gate = layer(x).chunk(2, dim=-1)
            gate = torch.sigmoid(gate)
            x = gate * x + (1 - gate) * torch.relu(nonlinear)
        return self.projection(x).view(batch, steps, -1)


class LstmCellWithProjection(nn.Module):
    """AllenNLP's ``LstmCellWithProjection`` (inference: no recurrent dropout), loaded from one TF ``LSTMCell``."""

    def __init__(self, w_0, b, w_p, input_size, go_forward, cell_clip, proj_clip):
        super().__init__()
        self.cell_size, self.hidden_size = w_p.shape
        self.go_forward, self.cell_clip, self.proj_clip = go_forward, cell_clip, proj_clip
        bias = b.astype(np.float32)  # copy
        bias[2 * self.cell_size : 3 * self.cell_size] += TF_FORGET_BIAS  # TF's [i, j, f, o]: f is the third block

        def to_allennlp_order(rows):  # TF [input, memory (j), forget, output] → [input, forget, memory, output]
            i, j, f, o = np.split(rows, 4, axis=0)
            return np.concatenate([i, f, j, o])

        weights = to_allennlp_order(w_0.T)  # (4 * cells, input + hidden)
        self.input_linearity = _linear(weights[:, :input_size])
        self.state_linearity = _linear(weights[:, input_size:], to_allennlp_order(bias))
        self.state_projection = _linear(w_p.T)

    def forward(self, inputs, batch_lengths):
        """``inputs`` `(batch, steps, input)` sorted by ``batch_lengths`` (a list), longest first."""
        batch_size, total_timesteps, _ = inputs.shape
        output_accumulator = inputs.new_zeros(batch_size, total_timesteps, self.hidden_size)
        full_batch_memory = inputs.new_zeros(batch_size, self.cell_size)
        full_batch_state = inputs.new_zeros(batch_size, self.hidden_size)
        current_length_index = batch_size - 1 if self.go_forward else 0
        for timestep in range(total_timesteps):
            index = timestep if self.go_forward else total_timesteps - timestep - 1
            if self.go_forward:  # rows whose sentence has ended drop out from the end of the batch
                while batch_lengths[current_length_index] <= index:
                    current_length_index -= 1
            else:  # going backwards, rows join as the step reaches their last token
                while current_length_index < len(batch_lengths) - 1 and batch_lengths[current_length_index + 1] > index:
                    current_length_index += 1
            rows = current_length_index + 1
            previous_memory = full_batch_memory[:rows].clone()
            previous_state = full_batch_state[:rows].clone()
            projected_input = self.input_linearity(inputs[:rows, index])
            projected_state = self.state_linearity(previous_state)
            c = self.cell_size
            input_gate = torch.sigmoid(projected_input[:, 0 * c : 1 * c] + projected_state[:, 0 * c : 1 * c])
            forget_gate = torch.sigmoid(projected_input[:, 1 * c : 2 * c] + projected_state[:, 1 * c : 2 * c])
            memory_init = torch.tanh(projected_input[:, 2 * c : 3 * c] + projected_state[:, 2 * c : 3 * c])
            output_gate = torch.sigmoid(projected_input[:, 3 * c : 4 * c] + projected_state[:, 3 * c : 4 * c])
            memory = input_gate * memory_init + forget_gate * previous_memory
            if self.cell_clip:
                memory = torch.clamp(memory, -self.cell_clip, self.cell_clip)
            timestep_output = self.state_projection(output_gate * torch.tanh(memory))
            if self.proj_clip:
                timestep_output = torch.clamp(timestep_output, -self.proj_clip, self.proj_clip)
            full_batch_memory = full_batch_memory.clone()  # as AllenNLP (autograd-safe in-place update)
            full_batch_state = full_batch_state.clone()
            full_batch_memory[:rows] = memory
            full_batch_state[:rows] = timestep_output
            output_accumulator[:rows, index] = timestep_output
        return output_accumulator


class AllenNLPStyleElmo(nn.Module):
    """AllenNLP's ``_ElmoBiLm`` + ``ElmoEmbedder.embed_batch``, stateless.

    Args:
        options_path: ``options.json`` path, or its dict.
        weights_path: the HDF5 weight file, or a dict ``{tensor path: array}`` in its layout (``random_tensors``).
    """

    def __init__(self, options_path, weights_path):
        super().__init__()
        options = options_path if isinstance(options_path, dict) else _read_json(options_path)
        tensors = weights_path if isinstance(weights_path, dict) else read_tensors(weights_path)
        lstm = options["lstm"]
        self.char_encoder = CharacterEncoder(options, tensors)
        self.use_skip_connections = bool(lstm.get("use_skip_connections"))
        self.forward_layers, self.backward_layers = nn.ModuleList(), nn.ModuleList()
        input_size = lstm["projection_dim"]
        for layer in range(lstm["n_layers"]):
            for direction, layers in enumerate((self.forward_layers, self.backward_layers)):
                prefix = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
                layers.append(LstmCellWithProjection(
                    tensors[f"{prefix}/W_0"], tensors[f"{prefix}/B"], tensors[f"{prefix}/W_P_0"], input_size,
                    go_forward=direction == 0, cell_clip=lstm.get("cell_clip"), proj_clip=lstm.get("proj_clip")))
            input_size = lstm["projection_dim"]
        self.eval()

    def forward(self, ids, lengths):
        """Character ids with boundaries `(batch, steps, 50)` and lengths → ``n_layers + 1`` activations
        `(batch, steps, 2 * projection)` (``_ElmoBiLm``'s ``"activations"``)."""
        tokens = self.char_encoder(ids)
        sorted_lengths, order = lengths.sort(0, descending=True)  # ElmoLstm.sort_and_run_forward
        restoration = order.argsort()
        forward_sequence = backward_sequence = tokens.index_select(0, order)[:, : int(sorted_lengths[0])]
        batch_lengths = sorted_lengths.tolist()
        outputs = []
        for index, (forward_layer, backward_layer) in enumerate(zip(self.forward_layers, self.backward_layers)):
            forward_cache, backward_cache = forward_sequence, backward_sequence
            forward_sequence = forward_layer(forward_sequence, batch_lengths)
            backward_sequence = backward_layer(backward_sequence, batch_lengths)
            if index != 0 and self.use_skip_connections:
                forward_sequence = forward_sequence + forward_cache
                backward_sequence = backward_sequence + backward_cache
            outputs.append(torch.cat([forward_sequence, backward_sequence], -1).index_select(0, restoration))
        return [torch.cat([tokens, tokens], dim=-1), *outputs]

    def embed_batch(self, sentences) -> list[np.ndarray]:
        """Token lists → one float32 `(n_layers + 1, tokens, 2 * projection)` array each, boundaries removed."""
        ids, lengths = batch_to_ids(sentences)
        with torch.no_grad():
            activations = torch.stack(self(ids, lengths), dim=1).numpy()  # (batch, layers, steps, dim)
        return [activations[i, :, 1 : len(sentence) + 1] for i, sentence in enumerate(sentences)]

    def embed_sentence(self, tokens) -> np.ndarray:
        return self.embed_batch([tokens])[0]


# -- files and random models --------------------------------------------------------------------------------------


def _read_json(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def read_tensors(path) -> dict[str, np.ndarray]:
    """Every dataset of an HDF5 weight file, ``{"CNN/W_cnn_0": array, ...}``."""
    tensors = {}
    with h5py.File(path, "r") as handle:
        handle.visititems(lambda name, item: tensors.__setitem__(name, item[...]) if isinstance(item, h5py.Dataset)
                          else None)
    return tensors


def random_tensors(options, seed=0) -> dict[str, np.ndarray]:
    """Untrained weights in bilm-tf's HDF5 layout for ``options`` (uniform ±1/√fan-in; carry bias −2 as bilm-tf)."""
    rng = np.random.default_rng(seed)

    def uniform(*shape, fan_in):
        return (rng.uniform(-1.0, 1.0, shape) / np.sqrt(fan_in)).astype(np.float32)

    cnn, lstm = options["char_cnn"], options["lstm"]
    dim, n_filters = cnn["embedding"]["dim"], sum(count for _, count in cnn["filters"])
    tensors = {"char_embed": uniform(261, dim, fan_in=1)}
    for i, (width, count) in enumerate(cnn["filters"]):
        tensors[f"CNN/W_cnn_{i}"] = uniform(1, width, dim, count, fan_in=width * dim)
        tensors[f"CNN/b_cnn_{i}"] = np.zeros(count, np.float32)
    for k in range(cnn["n_highway"]):
        tensors[f"CNN_high_{k}/W_carry"] = uniform(n_filters, n_filters, fan_in=n_filters)
        tensors[f"CNN_high_{k}/b_carry"] = np.full(n_filters, -2.0, np.float32)
        tensors[f"CNN_high_{k}/W_transform"] = uniform(n_filters, n_filters, fan_in=n_filters)
        tensors[f"CNN_high_{k}/b_transform"] = np.zeros(n_filters, np.float32)
    projection, cells = lstm["projection_dim"], lstm["dim"]
    tensors["CNN_proj/W_proj"] = uniform(n_filters, projection, fan_in=n_filters)
    tensors["CNN_proj/b_proj"] = np.zeros(projection, np.float32)
    for direction in (0, 1):
        for layer in range(lstm["n_layers"]):
            prefix = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
            tensors[f"{prefix}/W_0"] = uniform(2 * projection, 4 * cells, fan_in=2 * projection)
            tensors[f"{prefix}/B"] = np.zeros(4 * cells, np.float32)
            tensors[f"{prefix}/W_P_0"] = uniform(cells, projection, fan_in=cells)
    return tensors


def random_elmo(options="elmo-small", seed=0) -> AllenNLPStyleElmo:
    """An untrained model of ``SIZES[options]`` (or of an ``elmo_options`` dict)."""
    options = SIZES[options] if isinstance(options, str) else options
    return AllenNLPStyleElmo(options, random_tensors(options, seed))


def write_model_files(directory, options, tensors) -> tuple[str, str]:
    """Write ``options.json`` and ``lm_weights.hdf5`` (so that our ``ElmoEmbedder`` loads the same model);
    returns their paths."""
    options_path, weights_path = os.path.join(directory, "options.json"), os.path.join(directory, "lm_weights.hdf5")
    with open(options_path, "w", encoding="utf-8") as handle:
        json.dump(options, handle)
    with h5py.File(weights_path, "w") as handle:
        for name, value in tensors.items():
            handle.create_dataset(name, data=value)
    return options_path, weights_path


def random_model_files(directory, size: str, seed: int = 0) -> tuple[str, str]:
    """``write_model_files`` of an untrained model of ``SIZES[size]`` into ``directory``; returns the two paths."""
    return write_model_files(directory, SIZES[size], random_tensors(SIZES[size], seed))


# -- self-check ---------------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", choices=sorted(SIZES), default="elmo-small")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--tokens", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(0)
    here = os.path.dirname(os.path.abspath(__file__))
    fixtures = os.path.join(here, "..", "..", "shared", "fixtures", "elmo_bilm_tf")
    if os.path.isdir(fixtures):  # the bilm-tf test model's stateless rows (batch 0 of each list)
        model = AllenNLPStyleElmo(os.path.join(fixtures, "options.json"), os.path.join(fixtures, "lm_weights.hdf5"))
        texts = _read_json(os.path.join(fixtures, "lm_embeddings_sentences.json"))
        got = model.embed_batch([texts[k][0].split() for k in range(len(texts))])
        worst = 0.0
        for k, vectors in enumerate(got):
            with h5py.File(os.path.join(fixtures, f"lm_embeddings_{k}.hdf5"), "r") as handle:
                expected = np.concatenate([handle["0"][0], handle["0"][1]], axis=-1)
            worst = max(worst, float(np.abs(vectors[-1] - expected).max()))
        print(f"bilm-tf test model, stateless rows: max |difference| {worst:.2e} ({'ok' if worst <= 1e-5 else 'FAIL'})")
    else:
        print(f"fixtures not found at {fixtures}: skipping the check against the original outputs")
    model = random_elmo(args.size)
    rng = np.random.default_rng(0)
    words = ["the", "bank", "river", "sat", "by", "a", "cat", "money", "interest", "."]
    sentences = [list(rng.choice(words, args.tokens)) for _ in range(args.batch)]
    model.embed_batch(sentences)  # warm-up (oneDNN kernel selection)
    start = time.perf_counter()
    vectors = model.embed_batch(sentences)
    seconds = time.perf_counter() - start
    print(f"{args.size} (untrained), batch {args.batch} × {args.tokens} tokens: output {vectors[0].shape}, "
          f"second call {seconds:.2f} s = {args.batch * args.tokens / seconds:,.0f} tokens/s, "
          f"{torch.get_num_threads()} threads")


if __name__ == "__main__":
    main()

"""PyTorch's ``nn.LSTM`` on the same cases as ``bilm_throughput.py``: the reference the biLM targets name.

    python benchmarks/torch_reference.py [--repeats 20] [--json] [--training SIZES]

Optional: needs PyTorch (``pip install torch``; not a project dependency). ``bilm_throughput.py`` and
``training_step.py`` run this script in a subprocess, so both frameworks are measured in the same run without
sharing a process. With ``--training SIZES`` (a JSON object of ``realistic_training_step_seconds``' keyword
arguments, as ``training_step.py`` passes it) only the two training steps are measured: the toy one and one at
those sizes.

The models mirror ours: a word embedding (128) with a linear projection to the LSTM width where they differ,
then two untied 2-layer ``nn.LSTM`` stacks, one reading the sentence reversed (padding-free batches, so a
plain flip is the within-length reversal); ``proj_size`` gives the ELMo-small projected cell. The training
step is the toy ``BiLanguageModel``'s: dropout 0.1 between layers and before one softmax shared by both
directions, forward and backward mean cross-entropy, Adam. ``realistic_training_step_seconds`` is the same step at
``training_step.py``'s sizes (``nn.LSTM(proj_size=)``), with each gradient tensor clipped as our trainers clip it.

``FusedElmo`` is the whole ELMo pipeline on the fused kernels, the speed bound ``elmo_vs_allennlp.py`` measures
us against: AllenNLP's character encoder (``allennlp_reference.CharacterEncoder``) and per direction and layer one
``nn.LSTM(proj_size=)`` over packed sequences, loaded from the same bilm-tf weights. ``nn.LSTM`` has no cell or
projection clip, so its vectors differ from ELMo's where a clip would act: a bound on speed, not a reference for
numbers.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch
from allennlp_reference import TF_FORGET_BIAS, CharacterEncoder, batch_to_ids
from timing import fastest_seconds
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

VOCAB = 500
FORWARD_CASES = (  # name, batch, steps, units, projection, token width
    ("toy b1", 1, 12, 256, 0, 256),
    ("toy b32", 32, 12, 256, 0, 256),
    ("elmo-small b32", 32, 20, 1024, 128, 128),
)


class TorchBiLM(nn.Module):
    def __init__(self, units, projection, token_dim, embedding_dim=128, dropout=0.1, vocab_size=VOCAB, num_layers=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        self.projection = nn.Linear(embedding_dim, token_dim) if token_dim != embedding_dim else nn.Identity()
        stack = dict(num_layers=num_layers, batch_first=True, proj_size=projection, dropout=dropout)
        self.forward_lstm = nn.LSTM(token_dim, units, **stack)
        self.backward_lstm = nn.LSTM(token_dim, units, **stack)

    def forward(self, ids):
        tokens = self.projection(self.embedding(ids))
        forward, _ = self.forward_lstm(tokens)
        backward, _ = self.backward_lstm(torch.flip(tokens, [1]))
        return forward, torch.flip(backward, [1])


class FusedElmo(nn.Module):
    """ELMo on PyTorch's fused kernels: char-CNN + ``nn.LSTM(proj_size=)`` per direction and layer (no clips).

    Args:
        options: bilm-tf's ``options.json`` as a dict.
        tensors: ``{tensor path: array}`` in bilm-tf's HDF5 layout (``allennlp_reference.random_tensors``).
    """

    def __init__(self, options, tensors):
        super().__init__()
        lstm = options["lstm"]
        self.char_encoder = CharacterEncoder(options, tensors)
        self.use_skip_connections = bool(lstm.get("use_skip_connections"))
        self.directions = nn.ModuleList([nn.ModuleList(), nn.ModuleList()])
        for layer in range(lstm["n_layers"]):
            for direction, layers in enumerate(self.directions):
                prefix = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
                layers.append(_lstm_from_tf(tensors[f"{prefix}/W_0"], tensors[f"{prefix}/B"],
                                            tensors[f"{prefix}/W_P_0"], lstm["projection_dim"]))
        self.eval()

    def forward(self, ids, lengths):
        """Character ids with boundaries `(batch, steps, 50)`, ``lengths`` sorted longest first → the
        ``n_layers + 1`` activations `(batch, steps, 2 * projection)`."""
        tokens = self.char_encoder(ids)
        steps = tokens.shape[1]
        # the backward direction reads each sentence right to left within its length
        positions = torch.arange(steps)[None, :]
        reverse = torch.where(positions < lengths[:, None], lengths[:, None] - 1 - positions, positions)
        gather = reverse[:, :, None].expand(-1, -1, tokens.shape[-1])
        sequences = [tokens, torch.gather(tokens, 1, gather)]
        outputs = []
        for layers in zip(*self.directions):
            results = []
            for direction, (lstm, sequence) in enumerate(zip(layers, sequences)):
                packed = pack_padded_sequence(sequence, lengths, batch_first=True)
                result, _ = pad_packed_sequence(lstm(packed)[0], batch_first=True, total_length=steps)
                if outputs and self.use_skip_connections:
                    result = result + sequence
                results.append(result)
            sequences = results
            backward = torch.gather(results[1], 1, gather)
            outputs.append(torch.cat([results[0], backward], dim=-1))
        return [torch.cat([tokens, tokens], dim=-1), *outputs]

    def embed_batch(self, sentences) -> list[np.ndarray]:
        """Token lists → one float32 `(n_layers + 1, tokens, 2 * projection)` array each, boundaries removed."""
        order = sorted(range(len(sentences)), key=lambda i: -len(sentences[i]))
        ids, lengths = batch_to_ids([sentences[i] for i in order])
        with torch.inference_mode():
            activations = torch.stack(self(ids, lengths), dim=1).numpy()  # (batch, layers, steps, dim)
        results = [None] * len(sentences)
        for row, i in enumerate(order):
            results[i] = activations[row, :, 1 : len(sentences[i]) + 1]
        return results


def _lstm_from_tf(w_0, b, w_p, input_size) -> nn.LSTM:
    """``nn.LSTM(proj_size=)`` holding one bilm-tf ``LSTMCell``: TF's gates ``[i, j, f, o]`` become PyTorch's
    ``[i, f, g, o]`` and TF's run-time forget bias is added to the bias."""
    cells, projection = w_p.shape
    lstm = nn.LSTM(input_size, cells, batch_first=True, proj_size=projection)
    bias = b.astype(np.float32)
    bias[2 * cells : 3 * cells] += TF_FORGET_BIAS

    def torch_order(rows):
        i, j, f, o = np.split(rows, 4, axis=0)
        return np.ascontiguousarray(np.concatenate([i, f, j, o]), dtype=np.float32)

    weights = torch_order(w_0.T)  # (4 * cells, input + projection)
    with torch.no_grad():
        lstm.weight_ih_l0.copy_(torch.from_numpy(np.ascontiguousarray(weights[:, :input_size])))
        lstm.weight_hh_l0.copy_(torch.from_numpy(np.ascontiguousarray(weights[:, input_size:])))
        lstm.bias_ih_l0.copy_(torch.from_numpy(torch_order(bias)))
        lstm.bias_hh_l0.zero_()
        lstm.weight_hr_l0.copy_(torch.from_numpy(np.ascontiguousarray(w_p.T, dtype=np.float32)))
    return lstm


def forward_tokens_per_second(batch, steps, units, projection, token_dim, repeats):
    model = TorchBiLM(units, projection, token_dim).eval()
    ids = torch.randint(4, VOCAB, (batch, steps))
    with torch.inference_mode():
        seconds = fastest_seconds(lambda: model(ids), repeats)
    return batch * steps / seconds


def training_step_seconds(repeats):
    model = TorchBiLM(256, 0, 256).train()
    softmax, dropout = nn.Linear(256, VOCAB), nn.Dropout(0.1)
    optimizer = torch.optim.Adam([*model.parameters(), *softmax.parameters()], 1e-3)
    ids = torch.randint(4, VOCAB, (32, 14))

    def step():
        optimizer.zero_grad()
        forward, backward = model(ids)
        forward_logits = softmax(dropout(forward[:, :-1])).reshape(-1, VOCAB)
        backward_logits = softmax(dropout(backward[:, 1:])).reshape(-1, VOCAB)
        loss = nn.functional.cross_entropy(forward_logits, ids[:, 1:].reshape(-1))
        loss = loss + nn.functional.cross_entropy(backward_logits, ids[:, :-1].reshape(-1))
        loss.backward()
        optimizer.step()

    return fastest_seconds(step, repeats)


def realistic_training_step_seconds(repeats, *, vocab_size, embedding_dim, units, projection, num_layers, dropout,
                                    batch, time_steps, learning_rate, clip_norm):
    """Fastest seconds of one training step of a word-level biLM as ``training_step.py`` builds ours.

    ``TorchBiLM`` (word embedding, projected to ``projection`` if it differs; per direction ``num_layers``
    ``nn.LSTM`` layers of ``units`` cells with ``proj_size=projection``, ``dropout`` between layers), ``dropout``
    before one softmax shared by both directions, the loss the sum of the forward and the backward mean
    cross-entropy (as ``BiLanguageModel``), each gradient tensor clipped to ``clip_norm`` on its own
    (``clip_grad_norm_`` per parameter: Keras' ``clipnorm`` clips per tensor, not globally), Adam at
    ``learning_rate`` with Keras' epsilon (1e-7). The batch: `(batch, time_steps)` random word ids, ``<S>`` (2)
    first and ``</S>`` (3) last. ``nn.LSTM`` has no cell or projection clip.
    """
    token_dim = projection or units
    model = TorchBiLM(units, projection, token_dim, embedding_dim, dropout, vocab_size, num_layers).train()
    softmax, softmax_dropout = nn.Linear(token_dim, vocab_size), nn.Dropout(dropout)
    parameters = [*model.parameters(), *softmax.parameters()]
    optimizer = torch.optim.Adam(parameters, learning_rate, eps=1e-7)
    ids = torch.randint(4, vocab_size, (batch, time_steps))
    ids[:, 0], ids[:, -1] = 2, 3
    targets = torch.cat([ids[:, 1:], ids[:, :-1]]).reshape(-1)  # forward: the next word; backward: the previous

    def step():
        optimizer.zero_grad()
        forward, backward = model(ids)
        tops = softmax_dropout(torch.cat([forward[:, :-1], backward[:, 1:]]))  # (2 * batch, time_steps - 1, dim)
        losses = nn.functional.cross_entropy(softmax(tops).reshape(-1, vocab_size), targets, reduction="none")
        losses.reshape(2, -1).mean(dim=1).sum().backward()  # forward mean + backward mean
        for parameter in parameters:
            nn.utils.clip_grad_norm_(parameter, clip_norm)
        optimizer.step()

    return fastest_seconds(step, repeats)


def measure_training(repeats, sizes):
    """``{"version", "threads", "training_step_ms", "realistic_training_step_ms"}``: the toy training step and
    ``realistic_training_step_seconds(**sizes)``."""
    torch.manual_seed(0)
    return {
        "version": torch.__version__,
        "threads": torch.get_num_threads(),
        "training_step_ms": training_step_seconds(repeats) * 1e3,
        "realistic_training_step_ms": realistic_training_step_seconds(repeats, **sizes) * 1e3,
    }


def measure(repeats):
    """``{"version", "threads", "forward": {case: tokens/s}, "training_step_ms"}``."""
    torch.manual_seed(0)
    forward = {name: forward_tokens_per_second(*case, repeats) for name, *case in FORWARD_CASES}
    return {
        "version": torch.__version__,
        "threads": torch.get_num_threads(),
        "forward": forward,
        "training_step_ms": training_step_seconds(repeats) * 1e3,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object (for bilm_throughput.py and training_step.py)")
    parser.add_argument("--training", metavar="SIZES", type=json.loads,
                        help="measure only the training steps: the toy one and one at these sizes (a JSON object of "
                             "realistic_training_step_seconds' keyword arguments)")
    args = parser.parse_args()
    import warnings  # here: only the command line silences this PyTorch warning, not an importer of the module

    warnings.filterwarnings("ignore", message="LSTM with projections is not supported with oneDNN")
    results = measure(args.repeats) if args.training is None else measure_training(args.repeats, args.training)
    if args.json:
        print(json.dumps(results))
        return
    print(f"PyTorch {results['version']}, {results['threads']} threads")
    if args.training is not None:
        print(f"  toy training step       {results['training_step_ms']:10.1f} ms")
        print(f"  realistic training step {results['realistic_training_step_ms']:10.1f} ms")
        return
    for name, rate in results["forward"].items():
        print(f"  {name:16s} {rate:10,.0f} tokens/s")
    print(f"  training step    {results['training_step_ms']:10.1f} ms")


if __name__ == "__main__":
    main()

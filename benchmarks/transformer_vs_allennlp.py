"""The transformer ELMo's speed: ours against a PyTorch reference written from AllenNLP's transformer code, and against
our own LSTM ELMo, with how close each figure comes to the float32 matmul ceiling.

    python benchmarks/transformer_vs_allennlp.py [--repeats 5] [--threads N] [--construction-rounds 2] [--quick]

One run, the release-shaped transformer ELMo (``transformer_sizes``: 6 layers, width 512, feed-forward 2048, 8
heads, char CNN of the original ELMo; random weights, no softmax) written by PyTorch as an AllenNLP archive folder
(``config.json`` + ``weights.th``) in a temporary directory:

- **Construction to vectors**: ours, ``transformer_elmo_from_archive`` → ``ElmoEmbedder(bilm=...)`` →
  ``embed_batch`` of 64 × 20 tokens (graph tracing included, as a one-off run pays); the reference, AllenNLP's
  ``LanguageModel`` built and ``load_state_dict(torch.load(weights.th))`` → the same batch. Fastest of
  ``--construction-rounds``, the sides in turn.
- **Warm throughput**, 64 sentences × 20 tokens and 8 × 400 tokens (random lowercase words): ours
  (``ElmoEmbedder.embed_batch``, float32 on the graph: every layer, boundaries stripped, NumPy per sentence) against
  the reference (``allennlp_reference.batch_to_ids`` → ``LanguageModel`` under ``no_grad`` → every layer, its
  char-CNN layer joined twice as AllenNLP tiles it, NumPy per sentence); at 8 × 400 our LSTM ELMo at the original
  size (``allennlp_reference.SIZES["original"]``: 2 layers of 4096 cells projected to 512) too, at its default
  precision and at float32. Interleaved rounds (``timing.fastest_interleaved_seconds``), the fastest of
  ``--repeats``; real tokens per second (boundaries not counted) and each ratio.
- **Matmul ceiling**: a 2048³ float32 matmul's GFLOP/s in TensorFlow (our backend) and PyTorch, in the same run; each
  model's FLOPs per token (``transformer_flops``, ``lstm_flops``: 2 per multiply-add, attention over every position
  of the padded batch as computed) × its tokens/s, as a fraction of the faster matmul.

``--quick`` runs toy sizes (the smoke test); its numbers mean nothing. Needs PyTorch (not a project dependency).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import string
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from allennlp_reference import SIZES, batch_to_ids, elmo_options, random_model_files  # noqa: E402
from allennlp_transformer_reference import LanguageModel, random_language_model, state_dict_bytes  # noqa: E402
from timing import cpu_name, fastest_interleaved_seconds  # noqa: E402
from transformer_sizes import transformer_elmo_config  # noqa: E402

from elmo_keras.embedding.embedder import ElmoEmbedder  # noqa: E402
from elmo_keras.pretrained.transformer_loader import transformer_elmo_from_archive  # noqa: E402

MATMUL_SIZE = 2048
CHARS = 50  # characters per token, boundaries of the word included
QUICK_LSTM = elmo_options(filters=((1, 4), (2, 8)), cells=32, projection=16, n_highway=1, char_dim=4)


def random_sentences(count: int, tokens: int, seed: int = 0) -> list[list[str]]:
    rng = random.Random(seed)
    return [["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(tokens)]
            for _ in range(count)]


def char_cnn_flops(filters, char_dim: int, n_highway: int, projection: int) -> int:
    """FLOPs of the char CNN per token: each convolution over the token's 50 characters, the highways, the
    projection."""
    n_filters = sum(count for _, count in filters)
    convolutions = sum(2 * width * char_dim * count * (CHARS - width + 1) for width, count in filters)
    return convolutions + n_highway * 2 * 2 * n_filters * 2 * n_filters + 2 * n_filters * projection


def transformer_flops(config: dict, positions: int) -> int:
    """FLOPs per position of the transformer ELMo of AllenNLP's ``config`` on a batch padded to ``positions``: the
    char CNN, then per direction and layer the four attention projections, the scores and the weighted sum over every
    position, and the feed-forward."""
    model = config["model"]
    encoder = model["text_field_embedder"]["token_embedders"]["token_characters"]["encoder"]
    dim, hidden, layers = (model["contextualizer"][k] for k in ("input_dim", "hidden_dim", "num_layers"))
    block = 4 * 2 * dim * dim + 2 * 2 * positions * dim + 2 * 2 * dim * hidden
    cnn = char_cnn_flops(encoder["filters"], encoder["embedding_dim"], encoder["num_highway"], dim)
    return cnn + 2 * layers * block


def lstm_flops(options: dict) -> int:
    """FLOPs per position of an LSTM ELMo of bilm-tf ``options``: the char CNN, then per direction and layer the
    gates from the input and the previous output, and the projection."""
    lstm, cnn = options["lstm"], options["char_cnn"]
    cells, projection, layers = lstm["dim"], lstm["projection_dim"], lstm["n_layers"]
    step = 2 * (projection + projection) * 4 * cells + 2 * cells * projection
    return char_cnn_flops(cnn["filters"], cnn["embedding"]["dim"], cnn["n_highway"], projection) + 2 * layers * step


def matmul_gflops(repeats: int) -> dict:
    """A ``MATMUL_SIZE``³ float32 matmul's GFLOP/s in TensorFlow and in PyTorch (fastest of ``repeats``)."""
    import tensorflow as tf

    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((MATMUL_SIZE, MATMUL_SIZE), dtype=np.float32) for _ in range(2))
    ta, tb, pa, pb = tf.constant(a), tf.constant(b), torch.from_numpy(a), torch.from_numpy(b)
    seconds = fastest_interleaved_seconds({"TensorFlow": lambda: tf.linalg.matmul(ta, tb).numpy(),
                                           "PyTorch": lambda: torch.matmul(pa, pb)}, repeats)
    return {name: 2 * MATMUL_SIZE**3 / s / 1e9 for name, s in seconds.items()}


def write_archive_folder(directory: pathlib.Path, config: dict) -> pathlib.Path:
    """A random AllenNLP model folder (``config.json`` + ``weights.th`` in torch's zip format) for ``config``."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps(config))
    (directory / "weights.th").write_bytes(state_dict_bytes(random_language_model(config)))
    return directory


class ReferenceEmbedder:
    """AllenNLP's transformer ``LanguageModel`` (the PyTorch reference) as an embedder: char ids with boundaries →
    every layer (the char-CNN layer tiled twice) → one NumPy `(layers, tokens, 2 * dim)` array per sentence."""

    def __init__(self, folder: pathlib.Path):
        config = json.loads((folder / "config.json").read_text())
        self.model = LanguageModel(config).eval()
        self.model.load_state_dict(torch.load(folder / "weights.th", weights_only=True), strict=False)

    def embed_batch(self, sentences):
        ids, lengths = batch_to_ids(sentences)
        with torch.no_grad():
            tokens, layers, _ = self.model(ids)
            stacked = torch.stack([torch.cat([tokens, tokens], -1), *layers]).numpy()  # (L + 1, B, T, 2 * dim)
        return [stacked[:, i, 1 : int(n) - 1] for i, n in enumerate(lengths)]


def report(title: str, seconds: dict, tokens: int, flops_per_token: dict, ceiling: float, baseline: str) -> None:
    print(f"\n{title} ({tokens:,} tokens)")
    for name, s in seconds.items():
        rate = tokens / s
        gflops = rate * flops_per_token[name] / 1e9
        print(f"  {name:<34} {s:8.3f} s {rate:10,.0f} tokens/s {seconds[baseline] / s:6.2f}× the reference's speed"
              f"  {gflops:7.1f} GFLOP/s = {gflops / ceiling:5.1%} of the matmul ceiling")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--construction-rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--quick", action="store_true", help="toy sizes (a smoke test; the numbers mean nothing)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    config = transformer_elmo_config("quick" if args.quick else "release")
    lstm_options = QUICK_LSTM if args.quick else SIZES["original"]
    shapes = [(4, 5), (2, 12)] if args.quick else [(64, 20), (8, 400)]
    repeats = 1 if args.quick else args.repeats
    print(f"transformer ELMo ({'quick' if args.quick else 'release'} size) vs the AllenNLP reference, on {cpu_name()}, "
          f"PyTorch threads {args.threads}")
    ceilings = matmul_gflops(repeats)
    ceiling = max(ceilings.values())
    print("float32 matmul ceiling: " + ", ".join(f"{name} {g:,.1f} GFLOP/s" for name, g in ceilings.items()))

    with tempfile.TemporaryDirectory() as scratch:
        folder = write_archive_folder(pathlib.Path(scratch) / "transformer", config)
        first = random_sentences(*shapes[0])

        def ours_from_archive():
            return ElmoEmbedder(bilm=transformer_elmo_from_archive(folder).bilm).embed_batch(first)

        construction = {"ours": float("inf"), "AllenNLP reference": float("inf")}
        for _ in range(args.construction_rounds):
            for name, build in (("ours", ours_from_archive),
                                ("AllenNLP reference", lambda: ReferenceEmbedder(folder).embed_batch(first))):
                start = time.perf_counter()
                build()
                construction[name] = min(construction[name], time.perf_counter() - start)
        print(f"\nconstruction from the archive to the vectors of {shapes[0][0]} × {shapes[0][1]} tokens: "
              + ", ".join(f"{name} {s:.2f} s" for name, s in construction.items())
              + f"; the reference takes {construction['AllenNLP reference'] / construction['ours']:.2f}× ours")

        ours, reference = ElmoEmbedder(bilm=transformer_elmo_from_archive(folder).bilm), ReferenceEmbedder(folder)
        pairs = zip(ours.embed_batch(first), reference.embed_batch(first))
        pairs = list(pairs)
        difference = max(float(np.abs(a - b).max()) for a, b in pairs)
        scale = max(float(np.abs(b).max()) for _, b in pairs)
        print(f"the same vectors: largest difference {difference:.1e}, {difference / scale:.1e} of the largest "
              f"|vector| ({scale:.3g})")
        lstm_files = random_model_files(scratch, "original") if not args.quick else None
        if args.quick:
            from allennlp_reference import random_tensors, write_model_files

            lstm_files = write_model_files(scratch, QUICK_LSTM, random_tensors(QUICK_LSTM))
        for count, length in shapes:
            sentences = random_sentences(count, length, seed=length)
            positions = length + 2
            functions = {"ours (transformer)": lambda: ours.embed_batch(sentences),
                         "AllenNLP reference (transformer)": lambda: reference.embed_batch(sentences)}
            flops = dict.fromkeys(functions, transformer_flops(config, positions) * positions / length)
            if (count, length) == shapes[-1]:
                for precision in ("auto", "float32"):
                    lstm = ElmoEmbedder(*lstm_files, precision=precision)
                    name = f"ours (LSTM, precision={precision})"
                    functions[name] = lambda lstm=lstm: lstm.embed_batch(sentences)
                    flops[name] = lstm_flops(lstm_options) * positions / length
            seconds = fastest_interleaved_seconds(functions, repeats)
            report(f"{count} sentences × {length} tokens, warm, fastest of {repeats}", seconds, count * length, flops,
                   ceiling, "AllenNLP reference (transformer)")
            for name in [name for name in seconds if "LSTM" in name]:
                print(f"  our transformer is {seconds[name] / seconds['ours (transformer)']:.2f}× as fast as {name}")


if __name__ == "__main__":
    main()

"""End to end, a corpus to vectors on disk: our ``ElmoEmbedder.embed_file`` against the AllenNLP-style reference
(``allennlp_reference.py``: AllenNLP's ELMo, its per-step loop over the rows still active, in PyTorch), same random
model files, same sentences, interleaved rounds in one run.

    python benchmarks/elmo_vs_allennlp.py [--size elmo-small] [--sentences 1000] [--rounds 2] [--threads 2]

The corpus: ``--sentences`` sentences of 5–40 tokens (uniform), words drawn from a 5,000-word list of random
lowercase strings (seed 0). Ours: construction (``ElmoEmbedder(options, weights)``, default execution) to the HDF5
file written by ``embed_file`` (batch 64), compilation and tracing included, as a one-off CLI run pays. Reference:
construction (weights loaded as AllenNLP loads them) to the same HDF5 layout written with h5py, batches of 64 in
file order (``embed_batch`` sorts each batch by length, as AllenNLP does). PyTorch runs ``--threads`` intra-op threads
(TensorFlow its default). The ratio is the reference's seconds over ours, per round. Needs PyTorch (not a project
dependency).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from allennlp_reference import SIZES, AllenNLPStyleElmo, random_tensors, write_model_files  # noqa: E402
from timing import cpu_name  # noqa: E402

BATCH = 64


def write_corpus(path: pathlib.Path, count: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = ["".join(rng.choice(letters, size=rng.integers(2, 10))) for _ in range(5000)]
    lines = [" ".join(rng.choice(words, size=rng.integers(5, 41))) for _ in range(count)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def ours(model_dir: pathlib.Path, corpus: pathlib.Path, output: pathlib.Path) -> float:
    from elmo_keras.pretrained.embedder import ElmoEmbedder

    start = time.perf_counter()
    embedder = ElmoEmbedder(model_dir / "options.json", model_dir / "lm_weights.hdf5")
    embedder.embed_file(corpus, output, batch_size=BATCH)
    return time.perf_counter() - start


def reference(model_dir: pathlib.Path, corpus: pathlib.Path, output: pathlib.Path) -> float:
    start = time.perf_counter()
    elmo = AllenNLPStyleElmo(model_dir / "options.json", model_dir / "lm_weights.hdf5")
    sentences = [line.split() for line in corpus.read_text(encoding="utf-8").splitlines()]
    with h5py.File(output, "w") as handle:
        for first in range(0, len(sentences), BATCH):
            for offset, vectors in enumerate(elmo.embed_batch(sentences[first: first + BATCH])):
                handle.create_dataset(str(first + offset), data=vectors)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="elmo-small")
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        options = SIZES[args.size]
        write_model_files(tmp, options, random_tensors(options))
        write_corpus(tmp / "corpus.txt", args.sentences)
        print(f"{cpu_name()}; {args.size}, {args.sentences} sentences of 5-40 tokens, batch {BATCH}, "
              f"PyTorch threads {args.threads}")
        for round_index in range(args.rounds):
            reference_seconds = reference(tmp, tmp / "corpus.txt", tmp / "reference.hdf5")
            our_seconds = ours(tmp, tmp / "corpus.txt", tmp / "ours.hdf5")
            with h5py.File(tmp / "ours.hdf5") as a, h5py.File(tmp / "reference.hdf5") as b:
                difference = max(float(np.abs(a[str(i)][()] - b[str(i)][()]).max()) for i in range(args.sentences))
            print(f"  round {round_index + 1}: reference {reference_seconds:6.1f} s   ours {our_seconds:6.1f} s   "
                  f"{reference_seconds / our_seconds:4.2f}x   (max |difference| {difference:.1e})")


if __name__ == "__main__":
    main()

"""End to end, a corpus to vectors on disk, and one sentence's latency: our ``ElmoEmbedder`` against the AllenNLP-style
reference (``allennlp_reference.py``: AllenNLP's ELMo, its per-step loop over the rows still active, in PyTorch) and
against the same pipeline on PyTorch's fused kernels (``torch_reference.FusedElmo``: the char-CNN and
``nn.LSTM(proj_size=)``, a speed bound), same random model files, same sentences, interleaved rounds in one run.

    python benchmarks/elmo_vs_allennlp.py [--size both] [--sentences 2000] [--original-sentences 200] [--rounds 2]
        [--threads 2] [--ours auto,graph,xla] [--latency-repeats 30] [--no-latency | --no-end-to-end]
        [--precision float32]

End to end (``--size``: elmo-small, original or both): ``--sentences`` sentences of 5–40 tokens (uniform) at the
ELMo-small size and ``--original-sentences`` at the original size, words drawn from a 5,000-word list of random
lowercase strings (seed 0) with the lengths of English words in running text (``ENGLISH_WORD_LENGTHS``). Ours:
construction (``ElmoEmbedder(options, weights, execution=…)``) to the HDF5 file written by ``embed_file`` (batch 64),
compilation and tracing included, as a one-off CLI run pays; each of ``--ours`` (``auto``, the default; ``graph``;
``xla``, compiled per padded shape), at the embedder's default precision (``precision="auto"``: bfloat16 matmuls on a
CPU with native bfloat16, at ELMo's sizes) unless ``--precision`` says otherwise; each line says which. The references:
construction (weights loaded as AllenNLP loads them) to the same HDF5 layout written with h5py, batches of 64 in file
order, each sorted by length inside. PyTorch runs ``--threads`` intra-op threads (TensorFlow its default). Every ratio
is the other side's seconds over ours, per round and for the best of the rounds.

Latency (both sizes, unless ``--no-latency``): ``embed_sentence`` of one 20-token English sentence
(``LATENCY_SENTENCE``), warm, the fastest of ``--latency-repeats`` calls of each side, the two sides called in turn
(``timing.fastest_interleaved_seconds``), ours (``"auto"``, which runs one sentence on the graph) against the
AllenNLP-style reference, with the floor that memory bandwidth puts under any loop over time steps: the recurrent and
projection matrices of every direction and layer read once per step (22 steps: the sentence and its boundaries), in the
dtype our matmuls read them (bfloat16: half float32's bytes), at the bandwidth of a large NumPy copy measured in the
same run. Matrices that stay in the CPU's caches between steps can beat that floor. Needs PyTorch (not a project
dependency).
"""

from __future__ import annotations

import argparse
import json
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
from allennlp_reference import SIZES, AllenNLPStyleElmo, random_model_files, read_tensors  # noqa: E402
from timing import cpu_name, fastest_interleaved_seconds, fastest_seconds  # noqa: E402
from torch_reference import FusedElmo  # noqa: E402

BATCH = 64
LATENCY_TOKENS = 20
FLOAT32_BYTES = 4
COPY_BYTES = 1 << 29  # 512 MiB: far larger than any cache
OUR_PATHS = ("auto", "graph", "xla")
REFERENCES = {"AllenNLP-style": lambda files: AllenNLPStyleElmo(*files),
              "fused nn.LSTM": lambda files: FusedElmo(_read_options(files[0]), read_tensors(files[1]))}
DEFAULT_SENTENCES = {"elmo-small": 2000, "original": 200}
# how often an English word in running text has 1, 2, … 20 letters (per cent; Google Books, Norvig's "English Letter
# Frequency Counts: Mayzner Revisited"): the corpus' words get these lengths, so that the longest word of a batch,
# which sets how many character positions a batch convolves (``trim_character_padding``), is as long as in English
ENGLISH_WORD_LENGTHS = (2.998, 17.651, 20.511, 14.787, 10.700, 8.388, 7.939, 5.943, 4.437, 3.076, 1.761, 0.958, 0.518,
                        0.222, 0.076, 0.020, 0.010, 0.004, 0.001, 0.001)
# one English sentence of LATENCY_TOKENS tokens, its longest word (15 letters) long for running text
LATENCY_SENTENCE = ("The committee said on Tuesday that its representatives would review the proposed regulations "
                    "before the end of September in Washington").split()


def write_corpus(path: pathlib.Path, count: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    lengths = rng.choice(np.arange(1, len(ENGLISH_WORD_LENGTHS) + 1), size=5000,
                         p=np.array(ENGLISH_WORD_LENGTHS) / sum(ENGLISH_WORD_LENGTHS))
    words = ["".join(rng.choice(letters, size=length)) for length in lengths]
    lines = [" ".join(rng.choice(words, size=rng.integers(5, 41))) for _ in range(count)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def corpus_sentences(path: pathlib.Path, count: int) -> list[list[str]]:
    """``write_corpus(path, count)``, then its sentences as token lists (as the embedder reads the file)."""
    write_corpus(path, count)
    return [line.split() for line in path.read_text(encoding="utf-8").splitlines()]


def _read_options(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def ours(files, corpus: pathlib.Path, output: pathlib.Path, execution: str, options: dict) -> float:
    from elmo_keras.embedding.embedder import ElmoEmbedder

    start = time.perf_counter()
    embedder = ElmoEmbedder(*files, execution=execution, **options)
    embedder.embed_file(corpus, output, batch_size=BATCH)
    return time.perf_counter() - start


def reference(files, corpus: pathlib.Path, output: pathlib.Path, name: str) -> float:
    start = time.perf_counter()
    elmo = REFERENCES[name](files)
    sentences = [line.split() for line in corpus.read_text(encoding="utf-8").splitlines()]
    with h5py.File(output, "w") as handle:
        for first in range(0, len(sentences), BATCH):
            for offset, vectors in enumerate(elmo.embed_batch(sentences[first: first + BATCH])):
                handle.create_dataset(str(first + offset), data=vectors)
    return time.perf_counter() - start


def largest_difference(a_path, b_path, count: int) -> float:
    with h5py.File(a_path) as a, h5py.File(b_path) as b:
        return max(float(np.abs(a[str(i)][()] - b[str(i)][()]).max()) for i in range(count))


def model_line(files, options: dict) -> str:
    """What ours runs for this model: the matmuls' precision (``"auto"`` picks by size and CPU) and its size."""
    from elmo_keras.embedding.embedder import ElmoEmbedder
    from elmo_keras.embedding.precision import macs_per_token

    embedder = ElmoEmbedder(*files, **options)
    return (f"ours in {getattr(embedder, 'matmul_dtype', None) or 'float32'}, execution {embedder.execution} "
            f"(auto is the graph); {macs_per_token(embedder.bilm) / 1e6:.1f}M multiply-adds per token")


def end_to_end(size: str, count: int, rounds: int, paths: list[str], tmp: pathlib.Path, options: dict) -> None:
    files = random_model_files(tmp, size)
    corpus = tmp / "corpus.txt"
    write_corpus(corpus, count)
    tokens = sum(len(line.split()) for line in corpus.read_text(encoding="utf-8").splitlines())
    print(f"\nEnd to end, {size}: {count:,} sentences ({tokens:,} tokens) of 5-40 tokens, batch {BATCH}, "
          "construction to vectors on disk, compilation included")
    print(f"  {model_line(files, options)}")
    best: dict[str, float] = {}
    for round_index in range(rounds):
        seconds = {}
        for name in REFERENCES:
            seconds[name] = reference(files, corpus, tmp / f"{name}.hdf5", name)
        for path in paths:
            seconds[path] = ours(files, corpus, tmp / f"ours-{path}.hdf5", path, options)
        for name, value in seconds.items():
            best[name] = min(best.get(name, float("inf")), value)
        times = "   ".join(f"{name} {value:6.1f} s" for name, value in seconds.items())
        print(f"  round {round_index + 1}: {times}")
        print("           " + _ratios(seconds, paths))
        differences = {path: largest_difference(tmp / f"ours-{path}.hdf5", tmp / "AllenNLP-style.hdf5", count)
                       for path in paths}
        fused = largest_difference(tmp / "fused nn.LSTM.hdf5", tmp / "AllenNLP-style.hdf5", count)
        print("           max |ours - reference|: " + ", ".join(f"{p} {d:.1e}" for p, d in differences.items())
              + f" (fused nn.LSTM, no clipping: {fused:.1e})")
    print(f"  best of {rounds}: " + "   ".join(f"{name} {value:.1f} s" for name, value in best.items()))
    print("           " + _ratios(best, paths))


def _ratios(seconds: dict[str, float], paths: list[str]) -> str:
    return "   ".join(f"{name} / ours-{path} {seconds[name] / seconds[path]:4.2f}x"
                      for path in paths for name in REFERENCES)


def memory_bandwidth() -> float:
    """Bytes per second of a large NumPy copy (each byte read once and written once), the fastest of 3."""
    source = np.ones(COPY_BYTES // FLOAT32_BYTES, np.float32)
    target = np.empty_like(source)
    seconds = fastest_seconds(lambda: np.copyto(target, source), 3)
    return 2 * COPY_BYTES / seconds


def recurrent_bytes_per_step(options, bytes_per_weight: int = FLOAT32_BYTES) -> int:
    """Bytes of the matrices a loop over time steps reads at every step: per direction and layer the recurrent
    kernel `(projection, 4 * cells)` and the projection `(cells, projection)`, ``bytes_per_weight`` each (float32: 4,
    bfloat16: 2)."""
    lstm = options["lstm"]
    cells, projection = lstm["dim"], lstm["projection_dim"]
    return 2 * lstm["n_layers"] * (projection * 4 * cells + cells * projection) * bytes_per_weight


def single_sentence_latency(size: str, repeats: int, tmp: pathlib.Path, options: dict) -> tuple:
    """``(reference ms, ours ms, our matmul dtype)`` for one sentence of ``LATENCY_TOKENS`` tokens."""
    from elmo_keras.embedding.embedder import ElmoEmbedder

    files = random_model_files(tmp, size)
    embedder, elmo = ElmoEmbedder(*files, **options), AllenNLPStyleElmo(*files)
    seconds = fastest_interleaved_seconds({"reference": lambda: elmo.embed_sentence(LATENCY_SENTENCE),
                                           "ours": lambda: embedder.embed_sentence(LATENCY_SENTENCE)}, repeats)
    return 1e3 * seconds["reference"], 1e3 * seconds["ours"], getattr(embedder, "matmul_dtype", None) or "float32"


def print_latency(size: str, reference_ms: float, ours_ms: float, dtype: str, bandwidth: float) -> None:
    steps = LATENCY_TOKENS + 2
    per_step = recurrent_bytes_per_step(SIZES[size], 2 if dtype == "bfloat16" else FLOAT32_BYTES)
    floor_ms = 1e3 * per_step * steps / bandwidth
    print(f"  {size}: AllenNLP-style {reference_ms:7.1f} ms   ours ({dtype}) {ours_ms:7.1f} ms   "
          f"{reference_ms / ours_ms:4.2f}x   floor {floor_ms:6.1f} ms ({per_step / 1e6:.1f} MB per step × {steps} "
          f"steps; ours at {floor_ms / ours_ms:.0%} of it)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=[*sorted(SIZES), "both"], default="both",
                        help="model size(s) of the end-to-end run (default both)")
    parser.add_argument("--sentences", type=int, default=DEFAULT_SENTENCES["elmo-small"],
                        help="sentences at the ELMo-small size (default 2000)")
    parser.add_argument("--original-sentences", type=int, default=DEFAULT_SENTENCES["original"],
                        help="sentences at the original size (default 200)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ours", default=",".join(OUR_PATHS), help="our execution modes to time (default all)")
    parser.add_argument("--latency-repeats", type=int, default=30)
    parser.add_argument("--no-latency", action="store_true", help="skip the single-sentence latency")
    parser.add_argument("--no-end-to-end", action="store_true", help="only the single-sentence latency")
    parser.add_argument("--precision", help="our ElmoEmbedder's precision= (default: the embedder's default)")
    args = parser.parse_args()
    options = {} if args.precision is None else {"precision": args.precision}
    paths = args.ours.split(",")
    torch.set_num_threads(args.threads)
    import warnings  # here: only the command line silences this PyTorch warning, not an importer of the module

    warnings.filterwarnings("ignore", message="LSTM with projections is not supported with oneDNN")
    print(f"{cpu_name()}; PyTorch {torch.__version__}, {args.threads} threads")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        if not args.no_latency:
            # the bandwidth probe runs after the timings: its 1 GiB of copies left TensorFlow's next calls 10–25 %
            # slower here (11.9 against 14.6 ms at ELMo-small), which would charge the probe to our side
            latencies = {size: single_sentence_latency(size, args.latency_repeats, tmp, options)
                         for size in ("elmo-small", "original")}
            bandwidth = memory_bandwidth()
            print(f"\nSingle sentence ({LATENCY_TOKENS} tokens, warm, fastest of {args.latency_repeats}, interleaved); "
                  f"memory bandwidth (NumPy copy of {COPY_BYTES >> 20} MiB, measured after) {bandwidth / 1e9:.1f} GB/s")
            for size, latency in latencies.items():
                print_latency(size, *latency, bandwidth)
        sizes = [] if args.no_end_to_end else sorted(SIZES) if args.size == "both" else [args.size]
        counts = {"elmo-small": args.sentences, "original": args.original_sentences}
        for size in sizes:
            end_to_end(size, counts[size], args.rounds, paths, tmp, options)


if __name__ == "__main__":
    main()

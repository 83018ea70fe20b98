"""One biLM training step, ours against PyTorch in the same run: the speed targets of the training step.

    python benchmarks/training_step.py [--rounds 3] [--repeats 10] [--smoke]

Cases (ms per step, tokens/s, and ours / PyTorch where PyTorch has the same step; above 1: ours is faster):
  realistic   word embedding 256 → per direction 2 LSTM layers of 1024 cells projected to 256, dropout 0.1, a full
              softmax over 10,000 words shared by both directions, batch 32 × 20 words (+ ``<S>``/``</S>``: 22
              steps), Adam, each gradient tensor clipped to ``CLIP_NORM``. Ours in float32 (target: ≥ 1.2× PyTorch)
              and in mixed_bfloat16 (where the CPU has native bfloat16; else skipped: emulated, slower for certain),
              and ours with ELMo's cell and projection clip (3.0) in float32.
  sampled     the realistic model with a sampled softmax (``n_negative_samples=1024``) over 100,000 words: ours
              only (PyTorch has no sampled softmax to compare with).
  toy         ``bilm_throughput.training_case`` against ``torch_reference.training_step_seconds`` (target: ≥ 0.75×).

Ours is built and compiled as ``train_bilm`` builds it: a word-level ``BiLMConfig``, ``build_bilm_lm(config,
vocabulary, dtype=precision)``, built, then ``compile_for_training`` (``DenseGradientAdam``, ``clipnorm=CLIP_NORM``,
a TensorFlow graph); one ``train_on_batch`` on a fixed batch of Zipf-distributed word ids
(``sampled_softmax.zipf_batch``) is timed. The PyTorch reference (``torch_reference.realistic_training_step_seconds``)
is the same model, sizes and step: ``nn.LSTM(proj_size=256)`` per direction with dropout 0.1 between layers (as
ours), dropout 0.1 before one shared softmax, the loss the forward plus the backward mean cross-entropy (as
``BiLanguageModel``), Adam at the same learning rate. Keras' ``clipnorm`` clips each gradient tensor to its own
norm, not their global norm, so PyTorch calls ``clip_grad_norm_`` per parameter too. ``nn.LSTM`` cannot clip the
cell or its projection; ``BiLMConfig`` can leave them unclipped (``cell_clip=proj_clip=None``), so the rows against
PyTorch run ours without clips, apples to apples, and one more row shows what ELMo's clipping (3.0) costs.
(PyTorch computes the logits of the 21 positions that have a target; ours computes all 22 and weighs the last
out: 1/22 more softmax work on our side.)

How: ``--rounds`` rounds, each first PyTorch (``torch_reference.py --training``, in a subprocess: PyTorch must not
share the process with TensorFlow) then ours. A round's figure is the fastest of ``--repeats`` steps after two
untimed ones (``timing.fastest_seconds``); the summary gives each side's best over the rounds and the spread
(min–max over rounds): on a shared machine whose speed drifts within minutes, interleaving favours neither side.
tokens/s counts the words of the batch (boundaries excluded). ``--smoke``: tiny sizes, 1 round, 2 repeats (checks
that the script runs, measures nothing worth reading; the toy case keeps its size).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

from bilm_throughput import training_case  # noqa: E402  (the toy step, ours)
from sampled_softmax import zipf_batch  # noqa: E402
from timing import cpu_name, fastest_seconds  # noqa: E402

from elmo_keras._backend import has_native_bfloat16  # noqa: E402
from elmo_keras._quiet import keras  # noqa: E402
from elmo_keras.models import BiLMConfig, build_bilm_lm  # noqa: E402
from elmo_keras.models.fitting import compile_for_training  # noqa: E402
from elmo_keras.models.optimizer import CLIP_NORM  # noqa: E402

ELMO_CLIP = 3.0  # bilm-tf's cell_clip and proj_clip
TOY_TOKENS = 32 * 12  # bilm_throughput.training_case: batch 32, 12 words + boundaries
TORCH = "PyTorch (nn.LSTM, float32)"


@dataclass(frozen=True)
class Sizes:
    """The realistic case's sizes: the model (no cell/projection clip, word input), the vocabularies, the batch."""

    config: BiLMConfig
    vocab_size: int
    sampled_vocab_size: int
    negatives: int
    batch: int
    words: int  # per sentence, without <S> and </S>

    @property
    def tokens(self) -> int:
        return self.batch * self.words

    def torch_arguments(self) -> dict:
        """``torch_reference.realistic_training_step_seconds``' keyword arguments for the same model and step."""
        config = self.config
        return {"vocab_size": self.vocab_size, "embedding_dim": config.embedding_dim, "units": config.units,
                "projection": config.projection_dim or 0, "num_layers": config.num_layers, "dropout": config.dropout,
                "batch": self.batch, "time_steps": self.words + 2, "learning_rate": config.learning_rate,
                "clip_norm": CLIP_NORM}


FULL = Sizes(BiLMConfig(token_input="word", embedding_dim=256, units=1024, projection_dim=256, num_layers=2,
                        cell_clip=None, proj_clip=None, dropout=0.1, learning_rate=1e-3),
             vocab_size=10_000, sampled_vocab_size=100_000, negatives=1024, batch=32, words=20)
SMOKE = Sizes(FULL.config.replace(embedding_dim=16, units=32, projection_dim=16),
              vocab_size=200, sampled_vocab_size=2_000, negatives=64, batch=4, words=5)


def our_cases(sizes: Sizes) -> dict[str, tuple[BiLMConfig, int, str]]:
    """``{row label: (config, vocabulary size, precision)}`` of our realistic-size steps."""
    config = sizes.config
    cases = {"ours, float32": (config, sizes.vocab_size, "float32")}
    if has_native_bfloat16():
        cases["ours, mixed_bfloat16"] = (config, sizes.vocab_size, "mixed_bfloat16")
    cases[f"ours, float32, ELMo clip {ELMO_CLIP}"] = (
        config.replace(cell_clip=ELMO_CLIP, proj_clip=ELMO_CLIP), sizes.vocab_size, "float32")
    cases[f"ours, sampled softmax ({sizes.negatives:,} negatives), vocabulary {sizes.sampled_vocab_size:,}"] = (
        config.replace(n_negative_samples=sizes.negatives), sizes.sampled_vocab_size, "float32")
    return cases


def compiled_step(config: BiLMConfig, vocab_size: int, precision: str, sizes: Sizes):
    """A no-argument function running one ``train_on_batch`` of a model built and compiled as ``train_bilm`` does."""
    keras.utils.set_random_seed(0)
    model = build_bilm_lm(config, vocab_size, dtype=precision)
    model.build((None, None))
    compile_for_training(model, config.learning_rate)  # DenseGradientAdam, clipnorm=CLIP_NORM, a TF graph
    ids = zipf_batch(vocab_size, sizes.batch, sizes.words)  # (batch, words + 2) with <S> and </S>
    return lambda: model.train_on_batch(ids, ids)


def torch_round(repeats: int, sizes: Sizes) -> dict | None:
    """``torch_reference.measure_training``'s figures from a subprocess, or None without PyTorch (or if it failed)."""
    if importlib.util.find_spec("torch") is None:
        print("PyTorch reference: not installed (pip install torch to measure nn.LSTM in the same run)")
        return None
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_reference.py")
    command = [sys.executable, script, "--json", "--repeats", str(repeats),
               "--training", json.dumps(sizes.torch_arguments())]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"PyTorch reference failed:\n{done.stderr[-2000:]}")
        return None
    results = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"PyTorch {results['version']} ({results['threads']} threads), measured in a subprocess: "
          f"realistic {results['realistic_training_step_ms']:.1f} ms, toy {results['training_step_ms']:.1f} ms")
    return results


def our_round(steps: dict, repeats: int, torch_toy_ms: float | None) -> tuple[dict, dict]:
    """``({realistic row: ms}, {toy precision: ms})`` of one round of ours."""
    realistic = {}
    for label, step in steps.items():
        realistic[label] = fastest_seconds(step, repeats) * 1e3
        print(f"  {label:64s} {realistic[label]:9.1f} ms", flush=True)
    toy = training_case(repeats, torch_toy_ms)  # prints its own block, ours against keras LSTM (and PyTorch)
    return realistic, toy


def summary_row(label: str, figures: list[float], tokens: int, reference_ms: float | None, target: str = "") -> str:
    """One line: best ms, spread over rounds, tokens/s, and PyTorch's best ms / ours (above 1: ours is faster)."""
    best = min(figures)
    spread = f"{min(figures):.1f}–{max(figures):.1f}"
    ratio = f"{reference_ms / best:.2f}x" if reference_ms and label != TORCH else ""
    return f"  {label:64s} {best:9.1f} {spread:>17s} {tokens / best * 1e3:10,.0f} {ratio:>7s}  {target}".rstrip()


def print_summary(sizes: Sizes, realistic: dict, toy: dict) -> None:
    """The table the targets are stated in: each side's best over the rounds, the spread, the ratio to PyTorch."""
    config = sizes.config
    header = f"  {'':64s} {'ms/step':>9s} {'spread (ms)':>17s} {'tokens/s':>10s} {'ours/PT':>7s}"
    torch_ms = min(realistic[TORCH]) if realistic.get(TORCH) else None
    print(f"\nsummary: realistic step — embedding {config.embedding_dim}, {config.num_layers} layers of "
          f"{config.units} cells projected to {config.projection_dim} per direction, dropout {config.dropout}, "
          f"full softmax over {sizes.vocab_size:,} words (sampled row: {sizes.sampled_vocab_size:,}), batch "
          f"{sizes.batch} x {sizes.words} words, Adam {config.learning_rate:g}, clipnorm {CLIP_NORM} per tensor")
    print(header)
    for label, figures in realistic.items():
        target = "target >= 1.2x" if label == "ours, float32" else ""
        sampled = "sampled" in label
        print(summary_row(label, figures, sizes.tokens, None if sampled else torch_ms, target))
    if TORCH not in realistic:
        print("  (no PyTorch figures: no ratios)")
    torch_toy_ms = min(toy[TORCH]) if toy.get(TORCH) else None
    print("\nsummary: toy step (bilm_throughput.training_case) — batch 32 x 12 words, Adam 1e-3, no clipping")
    print(header)
    for label, figures in toy.items():
        target = "target >= 0.75x" if label == "ours, float32" else ""
        print(summary_row(label, figures, TOY_TOKENS, torch_toy_ms, target))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of (PyTorch, ours); the summary takes each side's best over the rounds")
    parser.add_argument("--repeats", type=int, default=10, help="timed steps per case and round (the fastest counts)")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, 1 round, 2 repeats: does it run?")
    args = parser.parse_args()
    sizes, rounds, repeats = (SMOKE, 1, 2) if args.smoke else (FULL, args.rounds, args.repeats)
    print(f"{cpu_name()}, Keras {keras.__version__} on {keras.backend.backend()}"
          + (" — SMOKE sizes: not a measurement" if args.smoke else ""))
    steps = {label: compiled_step(*case, sizes) for label, case in our_cases(sizes).items()}  # built once
    if not has_native_bfloat16():
        print("mixed_bfloat16: skipped (no native bfloat16 on this CPU: emulated, slower for certain)")
    realistic, toy = {}, {}  # {row label: [ms per round]}, PyTorch's first
    for round_number in range(1, rounds + 1):
        print(f"\n=== round {round_number} of {rounds}", flush=True)
        measured = torch_round(repeats, sizes)
        if measured:
            realistic.setdefault(TORCH, []).append(measured["realistic_training_step_ms"])
            toy.setdefault(TORCH, []).append(measured["training_step_ms"])
        ours_realistic, ours_toy = our_round(steps, repeats, measured["training_step_ms"] if measured else None)
        for label, ms in ours_realistic.items():
            realistic.setdefault(label, []).append(ms)
        for precision, ms in ours_toy.items():
            toy.setdefault(f"ours, {precision}", []).append(ms)
    print_summary(sizes, realistic, toy)


if __name__ == "__main__":
    main()

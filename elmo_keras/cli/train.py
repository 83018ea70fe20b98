"""The ``train`` command: a biLM trained on the built-in polysemy corpus or a text file, saved as a model directory."""

from __future__ import annotations

import argparse
import math
import os
import sys

from elmo_keras.cli.embed import check_batch_size_argument
from elmo_keras.cli.stopping import EXIT_OK, raise_if_stopped
from elmo_keras.models.persistence import check_save_target
from elmo_keras.models.presets import PRESETS
from elmo_keras.models.training import train_bilm
from elmo_keras.safe_files import refuse_directory_holding


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``train`` command's arguments."""
    parser.add_argument("output", help="model directory to write (model.keras, vocabulary.json, training.json)")
    parser.add_argument("--corpus", metavar="FILE",
                        help="UTF-8 text file, one sentence per line (default: the built-in polysemy corpus)")
    parser.add_argument("--preset", default="toy", choices=sorted(PRESETS), help="model size (default: toy)")
    parser.add_argument("--epochs", type=int, metavar="N", help="training epochs (default: the preset's)")
    parser.add_argument("--learning-rate", type=float, metavar="LR", help="Adam learning rate (default: the preset's)")
    parser.add_argument("--batch-size", type=int, metavar="N", help="sentences per batch (default: the preset's)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--quiet", action="store_true", help="no per-epoch lines")


def check_train_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--epochs`` ≥ 1, a valid ``--batch-size`` and a finite, positive ``--learning-rate`` where given."""
    if args.epochs is not None and args.epochs < 1:
        parser.error(f"--epochs must be >= 1, received {args.epochs}")
    check_batch_size_argument(parser, args.batch_size)
    if args.learning_rate is not None and not (math.isfinite(args.learning_rate) and args.learning_rate > 0):
        parser.error(f"--learning-rate must be a finite number > 0, received {args.learning_rate}")


def read_corpus_file(path: str) -> list[str]:
    """Non-blank lines of a UTF-8 file (a leading byte-order mark is dropped).

    Raises:
        FileNotFoundError: no such file.
        IsADirectoryError: ``path`` is a directory.
        ValueError: not UTF-8 (the message gives the byte offset), or no non-blank line.
    """
    if os.path.isdir(path):
        raise IsADirectoryError(f"corpus {path} is a directory; pass a text file with one sentence per line")
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        raise FileNotFoundError(f"corpus file not found: {path}") from None
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path} is not UTF-8 text (invalid byte at offset {error.start}); "
                         "re-save it as UTF-8") from None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError(f"{path} has no sentences (it is empty or blank)")
    return lines


def check_model_dir_output(path: str, corpus: str | None = None) -> None:
    """Check, before training, that a model directory can be written at ``path`` (new, or an existing directory
    holding at most a model directory's files, which saving replaces) without touching ``corpus``.

    Raises:
        FileExistsError: ``path`` is an existing file, or a directory holding other files.
        OutputOverwritesInputError: ``path`` is or contains the corpus file.
        NotADirectoryError: a parent of ``path`` is a file.
        PermissionError: the directory that would hold it is not writable.
    """
    if os.path.exists(path) and not os.path.isdir(path):
        raise FileExistsError(f"output {path} is an existing file, but train writes a model directory there; "
                              "choose another name or remove the file")
    refuse_directory_holding(path, {"the corpus": corpus})
    check_save_target(path)
    existing = os.path.normpath(path)
    while existing and not os.path.exists(existing):  # the nearest ancestor that exists ("" → the current one)
        existing = os.path.dirname(existing)
    existing = existing or os.curdir
    if not os.path.isdir(existing):
        raise NotADirectoryError(f"cannot create model directory {path}: {existing} is a file, not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise PermissionError(f"cannot write model directory {path}: no permission to write in {existing}")


def run_train(args: argparse.Namespace) -> int:
    """Train a biLM and save it as ``args.output``, printing per-epoch lines and a summary on stderr."""
    check_model_dir_output(args.output, args.corpus)  # before training, which takes a while
    corpus = read_corpus_file(args.corpus) if args.corpus else None

    def report(epoch: int, logs: dict) -> None:
        raise_if_stopped()
        if not args.quiet:
            print(f"epoch {epoch}: loss {logs['loss']:.3f}, forward perplexity {logs['forward_perplexity']:.1f}, "
                  f"backward perplexity {logs['backward_perplexity']:.1f}", file=sys.stderr, flush=True)

    model = train_bilm(corpus, preset=args.preset, epochs=args.epochs, seed=args.seed, callbacks=[report],
                       learning_rate=args.learning_rate, batch_size=args.batch_size)
    model.save(args.output)
    summary = model.training_summary
    line = (f"saved {args.output}: {summary['num_sentences']} sentences, vocabulary {summary['vocab_size']}, "
            f"train perplexity {summary['train']['forward_perplexity']:.1f} / "
            f"{summary['train']['backward_perplexity']:.1f}")
    if "heldout" in summary:
        line += (f", held-out {summary['heldout']['forward_perplexity']:.1f} / "
                 f"{summary['heldout']['backward_perplexity']:.1f}"
                 f" (unigram {summary['heldout_unigram_perplexity']:.1f})")
    print(line + f", {summary['train_seconds']:.0f} s", file=sys.stderr)
    if "requested_batch_size" in summary:
        print(f"note: --batch-size {summary['requested_batch_size']:,} was capped at the corpus size, "
              f"{summary['config']['batch_size']:,} sentences", file=sys.stderr)
    return EXIT_OK

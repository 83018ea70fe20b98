"""Command line: ``python -m elmo_keras COMMAND ...`` (also installed as ``elmo-keras``).

Each subcommand is one ``Command`` entry in ``COMMANDS``: a help line, a function that adds its arguments
to its subparser, and a function ``run(args) -> exit status``. To add a command, write those two functions
and add an entry; ``main`` needs no change.

Commands:
    embed   embed a text file (one whitespace-tokenized sentence per line) into HDF5, AllenNLP's layout.
    train   train a biLM (built-in polysemy corpus or a text file) and save a model directory.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import math
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

from elmo_keras.limits import MAX_BATCH_SIZE
from elmo_keras.models.persistence import check_save_target
from elmo_keras.models.presets import PRESETS
from elmo_keras.models.training import train_bilm
from elmo_keras.pretrained.embedder import ElmoEmbedder, check_embed_paths
from elmo_keras.safe_files import refuse_directory_holding

EXIT_OK, EXIT_ERROR = 0, 1
EXIT_INTERRUPTED, EXIT_TERMINATED = 128 + signal.SIGINT, 128 + signal.SIGTERM  # 130, 143


@dataclass(frozen=True)
class Command:
    """One subcommand: its help line, ``add_arguments(subparser)``, ``run(args) -> exit status`` and an optional
    ``check(parser, args)`` that rejects bad argument combinations with ``parser.error`` before ``run``."""

    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    check: Callable[[argparse.ArgumentParser, argparse.Namespace], None] | None = None  # calls parser.error


class TextProgressBar:
    """``progress(done, total)`` callback drawing ``[#####.....]  500/1000 sentences`` on one line of ``stream``.

    Args:
        stream: where to draw (``sys.stderr``); the line ends when ``done >= total``.
        width: int, characters in the bar. Defaults to 30.
        unit: str, what is counted. Defaults to ``"sentences"``.
    """

    def __init__(self, stream: TextIO, width: int = 30, unit: str = "sentences"):
        self.stream = stream
        self.width = width
        self.unit = unit

    def __call__(self, done: int, total: int) -> None:
        filled = self.width if total == 0 else self.width * done // total
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {done:>{len(str(total))}}/{total} {self.unit}")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


# -- embed ------------------------------------------------------------------------------------------------------


def add_embed_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``embed`` command's arguments."""
    parser.add_argument("input", help="UTF-8 text file, one sentence per line (tokens separated by whitespace)")
    parser.add_argument("output", help="HDF5 file to write: one dataset per line, named by its 0-based index")
    model = parser.add_argument_group("model (either --options and --weights, or --model-dir)")
    model.add_argument("--options", metavar="FILE", help="original ELMo options.json")
    model.add_argument("--weights", metavar="FILE", help="original ELMo weights (HDF5)")
    model.add_argument("--model-dir", metavar="DIR", help="a model directory written by the train command")
    layers = parser.add_mutually_exclusive_group()
    layers.add_argument("--all", dest="output_format", action="store_const", const="all",
                        help="write every layer: (layers, tokens, dim) per sentence (default)")
    layers.add_argument("--top", dest="output_format", action="store_const", const="top",
                        help="write the top layer only: (tokens, dim)")
    layers.add_argument("--average", dest="output_format", action="store_const", const="average",
                        help="write the mean of the layers: (tokens, dim)")
    parser.set_defaults(output_format="all")
    parser.add_argument("--batch-size", type=int, default=64, metavar="N", help="sentences per batch (default 64)")
    parser.add_argument("--stateful", action="store_true",
                        help="carry LSTM state from batch to batch like the original ELMo (default: stateless)")
    parser.add_argument("--execution", choices=("graph", "xla", "eager"), default="graph",
                        help="how the stateless biLM runs: one TF graph (default), XLA-compiled per shape "
                             "(faster on long files after compiling), or eagerly")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run_embed(args: argparse.Namespace) -> int:
    """Embed ``args.input`` into ``args.output``; errors propagate to ``main`` (which prints them)."""
    # before loading the model: the paths exist, and the output destroys nothing that is read
    check_embed_paths(args.input, args.output, {"the options file": args.options, "the weights file": args.weights},
                      {"the model directory": args.model_dir})
    if args.model_dir is not None:
        embedder = ElmoEmbedder.from_model_dir(args.model_dir, stateful=args.stateful, execution=args.execution)
    else:
        embedder = ElmoEmbedder(args.options, args.weights, stateful=args.stateful, execution=args.execution)
    progress = None if args.quiet else TextProgressBar(sys.stderr)
    count = embedder.embed_file(args.input, args.output, output_format=args.output_format,
                                batch_size=args.batch_size, progress=checked_progress(progress))
    print(f"wrote {count} sentences ({args.output_format}) to {args.output}", file=sys.stderr)
    return EXIT_OK


def check_embed_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exactly one model source (``--model-dir`` or ``--options`` + ``--weights``) and a valid ``--batch-size``."""
    files = args.options is not None or args.weights is not None
    if args.model_dir is not None and files:
        parser.error("use either --model-dir or --options/--weights, not both")
    if args.model_dir is None and (args.options is None or args.weights is None):
        parser.error("the embed command needs --options FILE and --weights FILE (or --model-dir DIR)")
    check_batch_size_argument(parser, args.batch_size)


def check_batch_size_argument(parser: argparse.ArgumentParser, value: int | None) -> None:
    """``--batch-size`` is absent or in ``[1, MAX_BATCH_SIZE]`` (else ``parser.error``, exit 2)."""
    if value is not None and value < 1:
        parser.error(f"--batch-size must be >= 1, received {value}")
    if value is not None and value > MAX_BATCH_SIZE:
        parser.error(f"--batch-size must be <= {MAX_BATCH_SIZE:,} (a batch is capped at the corpus size anyway), "
                     f"received {value:,}")


# -- train ------------------------------------------------------------------------------------------------------


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


# -- registry ---------------------------------------------------------------------------------------------------

COMMANDS: dict[str, Command] = {
    "embed": Command("embed a text file into HDF5 (AllenNLP `elmo` layout)", add_embed_arguments, run_embed,
                     check_embed_arguments),
    "train": Command("train a biLM and save a model directory", add_train_arguments, run_train,
                     check_train_arguments),
}


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per entry of ``COMMANDS``."""
    parser = argparse.ArgumentParser(prog="python -m elmo_keras", description="ELMo for Keras 3.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, command in COMMANDS.items():
        sub = subparsers.add_parser(name, help=command.help, description=command.help)
        command.add_arguments(sub)
        sub.set_defaults(command_parser=sub)
    return parser


class Terminated(BaseException):
    """Raised in the main thread on SIGTERM, so that cleanup (``finally``) runs as it does for Ctrl-C."""


_stop_requests: dict[int, threading.Event] = {signal.SIGINT: threading.Event(), signal.SIGTERM: threading.Event()}


@contextlib.contextmanager
def stop_signals_stop_the_command():
    """While inside, SIGTERM raises ``Terminated`` and SIGINT ``KeyboardInterrupt`` (main thread only; the previous
    handlers are restored), and each request is also remembered.

    An exception raised by a signal handler can be lost: when the signal arrives while Python runs a garbage
    collection callback or a ``__del__`` (JAX, when installed beside TensorFlow, registers one), Python prints
    "Exception ignored in ..." and carries on; when it arrives while TensorFlow traces a graph, TensorFlow turns
    it into a ``ValueError`` ("Tried to convert ... to a tensor and failed"). ``raise_if_stopped`` raises the
    remembered request again: the commands call it after every batch and epoch, and ``main`` before reporting an
    error. Inside a garbage collection callback or a ``__del__`` the handler only remembers (raising there would
    print Python's "Exception ignored" report).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        _stop_requests[signum].set()
        if not _inside_a_finaliser(frame):
            raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()

    for event in _stop_requests.values():
        event.clear()
    previous = {signum: signal.signal(signum, handler) for signum in _stop_requests}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
        for event in _stop_requests.values():
            event.clear()


def _inside_a_finaliser(frame) -> bool:
    """Whether ``frame`` or a caller runs a garbage collection callback or a ``__del__`` method."""
    callbacks = {getattr(callback, "__code__", None) for callback in gc.callbacks}
    while frame is not None:
        if frame.f_code in callbacks or frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def raise_if_stopped() -> None:
    """Raise ``Terminated`` or ``KeyboardInterrupt`` again if SIGTERM or SIGINT arrived (inside
    ``stop_signals_stop_the_command``), whatever became of the exception its handler raised."""
    if _stop_requests[signal.SIGTERM].is_set():
        raise Terminated()
    if _stop_requests[signal.SIGINT].is_set():
        raise KeyboardInterrupt()


def checked_progress(progress: Callable[[int, int], None] | None) -> Callable[[int, int], None]:
    """``progress(done, total)`` that first stops an interrupted or terminated command (``raise_if_stopped``)."""

    def call(done: int, total: int) -> None:
        raise_if_stopped()
        if progress is not None:
            progress(done, total)

    return call


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status. User errors (missing or malformed files, bad paths) print one
    line, ``error: ...``, on stderr and return ``EXIT_ERROR``; bad arguments exit with status 2 (argparse).
    Ctrl-C and SIGTERM stop the command after its cleanup (no partial output is left), print one line and
    return ``EXIT_INTERRUPTED`` or ``EXIT_TERMINATED`` (the shells' 128 + signal number)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    command = COMMANDS[args.command]
    if command.check is not None:
        command.check(args.command_parser, args)
    try:
        with stop_signals_stop_the_command():
            try:
                return command.run(args)
            except (OSError, ValueError):
                raise_if_stopped()  # a signal's exception that a library turned into an error
                raise
    except KeyboardInterrupt:
        print(f"interrupted: {args.command} stopped (no incomplete output is left behind)", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated:
        print(f"terminated: {args.command} stopped (no incomplete output is left behind)", file=sys.stderr)
        return EXIT_TERMINATED
    except (OSError, ValueError) as error:  # the commands check paths up front; OSError is the last resort
        message = str(error)
        if isinstance(error, OSError) and error.strerror and error.filename:  # "[Errno 28] ..." from the system
            message = f"{error.filename}: {error.strerror}"
        print("error: " + " ".join(message.splitlines()), file=sys.stderr)
        return EXIT_ERROR

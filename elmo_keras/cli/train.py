"""The ``train`` command: a biLM trained on the built-in polysemy corpus, a text file or streamed text files (a
glob, ``.gz`` shards), optionally data-parallel and resumable from checkpoints, saved as a model directory.

A ``--corpus`` file holds one whitespace-tokenized sentence per line (bilm-tf's format, as ``embed`` reads its
input). It is read in one of two ways, which give the same tokens (``data.corpus_files.file_sentences``), hence
the same vocabulary:

- a plain file (no glob characters, not ``.gz``): loaded in memory;
- a quoted glob (``'shards/*.txt.gz'``), a ``.gz`` file, or any path with ``--stream``: streamed
  (``data.streaming.StreamingCorpus``), never loaded whole; the vocabulary comes from one streaming pass
  (``--min-count``, ``--max-vocab``) unless ``--vocab`` gives a bilm-tf vocabulary file.

Either way a line over ``--max-sentence-tokens`` (the size's, 200) is split into consecutive training sentences,
and a ``--vocab`` leaving over 10 % of the corpus's tokens unknown is warned about (all of them: refused), each
said in one ``warning:`` (``error:``) line (``models.bilm.training_data``).
"""

from __future__ import annotations

import argparse
import glob
import math
import os
import pathlib
import sys
import warnings

from elmo_keras.cli.devices import add_devices_argument, split_cpu_devices
from elmo_keras.cli.embed import check_batch_size_argument
from elmo_keras.cli.stopping import EXIT_OK, Terminated, raise_if_stopped
from elmo_keras.data.corpus_files import corpus_paths, file_sentences
from elmo_keras.models.bilm.presets import LARGE_SIZES, OPTIMIZERS, SIZES, get_size
from elmo_keras.models.bilm.training_sizes import check_cpu_device_count, check_negative_samples, check_replicas
from elmo_keras.safe_files import is_inside, refuse_directory_holding
from elmo_keras.text.vocabulary_files import VocabularyFileError, read_bilm_vocabulary

STRATEGIES = ("mirrored", "data-parallel")


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``train`` command's arguments."""
    parser.add_argument("output", help="model directory to write (model.keras, vocabulary.json, training.json)")
    parser.add_argument("--corpus", metavar="FILE_OR_GLOB",
                        help="UTF-8 text, one whitespace-tokenized sentence per line: a file (loaded in memory) or a "
                             "quoted glob / .gz shards (streamed) (default: the built-in polysemy corpus)")
    parser.add_argument("--stream", action="store_true", help="stream --corpus even if it is one plain file")
    parser.add_argument("--vocab", metavar="FILE", help="a bilm-tf vocabulary file (one token per line, with <S>, "
                                                        "</S>, <UNK>) instead of building one from the corpus")
    parser.add_argument("--min-count", type=int, default=1, metavar="N",
                        help="keep corpus tokens seen at least N times (default 1)")
    parser.add_argument("--max-vocab", type=int, metavar="N", help="keep the N most frequent corpus tokens")
    parser.add_argument("--size", "--preset", dest="size", default="toy",
                        choices=sorted(SIZES) + sorted(LARGE_SIZES),
                        help="training size (default: toy; bilm-tf: the original ELMo's published settings); "
                             "--preset is its alias from rounds 1-3")
    parser.add_argument("--epochs", type=int, metavar="N", help="training epochs (default: the size's)")
    parser.add_argument("--learning-rate", type=float, metavar="LR", help="learning rate (default: the size's)")
    parser.add_argument("--batch-size", type=int, metavar="N", help="sentences per batch (default: the size's)")
    parser.add_argument("--max-sentence-tokens", type=int, metavar="N",
                        help="split longer corpus lines into consecutive training sentences of at most N tokens, "
                             "which bounds each batch's work to batch size x (N + 2) steps (default: the size's, "
                             "200; a warning says how many lines were split)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--negative-samples", type=int, metavar="N",
                        help="train with a sampled softmax over N negatives (default: the size's; full softmax)")
    parser.add_argument("--optimizer", choices=OPTIMIZERS,
                        help="adam (default: every weight moves every step), lazy_adam (Adam on the embedding and "
                             "sampled-softmax rows a step touched only) or adagrad (bilm-tf's, touched rows only; "
                             "bilm-tf used --learning-rate 0.2)")
    parser.add_argument("--strategy", choices=STRATEGIES,
                        help="data-parallel training: mirrored (TensorFlow) or data-parallel (JAX), over every GPU, "
                             "else every CPU device (see --devices); --batch-size is the global batch")
    add_devices_argument(parser)
    parser.add_argument("--checkpoint-dir", metavar="DIR",
                        help="write a checkpoint at every epoch end (and every --checkpoint-every steps) into DIR; "
                             "the latest 2 are kept")
    parser.add_argument("--checkpoint-every", type=int, metavar="N", help="optimizer steps between checkpoints")
    parser.add_argument("--resume", action="store_true",
                        help="continue from the newest checkpoint in --checkpoint-dir (same corpus and settings; "
                             "from scratch if there is none)")
    parser.add_argument("--quiet", action="store_true", help="no per-epoch lines")


def check_train_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--epochs`` ≥ 1, a valid ``--batch-size`` and a finite, positive ``--learning-rate`` where given."""
    if args.epochs is not None and args.epochs < 1:
        parser.error(f"--epochs must be >= 1, received {args.epochs}")
    check_batch_size_argument(parser, args.batch_size)
    if args.learning_rate is not None and not (math.isfinite(args.learning_rate) and args.learning_rate > 0):
        parser.error(f"--learning-rate must be a finite number > 0, received {args.learning_rate}")
    for flag, value, least in (("--min-count", args.min_count, 1), ("--max-vocab", args.max_vocab, 1),
                               ("--negative-samples", args.negative_samples, 1), ("--devices", args.devices, 1),
                               ("--checkpoint-every", args.checkpoint_every, 1),
                               ("--max-sentence-tokens", args.max_sentence_tokens, 1)):
        if value is not None and value < least:
            parser.error(f"{flag} must be >= {least}, received {value}")
    if args.vocab and (args.min_count != 1 or args.max_vocab is not None):
        parser.error("--min-count and --max-vocab choose the tokens of a vocabulary built from the corpus; "
                     "they do not apply with --vocab")
    if args.devices is not None and args.strategy is None:
        parser.error("--devices splits the CPU for data-parallel training: add --strategy mirrored (TensorFlow) "
                     "or --strategy data-parallel (JAX)")
    if args.checkpoint_dir is None and (args.checkpoint_every is not None or args.resume):
        parser.error("--checkpoint-every and --resume need --checkpoint-dir")
    if args.stream and not args.corpus:
        parser.error("--stream needs --corpus")
    check_size_arguments(parser, args)


def check_size_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--negative-samples`` and ``--devices`` against what they can mean and what fits, before any work
    (``models.bilm.training_sizes``; the batch is ``--batch-size`` or the size's). ``train_bilm`` checks the negatives
    against the vocabulary size once it is known."""
    size = get_size(args.size)
    batch = args.batch_size or size.batch_size
    name, origin = ("--batch-size", "") if args.batch_size else ("batch size", f"the {args.size} size's")
    try:
        check_negative_samples(args.negative_samples, size.token_dim, batch, name="--negative-samples")
        if args.devices is not None:
            check_cpu_device_count(args.devices, "--devices")
            check_replicas(args.devices, batch, f"--devices {args.devices:,}", origin, name)
    except ValueError as error:
        parser.error(str(error))


def is_streamed(args: argparse.Namespace) -> bool:
    """Whether ``--corpus`` is streamed: a glob, a ``.gz`` file, or ``--stream`` (else a file loaded in memory)."""
    return bool(args.corpus) and (args.stream or glob.has_magic(args.corpus) or args.corpus.endswith(".gz"))


def read_corpus_file(path: str) -> list[list[str]]:
    """The sentences of a corpus file, read whole: one whitespace-tokenized sentence per line (bilm-tf's format),
    split exactly as a streamed corpus splits them (``data.corpus_files.file_sentences``). The lines are read by the
    rules ``embed`` reads its input by (``text.sentence_files``), except that blank lines are skipped here: nothing is
    tied to a corpus line's number.

    Returns:
        The sentences as token lists, in file order (``train_bilm`` takes them as they are: no tokenizing).

    Raises:
        FileNotFoundError: no such file.
        IsADirectoryError: ``path`` is a directory.
        CorpusFileError: a line that is not UTF-8 or is too long (naming the file and the line).
        ValueError: the file holds no sentence (empty or blank).
    """
    if os.path.isdir(path):
        raise IsADirectoryError(f"corpus {path} is a directory; pass a text file with one sentence per line, or a "
                                f"quoted glob of its files ('{path}/*.txt')")
    sentences = [tokens for file in corpus_paths(path) for _, tokens in file_sentences(file)]
    if not sentences:
        raise ValueError(f"{path} has no sentences (it is empty or blank)")
    return sentences


def check_model_dir_output(path: str, corpus: str | list[str] | None = None,
                           checkpoint_dir: str | None = None) -> None:
    """Check, before training, that a model directory can be written at ``path`` (new, or an existing directory
    holding at most a model directory's files, which saving replaces) without touching ``corpus``.

    Raises:
        FileExistsError: ``path`` is an existing file, or a directory holding other files.
        OutputOverwritesInputError: ``path`` is or contains the corpus file (or one of the streamed files).
        ValueError: ``checkpoint_dir`` is ``path`` or inside it (saving would delete the checkpoints).
        NotADirectoryError: a parent of ``path`` is a file.
        PermissionError: the directory that would hold it is not writable.
    """
    if os.path.exists(path) and not os.path.isdir(path):
        raise FileExistsError(f"output {path} is an existing file, but train writes a model directory there; "
                              "choose another name or remove the file")
    files = corpus if isinstance(corpus, list) else [corpus]
    refuse_directory_holding(path, {"the corpus" if len(files) == 1 else f"corpus file {f}": f for f in files})
    if checkpoint_dir is not None and is_inside(checkpoint_dir, path):
        raise ValueError(f"--checkpoint-dir {checkpoint_dir} lies inside the output directory {path}, which saving "
                         "replaces as a whole; choose a checkpoint directory outside it")
    from elmo_keras.models.persistence import check_save_target  # Keras: heavy, not for --help

    check_save_target(path)
    existing = os.path.normpath(path)
    while existing and not os.path.exists(existing):  # the nearest ancestor that exists ("" → the current one)
        existing = os.path.dirname(existing)
    existing = existing or os.curdir
    if not os.path.isdir(existing):
        raise NotADirectoryError(f"cannot create model directory {path}: {existing} is a file, not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise PermissionError(f"cannot write model directory {path}: no permission to write in {existing}")


def read_vocabulary_argument(args: argparse.Namespace):
    """The ``Vocabulary`` of the bilm-tf vocabulary file ``--vocab``, read with the size's lowercasing.

    Raises:
        VocabularyFileError: the file is malformed, lacks ``<S>``/``</S>``/``<UNK>``, or has capitals while the size
            lowercases words (the file's message, then what to do about the size).
    """
    lowercase = get_size(args.size).lowercase
    try:
        return read_bilm_vocabulary(args.vocab, lowercase=lowercase, require_special_tokens=True)
    except VocabularyFileError as error:
        if not lowercase:
            raise
        # read keeping case: a file with another fault raises that here; else its capitals were the fault
        read_bilm_vocabulary(args.vocab, lowercase=False, require_special_tokens=True)
        raise VocabularyFileError(f"{error}; --size {args.size} lowercases words: write the vocabulary from a "
                                  "lowercased corpus (StreamingCorpus(..., lowercase=True)), or use --size bilm-tf, "
                                  "which keeps case") from None


def run_train(args: argparse.Namespace) -> int:
    """Train a biLM and save it as ``args.output``, printing per-epoch lines and a summary on stderr."""
    from elmo_keras.models.bilm.checkpoint_files import checkpoint_files  # Keras and the backend: heavy, not for --help
    from elmo_keras.models.bilm.checkpoints import refuse_checkpoints_in_corpus
    from elmo_keras.models.bilm.training import train_bilm

    refuse_checkpoints_in_corpus(args.checkpoint_dir, args.corpus, "--checkpoint-dir")  # the glob, as the user gave it
    split_cpu_devices(args.devices)  # first: the backend's runtime must not have started
    streamed = is_streamed(args)
    corpus_files = corpus_paths(args.corpus) if streamed else args.corpus
    check_model_dir_output(args.output, corpus_files, args.checkpoint_dir)  # before training, which takes a while
    vocabulary = read_vocabulary_argument(args) if args.vocab else None
    if streamed:
        corpus = [pathlib.Path(path) for path in corpus_files]  # as resolved and checked above ("~" expanded)
    else:
        corpus = read_corpus_file(args.corpus) if args.corpus else None

    def report(epoch: int, logs: dict) -> None:
        raise_if_stopped()
        if not args.quiet:
            print(f"epoch {epoch}: loss {logs['loss']:.3f}, forward perplexity {logs['forward_perplexity']:.1f}, "
                  f"backward perplexity {logs['backward_perplexity']:.1f}", file=sys.stderr, flush=True)

    try:
        with warnings.catch_warnings():  # restores showwarning
            warnings.showwarning = _one_line_training_data_warnings(warnings.showwarning)
            model = train_bilm(corpus, size=args.size, epochs=args.epochs, seed=args.seed, callbacks=[report],
                               learning_rate=args.learning_rate, batch_size=args.batch_size, vocabulary=vocabulary,
                               min_count=args.min_count, max_size=args.max_vocab,
                               n_negative_samples=args.negative_samples, max_sentence_tokens=args.max_sentence_tokens,
                               optimizer=args.optimizer, strategy=args.strategy, checkpoint_dir=args.checkpoint_dir,
                               checkpoint_every=args.checkpoint_every, resume=args.resume)
    except (KeyboardInterrupt, Terminated):
        if args.checkpoint_dir is not None and checkpoint_files(args.checkpoint_dir):
            print(f"note: the latest checkpoint is {checkpoint_files(args.checkpoint_dir)[0]}; run the same command "
                  "with --resume to continue from it", file=sys.stderr)
        raise
    model.save(args.output)
    print_summary(args, model.training_summary)
    return EXIT_OK


def _one_line_training_data_warnings(show):
    """A ``warnings.showwarning`` printing a ``TrainingDataWarning`` as one ``warning: …`` line on stderr (no source
    line), and passing any other warning to ``show``."""
    from elmo_keras.models.bilm.training_data import TrainingDataWarning  # Keras: heavy, not for --help

    def show_warning(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, TrainingDataWarning):
            print(f"warning: {message}", file=sys.stderr, flush=True)
        else:
            show(message, category, filename, lineno, file, line)

    return show_warning


def print_summary(args: argparse.Namespace, summary: dict) -> None:
    """The lines that end a ``train`` run: where it resumed from, what was saved, perplexities, notes."""
    if "checkpoints" in summary and args.resume:
        print(f"checkpoints: {summary['checkpoints']['note']}", file=sys.stderr)
    sample = (f" (on its first {summary['train_sample_sentences']:,} sentences)"
              if "train_sample_sentences" in summary else "")
    line = (f"saved {args.output}: {summary['num_sentences']} sentences, vocabulary {summary['vocab_size']}, "
            f"train perplexity{sample} {summary['train']['forward_perplexity']:.1f} / "
            f"{summary['train']['backward_perplexity']:.1f}")
    if "heldout" in summary:
        line += (f", held-out {summary['heldout']['forward_perplexity']:.1f} / "
                 f"{summary['heldout']['backward_perplexity']:.1f}"
                 f" (unigram {summary['heldout_unigram_perplexity']:.1f})")
    print(line + f", {summary['train_seconds']:.0f} s", file=sys.stderr)
    if "requested_batch_size" in summary:
        print(f"note: --batch-size {summary['requested_batch_size']:,} was capped at the corpus size, "
              f"{summary['config']['batch_size']:,} sentences", file=sys.stderr)

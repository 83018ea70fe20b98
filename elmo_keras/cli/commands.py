"""The command registry and ``main``: ``python -m elmo_keras COMMAND ...`` (see ``elmo_keras.cli``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from elmo_keras.cli.embed import add_embed_arguments, check_embed_arguments, run_embed
from elmo_keras.cli.explore import add_explore_arguments, run_explore
from elmo_keras.cli.merge_shards import add_merge_arguments, run_merge
from elmo_keras.cli.stopping import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    Terminated,
    raise_if_stopped,
    stop_signals_stop_the_command,
)
from elmo_keras.cli.train import add_train_arguments, check_train_arguments, run_train


@dataclass(frozen=True)
class Command:
    """One subcommand: its help line, ``add_arguments(subparser)``, ``run(args) -> exit status`` and an optional
    ``check(parser, args)`` that rejects bad argument combinations with ``parser.error`` before ``run``. A command
    that ``passes_through`` the arguments it does not know (to another program) finds them in ``args.extra``."""

    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    check: Callable[[argparse.ArgumentParser, argparse.Namespace], None] | None = None  # calls parser.error
    passes_through: bool = False


# -- registry ---------------------------------------------------------------------------------------------------

COMMANDS: dict[str, Command] = {
    "embed": Command("embed a text file into HDF5 (AllenNLP `elmo` layout)", add_embed_arguments, run_embed,
                     check_embed_arguments),
    "merge-shards": Command("join the outputs of embed --shard 1/N … N/N into one HDF5 file", add_merge_arguments,
                            run_merge),
    "train": Command("train a biLM and save a model directory", add_train_arguments, run_train,
                     check_train_arguments),
    "explore": Command("start the explorer (Streamlit; options after it go to `streamlit run`)",
                       add_explore_arguments, run_explore, passes_through=True),
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status. User errors (missing or malformed files, bad paths) print one
    line, ``error: ...``, on stderr and return ``EXIT_ERROR``; bad arguments exit with status 2 (argparse).
    Ctrl-C and SIGTERM stop the command after its cleanup (no partial output is left), print one line and
    return ``EXIT_INTERRUPTED`` or ``EXIT_TERMINATED`` (the shells' 128 + signal number)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    command = COMMANDS[args.command]
    if extra and not command.passes_through:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.extra = extra
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

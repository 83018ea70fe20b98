"""The names ``elmo_keras.cli`` exports (read by ``_lazy.attach_stub``)."""

from elmo_keras.cli.commands import COMMANDS, Command, build_parser, main
from elmo_keras.cli.embed import TextProgressBar, add_embed_arguments, check_embed_arguments, run_embed
from elmo_keras.cli.explore import add_explore_arguments, missing_app_requirements, run_explore, streamlit_arguments
from elmo_keras.cli.merge_shards import add_merge_arguments, run_merge
from elmo_keras.cli.stopping import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    Terminated,
    raise_if_stopped,
    stop_signals_stop_the_command,
)
from elmo_keras.cli.train import add_train_arguments, check_train_arguments, read_corpus_file, run_train

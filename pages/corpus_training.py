"""Corpus & training: runs the page ``elmo_keras/explorer/app/pages/corpus_training.py``."""

from elmo_keras.explorer.app import run_script

run_script("pages/corpus_training.py")

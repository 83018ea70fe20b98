"""Tagging: runs the page ``elmo_keras/explorer/app/pages/tagging.py``."""

from elmo_keras.explorer.app import run_script

run_script("pages/tagging.py")

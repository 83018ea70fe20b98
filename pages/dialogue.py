"""Dialogue: runs the page ``elmo_keras/explorer/app/pages/dialogue.py``."""

from elmo_keras.explorer.app import run_script

run_script("pages/dialogue.py")

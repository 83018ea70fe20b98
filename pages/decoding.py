"""Decoding: runs the page ``elmo_keras/explorer/app/pages/decoding.py``."""

from elmo_keras.explorer.app import run_script

run_script("pages/decoding.py")

"""Probing: runs the page ``elmo_keras/explorer/app/pages/probing.py``."""

from elmo_keras.explorer.app import run_script

run_script("pages/probing.py")

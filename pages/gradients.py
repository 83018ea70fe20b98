"""Vanishing gradients: runs the page ``elmo_keras/explorer/app/pages/gradients.py``."""

from elmo_keras.explorer.app import run_script

run_script("pages/gradients.py")

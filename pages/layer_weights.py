"""Layer weights: runs the page ``elmo_keras/explorer/app/pages/layer_weights.py``."""

from elmo_keras.explorer.app import run_script

run_script("pages/layer_weights.py")

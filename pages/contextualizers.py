"""LSTM vs transformer: runs the page ``elmo_keras/explorer/app/pages/contextualizers.py``."""

from elmo_keras.explorer.app import run_script

run_script("pages/contextualizers.py")

"""Text classification: runs the page ``elmo_keras/explorer/app/pages/classification.py``."""

from elmo_keras.explorer.app import run_script

run_script("pages/classification.py")

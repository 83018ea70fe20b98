"""Context similarity: runs the page ``elmo_keras/explorer/app/pages/context_similarity.py``."""

from elmo_keras.explorer.app import run_script

run_script("pages/context_similarity.py")

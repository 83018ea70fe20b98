"""PCA per layer: runs the page ``elmo_keras/explorer/app/pages/pca.py``."""

from elmo_keras.explorer.app import run_script

run_script("pages/pca.py")

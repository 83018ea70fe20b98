"""The files of a model directory (``save_model_dir`` writes them, ``load_bilm`` reads them), named without Keras."""

MODEL_FILE = "model.keras"
VOCABULARY_FILE = "vocabulary.json"
SUMMARY_FILE = "training.json"
# what a model directory may hold; the last is the temporary file a non-atomic save leaves when interrupted,
# allowed so that saving can still replace such a directory
MODEL_DIR_ENTRIES = (MODEL_FILE, VOCABULARY_FILE, SUMMARY_FILE, MODEL_FILE + ".tmp.keras")

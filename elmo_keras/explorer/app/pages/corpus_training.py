"""Corpus & training: browse, edit or upload the corpus, then train a biLM with live curves and save it."""

from __future__ import annotations

import streamlit as st

from elmo_keras.explorer import charts, state
from elmo_keras.explorer.app.page_common import require_frame
from elmo_keras.explorer.corpus import (
    builtin_corpus,
    corpus_from_table,
    describe,
    editor_table,
    filter_corpus,
    labelled_words,
)
from elmo_keras.explorer.model_store import find_model, models_directory, training_history
from elmo_keras.explorer.training import (
    LiveHistory,
    TrainingSettings,
    epoch_status,
    history_frame,
    preset_names,
    train_and_save,
)
from elmo_keras.explorer.uploads import MAX_UPLOAD_BYTES, parse_corpus_upload

require_frame()

PRESET_KEY, EPOCHS_KEY, RATE_KEY, SEED_KEY = "train_preset", "train_epochs", "train_learning_rate", "train_seed"
NAME_KEY, OVERWRITE_KEY, UPLOAD_KEY = "train_name", "train_overwrite", "corpus_upload"


def preset_defaults() -> None:
    """When the preset changes, show its own epochs and learning rate (a callback: runs before the widgets)."""
    settings = TrainingSettings.for_preset(st.session_state[PRESET_KEY])
    st.session_state[EPOCHS_KEY] = settings.epochs
    st.session_state[RATE_KEY] = settings.learning_rate


def replace_corpus(frame, source: str) -> None:
    st.session_state[state.CORPUS] = frame
    st.session_state[state.CORPUS_SOURCE] = source
    st.session_state[state.CORPUS_VERSION] += 1


corpus = st.session_state[state.CORPUS]
models_dir = models_directory()
st.title("Corpus & training")
st.caption(f"Working corpus: **{st.session_state[state.CORPUS_SOURCE]}** — {describe(corpus)}. The similarity, PCA "
           "and layer-weight pages use it; training uses its train split (held-out perplexity on the held-out split).")

browse, edit, upload = st.tabs(["Browse", "Add or edit", "Upload"])
with browse:
    c = st.columns([1, 1, 1, 2])
    words = c[0].multiselect("word", labelled_words(corpus) + ["(none)"], key="browse_words")
    senses = c[1].multiselect("sense", sorted(s for s in set(corpus["sense"]) if s), key="browse_senses")
    splits = c[2].multiselect("split", ["train", "heldout"], key="browse_splits")
    contains = c[3].text_input("sentence contains", key="browse_contains")
    shown = filter_corpus(corpus, words, senses, splits, contains)
    st.caption(f"{len(shown)} of {len(corpus)} sentences.")
    st.dataframe(shown, hide_index=True, width="stretch", height=360)

with edit:
    st.caption("Edit cells, add rows at the bottom or delete rows, then apply. A row labelled with a word and a "
               "sense must contain the word; new sentences have no POS tags, so the POS task leaves them out.")
    edited = st.data_editor(
        editor_table(corpus), num_rows="dynamic", width="stretch", height=360,
        key=f"corpus_editor_{st.session_state[state.CORPUS_VERSION]}",
        column_config={"split": st.column_config.SelectboxColumn("split", options=["train", "heldout"],
                                                                  default="train"),
                       "sentence": st.column_config.TextColumn("sentence", width="large")},
    )
    a, b = st.columns(2)
    if a.button("Apply edits", type="primary"):
        try:
            replace_corpus(corpus_from_table(edited, corpus), "edited corpus")
            st.session_state[state.MESSAGE] = ("success", "Edits applied to the working corpus.")
            st.rerun()
        except ValueError as error:
            st.error(f"Edits not applied: {error}")
    if b.button("Back to the built-in corpus"):
        replace_corpus(builtin_corpus(), state.BUILT_IN)
        st.rerun()

with upload:
    st.caption(f"A UTF-8 text file with one sentence per line, or a TSV whose header names `sentence` and any of "
               "`word`, `sense`, `split`, `pos` (`word` and `sense` together label a sentence). "
               f"At most {MAX_UPLOAD_BYTES // 2**20} MB.")
    uploaded = st.file_uploader("Corpus file", type=["txt", "tsv"], key=UPLOAD_KEY)
    if uploaded is not None:
        try:
            parsed = parse_corpus_upload(uploaded.name, uploaded.getvalue())
        except ValueError as error:
            st.error(f"Upload refused: {error} The working corpus and the model are unchanged.")
        else:
            frame = parsed.frame
            st.success(f"{uploaded.name}: {describe(frame)}.")
            for warning in parsed.warnings:
                st.warning(warning)
            st.dataframe(frame[["word", "sense", "sentence", "split"]].head(20), hide_index=True, width="stretch")
            if st.button(f"Use {uploaded.name} as the working corpus", type="primary"):
                replace_corpus(frame, f"uploaded {uploaded.name}")
                st.rerun()

st.header("Train a biLM")
st.session_state.setdefault(PRESET_KEY, "toy")
if EPOCHS_KEY not in st.session_state:
    preset_defaults()
c = st.columns([1, 1, 1, 1, 2])
preset = c[0].selectbox("preset", preset_names(), key=PRESET_KEY, on_change=preset_defaults)
epochs = c[1].number_input("epochs", 1, 500, key=EPOCHS_KEY)
learning_rate = c[2].number_input("learning rate", 1e-5, 1.0, key=RATE_KEY, format="%.4f", step=1e-3)
seed = c[3].number_input("seed", 0, 10_000, 0, key=SEED_KEY)
name = c[4].text_input("save as", key=NAME_KEY, placeholder="my-model (letters, digits, - and _)")
overwrite = st.checkbox("overwrite a model with this name", key=OVERWRITE_KEY)

if st.button("Train and save", type="primary"):
    settings = TrainingSettings(preset, int(epochs), float(learning_rate), int(seed))
    bar = st.progress(0.0, text="Building the model; the first epoch also compiles the training step…")
    chart = st.empty()

    def show(epoch, logs):
        bar.progress(history.fraction, text=epoch_status(epoch, settings.epochs, logs))
        chart.plotly_chart(charts.training_curves(history.frame(), settings.epochs), width="stretch",
                           key=f"live_curves_{epoch}")

    history = LiveHistory(settings.epochs, on_epoch=show)
    try:
        ref = train_and_save(corpus, settings, models_dir, name, st.session_state[state.CORPUS_SOURCE],
                             progress=history, overwrite=overwrite)
    except (ValueError, OSError) as error:  # a refused setting, a diverged run, a directory that cannot be replaced
        bar.empty()
        st.error(str(error))
    else:
        st.session_state[state.LAST_TRAINING] = {"name": ref.name, "logs": history.logs, "epochs": settings.epochs}
        st.session_state[state.REQUESTED_MODEL] = ref.name
        st.session_state[state.MESSAGE] = ("success", f"Trained and saved '{ref.name}'; it is now the active model.")
        st.rerun()

last = st.session_state[state.LAST_TRAINING]
active = find_model(models_dir, st.session_state[state.ACTIVE_MODEL])
if last is not None:
    st.subheader(f"Training curves of '{last['name']}'")
    st.plotly_chart(charts.training_curves(history_frame(last["logs"]), last["epochs"]), width="stretch",
                    key="last_curves")
elif active is not None and training_history(active.ref):
    st.subheader(f"Training curves of the active model '{active.name}'")
    st.plotly_chart(charts.training_curves(history_frame(training_history(active.ref))), width="stretch",
                    key="active_curves")

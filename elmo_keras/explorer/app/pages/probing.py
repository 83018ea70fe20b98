"""Probing: what each layer of the treebank biLMs knows about real English (UD English EWT), from shipped results."""

from __future__ import annotations

import streamlit as st

from elmo_keras.explorer.app.page_common import require_frame
from elmo_keras.explorer.probing import charts
from elmo_keras.explorer.probing.service import (
    LANGUAGE_MODELS,
    PERPLEXITY_NOTE,
    REFERENCES,
    missing_results_message,
    probe_results,
    probing_view,
)

PERCENT = st.column_config.NumberColumn(format="percent")
ZOOM_KEY = "probing_zoom"

require_frame()
st.title("Probing")
st.caption("What each layer knows about real English: two biLMs trained on the 12,544 training sentences of the UD "
           "English Web Treebank — `treebank-lstm` (LSTM layers) and `treebank-transformer` (transformer layers) — "
           "frozen, with a linear probe trained on each layer alone (standardized first: each dimension scaled by "
           "the training sample's mean and deviation) to predict a token's tag. Layer 0 is the "
           "context-free char-CNN vector of the token; the layers above it read the sentence.")
results = probe_results()
if results is None:
    st.info(missing_results_message())
    st.stop()
view = probing_view(results)

st.subheader("Are they language models at all? Dev perplexity")
st.caption(PERPLEXITY_NOTE)
st.dataframe(view.perplexities, hide_index=True, width="stretch",
             column_config={"forward": st.column_config.NumberColumn(format="%.1f"),
                            "backward": st.column_config.NumberColumn(format="%.1f")})
st.markdown("\n".join(f"- **{name}**: {description}" for _, name, description in LANGUAGE_MODELS))

st.subheader("Held-out probe accuracy by layer")
st.caption("Per task: the accuracy of a linear softmax probe on each single layer, mean ± std over the seeds (the "
           "thin grey whiskers: lowest and highest seed), the LSTM and the transformer side by side; the dotted line "
           "always answers the most frequent training label. Syntactic tasks are scored on every dev token.")
zoom = st.toggle("Zoom in on the layers", key=ZOOM_KEY,
                 help="Fit the accuracy axis to the layers' spread; the majority line then leaves the chart.")
for task in view.tasks:
    st.plotly_chart(charts.layer_accuracies(view.summary, task, zoom=zoom), width="stretch",
                    key=f"probing_layers_{task}")

st.subheader("What the runs show")
for line in view.findings:
    st.markdown(f"- {line}")
if not view.preferences.empty:
    st.dataframe(view.preferences, hide_index=True, width="stretch",
                 column_config={name: PERCENT for name in ("its accuracy", "runner-up accuracy", "layer 0",
                                                           "majority label", "learned mix")})
    with st.expander("Every layer: accuracy mean, std, min and max over seeds; the learned mix's weight"):
        st.dataframe(view.summary.drop(columns="task"), hide_index=True, width="stretch")
st.markdown(view.semantic_note)

st.markdown("**References**\n" + "\n".join(f"- {reference}" for reference in REFERENCES))
st.caption(view.provenance)

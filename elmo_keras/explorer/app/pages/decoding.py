"""Decoding: greedy, beam search, top-k and nucleus sampling side by side on a toy seq2seq model."""

from __future__ import annotations

import math

import streamlit as st

from elmo_keras.explorer.app.page_common import first_use_models, require_frame
from elmo_keras.explorer.decoding import charts as decoding_charts
from elmo_keras.explorer.decoding.examples import example_titles, example_view
from elmo_keras.explorer.decoding.search_views import step_distribution, tree_layout
from elmo_keras.explorer.decoding.service import (
    BEAM,
    NUCLEUS,
    SEQ2SEQ_MODELS,
    STRATEGIES,
    TOP_K,
    DecodeSettings,
    compare_strategies,
    outputs_table,
    source_choices,
)

require_frame()

SOURCE_KEY, TYPED_KEY, EXAMPLE_KEY = "decoding_source", "decoding_typed", "decoding_example"
STEP_KEY, ROW_KEY = "decoding_dist_step", "decoding_dist_row"


@st.cache_data(show_spinner="Decoding…", max_entries=64)
def decode(_model, ref, source, settings):
    return compare_strategies(_model, source, settings)


@st.cache_data(max_entries=8)
def worked_example(name):
    return example_view(name)


st.title("Decoding strategies")
st.caption("A small GRU encoder-decoder trained on household commands → paraphrases (several valid outputs per "
           "source, so the model learns a real distribution). Every strategy calls the same next-token "
           "distribution; they differ only in what they do with it.")
ref, model = first_use_models(SEQ2SEQ_MODELS)

sources = source_choices()
with st.container(border=True):
    left, right = st.columns(2)
    picked = left.selectbox("Source from the dataset (held-out sources first)", sources, key=SOURCE_KEY)
    typed = right.text_input("…or type a source", key=TYPED_KEY, placeholder="turn off the lamp in the kitchen")
    c = st.columns(8)
    settings = DecodeSettings(
        beam_size=c[0].number_input("beam k", 1, 10, 3, key="decoding_beam"),
        top_k=c[1].number_input("top-k", 1, 50, 5, key="decoding_top_k"),
        top_p=c[2].slider("nucleus p", 0.05, 1.0, 0.9, 0.05, key="decoding_top_p"),
        temperature=c[3].slider("temperature", 0.0, 2.0, 1.0, 0.1, key="decoding_temperature"),
        length_penalty=c[4].slider("α (length)", 0.0, 2.0, 0.0, 0.1, key="decoding_alpha",
                                   help="Beam results ranked by log P / length^α; 0 = plain log-probability."),
        max_len=c[5].number_input("max length", 1, 30, 12, key="decoding_max_len"),
        num_samples=c[6].number_input("samples N", 1, 50, 10, key="decoding_samples"),
        seed=c[7].number_input("seed", 0, 10_000, 0, key="decoding_seed"),
    )
source = typed.strip() or picked
try:
    view = decode(model, ref, source, settings)
except ValueError as error:
    st.error(str(error))
    st.stop()

st.subheader(f"“{view.source}”")
st.caption("Each column: the output (beam: all k finished hypotheses; sampling: N draws), its total log-probability "
           "under the model and the log-probability of every token.")
for column, name in zip(st.columns(len(STRATEGIES)), STRATEGIES):
    result = view.results[name]
    with column:
        st.markdown(f"**{name}**")
        st.caption(result.params)
        best = result.outputs[0]
        st.markdown(f"### {best.text or '∅'}")
        st.caption(f"log P = {best.log_prob:.3f} (P = {math.exp(best.log_prob):.3f}), score {best.score:.3f}")
        st.dataframe(best.tokens, hide_index=True, height=min(300, 38 + 35 * len(best.tokens)),
                     column_config={"log_prob": st.column_config.NumberColumn("log P(token)", format="%.3f")})
        if result.diversity:
            d = result.diversity
            st.markdown(f"{d['distinct']}/{d['samples']} distinct outputs · repetition {d['repetition']:.0%} · "
                        f"mean log P {d['mean_log_prob']:.2f}")
        if len(result.outputs) > 1:
            st.markdown("all k hypotheses" if name == BEAM else f"all {len(result.outputs)} samples")
            columns = ["output", "log P"] + (["score"] if name == BEAM else [])
            st.dataframe(outputs_table(result)[columns], hide_index=True, width="stretch",
                         height=min(400, 38 + 35 * len(result.outputs)))

st.subheader("Beam-search tree")
st.caption("Every step ranks all k × |V| extensions of the live hypotheses together and keeps the global top k "
           "(blue); green reached </S>; grey were pruned (only the best few per parent are drawn).")
beam = view.results[BEAM]
st.plotly_chart(decoding_charts.beam_tree(tree_layout(beam.trace, view.vocabulary),
                                          f"beam search, k = {settings.beam_size}"), width="stretch", key="beam_tree")

st.subheader("One step's distribution and the cut")
st.caption("The model's next-token probabilities (after temperature), most probable first; blue bars survive the "
           "cut and are renormalised, grey ones can never be drawn. The orange line is the running total, marked at "
           "each bar's right edge: the probability of that token and all before it.")
d1, d2, d3 = st.columns(3)
strategy = d1.radio("Sampling strategy", [TOP_K, NUCLEUS], horizontal=True, key="decoding_dist_strategy")
trace = view.results[strategy].trace
# new settings can shorten the trace: keep the remembered step and sample inside the new ranges
st.session_state[STEP_KEY] = min(st.session_state.get(STEP_KEY, 1), len(trace.steps))
step = d2.slider("Step", 1, len(trace.steps), key=STEP_KEY) if len(trace.steps) > 1 else 1
live = len(trace.steps[step - 1].prefixes)
st.session_state[ROW_KEY] = min(st.session_state.get(ROW_KEY, 0), live - 1)
row = d3.number_input("Sample (live at that step)", 0, live - 1, key=ROW_KEY)
distribution = step_distribution(trace, step - 1, int(row), view.vocabulary)
st.plotly_chart(decoding_charts.step_distribution(
    distribution, f"{strategy}, step {step}", top_k=settings.top_k if strategy == TOP_K else None,
    top_p=settings.top_p if strategy == NUCLEUS else None), width="stretch", key="step_distribution")

st.subheader("Classic worked examples")
titles = example_titles()
name = st.selectbox("Example", list(titles), format_func=titles.get, key=EXAMPLE_KEY)
example = worked_example(name)
st.caption(example.description)
for caption, table in example.tables.items():
    st.markdown(f"**{caption}**")
    st.dataframe(table, hide_index=True)
st.success(example.conclusion)
if example.tree is not None:
    st.plotly_chart(decoding_charts.beam_tree(example.tree, "beam search, k = 2"), width="stretch", key="example_tree")
if example.distribution is not None:
    st.plotly_chart(decoding_charts.step_distribution(example.distribution, "nucleus p = 0.9", top_p=0.9),
                    width="stretch", key="example_distribution")

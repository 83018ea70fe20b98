"""The Decoding page's service: the seq2seq model, its first-use training and the side-by-side comparison of greedy,
beam, top-k and nucleus decoding (``service``), beam trees and step distributions (``search_views``), three classic
worked examples (``examples``) and the figures (``charts``)."""

"""The Dialogue page's service: HRED and VHRED, their first-use training, replies and the KL curves
(``service``), and the figures (``charts``)."""

"""Layer 2, plugins: pluggy hook specifications, the manager and how hooks are called.

The manager loads the ``pi_sdk`` entry-point group lazily and counts its changes; it knows no
registry. Imports ``_wire`` and ``_stream`` (the contract types the hookspecs name).
"""

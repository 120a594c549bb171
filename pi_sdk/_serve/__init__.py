"""Layer 7, pi-agent-core's proxy protocol: the client ``stream_proxy`` and the server app.

Imports layers 0-6; the ``pi-sdk serve`` command that runs the server is in ``_cli``.
"""

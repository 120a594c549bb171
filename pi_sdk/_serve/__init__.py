"""Layer 7, pi's serialized-event protocols: pi-agent-core's proxy and pi-ai 1.6's pi-messages.

The clients (``stream_proxy``, the ``pi-messages`` wire API) and the server app answering both.
Imports layers 0-6; the ``pi-sdk serve`` command that runs the server is in ``_cli``.
"""

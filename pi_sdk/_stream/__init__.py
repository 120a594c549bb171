"""Layer 1, one call: the provider contract and the machinery that runs it.

The contract a wire-API implementation fulfils (the plan of an HTTP call, or a stream function),
the event stream a call returns (the event contract, retries before the first byte, timeouts,
aborts), the one read loop that runs a call's plan (server-sent events, decoder-framed bytes,
whole JSON), the message builder decoders write into, incremental tool-argument JSON and the
provider errors with their retry policy. Knows no plugin manager and no registry: what a call
needs from above (payload hooks, key lookup) is handed to it in its scope
(:mod:`pi_sdk._stream.call_scope`). Imports only ``_wire``.
"""

"""Layer 1, one call: the provider contract and the machinery that runs it.

The contract a wire-API implementation fulfils, the event stream a call returns (the event
contract, retries before the first byte, timeouts, aborts), reading a response body (server-sent
events, whole JSON), the message builder decoders write into, incremental tool-argument JSON and
the provider errors with their retry policy. Knows no plugin manager and no registry: what a
call needs from above (payload hooks, key lookup) is handed to it. Imports only ``_wire``.
"""

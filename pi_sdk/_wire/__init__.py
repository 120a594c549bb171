"""Layer 0, the wire: what every other layer speaks, with no I/O, no registry and no plugins.

The public modules ``pi_sdk.types``, ``pi_sdk.errors``, ``pi_sdk.events`` and ``pi_sdk.options``
(the pi-mono JSON types, the exceptions, the twelve stream events, the call options) belong to
this layer; this folder holds the rest of it: the abort signal, the agent's data types and
tool-argument validation, and pure functions over the wire types (tool-call ids, the
cross-provider history transform, context-overflow detection, redaction, cost from prices, token
estimates), plus the namespaces' export tables. Imports nothing of pi-sdk but layer 0.
"""

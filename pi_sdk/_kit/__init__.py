"""Layer 4, the provider kit: helpers a provider package is written with.

Client caches and connection pools, the vendor SDK's first import off the event loop, base-URL
placeholders, provider-option checks, the forced output tool, recorded models for replay, and the
hook factories of a provider package. Exported to provider authors through ``pi_sdk.provider``.
Imports layers 0-3.
"""

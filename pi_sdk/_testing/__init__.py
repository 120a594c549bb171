"""Layer 6, test tooling: the scripted provider and replay of recorded provider traffic.

Exported through ``pi_sdk.testing``. Imports layers 0-5.
"""

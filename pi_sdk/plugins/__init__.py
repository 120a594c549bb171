"""pi_sdk.plugins."""

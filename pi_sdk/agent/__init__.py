"""pi_sdk.agent."""

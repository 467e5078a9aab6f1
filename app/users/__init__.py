"""Accounts: who may call the service, and with which role."""

"""Environments: where instances run. A Docker Engine (a unix socket, tcp with TLS, or ssh) or a
git repository that Argo CD or Flux follows; admins register them, a profile's `environments`
says which its instances may use. This package holds their bodies and their store;
app/api/environments.py serves them."""

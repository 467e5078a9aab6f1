"""`make bench` and `make fault-test`."""

"""A small in-process LRU cache whose entries expire; safe to share between threads."""

import threading
import time
from collections import OrderedDict


class TtlCache:
    def __init__(self, size, clock=time.monotonic):
        self.size, self.clock = size, clock
        self.entries = OrderedDict()  # key -> (value, monotonic expiry)
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            entry = self.entries.get(key)
            if entry is None or entry[1] <= self.clock():
                return None
            self.entries.move_to_end(key)
            return entry[0]

    def put(self, key, value, ttl):
        with self.lock:
            self.entries[key] = (value, self.clock() + ttl)
            self.entries.move_to_end(key)
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)

    def drop(self, key):
        with self.lock:
            self.entries.pop(key, None)

"""A collection whose database goes away at a chosen moment, for tests of what answers say then:
the connection breaks after a write was sent, before or after the server made it, or stays broken
for every call (reads included) until the test brings it back."""

from pymongo.errors import AutoReconnect

from app import state


class Breaking:
    """Stands in for the collection `name` of `app`: `break_after(method)` makes the next such call
    take place and then lose its answer (calling `then()` first, where given), `break_before(method)`
    lose it without taking place, and `away = True` refuses every call until set back."""

    def __init__(self, app, name):
        with app.app_context():
            from app.storage.database import collection

            self.real = collection(name)
        state.of(app).collections[name] = self
        self.after, self.before, self.away = {}, set(), False

    def break_after(self, method, then=None):
        self.after[method] = then or (lambda: None)

    def break_before(self, method):
        self.before.add(method)

    def with_options(self, **_):
        return self

    def __getattr__(self, method):
        real = getattr(self.real, method)
        if not callable(real):
            return real

        def call(*args, **kwargs):
            if self.away or method in self.before:
                self.before.discard(method)
                raise AutoReconnect("connection closed")
            answer = real(*args, **kwargs)
            if method in self.after:
                self.after.pop(method)()
                raise AutoReconnect("connection closed")
            return answer

        return call

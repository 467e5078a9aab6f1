"""The base of every schema: unknown fields are refused, read-only ones named as such."""

import marshmallow as ma


class Schema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    def handle_error(self, error, data, *, many, **kwargs):
        read_only = {f.data_key or name for name, f in self.fields.items() if f.dump_only}
        for name in read_only & set(error.messages):
            error.messages[name] = ["Read-only field."]

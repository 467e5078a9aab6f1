"""The base of every schema (unknown fields refused, read-only ones named as such), and the query
parameter every write takes."""

import marshmallow as ma

from app.model.fields import QueryBoolean


class Schema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    def handle_error(self, error, data, *, many, **kwargs):
        read_only = {f.data_key or name for name, f in self.fields.items() if f.dump_only}
        for name in read_only & set(error.messages):
            error.messages[name] = ["Read-only field."]


class WriteArgs(Schema):
    dryRun = QueryBoolean(
        load_default=False,
        metadata={
            "description": "true: run every check and answer 200 with what the write would store; store nothing."
        },
    )


# flask-smorest's `doc(parameters=...)` replaces the parameters `arguments` documents, so the
# writes that also document a header list this among theirs (apispec expands it into fields).
WRITE_PARAMETERS = {"in": "query", "schema": WriteArgs}

"""The bodies of an import and its report, and the export's query."""

import marshmallow as ma

from app.blueprints.schemas import BlueprintDraftSchema, BlueprintQuery, Entitlement, Tags
from app.imports.formats import FORMATS
from app.model.accounts import EntitledTeams, EntitledUsers, Owner
from app.model.fields import DNS_LABEL, QueryBoolean, StrictBoolean, Text, Trimmed
from app.model.schemas import Schema, WriteArgs

OUTCOMES = ("created", "updated", "unchanged", "skipped", "refused", "conflict", "gone")

MAX_FILES = 1000


class Document(ma.fields.Raw):
    """A catalog as JSON (an object or an array) or as text, never empty."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, (dict, list, str)) or value in ("", [], {}):
            raise ma.ValidationError("Must be a catalog: a JSON object or array, or its text.")
        return value


def _at_most_files(files):
    if len(files) > MAX_FILES:
        raise ma.ValidationError(f"At most {MAX_FILES} files.")


class ImportDefaults(Schema):
    entitlementType = Entitlement(load_default=ma.missing)
    entitledUsers = EntitledUsers(allow_none=False)
    entitledTeams = EntitledTeams(allow_none=False)
    tags = Tags(load_default=ma.missing)
    inactive = StrictBoolean()
    name = Text(
        load_default=ma.missing,
        validate=Trimmed(1, 200, one_line=True),
        metadata={"description": "The blueprint's name, for a `compose` import."},
    )


class ImportSchema(Schema):
    format = ma.fields.String(required=True, validate=ma.validate.OneOf(list(FORMATS)))
    source = Text(
        required=True,
        allow_none=False,
        load_default=ma.missing,
        validate=Trimmed(1, 200, one_line=True),
        metadata={"description": "Where this comes from; importing it again updates what it made."},
    )
    document = Document(
        required=True,
        metadata={
            "type": ["object", "array", "string"],
            "minLength": 1,
            "description": "The catalog (JSON, or its YAML text), or a Compose file's text for `compose`.",
        },
    )
    files = ma.fields.Dict(
        keys=ma.fields.String(validate=ma.validate.Length(1, 1000)),
        values=ma.fields.String(),
        load_default=dict,
        validate=_at_most_files,
        metadata={
            "maxProperties": MAX_FILES,
            "description": "Texts by path: the stack files a catalog names, a Compose file's `.env`.",
        },
    )
    defaults = ma.fields.Nested(ImportDefaults, load_default=dict)
    owner = Owner(load_default=None)


class ImportResultSchema(Schema):
    key = ma.fields.String()
    title = ma.fields.String()
    outcome = ma.fields.String(metadata={"enum": list(OUTCOMES)})
    id = ma.fields.String(allow_none=True)
    problems = ma.fields.List(ma.fields.String())
    notes = ma.fields.List(ma.fields.String())
    diff = ma.fields.String(
        metadata={"description": "A conflict's: what the import would change of the blueprint as changed here."}
    )
    blueprint = ma.fields.Nested(
        BlueprintDraftSchema,
        metadata={"description": "dryRun=true only: the blueprint as it would be stored (its inferred parameters)."},
    )


class ImportArgs(WriteArgs):
    run_async = QueryBoolean(
        data_key="async",
        load_default=False,
        metadata={"description": "true: answer 202 at once with the import's job, whose report is the import's."},
    )


class ImportReportSchema(Schema):
    source = ma.fields.String()
    results = ma.fields.List(ma.fields.Nested(ImportResultSchema))
    counts = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer())
    commit = ma.fields.String(metadata={"description": "A sync's: the commit it imported."})


class ExportQuery(BlueprintQuery):
    class Meta:
        exclude = ("limit", "cursor")


class ExportFormat(Schema):
    format = ma.fields.String(required=True, validate=ma.validate.OneOf(["openshift"]))


class ProfileExportFormat(Schema):
    format = ma.fields.String(required=True, validate=ma.validate.OneOf(["kubernetes"]))
    namespace = ma.fields.String(
        validate=DNS_LABEL,
        metadata={"description": "The namespace the objects name (none: the one they are applied in)."},
    )


class ImportFormatSchema(Schema):
    format = ma.fields.String(metadata={"description": "The name an import's `format` takes."})
    title = ma.fields.String(metadata={"description": "What a person is shown it as."})
    makes = ma.fields.String(metadata={"enum": ["blueprints", "profiles"], "description": "What its templates become."})
    folder = ma.fields.String(
        allow_none=True, metadata={"description": "A platform's: where its repository keeps the templates."}
    )
    marker = ma.fields.String(
        allow_none=True, metadata={"description": "The file that makes a folder one template (Dokploy's)."}
    )
    files = ma.fields.List(
        ma.fields.String(), metadata={"description": "The files a folder of it is read from (`*`: any name)."}
    )


class BlueprintTypeSchema(Schema):
    type = ma.fields.String(metadata={"description": "The format a definition is checked as."})
    aliases = ma.fields.List(ma.fields.String(), metadata={"description": "Every `blueprintType` that names it."})


class BoundsSchema(Schema):
    bodyBytes = ma.fields.Integer(metadata={"description": "The most a request's body holds (but an import's)."})
    importBytes = ma.fields.Integer(metadata={"description": "The most an import's body, or a sync's files, hold."})
    importTemplates = ma.fields.Integer(metadata={"description": "Templates one import makes at most."})
    importFiles = ma.fields.Integer(metadata={"description": "Files an import's `files` hold at most."})
    definitionBytes = ma.fields.Integer(metadata={"description": "The most a definition (`yml`) holds, UTF-8."})


class FormatsSchema(Schema):
    imports = ma.fields.List(ma.fields.Nested(ImportFormatSchema), metadata={"description": "In the contract's order."})
    blueprintTypes = ma.fields.List(ma.fields.Nested(BlueprintTypeSchema))
    bounds = ma.fields.Nested(BoundsSchema)

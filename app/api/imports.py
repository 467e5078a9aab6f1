"""/imports and /exports: other tools' catalogs in, the service's own format out."""

import orjson
from flask import Response, stream_with_context
from flask.views import MethodView

from app.access.auth import current_user, login_required
from app.api.jobs import accepted
from app.blueprints.schemas import WRITABLE, BlueprintSchema
from app.blueprints.storage import store
from app.definitions import format_of, kubernetes
from app.errors import Conflict
from app.http.openapi import Blueprint, headers, problems
from app.http.parser import body_limits
from app.imports import native, openshift, quota, workflow
from app.imports.formats import MAX_IMPORT_BYTES
from app.imports.schemas import (
    ExportFormat,
    ExportQuery,
    ImportArgs,
    ImportReportSchema,
    ImportSchema,
    ProfileExportFormat,
)
from app.jobs import runner
from app.jobs.schemas import JobSchema
from app.joins.to_profile import blueprints_fitting
from app.model.accounts import owner_given
from app.model.yamlguard import YamlError
from app.profiles.storage import store as profiles

blp = Blueprint("imports", __name__, description="Other tools' catalogs brought in as blueprints; the catalog out.")
IMPORT_JSON_DEPTH = 64
EXPORT_PAGE = 200
EXAMPLE = {
    "format": "compose",
    "source": "team-a/web",
    "document": "services:\n  web:\n    image: nginx:${TAG:-1.27}\n"
    "    environment:\n      DB_PASSWORD: ${DB_PASSWORD}\n",
    "files": {".env": "TAG=1.27\n"},
    "defaults": {"name": "web", "entitlementType": "PUBLIC"},
}


@blp.route("/imports")
class Imports(MethodView):
    @login_required(role="member")
    @blp.arguments(ImportSchema(), example=EXAMPLE)
    @blp.arguments(ImportArgs(), location="query", as_kwargs=True)
    @blp.response(200, ImportReportSchema, description="One result per template, in the document's order.")
    @blp.alt_response(202, schema=JobSchema, headers=headers("Location"), description="async=true: its job.")
    @blp.doc(parameters=[{"in": "query", "schema": ImportArgs}])
    @problems(blp, 400, 403, 413, 415, 422)
    @body_limits(MAX_IMPORT_BYTES, IMPORT_JSON_DEPTH)  # the contract's 16 MiB; a catalog holds whole objects
    def post(self, body, dryRun, run_async):
        """Import a catalog: Portainer, OpenShift, a Compose file with its .env, or an export"""
        user = current_user()
        owner = owner_given(user, body.pop("owner"))  # a team's import: a member or maintainer of it
        found = workflow.found(body)  # a document not of its format is the request's 422, not its job's
        if not run_async:
            return workflow.run(body, found, user, dryRun, workflow.Run(owner=owner))
        work = lambda progress: workflow.run(body, found, user, dryRun, workflow.Run(owner, progress=progress))  # noqa: E731
        return accepted(runner.start("import", user, user["username"], work, ImportReportSchema()))


@blp.route("/exports")
class Exports(MethodView):
    @login_required(role="viewer")
    @blp.arguments(ExportQuery(), location="query", as_kwargs=False)
    @blp.response(200, description="Every blueprint the caller may read that the filters keep, streamed.")
    @problems(blp, 404, 422)
    def get(self, args):
        """Export blueprints in the native format, which an import reads back"""
        user = current_user()
        exported = _exported(user, args, blueprints_fitting(args, user))
        return Response(stream_with_context(exported), mimetype="application/json")


@blp.route("/blueprints/<id>/export")
class BlueprintExport(MethodView):
    @login_required(role="viewer")
    @blp.arguments(ExportFormat(), location="query", as_kwargs=True)
    @blp.response(200, description="A Kubernetes blueprint as an OpenShift Template, its parameters mapped back.")
    @problems(blp, 404, 409, 422)
    def get(self, id, format):
        """Export one blueprint in another tool's format"""
        doc = store.readable(id, current_user())
        if format_of(doc.get("blueprintType")) is not kubernetes or doc.get("yml") is None:
            raise Conflict("Only a Kubernetes blueprint with a definition exports as an OpenShift Template.")
        try:
            return openshift.as_template(doc)
        except YamlError as exc:  # stored before today's limits
            raise Conflict(f"The definition does not export: {exc}") from None


@blp.route("/profiles/<id>/export")
class ProfileExport(MethodView):
    @login_required(role="viewer")
    @blp.arguments(ProfileExportFormat(), location="query", as_kwargs=True)
    @blp.response(
        200,
        description="The profile as a Kubernetes ResourceQuota and LimitRange (YAML), which a "
        "`kubernetes-quota` import reads back.",
        content_type="application/yaml",
    )
    @problems(blp, 404, 422)
    def get(self, id, format, namespace=None):
        """Export a profile as Kubernetes' own quota objects"""
        profile = profiles.readable(id, current_user())
        return Response(quota.as_objects(profile, namespace), mimetype="application/yaml")


def _exported(user, args, fits):
    """The export's JSON, a page of blueprints at a time (100,000 never sit in memory together)."""
    yield b'{"format":"native","version":%d,"blueprints":[' % native.VERSION
    position, first, schema = None, True, BlueprintSchema(only=("id", *WRITABLE))
    while True:
        items, position = store.list(user, {**args, "limit": EXPORT_PAGE, "cursor": position}, fits)
        for item in items:
            yield (b"" if first else b",") + orjson.dumps(schema.dump(item))
            first = False
        if position is None:
            break
    yield b"]}"

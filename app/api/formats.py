"""/formats: the import formats with the folders they are read from, the blueprint types with
their aliases, and the size bounds, as the service holds them, so that the page and bpctl read them
here and keep no list of their own."""

from flask import current_app
from flask.views import MethodView

from app.access.auth import login_required
from app.definitions import FORMATS as BLUEPRINT_TYPES
from app.http.openapi import Blueprint, problems
from app.imports import formats
from app.imports.schemas import MAX_FILES, FormatsSchema
from app.model import yamlguard
from app.sources import layouts

blp = Blueprint("formats", __name__, description="What the service reads: formats, types, bounds.")


@blp.route("/formats")
class Formats(MethodView):
    @login_required(role="viewer")
    @blp.response(200, FormatsSchema, description="The formats, types and bounds clients need.")
    @problems(blp)
    def get(self):
        """What the service reads: import formats and their folders, blueprint types, size bounds"""
        types = {}
        for alias, module in BLUEPRINT_TYPES.items():
            types.setdefault(module, []).append(alias)
        imports = [
            {"format": name, "title": fmt.title, "makes": fmt.makes, **layouts.described(name)}
            for name, fmt in formats.FORMATS.items()
        ]
        return {
            "imports": imports,
            "blueprintTypes": [{"type": aliases[0], "aliases": aliases} for aliases in types.values()],
            "bounds": {
                "bodyBytes": current_app.config["MAX_CONTENT_LENGTH"],
                "importBytes": formats.MAX_IMPORT_BYTES,
                "importTemplates": formats.MAX_TEMPLATES,
                "importFiles": MAX_FILES,
                "definitionBytes": yamlguard.MAX_BYTES,
            },
        }

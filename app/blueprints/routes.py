from app import views
from app.api import Blueprint
from app.blueprints.schemas import BlueprintQuery, BlueprintSchema
from app.blueprints.storage import store

blp = Blueprint("blueprints", __name__, url_prefix="/blueprints",
                description="Application templates with a YAML definition and entitlements.")
views.register(blp, BlueprintSchema, store, BlueprintQuery, "blueprint", example={
    "name": "web", "version": "1.0", "description": "An nginx front end", "blueprintType": "compose",
    "yml": "services:\n  web:\n    image: nginx\n", "entitlementType": "PUBLIC"})

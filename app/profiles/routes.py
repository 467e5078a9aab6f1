from app import views
from app.api import Blueprint
from app.profiles.schemas import ProfileQuery, ProfileSchema
from app.profiles.storage import store

blp = Blueprint("profiles", __name__, url_prefix="/profiles",
                description="Named sets of resource caps; at most one default per owner.")
views.register(blp, ProfileSchema, store, ProfileQuery, "profile", example={
    "name": "small", "defaultProfile": True, "memoryCap": "512Mi", "cpuCap": "500m", "containerCap": "10",
    "storageCap": "20Gi"})

"""The floor of this stack: Flask under gunicorn that checks one fixed credential in constant time
and inserts the JSON body with pymongo, with the same journaled write concern as the service."""

import base64
import hmac
import os

from flask import Flask, request
from pymongo import MongoClient, WriteConcern

EXPECTED = "Basic " + base64.b64encode(os.environ["BASELINE_CREDENTIALS"].encode()).decode()

app = Flask(__name__)
items = MongoClient(os.environ["MONGO_URI"]).baseline.get_collection(
    "items", write_concern=WriteConcern("majority", j=True)
)


@app.post("/items")
def create():
    if not hmac.compare_digest(request.headers.get("Authorization", ""), EXPECTED):
        return {"detail": "unauthorized"}, 401
    doc = request.get_json()
    items.insert_one(doc)
    return {"id": str(doc["_id"])}, 201

"""The service as operators run it: gunicorn with gunicorn.conf.py, the embedded database started
by the master under DATA_DIR, stopped on exit, and the data still there after a restart."""
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.embedded import free_port
from tests.http import SocketClient

ROOT = Path(__file__).resolve().parent.parent
ADMIN = ("admin", "change-me-now")
pytestmark = pytest.mark.slow



def admin(**kwargs):
    return {"user": ADMIN[0], "password": ADMIN[1], **kwargs}


class Service:
    def __init__(self, tmp_path):
        self.port = free_port()
        self.env = {**os.environ, "PORT": str(self.port), "DATA_DIR": str(tmp_path / "data"),
                    "ADMIN_USERNAME": ADMIN[0], "ADMIN_PASSWORD": ADMIN[1], "WEB_CONCURRENCY": "2"}
        self.env.pop("MONGO_URI", None)
        self.uri_file = tmp_path / "embedded-mongo.uri"

    def start(self, stderr=subprocess.DEVNULL):
        gunicorn = Path(sys.executable).with_name("gunicorn")
        self.process = subprocess.Popen([str(gunicorn), "-c", "gunicorn.conf.py", "wsgi:app"],
                                        cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=stderr)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, "gunicorn exited during start-up"
            try:
                SocketClient(self.port).get("/profiles/" + "0" * 24, **admin())
                return
            except OSError:
                time.sleep(0.2)
        raise AssertionError("the service did not start")

    def database_pid(self):
        """The embedded database: the master's child that serves the port in the URI file."""
        port_arg = "\0--port\0" + self.uri_file.read_text().split(":")[2].split("/")[0] + "\0"
        for proc in Path("/proc").iterdir():
            try:
                parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
                if parent == self.process.pid and port_arg in (proc / "cmdline").read_text():
                    return int(proc.name)
            except (OSError, ValueError, IndexError):
                continue
        raise AssertionError("no embedded database under the gunicorn master")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        assert self.process.wait(timeout=60) == 0


def test_data_survives_a_restart_and_the_database_stops_with_the_service(tmp_path):
    service = Service(tmp_path)
    service.start()
    try:
        r = SocketClient(service.port).post("/profiles", **admin(json={"name": "kept", "memoryCap": "2Gi"}))
        assert r.status == 201
        created, location = r.json, r.headers["location"]
        assert SocketClient(service.port).post("/profiles", json={}).status == 401
        database = service.database_pid()
    finally:
        service.stop()
    with pytest.raises(ProcessLookupError):  # stopped with the master, not left behind
        for _ in range(100):
            os.kill(database, 0)
            time.sleep(0.1)

    service.start()
    try:
        r = SocketClient(service.port).get(location, **admin())
        assert r.status == 200 and r.json == created
    finally:
        service.stop()


def test_metrics_add_up_across_workers_and_logs_are_json(tmp_path):
    service = Service(tmp_path)
    log_path = tmp_path / "service.log"
    with open(log_path, "wb") as log_file:
        service.start(stderr=log_file)
        try:
            for _ in range(30):  # spread over both workers by the kernel
                assert SocketClient(service.port).post("/profiles", **admin(json={})).status == 201
            metrics = SocketClient(service.port).get("/metrics")
        finally:
            service.stop()
    assert metrics.status == 200
    samples = re.findall(r'^http_requests_total\{method="POST",route="/profiles",status="201"\} (\S+)$',
                         metrics.body.decode(), re.MULTILINE)
    assert [float(n) for n in samples] == [30.0]
    lines = [json.loads(line) for line in log_path.read_text().splitlines() if line.strip()]
    requests = [line for line in lines if line.get("logger") == "app.access"]
    posts = [line for line in requests if line["method"] == "POST"]
    assert len(posts) == 30 and {(line["route"], line["status"], line["user"]) for line in posts} == {
        ("/profiles", 201, "admin")}
    assert {line["logger"] for line in lines} >= {"app.access", "gunicorn.error"}
    assert ADMIN[1] not in log_path.read_text()

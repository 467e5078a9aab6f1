"""Debian's nginx in front of the service as an operator puts it: its own private instance (`nginx
-p DIR -c CONF`), TLS with a self-signed certificate made by openssl, the service under a path
prefix with the forwarded headers set (README, "Behind a reverse proxy")."""

import os
import shutil
import socket
import subprocess
import time

import pytest

from support.ports import free_port

PACKAGES = "Debian's nginx and openssl (make test installs them when run as root)"
CONFIG = """
daemon off;
worker_processes 1;
{user}
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    client_max_body_size 16m;
    server {{
        listen 127.0.0.1:{port} ssl;
        ssl_certificate {dir}/cert.pem;
        ssl_certificate_key {dir}/key.pem;
{locations}
    }}
}}
"""
SERVICE = """
        location {prefix}/ {{
            proxy_pass http://127.0.0.1:{upstream}/;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header X-Forwarded-Host $host;
            proxy_set_header X-Forwarded-Port $server_port;
            proxy_set_header X-Forwarded-Prefix {prefix};
        }}
"""


def listening(process, port, why, seconds=30):
    """Wait until `process` listens on 127.0.0.1:`port`; RuntimeError saying `why()` if it stops
    first, or if it does not listen within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(why())
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {seconds} s")


class Nginx:
    """nginx serving https://127.0.0.1:PORT{prefix}/ from the service on `upstream` (None: no
    service), and the `locations` given (nginx's own text); its certificate names 127.0.0.1 and
    the host `names`."""

    def __init__(self, folder, upstream, prefix="/bp", locations="", names=()):
        binary, openssl = shutil.which("nginx") or "/usr/sbin/nginx", shutil.which("openssl")
        if not (os.path.exists(binary) and openssl):
            assert not os.environ.get("REQUIRE_BROWSER"), f"this test needs {PACKAGES}"
            pytest.skip(f"this test needs {PACKAGES}")
        self.binary, self.folder, self.prefix, self.port = binary, folder, prefix, free_port()
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                openssl,
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-subj",
                "/CN=127.0.0.1",
                "-addext",
                "subjectAltName=" + ",".join(["IP:127.0.0.1", *(f"DNS:{name}" for name in names)]),
                "-keyout",
                str(folder / "key.pem"),
                "-out",
                str(folder / "cert.pem"),
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        user = "user root;" if os.geteuid() == 0 else ""  # as root, workers would be `nobody`, shut out of DIR
        service = SERVICE.format(prefix=prefix, upstream=upstream) if upstream is not None else ""
        text = CONFIG.format(user=user, dir=folder, port=self.port, locations=service + locations)
        (folder / "nginx.conf").write_text(text)
        self.process = None

    @property
    def certificate(self):
        return self.folder / "cert.pem"

    @property
    def base(self):
        return f"https://127.0.0.1:{self.port}{self.prefix}"

    def __enter__(self):
        self.process = subprocess.Popen(
            [self.binary, "-p", str(self.folder), "-c", str(self.folder / "nginx.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        listening(self.process, self.port, lambda: (self.folder / "error.log").read_text())
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(timeout=30)

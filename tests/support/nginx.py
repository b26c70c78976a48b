"""Debian's nginx in front of test servers, with the shipped ``deploy/nginx/paohuzi.conf`` (issue 35): the
file is used as it is, with only what an operator edits changed — the upstream's ``server`` lines, the
ports, the host name, the certificate (self-signed, made with openssl) and the log's path — and run by an
nginx of its own (``-p`` a temporary prefix, ``daemon off``), so nothing of the machine's nginx is touched."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

CONF = Path(__file__).parents[2] / "deploy" / "nginx" / "paohuzi.conf"


def nginx_binary() -> str | None:
    """nginx on the PATH or in /usr/sbin (Debian's), None without one."""
    return shutil.which("nginx") or (str(Path("/usr/sbin/nginx")) if Path("/usr/sbin/nginx").exists() else None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def self_signed(folder: Path, host: str = "localhost") -> tuple[Path, Path]:
    """A certificate and key for ``host`` (openssl, 1 day)."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", f"/CN={host}",
         "-addext", f"subjectAltName=DNS:{host}", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    return cert, key


def render(text: str, upstreams: list[int], http: int, https: int, cert: Path, key: Path, logs: Path) -> str:
    """The shipped configuration with an operator's edits: one ``server`` line per process port, the
    listening ports (the redirect's port with them), ``localhost`` for play.example, the certificate and
    the access log's folder. Raises if the file no longer has what is edited (the test would test nothing)."""
    lines = "".join(f"    server 127.0.0.1:{p} max_fails=0;\n" for p in upstreams)
    out, n = re.subn(r"(    server 127\.0\.0\.1:800\d max_fails=0;[^\n]*\n)+", lines, text)
    edits = [
        (r"listen 80;", f"listen 127.0.0.1:{http};"),
        (r"listen \[::\]:80;\n", ""),
        (r"listen 443 ssl http2;", f"listen 127.0.0.1:{https} ssl http2;"),
        (r"listen \[::\]:443 ssl http2;\n", ""),
        (r'set \$paohuzi_tls_port "";', f'set $paohuzi_tls_port ":{https}";'),
        (r"play\.example", "localhost"),
        (r"/etc/letsencrypt/live/localhost/fullchain\.pem", str(cert)),
        (r"/etc/letsencrypt/live/localhost/privkey\.pem", str(key)),
        (r"/var/log/nginx/", f"{logs}/"),
    ]
    for pattern, replacement in edits:
        out, k = re.subn(pattern, replacement, out)
        n = min(n, k)
    if n == 0:
        raise AssertionError("deploy/nginx/paohuzi.conf no longer has what the test edits")
    return out


class Nginx:
    """nginx with the shipped site for the test's processes: ``https://localhost:{https}``."""

    def __init__(self, folder: Path, upstreams: list[int]) -> None:
        self.folder = folder
        self.upstreams = upstreams
        self.http, self.https = free_port(), free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def origin(self) -> str:
        return f"https://localhost:{self.https}"

    @property
    def access_log(self) -> Path:
        return self.folder / "paohuzi.access.log"

    def __enter__(self) -> Nginx:
        binary = nginx_binary()
        assert binary is not None
        cert, key = self_signed(self.folder)
        temp = self.folder / "temp"
        temp.mkdir()
        temp.chmod(0o777)  # the workers (nobody) buffer there
        site = render(CONF.read_text(), self.upstreams, self.http, self.https, cert, key, self.folder)
        (self.folder / "paohuzi.conf").write_text(site)
        (self.folder / "nginx.conf").write_text(
            f"worker_processes 2;\npid {self.folder}/nginx.pid;\nerror_log {self.folder}/error.log warn;\n"
            "events { worker_connections 1024; }\n"
            f"http {{\n  client_body_temp_path {temp}/body;\n  proxy_temp_path {temp}/proxy;\n"
            f"  fastcgi_temp_path {temp}/fastcgi;\n  uwsgi_temp_path {temp}/uwsgi;\n  scgi_temp_path {temp}/scgi;\n"
            f"  access_log off;\n  include {self.folder}/paohuzi.conf;\n}}\n"
        )
        test = subprocess.run([binary, "-t", "-p", str(self.folder), "-c", str(self.folder / "nginx.conf")],
                              capture_output=True, text=True)
        assert test.returncode == 0, test.stderr
        self.proc = subprocess.Popen(
            [binary, "-p", str(self.folder), "-c", str(self.folder / "nginx.conf"), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.https), timeout=1):
                    return self
            except OSError:
                assert self.proc.poll() is None, self.proc.stderr.read() if self.proc.stderr else ""
                assert time.monotonic() < deadline, "nginx did not listen"
                time.sleep(0.05)

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

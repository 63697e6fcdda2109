"""The sandbox's HTTP side: a GitHub-compatible server on 127.0.0.1.

Standard library only: a ``ThreadingHTTPServer`` in a daemon thread on a free
port. What matters to real clients (PyGithub over requests, httpx), each
measured in github_testing.md:

- every response goes out in ONE socket write: headers and body written
  separately make a keep-alive client wait out Nagle + delayed ACK (~40 ms);
- ``serve_forever(poll_interval=0.05)``, or ``shutdown()`` waits up to 0.5 s;
- no header is ever sent twice: requests joins duplicates with ", " and
  PyGithub then fails in ``int(float("4999, 0"))``;
- ``X-RateLimit-Reset`` is near now: PyGithub's default retry sleeps until it;
- ``Link`` is exactly ``<url>; rel="next", <url>; rel="last"`` (PyGithub splits
  on ", " and "; "), with absolute URLs on the base the request used, and
  query parameters are matched as a set (PyGithub re-sorts them);
- a GET is never answered 202 (PyGithub sleeps 2 s and retries).

Both base URL shapes are served: ``http://127.0.0.1:P`` (GraphQL at
``/graphql``) and ``http://127.0.0.1:P/api/v3`` (GraphQL at ``/api/graphql``).
The token is checked but never stored: records say only whether one was sent.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import asdict
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from syncdesk.services.sandbox import codecov
from syncdesk.services.sandbox.answers import Answer, LiveFault, fault_answer, paginate
from syncdesk.services.sandbox.graphql import api as graphql_api
from syncdesk.services.sandbox.payloads import base as payload
from syncdesk.services.sandbox.rest import routes as rest
from syncdesk.services.sandbox.rest.routing import Call
from syncdesk.services.sandbox.scenario import FaultSpec, Scenario
from syncdesk.services.sandbox.store import Store

JSON = dict[str, Any]
GHES_PREFIX = "/api/v3"
RATE_LIMIT = 5000
_WRITE_METHODS = frozenset({"POST", "PATCH", "PUT", "DELETE"})


class Sandbox:
    """A GitHub-compatible server over one scenario's store. Use ``with Sandbox(s) as sb:``."""

    def __init__(self, scenario: Scenario, host: str = "127.0.0.1", port: int = 0) -> None:
        self.scenario = scenario
        self.store = Store(scenario)
        self._host = host
        self._port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._log_lock = threading.Lock()
        self._writes: list[JSON] = []
        self._requests: list[JSON] = []
        self._faults = [LiveFault(spec) for spec in scenario.faults]
        self._used = 0

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> Sandbox:
        """Bind the port and serve in a daemon thread; returns self."""
        if self._server is not None:
            return self
        server = _Server((self._host, self._port), _Handler)
        server.sandbox = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="syncdesk-sandbox",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and free the port."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses -----------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (after :meth:`start`)."""
        if self._server is None:
            raise RuntimeError("the sandbox is not running")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """The github.com-shaped API base, ``http://127.0.0.1:P``."""
        return f"http://{self._host}:{self.port}"

    @property
    def ghes_url(self) -> str:
        """The GitHub Enterprise-shaped API base, ``http://127.0.0.1:P/api/v3``."""
        return self.base_url + GHES_PREFIX

    @property
    def graphql_url(self) -> str:
        """GraphQL for :attr:`base_url` (PyGithub derives ``/api/graphql`` for ``ghes_url``)."""
        return self.base_url + "/graphql"

    @property
    def codecov_url(self) -> str:
        """Codecov's API v2 root, the analogue of ``https://api.codecov.io/api/v2``."""
        return self.base_url + "/api/v2"

    @property
    def web_url(self) -> str:
        """Where html links point (the scenario's ``web_url``)."""
        return self.scenario.web_url

    # -- records and faults ----------------------------------------------------------------

    @property
    def writes(self) -> list[JSON]:
        """Every write: ``{method, path, body, status, id}`` (path relative to the API root)."""
        with self._log_lock:
            return [dict(w) for w in self._writes]

    @property
    def requests(self) -> list[JSON]:
        """Every request so far: ``{method, path, status, base, query, authenticated}``."""
        with self._log_lock:
            return [dict(r) for r in self._requests]

    def inject_fault(
        self,
        method: str,
        path_regex: str,
        status: int,
        times: int = 1,
        headers: dict[str, str] | None = None,
        body: Any = None,
        apply: bool = False,
        delay: float = 0.0,
    ) -> None:
        """Answer the next ``times`` matching requests with ``status`` (see :class:`FaultSpec`)."""
        spec = FaultSpec(method, path_regex, status, times, headers, body, apply, delay)
        with self._log_lock:
            self._faults.append(LiveFault(spec))

    def take_fault(self, method: str, path: str) -> FaultSpec | None:
        """The first live fault matching a request, consumed once."""
        with self._log_lock:
            for fault in self._faults:
                if fault.matches(method, path):
                    fault.remaining -= 1
                    return fault.spec
        return None

    def record(self, entry: JSON, write: JSON | None) -> None:
        """Append to the request log (and the write log)."""
        with self._log_lock:
            self._requests.append(entry)
            if write is not None:
                self._writes.append(write)

    def charge(self) -> tuple[int, int]:
        """Count one request against the budget: ``(used, reset epoch)``."""
        with self._log_lock:
            self._used += 1
            return self._used, int(time.time()) + 60

    def budget(self) -> tuple[int, int]:
        """``(requests counted so far, reset epoch)`` without counting one."""
        with self._log_lock:
            return self._used, int(time.time()) + 60

    def rate_headers(self, used: int, reset: int, resource: str) -> dict[str, str]:
        """The X-RateLimit-* headers, each exactly once."""
        return {
            "X-RateLimit-Limit": str(RATE_LIMIT),
            "X-RateLimit-Remaining": str(max(0, RATE_LIMIT - used)),
            "X-RateLimit-Reset": str(reset),
            "X-RateLimit-Used": str(used),
            "X-RateLimit-Resource": resource,
        }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    sandbox: Sandbox


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as requests and httpx expect
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the sandbox keeps its own records (and never the token)."""

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_PATCH(self) -> None:
        self._serve()

    def do_PUT(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    # -- one request -----------------------------------------------------------------------

    def _serve(self) -> None:
        sandbox = self.server.sandbox
        parts = urlsplit(self.path)
        query = parse_qs(parts.query, keep_blank_values=True)
        raw = self._read_body()
        if parts.path.startswith("/_sandbox/"):
            self._send(_control(sandbox, parts.path), None)
            return
        prefix, rel = _split_prefix(parts.path)
        authenticated, token_ok = self._auth(sandbox)
        kind = _kind(rel, prefix)
        answer, created = self._answer(sandbox, kind, prefix, rel, query, raw, token_ok)
        used, reset = sandbox.charge() if answer.status != 304 else (0, 0)
        if answer.status != 304:
            resource = "graphql" if kind == "graphql" else "core"
            answer.headers.update(sandbox.rate_headers(used, reset, resource))
        entry = {
            "method": self.command,
            "path": rel,
            "base": prefix,
            "query": parts.query,
            "status": answer.status,
            "authenticated": authenticated,
        }
        write = None
        if self.command in _WRITE_METHODS and kind == "rest":
            write = {
                "method": self.command,
                "path": rel,
                "body": _parse_json(raw),
                "status": answer.status,
                "id": created,
            }
        sandbox.record(entry, write)
        self._send(answer, self.headers.get("If-None-Match"))

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _auth(self, sandbox: Sandbox) -> tuple[bool, bool]:
        """``(a token was sent, the token is acceptable)``; the token is not kept."""
        header = self.headers.get("Authorization") or ""
        scheme, _, credential = header.partition(" ")
        sent = scheme.lower() in ("token", "bearer") and bool(credential.strip())
        valid = sandbox.scenario.valid_tokens
        if valid is None:
            return sent, True
        return sent, sent and credential.strip() in valid

    def _answer(
        self,
        sandbox: Sandbox,
        kind: str,
        prefix: str,
        rel: str,
        query: dict[str, list[str]],
        raw: bytes,
        token_ok: bool,
    ) -> tuple[Answer, int | None]:
        if kind == "codecov":
            status, body = codecov.handle(sandbox.store, rel, query)
            return Answer(status, body, {}), None
        if not token_ok:
            return Answer(401, payload.error(401, "Bad credentials"), {}), None
        fault = sandbox.take_fault(self.command, rel)
        if fault is not None and fault.delay:
            time.sleep(fault.delay)  # a slow server: the client may give up meanwhile
            if not fault.status:
                fault = None
        if fault is not None and not fault.apply:
            return fault_answer(fault), None
        try:
            request_body: Any = json.loads(raw) if raw else None
        except ValueError:
            return Answer(400, payload.error(400, "Problems parsing JSON"), {}), None
        urls = payload.Urls(
            f"http://{self.headers.get('Host') or _host(sandbox)}{prefix}",
            sandbox.scenario.web_url.rstrip("/"),
            sandbox.scenario.owner,
            sandbox.scenario.name,
        )
        if kind == "graphql":
            answer, created = _graphql(sandbox, self.command, urls, request_body), None
        elif rel.rstrip("/") == "/rate_limit":
            used, reset = sandbox.budget()
            answer, created = (
                Answer(200, payload.rate_limit_overview(used, RATE_LIMIT, reset), {}),
                None,
            )
        else:
            call = Call(self.command, rel, query, request_body, urls, sandbox.store)
            reply = rest.dispatch(call)
            answer, created = paginate(reply, urls, rel, query), reply.created_id
        if fault is not None:  # applied, then answered as failed: an ambiguous error
            return fault_answer(fault), created
        return answer, created

    def _send(self, answer: Answer, if_none_match: str | None) -> None:
        headers = {
            "Server": "syncdesk-sandbox",
            "X-GitHub-Media-Type": "github.v3; format=json",
            "X-GitHub-Api-Version-Selected": "2022-11-28",
            "X-GitHub-Request-Id": hashlib.sha1(str(time.time_ns()).encode()).hexdigest()[:16],
            "X-OAuth-Scopes": "repo, read:org",
        }
        status = answer.status
        payload = b"" if answer.body is None else json.dumps(answer.body).encode("utf-8")
        if self.command == "GET" and status == 200:
            etag = f'W/"{hashlib.sha256(payload).hexdigest()[:32]}"'
            headers["ETag"] = etag
            if if_none_match is not None and etag in if_none_match:
                status, payload = 304, b""
        merged: dict[str, str] = {}
        lower: dict[str, str] = {}
        for name, value in [*headers.items(), *answer.headers.items()]:
            # Later values replace earlier ones whatever their case: never a header twice.
            key = lower.setdefault(name.lower(), name)
            merged[key] = value
        if status != 304:
            merged["Content-Type"] = "application/json; charset=utf-8"
            merged["Content-Length"] = str(len(payload))
        phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else ""
        head = f"HTTP/1.1 {status} {phrase}\r\n" + "".join(
            f"{name}: {value}\r\n" for name, value in merged.items()
        )
        self.wfile.write(head.encode("latin-1") + b"\r\n" + payload)  # ONE write
        if (self.headers.get("Connection") or "").lower() == "close":
            self.close_connection = True


def _host(sandbox: Sandbox) -> str:
    return f"127.0.0.1:{sandbox.port}"


def _split_prefix(path: str) -> tuple[str, str]:
    """``(api prefix, path relative to the API root)`` for both base URL shapes."""
    if path == GHES_PREFIX or path.startswith(GHES_PREFIX + "/"):
        return GHES_PREFIX, path[len(GHES_PREFIX) :] or "/"
    return "", path or "/"


def _kind(rel: str, prefix: str) -> str:
    if rel.rstrip("/") in ("/graphql", "/api/graphql") and prefix == "":
        return "graphql"
    if prefix == "" and rel.startswith(codecov.CODECOV_PREFIX):
        return "codecov"
    return "rest"


def _parse_json(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


def _graphql(sandbox: Sandbox, method: str, urls: payload.Urls, body: Any) -> Answer:
    if method != "POST":
        return Answer(404, payload.error(404, "Not Found"), {})
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        return Answer(200, {"errors": [{"message": "A query attribute must be specified"}]}, {})
    variables = body.get("variables")
    result = graphql_api.execute(
        sandbox.store, urls, body["query"], variables if isinstance(variables, dict) else None
    )
    return Answer(200, result, {})


def _control(sandbox: Sandbox, path: str) -> Answer:
    """``/_sandbox/writes`` and ``/_sandbox/requests``: the records, for tests and the demo."""
    if path.rstrip("/") == "/_sandbox/writes":
        return Answer(200, sandbox.writes, {})
    if path.rstrip("/") == "/_sandbox/requests":
        return Answer(200, sandbox.requests, {})
    if path.rstrip("/") == "/_sandbox/faults":
        return Answer(200, [asdict(f.spec) for f in sandbox._faults], {})
    return Answer(404, payload.error(404, "Not Found"), {})

"""A fake Anthropic Messages API on 127.0.0.1, so tests can drive the real ``anthropic`` SDK
without reaching the real API.

The server answers ``POST /v1/messages`` from a script: a queue of replies, taken one per
request (retries included). A reply is one of

- ``(status, json)`` or ``(status, json, headers)``: sent as it is;
- a callable ``(request_body) -> (status, json[, headers])``: asked at request time, so the
  answer can depend on what was sent (the memories of the cluster, the question's kind);
- a number, or :class:`Delay`: wait that many seconds before answering (a timeout for the
  client when longer than its ``timeout``).

When the queue is empty, :attr:`MessagesAPI.default` answers (set it with :meth:`always`);
without one, the server answers 500 ``script exhausted``. Every request is recorded with its
headers, raw bytes and parsed JSON body. 429, 529 and 5xx answers carry ``retry-after-ms: 1``
so the SDK's retries take no time.

Use it as a context manager or through the ``messages_api`` fixture (tests/conftest.py);
the server listens only on 127.0.0.1, on a free port (:attr:`MessagesAPI.url`).
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

Body = Any  # a parsed JSON request body
Answer = tuple[int, Any] | tuple[int, Any, dict[str, str]]

TOOL = "decide"
RETRY_FAST = {"retry-after-ms": "1"}
_MEMORY_TAG = re.compile(r'<memory file="([^"]*)"')


@dataclass(frozen=True)
class Delay:
    """Wait ``seconds`` before answering with ``then`` (a 500 when not given)."""

    seconds: float
    then: Reply | None = None


Reply = Answer | Callable[[Body], Answer] | float | int | Delay


@dataclass(frozen=True)
class Request:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]  # names in lower case
    raw: bytes
    body: Body  # parsed JSON, or None when the body was not JSON

    @property
    def prompt(self) -> str:
        """The text of every user message, joined (the memories the question is about)."""
        return prompt_text(self.body)

    @property
    def files(self) -> list[str]:
        """The memory files the request shows, in order."""
        return memory_files(self.body)


# --- building answers ----------------------------------------------------------------------


def message(
    tool_input: Any = None,
    *,
    text: str | None = None,
    tool_name: str = TOOL,
    input_tokens: int = 120,
    output_tokens: int = 30,
    model: str = "claude-haiku-4-5",
) -> dict[str, Any]:
    """A Messages API response: an optional text block, then (unless ``tool_input`` is None)
    one ``tool_use`` block named ``tool_name`` with ``tool_input``."""
    content: list[dict[str, Any]] = []
    if text is not None:
        content.append({"type": "text", "text": text})
    if tool_input is not None:
        content.append({
            "type": "tool_use", "id": "toolu_01FakeFakeFakeFakeFake", "name": tool_name,
            "input": tool_input,
        })
    return {
        "id": "msg_01FakeFakeFakeFakeFakeFake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if tool_input is not None else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def decide(
    decision: str,
    keep: str = "",
    merged_body: str = "",
    description: str = "",
    reason: str = "judged by the fake model",
    *,
    input_tokens: int = 120,
    output_tokens: int = 30,
) -> tuple[int, dict[str, Any]]:
    """A 200 answer whose ``decide`` tool call carries these five fields."""
    return 200, message(
        {"decision": decision, "keep": keep, "merged_body": merged_body,
         "description": description, "reason": reason},
        input_tokens=input_tokens, output_tokens=output_tokens,
    )


def text_only(text: str = "I think they should be merged.") -> tuple[int, dict[str, Any]]:
    """A 200 answer with no tool call at all."""
    return 200, message(None, text=text)


def error(status: int, kind: str | None = None, text: str = "fake error") -> tuple[int, Any]:
    """An API error body as the real API sends it."""
    kind = kind or {
        400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error",
        500: "api_error", 529: "overloaded_error",
    }.get(status, "api_error")
    return status, {"type": "error", "error": {"type": kind, "message": text}}


# --- reading requests -----------------------------------------------------------------------


def prompt_text(body: Body) -> str:
    """Every text a request's user messages carry."""
    out: list[str] = []
    for msg in (body or {}).get("messages", []) if isinstance(body, dict) else []:
        content = msg.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out += [b.get("text", "") for b in content if isinstance(b, dict)]
    return "\n".join(out)


def memory_files(body: Body) -> list[str]:
    """The ``<memory file="...">`` names in a request's prompt."""
    return _MEMORY_TAG.findall(prompt_text(body))


def all_strings(value: Any) -> Iterator[str]:
    """Every string in a parsed JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from all_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from all_strings(item)


# --- the server -----------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    api: MessagesAPI

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (timeout) leaves a broken pipe behind: not worth a traceback.
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = Request("POST", self.path, {k.lower(): v for k, v in self.headers.items()},
                          raw, body)
        api = self.server.api
        api._record(request)
        if self.path.split("?")[0] != "/v1/messages":
            self._send(404, {"type": "error", "error": {"type": "not_found_error",
                                                        "message": self.path}}, {})
            return
        answer = api._answer(api._next(), body)
        if answer is not None:
            self._send(*answer)

    def do_GET(self) -> None:
        self.server.api._record(
            Request("GET", self.path, {k.lower(): v for k, v in self.headers.items()}, b"", None))
        self._send(404, {"type": "error", "error": {"type": "not_found_error",
                                                    "message": self.path}}, {})

    def _send(self, status: int, payload: Any, headers: dict[str, str]) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
        self.send_response(status)
        sent = {"content-type": "application/json", "request-id": "req_fake"}
        if status == 429 or status >= 500:
            sent.update(RETRY_FAST)
        sent.update({k.lower(): v for k, v in headers.items()})
        for name, value in sent.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


@dataclass
class MessagesAPI:
    """The fake API: a script of replies in, every request recorded."""

    default: Reply | None = None
    requests: list[Request] = field(default_factory=list)
    _script: deque[Reply] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stopping: threading.Event = field(default_factory=threading.Event)
    _server: _Server | None = None
    _thread: threading.Thread | None = None

    # --- scripting

    def push(self, *replies: Reply) -> Self:
        """Queue replies, answered in order, one per request (a retry is a request)."""
        with self._lock:
            self._script.extend(replies)
        return self

    def always(self, reply: Reply) -> Self:
        """The reply for every request once the queue is empty."""
        self.default = reply
        return self

    @property
    def pending(self) -> int:
        """Replies queued and not yet used."""
        with self._lock:
            return len(self._script)

    # --- reading what came in

    @property
    def messages(self) -> list[Request]:
        """The ``POST /v1/messages`` requests, in order."""
        with self._lock:
            return [r for r in self.requests if r.method == "POST" and r.path.startswith(
                "/v1/messages")]

    def sent_text(self) -> str:
        """Everything any request carried: raw bytes and every decoded JSON string."""
        with self._lock:
            parts = [r.raw.decode("utf-8", "replace") for r in self.requests]
            for r in self.requests:
                parts += list(all_strings(r.body))
        return "\n".join(parts)

    # --- life cycle

    @property
    def url(self) -> str:
        assert self._server is not None, "the server is not running"
        return f"http://127.0.0.1:{self._server.server_port}"

    def start(self) -> Self:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.api = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05},
            name="fake-messages-api", daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes every delayed answer
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- used by the handler

    def _record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)

    def _next(self) -> Reply:
        with self._lock:
            if self._script:
                return self._script.popleft()
        if self.default is not None:
            return self.default
        return error(500, "api_error", "fake server: script exhausted")

    def _answer(self, reply: Reply, body: Body) -> tuple[int, Any, dict[str, str]] | None:
        """Resolve a reply into (status, payload, headers); None when the server is stopping."""
        if isinstance(reply, int | float):
            reply = Delay(float(reply))
        if isinstance(reply, Delay):
            if self._stopping.wait(reply.seconds):
                return None
            then = reply.then if reply.then is not None else error(500, "api_error", "late")
            return self._answer(then, body)
        answer: Answer = reply(body) if callable(reply) else reply
        status, payload, *rest = answer
        return int(status), payload, dict(rest[0]) if rest else {}


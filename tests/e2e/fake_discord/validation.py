"""The HTTP front: every request matched to Discord's OpenAPI document, checked, then given to its route."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from typing import Any, Literal

from aiohttp import BodyPartReader, web

from .errors import DiscordError
from .messages import FakeAttachment
from .rate_limits import Verdict, exempt_from_global
from .records import Call, Fault, RecordedRequest
from .state import DiscordState

_HANDLER_FAILURE_STATUS = 400
"""Never 5xx: discord.py sleeps and retries those, which would turn a fake bug into a slow test."""


_SNOWFLAKE_TEXT = re.compile(rb'"[1-9][0-9]{15,19}"')
"""A snowflake as the fake writes one in JSON: a string of 16 to 20 digits."""


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


log = logging.getLogger(__name__)


class RequestFront(DiscordState):
    """Every HTTP request: matched to the spec, checked, recorded, given to its route (or failed on purpose
    by a :class:`Fault`), and the fake's own answer checked too."""

    async def _stray(self, request: web.Request) -> web.StreamResponse:
        self.problem("unhandled", f"{request.method} {request.path_qs} is outside /api/v10 and the gateway")
        return self._json_response(
            404, {"message": "404: Not Found (fake Discord: not an API path)", "code": 0}
        )

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        found = self.attachments.get(int(request.match_info["attachment_id"]))
        if found is None:
            return web.Response(status=404)
        return web.Response(body=found.data, content_type=found.content_type or "application/octet-stream")

    @staticmethod
    def _json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> web.Response:
        if body is None:
            return web.Response(status=status, headers=headers)
        headers = {**(headers or {}), "Content-Type": "application/json"}
        return web.Response(status=status, body=_json_bytes(body), headers=headers)

    def fail(
        self, method: str, template: str, kind: Literal["disconnect", "status", "delay"], **how: Any
    ) -> Fault:
        """Answer the next matching request(s) badly (see :class:`Fault`)."""
        fault = Fault(method, template, kind, **how)
        self.faults.append(fault)
        return fault

    def _fault_for(self, method: str, path: str) -> Fault | None:
        operation, _, _ = self.spec.match(method, path)
        if operation is None:
            return None
        for fault in self.faults:
            if fault.times > 0 and fault.method == method and fault.template == operation.template:
                fault.times -= 1
                return fault
        return None

    async def _api(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        method = request.method
        fault = self._fault_for(method, path)
        if fault is not None and fault.kind == "delay":
            await asyncio.sleep(fault.delay)
        elif fault is not None and fault.kind == "disconnect":
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=500)
        elif fault is not None:
            return self._json_response(fault.status, fault.body)
        if self.latency:
            await asyncio.sleep(self.latency / 2)  # on its way here
        record = RecordedRequest(
            method=method,
            path=path,
            query=dict(request.query),
            template=None,
            body=None,
            files=[],
            at=time.perf_counter(),
        )
        self.requests.append(record)
        verdict = self._rate_limit(method, path, record)
        try:
            if verdict.refused is not None:
                status, body = 429, verdict.refused
            else:
                status, body = await self._handle_api(request, method, path, record)
        finally:
            await self._notify()
        record.status = status
        record.response = body
        record.answered_at = time.perf_counter()
        if self.latency:
            await asyncio.sleep(self.latency / 2)  # on its way back
        return self._json_response(status, body, verdict.headers)

    def _rate_limit(self, method: str, path: str, record: RecordedRequest) -> Verdict:
        """Count the request against Discord's limits at its arrival; a 429 is recorded, and is a
        problem unless the test takes it (``take_problems("ratelimit")``)."""
        if not self.rate_limits.enabled:
            return Verdict({})
        operation, _, values = self.spec.match(method, path)
        if operation is None:
            return Verdict({})
        template = record.template = operation.template
        exempt = exempt_from_global(template, values, self.application_id)
        verdict = self.rate_limits.check(method, path, template, values, exempt=exempt)
        if verdict.hit is not None:
            self.rate_limit_hits.append(verdict.hit)
            self.problem("ratelimit", f"Discord would answer {verdict.hit}")
        return verdict

    async def _handle_api(
        self, request: web.Request, method: str, path: str, record: RecordedRequest
    ) -> tuple[int, Any]:
        where = f"{method} {path}"
        operation, template, values = self.spec.match(method, path)
        if operation is None:
            detail = "no such path" if template is None else f"the spec has {template} but not {method}"
            self.problem("spec", f"{where}: not in Discord's OpenAPI spec ({detail})")
            return 404, {"message": f"404: Not Found (not in the OpenAPI spec: {where})", "code": 0}
        record.template = operation.template
        auth = request.headers.get("Authorization")
        if (operation.requires_auth or auth is not None) and auth != f"Bot {self.token}":
            self.problem("auth", f"{where}: Authorization header {auth!r} is not 'Bot <token>'")
            return 401, {"message": "401: Unauthorized", "code": 0}

        errors: list[str] = []
        if self.validate_requests:
            errors += operation.validate_path(values) + operation.validate_query(request.query.items())
        body: Any = None
        files: list[FakeAttachment] = []
        if request.body_exists:
            media = request.content_type
            try:
                body, files, raw = await self._read_body(request, media)
            except ValueError as exc:
                errors.append(str(exc))
            else:
                body_errors, leniencies = (
                    operation.check_body(media, body, raw) if self.validate_requests else ([], [])
                )
                errors += body_errors
                for note in leniencies:
                    self.leniencies.setdefault(f"{operation.operation_id} {note}", where)
        elif operation.body_required:
            errors.append("the spec requires a request body and none was sent")
        record.body = body
        record.files = files
        if errors:
            for error in errors:
                self.problem("spec", f"{where} ({operation.operation_id}): {error}")
            return 400, {"message": "Invalid Form Body", "code": 50035, "errors": {"_fake": errors}}

        handler = self._routes.get((method, operation.template))
        if handler is None:
            self.problem(
                "unhandled", f"{where} ({operation.operation_id}) is in the spec but the fake lacks it"
            )
            return 404, {
                "message": f"404: Not Found (fake Discord does not implement {operation.operation_id})"
            }
        call = Call(request, method, path, operation.template, values, request.query, body, files, record)
        try:
            reply = await handler(call)
        except DiscordError as exc:
            if exc.kind == "not_found":
                self.not_found.append(f"{where}: {exc.message}")
            else:
                self.problem(
                    exc.kind, f"{where}: Discord would answer {exc.status} {exc.message} (code {exc.code})"
                )
            return exc.status, {"message": exc.message, "code": exc.code}
        except Exception as exc:
            log.exception("fake discord handler failed for %s", where)
            self.problem("internal", f"{where}: the fake crashed: {exc!r}")
            return _HANDLER_FAILURE_STATUS, {"message": f"fake Discord crashed: {exc!r}", "code": 0}
        if self.validate_responses and 200 <= reply.status < 300:
            # Answers differ from test to test mostly in fresh snowflakes, which validate alike; with
            # them masked, the same answer is checked once (a full command sync took 76 ms to check).
            shape = None if reply.body is None else _SNOWFLAKE_TEXT.sub(b'"1"', _json_bytes(reply.body))
            for error in operation.validate_response(reply.status, reply.body, shape):
                self.problem("response", f"{where}: the fake's own answer breaks the spec: {error}")
        return reply.status, reply.body

    async def _read_body(
        self, request: web.Request, media: str
    ) -> tuple[Any, list[FakeAttachment], bytes | None]:
        if media == "application/json":
            raw = await request.read()
            try:
                return json.loads(raw), [], raw
            except ValueError:
                raise ValueError(f"body is not JSON: {raw[:200]!r}") from None
        if media == "multipart/form-data":
            reader = await request.multipart()
            payload: Any = None
            raw_payload: bytes | None = None
            files: list[FakeAttachment] = []
            while (part := await reader.next()) is not None:
                if not isinstance(part, BodyPartReader):
                    raise ValueError("nested multipart bodies are not something discord.py sends")
                data = await part.read()
                name = part.name or ""
                if name == "payload_json":
                    raw_payload = bytes(data)
                    try:
                        payload = json.loads(raw_payload)
                    except ValueError:
                        raise ValueError(f"payload_json is not JSON: {raw_payload[:200]!r}") from None
                elif re.fullmatch(r"files\[\d+\]", name):
                    attachment_id = self.snowflake()
                    filename = part.filename or name
                    url = f"{self.base_url}/attachments/{attachment_id}/{filename}"
                    content_type = part.headers.get("Content-Type")
                    attachment = FakeAttachment(attachment_id, filename, bytes(data), content_type, url)
                    self.attachments[attachment_id] = attachment
                    files.append(attachment)
                else:
                    raise ValueError(f"unexpected multipart field {name!r}")
            if payload is None:
                payload = {}
            return payload, files, raw_payload
        raise ValueError(f"unsupported request body type {media!r}")

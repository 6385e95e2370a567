"""Who may call whom. The services take calls only from each other (README, Settings,
BOXEDIN_SERVICE_SECRET): every call names its calling service and proves it with an HMAC of that
name under the installation's shared secret (BOXEDIN_SERVICE_SECRET, from a Kubernetes Secret), and
each service takes calls only from the services the architecture lets call it. The standard
health service answers anyone, so that Kubernetes' gRPC probes and `boxedin up` can ask.

The calling service's name is then known to the handler (``calling_service()``), so the engine
can hold each caller to what it may do: only the AI plays the computer's turns, only the
matchmaker starts online games."""

from __future__ import annotations

import contextvars
import hashlib
import hmac
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import NoReturn, TypeAlias, TypeVar, cast

import grpc

from .reasons import REASON_KEY

CALLER_HEADER = "boxedin-caller"
PROOF_HEADER = "boxedin-proof"

# Calls go one way: gateway -> engine, matchmaker, stats, AI; matchmaker -> engine; AI -> engine.
# Service -> method -> the services that may call it ("*": every method of the service). A method
# of a listed service that is not listed is refused to everyone.
_GATEWAY = frozenset({"gateway"})
METHOD_CALLERS: dict[str, dict[str, frozenset[str]]] = {
    "engine": {
        "CreateGame": _GATEWAY,
        "GetGame": _GATEWAY | {"ai"},  # the AI reads the games it plays
        "Act": _GATEWAY | {"ai"},  # the AI plays the computer's turns
        "ActBatches": _GATEWAY | {"ai"},  # the same actions, over one stream (engine_router's)
        # Where the same actions go as frames on a plain connection, whose hello is checked as
        # ActBatches is (boxedin.engine.service.act_port).
        "GetActPort": _GATEWAY | {"ai"},
        "GetSavedGame": _GATEWAY,
        "ResumeGame": _GATEWAY,
        "DiscardSavedGame": _GATEWAY,
        "SetVisibility": _GATEWAY,
        "GetUpdates": _GATEWAY,
        "GetFigures": _GATEWAY | {"matchmaker"},
        "CreateOnlineGame": frozenset({"matchmaker"}),
        "GetOnlineGame": _GATEWAY | {"matchmaker"},
        "SetConnected": _GATEWAY,
        "KeepConnected": _GATEWAY,
        "Leave": _GATEWAY,
        "Rematch": _GATEWAY,
        "ShareWatch": _GATEWAY,
        "GetWatchedGame": _GATEWAY,
    },
    "matchmaker": {"*": _GATEWAY},
    "stats": {"*": _GATEWAY},
    # The AI service's computer turns come from the work streams, never from a call; the gateway
    # asks it only for reviews (which read the game from the engine: still one way).
    "ai": {"Review": _GATEWAY},
}
# Service -> every service that may call some method of it.
CALLERS: dict[str, frozenset[str]] = {
    service: frozenset().union(*methods.values()) for service, methods in METHOD_CALLERS.items()
}
SERVICES = frozenset(CALLERS) | _GATEWAY

_HEALTH = "/grpc.health.v1.Health/"
_caller: contextvars.ContextVar[str] = contextvars.ContextVar("boxedin_calling_service", default="")

_Request = TypeVar("_Request")
_Response = TypeVar("_Response")
_AioUnary: TypeAlias = Callable[[_Request, grpc.aio.ServicerContext[_Request, _Response]], Awaitable[_Response]]
# A stream-stream method as a grpc.aio server runs it: reads the requests and writes its answers
# through the context (Engine.ActBatches).
_AioStream: TypeAlias = Callable[
    [AsyncIterator[_Request], grpc.aio.ServicerContext[_Request, _Response]], Awaitable[None]
]


class MissingSecret(RuntimeError):
    pass


def check_secret(secret: str) -> str:
    """The shared secret, or why a service cannot start without one."""
    if len(secret) < 16:
        raise MissingSecret(
            "BOXEDIN_SERVICE_SECRET must be set to the installation's shared secret (16 characters or more): "
            "the services take calls only from each other (`boxedin up` makes one for its run)"
        )
    return secret


def proof(secret: str, caller: str) -> str:
    return hmac.new(secret.encode(), caller.encode(), hashlib.sha256).hexdigest()


def call_metadata(caller: str, secret: str) -> tuple[tuple[str, str], ...]:
    """What a call made as the service ``caller`` carries."""
    if caller not in SERVICES:
        raise ValueError(f"unknown service {caller!r}")
    return ((CALLER_HEADER, caller), (PROOF_HEADER, proof(check_secret(secret), caller)))


def calling_service() -> str:
    """The service that made the call being handled ("" outside a call)."""
    return _caller.get()


def act_as(service: str) -> None:
    """For the project's own tools that call a service's handlers in this process (measurements,
    tests), without a gRPC call: the handlers take what follows as a call from ``service``."""
    if service not in SERVICES:
        raise ValueError(f"unknown service {service!r}")
    _caller.set(service)


class CallerCredentials(grpc.aio.UnaryUnaryClientInterceptor):
    """Adds the calling service's name and proof to every call on a channel."""

    def __init__(self, caller: str, secret: str) -> None:
        self._metadata = call_metadata(caller, secret)

    async def intercept_unary_unary(self, continuation, client_call_details, request):  # type: ignore[no-untyped-def]
        metadata = grpc.aio.Metadata(*(client_call_details.metadata or ()), *self._metadata)
        details = grpc.aio.ClientCallDetails(
            client_call_details.method,
            client_call_details.timeout,
            metadata,
            client_call_details.credentials,
            client_call_details.wait_for_ready,
        )
        return await continuation(details, request)


class CallerCheck(grpc.aio.ServerInterceptor):
    """Refuses a call whose caller is not proven or not one this service takes calls from."""

    def __init__(self, service: str, secret: str) -> None:
        self.service = service
        self._methods = METHOD_CALLERS[service]
        secret = check_secret(secret)
        self._proofs = {caller: proof(secret, caller) for caller in SERVICES}

    def _refusal(self, method: str, metadata: tuple[tuple[str, str | bytes], ...]) -> tuple[grpc.StatusCode, str] | str:
        """The proven caller, or the status and message to refuse the call with."""
        given = {key: value for key, value in metadata if isinstance(value, str)}
        caller = given.get(CALLER_HEADER, "")
        claimed = given.get(PROOF_HEADER, "")
        if not caller or not claimed:
            return grpc.StatusCode.UNAUTHENTICATED, "calls are taken only from Boxed In's own services"
        expected = self._proofs.get(caller)
        if expected is None:
            return grpc.StatusCode.UNAUTHENTICATED, "calls are taken only from Boxed In's own services"
        if not hmac.compare_digest(expected, claimed):
            return grpc.StatusCode.UNAUTHENTICATED, "the caller's proof does not match this installation's secret"
        allowed = self._methods.get(method, self._methods.get("*", frozenset()))
        if caller not in allowed:
            return grpc.StatusCode.PERMISSION_DENIED, f"the {caller} may not call {self.service}.{method}"
        return caller

    def check(self, method: str, caller: str, claimed: str) -> tuple[grpc.StatusCode, str] | str:
        """What a caller of ``method`` that is not a gRPC call (the engine's action port) gets:
        its proven name, or the status and message it is refused with."""
        return self._refusal(method, ((CALLER_HEADER, caller), (PROOF_HEADER, claimed)))

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[_Request, _Response] | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[_Request, _Response] | None:
        handler = await continuation(handler_call_details)
        if handler is None or handler_call_details.method.startswith(_HEALTH):
            return handler
        metadata = handler_call_details.invocation_metadata or ()
        verdict = self._refusal(handler_call_details.method.rsplit("/", 1)[-1], metadata)

        async def refuse(
            context: grpc.aio.ServicerContext[_Request, _Response], refusal: tuple[grpc.StatusCode, str]
        ) -> NoReturn:
            status, message = refusal
            reason = "unauthenticated" if status == grpc.StatusCode.UNAUTHENTICATED else "not_allowed"
            await context.abort(status, message, trailing_metadata=((REASON_KEY, reason),))
            raise AssertionError("unreachable: abort raises")

        if handler.stream_stream is not None:
            stream = cast("_AioStream[_Request, _Response]", handler.stream_stream)

            async def checked_stream(
                requests: AsyncIterator[_Request], context: grpc.aio.ServicerContext[_Request, _Response]
            ) -> None:
                if isinstance(verdict, tuple):
                    await refuse(context, verdict)
                # The calls of the stream run as tasks started from here: they inherit the caller.
                token = _caller.set(verdict)
                try:
                    await stream(requests, context)
                finally:
                    _caller.reset(token)

            return grpc.stream_stream_rpc_method_handler(
                checked_stream,
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_unary is None:
            return None  # no other kind of method is served unchecked (gRPC answers UNIMPLEMENTED)
        inner = cast("_AioUnary[_Request, _Response]", handler.unary_unary)

        async def checked(request: _Request, context: grpc.aio.ServicerContext[_Request, _Response]) -> _Response:
            if isinstance(verdict, tuple):
                await refuse(context, verdict)
            token = _caller.set(verdict)
            try:
                return await inner(request, context)
            finally:
                _caller.reset(token)

        return grpc.unary_unary_rpc_method_handler(
            checked,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )

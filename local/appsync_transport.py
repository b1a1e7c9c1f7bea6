"""One port for both of AppSync Events' endpoints: websockets' server, taught to read a POST with its body."""

from __future__ import annotations

from collections.abc import Generator

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, parse_headers, parse_line
from websockets.server import ServerProtocol

from local.appsync_protocol import MAX_PUBLISH_BYTES


class HttpOrWebSocketProtocol(ServerProtocol):
    """websockets' server protocol, also reading a POST request with its body (websockets reads GET handshakes
    only, and refuses a body): the POST reaches process_request as a Request with a `body`, and the answer goes
    back as an HTTP response, as a refused handshake's would. One port then serves both of AppSync's endpoints."""

    def parse(self) -> Generator[None]:
        try:
            request = yield from self._read_request()
        except Exception as exc:  # not HTTP, or too large: close, as websockets does
            self.handshake_exc = exc
            self.send_eof()
            self.parser = self.discard()
            next(self.parser)
            yield
            return
        self.events.append(request)
        yield from super(ServerProtocol, self).parse()  # the frames, once the handshake is done

    def _read_request(self) -> Generator[None, None, Request]:
        from websockets.exceptions import InvalidHeader
        from websockets.http11 import RequestLineTooLong

        line = yield from parse_line(self.reader.read_line, RequestLineTooLong)
        method, path, protocol = line.decode("ascii").split(" ", 2)
        headers = yield from parse_headers(self.reader.read_line)
        body = b""
        if method == "POST":
            try:
                length = int(headers.get("Content-Length", "0"))
            except ValueError:
                raise InvalidHeader("Content-Length") from None
            if length > MAX_PUBLISH_BYTES + 64 * 1024:
                raise ValueError("publish request too large")
            body = bytes((yield from self.reader.read_exact(length)))
        elif not set(headers.get_all("Content-Length")) <= {"0"}:
            raise ValueError("unsupported request body")
        request = Request(path, headers, method, protocol)
        request.body = body  # type: ignore[attr-defined]
        return request


class Connection(ServerConnection):
    def __init__(self, protocol: ServerProtocol, *args, **kwargs) -> None:
        # The protocol object's parser is a generator started in its constructor, before any byte has arrived:
        # restart it as the subclass's.
        protocol.__class__ = HttpOrWebSocketProtocol
        protocol.parser = protocol.parse()
        next(protocol.parser)
        super().__init__(protocol, *args, **kwargs)


def text_frame_header(length: int) -> bytes:
    """RFC 6455 header of a final, unmasked text frame (what a server sends) carrying `length` bytes."""
    if length < 126:
        return bytes((0x81, length))
    if length < 65536:
        return bytes((0x81, 126)) + length.to_bytes(2, "big")
    return bytes((0x81, 127)) + length.to_bytes(8, "big")

"""A TCP relay between Engram and a server: counts HTTP requests, adds latency, or
black-holes the path (accepts connections and never answers), switchable at run time.

Used by the remote-storage fault tests and ``bench/remote_roundtrips.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from typing import Literal

__all__ = ["Relay"]

Mode = Literal["forward", "blackhole"]
# A request line at the start of a chunk the client sends: how HTTP/1.1 requests are
# counted (bodies are JSON, never a request line).
_REQUEST_LINE = re.compile(rb"(?:^|\r\n)(?:GET|POST|PUT|DELETE|HEAD) /[^\r\n]* HTTP/1\.[01]\r\n")


class Relay:
    def __init__(self, target_host: str, target_port: int, delay_s: float = 0.0) -> None:
        self.target = (target_host, target_port)
        self.delay_s = delay_s
        self.mode: Mode = "forward"
        self.requests = 0
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Relay:
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        async def shutdown() -> None:
            if self._server is not None:
                self._server.close()
            for task in list(self._tasks):
                task.cancel()

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def cut_connections(self) -> None:
        """Drop every open connection (a network path that changed under the client)."""

        async def cut() -> None:
            for task in list(self._tasks):
                task.cancel()

        asyncio.run_coroutine_threadsafe(cut(), self._loop).result(10)

    def __enter__(self) -> Relay:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the loop -------------------------------------------------------------------------

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)

        async def open_server() -> None:
            self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
            self.port = self._server.sockets[0].getsockname()[1]
            self._ready.set()

        self._loop.run_until_complete(open_server())
        self._loop.run_forever()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)  # type: ignore[arg-type]
        try:
            if self.mode == "blackhole":
                while await reader.read(65536):  # swallow everything, answer nothing
                    pass
                return
            up_reader, up_writer = await asyncio.open_connection(*self.target)
            try:
                await asyncio.gather(
                    self._pipe(reader, up_writer, count=True),
                    self._pipe(up_reader, writer, count=False),
                )
            finally:
                up_writer.close()
        except (ConnectionError, OSError, asyncio.CancelledError):
            pass
        finally:
            self._tasks.discard(task)  # type: ignore[arg-type]
            with contextlib.suppress(Exception):
                writer.close()

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, count: bool
    ) -> None:
        while data := await reader.read(65536):
            if count:
                found = len(_REQUEST_LINE.findall(data))
                self.requests += found
                if found and self.delay_s:
                    # One delay per request on the way out stands for the round trip.
                    await asyncio.sleep(self.delay_s)
                if self.mode == "blackhole":
                    continue
            writer.write(data)
            await writer.drain()
        writer.close()

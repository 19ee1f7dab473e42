"""SIGTERM with live connections open (an SSE stream, the camera's MJPEG): each stream holds a waitress
worker, which waitress waited 5 s for ("N thread(s) still running"), then closed what the stream wrote to
next (an OSError traceback on stderr, which failed the concurrency soak). Now the streams end first and
the table stops at once."""

from __future__ import annotations

import http.client
import signal
import time
from urllib.parse import urlsplit

from tests.web.table_process import running_table


def test_sigterm_ends_the_live_streams_then_the_table_without_waiting_for_them(tmp_path):
    with running_table(tmp_path, heartbeat_s=5.0) as table:
        where = urlsplit(table.url)
        deadline = time.monotonic() + 60
        while True:                                              # the camera's first frame
            conn = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
            conn.request("GET", "/api/camera.jpg")
            if conn.getresponse().status == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        opened = []
        for path in ("/api/events", "/api/camera.mjpeg"):
            conn = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
            conn.request("GET", path)
            reply = conn.getresponse()
            assert reply.status == 200 and reply.read1(64)          # streaming
            opened.append(reply)
        table.process.send_signal(signal.SIGTERM)
        assert table.process.wait(30) == 0
        said = table.process.stderr.read() if table.process.stderr else ""
        assert "still running" not in said and "Traceback" not in said, said
        for reply in opened:                  # each stream was ended by the table (read to its end)
            while reply.read1(65536):
                pass

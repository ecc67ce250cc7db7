/**
 * The socket idle timer (notes §1; issue "slow GETs are cut off"): a request in a handler is never
 * cut by it, however slow the handler or long the stream, and the request either completes or gets
 * its documented error. Silent sockets stay bounded: once the app has answered (or its stream has
 * ended), an idle keep-alive socket is closed again, and a body that stalls gets 408.
 *
 * Runs the real front door with a 1 s idle timeout (Bun checks it on a 4 s tick, so an unguarded
 * socket is closed within about 4 s).
 */
import { describe, expect, test } from "bun:test";
import { startFrontDoor } from "../helpers/front-door.ts";
import { rawExchange, rawRequest } from "../helpers/raw-http.ts";
import { until } from "../helpers/until.ts";

/** Longer than Bun takes to close an idle socket with a 1 s timeout (its next 4 s tick). */
const PAST_IDLE_MS = 5000;

/** A keep-alive connection: sends one request, collects what comes back, and notices the server closing it. */
async function keepAlive(port: number, request: string) {
  let received = "";
  let closed = false;
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      open(s) {
        s.write(request);
      },
      data(_s, chunk) {
        received += chunk.toString();
      },
      close() {
        closed = true;
      },
      error() {
        closed = true;
      },
    },
  });
  return {
    received: () => received,
    closed: () => closed,
    [Symbol.dispose]: () => socket.terminate(),
  };
}

describe.concurrent("a request in the app is never cut by the idle timer", () => {
  test("a slow GET and a long stream both run to their end", async () => {
    await using fd = await startFrontDoor([], { idleTimeoutSeconds: 1 });
    const [slow, stream] = await Promise.all([fd.fetch(`/test/slow?ms=${PAST_IDLE_MS}`), fd.fetch(`/test/stream?ms=${PAST_IDLE_MS}`)]);
    expect([slow.status, await slow.json()]).toEqual([200, { ok: true }]);
    expect([stream.status, await stream.text()]).toEqual([200, "data: open\n\n"]);
  }, 20_000);
});

describe.concurrent("silent sockets stay bounded", () => {
  test("once the app has answered, an idle keep-alive socket is closed again", async () => {
    await using fd = await startFrontDoor([], { idleTimeoutSeconds: 1 });
    using conn = await keepAlive(fd.port, `GET /test/slow?ms=10 HTTP/1.1\r\nHost: 127.0.0.1:${fd.port}\r\n\r\n`);
    await until(() => conn.received().includes('{"ok":true}'), 5000, "the answer");
    await until(conn.closed, 10_000, "the server to close the idle socket");
  }, 20_000);

  test("once a stream has ended, its idle keep-alive socket is closed again", async () => {
    await using fd = await startFrontDoor([], { idleTimeoutSeconds: 1 });
    using conn = await keepAlive(fd.port, `GET /test/stream?ms=10 HTTP/1.1\r\nHost: 127.0.0.1:${fd.port}\r\n\r\n`);
    await until(() => conn.received().endsWith("0\r\n\r\n"), 5000, "the stream to end");
    await until(conn.closed, 10_000, "the server to close the idle socket");
  }, 20_000);

  test("a body that stalls is answered 408 request_body_timeout", async () => {
    await using fd = await startFrontDoor([], { bodyIdleMs: 300 });
    const head = `POST /test/echo HTTP/1.1\r\nHost: 127.0.0.1:${fd.port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n`;
    const { response } = await rawExchange(fd.port, `${head}{"a":`, { timeoutMs: 5000 });
    expect(response?.status).toBe(408);
    expect(JSON.parse(response!.text)).toMatchObject({ code: "request_body_timeout", error: expect.any(String) });
  });

  test("a chunked body that stalls is answered 408 as well", async () => {
    await using fd = await startFrontDoor([], { bodyIdleMs: 300 });
    const head = `POST /test/echo HTTP/1.1\r\nHost: 127.0.0.1:${fd.port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`;
    const { response } = await rawExchange(fd.port, `${head}5\r\n{"a":\r\n`, { timeoutMs: 5000 });
    expect(response?.status).toBe(408);
  });

  test("a body that arrives slowly but steadily is read whole", async () => {
    await using fd = await startFrontDoor([], { bodyIdleMs: 500 });
    const pieces = ['{"a"', ":", "[1,", "2,", "3]", "}"];
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const piece = pieces.shift();
        if (piece === undefined) return controller.close();
        await Bun.sleep(200); // the client's pace, under the 500 ms bound but 1.2 s in all
        controller.enqueue(new TextEncoder().encode(piece));
      },
    });
    const res = await fd.fetch("/test/echo", { method: "POST", headers: { "Content-Type": "application/json" }, body });
    expect([res.status, await res.json()]).toEqual([200, { received: { a: [1, 2, 3] } }]);
  });

  test("an answer the front door gives itself leaves the idle timer on", async () => {
    await using fd = await startFrontDoor(["--token", "idle-token"], { idleTimeoutSeconds: 1 });
    using conn = await keepAlive(fd.port, `GET /test/ok HTTP/1.1\r\nHost: 127.0.0.1:${fd.port}\r\n\r\n`);
    await until(() => conn.received().includes("401"), 5000, "the 401");
    await until(conn.closed, 10_000, "the server to close the idle socket");
    // and the gate still answers a fresh connection
    expect((await rawRequest(fd.port, { path: "/test/ok", headers: [["Host", `127.0.0.1:${fd.port}`]] })).status).toBe(401);
  }, 20_000);
});

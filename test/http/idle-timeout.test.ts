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

/**
 * Sends a request head declaring `length` body bytes, then drips the body one byte every `everyMs`
 * (well inside the body reader's idle bound) until the server answers; resolves with what it sent
 * back. Rejects after `timeoutMs`.
 */
async function drip(port: number, length: number, everyMs: number, timeoutMs: number): Promise<string> {
  let received = "";
  let ticker: Timer | undefined;
  const answered = Promise.withResolvers<string>();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      open(s) {
        s.write(`POST /test/echo HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`);
        ticker = setInterval(() => s.write("x"), everyMs);
      },
      data(_s, chunk) {
        received += chunk.toString();
      },
      close() {
        answered.resolve(received);
      },
      error() {
        answered.resolve(received);
      },
    },
  });
  const timer = setTimeout(() => answered.reject(new Error(`no answer within ${timeoutMs} ms; got ${JSON.stringify(received)}`)), timeoutMs);
  try {
    return await answered.promise;
  } finally {
    clearInterval(ticker);
    clearTimeout(timer);
    socket.terminate();
  }
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

  test("a body that drips too slowly to finish by its deadline is 408 and gives its connection slot back", async () => {
    // Two slots, both taken by clients dripping a 100-byte body a byte per 100 ms: never idle for
    // the 300 ms stall bound, but 10 s in all, far past the 1 s any body may take.
    await using fd = await startFrontDoor(["--max-connections", "2"], { bodyIdleMs: 300, bodyMinTotalMs: 1000 });
    const drips = [drip(fd.port, 100, 100, 5000), drip(fd.port, 100, 100, 5000)];
    await until(async () => (await fd.fetch("/health")).status === 503, 5000, "both slots to be taken");
    for (const answer of await Promise.all(drips)) {
      expect(answer).toStartWith("HTTP/1.1 408");
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({ code: "request_body_timeout", deadlineMs: 1000 });
    }
    expect((await fd.fetch("/health")).status).toBe(200);
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

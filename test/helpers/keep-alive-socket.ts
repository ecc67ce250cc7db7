/**
 * One raw keep-alive TCP connection to a daemon, for tests that must reuse a connection opened
 * earlier (e.g. once the daemon's descriptor table is full, no new connection could be accepted).
 */
import type { Socket } from "bun";
import { until } from "./until.ts";

export interface KeepAliveSocket {
  readonly socket: Socket<undefined>;
  readonly state: { received: string; closed: boolean };
}

/** Opens a connection that collects what the server sends. */
export async function connect(port: number): Promise<KeepAliveSocket> {
  const state = { received: "", closed: false };
  const socket: Socket<undefined> = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data: (_s, data) => void (state.received += new TextDecoder().decode(data)),
      close: () => void (state.closed = true),
      error: () => void (state.closed = true),
    },
  });
  return { socket, state };
}

/** Sends one request on `conn` and reads its one response (Content-Length framed, JSON body). */
export async function requestOn(conn: KeepAliveSocket, port: number, method: string, path: string, body = ""): Promise<{ status: number; retryAfter: string | null; body: any }> {
  conn.state.received = "";
  conn.socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  return await until(
    () => {
      if (conn.state.closed) throw new Error("the daemon closed the connection");
      const { received } = conn.state;
      const end = received.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: (\d+)/i.exec(received)?.[1];
      if (end === -1 || length === undefined || Buffer.byteLength(received.slice(end + 4)) < Number(length)) return null;
      const retryAfter = /\r\nretry-after: (\S+)/i.exec(received)?.[1] ?? null;
      return { status: Number(received.split(" ")[1]), retryAfter, body: JSON.parse(received.slice(end + 4)) };
    },
    15_000,
    `the response to ${method} ${path}`,
  );
}

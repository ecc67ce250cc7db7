/** Reading one cell of `GET /workspace/preflight`, as the agent-start tests do. */
import { expect } from "bun:test";
import type { FakeAgentDaemon } from "./fake-agent-daemon.ts";

export interface Cell {
  kind: string;
  status: string;
  [field: string]: unknown;
}

/** The preflight cell of `kind`, or undefined when the daemon shows none. */
export async function preflightCell(d: FakeAgentDaemon, kind: string): Promise<Cell | undefined> {
  const reply = await d.json<{ cells: Cell[] }>("GET", "/workspace/preflight");
  expect(reply.status).toBe(200);
  return reply.body.cells.find((c) => c.kind === kind);
}

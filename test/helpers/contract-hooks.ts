/**
 * Test preload (bunfig.toml): fails each test that received a response or an SSE frame breaking
 * the daemon's declared contract (see `contract.ts`), naming every violation.
 */
import { afterAll, afterEach } from "bun:test";
import { takeViolations } from "./contract.ts";

function failOnViolations(when: string): void {
  const found = takeViolations();
  if (found.length > 0) throw new Error(`contract: ${found.length} response(s) ${when} break the declared API contract:\n  ${found.join("\n  ")}`);
}

afterEach(() => failOnViolations("received by this test"));
afterAll(() => failOnViolations("received outside a test (in a before/after hook)"));

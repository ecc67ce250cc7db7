/** The session list's group moves (web/session-groups.ts): the orders that move a group one place. */
import { describe, expect, test } from "bun:test";
import type { SessionGroup } from "../../../src/client/index.ts";
import { moveOrders } from "../../../src/web/session-groups.ts";

const group = (id: string, order: number): SessionGroup => ({ id, name: id, color: "blue", order, createdAt: "", updatedAt: "" });

describe("moveOrders", () => {
  const groups = [group("a", 1), group("b", 5), group("c", 9)];

  test("a group and its neighbour swap orders", () => {
    expect(moveOrders(groups, 1, -1)).toEqual([
      { id: "b", order: 1 },
      { id: "a", order: 5 },
    ]);
    expect(moveOrders(groups, 1, 1)).toEqual([
      { id: "b", order: 9 },
      { id: "c", order: 5 },
    ]);
  });

  test("a tie (ordered by name on the daemon) is broken by one step past the neighbour", () => {
    const tied = [group("x", 3), group("y", 3)];
    expect(moveOrders(tied, 1, -1)).toEqual([{ id: "y", order: 2 }]);
    expect(moveOrders(tied, 0, 1)).toEqual([{ id: "x", order: 4 }]);
  });

  test("nothing moves past either end", () => {
    expect(moveOrders(groups, 0, -1)).toEqual([]);
    expect(moveOrders(groups, 2, 1)).toEqual([]);
  });
});

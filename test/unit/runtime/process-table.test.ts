import { describe, expect, test } from "bun:test";
import { adoptedOrphans, familyOf, parseStat, readProcessTable, type ProcessEntry } from "../../../src/runtime/process-table.ts";

const p = (pid: number, ppid: number, pgid: number, sid: number, zombie = false): ProcessEntry => ({ pid, ppid, pgid, sid, zombie });
const pids = (entries: readonly ProcessEntry[]) => entries.map((e) => e.pid).sort((a, b) => a - b);

describe("parseStat", () => {
  test("reads pid, parent, group, session and state, whatever the command name holds", () => {
    expect(parseStat("4242 (evil) Z 1 2 3) S 7 8 9 0 -1 4194304 0 0 0") ).toEqual(p(4242, 7, 8, 9));
    expect(parseStat("10 (sleep) Z 1 10 10 0 -1")).toEqual(p(10, 1, 10, 10, true));
    expect(parseStat("garbage")).toBeNull();
  });

  test("this process is in the live table", () => {
    const self = readProcessTable()?.find((e) => e.pid === process.pid);
    expect(self).toMatchObject({ pid: process.pid, ppid: process.ppid, zombie: false });
  });
});

describe("familyOf", () => {
  // daemon 100 (session 100); agent 200 leads session and group 200.
  const table = [
    p(100, 1, 100, 100),
    p(200, 100, 200, 200), // the agent
    p(201, 200, 200, 200), // a tool in its group
    p(202, 200, 202, 200), // job control: own group, same session
    p(203, 1, 202, 200), //   its child, orphaned: still in the session
    p(204, 200, 204, 204), // setsid tool: own session, child of the agent
    p(205, 204, 204, 204), //   its child
    p(206, 1, 206, 206), //   its grandchild, setsid and orphaned: not connected
    p(207, 204, 204, 204, true), // a zombie member
    p(300, 100, 300, 300), // another agent
    p(301, 300, 300, 300), // its tool
    p(400, 1, 400, 400), // unrelated
  ];

  test("reaches the group, the session, and children of members in their own sessions; not zombies, not strangers", () => {
    expect(pids(familyOf(table, [200]))).toEqual([200, 201, 202, 203, 204, 205]);
  });

  test("an exited agent's family is found through its group and session, and registered roots connect orphans", () => {
    const afterExit = table.filter((e) => e.pid !== 200).map((e) => (e.ppid === 200 ? { ...e, ppid: 1 } : e));
    expect(pids(familyOf(afterExit, [200]))).toEqual([201, 202, 203]);
    expect(pids(familyOf(afterExit, [200, 204]))).toEqual([201, 202, 203, 204, 205]);
  });

  test("never includes what is excluded (the daemon)", () => {
    expect(pids(familyOf([p(100, 1, 200, 200), p(201, 100, 200, 200)], [200], new Set([100])))).toEqual([201]);
  });
});

describe("adoptedOrphans", () => {
  test("children of the daemon outside its session that it did not start", () => {
    const table = [p(100, 1, 100, 100), p(200, 100, 200, 200), p(150, 100, 100, 100), p(210, 100, 209, 209), p(211, 100, 211, 211, true), p(220, 200, 220, 220)];
    const owned = (pid: number) => pid === 200;
    expect(pids(adoptedOrphans(table, { pid: 100, sid: 100 }, owned))).toEqual([210, 211]);
  });
});

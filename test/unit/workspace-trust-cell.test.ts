/** The preflight `workspace_trust` cell: ok only when trusted with nothing ignored; a warning naming what is ignored, and why, otherwise. */
import { expect, test } from "bun:test";
import { workspaceTrustCell } from "../../src/workspace/preflight-cells.ts";

const yolo = { key: "tools.approvalMode", reason: "yolo_host_only", message: 'tools.approvalMode "yolo" is ignored: …' };

test("trusted with nothing ignored is ok; untrusted or anything ignored is a warning naming it; a damaged store says so", () => {
  expect(workspaceTrustCell({ state: "trusted", source: "file", ignored: [] })).toEqual({
    kind: "workspace_trust",
    locality: "daemon",
    status: "ok",
    detail: { state: "trusted", source: "file", ignoredSettings: [], ignoredSettingDetails: [] },
  });
  expect(workspaceTrustCell({ state: "trusted", source: "file", ignored: [yolo] })).toMatchObject({ status: "warning", error: yolo.message, detail: { ignoredSettings: ["tools.approvalMode"] } });
  expect(workspaceTrustCell({ state: "untrusted", source: "none", ignored: [], hint: "svc trust /ws" })).toMatchObject({ status: "warning", error: "the workspace is not trusted", hint: "svc trust /ws" });
  expect(workspaceTrustCell({ state: "untrusted", source: "damaged", ignored: [], storeProblem: "trust.json is not valid JSON" })).toMatchObject({ status: "warning", errorKind: "parse_error", error: "trust.json is not valid JSON" });
});

/** `GET /workspace/settings`'s document (`workspace-settings.ts`): a key naming a secret is never listed. */
import { describe, expect, test } from "bun:test";
import { withoutSecrets, type SettingEntry } from "../../../src/server/workspace-settings.ts";

const entry = (key: string): SettingEntry => ({ key, type: "boolean", label: key, category: "Test", description: "", requiresRestart: false, values: { effective: true } });

describe("withoutSecrets", () => {
  test("drops keys whose last segment names a secret, camelCase or not, and keeps the rest", () => {
    const secret = ["apiKey", "model.apiKey", "auth.token", "providers.openai.clientSecret", "db.password", "github.githubPat", "aws.accessKeyId"];
    const kept = ["agent", "policy.permissionStrategy", "policy.consensusQuorum", "security.folderTrust.enabled", "ui.keyboard", "tokenizer"];
    expect(withoutSecrets([...secret, ...kept].map(entry)).map((e) => e.key)).toEqual(kept);
  });
});

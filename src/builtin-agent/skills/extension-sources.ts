/**
 * The skill folders of the enabled extensions (`src/extensions/`): `<extension>/skills/`, their
 * skills named `<extension>:<name>`. Extensions are installed for the user (under the data dir),
 * so they count whether or not the workspace is trusted.
 */
import { join } from "node:path";
import { enabledExtensions } from "../../extensions/extension-store.ts";
import type { SkillSource } from "./skill-catalog.ts";

export function extensionSkillSources(dataDir: string): SkillSource[] {
  return enabledExtensions(dataDir).map((e) => ({ level: "extension", dir: join(e.path, "skills"), root: e.path, extensionName: e.name }));
}

/**
 * The folder trust notice: when the daemon reports its workspace untrusted (`/capabilities`, then
 * `GET /workspace/trust` for the details), a quiet banner says what that means and names the
 * workspace settings that were ignored, with a way to trust the folder: the daemon's trust request
 * when the page holds a bearer token (the route needs one), else the `svc trust` command.
 * A daemon without the route (404), or any other failure to read it, shows nothing: the daemon
 * enforces trust either way, the notice only explains it.
 *
 * Bound: `MAX_IGNORED` ignored settings are named, each cut at `MAX_SETTING_CHARS` characters
 * (the names come from the workspace's own settings file).
 */
import { useEffect, useState } from "preact/hooks";
import type { WorkspaceTrust } from "../../client/index.ts";
import { client, describe, reloadKey, reportAuth, workspaceTrusted } from "../app-state.ts";
import { bounded, shellArg } from "../permission-details.ts";
import { Visible } from "./visible-text.tsx";

const MAX_IGNORED = 20;
const MAX_SETTING_CHARS = 200;

export function TrustNotice() {
  const untrusted = workspaceTrusted.value === false;
  const key = reloadKey.value;
  const [trust, setTrust] = useState<WorkspaceTrust | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const [hidden, setHidden] = useState(false);

  const load = async () => {
    try {
      setTrust(await client.workspaceTrust());
    } catch (error) {
      reportAuth(error);
      setTrust(null);
    }
  };
  useEffect(() => {
    if (untrusted) void load();
  }, [untrusted, key]);

  if (hidden || trust?.effective?.state !== "untrusted") return null;
  const ignored = (trust.ignoredSettings ?? []).filter((s) => typeof s === "string");
  const named = ignored.slice(0, MAX_IGNORED).map((s) => {
    const cut = bounded(s, MAX_SETTING_CHARS);
    return cut.omitted > 0 ? `${cut.text}…` : cut.text;
  });
  const ask = async () => {
    setAsking(true);
    setProblem(null);
    try {
      const answer = await client.requestWorkspaceTrust("trusted");
      if (!answer.accepted || answer.requiresOperatorAction) setProblem(`The daemon did not apply it; run svc trust ${shellArg(trust.workspaceCwd)} instead.`);
      await load();
    } catch (error) {
      if (!reportAuth(error)) setProblem(describe(error));
    } finally {
      setAsking(false);
    }
  };
  return (
    <section class="trust-notice" aria-label="Folder trust">
      <p>
        <strong>This folder is not trusted.</strong> The agent asks before every edit and command
        {named.length > 0 ? (
          <>
            {", and these workspace settings are ignored: "}
            {named.map((s, i) => (
              <span key={i}>
                {i > 0 && ", "}
                <code>
                  <Visible text={s} />
                </code>
              </span>
            ))}
            {ignored.length > named.length && ` and ${ignored.length - named.length} more`}.
          </>
        ) : (
          "; workspace settings that would widen that are ignored."
        )}
      </p>
      {client.token ? (
        <button type="button" disabled={asking} onClick={() => void ask()}>
          Trust this folder
        </button>
      ) : (
        <p>
          To trust it, run <code>svc trust {shellArg(trust.workspaceCwd)}</code>.
        </p>
      )}
      {problem && <p role="alert">{problem}</p>}
      <button type="button" class="quiet" aria-label="Hide the folder trust notice" onClick={() => setHidden(true)}>
        ×
      </button>
    </section>
  );
}

/** The bearer token form, shown when the daemon answers 401. */
import { useState } from "preact/hooks";
import { client, needsToken, reloadKey } from "../app-state.ts";
import { storeToken } from "../token.ts";

export function TokenPrompt() {
  const [value, setValue] = useState("");
  const submit = (e: Event) => {
    e.preventDefault();
    const token = value.trim();
    if (!token) return;
    storeToken(token);
    client.setToken(token);
    needsToken.value = false;
    reloadKey.value++;
  };
  return (
    <main class="token-page">
      <form class="card token-form" onSubmit={submit}>
        <h1>Connect to the daemon</h1>
        <p>This daemon needs its bearer token. It stays in this tab only.</p>
        <label for="token-input">Bearer token</label>
        <input id="token-input" type="password" autocomplete="off" value={value} onInput={(e) => setValue(e.currentTarget.value)} autofocus />
        <button type="submit">Connect</button>
      </form>
    </main>
  );
}

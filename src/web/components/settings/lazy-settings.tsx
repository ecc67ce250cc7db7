/**
 * The settings area's seam: its view is a chunk of its own, imported the first time the route
 * opens it (the first paint does not carry it). A failed load says so and is tried again on the next visit.
 */
import { signal } from "@preact/signals";
import { useEffect } from "preact/hooks";

type SettingsModule = typeof import("./settings-view.tsx");

const loaded = signal<SettingsModule | null>(null);
const failed = signal<string | null>(null);
let loading: Promise<unknown> | null = null;

function load(): void {
  loading ??= import("./settings-view.tsx").then(
    (m) => {
      failed.value = null;
      loaded.value = m;
    },
    (error: unknown) => {
      loading = null;
      failed.value = error instanceof Error ? error.message : String(error);
    },
  );
}

export function LazySettings({ section }: { section: string | undefined }) {
  const m = loaded.value;
  useEffect(() => {
    if (!m) load();
  }, [m]);
  if (m) return <m.SettingsView section={section} />;
  if (failed.value) return <p role="alert">The settings could not be loaded: {failed.value}</p>;
  return <p class="empty">Loading settings…</p>;
}

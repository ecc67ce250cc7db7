/**
 * The page's keyboard shortcuts: Alt+N a new session, `/` (outside a text field) the prompt box,
 * Esc stops the running turn (the composer and the chat view handle it). Views register the action
 * they provide; the keys are handled once, here.
 */

/** One action a mounted view provides (the last one registered wins). */
class Slot {
  private action: (() => void) | null = null;

  /** Registers `action`; returns its unregistration (for an effect's cleanup). */
  register(action: () => void): () => void {
    this.action = action;
    return () => {
      if (this.action === action) this.action = null;
    };
  }

  run(): boolean {
    this.action?.();
    return this.action !== null;
  }
}

export const composerFocus = new Slot();
export const newSession = new Slot();
export const stopTurn = new Slot();

function typing(el: Element | null): boolean {
  return el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement || el instanceof HTMLSelectElement || (el instanceof HTMLElement && el.isContentEditable);
}

export function installShortcuts(): void {
  addEventListener("keydown", (e: KeyboardEvent) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey) return;
    if (e.altKey && e.code === "KeyN") {
      if (newSession.run()) e.preventDefault();
    } else if (!e.altKey && e.key === "/" && !typing(document.activeElement)) {
      if (composerFocus.run()) e.preventDefault();
    } else if (e.key === "Escape" && !typing(document.activeElement)) {
      if (stopTurn.run()) e.preventDefault();
    }
  });
}

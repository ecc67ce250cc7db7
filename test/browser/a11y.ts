/**
 * An accessibility audit run inside the page: the rules axe-core rates serious or critical that
 * this UI can break, checked on the rendered DOM (the project carries no axe-core; these are its
 * rule ids, with their usual meaning):
 * - `button-name`, `link-name`, `label`, `select-name`: controls have an accessible name;
 * - `duplicate-id-aria`: ids are unique (labels and descriptions point at one element);
 * - `color-contrast`: visible text against its backdrop reaches 4.5:1 (3:1 for large text);
 *   disabled controls and their text are exempt, as in WCAG;
 * - `list`, `listitem`: lists hold list items only, list items sit in lists;
 * - `nested-interactive`: no control inside a button or link;
 * - `aria-hidden-focus`: nothing focusable inside `aria-hidden`;
 * - `image-alt`, `html-has-lang`, `document-title`.
 * `audit(page)` returns one line per violation (`rule: element: detail`).
 */
import type { Page } from "playwright-core";

export async function audit(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const describe = (el: Element) => {
      const id = el.id ? `#${el.id}` : "";
      const cls = el.getAttribute("class") ? `.${el.getAttribute("class")!.trim().split(/\s+/).join(".")}` : "";
      return `${el.tagName.toLowerCase()}${id}${cls} "${(el.textContent ?? "").trim().slice(0, 40)}"`;
    };
    const visible = (el: Element) => {
      const box = (el as HTMLElement).getBoundingClientRect();
      const style = getComputedStyle(el);
      return box.width > 0 && box.height > 0 && style.visibility !== "hidden" && style.display !== "none";
    };
    /** Text of an element as an accessible name would take it (aria-hidden parts left out). */
    const textOf = (el: Element): string => {
      let s = "";
      for (const n of Array.from(el.childNodes)) {
        if (n.nodeType === Node.TEXT_NODE) s += n.textContent ?? "";
        else if (n instanceof Element && n.getAttribute("aria-hidden") !== "true") s += textOf(n);
      }
      return s;
    };
    const labelled = (el: Element): boolean => {
      const ids = el.getAttribute("aria-labelledby");
      if (ids && ids.split(/\s+/).some((id) => (document.getElementById(id)?.textContent ?? "").trim())) return true;
      if ((el.getAttribute("aria-label") ?? "").trim() || (el.getAttribute("title") ?? "").trim()) return true;
      if ((el as HTMLInputElement).labels?.length) return Array.from((el as HTMLInputElement).labels!).some((l) => l.textContent?.trim());
      return false;
    };

    if (!document.documentElement.lang) out.push("html-has-lang: <html> has no lang");
    if (!document.title.trim()) out.push("document-title: the page has no title");

    const ids = new Map<string, number>();
    for (const el of Array.from(document.querySelectorAll("[id]"))) ids.set(el.id, (ids.get(el.id) ?? 0) + 1);
    for (const [id, n] of ids) if (n > 1) out.push(`duplicate-id-aria: #${id} appears ${n} times`);

    for (const el of Array.from(document.querySelectorAll("button, [role=button], a[href]"))) {
      if (!visible(el)) continue;
      if (!textOf(el).trim() && !labelled(el)) out.push(`${el.tagName === "A" ? "link-name" : "button-name"}: ${describe(el)}`);
      if (el.querySelector("button, a[href], input, select, textarea, [tabindex]")) out.push(`nested-interactive: ${describe(el)}`);
    }
    for (const el of Array.from(document.querySelectorAll("input, select, textarea"))) {
      const type = (el as HTMLInputElement).type;
      if (["hidden", "button", "submit", "reset"].includes(type)) continue;
      if (!labelled(el)) out.push(`${el.tagName === "SELECT" ? "select-name" : "label"}: ${describe(el)}`);
    }
    for (const el of Array.from(document.querySelectorAll("img"))) if (!el.hasAttribute("alt")) out.push(`image-alt: ${describe(el)}`);
    for (const list of Array.from(document.querySelectorAll("ul, ol"))) {
      for (const child of Array.from(list.children)) if (!["LI", "SCRIPT", "TEMPLATE"].includes(child.tagName)) out.push(`list: ${describe(list)} holds ${child.tagName.toLowerCase()}`);
    }
    for (const li of Array.from(document.querySelectorAll("li"))) {
      const parent = li.parentElement;
      if (!parent || !(["UL", "OL", "MENU"].includes(parent.tagName) || parent.getAttribute("role") === "list" || parent.getAttribute("role") === "group" || parent.getAttribute("role") === "tree")) {
        out.push(`listitem: ${describe(li)} outside a list`);
      }
    }
    for (const hidden of Array.from(document.querySelectorAll('[aria-hidden="true"]'))) {
      for (const f of Array.from(hidden.querySelectorAll("button, a[href], input, select, textarea, [tabindex]"))) {
        if ((f as HTMLElement).tabIndex >= 0 && !(f as HTMLButtonElement).disabled) out.push(`aria-hidden-focus: ${describe(f)}`);
      }
    }

    // Contrast: each element with its own visible text, against the first opaque backdrop up its ancestors.
    const rgba = (c: string): [number, number, number, number] => {
      const m = c.match(/rgba?\(([^)]+)\)/);
      if (!m) return [0, 0, 0, 0];
      const p = m[1]!.split(/[ ,/]+/).filter(Boolean).map(Number);
      return [p[0]!, p[1]!, p[2]!, p[3] ?? 1];
    };
    const lum = ([r, g, b]: number[]) => {
      const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
    };
    const backdrop = (el: Element): number[] | null => {
      const layers: number[][] = [];
      for (let e: Element | null = el; e; e = e.parentElement) {
        const style = getComputedStyle(e);
        if (style.backgroundImage !== "none") return null;
        const c = rgba(style.backgroundColor);
        if (c[3] > 0) layers.push(c);
        if (c[3] >= 1) break;
      }
      let base = [255, 255, 255];
      if (layers.length === 0 || layers[layers.length - 1]![3]! < 1) base = rgba(getComputedStyle(document.documentElement).backgroundColor).slice(0, 3);
      for (const l of layers.reverse()) base = base.map((v, i) => l[i]! * l[3]! + v * (1 - l[3]!));
      return base;
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const checked = new Set<Element>();
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || checked.has(el) || !(n.textContent ?? "").trim()) continue;
      checked.add(el);
      if (!visible(el) || el.closest("[disabled], [aria-disabled=true], option, .invisible-char")) continue;
      const style = getComputedStyle(el);
      const bg = backdrop(el);
      if (!bg) continue;
      const fg = rgba(style.color);
      const color = fg.slice(0, 3).map((v, i) => v * fg[3]! * Number(style.opacity || 1) + bg[i]! * (1 - fg[3]! * Number(style.opacity || 1)));
      const [a, b] = [lum(color), lum(bg)];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) out.push(`color-contrast: ${describe(el)} ${ratio.toFixed(2)}:1`);
    }
    return out;
  });
}

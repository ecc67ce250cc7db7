/** The web UI's markdown step (before DOMPurify): GFM renders, raw HTML never does. */
import { describe, expect, test } from "bun:test";
import { markdownToHtml } from "../../src/web/markdown-html.ts";

describe("markdownToHtml", () => {
  test("renders GFM: emphasis, code, tables, line breaks", () => {
    const html = markdownToHtml("**b** `c`\nnext\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
    expect(html).toContain("<strong>b</strong> <code>c</code><br>next");
    expect(html).toContain("<table>");
  });

  test("raw HTML, block or inline, comes out as escaped text", () => {
    const html = markdownToHtml('<div style="color:red">x</div>\n\nhi <img src=x onerror="alert(1)"> <script>alert(2)</script>');
    expect(html).not.toMatch(/<(div|img|script)\b/);
    expect(html).toContain("&lt;div style=&quot;color:red&quot;&gt;");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
  });
});

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

  test("images show as their alt text, never as an <img> (no request leaves the page)", () => {
    const html = markdownToHtml("see ![the chart](http://example.invalid/a.png) and ![dot](data:image/png;base64,AA)");
    expect(html).not.toContain("<img");
    expect(html).not.toContain("example.invalid");
    expect(html).toContain("see the chart and dot");
  });

  test("no text-chosen attribute: a fenced block's info string is not a class", () => {
    const html = markdownToHtml("```primary permission\ncode <b>\n```\n\n# Heading");
    expect(html).toContain("<pre><code>code &lt;b&gt;\n</code></pre>");
    expect(html).not.toMatch(/\s(class|id|role|aria-[a-z]+)=/);
  });
});

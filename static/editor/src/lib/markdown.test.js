import { describe, expect, it } from "vitest";
import { renderMarkdown } from "./markdown.js";

describe("a note's markdown", () => {
  it("renders headings, emphasis, code, lists and links that open apart", () => {
    const html = renderMarkdown(
      "# Why\n**adults** _only_ `age`\n\n- one\n\n[docs](https://example.com/x)",
    );
    expect(html).toContain("<h1>Why</h1>");
    expect(html).toContain("<strong>adults</strong> <em>only</em> <code>age</code>");
    expect(html).toContain("<li>one</li>");
    expect(html).toContain(
      '<a href="https://example.com/x" target="_blank" rel="noopener noreferrer nofollow">docs</a>',
    );
  });

  it.each([
    ["javascript:alert(1)"],
    ["JaVaScRiPt:alert(1)"],
    ["&#106;avascript:alert(1)"],
    ["java%73cript:alert(1)"],
    ["vbscript:msgbox(1)"],
    ["data:text/html,<script>alert(1)</script>"],
    [" javascript:alert(1)"],
  ])("makes no link of %s", (address) => {
    const html = renderMarkdown(`[x](${address}) <${address}>`);
    expect(html).not.toMatch(/<a /);
    expect(html.toLowerCase()).not.toMatch(/href="\s*(javascript|vbscript|data):/);
  });

  it("shows raw HTML as text, never as elements", () => {
    const html = renderMarkdown(
      '<img src=x onerror="alert(1)"> <script>alert(2)</script> <a href="javascript:x">y</a>',
    );
    expect(html).not.toMatch(/<(img|script|a)\b/);
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
  });

  it("loads no image and writes no style attribute (the page's CSP refuses them)", () => {
    expect(renderMarkdown("![p](https://example.com/p.png)")).not.toContain("<img");
    expect(renderMarkdown("| a | b |\n|:-|-:|\n| 1 | 2 |")).not.toContain("style=");
  });

  it("keeps relative and mail links", () => {
    expect(
      renderMarkdown("[a](docs/x.md) [b](#top) [c](mailto:ada@example.com)").match(/<a /g),
    ).toHaveLength(3);
  });
});

import { describe, expect, it } from "vitest";
import { tokenizeInlineMarkdown } from "../../../server/docs-markdown.js";
import { DOCS_PAGE } from "../../../server/docs-page.js";

describe("tokenizeInlineMarkdown", () => {
  it("splits code, strong, emphasis and links from the text around them", () => {
    expect(
      tokenizeInlineMarkdown(
        "Each message has `id` = seq and **must** be *read*; see [the spec](https://example.com/spec).",
      ),
    ).toEqual([
      { kind: "text", text: "Each message has " },
      { kind: "code", text: "id" },
      { kind: "text", text: " = seq and " },
      { kind: "strong", text: "must" },
      { kind: "text", text: " be " },
      { kind: "em", text: "read" },
      { kind: "text", text: "; see " },
      { kind: "link", text: "the spec", href: "https://example.com/spec" },
      { kind: "text", text: "." },
    ]);
  });

  it("keeps a link to anything but http(s) or this site as its text only", () => {
    expect(tokenizeInlineMarkdown("[click](javascript:void0) and [docs](/openapi.json)")).toEqual([
      { kind: "text", text: "click" },
      { kind: "text", text: " and " },
      { kind: "link", text: "docs", href: "/openapi.json" },
    ]);
    expect(tokenizeInlineMarkdown("plain text, 2 * 3")).toEqual([{ kind: "text", text: "plain text, 2 * 3" }]);
  });

  it("is the very function the /docs page runs", () => {
    expect(DOCS_PAGE).toContain(`const tokenizeInlineMarkdown = ${tokenizeInlineMarkdown.toString()};`);
  });
});

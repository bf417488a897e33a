/** One piece of inline Markdown: plain text, `code`, **strong**, *emphasis* or a [link](href). */
export type InlineToken =
  { kind: "text" | "code" | "strong" | "em"; text: string } | { kind: "link"; text: string; href: string };

/**
 * Splits the inline Markdown of the API's descriptions into tokens. Links keep only http(s)
 * and same-site targets. Pure, and written without helpers of its own: /docs embeds this
 * function's source in its page and runs it in the browser.
 */
export function tokenizeInlineMarkdown(source: string): InlineToken[] {
  const tokens: InlineToken[] = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (const match of source.matchAll(pattern)) {
    const at = match.index ?? 0;
    if (at > last) tokens.push({ kind: "text", text: source.slice(last, at) });
    if (match[1] !== undefined) tokens.push({ kind: "code", text: match[1] });
    else if (match[2] !== undefined) tokens.push({ kind: "strong", text: match[2] });
    else if (match[3] !== undefined) tokens.push({ kind: "em", text: match[3] });
    else if (/^(https?:\/\/|\/)/.test(match[5] ?? ""))
      tokens.push({ kind: "link", text: match[4] ?? "", href: match[5] ?? "" });
    else tokens.push({ kind: "text", text: match[4] ?? "" });
    last = at + match[0].length;
  }
  if (last < source.length) tokens.push({ kind: "text", text: source.slice(last) });
  return tokens;
}

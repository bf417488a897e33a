/**
 * C0 controls but newline and tab, DEL, C1 controls (0x9b is CSI to some terminals), and the
 * bidirectional overrides and isolates that can make text read differently from what it is.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Makes text from a worker (diffs, command output, approval descriptions, names) safe to
 * print on a terminal: every control character but newline and tab is shown as a visible
 * escape (`\x1b`, `\r`, `\u202e`) instead of being sent to the terminal. Pure.
 */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (char) => {
    const code = char.charCodeAt(0);
    if (char === "\r") return "\\r";
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** JSON for a terminal: JSON.stringify already escapes C0 controls; this also escapes DEL, C1 and bidi controls (still valid JSON). Pure. */
export function stringifyForTerminal(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent).replace(
    UNSAFE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * Compiles a glob (`*`, `**`, `?`, `[abc]`, `{a,b}`) to a regular expression over
 * `/`-separated relative paths. A pattern without a slash matches a name at any depth,
 * as .gitignore-style excludes do.
 */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  let inGroup = 0;
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i] as string;
    if (char === "*") {
      if (glob[i + 1] === "*") {
        const slashAfter = glob[i + 2] === "/";
        source += slashAfter ? "(?:.*/)?" : ".*";
        i += slashAfter ? 2 : 1;
      } else {
        source += "[^/]*";
      }
    } else if (char === "?") source += "[^/]";
    else if (char === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end === -1) source += "\\[";
      else {
        const body = glob
          .slice(i + 1, end)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\");
        source += `[${body}]`;
        i = end;
      }
    } else if (char === "{") {
      inGroup += 1;
      source += "(?:";
    } else if (char === "}" && inGroup > 0) {
      inGroup -= 1;
      source += ")";
    } else if (char === "," && inGroup > 0) source += "|";
    else source += char.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  const anchored = glob.includes("/") ? `^${source.replace(/^\//, "")}$` : `^(?:.*/)?${source}$`;
  return new RegExp(anchored);
}

/** True when the relative path matches any of the globs. */
export function matchesAny(relativePath: string, globs: readonly RegExp[]): boolean {
  return globs.some((glob) => glob.test(relativePath));
}

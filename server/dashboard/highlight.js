// Syntax colouring for the lines of a diff: strings, comments, numbers and keywords of a
// few languages, picked by the file's extension. Pure text in, text nodes and spans out.
import { el } from "./dom.js";

const KEYWORDS = {
  js: "await async break case catch class const continue default delete do else export extends false finally for from function if import in instanceof let new null return static super switch this throw true try typeof undefined var void while yield interface type enum implements readonly",
  py: "and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield",
  go: "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false",
  rs: "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while",
  sh: "if then else elif fi for while do done case esac function in export local return",
};
/** The language of a file extension (a null prototype: an extension like "toString" names none). */
export const LANGUAGE = Object.assign(Object.create(null), {
  js: "js",
  mjs: "js",
  cjs: "js",
  ts: "js",
  tsx: "js",
  jsx: "js",
  mts: "js",
  py: "py",
  go: "go",
  rs: "rs",
  sh: "sh",
  bash: "sh",
});
const COMMENT = { js: "//", go: "//", rs: "//", py: "#", sh: "#" };

/** Splits one line of code into spans: strings, comments, numbers and keywords. */
export function highlight(code, language) {
  if (language === undefined) return [document.createTextNode(code)];
  const keywords = new Set(KEYWORDS[language].split(" "));
  const comment = COMMENT[language].replace(/[/#]/g, (c) => `\\${c}`);
  const pattern = new RegExp(
    `(${comment}.*$)|("(?:[^"\\\\]|\\\\.)*"?|'(?:[^'\\\\]|\\\\.)*'?|\`[^\`]*\`?)|(\\b\\d[\\d_.xXa-fA-F]*\\b)|([A-Za-z_$][\\w$]*)`,
    "g",
  );
  const nodes = [];
  let last = 0;
  for (const match of code.matchAll(pattern)) {
    const [text, com, str, num, word] = match;
    const cls = com ? "tok-com" : str ? "tok-str" : num ? "tok-num" : word && keywords.has(word) ? "tok-kw" : null;
    if (cls === null) continue;
    if (match.index > last) nodes.push(document.createTextNode(code.slice(last, match.index)));
    nodes.push(el("span", { class: cls, text }));
    last = match.index + text.length;
  }
  if (last < code.length) nodes.push(document.createTextNode(code.slice(last)));
  return nodes;
}

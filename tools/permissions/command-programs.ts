/**
 * The programs a bash command line starts, best effort: the first word of each simple
 * command in lists and pipelines (`a && b | c; d`), skipping leading VAR=value
 * assignments and the wrappers that only run their argument (env, exec, command, time,
 * nice, nohup, timeout, xargs, sudo). Quotes are honoured. Pure. This is policy, not a
 * security boundary: a determined program can start others.
 */
export function programsOf(command: string): string[] {
  return [...new Set(commandWords(command).map((words) => words[0] as string))];
}

/**
 * Each simple command of a command line as its words, from the program on (assignments,
 * keywords and wrappers removed). Pure.
 */
export function commandWords(command: string): string[][] {
  const result: string[][] = [];
  for (const words of simpleCommands(command)) {
    let index = 0;
    while (
      index < words.length &&
      (KEYWORDS.has(words[index] as string) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[index] as string))
    )
      index += 1;
    while (index < words.length && WRAPPERS.has(words[index] as string)) {
      index += 1;
      while (
        index < words.length &&
        ((words[index] as string).startsWith("-") ||
          /^\d+[smhd]?$/.test(words[index] as string) ||
          /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[index] as string))
      )
        index += 1;
    }
    const program = words[index];
    if (program !== undefined && !KEYWORDS.has(program)) result.push(words.slice(index));
  }
  return result;
}

const WRAPPERS = new Set(["env", "exec", "command", "time", "nice", "nohup", "timeout", "xargs", "sudo", "builtin"]);
const KEYWORDS = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "for",
  "while",
  "until",
  "do",
  "done",
  "case",
  "esac",
  "in",
  "function",
  "{",
  "}",
  "(",
  ")",
  "!",
  "[[",
  "]]",
]);

function simpleCommands(command: string): string[][] {
  const commands: string[][] = [[]];
  let word = "";
  let quote: "'" | '"' | null = null;
  let inWord = false;
  let redirectTarget = false;
  const push = () => {
    if (inWord) {
      if (redirectTarget) redirectTarget = false;
      else (commands.at(-1) as string[]).push(word);
    }
    word = "";
    inWord = false;
  };
  for (let i = 0; i < command.length; i += 1) {
    const char = command[i] as string;
    if (quote !== null) {
      if (char === quote) quote = null;
      else if (char === "\\" && quote === '"' && i + 1 < command.length) word += command[++i];
      else word += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === "\\" && i + 1 < command.length) {
      word += command[++i];
      inWord = true;
    } else if (char === "#" && !inWord) {
      while (i < command.length && command[i] !== "\n") i += 1;
      push();
      commands.push([]);
    } else if (/[\s]/.test(char)) {
      push();
      if (char === "\n") commands.push([]);
    } else if (char === ">" || char === "<" || (char === "&" && command[i + 1] === ">")) {
      // A redirection: drop a file-descriptor number before it and the target after it.
      if (/^\d+$/.test(word)) {
        word = "";
        inWord = false;
      }
      push();
      while (/[<>&|]/.test(command[i + 1] ?? "")) i += 1;
      if (/\d/.test(command[i + 1] ?? "") && command[i] === "&") {
        while (/\d/.test(command[i + 1] ?? "")) i += 1;
      } else redirectTarget = true;
    } else if (/[;&|()]/.test(char) || char === "`") {
      push();
      commands.push([]);
    } else if (char === "$" && command[i + 1] === "(") {
      push();
      commands.push([]);
      i += 1;
    } else {
      word += char;
      inWord = true;
    }
  }
  push();
  return commands.filter((words) => words.length > 0);
}

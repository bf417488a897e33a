import type { Readable, Writable } from "node:stream";
import { AccessControl, PermissionDeniedError } from "../permissions/access-control.js";
import { streamRecords } from "./stream-records.js";
import { SHELL_REPORT_INTRODUCER, type ShellLineReport } from "../../contract/control.js";

/**
 * The interactive shell (`workcell shell` from a terminal): bash with a DEBUG trap that,
 * before the first command of each line, hands the whole line to a checker kept running
 * beside it (`workcell-tools shell-check`). The checker applies exactly what `exec` applies
 * to a command line (AccessControl.checkCommand, with the policy file read afresh), so a
 * line `exec` would refuse is refused here, and none of its commands run.
 *
 * After each check the shell writes a report to the terminal as an OSC escape the control
 * plane removes from the stream and records as events:
 *   ESC ] SHELL_REPORT_INTRODUCER (7717;workcell;) <nonce> ; <base64 JSON> BEL
 * The nonce is drawn by bash when the shell starts and sent first; reports with any other
 * nonce (a program printing look-alikes) are dropped. Like exec's check this is policy and
 * a record, not a boundary: the container is the boundary.
 */

const FIELD = "\x1f";

/** The most characters of one line the checker takes (a longer line is refused). */
export const MAX_SHELL_LINE_CHARS = 64 * 1024;

/** The checker's answer for one line, and the report the shell passes on. Pure but for the policy read. */
export async function checkShellLine(access: AccessControl, line: string): Promise<ShellLineReport> {
  if (line.length > MAX_SHELL_LINE_CHARS) {
    return {
      command: `${line.slice(0, 200)}…`,
      allowed: false,
      message: `workcell: a line of over ${MAX_SHELL_LINE_CHARS} characters cannot be checked; put it in a script file and run that.`,
      audit: [],
    };
  }
  try {
    await access.checkCommand(line);
    return { command: line, allowed: true, audit: access.drainAudit() };
  } catch (error) {
    access.drainAudit();
    if (error instanceof PermissionDeniedError)
      return { command: line, allowed: false, message: error.message, audit: [] };
    return {
      command: line,
      allowed: false,
      message: `workcell: the line could not be checked (${error instanceof Error ? error.message : String(error)}), so it did not run.`,
      audit: [],
    };
  }
}

/**
 * Answers NUL-terminated lines on `input` until it closes, one NUL-terminated answer each:
 * `ok` or `no`, the message to show (may be empty) and the base64 report, separated by
 * ASCII unit separators (which bash does not merge as it would tabs).
 */
export async function serveShellChecks(input: Readable, output: Writable, access: AccessControl): Promise<void> {
  for await (const record of streamRecords(input, 0, MAX_SHELL_LINE_CHARS * 4)) {
    if (record === null) continue;
    const report = await checkShellLine(access, record.toString("utf8"));
    const encoded = Buffer.from(JSON.stringify(report)).toString("base64");
    output.write(
      `${report.allowed ? "ok" : "no"}${FIELD}${(report.message ?? "").replace(/[\x1f\0]/g, " ")}${FIELD}${encoded}\0`,
    );
  }
}

/**
 * The bash startup file of the interactive shell. `toolsPath` is the bundled tools program.
 * History must stay on and keep every line, since the check reads the line from it.
 */
export function interactiveShellRc(toolsPath: string): string {
  return `# workcell: the interactive shell. Each line is checked against the worker's policy before it runs.
HISTCONTROL=; HISTIGNORE=; HISTFILE=; HISTTIMEFORMAT=
readonly HISTCONTROL HISTIGNORE HISTTIMEFORMAT
PS1='\\u@workcell:\\w\\$ '
coproc __WORKCELL_CHECK { exec node ${toolsPath} shell-check; }
exec {__workcell_out}>&1
__workcell_nonce=$SRANDOM$SRANDOM$SRANDOM
__workcell_line=-1
__workcell_verdict=0
printf '\\e]${SHELL_REPORT_INTRODUCER}%s;\\a' "$__workcell_nonce" >&"$__workcell_out"
__workcell_check() {
  (( HISTCMD == __workcell_line )) && return $__workcell_verdict
  __workcell_line=$HISTCMD
  __workcell_verdict=1
  if [[ :$SHELLOPTS: != *:history:* ]]; then
    echo "workcell: history is off, so lines cannot be checked and none runs; turn it back on with: set -o history" >&2
    return 1
  fi
  local entry answer verdict message report
  entry=$(history 1)
  [[ $entry =~ ^\\ *[0-9]+\\*?\\ \\ (.*)$ ]] && entry=\${BASH_REMATCH[1]}
  if ! { printf '%s\\0' "$entry" >&"\${__WORKCELL_CHECK[1]}" && IFS= read -r -d '' answer <&"\${__WORKCELL_CHECK[0]}"; } 2>/dev/null; then
    echo "workcell: the policy check has stopped, so nothing more runs in this shell; exit and open a new one." >&2
    return 1
  fi
  verdict=\${answer%%$'\\x1f'*}; answer=\${answer#*$'\\x1f'}
  message=\${answer%%$'\\x1f'*}; report=\${answer#*$'\\x1f'}
  [[ -n $message ]] && printf '%s\\n' "$message" >&2
  printf '\\e]${SHELL_REPORT_INTRODUCER}%s;%s\\a' "$__workcell_nonce" "$report" >&"$__workcell_out"
  [[ $verdict == ok ]] && __workcell_verdict=0
  return $__workcell_verdict
}
shopt -s extdebug
trap __workcell_check DEBUG
`;
}

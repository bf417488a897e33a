/** Each client command's usage, options and an example, in the order `workcell --help` lists them. */
export const HELP: Record<string, string> = {
  spawn: `workcell spawn <repo> [--base <ref>] [--name <prefix>] [--allow-net[=hosts]] [--allow-read=paths] [--allow-write=paths]
               [--allow-run[=programs]] [--allow-env=names] [--deny-{read,write,net,run,env}=list] [--prompt] [--audit]
               [--memory <MB>] [--cpus <n>] [--json]
  Create a worker on a git repository. Permission flags mirror Deno's and become the worker's policy.
  Example: workcell spawn "$PWD" --name fix-login --allow-net=registry.npmjs.org:443 --allow-run=git,npm,node`,
  ls: `workcell ls [--json]\n  List workers.\n  Example: workcell ls --json | jq -r '.workers[].id'`,
  exec: `workcell exec <id> [--timeout <ms>] -- <command…>\n  Run a command in the worker; exits with the command's exit code.\n  Example: workcell exec 3f9c1a2b -- npm test`,
  shell: `workcell shell <id> [< script]\n  From a terminal: an interactive bash in the worker's container, as the sandbox user. Each line is checked against the\n  worker's run grants as exec checks a command (a refused line runs none of its commands) and recorded in its events.\n  Piped: the script runs as one exec, under the same policy and recorded the same way.\n  Example: workcell shell 3f9c1a2b          (then type; 'exit' leaves)\n           workcell shell 3f9c1a2b < setup.sh`,
  diff: `workcell diff <id> [--json]\n  What changed since the worker's base.\n  Example: workcell diff 3f9c1a2b | less -R`,
  export: `workcell export <id> [--branch <name>] [--json]\n  Bring the worker's branch into the source repository.\n  Example: workcell export 3f9c1a2b --branch feature/login`,
  rm: `workcell rm <id> [--keep-workspace] [--json]\n  Remove a worker (and its workspace unless --keep-workspace).\n  Example: workcell rm 3f9c1a2b --keep-workspace`,
  logs: `workcell logs <id> [-f] [--json]\n  The worker's events, one line each (commands, tool calls and what went wrong); -f follows them live.\n  Example: workcell logs 3f9c1a2b -f`,
  approvals: `workcell approvals [--json]\n  Pending approvals and the call each holds. Decide with: workcell approve <id> [--scope worker] | workcell reject <id> [--reason "…"]\n  Example: workcell approvals`,
  approve: `workcell approve <approval-id> [--scope once|worker] [--input '<json>']\n  Approve (or, with --input, edit and approve) a pending call.\n  Example: workcell approve ap_1a2b3c --scope worker`,
  reject: `workcell reject <approval-id> [--reason "…"]\n  Reject a pending call; the agent sees the reason.\n  Example: workcell reject ap_1a2b3c --reason "no network for this task"`,
  "mcp-config": `workcell mcp-config <id>\n  The JSON an MCP client needs to connect to the worker.\n  Example: workcell mcp-config 3f9c1a2b > .mcp.json`,
};

/** The usage text of the client commands. */
export function clientUsage(): string {
  return Object.values(HELP).join("\n\n");
}

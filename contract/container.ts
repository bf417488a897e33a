/**
 * The places and variables a worker's container and the control plane agree on: where the
 * workspace and the control directory are mounted, what is in that directory, and the
 * variables the control plane sets for workcell's in-container programs. Defined once,
 * here; both sides import it.
 */

/** Where the worker's workspace is mounted. */
export const CONTAINER_WORKSPACE = "/workspace";

/** Where the worker's control directory is mounted, read-only: the policy file and the egress proxy's socket. */
export const CONTAINER_RUN_DIR = "/run/workcell";

/** The policy file's name in the control directory. */
export const POLICY_FILE_NAME = "policy.json";

/** The egress proxy socket's name in the control directory. */
export const PROXY_SOCKET_NAME = "proxy.sock";

/**
 * The argument that has the MCP server take its session over a socket in the control
 * directory (`mcp --socket <name>`) rather than over stdio: the server reads a one-time
 * token from stdin, connects, and writes the token as the connection's first line, so the
 * control plane knows the connection is the server's and not another process's in the sandbox.
 */
export const MCP_SOCKET_ARG = "--socket";

/**
 * The id of the one ping the control plane sends a server over its session socket before
 * handing the session over (its answer never reaches the agent; it is not the session's start).
 */
export const MCP_PREFLIGHT_ID = "workcell-preflight";

/** A session socket's name in the control directory: a fixed prefix and 16 hex digits. */
export const MCP_SOCKET_NAME = /^mcp-[0-9a-f]{16}\.sock$/;

/** The variable that names the sandbox user ("uid:gid") for workcell's own programs. */
export const SANDBOX_USER_VAR = "WORKCELL_SANDBOX_USER";

/** The image's helper that runs a program as the sandbox user with no way back (sandbox-images/sandbox-user.c). */
export const SANDBOX_USER_HELPER = "/usr/libexec/workcell-sandbox-user";

/** The variable whose value marks every process one call or shell started, so they can be found and ended together. */
export const CALL_MARKER_VAR = "WORKCELL_CALL_ID";

/** The variable that hands a session's tools server the worker's finish-gate state (JSON). */
export const GATE_VAR = "WORKCELL_GATE";

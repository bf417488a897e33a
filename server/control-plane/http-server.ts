import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { serve, type ServerType } from "@hono/node-server";
import { AppError } from "../../runtime/errors/app-error.js";
import type { ShellUpgrades } from "../shell-upgrade.js";

/** How the app answers a request. */
type Fetch = (request: Request) => Response | Promise<Response>;

/**
 * Serves `fetch` on host:port, handing Upgrade requests to the shells; resolves once it
 * listens. If it cannot, `onFailure` runs first, and a port in use says how to choose another.
 */
export function listen(
  fetch: Fetch,
  shells: ShellUpgrades,
  address: { readonly host: string; readonly port: number },
  onFailure: () => void,
): Promise<ServerType> {
  return new Promise<ServerType>((resolve, reject) => {
    const started = serve({ fetch, hostname: address.host, port: address.port }, () => resolve(started));
    started.on(
      "upgrade",
      (request: IncomingMessage, socket: Duplex, head: Buffer) =>
        void shells.handle(request, socket, head, fetch).catch(() => socket.destroy()),
    );
    started.once("error", (error: NodeJS.ErrnoException) => {
      onFailure();
      reject(
        error.code === "EADDRINUSE"
          ? new AppError(
              "conflict",
              `${address.host}:${address.port} is already in use. Stop what listens there, or choose another port with WORKCELL_PORT.`,
            )
          : error,
      );
    });
  });
}

/** Stops listening and ends open connections; resolves when the server has closed. */
export function closeServer(server: ServerType): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    (server as { closeAllConnections?: () => void }).closeAllConnections?.();
  });
}

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A tiny HTTP server on the host's loopback that answers with its own name; the only kind of server the network tests contact. */
export interface LoopbackServer {
  port: number;
  hits: number;
  close(): Promise<void>;
}

export async function startLoopbackServer(name: string): Promise<LoopbackServer> {
  const state = { hits: 0 };
  const server: Server = createServer((req, res) => {
    state.hits += 1;
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(`hello from ${name} ${req.method} ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    get hits() {
      return state.hits;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

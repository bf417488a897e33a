import { connect, createServer } from "node:net";
import { CONTAINER_RUN_DIR, PROXY_SOCKET_NAME } from "../../contract/container.js";

/** Where the in-container forwarder listens; HTTP_PROXY and HTTPS_PROXY point here. */
export const FORWARD_PORT = 3128;
/** The egress proxy's socket, bind-mounted from the control plane. */
export const PROXY_SOCKET = `${CONTAINER_RUN_DIR}/${PROXY_SOCKET_NAME}`;

/**
 * Keeps the container alive and forwards each TCP connection made to 127.0.0.1:3128 to
 * the control plane's egress proxy over the mounted Unix socket: the container has no
 * network interface, so this is its only way out, and the proxy decides every request.
 */
export function forwardToProxy(socketPath = PROXY_SOCKET, port = FORWARD_PORT): Promise<never> {
  const server = createServer((client) => {
    const upstream = connect(socketPath);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  return new Promise((_, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1");
  });
}

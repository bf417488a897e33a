import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ConnectionSlots } from "../../../../runtime/net/connection-slots.js";
import { EgressProxy, type EgressDecider, type EgressProxyOptions } from "../../../../runtime/net/egress-proxy.js";

let dir: string;
let target: Server;
let targetPort: number;
let accepted = 0;
const open: Socket[] = [];
const proxies: EgressProxy[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "workcell-proxy-"));
  target = createServer((socket) => {
    accepted += 1;
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetPort = (target.address() as AddressInfo).port;
});

afterEach(async () => {
  for (const socket of open.splice(0)) socket.destroy();
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

afterAll(async () => {
  target.close();
  await rm(dir, { recursive: true, force: true });
});

async function startProxy(
  name: string,
  options: EgressProxyOptions,
  decide: EgressDecider = () => ({ allowed: true }),
): Promise<EgressProxy> {
  const proxy = new EgressProxy(path.join(dir, `${name}.sock`), decide, options);
  await proxy.start();
  proxies.push(proxy);
  return proxy;
}

/** Sends one CONNECT over the proxy's socket and answers the status line; the connection stays open. */
function tunnel(proxy: EgressProxy, authority: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxy.socketPath);
    open.push(socket);
    let text = "";
    socket.on("error", reject);
    socket.on("data", (chunk) => {
      text += chunk.toString("utf8");
      if (text.includes("\r\n\r\n")) resolve({ status: Number(text.split(" ")[1]), text });
    });
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n\r\n`);
  });
}

describe("EgressProxy", () => {
  it("refuses a granted name whose DNS answer is an IPv4-mapped internal address, without connecting", async () => {
    const proxy = await startProxy("mapped", {
      resolveAll: async (name) => (name === "mapped.test" ? ["2606:4700::1", "::ffff:127.0.0.1"] : []),
    });
    const before = accepted;
    const answer = await tunnel(proxy, `mapped.test:${targetPort}`);
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('"mapped.test" resolves to the internal address 127.0.0.1');
    expect(accepted).toBe(before);
  });

  it("decides a literal in any notation as its canonical address", async () => {
    const decided: string[] = [];
    const proxy = await startProxy("literal", {}, (host: string) => {
      decided.push(host);
      return { allowed: false as const, message: `PermissionDenied: ${host}` };
    });
    for (const form of ["[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "0x7f.1", "2130706433", "127.1"])
      expect((await tunnel(proxy, `${form}:${targetPort}`)).status).toBe(403);
    expect(decided).toEqual(Array(5).fill("127.0.0.1"));
  });

  it("caps concurrent connections per proxy with 429 and frees slots when tunnels close", async () => {
    const proxy = await startProxy("capped", { maxConnections: 3 });
    const answers = [];
    for (let index = 0; index < 5; index += 1) answers.push(await tunnel(proxy, `127.0.0.1:${targetPort}`));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429, 429]);
    expect(answers[3]?.text).toContain("the limit is 3");
    const first = open[0] as Socket;
    await new Promise<void>((resolve) => {
      first.once("close", () => resolve());
      first.destroy();
    });
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt += 1) {
      status = (await tunnel(proxy, `127.0.0.1:${targetPort}`)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe(200);
  });

  it("shares one host-wide budget across proxies and answers 503 when it is spent", async () => {
    const hostSlots = new ConnectionSlots(2);
    const a = await startProxy("host-a", { maxConnections: 10, hostSlots });
    const b = await startProxy("host-b", { maxConnections: 10, hostSlots });
    expect((await tunnel(a, `127.0.0.1:${targetPort}`)).status).toBe(200);
    expect((await tunnel(b, `127.0.0.1:${targetPort}`)).status).toBe(200);
    const refused = await tunnel(b, `127.0.0.1:${targetPort}`);
    expect(refused.status).toBe(503);
  });
});

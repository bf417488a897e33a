import { describe, expect, it } from "vitest";
import {
  dockerHostSocket,
  isEngineSocketName,
  parseUnixSocketPaths,
} from "../../../../runtime/permissions/engine-sockets.js";

describe("engine sockets", () => {
  it("reads the bound paths of /proc/net/unix, leaving out abstract and unnamed sockets", () => {
    const text = [
      "Num       RefCount Protocol Flags    Type St Inode Path",
      "00000000448b3695: 00000002 00000000 00010000 0001 01  5522 /var/run/docker.sock",
      "00000000e8fb3a24: 00000002 00000000 00010000 0001 01 1140344 /run/containerd/s/9d09c10",
      "0000000084e07dfa: 00000002 00000000 00000000 0001 03 397393 /var/run/docker.sock",
      "0000000084e07dfb: 00000002 00000000 00000000 0001 03 397394 @/containerd-shim/abc.sock",
      "0000000084e07dfc: 00000002 00000000 00000000 0001 03 397395",
      "0000000084e07dfd: 00000002 00000000 00010000 0001 01 397396 /srv/my dir/app.sock",
      "",
    ].join("\n");
    expect(parseUnixSocketPaths(text)).toEqual([
      "/var/run/docker.sock",
      "/run/containerd/s/9d09c10",
      "/srv/my dir/app.sock",
    ]);
  });

  it.each([
    ["/run/docker.sock", true],
    ["/run/user/1000/docker.sock", true],
    ["/run/containerd/containerd.sock.ttrpc", true],
    ["/run/podman/podman.sock", true],
    ["/var/run/crio/crio.sock", true],
    ["/run/buildkit/buildkitd.sock", true],
    ["/run/dbus/system_bus_socket", false],
    ["/srv/app/app.sock", false],
  ])("%s names an engine: %s", (socketPath, expected) => {
    expect(isEngineSocketName(socketPath)).toBe(expected);
  });

  it("takes the unix path of DOCKER_HOST and nothing else", () => {
    expect(dockerHostSocket("unix:///srv/engine/api.sock")).toBe("/srv/engine/api.sock");
    expect(dockerHostSocket("tcp://127.0.0.1:2376")).toBeUndefined();
    expect(dockerHostSocket("ssh://user@host")).toBeUndefined();
    expect(dockerHostSocket(undefined)).toBeUndefined();
  });
});

import { randomBytes } from "node:crypto";
import { open, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { Adapter } from "lowdb";

/**
 * A lowdb adapter whose writes survive a crash at any instant: the JSON goes to a temporary
 * file in the same directory, is fsynced, renamed over the old file, and the directory is
 * fsynced — so the file is always a complete old or a complete new version.
 */
export class DurableJsonFile<T> implements Adapter<T> {
  constructor(private readonly file: string) {}

  async read(): Promise<T | null> {
    try {
      return JSON.parse(await readFile(this.file, "utf8")) as T;
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return null;
      throw error;
    }
  }

  async write(data: T): Promise<void> {
    const directory = path.dirname(this.file);
    const temporary = path.join(directory, `.${path.basename(this.file)}.${randomBytes(6).toString("hex")}.tmp`);
    const handle = await open(temporary, "wx", 0o600);
    try {
      await handle.writeFile(JSON.stringify(data, null, 2));
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(temporary, { force: true });
      throw error;
    }
    await handle.close();
    await rename(temporary, this.file);
    const dir = await open(directory, "r");
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }
}

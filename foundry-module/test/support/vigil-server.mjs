/**
 * A real `vigil serve` subprocess for the Node tests (the same banner the
 * Python tests parse: URL and the demo table's tokens).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const VIGIL = process.env.VIGIL_BIN ?? join(repo, ".venv", "bin", "vigil");
export const haveVigil = existsSync(VIGIL);

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export class VigilServer {
  constructor() {
    this.dataDir = mkdtempSync(join(tmpdir(), "vigil-node-"));
    this.port = null;
    this.proc = null;
    this.banner = {};
  }

  get wsUrl() { return `ws://127.0.0.1:${this.port}/ws`; }
  token(label) {
    const v = this.banner[label];
    return v.includes("#token=") ? v.split("#token=")[1] : v;
  }
  get gmToken() { return this.token("GM dashboard"); }
  get spectatorToken() { return this.token("Spectator view"); }
  get playerToken() { return this.token("Player page (Brannoc)"); }
  get operatorToken() { return this.token("Operator token"); }

  async start(timeoutMs = 20_000) {
    this.port ??= await freePort();
    const proc = spawn(VIGIL, ["serve", "--data-dir", this.dataDir, "--port", String(this.port)], { stdio: ["ignore", "pipe", "pipe"] });
    this.proc = proc;
    let stderr = "";
    proc.stderr.on("data", (d) => { stderr = (stderr + d).slice(-4000); });
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`vigil serve did not print its banner: ${stderr}`)), timeoutMs);
      let buf = "";
      proc.stdout.on("data", (chunk) => {
        buf += chunk;
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          const m = /^([A-Za-z][^:]*): (.*)$/.exec(line);
          if (m) this.banner[m[1]] = m[2];
          if (line.startsWith("More tokens:")) { clearTimeout(timer); resolve(); }
        }
      });
      proc.on("exit", (code) => { clearTimeout(timer); reject(new Error(`vigil serve exited ${code}: ${stderr}`)); });
    });
    proc.removeAllListeners("exit");
    await this._healthy(timeoutMs);
    return this;
  }

  async _healthy(timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      try {
        const r = await fetch(`http://127.0.0.1:${this.port}/healthz`);
        if (r.ok) return;
      } catch { /* not up yet */ }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("vigil serve did not become healthy");
  }

  async stop() {
    const proc = this.proc;
    if (!proc) return;
    this.proc = null;
    if (proc.exitCode !== null) return;
    await new Promise((resolve) => {
      proc.on("exit", resolve);
      proc.kill("SIGTERM");
    });
  }

  /** Stop and start again on the same port and data (tokens stay valid). */
  async restart() {
    const banner = this.banner;
    await this.stop();
    await this.start();
    this.banner = { ...banner, "Operator token": this.banner["Operator token"] ?? banner["Operator token"] };
  }

  async dispose() {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

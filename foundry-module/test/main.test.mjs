/**
 * main.js itself, in a GM's browser of a fake world (fakes/world.mjs) on
 * v12- and v13-shaped Foundry, against a real `vigil serve`: init → ready →
 * connect (the GM's pasted token) → link a token → its overlay drawn → a
 * player's browser receives its own player token, which the real server
 * accepts for that player's character only.
 */
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { registerSettings, storedToken, MODULE_ID } from "../scripts/settings.js";
import { TokenDelivery } from "../scripts/token-delivery.js";
import { linkCommand } from "../scripts/controls/panel.js";
import { VigilClient } from "../scripts/core/client.js";
import { FakeWorld } from "./fakes/world.mjs";
import { FakeToken, fakeCanvas, FakeApplicationV2 } from "./fakes/foundry.mjs";
import { PIXI } from "./fakes/pixi.mjs";
import { FakeDocument } from "./fakes/dom.mjs";
import { VigilServer, haveVigil } from "./support/vigil-server.mjs";

const lang = JSON.parse(readFileSync(new URL("../lang/en.json", import.meta.url)));
const skip = haveVigil ? false : "no .venv/bin/vigil (install the server first)";
let server = null;
after(async () => { await server?.dispose(); });

async function until(cond, what, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const USERS = [{ id: "gm1", name: "Gamemaster", isGM: true }, { id: "u-alice", name: "Alice" }];
const GLOBALS = ["Hooks", "game", "ui", "CONFIG", "canvas", "PIXI", "foundry", "document"];

for (const version of [12, 13]) {
  test(`main.js as the GM on v${version}: connect, link, overlay, a player's token delivered`, { skip, timeout: 90_000 }, async () => {
    server ??= await new VigilServer().start();
    const actors = [{ id: "actB", name: "Brannoc", testUserPermission: (u, level) => level === "OWNER" && u.id === "u-alice" }];
    const world = new FakeWorld({ id: `world-v${version}`, users: USERS, lang, actors });
    const gm = world.browser("gm1", { version });
    const token = new FakeToken({ id: "tokB", actorId: "actB", name: "Brannoc" });
    Object.assign(globalThis, {
      Hooks: gm.Hooks, game: gm.game, ui: gm.ui, CONFIG: gm.CONFIG, canvas: fakeCanvas([token]), PIXI,
      foundry: { applications: { api: { ApplicationV2: FakeApplicationV2 } } }, document: new FakeDocument(),
    });
    const { vigil } = await import(`../scripts/main.js?v${version}`);
    let player = null;
    try {
      gm.Hooks.callAll("init");
      assert.ok(vigil.connection && vigil.delivery && vigil.overlays);
      gm.Hooks.callAll("ready");
      await gm.game.settings.set(MODULE_ID, "serverUrl", server.wsUrl);
      await gm.game.settings.set(MODULE_ID, "accessToken", server.gmToken);
      assert.equal(gm.game.settings.get(MODULE_ID, "accessToken"), "", "the pasted token moved into the keyed store");
      await until(() => vigil.connection.status === "connected" && vigil.connection.state, "the GM's connection");
      assert.equal(vigil.connection.client.role, "gm");

      // Link the token to Brannoc as the window's link button does; the overlay appears.
      await vigil.connection.send(linkCommand("brannoc", token.document));
      await until(() => token.getChildByName("vigil-overlay"), "Brannoc's overlay");

      // Alice's browser (another origin, not a secure context) gets her own token.
      const alice = world.browser("u-alice", { version, secure: false, origin: "http://foundry.test:30000" });
      registerSettings(() => {}, alice.game);
      const idle = Object.assign(new EventTarget(), { state: null, status: "idle", start() {} });
      player = new TokenDelivery(idle, alice);
      player.registerQueries();
      await player.start();
      await until(() => storedToken(alice.game), "Alice's token");
      const mine = storedToken(alice.game);
      assert.notEqual(mine, server.playerToken, "a token the module minted, not the demo's");

      // The real server takes it as Alice's, for Brannoc only.
      const client = new VigilClient({ url: server.wsUrl, token: mine, clientName: "node-test" });
      const welcome = await new Promise((resolve) => { client.addEventListener("welcome", (e) => resolve(e.detail), { once: true }); client.connect(); });
      client.close();
      assert.equal(welcome.role ?? client.role, "player");
      assert.deepEqual(client.ownCharacters, ["brannoc"]);
      const records = (await vigil.connection.send({ type: "token.list" })).result;
      const live = records.filter((r) => r.label === `foundry:world-v${version}:u-alice` && !r.revoked);
      assert.equal(live.length, 1, "one live module-minted token for Alice");
    } finally {
      player?.stop();
      vigil.delivery?.stop();
      vigil.connection?.stop();
      for (const k of GLOBALS) delete globalThis[k];
    }
  });
}

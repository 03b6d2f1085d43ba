/**
 * main.js itself, in a fake world (fakes/world.mjs) on v12- and v13-shaped
 * Foundry, against a real `vigil serve`. As the GM: init → ready → connect
 * (the GM's pasted token) → link a token → its overlay drawn → a player's
 * browser receives its own player token, which the real server accepts for
 * that player's character only. As a PLAYER on an origin that is not a
 * secure context: init → ready → its token delivered by the active GM's
 * client → connected as that player → the overlay of its character drawn,
 * and its window offering only its own commands.
 */
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { registerSettings, storedToken, MODULE_ID } from "../scripts/settings.js";
import { TokenDelivery } from "../scripts/token-delivery.js";
import { linkCommand, buildPanel } from "../scripts/controls/panel.js";
import { VigilClient } from "../scripts/core/client.js";
import { CATALOGUE } from "../scripts/core/catalogue.js";
import { FakeWorld } from "./fakes/world.mjs";
import { FakeToken, fakeCanvas, FakeApplicationV2 } from "./fakes/foundry.mjs";
import { PIXI } from "./fakes/pixi.mjs";
import { FakeDocument } from "./fakes/dom.mjs";
import { VigilServer, haveVigil } from "./support/vigil-server.mjs";

const lang = JSON.parse(readFileSync(new URL("../lang/en.json", import.meta.url)));
const skip = haveVigil ? false : "no .venv/bin/vigil (install the server first)";
let server = null;
after(async () => { await server?.dispose(); });

/**
 * Link Brannoc's token as the window's link button does. The cases share one
 * server: a case after the first finds it linked already, and the server
 * refuses a change that changes nothing (`no_change`): that is linked too.
 */
async function link(connection, tokenDoc) {
  try {
    await connection.send(linkCommand("brannoc", tokenDoc));
  } catch (err) {
    if (err.code !== "no_change") throw err;
  }
}

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
      await link(vigil.connection, token.document);
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

/** A GM's module connection stand-in over a real VigilClient (the GM's
 * browser runs only its TokenDelivery here; main.js runs as the player). */
function gmConnection(url, token) {
  const client = new VigilClient({ url, token, clientName: "node-test-gm" });
  const conn = new EventTarget();
  Object.defineProperties(conn, { client: { value: client }, state: { get: () => client.state }, status: { get: () => client.status } });
  conn.send = (body) => client.send(body);
  conn.start = () => {};
  conn.stop = () => client.close();
  client.addEventListener("state", (e) => conn.dispatchEvent(new CustomEvent("state", { detail: e.detail })));
  client.connect();
  return conn;
}

for (const version of [12, 13]) {
  test(`main.js as a PLAYER on v${version}, not a secure context: its token delivered, connected, its overlay and only its commands`, { skip, timeout: 90_000 }, async () => {
    server ??= await new VigilServer().start();
    const actors = [{ id: "actB", name: "Brannoc", testUserPermission: (u, level) => level === "OWNER" && u.id === "u-alice" }];
    const world = new FakeWorld({ id: `world-player-v${version}`, users: USERS, lang, actors });
    // The active GM's browser: the world's server URL, a Vigil connection, token delivery.
    const gm = world.browser("gm1", { version });
    registerSettings(() => {}, gm.game);
    await gm.game.settings.set(MODULE_ID, "serverUrl", server.wsUrl);
    const gmConn = gmConnection(server.wsUrl, server.gmToken);
    const gmDelivery = new TokenDelivery(gmConn, gm);
    const token = new FakeToken({ id: "tokB", actorId: "actB", name: "Brannoc" });
    const savedCrypto = Object.getOwnPropertyDescriptor(globalThis, "crypto");
    let vigil = null;
    try {
      await until(() => gmConn.status === "connected" && gmConn.state, "the GM's connection");
      await link(gmConn, token.document);
      gmDelivery.registerQueries();
      await gmDelivery.start();

      // Alice's browser runs main.js: its globals, and crypto without subtle.
      const alice = world.browser("u-alice", { version, secure: false, origin: "http://foundry.test:30000" });
      Object.assign(globalThis, {
        Hooks: alice.Hooks, game: alice.game, ui: alice.ui, CONFIG: alice.CONFIG, canvas: fakeCanvas([token]), PIXI,
        foundry: { applications: { api: { ApplicationV2: FakeApplicationV2 } } }, document: new FakeDocument(),
      });
      Object.defineProperty(globalThis, "crypto", { value: alice.crypto, configurable: true, writable: true });
      assert.equal(globalThis.crypto.subtle, undefined, "an insecure origin has no crypto.subtle");
      ({ vigil } = await import(`../scripts/main.js?player-v${version}`));
      alice.Hooks.callAll("init");
      alice.Hooks.callAll("ready");
      assert.equal(storedToken(alice.game), "", "no token yet: nothing pasted, nothing to copy");
      await until(() => storedToken(alice.game), "Alice's delivered token");
      await until(() => vigil.connection.status === "connected" && vigil.connection.state, "Alice's connection");
      assert.equal(vigil.connection.client.role, "player");
      assert.deepEqual(vigil.connection.client.ownCharacters, ["brannoc"]);
      assert.ok(alice.ui.notifications.messages.some(([, m]) => m === lang["VIGIL.Notify.TokenReceived"]), "told once it arrived");
      // Her character's overlay on her canvas.
      alice.Hooks.callAll("drawToken", token);
      await until(() => token.getChildByName("vigil-overlay"), "Brannoc's overlay in Alice's browser");
      // Her window: Brannoc's commands a player may send (mettle: shake off, effort, rest…), none of the GM's,
      // once her moves came (they follow the state: core/client.js followLegal).
      await until(() => vigil.connection.client.legalRev === vigil.connection.client.rev, "Alice's moves");
      const root = buildPanel(new FakeDocument(), { connection: vigil.connection, tokenDoc: token.document });
      const tags = root.querySelectorAll("form").map((f) => f.getAttribute("data-command"));
      assert.ok(tags.length > 0 && tags.every((tag) => CATALOGUE.commands[tag].senders.player), tags.join(", "));
      assert.ok(!tags.includes("mettle.pain") && !tags.some((tag) => tag.startsWith("clock.")));
    } finally {
      vigil?.delivery?.stop();
      vigil?.connection?.stop();
      gmDelivery.stop();
      gmConn.stop();
      for (const k of GLOBALS) delete globalThis[k];
      Object.defineProperty(globalThis, "crypto", savedCrypto);
    }
  });
}

/**
 * Vigil for Foundry VTT (v12, v13): entry point. Wires the connection, the
 * overlays, the controls and the active-GM duties to Foundry's hooks. Any
 * failure here must leave Foundry working as it did without the module, and
 * no promise started here is left to reject unhandled.
 */

import { registerSettings, getSetting, setSetting, storeToken, storedToken, MODULE_ID, tOrNull } from "./settings.js";
import { VigilConnection } from "./connection.js";
import { OverlayManager } from "./overlay/manager.js";
import { installSync } from "./sync.js";
import { installChat, installDiceColors } from "./chat.js";
import { installHud } from "./controls/hud.js";
import { openPanel } from "./controls/panel.js";
import { TokenDelivery } from "./token-delivery.js";
import { SessionElection, setElection } from "./sessions.js";

export const vigil = {
  connection: null,
  overlays: null,
  delivery: null,
};

const warn = (what) => (err) => console.warn(`vigil | ${what}`, err);

/** A token pasted in the settings field goes into the keyed store (this
 * world, user and server) and the field empties again. */
async function takePastedToken(value, connection) {
  if (!value) return;
  await storeToken(String(value).trim());
  await setSetting("accessToken", "");
  connection.start();
}

function onSetting(key, reconnect, value) {
  const { connection, delivery } = vigil;
  if (key === "accessToken") takePastedToken(value, connection).catch(warn("could not keep the pasted token"));
  else if (key === "serverUrl") {
    connection.start();
    if (!globalThis.game.user?.isGM && !storedToken()) delivery.request();
  } else if (key === "overlays") vigil.overlays?.refreshAll();
  else if (reconnect) connection.start();
}

Hooks.once("init", () => {
  try {
    const connection = new VigilConnection();
    vigil.connection = connection;
    vigil.delivery = new TokenDelivery(connection);
    registerSettings(onSetting);
    vigil.delivery.registerQueries();
    vigil.overlays = new OverlayManager(connection, {
      enabled: () => getSetting("overlays"),
      t: (key, params) => tOrNull(key, params),
    });
    vigil.overlays.install();
    installSync(connection);
    installChat(connection);
    installDiceColors();
    installHud(connection);
    // A token revoked or expired: forget it; a player asks for a new one.
    connection.addEventListener("refused", () => { vigil.delivery.refused(); });
    game.modules.get(MODULE_ID).api = { vigil, openPanel: (tokenDoc) => openPanel(connection, tokenDoc ?? null) };
  } catch (err) {
    console.error("vigil | init failed; Foundry continues without Vigil", err);
  }
});

Hooks.once("ready", () => {
  try {
    // Which of this user's sessions does the active GM's duties (before
    // anything that asks: hooks installed at init read it when they fire).
    // Only GMs (Assistants included) can be the active GM; players have no
    // duties and send no heartbeats.
    if (game.user.isGM) setElection(new SessionElection(globalThis).start());
    vigil.connection.start();
    vigil.delivery.start(); // never rejects
  } catch (err) {
    console.error("vigil | start failed; Foundry continues without Vigil", err);
  }
});

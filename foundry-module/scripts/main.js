/**
 * Vigil for Foundry VTT (v12, v13): entry point. Wires the connection, the
 * overlays, the controls and the active-GM duties to Foundry's hooks. Any
 * failure here must leave Foundry working as it did without the module.
 */

import { registerSettings, getSetting, MODULE_ID, tOrNull } from "./settings.js";
import { VigilConnection } from "./connection.js";
import { OverlayManager } from "./overlay/manager.js";
import { installSync } from "./sync.js";
import { installChat } from "./chat.js";
import { installHud } from "./controls/hud.js";
import { openPanel } from "./controls/panel.js";
import { TokenDelivery } from "./token-delivery.js";

export const vigil = {
  connection: null,
  overlays: null,
  delivery: null,
};

Hooks.once("init", () => {
  const connection = new VigilConnection();
  vigil.connection = connection;
  vigil.delivery = new TokenDelivery(connection);
  registerSettings((key, reconnect) => {
    if (reconnect) connection.start();
    else if (key === "overlays") vigil.overlays?.refreshAll();
  });
  vigil.delivery.registerQueries();
  vigil.overlays = new OverlayManager(connection, {
    enabled: () => getSetting("overlays"),
    t: (key, params) => tOrNull(key, params),
  });
  vigil.overlays.install();
  installSync(connection);
  installChat(connection);
  installHud(connection);
  // A player whose token was revoked or expired asks for a new one.
  connection.addEventListener("refused", () => {
    if (!game.user.isGM) game.settings.set(MODULE_ID, "accessToken", "").then(() => vigil.delivery.request());
  });
  game.modules.get(MODULE_ID).api = { vigil, openPanel: (tokenDoc) => openPanel(connection, tokenDoc ?? null) };
});

Hooks.once("ready", () => {
  try {
    vigil.connection.start();
    vigil.delivery.start();
  } catch (err) {
    console.error("vigil | start failed; Foundry continues without Vigil", err);
  }
});

/**
 * A Vigil button on the token HUD: the GM's controls for that token's
 * character (or linking it), a player's for its own characters.
 * v12's TokenHUD hands the hook a jQuery object, v13's an HTMLElement.
 */

import { characterForToken } from "../overlay/model.js";
import { t } from "../settings.js";
import { openPanel } from "./panel.js";

export function hudRoot(html) {
  if (!html) return null;
  if (typeof html.querySelector === "function") return html;
  return html[0] ?? null; // jQuery
}

/** Whether this user gets a Vigil button on this token's HUD: the GM on any
 * token, a player on its own characters' tokens. Foundry opens the Token HUD
 * only for a token's owners and GMs (foundryvtt/foundryvtt#12440), so what a
 * player may do on another's character (DRYH-09 hope) is reached from its
 * own token's window (panel.js), not from here. */
export function wantsButton(connection, tokenDoc) {
  const client = connection.client;
  if (!client || client.status !== "connected") return false;
  if (client.role === "gm") return true;
  const char = characterForToken(connection.state, tokenDoc);
  return Boolean(char) && (client.ownCharacters ?? []).includes(char);
}

export function installHud(connection, Hooks = globalThis.Hooks, open = openPanel) {
  Hooks.on("renderTokenHUD", (hud, html) => {
    const tokenDoc = hud.object?.document;
    const root = hudRoot(html);
    if (!tokenDoc || !root || !wantsButton(connection, tokenDoc)) return;
    const col = root.querySelector(".col.right") ?? root;
    const linked = Boolean(characterForToken(connection.state, tokenDoc));
    const button = root.ownerDocument.createElement("button");
    button.type = "button";
    button.className = "control-icon vigil-hud";
    button.dataset.action = "vigil";
    button.title = t(linked ? "VIGIL.Hud.Open" : "VIGIL.Hud.Link");
    const icon = root.ownerDocument.createElement("i");
    icon.className = linked ? "fa-solid fa-heart-pulse" : "fa-solid fa-link";
    button.appendChild(icon);
    button.addEventListener("click", (ev) => {
      ev.preventDefault();
      open(connection, tokenDoc);
    });
    col.appendChild(button);
  });
}

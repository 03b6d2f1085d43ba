/**
 * A Vigil button on the token HUD: the GM's controls for that token's
 * character (or linking it), a player's for their own characters.
 * v12's TokenHUD hands the hook a jQuery object, v13's an HTMLElement.
 */

import { characterForToken } from "../overlay/model.js";
import { t } from "../settings.js";
import { openPanel } from "./panel.js";
import { CATALOGUE } from "../core/catalogue.js";
import { characterOffers } from "../core/offers.js";

export function hudRoot(html) {
  if (!html) return null;
  if (typeof html.querySelector === "function") return html;
  return html[0] ?? null; // jQuery
}

/** Whether this user gets a Vigil button on this token: a player on their
 * own characters, and on another's while it offers them something (DRYH-09:
 * any player may spend hope on a protagonist's roll). */
export function wantsButton(connection, tokenDoc) {
  const client = connection.client;
  if (!client || client.status !== "connected") return false;
  if (client.role === "gm") return true;
  const char = characterForToken(connection.state, tokenDoc);
  if (!char) return false;
  const viewer = { role: client.role, own: client.ownCharacters ?? [] };
  return client.ownCharacters.includes(char) || characterOffers(CATALOGUE, connection.state, char, viewer).length > 0;
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

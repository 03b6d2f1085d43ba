/**
 * The module's one connection to Vigil, wrapped for Foundry: it reads the
 * settings, shows a small status indicator, and tells the user (once per
 * outage, not once per retry) when the server is unreachable. Foundry keeps
 * working without it: nothing here throws into Foundry's hooks.
 */

import { VigilClient } from "./core/client.js";
import { namesOf } from "./core/words.js";
import { getSetting, storedToken, t, words } from "./settings.js";
import { notify } from "./notify.js";

export const CLIENT_NAME = "foundry/0.1";

// Character names are the client library's (core/words.js), as the pages' are.
export { namesOf };

/**
 * Localized sentence for a VigilError (server or client code), its params
 * in words as the pages show them (core/words.js `readable`): names, not
 * ids; clock readings, not seconds; field labels, not paths.
 * @param {object} err a VigilError {code, params, message}
 * @param {Record<string, string>} [names] character id → name (namesOf the state)
 */
export function errorText(err, names = {}) {
  // The pages' sentence (core/words.js errorSentence), through Foundry's translations and language.
  return words().error(err?.code ? err : { ...err, code: "unknown" }, names);
}

export class VigilConnection extends EventTarget {
  constructor({ WebSocketImpl = globalThis.WebSocket, document = globalThis.document } = {}) {
    super();
    this.WebSocketImpl = WebSocketImpl;
    this.document = document;
    this.client = null;
    this.indicator = null;
    this._warned = false;
  }

  get state() { return this.client?.state ?? null; }
  get status() { return this.client?.status ?? "idle"; }

  /** (Re)connect from the current settings; idle when a setting is missing. */
  start() {
    this.stop();
    const url = getSetting("serverUrl");
    const token = storedToken();
    this._showStatus("idle");
    if (!url) {
      if (globalThis.game?.user?.isGM) notify("info", t("VIGIL.Notify.NoUrl"));
      return null;
    }
    // A player without a token waits for the active GM's browser to deliver
    // one (token-delivery.js): it is not "not configured", which only the GM
    // could fix.
    if (!token) {
      if (!globalThis.game?.user?.isGM) this._showStatus("waiting");
      return null;
    }
    // The Vigil window offers only the moves the server would accept (state.legal).
    const client = new VigilClient({ url, token, WebSocketImpl: this.WebSocketImpl, clientName: CLIENT_NAME, followLegal: true });
    this.client = client;
    client.addEventListener("status", (e) => this._onStatus(e.detail.status));
    client.addEventListener("refused", (e) => {
      notify("error", t("VIGIL.Notify.Refused", { message: errorText(e.detail, namesOf(this.state)) }));
      this.dispatchEvent(new CustomEvent("refused", { detail: e.detail }));
    });
    client.addEventListener("state", (e) => this.dispatchEvent(new CustomEvent("state", { detail: e.detail })));
    client.addEventListener("legal", (e) => this.dispatchEvent(new CustomEvent("legal", { detail: e.detail })));
    client.addEventListener("welcome", (e) => this.dispatchEvent(new CustomEvent("welcome", { detail: e.detail })));
    try {
      client.connect();
    } catch (err) {
      console.warn("vigil | cannot connect", err);
    }
    return client;
  }

  stop() {
    if (this.client) {
      this.client.close();
      this.client = null;
    }
  }

  /** Send a command; failures become a notification and a rejected promise. */
  async send(body, opts) {
    if (!this.client) {
      const err = { code: "not_connected", params: {} };
      notify("warn", errorText(err, {}));
      throw err;
    }
    try {
      return await this.client.send(body, opts);
    } catch (err) {
      notify("warn", errorText(err, namesOf(this.state)));
      throw err;
    }
  }

  gameNow() { return this.client?.gameNow() ?? 0; }

  _onStatus(status) {
    this._showStatus(status);
    if (status === "reconnecting" && !this._warned) {
      this._warned = true;
      notify("warn", t("VIGIL.Notify.Unreachable"));
    } else if (status === "connected" && this._warned) {
      this._warned = false;
      notify("info", t("VIGIL.Notify.Back"));
    }
    this.dispatchEvent(new CustomEvent("status", { detail: { status } }));
  }

  /** A small fixed indicator, so a silent outage is visible (placed by
   * styles/vigil.css clear of Foundry's own bottom-left Players list). */
  _showStatus(status) {
    const doc = this.document;
    if (!doc?.body) return;
    if (!this.indicator) {
      this.indicator = doc.createElement("div");
      this.indicator.id = "vigil-status";
      doc.body.appendChild(this.indicator);
    }
    this.indicator.dataset.status = status;
    this.indicator.textContent = t(`VIGIL.Status.${status}`);
    this.indicator.title = this.indicator.textContent;
  }
}
